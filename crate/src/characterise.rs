//! One clock through every experiment, as both front ends run it: tick, then overhead
//! (which needs the tick), then fits (which need both).

use serde::{Deserialize, Serialize};

use crate::caveat::Caveat;
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::fit::{self, FitOptions};
use crate::overhead::{self, OverheadOptions};
use crate::report::{ClockReport, ExperimentError};
use crate::run::{Flow, Progress, Run, Stopwatch};
use crate::tick::{self, TickOptions};
use crate::workload::{Workload, WorkloadKind};

/// What to run on a clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// The tick experiment.
    pub tick: TickOptions,
    /// The overhead experiment; skipped when absent.
    pub overhead: Option<OverheadOptions>,
    /// Fits to run, one per workload.
    pub fits: Vec<(WorkloadKind, FitOptions)>,
}

impl Plan {
    /// The time budgets of the plan, added up.
    pub fn seconds(&self) -> f64 {
        self.tick.budget.time_s
            + self.overhead.as_ref().map_or(0.0, |o| o.budget.time_s)
            + self.fits.iter().map(|(_, f)| f.budget.time_s).sum::<f64>()
    }

    /// The plan cut to `share` seconds in all: the tick first (every other experiment
    /// needs it), then the overhead and the fits in proportion to their budgets; none below
    /// a millisecond. What a command with a deadline gives each clock.
    pub fn within(&self, share: f64) -> Plan {
        let mut p = self.clone();
        if share >= self.seconds() {
            return p;
        }
        p.tick.budget.time_s = floor_ms(self.tick.budget.time_s.min(share));
        let rest = (share - p.tick.budget.time_s).max(0.0);
        p.scale_after_tick(rest / (self.seconds() - self.tick.budget.time_s).max(1e-9));
        p
    }

    /// The plan cut to `share` seconds in all, every experiment in proportion (none below
    /// a millisecond): for a caller that can answer only between experiments (a page's
    /// main thread and its Cancel), so that the longest of them stays short too; the
    /// overhead's floor in blocks is off, for it would outlast the share.
    pub fn in_proportion_within(&self, share: f64) -> Plan {
        let mut p = self.clone();
        if let Some(o) = p.overhead.as_mut() {
            o.crossing_blocks = 0;
        }
        // Budgets that add up to the share but for rounding are within it.
        if share * (1.0 + 1e-9) >= self.seconds() {
            return p;
        }
        let k = share / self.seconds();
        p.tick.budget.time_s = floor_ms(self.tick.budget.time_s * k);
        p.scale_after_tick(k);
        p
    }

    fn scale_after_tick(&mut self, k: f64) {
        if let Some(o) = self.overhead.as_mut() {
            o.budget.time_s = floor_ms(o.budget.time_s * k);
        }
        for (_, f) in &mut self.fits {
            f.budget.time_s = floor_ms(f.budget.time_s * k);
        }
    }
}

fn floor_ms(t: f64) -> f64 {
    t.max(1e-3)
}

/// Runs the plan on `clock`. A failed experiment is recorded in the report and the later
/// experiments that need it are skipped; only cancellation is returned as an error.
pub fn characterise<C: Clock + ?Sized>(
    clock: &mut C,
    stopwatch: &mut dyn Stopwatch,
    observer: &mut dyn FnMut(&Progress<'_>) -> Flow,
    plan: &Plan,
) -> Result<ClockReport> {
    characterise_with(clock, stopwatch, observer, plan, &mut |k| k.build())
}

/// [`characterise`], with the fits' workloads made by `build` (a simulated workload when
/// the clock runs on simulated time).
pub fn characterise_with<C: Clock + ?Sized>(
    clock: &mut C,
    stopwatch: &mut dyn Stopwatch,
    observer: &mut dyn FnMut(&Progress<'_>) -> Flow,
    plan: &Plan,
    build: &mut dyn FnMut(WorkloadKind) -> Box<dyn Workload>,
) -> Result<ClockReport> {
    let mut report = ClockReport::new(clock.info().clone());
    characterise_into(clock, stopwatch, observer, plan, build, &mut report)?;
    Ok(report)
}

/// [`characterise`], keeping what was measured when the observer cancels: the report so
/// far (the experiments done; the one cancelled recorded as an error) and whether it was
/// cancelled. For a command interrupted by Ctrl-C, which saves what it has.
pub fn characterise_kept<C: Clock + ?Sized>(
    clock: &mut C,
    stopwatch: &mut dyn Stopwatch,
    observer: &mut dyn FnMut(&Progress<'_>) -> Flow,
    plan: &Plan,
) -> (ClockReport, bool) {
    let mut report = ClockReport::new(clock.info().clone());
    let cancelled = characterise_into(
        clock,
        stopwatch,
        observer,
        plan,
        &mut |k| k.build(),
        &mut report,
    )
    .is_err();
    (report, cancelled)
}

/// The experiments of [`characterise_with`], recorded into `report` as they end; returns
/// [`Error::Cancelled`] (after recording it) when the observer cancels.
fn characterise_into<C: Clock + ?Sized>(
    clock: &mut C,
    stopwatch: &mut dyn Stopwatch,
    observer: &mut dyn FnMut(&Progress<'_>) -> Flow,
    plan: &Plan,
    build: &mut dyn FnMut(WorkloadKind) -> Box<dyn Workload>,
    report: &mut ClockReport,
) -> Result<()> {
    let record = |report: &mut ClockReport, experiment: &str, e: Error| -> Result<()> {
        let cancelled = matches!(e, Error::Cancelled);
        report.errors.push(ExperimentError::new(experiment, e));
        if cancelled {
            return Err(Error::Cancelled);
        }
        Ok(())
    };

    let mut run = Run::new(stopwatch, observer);
    match tick::measure(clock, &mut run, &plan.tick) {
        Ok(t) => report.tick = Some(t),
        Err(e) => record(report, "tick", e)?,
    }
    let Some(tick) = report.tick.as_ref().map(|t| t.estimate.tick) else {
        return Ok(());
    };
    let mut per_read = 0.0;
    if let Some(o) = &plan.overhead {
        match overhead::measure(clock, tick, &mut run, o) {
            Ok(r) => {
                per_read = r.per_read_counts;
                report.overhead = Some(r);
            }
            Err(e) => record(report, "overhead", e)?,
        }
    }
    for (kind, opts) in &plan.fits {
        let mut w = build(*kind);
        let fitted = match fit::measure(clock, w.as_mut(), tick, per_read, &mut run, opts) {
            // Too coarse for runs of many ticks in this budget (it says so before spending
            // any): runs of a few ticks or less, timed through interpolation, where it can be.
            Err(first @ Error::BudgetExhausted { .. }) if opts.n_range.is_none() => {
                let tried = (tick >= 2.0)
                    .then(|| fit::measure_interpolated(clock, w.as_mut(), tick, &mut run, opts));
                match tried {
                    Some(Ok(f)) => Ok(f),
                    Some(Err(Error::Cancelled)) => Err(Error::Cancelled),
                    // Edges that cannot be interpolated (a jittered clamp's), or a tick of one
                    // count: two sizes of plain runs, as many of each as the budget holds.
                    other => {
                        let why = match other {
                            Some(Err(e)) => e,
                            _ => first,
                        };
                        let mut two = opts.clone();
                        two.points = 2;
                        fit::measure(clock, w.as_mut(), tick, per_read, &mut run, &two).map(
                            |mut f| {
                                f.caveats.push(Caveat::TwoSizesOnly {
                                    because: Box::new(why.into_cause()),
                                });
                                f
                            },
                        )
                    }
                }
            }
            other => other,
        };
        match fitted {
            Ok(r) => report.fits.push(r),
            Err(e) => record(report, "fit", e)?,
        }
    }
    Ok(())
}

/// Marks read costs that cannot be right because the clock reads another underneath
/// ([`crate::clock::ClockInfo::built_on`]) that was measured slower in the same run: a
/// clamp over Instant cannot be read faster than Instant. The figure becomes a dash with
/// that reason.
pub fn check_bases(clocks: &mut [&mut ClockReport]) {
    let cost = |c: &ClockReport| {
        c.overhead
            .as_ref()
            .filter(|o| o.unusable.is_none())
            .and_then(|o| o.per_read_ns)
    };
    let bases: Vec<(String, f64)> = clocks
        .iter()
        .filter_map(|c| cost(c).map(|ns| (c.info.name.clone(), ns)))
        .collect();
    for c in clocks.iter_mut() {
        let Some(base) = c.info.built_on.clone() else {
            continue;
        };
        let Some(&(_, floor)) = bases.iter().find(|(n, _)| *n == base) else {
            continue;
        };
        let Some(ns) = cost(c) else { continue };
        if ns < floor {
            if let Some(o) = c.overhead.as_mut() {
                o.unusable = Some(Caveat::BelowBase {
                    ns,
                    base_ns: floor,
                    base,
                });
                o.per_read_ns = None;
                o.min_block_ns = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock's share of the run's deadline cuts its fits and overhead before its tick,
    /// and never gives more than the share (but for the millisecond each experiment keeps).
    #[test]
    fn a_share_of_the_deadline_bounds_a_clocks_budgets() {
        let b = |t: f64| crate::run::Budget::new(t, 1000).unwrap();
        let plan = Plan {
            tick: crate::tick::TickOptions::new(b(0.06)),
            overhead: Some(crate::overhead::OverheadOptions::new(b(0.02))),
            fits: vec![(
                crate::workload::WorkloadKind::Count,
                crate::fit::FitOptions::new(b(0.15)),
            )],
        };
        assert_eq!(plan.within(1.0).seconds(), plan.seconds());
        for share in [0.2, 0.1, 0.06, 0.03, 0.0] {
            let p = plan.within(share);
            // Each of the three experiments keeps a millisecond at least.
            assert!(
                p.seconds() <= share.max(1e-3) + 0.002 + 1e-12,
                "{share}: {}",
                p.seconds()
            );
            assert_eq!(p.tick.budget.time_s, share.clamp(1e-3, 0.06), "{share}");
            // In proportion: the same total, no experiment keeping more than its share.
            let q = plan.in_proportion_within(share);
            assert!(q.seconds() <= share.max(1e-3) + 0.002 + 1e-12, "{share}");
            let k = share / plan.seconds();
            assert_eq!(q.tick.budget.time_s, (0.06 * k).max(1e-3), "{share}");
            let o = q.overhead.as_ref().unwrap().budget.time_s;
            assert_eq!(o, (0.02 * k).max(1e-3), "{share}");
        }
        assert_eq!(plan.in_proportion_within(1.0).seconds(), plan.seconds());
    }
}
