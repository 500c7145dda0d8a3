//! The fit experiment: calibrate the largest size, time interleaved runs of every size,
//! keep each size's minimum, and fit it with the estimators of `estimate.rs`.

use serde::{Deserialize, Serialize};

use super::estimate::{least_values, ols, step_fit, LeastValues, Ols, Step};
use crate::calibrate::{calibrate_from, Calibration};
use crate::caveat::Caveat;
use crate::clock::{Clock, ClockInfo};
use crate::error::{invalid, Error, Result};
use crate::rng::SplitMix64;
use crate::run::{Budget, Run, Stop};
use crate::workload::Workload;

/// Options of the fit experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitOptions {
    /// Time budget, and the most timed runs in all.
    pub budget: Budget,
    /// Sizes to time (at least 2).
    pub points: usize,
    /// Runs per size (at least 1).
    pub runs: usize,
    /// Explicit sizes `lo..=hi`; when absent, calibration chooses the largest.
    pub n_range: Option<(u64, u64)>,
    /// Duration of the largest size, in ns, for calibration; by default the largest of
    /// 20 ticks, 100 reads and 20 µs.
    pub target_ns: Option<f64>,
    /// Runs kept per size in the result.
    pub keep_runs: usize,
    /// Seed of the run order.
    pub seed: u64,
}

impl FitOptions {
    /// Defaults with the given budget: 16 sizes, 30 runs each.
    pub fn new(budget: Budget) -> Self {
        Self {
            budget,
            points: 16,
            runs: 30,
            n_range: None,
            target_ns: None,
            keep_runs: 64,
            seed: 0xf17,
        }
    }

    pub(super) fn validate(&self) -> Result<()> {
        if !(2..=10_000).contains(&self.points) {
            return Err(invalid(
                "points",
                format!("{}; expected 2 to 10000", self.points),
            ));
        }
        if !(1..=1_000_000).contains(&self.runs) {
            return Err(invalid(
                "runs",
                format!("{}; expected 1 to 1000000", self.runs),
            ));
        }
        if let Some((lo, hi)) = self.n_range {
            if lo == 0 || hi <= lo {
                return Err(invalid(
                    "size range",
                    format!("{lo}..{hi}; expected 1 ≤ lo < hi"),
                ));
            }
        }
        if let Some(t) = self.target_ns {
            if !(t.is_finite() && t > 0.0 && t <= 60e9) {
                return Err(invalid(
                    "target duration",
                    format!("{t} ns; expected more than 0 and at most 60 s"),
                ));
            }
        }
        Ok(())
    }
}

/// One size's timings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitPoint {
    /// The size N.
    pub n: u64,
    /// Units of work at N (x of the fit).
    pub work: f64,
    /// The smallest timing, in counts (y of the fit).
    pub min: f64,
    /// Runs timed.
    pub runs_done: u64,
    /// Timings in counts, in the order taken (at most `keep_runs`).
    pub runs: Vec<f64>,
    /// Excess of the kept runs over the least-values line, in counts.
    pub excess_line: Vec<f64>,
    /// Excess of the kept runs over the step prediction, in counts.
    pub excess_step: Vec<f64>,
}

/// The result of the fit experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitResult {
    /// The workload's name.
    pub workload: String,
    /// The unit the slope is per.
    pub unit: String,
    /// Per-size timings.
    pub points: Vec<FitPoint>,
    /// Least squares over the per-size minima, in counts per unit.
    pub ols: Ols,
    /// Least-values fit over the per-size minima, in counts per unit.
    pub least_values: LeastValues,
    /// The step prediction with the least-values slope and the clock's tick.
    pub step: Step,
    /// The least-values slope in ns per unit, when the period is known.
    pub slope_ns: Option<f64>,
    /// The least-squares slope in ns per unit, when the period is known.
    pub ols_slope_ns: Option<f64>,
    /// The tick used, in counts.
    pub tick_counts: f64,
    /// Nanoseconds per count, when known.
    pub ns_per_count: Option<f64>,
    /// How the largest size was chosen, when calibrated.
    pub calibration: Option<Calibration>,
    /// Seconds spent.
    pub elapsed_s: f64,
    /// What ended the sampling.
    pub stop: Stop,
    /// What limits the result.
    pub caveats: Vec<Caveat>,
    /// How fast the clock ran over the timed runs, against the stopwatch (1 for a wall
    /// clock; near 0 for one that does not see the work, such as system time of a loop).
    #[serde(default)]
    pub pace: Option<f64>,
    /// Why the slope cannot be right, when it cannot: it is then not given in ns.
    #[serde(default)]
    pub unusable: Option<Caveat>,
}

impl FitResult {
    /// Least squares over every kept run (not the per-size minima), in ns per unit, when the
    /// period is known. Two clocks timing the same runs differ run by run only by their
    /// quantization, which averages away over many runs; their minima need not come from the
    /// same runs (a clock whose edges show late, or a counter whose pace varies, gives
    /// minima that are noise where the mean of many runs is not).
    pub fn every_run_slope_ns(&self) -> Option<f64> {
        let (x, y): (Vec<f64>, Vec<f64>) = self
            .points
            .iter()
            .flat_map(|p| p.runs.iter().map(move |&r| (p.work, r)))
            .unzip();
        let ols = super::estimate::ols(&x, &y).ok()?;
        self.ns_per_count.map(|ns| ols.line.slope * ns)
    }
}

/// Times `workload` at a range of sizes with `clock` and fits time against work.
pub fn measure<C: Clock + ?Sized, W: Workload + ?Sized>(
    clock: &mut C,
    workload: &mut W,
    tick_counts: f64,
    overhead_counts: f64,
    run: &mut Run<'_>,
    opts: &FitOptions,
) -> Result<FitResult> {
    let scale = Scale {
        tick_counts,
        overhead_counts,
    };
    let (fit, _) = measure_inner(clock, None, workload, scale, run, opts, PaceCheck::OverRuns)?;
    Ok(fit)
}

/// A clock that times the same runs as the clock under test, and its tick in its counts.
pub struct Reference<'a> {
    /// The clock; its reads sit inside the other clock's, so it sees each run and none of
    /// the other's waits (an interpolated clock waits for edges to begin and end a run);
    /// the clock under test sees the run and the reference's two reads.
    pub clock: &'a mut dyn Clock,
    /// Its tick, in its counts.
    pub tick_counts: f64,
}

/// [`measure`], with every run also timed by `reference`: two fits of the very same runs,
/// so a coarse clock's slope can be held against a fine one's without drift between them.
/// Sizes are chosen with `clock`. Returns the fit through `clock`, then through `reference`.
pub fn measure_against<C: Clock + ?Sized, W: Workload + ?Sized>(
    clock: &mut C,
    reference: Reference<'_>,
    workload: &mut W,
    tick_counts: f64,
    overhead_counts: f64,
    run: &mut Run<'_>,
    opts: &FitOptions,
) -> Result<(FitResult, FitResult)> {
    let scale = Scale {
        tick_counts,
        overhead_counts,
    };
    let (fit, r) = measure_inner(
        clock,
        Some(reference),
        workload,
        scale,
        run,
        opts,
        PaceCheck::OverRuns,
    )?;
    let r = r.ok_or(Error::NoData(Caveat::ReferenceTimedNoRun))?;
    Ok((fit, r))
}

/// One clock's timings of the runs, per size.
struct Timings<'i> {
    info: &'i ClockInfo,
    times: Vec<Vec<f64>>,
    backwards: u64,
}

impl<'i> Timings<'i> {
    fn new(info: &'i ClockInfo, sizes: usize) -> Self {
        Timings {
            info,
            times: vec![Vec::new(); sizes],
            backwards: 0,
        }
    }

    fn add(&mut self, j: usize, a: u64, b: u64) {
        let d = self.info.diff(a, b);
        if self.info.looks_backwards(d) {
            self.backwards += 1;
        } else {
            self.times[j].push(d as f64);
        }
    }
}

/// The clock's scale for a fit: its tick and the cost of a read, in its counts.
#[derive(Clone, Copy)]
pub(super) struct Scale {
    pub(super) tick_counts: f64,
    pub(super) overhead_counts: f64,
}

impl Scale {
    /// The tick must be a positive count, the reference's too; a read cost that is not
    /// one counts as none.
    #[inline(always)] // one caller: a stage of it, named
    fn checked(self, reference: Option<&Reference<'_>>) -> Result<Scale> {
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if !positive(self.tick_counts) {
            return Err(invalid(
                "tick",
                format!("{} counts; expected positive", self.tick_counts),
            ));
        }
        if let Some(r) = reference.filter(|r| !positive(r.tick_counts)) {
            return Err(invalid(
                "reference tick",
                format!("{} counts; expected positive", r.tick_counts),
            ));
        }
        Ok(Scale {
            overhead_counts: if positive(self.overhead_counts) {
                self.overhead_counts
            } else {
                0.0
            },
            ..self
        })
    }
}

/// Who judges the clock's pace against the stopwatch: the fit, over its timed runs, or its
/// caller (an interpolated clock waits for edges around its runs, and its caller judges the
/// pace over the waits too).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum PaceCheck {
    OverRuns,
    ByCaller,
}

pub(super) fn measure_inner<C: Clock + ?Sized, W: Workload + ?Sized>(
    clock: &mut C,
    mut reference: Option<Reference<'_>>,
    workload: &mut W,
    scale: Scale,
    run: &mut Run<'_>,
    opts: &FitOptions,
    pace: PaceCheck,
) -> Result<(FitResult, Option<FitResult>)> {
    run.start("fit", opts.budget);
    opts.validate()?;
    let scale = scale.checked(reference.as_ref())?;
    let info = clock.info().clone();
    let mut caveats = Vec::new();
    let target = target_counts(&info, scale, run, opts, &mut caveats)?;
    let ref_info = reference.as_ref().map(|r| r.clock.info().clone());
    let mut rounds = Rounds {
        rng: SplitMix64::new(opts.seed),
        done: 0,
        runs: opts.runs,
    };
    let mut from_n = 1u64;
    let mut first_n = None;
    let (sizes, calibration, timed, stop, wall_from) = loop {
        let (sizes, calibration) = match target {
            None => (given_sizes(opts, workload.max_n()), None),
            Some(target) => {
                let cal = calibrate_from(clock, workload, target, run, from_n)?;
                if !cal.reached {
                    caveats.push(Caveat::CalibrationStopped {
                        n: cal.n,
                        target_counts: target,
                    });
                }
                (calibrated_sizes(workload, cal.n, opts.points), Some(cal))
            }
        };
        if sizes.len() < 2 {
            return Err(Error::NoData(Caveat::FewerThanTwoSizes));
        }
        workload.prepare(*sizes.iter().max().unwrap_or(&1))?;
        let mut timed = Timed {
            mine: Timings::new(&info, sizes.len()),
            theirs: ref_info.as_ref().map(|i| Timings::new(i, sizes.len())),
        };
        let wall_from = run.elapsed();
        let stop = rounds.time(clock, reference.as_mut(), workload, &sizes, &mut timed, run)?;
        // The work may run far faster once timed than when its sizes were chosen: a page's
        // engine compiles hot code again, optimised (WebKit ran the count-down twenty times
        // faster after a few rounds, and its largest runs fell under a tick). The sizes are
        // then chosen again from the largest, once, when half the budget is left.
        if let (Some(target), Some(cal), None) = (target, &calibration, first_n) {
            let top = timed.mine.times[sizes.len() - 1]
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min);
            let left_s = run.budget().time_s - run.elapsed();
            if cal.reached && top < target / 4.0 && left_s > run.budget().time_s / 2.0 {
                first_n = Some(cal.n);
                from_n = cal.n;
                continue;
            }
        }
        break (sizes, calibration, timed, stop, wall_from);
    };
    if let (Some(before), Some(cal)) = (first_n, &calibration) {
        caveats.push(Caveat::Recalibrated {
            before,
            after: cal.n,
        });
    }
    clock.check_fault()?;
    if let Some(r) = &mut reference {
        r.clock.check_fault()?;
    }
    let elapsed_s = run.elapsed();
    let sampled = Sampled {
        wall_s: match pace {
            PaceCheck::OverRuns => elapsed_s - wall_from,
            PaceCheck::ByCaller => f64::NAN,
        },
        workload: &*workload,
        sizes: &sizes,
        calibration,
        elapsed_s,
        stop,
        keep_runs: opts.keep_runs,
        budget_s: run.budget().time_s,
    };
    let fit = sampled.fit(&timed.mine, scale.tick_counts, caveats)?;
    let other = match (&reference, &timed.theirs) {
        (Some(r), Some(t)) => Some(sampled.fit(t, r.tick_counts, Vec::new())?),
        _ => None,
    };
    Ok((fit, other))
}

/// The duration, in counts, the largest size is calibrated to, unless the sizes are given;
/// refused at once when the budget left cannot hold a run at every size.
#[inline(always)] // one caller: a stage of it, named
fn target_counts(
    info: &ClockInfo,
    scale: Scale,
    run: &mut Run<'_>,
    opts: &FitOptions,
    caveats: &mut Vec<Caveat>,
) -> Result<Option<f64>> {
    if opts.n_range.is_some() {
        return Ok(None);
    }
    let ns = info.period.ns_per_count();
    // Blocks far shorter than the Rule of 100 asks are the point here: the fit recovers
    // the slope from blocks of a few ticks.
    let mut target = (20.0 * scale.tick_counts).max(100.0 * scale.overhead_counts);
    if let Some(p) = ns {
        target = target.max(20_000.0 / p);
    }
    if let Some(t) = opts.target_ns {
        target = match ns {
            Some(p) => t / p,
            None => {
                caveats.push(Caveat::TargetIgnored);
                target
            }
        };
    }
    // Calibrating to a run of `target` takes about three such runs, and a fit needs a run
    // at every size: when the budget left cannot hold them (a 4 ms clock's 20 ticks are
    // 80 ms), say so now rather than spend the budget on a fit of a few runs whose minima
    // are not minima.
    if let Some(p) = ns {
        let runs = 3 + opts.points;
        let needed_s = runs as f64 * target * p * 1e-9;
        let left_s = opts.budget.time_s - run.elapsed();
        if needed_s > left_s {
            return Err(Error::BudgetExhausted {
                experiment: "fit",
                why: Caveat::NoRunPerSize {
                    budget_s: opts.budget.time_s,
                    points: opts.points as u64,
                    run_ns: target * p,
                    total_ns: needed_s * 1e9,
                },
            });
        }
    }
    Ok(Some(target))
}

/// The sizes of `opts.n_range`, evenly spread (at most `max`).
#[inline(always)] // one caller: a stage of it, named
fn given_sizes(opts: &FitOptions, max: u64) -> Vec<u64> {
    let (lo, hi) = opts.n_range.unwrap_or((1, 2));
    let hi = hi.min(max);
    let lo = lo.min(hi);
    let p = opts.points as u64;
    let mut s: Vec<u64> = (0..p)
        .map(|j| lo + ((hi - lo) as u128 * j as u128 / (p - 1) as u128) as u64)
        .collect();
    s.dedup();
    s
}

/// `points` sizes whose work spreads evenly up to that of the calibrated size `n`.
#[inline(always)] // one caller: a stage of it, named
fn calibrated_sizes<W: Workload + ?Sized>(workload: &W, n: u64, points: usize) -> Vec<u64> {
    let top = workload.work(n);
    let mut s: Vec<u64> = (1..=points)
        .map(|j| workload.n_for_work(top * j as f64 / points as f64))
        .collect();
    s.dedup();
    s
}

/// The timings of one round of sizes, by the clock under test and by the reference.
struct Timed<'i> {
    mine: Timings<'i>,
    theirs: Option<Timings<'i>>,
}

/// The interleaved rounds of runs: every size once a round, in a fresh order each round, so
/// slow drifts and periodic noise spread over all sizes instead of biasing some.
struct Rounds {
    rng: SplitMix64,
    /// Runs timed so far, over every round (the budget's samples).
    done: u64,
    /// Most rounds.
    runs: usize,
}

impl Rounds {
    /// Times `runs` rounds of `sizes` (fewer when the budget ends them), each run by the
    /// clock and, inside its reads, by the reference.
    #[inline(always)] // one caller: a stage of it, named
    fn time<C: Clock + ?Sized, W: Workload + ?Sized>(
        &mut self,
        clock: &mut C,
        mut reference: Option<&mut Reference<'_>>,
        workload: &mut W,
        sizes: &[u64],
        timed: &mut Timed<'_>,
        run: &mut Run<'_>,
    ) -> Result<Stop> {
        let mut order: Vec<usize> = (0..sizes.len()).collect();
        for _ in 0..self.runs {
            for i in (1..order.len()).rev() {
                order.swap(i, self.rng.below(i as u64 + 1) as usize);
            }
            for &j in &order {
                let n = sizes[j];
                match (reference.as_deref_mut(), timed.theirs.as_mut()) {
                    (Some(r), Some(t)) => {
                        let a = clock.begin();
                        let ra = r.clock.read();
                        workload.run(n);
                        let rb = r.clock.read();
                        let b = clock.end();
                        timed.mine.add(j, a, b);
                        t.add(j, ra, rb);
                    }
                    _ => {
                        let a = clock.begin();
                        workload.run(n);
                        let b = clock.end();
                        timed.mine.add(j, a, b);
                    }
                }
                self.done += 1;
                if let Some(s) = run.check(self.done)? {
                    return Ok(s);
                }
            }
        }
        Ok(Stop::Samples)
    }
}

/// What the fits of one set of runs share.
struct Sampled<'a, W: ?Sized> {
    /// Stopwatch seconds over the timed runs.
    wall_s: f64,
    workload: &'a W,
    sizes: &'a [u64],
    calibration: Option<Calibration>,
    elapsed_s: f64,
    stop: Stop,
    keep_runs: usize,
    budget_s: f64,
}

impl<W: Workload + ?Sized> Sampled<'_, W> {
    /// Least squares, least values and the step over one clock's per-size minima.
    fn fit(
        &self,
        t: &Timings<'_>,
        tick_counts: f64,
        mut caveats: Vec<Caveat>,
    ) -> Result<FitResult> {
        let (workload, sizes, times) = (self.workload, self.sizes, &t.times);
        let ns = t.info.period.ns_per_count();
        if t.backwards > 0 {
            caveats.push(Caveat::TimingsBackwards {
                timings: t.backwards,
            });
        }
        let measured: Vec<usize> = (0..sizes.len()).filter(|&j| !times[j].is_empty()).collect();
        if measured.len() < 2 {
            return Err(Error::BudgetExhausted {
                experiment: "fit",
                why: Caveat::NoTwoSizes {
                    budget_s: self.budget_s,
                },
            });
        }
        let xs: Vec<f64> = measured.iter().map(|&j| workload.work(sizes[j])).collect();
        let ys: Vec<f64> = measured
            .iter()
            .map(|&j| times[j].iter().copied().fold(f64::INFINITY, f64::min))
            .collect();
        let ols_fit = ols(&xs, &ys)?;
        let lv = least_values(&xs, &ys)?;
        let step = step_fit(&xs, &ys, lv.line.slope, tick_counts)?;
        // A clock that did not see the work gives a slope that cannot be right.
        let counted: f64 = times.iter().flatten().sum();
        let pace = ns
            .filter(|_| self.wall_s > 0.0 && self.wall_s.is_finite())
            .map(|p| counted * p * 1e-9 / self.wall_s);
        let unusable = match pace {
            Some(p) if p < crate::overhead::LEAST_PACE => Some(Caveat::WorkNotSeen {
                clock: t.info.name.clone(),
                pace: p,
            }),
            _ if lv.line.slope <= 0.0 => Some(Caveat::SlopeNotPositive),
            _ => None,
        };
        let usable = unusable.is_none();
        let points = measured
            .iter()
            .zip(xs.iter().zip(&ys))
            .map(|(&j, (&x, &y))| {
                let runs: Vec<f64> = times[j].iter().copied().take(self.keep_runs).collect();
                FitPoint {
                    n: sizes[j],
                    work: x,
                    min: y,
                    runs_done: times[j].len() as u64,
                    excess_line: runs.iter().map(|r| r - lv.line.at(x)).collect(),
                    excess_step: runs.iter().map(|r| r - step.at(x)).collect(),
                    runs,
                }
            })
            .collect();
        Ok(FitResult {
            workload: workload.name().to_string(),
            unit: workload.unit().to_string(),
            points,
            slope_ns: ns.map(|p| p * lv.line.slope).filter(|_| usable),
            ols_slope_ns: ns.map(|p| p * ols_fit.line.slope).filter(|_| usable),
            ols: ols_fit,
            least_values: lv,
            step,
            tick_counts,
            ns_per_count: ns,
            calibration: self.calibration.clone(),
            elapsed_s: self.elapsed_s,
            stop: self.stop,
            caveats,
            pace,
            unusable,
        })
    }
}
