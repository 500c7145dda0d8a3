//! Time against work: least squares, the least-values fit, and the tick-quantized step.
//!
//! The required time of a run is its smallest timing (Krutar, "Tuning a Timer"), so each size N is run many
//! times, interleaved across sizes, and the per-N minimum is fitted. The least-values fit is
//! the line under every point with the least total excess: it maximises
//! `intercept + slope × mean(x)` under `intercept + slope × xᵢ ≤ yᵢ`, whose optimum is the
//! edge of the lower convex hull spanning mean(x), found in O(n log n) without an LP solver.
//! Subtracting a straight line from tick-quantized timings leaves a Moiré sawtooth; a step
//! function with the fitted slope and the tick's quantization leaves flat bands instead.

use serde::{Deserialize, Serialize};

use crate::calibrate::{calibrate, Calibration};
use crate::clock::{Clock, ClockInfo};
use crate::error::{invalid, Error, Result};
use crate::run::{Budget, Run, Stop};
use crate::synthetic::SplitMix64;
use crate::workload::Workload;

/// A straight line `intercept + slope × x`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// Change of y per unit of x.
    pub slope: f64,
    /// y at x = 0.
    pub intercept: f64,
}

impl Line {
    /// The line's value at `x`.
    pub fn at(&self, x: f64) -> f64 {
        self.intercept + self.slope * x
    }
}

/// Ordinary least squares.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ols {
    /// The fitted line.
    pub line: Line,
    /// Coefficient of determination (1 when all points lie on the line; 1 too when y is
    /// constant and so is the fit).
    pub r2: f64,
    /// Standard error of the slope (0 with two points).
    pub slope_stderr: f64,
}

fn finite_pairs(x: &[f64], y: &[f64]) -> Result<Vec<(f64, f64)>> {
    if x.len() != y.len() {
        return Err(invalid(
            "points",
            format!("{} x values but {} y values", x.len(), y.len()),
        ));
    }
    Ok(x.iter()
        .zip(y)
        .filter(|(a, b)| a.is_finite() && b.is_finite())
        .map(|(&a, &b)| (a, b))
        .collect())
}

/// Points so close in x (subnormal differences) or so far apart in y that the slope overflows.
fn too_close() -> Error {
    Error::NoData(
        "the x values are too close together (or the y values too far apart) for a finite slope"
            .into(),
    )
}

/// Least squares of `y` on `x` over the finite pairs: slope = cov(x, y) / var(x).
/// Fails with fewer than two distinct x.
pub fn ols(x: &[f64], y: &[f64]) -> Result<Ols> {
    let p = finite_pairs(x, y)?;
    let n = p.len() as f64;
    if p.len() < 2 {
        return Err(Error::NoData("a line needs at least two points".into()));
    }
    let mx = p.iter().map(|q| q.0).sum::<f64>() / n;
    let my = p.iter().map(|q| q.1).sum::<f64>() / n;
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for &(a, b) in &p {
        let (dx, dy) = (a - mx, b - my);
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    if sxx.is_nan() || sxx <= 0.0 || !sxx.is_finite() || !sxy.is_finite() {
        return Err(Error::NoData(
            "a line needs at least two distinct finite x values".into(),
        ));
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    if !(slope.is_finite() && intercept.is_finite()) {
        return Err(too_close());
    }
    let sse = (syy - slope * sxy).max(0.0);
    let r2 = if syy > 0.0 { 1.0 - sse / syy } else { 1.0 };
    let slope_stderr = if p.len() > 2 {
        (sse / (n - 2.0) / sxx).sqrt()
    } else {
        0.0
    };
    Ok(Ols {
        line: Line { slope, intercept },
        r2,
        slope_stderr,
    })
}

/// Krutar's least-values fit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeastValues {
    /// The line under every point.
    pub line: Line,
    /// Sum of the points' excess over the line: the least any line under them has.
    pub total_excess: f64,
    /// x of the two hull points the line passes through.
    pub through: (f64, f64),
}

/// f64 → u64 keeping the order of `f64::total_cmp`, and back.
fn order_key(x: f64) -> u64 {
    let b = x.to_bits() as i64;
    ((b ^ (((b >> 63) as u64) >> 1) as i64) as u64) ^ (1 << 63)
}

fn from_order_key(k: u64) -> f64 {
    let b = (k ^ (1 << 63)) as i64;
    f64::from_bits((b ^ (((b >> 63) as u64) >> 1) as i64) as u64)
}

type Point = (f64, f64);

std::thread_local! {
    /// The radix sort's second buffer, kept between calls: fresh pages cost a fault each, and
    /// for a million points those faults took half the time of a fit natively (wasm keeps its
    /// memory anyway).
    static SORT_BUF: std::cell::RefCell<Vec<Point>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Sorts points by x: a least-significant-digit radix sort on 16-bit digits of the order
/// key, skipping digits all points share (the low mantissa bits of whole-number sizes).
/// Linear, and free of the comparison calls that made a million-point sort 2.8× slower in
/// wasm than natively. Keys are kept in place of x (as bits) while sorting.
fn sort_by_x(p: &mut [Point]) {
    const DIGITS: usize = 4;
    const BUCKETS: usize = 1 << 16;
    if p.len() < 1 << 12 {
        p.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        return;
    }
    let key = |q: &Point| q.0.to_bits();
    for q in p.iter_mut() {
        q.0 = f64::from_bits(order_key(q.0));
    }
    let mut counts = vec![0usize; DIGITS * BUCKETS];
    for q in p.iter() {
        let k = key(q);
        for d in 0..DIGITS {
            counts[d * BUCKETS + ((k >> (16 * d)) & 0xffff) as usize] += 1;
        }
    }
    SORT_BUF.with_borrow_mut(|buf| {
        buf.clear();
        buf.resize(p.len(), (0.0, 0.0));
        let mut in_buf = false; // where the latest pass left the points
        for d in 0..DIGITS {
            let c = &mut counts[d * BUCKETS..(d + 1) * BUCKETS];
            if c.contains(&p.len()) {
                continue;
            }
            let mut sum = 0;
            for n in c.iter_mut() {
                (*n, sum) = (sum, sum + *n);
            }
            let (from, to): (&[Point], &mut [Point]) = if in_buf {
                (&buf[..], &mut *p)
            } else {
                (&*p, &mut buf[..])
            };
            for q in from {
                let b = ((key(q) >> (16 * d)) & 0xffff) as usize;
                to[c[b]] = *q;
                c[b] += 1;
            }
            in_buf = !in_buf;
        }
        if in_buf {
            p.copy_from_slice(buf);
        }
    });
    for q in p.iter_mut() {
        q.0 = from_order_key(q.0.to_bits());
    }
}

/// The least-values fit of the finite pairs: the line below every point whose total excess
/// is least. Needs two distinct x.
pub fn least_values(x: &[f64], y: &[f64]) -> Result<LeastValues> {
    let mut p = finite_pairs(x, y)?;
    if p.is_empty() {
        return Err(Error::NoData("a line needs at least two points".into()));
    }
    let n = p.len() as f64;
    let mean_x = p.iter().map(|q| q.0).sum::<f64>() / n;
    let sum_y = p.iter().map(|q| q.1).sum::<f64>();
    if !p.windows(2).all(|w| w[0].0 <= w[1].0) {
        sort_by_x(&mut p);
    }
    // Andrew's monotone chain, lower hull.
    let mut hull: Vec<(f64, f64)> = Vec::new();
    for &q in &p {
        if let Some(&last) = hull.last() {
            if last.0 == q.0 {
                // Of equal x only the lowest can be on the hull.
                if q.1 >= last.1 {
                    continue;
                }
                hull.pop();
            }
        }
        while hull.len() >= 2 {
            let (o, a) = (hull[hull.len() - 2], hull[hull.len() - 1]);
            let cross = (a.0 - o.0) * (q.1 - o.1) - (a.1 - o.1) * (q.0 - o.0);
            if cross <= 0.0 {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(q);
    }
    if hull.len() < 2 {
        return Err(Error::NoData(
            "a line needs at least two distinct finite x values".into(),
        ));
    }
    // The hull edge whose x-range holds mean(x) maximises intercept + slope × mean(x).
    let i = match hull.partition_point(|h| h.0 <= mean_x) {
        0 => 0,
        k if k >= hull.len() => hull.len() - 2,
        k => k - 1,
    };
    let (a, b) = (hull[i], hull[i + 1]);
    let slope = (b.1 - a.1) / (b.0 - a.0);
    let intercept = a.1 - slope * a.0;
    if !(slope.is_finite() && intercept.is_finite()) {
        return Err(too_close());
    }
    let line = Line { slope, intercept };
    Ok(LeastValues {
        line,
        total_excess: sum_y - n * line.at(mean_x),
        through: (a.0, b.0),
    })
}

/// A staircase `tick × floor((offset + slope × x) / tick)`: what a clock of that tick shows
/// for a duration growing on the line.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The underlying line (true durations).
    pub line: Line,
    /// The tick the durations are quantized to.
    pub tick: f64,
    /// Points lying exactly on the staircase.
    pub on_steps: u64,
}

impl Step {
    /// The staircase's value at `x`.
    pub fn at(&self, x: f64) -> f64 {
        self.tick * (self.line.at(x) / self.tick).floor()
    }
}

/// Fits a staircase of the given slope and tick to (x, y): the offset is the one that puts
/// the most points exactly on a step, each point allowing offsets with
/// `y ≤ offset + slope·x < y + tick`. Ties take the lowest offset.
pub fn step_fit(x: &[f64], y: &[f64], slope: f64, tick: f64) -> Result<Step> {
    if !(tick.is_finite() && tick > 0.0 && slope.is_finite()) {
        return Err(invalid(
            "step",
            format!("tick {tick}, slope {slope}: need a finite positive tick and finite slope"),
        ));
    }
    let p = finite_pairs(x, y)?;
    if p.is_empty() {
        return Err(Error::NoData("no point to fit a staircase to".into()));
    }
    // Sweep the interval endpoints: +1 at y − slope·x, −1 at that plus the tick.
    let mut ev: Vec<(f64, i32)> = Vec::with_capacity(2 * p.len());
    for &(a, b) in &p {
        let lo = b - slope * a;
        ev.push((lo, 1));
        ev.push((lo + tick, -1));
    }
    ev.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let (mut depth, mut best, mut at) = (0i32, 0i32, ev[0].0);
    for (i, &(v, d)) in ev.iter().enumerate() {
        depth += d;
        if depth > best {
            best = depth;
            // The middle of the best stretch, away from float trouble at its ends.
            at = ev.get(i + 1).map_or(v, |next| 0.5 * (v + next.0));
        }
    }
    Ok(Step {
        line: Line {
            slope,
            intercept: at,
        },
        tick,
        on_steps: best as u64,
    })
}

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

    fn validate(&self) -> Result<()> {
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
    pub caveats: Vec<String>,
    /// How fast the clock ran over the timed runs, against the stopwatch (1 for a wall
    /// clock; near 0 for one that does not see the work, such as system time of a loop).
    #[serde(default)]
    pub pace: Option<f64>,
    /// Why the slope cannot be right, when it cannot: it is then not given in ns.
    #[serde(default)]
    pub unusable: Option<String>,
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
    let (fit, _) = measure_inner(
        clock,
        None,
        workload,
        tick_counts,
        overhead_counts,
        run,
        opts,
    )?;
    Ok(fit)
}

/// A clock that times the same runs as the clock under test, and its tick in its counts.
pub struct Reference<'a> {
    /// The clock; its reads bracket the other clock's, so it sees each run and two reads.
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
    let (fit, r) = measure_inner(
        clock,
        Some(reference),
        workload,
        tick_counts,
        overhead_counts,
        run,
        opts,
    )?;
    let r = r.ok_or_else(|| Error::NoData("the reference clock timed no run".into()))?;
    Ok((fit, r))
}

/// One clock's timings of the runs, per size.
struct Timings<'i> {
    info: &'i ClockInfo,
    times: Vec<Vec<f64>>,
    backwards: u64,
}

impl Timings<'_> {
    fn add(&mut self, j: usize, a: u64, b: u64) {
        let d = self.info.diff(a, b);
        if self.info.looks_backwards(d) {
            self.backwards += 1;
        } else {
            self.times[j].push(d as f64);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn measure_inner<C: Clock + ?Sized, W: Workload + ?Sized>(
    clock: &mut C,
    mut reference: Option<Reference<'_>>,
    workload: &mut W,
    tick_counts: f64,
    overhead_counts: f64,
    run: &mut Run<'_>,
    opts: &FitOptions,
) -> Result<(FitResult, Option<FitResult>)> {
    opts.validate()?;
    if !(tick_counts.is_finite() && tick_counts > 0.0) {
        return Err(invalid(
            "tick",
            format!("{tick_counts} counts; expected positive"),
        ));
    }
    if let Some(r) = &reference {
        if !(r.tick_counts.is_finite() && r.tick_counts > 0.0) {
            return Err(invalid(
                "reference tick",
                format!("{} counts; expected positive", r.tick_counts),
            ));
        }
    }
    let overhead_counts = if overhead_counts.is_finite() && overhead_counts > 0.0 {
        overhead_counts
    } else {
        0.0
    };
    let info = clock.info().clone();
    let ns = info.period.ns_per_count();
    let mut caveats = Vec::new();

    let (sizes, calibration) = match opts.n_range {
        Some((lo, hi)) => {
            let hi = hi.min(workload.max_n());
            let lo = lo.min(hi);
            let p = opts.points as u64;
            let mut s: Vec<u64> = (0..p)
                .map(|j| lo + ((hi - lo) as u128 * j as u128 / (p - 1) as u128) as u64)
                .collect();
            s.dedup();
            (s, None)
        }
        None => {
            // Blocks far shorter than the Rule of 100 asks are the point here: the fit
            // recovers the slope from blocks of a few ticks.
            let mut target = (20.0 * tick_counts).max(100.0 * overhead_counts);
            if let Some(p) = ns {
                target = target.max(20_000.0 / p);
            }
            if let Some(t) = opts.target_ns {
                target = match ns {
                    Some(p) => t / p,
                    None => {
                        caveats
                            .push("target duration ignored: the clock's period is unknown".into());
                        target
                    }
                };
            }
            let cal = calibrate(clock, workload, target, run)?;
            if !cal.reached {
                caveats.push(format!(
                    "calibration stopped at N = {} before a run lasted {:.0} counts",
                    cal.n, target
                ));
            }
            let top = workload.work(cal.n);
            let p = opts.points;
            let mut s: Vec<u64> = (1..=p)
                .map(|j| workload.n_for_work(top * j as f64 / p as f64))
                .collect();
            s.dedup();
            (s, Some(cal))
        }
    };
    if sizes.len() < 2 {
        return Err(Error::NoData(
            "fewer than two distinct sizes to fit: widen the range".into(),
        ));
    }
    workload.prepare(*sizes.iter().max().unwrap_or(&1))?;

    let ref_info = reference.as_ref().map(|r| r.clock.info().clone());
    let mut rng = SplitMix64::new(opts.seed);
    let mut mine = Timings {
        info: &info,
        times: vec![Vec::new(); sizes.len()],
        backwards: 0,
    };
    let mut theirs = ref_info.as_ref().map(|i| Timings {
        info: i,
        times: vec![Vec::new(); sizes.len()],
        backwards: 0,
    });
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    let mut done = 0u64;
    let mut stop = Stop::Samples;
    let wall_from = run.elapsed();
    'rounds: for _ in 0..opts.runs {
        // Interleave sizes in a fresh order each round, so slow drifts and periodic noise
        // spread over all sizes instead of biasing some.
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        for &j in &order {
            let n = sizes[j];
            match (&mut reference, &mut theirs) {
                (Some(r), Some(t)) => {
                    let ra = r.clock.read();
                    let a = clock.read();
                    workload.run(n);
                    let b = clock.read();
                    let rb = r.clock.read();
                    mine.add(j, a, b);
                    t.add(j, ra, rb);
                }
                _ => {
                    let a = clock.read();
                    workload.run(n);
                    let b = clock.read();
                    mine.add(j, a, b);
                }
            }
            done += 1;
            if let Some(s) = run.check(done)? {
                stop = s;
                break 'rounds;
            }
        }
    }
    if let Some(f) = clock.take_fault() {
        return Err(Error::Fault {
            clock: info.name.clone(),
            fault: f,
        });
    }
    if let Some(r) = &mut reference {
        if let Some(f) = r.clock.take_fault() {
            return Err(Error::Fault {
                clock: r.clock.info().name.clone(),
                fault: f,
            });
        }
    }
    let elapsed_s = run.elapsed();
    let budget_s = run.budget().time_s;
    let sampled = Sampled {
        wall_s: elapsed_s - wall_from,
        workload: &*workload,
        sizes: &sizes,
        calibration,
        elapsed_s,
        stop,
        keep_runs: opts.keep_runs,
        budget_s,
    };
    let fit = sampled.fit(&mine, tick_counts, caveats)?;
    let other = match (&reference, &theirs) {
        (Some(r), Some(t)) => Some(sampled.fit(t, r.tick_counts, Vec::new())?),
        _ => None,
    };
    Ok((fit, other))
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
        mut caveats: Vec<String>,
    ) -> Result<FitResult> {
        let (workload, sizes, times) = (self.workload, self.sizes, &t.times);
        let ns = t.info.period.ns_per_count();
        if t.backwards > 0 {
            caveats.push(format!(
                "{} timings went backwards and were left out",
                t.backwards
            ));
        }
        let measured: Vec<usize> = (0..sizes.len()).filter(|&j| !times[j].is_empty()).collect();
        if measured.len() < 2 {
            return Err(Error::BudgetExhausted {
                experiment: "fit",
                budget_s: self.budget_s,
                needed: "two sizes timed".into(),
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
            Some(p) if p < crate::overhead::LEAST_PACE => Some(format!(
                "{} advanced {:.1}% as fast as the stopwatch over the timed runs: it does not \
                 see the work (a CPU clock of the wrong kind, or one that stalls), so the \
                 slope it gives cannot be right",
                t.info.name,
                p * 100.0
            )),
            _ if lv.line.slope <= 0.0 => Some(
                "the fitted slope is not positive, which work that takes time cannot give: \
                 the work is too small for this clock"
                    .into(),
            ),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ols_matches_closed_form() {
        let x = [1.0, 2.0, 3.0, 4.0];
        let y = [3.0, 5.0, 7.0, 9.0];
        let f = ols(&x, &y).unwrap();
        assert!((f.line.slope - 2.0).abs() < 1e-12);
        assert!((f.line.intercept - 1.0).abs() < 1e-12);
        assert!((f.r2 - 1.0).abs() < 1e-12);
        assert!(ols(&[1.0, 1.0], &[2.0, 3.0]).is_err());
        assert!(ols(&[1.0], &[2.0, 3.0]).is_err());
    }

    #[test]
    fn radix_sort_orders_like_total_cmp() {
        let mut rng = SplitMix64::new(5);
        let mut p: Vec<(f64, f64)> = (0..10_000)
            .map(|i| {
                let x = match i % 4 {
                    0 => rng.unit() * 1e6,
                    1 => -rng.unit() * 1e-3,
                    2 => (rng.below(50) as f64) - 25.0,
                    _ => 0.0,
                };
                (x, i as f64)
            })
            .collect();
        let mut want = p.clone();
        want.sort_by(|a, b| a.0.total_cmp(&b.0));
        sort_by_x(&mut p);
        let xs = |v: &[(f64, f64)]| v.iter().map(|q| q.0.to_bits()).collect::<Vec<_>>();
        assert_eq!(xs(&p), xs(&want));
        let mut ys: Vec<u64> = p.iter().map(|q| q.1 as u64).collect();
        ys.sort_unstable();
        assert!(ys.iter().enumerate().all(|(i, &y)| i as u64 == y));
    }

    #[test]
    fn least_values_lies_under_all_points() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        let y = [2.0, 2.5, 4.0, 4.2, 6.0];
        let f = least_values(&x, &y).unwrap();
        for (a, b) in x.iter().zip(&y) {
            assert!(b - f.line.at(*a) >= -1e-12);
        }
    }

    #[test]
    fn step_fit_puts_quantized_points_on_steps() {
        // True durations 0.359 × x quantized to 0.5: the Moiré example of "Tuning a Timer".
        let x: Vec<f64> = (1..=40).map(f64::from).collect();
        let y: Vec<f64> = x
            .iter()
            .map(|&a| 0.5 * ((0.1 + 0.359 * a) / 0.5).floor())
            .collect();
        let s = step_fit(&x, &y, 0.359, 0.5).unwrap();
        assert_eq!(s.on_steps, 40);
        for (a, b) in x.iter().zip(&y) {
            assert!((b - s.at(*a)).abs() < 1e-9);
        }
    }
}
