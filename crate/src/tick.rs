//! The tick (resolution) of a clock: estimators over intervals, and the experiment that
//! gathers the intervals.
//!
//! The tick divides every short interval (Krutar), so the greatest common divisor of many
//! unsigned differences converges to it; the smallest difference does not. The exact GCD is
//! spoiled by a single interval that is not a multiple (a step backwards, a rounded
//! non-integer tick, float noise), so beside it runs a robust estimate: the largest tick that
//! explains nearly all intervals to within a tolerance, refined by least squares so
//! non-integer ticks such as 125/3 ns come out right.

use serde::{Deserialize, Serialize};
use std::hint::black_box;

use crate::clock::{gcd, Clock, ClockInfo};
use crate::error::{invalid, Error, Result};
use crate::run::{Budget, Pace, Run, Stop};
use crate::stats::{self, Band, Summary};
use crate::synthetic::SplitMix64;

/// How tolerant the robust estimate is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EstimatorOptions {
    /// An interval within `rel_tolerance × tick` of a multiple counts as explained
    /// (covers rounding of a non-integer tick and jitter of a coarse clock's updates).
    pub rel_tolerance: f64,
    /// An absolute tolerance in the data's unit, added for data printed with few digits.
    pub abs_tolerance: f64,
    /// Least share of intervals a tick must explain to be accepted.
    pub min_share: f64,
    /// Largest divisor tried on each candidate base value.
    pub max_divisor: u32,
}

impl Default for EstimatorOptions {
    fn default() -> Self {
        Self {
            rel_tolerance: 0.03,
            abs_tolerance: 0.0,
            min_share: 0.95,
            max_divisor: 64,
        }
    }
}

impl EstimatorOptions {
    fn validate(&self) -> Result<()> {
        if !(self.rel_tolerance.is_finite() && (0.0..0.25).contains(&self.rel_tolerance)) {
            return Err(invalid(
                "relative tolerance",
                format!("{}; expected 0 to 0.25", self.rel_tolerance),
            ));
        }
        if !(self.abs_tolerance.is_finite() && self.abs_tolerance >= 0.0) {
            return Err(invalid(
                "absolute tolerance",
                format!(
                    "{}; expected a finite non-negative number",
                    self.abs_tolerance
                ),
            ));
        }
        if !(self.min_share > 0.0 && self.min_share <= 1.0) {
            return Err(invalid(
                "minimum share",
                format!("{}; expected more than 0 and at most 1", self.min_share),
            ));
        }
        if !(1..=4096).contains(&self.max_divisor) {
            return Err(invalid(
                "maximum divisor",
                format!("{}; expected 1 to 4096", self.max_divisor),
            ));
        }
        Ok(())
    }

    fn tol(&self, t: f64) -> f64 {
        self.abs_tolerance.max(self.rel_tolerance * t)
    }
}

/// How the estimate was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Exact GCD of integer intervals: it divides every one.
    ExactGcd,
    /// The largest tick explaining at least the minimum share, refined by least squares.
    Robust,
    /// No tick explained the minimum share; the best one found is given, unreliable.
    BestEffort,
}

/// A tick estimate, in the unit of the data it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TickEstimate {
    /// The estimated tick.
    pub tick: f64,
    /// Standard error of the tick from the least-squares refinement (0 for an exact GCD).
    pub uncertainty: f64,
    /// Share of the positive intervals within tolerance of a multiple of the tick.
    pub share_explained: f64,
    /// How it was reached.
    pub method: Method,
    /// Positive finite intervals used.
    pub intervals: u64,
    /// Zero intervals (uninformative: a multiple of any tick).
    pub zeros: u64,
    /// Values refused: NaN, infinite or negative.
    pub rejected: u64,
    /// Seed 001's first answer: the smallest non-zero interval.
    pub smallest_nonzero: f64,
    /// Seed 001's second answer: the smallest non-zero step of diff(sort()).
    pub smallest_diff_sort: Option<f64>,
    /// Whether the estimate deserves confidence; `caveats` say why not.
    pub reliable: bool,
    /// What limits the estimate.
    pub caveats: Vec<String>,
}

/// Fewest intervals for an estimate to be called reliable.
const MIN_RELIABLE: u64 = 10;
/// Bases taken from the smallest values and from the smallest diff(sort()) steps.
const BASES: usize = 6;
/// Values scored per candidate; the final scoring uses them all.
const SCORE_SAMPLE: usize = 2048;

/// Exact GCD of the non-zero values; 0 when there is none.
pub fn exact_gcd(intervals: &[u64]) -> u64 {
    intervals
        .iter()
        .fold(0u64, |g, &d| if d == 0 { g } else { gcd(g, d) })
}

/// Estimates the tick of integer intervals (wrapped differences of counts): the exact GCD,
/// unless it was spoiled and a larger tick explains nearly all intervals.
pub fn estimate_counts(intervals: &[u64], opts: &EstimatorOptions) -> Result<TickEstimate> {
    opts.validate()?;
    let g = exact_gcd(intervals);
    if g == 0 {
        return Err(Error::NoData(
            "no non-zero interval: the clock never advanced between readings".into(),
        ));
    }
    let values: Vec<f64> = intervals.iter().map(|&d| d as f64).collect();
    let (mut est, facts) = estimate_inner(&values, opts)?;
    let gf = g as f64;
    let spoiled = est.method == Method::Robust && est.tick > gf * (1.0 + opts.rel_tolerance);
    if !spoiled {
        // The GCD divides every interval: it explains them all, exactly.
        est.tick = gf;
        est.uncertainty = 0.0;
        est.share_explained = 1.0;
        est.method = Method::ExactGcd;
    }
    Ok(finish(est, facts, spoiled.then_some(g)))
}

/// Estimates the tick of real-valued intervals (durations in seconds, milliseconds...).
/// NaN, infinite and negative values are counted as rejected, zeros as uninformative.
pub fn estimate_values(values: &[f64], opts: &EstimatorOptions) -> Result<TickEstimate> {
    let (est, facts) = estimate_inner(values, opts)?;
    Ok(finish(est, facts, None))
}

/// What the caveats of an estimate are made from, once its method is settled.
struct Facts {
    single_level: bool,
    /// Why the best effort was all there was, when it was.
    shortfall: Option<String>,
}

/// The estimate without caveats, and the facts to write them from.
fn estimate_inner(values: &[f64], opts: &EstimatorOptions) -> Result<(TickEstimate, Facts)> {
    opts.validate()?;
    let mut rejected = 0u64;
    let mut zeros = 0u64;
    let mut pos: Vec<f64> = Vec::with_capacity(values.len());
    for &x in values {
        if !(x.is_finite() && x >= 0.0) {
            rejected += 1;
        } else if x == 0.0 {
            zeros += 1;
        } else {
            pos.push(x);
        }
    }
    if pos.is_empty() {
        return Err(Error::NoData(format!(
            "no positive finite interval among {} values ({zeros} zero, {rejected} refused)",
            values.len()
        )));
    }
    pos.sort_unstable_by(f64::total_cmp);
    let max = pos[pos.len() - 1];
    // Differences below this are float noise, not steps of a clock.
    let floor = opts.abs_tolerance.max(max * 1e-9);

    let smallest_nonzero = pos[0];
    let smallest_diff_sort = smallest_gaps(&pos, floor, 1, zeros > 0).first().copied();

    let levels = cluster_means(&pos, floor, BASES);
    let single_level = levels.len() == 1 && pos[pos.len() - 1] - pos[0] <= floor;
    let mut shortfall = None;
    let (tick, uncertainty, share, method) = if single_level {
        (levels[0], 0.0, 1.0, Method::Robust)
    } else {
        match robust(&pos, floor, zeros > 0, opts) {
            Some(r) if r.share >= opts.min_share => (r.tick, r.se, r.share, Method::Robust),
            Some(r) => {
                shortfall = Some(format!(
                    "no tick explains {:.0}% of the intervals; the best explains {:.1}%",
                    opts.min_share * 100.0,
                    r.share * 100.0
                ));
                (r.tick, r.se, r.share, Method::BestEffort)
            }
            None => {
                shortfall = Some(
                    "no tick candidate could be formed; the smallest interval is given".into(),
                );
                (
                    smallest_nonzero,
                    0.0,
                    share_all(&pos, smallest_nonzero, opts),
                    Method::BestEffort,
                )
            }
        }
    };
    if !(tick.is_finite() && tick > 0.0) {
        return Err(Error::NoData(format!(
            "the intervals are too large to estimate a tick from (largest {max:e})"
        )));
    }
    let est = TickEstimate {
        tick,
        uncertainty,
        share_explained: share,
        method,
        intervals: pos.len() as u64,
        zeros,
        rejected,
        smallest_nonzero,
        smallest_diff_sort,
        reliable: false,
        caveats: Vec::new(),
    };
    let facts = Facts {
        single_level,
        shortfall,
    };
    Ok((est, facts))
}

/// Writes the caveats and the reliability from the settled method; `spoiled_gcd` is the exact
/// GCD when a larger robust tick replaced it.
fn finish(mut est: TickEstimate, facts: Facts, spoiled_gcd: Option<u64>) -> TickEstimate {
    let mut caveats = Vec::new();
    if facts.single_level {
        caveats.push(
            "every interval has the same length: the tick divides it but may be smaller; \
             vary the intervals to see further"
                .to_string(),
        );
    }
    if est.method == Method::BestEffort {
        caveats.extend(facts.shortfall);
    }
    if est.method == Method::Robust && est.share_explained < 1.0 {
        caveats.push(format!(
            "{:.2}% of the intervals are not multiples of the tick (outliers, steps or noise)",
            (1.0 - est.share_explained) * 100.0
        ));
    }
    let n = est.intervals;
    if n < MIN_RELIABLE {
        caveats.push(format!(
            "only {n} positive intervals: the tick is an upper bound; more intervals can only lower it"
        ));
    }
    if let Some(g) = spoiled_gcd {
        caveats.push(format!(
            "the exact GCD is {g}: some intervals are not whole multiples of the tick"
        ));
    }
    est.reliable = est.method != Method::BestEffort && n >= MIN_RELIABLE && !facts.single_level;
    est.caveats = caveats;
    est
}

struct Robust {
    tick: f64,
    se: f64,
    share: f64,
}

/// Means of the first `max` clusters of sorted values (neighbours within `floor` merge).
fn cluster_means(sorted: &[f64], floor: f64, max: usize) -> Vec<f64> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=sorted.len() {
        if i == sorted.len() || sorted[i] - sorted[i - 1] > floor {
            let c = &sorted[start..i];
            out.push(stats::mean(c));
            if out.len() >= max {
                break;
            }
            start = i;
        }
    }
    out
}

/// The `k` smallest steps of diff(sort()) above the noise floor, clustered; zeros count as a
/// value when `with_zero`, as seed 001 sorts the raw timings.
fn smallest_gaps(sorted_pos: &[f64], floor: f64, k: usize, with_zero: bool) -> Vec<f64> {
    let mut gaps: Vec<f64> = sorted_pos
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|&g| g > floor)
        .collect();
    if with_zero {
        gaps.push(sorted_pos[0]);
    }
    if gaps.is_empty() {
        return gaps;
    }
    let keep = (k * 8).min(gaps.len());
    if keep < gaps.len() {
        gaps.select_nth_unstable_by(keep - 1, f64::total_cmp);
        gaps.truncate(keep);
    }
    gaps.sort_unstable_by(f64::total_cmp);
    cluster_means(&gaps, floor, k)
}

fn robust(sorted: &[f64], floor: f64, with_zero: bool, opts: &EstimatorOptions) -> Option<Robust> {
    let mut bases = cluster_means(sorted, floor, BASES);
    bases.extend(smallest_gaps(sorted, floor, BASES, with_zero));
    let mut cands: Vec<f64> = bases
        .iter()
        .flat_map(|&b| (1..=opts.max_divisor).map(move |k| b / k as f64))
        .filter(|&t| t > 4.0 * floor && t.is_finite())
        .collect();
    if cands.is_empty() {
        return None;
    }
    cands.sort_unstable_by(|a, b| b.total_cmp(a));
    cands.dedup_by(|a, b| (*a - *b).abs() <= 1e-9 * b.abs());

    let sample = stats::decimate(sorted, SCORE_SAMPLE);
    let mut best: Option<(f64, f64)> = None; // (share, tick) with the best share
    let mut accepted: Option<f64> = None;
    for &c in &cands {
        if let Some(a) = accepted {
            // Candidates come largest first; a smaller one cannot beat an accepted one
            // unless refinement moved it up, which a sibling candidate then covers.
            if c < a * (1.0 - opts.rel_tolerance) {
                break;
            }
        }
        let t = refine(c, &sample, opts).0;
        let share = share_all(&sample, t, opts);
        if best.is_none_or(|(s, bt)| share > s || (share == s && t > bt)) {
            best = Some((share, t));
        }
        if share >= opts.min_share && accepted.is_none_or(|a| t > a) {
            accepted = Some(t);
        }
    }
    let start = accepted.or(best.map(|b| b.1))?;
    let (tick, se) = refine(start, sorted, opts);
    let tick = if (tick - start).abs() <= 1e-9 * start {
        start
    } else {
        tick
    };
    Some(Robust {
        tick,
        se,
        share: share_all(sorted, tick, opts),
    })
}

/// Least-squares refinement of a tick: fit x ≈ k·t over explained values, widening the range
/// of multiples k by four each pass so an error in t never grows past the tolerance.
/// Returns the tick and its standard error.
fn refine(t0: f64, sorted: &[f64], opts: &EstimatorOptions) -> (f64, f64) {
    let Some(&xmax) = sorted.last() else {
        return (t0, 0.0);
    };
    let mut t = t0;
    let mut kmax = 4.0f64;
    let mut se = 0.0;
    loop {
        let tol = opts.tol(t);
        let (mut skx, mut skk, mut m) = (0.0, 0.0, 0u64);
        for &x in sorted {
            let k = (x / t).round();
            if k > kmax {
                break;
            }
            if k >= 1.0 && (x - k * t).abs() <= tol {
                skx += k * x;
                skk += k * k;
                m += 1;
            }
        }
        if skk > 0.0 {
            let nt = skx / skk;
            if nt.is_finite() && nt > 0.0 {
                t = nt;
            }
            if m > 1 {
                let tol = opts.tol(t);
                let mut ss = 0.0;
                for &x in sorted {
                    let k = (x / t).round();
                    if k > kmax {
                        break;
                    }
                    let r = x - k * t;
                    if k >= 1.0 && r.abs() <= tol {
                        ss += r * r;
                    }
                }
                se = (ss / (m - 1) as f64 / skk).sqrt();
            }
        }
        if kmax * t >= xmax || kmax > 1e18 {
            break;
        }
        kmax *= 4.0;
    }
    (t, se)
}

fn share_all(values: &[f64], t: f64, opts: &EstimatorOptions) -> f64 {
    if values.is_empty() || t.is_nan() || t <= 0.0 {
        return 0.0;
    }
    let tol = opts.tol(t);
    let hit = values
        .iter()
        .filter(|&&x| {
            let k = (x / t).round();
            k >= 1.0 && (x - k * t).abs() <= tol
        })
        .count();
    hit as f64 / values.len() as f64
}

/// How a measured tick compares with the platform's claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Within 5% of the claim.
    Matches,
    /// Coarser than claimed: the claim is optimistic.
    CoarserThanClaimed,
    /// Finer than claimed: the claim is pessimistic.
    FinerThanClaimed,
    /// The platform claims nothing.
    NoClaim,
    /// The tick is known only in counts of unknown length.
    Unknown,
}

/// Compares a measured tick with a claim, both in ns.
pub fn verdict(measured_ns: Option<f64>, claimed_ns: Option<f64>) -> Verdict {
    match (measured_ns, claimed_ns) {
        (_, None) => Verdict::NoClaim,
        (None, _) => Verdict::Unknown,
        (Some(m), Some(c)) => {
            let r = m / c;
            if !r.is_finite() {
                Verdict::Unknown
            } else if r > 1.05 {
                Verdict::CoarserThanClaimed
            } else if r < 1.0 / 1.05 {
                Verdict::FinerThanClaimed
            } else {
                Verdict::Matches
            }
        }
    }
}

/// Options of the tick experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TickOptions {
    /// Time and interval budget.
    pub budget: Budget,
    /// Tolerances of the robust estimate.
    pub estimator: EstimatorOptions,
    /// Raw samples kept in the result for plots.
    pub keep: usize,
    /// Seed of the dither.
    pub seed: u64,
}

impl TickOptions {
    /// Defaults with the given budget.
    pub fn new(budget: Budget) -> Self {
        Self {
            budget,
            estimator: EstimatorOptions::default(),
            keep: 4096,
            seed: 0x7ec1_ab00,
        }
    }
}

/// The result of the tick experiment, in counts of the clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TickResult {
    /// The estimate over edges, spans and dithered timings.
    pub estimate: TickEstimate,
    /// Exact GCD of all integer intervals.
    pub exact_gcd: u64,
    /// Nanoseconds per count, when known.
    pub ns_per_count: Option<f64>,
    /// The tick in ns, when the period is known.
    pub tick_ns: Option<f64>,
    /// The claimed resolution in ns.
    pub claimed_ns: Option<f64>,
    /// Measured against claimed.
    pub verdict: Verdict,
    /// Reads between consecutive changes of value (1 means the clock changed at every read).
    pub reads_per_change: Option<Summary>,
    /// Edge-to-edge intervals gathered.
    pub edges: u64,
    /// Dithered timings gathered (read, a random short wait, read).
    pub timings: u64,
    /// Differences that went backwards (left out of the estimate).
    pub backwards_steps: u64,
    /// Edge-to-edge intervals in order, decimated.
    pub edge_intervals: Vec<u64>,
    /// Dithered timings in order, decimated: seed 001's raw view.
    pub timings_sample: Vec<u64>,
    /// Bands of the timings (levels at multiples of the tick).
    pub bands: Vec<Band>,
    /// Seconds spent.
    pub elapsed_s: f64,
    /// What ended the sampling.
    pub stop: Stop,
    /// What limits the result, beyond the estimate's own caveats.
    pub caveats: Vec<String>,
}

/// Spans (in edges) over which sums of consecutive edges are added to the intervals: sums of
/// edges are exact unwrapped differences, and they tell a true tick from a read cadence.
const SPANS: [usize; 10] = [2, 3, 5, 8, 13, 21, 34, 55, 89, 144];

/// Busy work of `n` dependent steps the optimiser cannot remove.
#[inline(never)]
fn spin(n: u64) -> u64 {
    let mut x = black_box(n);
    for _ in 0..n {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
    }
    x
}

/// Fewest reads the tick and overhead experiments need inside their budget.
pub const MIN_READS: u32 = 64;

/// Refuses a clock whose reads, at `read_s` each, do not fit [`MIN_READS`] times in the budget:
/// a few slow reads can only give a confident-looking upper bound.
pub(crate) fn too_slow(
    clock: &str,
    experiment: &'static str,
    read_s: f64,
    budget_s: f64,
) -> Result<()> {
    if read_s * MIN_READS as f64 > budget_s {
        return Err(Error::TooSlow {
            clock: clock.into(),
            experiment,
            read_s,
            budget_s,
            min_reads: MIN_READS,
        });
    }
    Ok(())
}

/// Longest time each side of [`dither_range`] spends, in seconds.
const DITHER_PROBE_S: f64 = 0.001;

/// How many spin steps the dither draws from: 64, or two reads' worth when a read costs more
/// (a syscall clock, an interpolated clock), so the dithered intervals still vary finely
/// over a whole read and the GCD can go below it. Costs are compared on the stopwatch.
fn dither_range<C: Clock + ?Sized>(clock: &mut C, run: &mut Run<'_>) -> u64 {
    // None when the count runs out first: the stopwatch did not see the work (a simulated
    // stopwatch does not see spins), so there is no ratio to trust.
    let rate = |run: &mut Run<'_>, f: &mut dyn FnMut()| {
        let t0 = run.elapsed();
        let mut n = 0u64;
        let mut dt = 0.0;
        while dt < DITHER_PROBE_S {
            if n == 1 << 20 {
                return None;
            }
            f();
            n += 1;
            dt = run.elapsed() - t0;
        }
        Some(n as f64 / dt)
    };
    let reads = rate(run, &mut || {
        black_box(clock.read());
    });
    let spins = rate(run, &mut || {
        black_box(spin(16));
    });
    match (reads, spins) {
        (Some(r), Some(s)) => (2.0 * 16.0 * s / r).clamp(64.0, 1e7) as u64,
        _ => 64,
    }
}

/// Measures the tick of `clock`: edge-to-edge sampling (spin until the reading changes,
/// bounded by time) interleaved with dithered timings (read, a random number of reads and
/// spins, read), then the estimators over edges, sums of edges and timings.
pub fn measure<C: Clock + ?Sized>(
    clock: &mut C,
    run: &mut Run<'_>,
    opts: &TickOptions,
) -> Result<TickResult> {
    let info = clock.info().clone();
    let mut rng = SplitMix64::new(opts.seed);
    let mut edges: Vec<u64> = Vec::new();
    let mut segments: Vec<usize> = vec![0]; // edge indices where a backwards step broke the run
    let mut rpc: Vec<u64> = Vec::new();
    let mut timings: Vec<u64> = Vec::new();
    let mut backwards = 0u64;
    let mut reads_waiting = 0u64;

    let read_s = run.warm_up(64, 0.05, &mut || {
        black_box(clock.read());
    });
    too_slow(&info.name, "tick", read_s, run.budget().time_s)?;
    let spin_range = dither_range(clock, run);
    let (mut edge_pace, mut timing_pace) = (Pace::new(), Pace::new());
    let mut prev = clock.read();
    let mut partial = true; // the first wait after a jump starts mid-tick
    let stop = 'outer: loop {
        // Edge-to-edge: spin until the value changes.
        for _ in 0..64 {
            let mut spins = 0u64;
            let r = loop {
                let r = clock.read();
                spins += 1;
                if r != prev {
                    break r;
                }
                if let Some(s) = run.poll(&mut edge_pace, (edges.len() + timings.len()) as u64)? {
                    reads_waiting += spins;
                    break 'outer s;
                }
            };
            reads_waiting += spins;
            let d = info.diff(prev, r);
            if info.looks_backwards(d) {
                backwards += 1;
                segments.push(edges.len());
            } else {
                edges.push(d);
                if !partial {
                    rpc.push(spins);
                }
            }
            partial = false;
            prev = r;
            // A clock that changes at every read never waits above: check here too.
            if let Some(s) = run.poll(&mut edge_pace, (edges.len() + timings.len()) as u64)? {
                break 'outer s;
            }
        }
        if let Some(f) = clock.take_fault() {
            return Err(Error::Fault {
                clock: info.name.clone(),
                fault: f,
            });
        }
        // Dithered timings: a random wait of reads and spins, so the intervals vary on a
        // scale finer than the read cost and the GCD can go below it.
        let typical = if rpc.is_empty() {
            4
        } else {
            rpc[rpc.len() / 2].clamp(1, 1 << 16)
        };
        for _ in 0..64u32 {
            if let Some(s) = run.poll(&mut timing_pace, (edges.len() + timings.len()) as u64)? {
                break 'outer s;
            }
            let m = rng.below(4 * typical + 1);
            let s = rng.below(spin_range);
            let a = clock.read();
            for _ in 0..m {
                black_box(clock.read());
            }
            black_box(spin(s));
            let b = clock.read();
            let d = info.diff(a, b);
            if info.looks_backwards(d) {
                backwards += 1;
            } else {
                timings.push(d);
            }
            prev = b;
        }
        partial = true;
        if let Some(s) = run.check((edges.len() + timings.len()) as u64)? {
            break s;
        }
    };
    if let Some(f) = clock.take_fault() {
        return Err(Error::Fault {
            clock: info.name.clone(),
            fault: f,
        });
    }
    let elapsed_s = run.elapsed();
    if edges.is_empty() && timings.iter().all(|&d| d == 0) {
        return Err(Error::Frozen {
            clock: info.name.clone(),
            elapsed_s,
            reads: reads_waiting,
        });
    }

    // Intervals for the estimate: edges, sums of consecutive edges within each unbroken
    // segment, and the dithered timings.
    segments.push(edges.len());
    let mut all = with_span_sums(&edges, &segments);
    all.extend(timings.iter().copied());
    let estimate = estimate_counts(&all, &opts.estimator)?;
    let ns = info.period.ns_per_count();
    let tick_ns = ns.map(|p| p * estimate.tick);
    let claimed_ns = info.claimed.as_ref().map(|c| c.ns);

    let mut caveats = Vec::new();
    let mut estimate = estimate;
    let reads_per_change = Summary::of_counts(&rpc).ok();
    if let Some(r) = &reads_per_change {
        if r.median <= 1.5 {
            caveats.push(
                "the value changed at nearly every read: the tick is at most one read's cost, \
                 and comes from the GCD of the varied intervals"
                    .into(),
            );
            caveats.extend(bound_by_cadence(&mut estimate, &edges, "reading cadence"));
        }
    }
    if backwards > 0 {
        caveats.push(backwards_caveat(backwards));
    }
    if edges.len() < MIN_RELIABLE as usize {
        caveats.push(format!(
            "only {} edges seen within the budget: raise --time for a coarse clock",
            edges.len()
        ));
    }
    let gap = estimate.tick / 4.0;
    let timings_f: Vec<f64> = timings.iter().map(|&d| d as f64).collect();
    Ok(TickResult {
        exact_gcd: exact_gcd(&all),
        ns_per_count: ns,
        tick_ns,
        claimed_ns,
        verdict: verdict(tick_ns, claimed_ns),
        reads_per_change,
        edges: edges.len() as u64,
        timings: timings.len() as u64,
        backwards_steps: backwards,
        edge_intervals: stats::decimate(&edges, opts.keep),
        timings_sample: stats::decimate(&timings, opts.keep),
        bands: stats::bands(&timings_f, gap, 64),
        elapsed_s,
        stop,
        caveats,
        estimate,
    })
}

/// The edges followed by sums of consecutive edges over [`SPANS`], never across a break
/// (`segments` holds the edge indices where unbroken runs start and end).
fn with_span_sums(edges: &[u64], segments: &[usize]) -> Vec<u64> {
    let mut all = edges.to_vec();
    for seg in segments.windows(2) {
        let e = &edges[seg[0]..seg[1]];
        let mut prefix = Vec::with_capacity(e.len() + 1);
        prefix.push(0u64);
        for &d in e {
            prefix.push(prefix[prefix.len() - 1].saturating_add(d));
        }
        for s in SPANS {
            let mut i = 0;
            while i + s < prefix.len() {
                all.push(prefix[i + s] - prefix[i]);
                i += s;
            }
        }
    }
    all
}

/// When no edge is shorter than twice the tick, the intervals may all be one cadence (reads,
/// frames): a finer tick would look the same, so the estimate becomes an upper bound.
fn bound_by_cadence(estimate: &mut TickEstimate, edges: &[u64], cadence: &str) -> Option<String> {
    let shortest = edges.iter().copied().min().unwrap_or(0) as f64;
    (estimate.tick * 2.0 > shortest).then(|| {
        estimate.reliable = false;
        format!("no interval was shorter than the {cadence}: the tick found is only an upper bound")
    })
}

fn backwards_caveat(n: u64) -> String {
    format!("{n} differences went backwards (the clock is not monotonic); they were left out")
}

/// Relative tolerance of the estimate from sampled readings.
pub const SAMPLED_REL_TOLERANCE: f64 = 0.002;

/// The tick of a clock that cannot be spun on, from readings taken when the platform
/// allows (a page's frame timestamps, an audio clock sampled once per task).
///
/// Consecutive distinct readings are intervals the tick divides, like edges, but they are
/// not edge-to-edge: the estimate is as good as the spread of the sampling moments.
/// Readings that repeat count as reads per change; steps backwards are left out.
pub fn from_readings(
    info: &ClockInfo,
    readings: &[u64],
    elapsed_s: f64,
    stop: Stop,
    opts: &TickOptions,
) -> Result<TickResult> {
    if readings.len() < 3 {
        return Err(Error::NoData(format!(
            "{}: {} readings; at least 3 are needed",
            info.name,
            readings.len()
        )));
    }
    let mut edges = Vec::new();
    let mut segments = vec![0];
    let mut rpc = Vec::new();
    let mut backwards = 0u64;
    let mut same = 1u64;
    for w in readings.windows(2) {
        let d = info.diff(w[0], w[1]);
        if d == 0 {
            same += 1;
        } else if info.looks_backwards(d) {
            backwards += 1;
            segments.push(edges.len());
        } else {
            edges.push(d);
            rpc.push(same);
            same = 1;
        }
    }
    if edges.is_empty() {
        return Err(Error::Frozen {
            clock: info.name.clone(),
            elapsed_s,
            reads: readings.len() as u64,
        });
    }
    segments.push(edges.len());
    let all = with_span_sums(&edges, &segments);
    // Sampling moments come at a cadence (a frame, a task) with jitter of a few percent: at
    // the usual tolerance the cadence itself would pass for the tick.
    let mut estimator = opts.estimator.clone();
    estimator.rel_tolerance = estimator.rel_tolerance.min(SAMPLED_REL_TOLERANCE);
    let estimate = estimate_counts(&all, &estimator)?;
    let ns = info.period.ns_per_count();
    let tick_ns = ns.map(|p| p * estimate.tick);
    let claimed_ns = info.claimed.as_ref().map(|c| c.ns);
    let mut caveats = vec![
        "sampled at moments the platform chose, not edge to edge: every interval is a \
         multiple of the tick, but a tick finer than the sampling spread may be missed"
            .to_string(),
    ];
    if backwards > 0 {
        caveats.push(backwards_caveat(backwards));
    }
    if edges.len() < MIN_RELIABLE as usize {
        caveats.push(format!(
            "only {} changes seen: sample for longer",
            edges.len()
        ));
    }
    let mut estimate = estimate;
    caveats.extend(bound_by_cadence(
        &mut estimate,
        &edges,
        "sampling cadence (a frame, a task)",
    ));
    let edges_f: Vec<f64> = edges.iter().map(|&d| d as f64).collect();
    Ok(TickResult {
        exact_gcd: exact_gcd(&all),
        ns_per_count: ns,
        tick_ns,
        claimed_ns,
        verdict: verdict(tick_ns, claimed_ns),
        reads_per_change: Summary::of_counts(&rpc).ok(),
        edges: edges.len() as u64,
        timings: 0,
        backwards_steps: backwards,
        edge_intervals: stats::decimate(&edges, opts.keep),
        timings_sample: stats::decimate(&edges, opts.keep),
        bands: stats::bands(&edges_f, estimate.tick / 4.0, 64),
        elapsed_s,
        stop,
        caveats,
        estimate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_gcd_ignores_zeros() {
        assert_eq!(exact_gcd(&[0, 12, 18, 0, 30]), 6);
        assert_eq!(exact_gcd(&[0, 0]), 0);
    }

    #[test]
    fn verdicts() {
        assert_eq!(verdict(Some(100.0), Some(100.0)), Verdict::Matches);
        assert_eq!(
            verdict(Some(200.0), Some(100.0)),
            Verdict::CoarserThanClaimed
        );
        assert_eq!(verdict(Some(1.0), Some(100.0)), Verdict::FinerThanClaimed);
        assert_eq!(verdict(Some(1.0), None), Verdict::NoClaim);
        assert_eq!(verdict(None, Some(1.0)), Verdict::Unknown);
    }

    #[test]
    fn readings_at_frame_moments_reveal_a_100us_clamp() {
        use crate::clock::{ClockKind, CountPeriod};
        let info = ClockInfo::new("raf", ClockKind::Monotonic, CountPeriod::NANOSECOND);
        // Frames about 16.7 ms apart with jitter, each stamp clamped to 100 µs.
        let mut rng = SplitMix64::new(7);
        let mut t = 5_000_000u64;
        let mut r = Vec::new();
        for _ in 0..300 {
            t += 16_666_667 + rng.below(400_000);
            r.push(t / 100_000 * 100_000);
        }
        let opts = TickOptions::new(Budget::new(1.0, 1000).unwrap());
        let res = from_readings(&info, &r, 5.0, Stop::Samples, &opts).unwrap();
        assert_eq!(res.tick_ns, Some(100_000.0));
        assert!(from_readings(&info, &[5, 5, 5, 5], 1.0, Stop::Time, &opts).is_err());
        assert!(from_readings(&info, &[5], 1.0, Stop::Time, &opts).is_err());
    }

    #[test]
    fn bad_options_are_refused() {
        let o = EstimatorOptions {
            min_share: 0.0,
            ..Default::default()
        };
        assert!(estimate_values(&[1.0], &o).is_err());
        assert!(estimate_values(&[f64::NAN, -1.0, 0.0], &EstimatorOptions::default()).is_err());
    }
}
