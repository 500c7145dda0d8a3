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
        report.errors.push(ExperimentError::new(experiment, &e));
        if e == Error::Cancelled {
            return Err(e);
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
                                    because: Box::new(why.cause()),
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
