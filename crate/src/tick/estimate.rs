//! The tick estimators: from intervals to the largest step that divides them.
//!
//! The tick divides every interval (Krutar), but measured intervals are off by up to one
//! quantum of the data (a truncated nanosecond, a printed decimal), some are outliers, and
//! any small enough candidate "explains" everything. So a candidate tick τ is accepted only
//! when it explains nearly every interval to within its tolerance (at least one quantum) AND
//! that share is far above what chance gives at that tolerance (a binomial test); the largest
//! such τ wins. When none is coarser than the quantum, the answer is the quantum itself, as
//! an upper bound, or no tick at all for values on no grid (averages).
//!
//! Candidates are the smallest values and the smallest steps of diff(sort()) divided by
//! 1, 2, 3...; each is first tried on a ladder of values climbing in small ratios (so its
//! multiple is never ambiguous), refining τ by least squares as it climbs; the survivors are
//! scored on the data, largest first.

use serde::{Deserialize, Serialize};

use super::exact::{self, Exact};
use super::quantum::Quantum;
use crate::error::{invalid, Error, Result};
use crate::stats;

/// How tolerant the estimate is, beyond the data's quantum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EstimatorOptions {
    /// An interval within `rel_tolerance × tick` of a multiple counts as explained when that
    /// is more than one quantum (the jitter of a coarse clock's updates).
    pub rel_tolerance: f64,
    /// Least share of intervals a tick must explain to be accepted.
    pub min_share: f64,
    /// Largest divisor tried on each candidate base value.
    pub max_divisor: u32,
}

impl Default for EstimatorOptions {
    fn default() -> Self {
        Self {
            rel_tolerance: 0.03,
            min_share: 0.92,
            max_divisor: 1 << 20,
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
        if !(self.min_share >= 0.5 && self.min_share <= 1.0) {
            return Err(invalid(
                "minimum share",
                format!("{}; expected 0.5 to 1", self.min_share),
            ));
        }
        if !(1..=1 << 24).contains(&self.max_divisor) {
            return Err(invalid(
                "maximum divisor",
                format!("{}; expected 1 to {}", self.max_divisor, 1 << 24),
            ));
        }
        Ok(())
    }
}

/// How the estimate was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Exact GCD of integer intervals: it divides every one.
    ExactGcd,
    /// The largest tick that explains nearly every interval far beyond chance, refined by
    /// least squares.
    Robust,
    /// Written by schema 1 only: no tick explained the minimum share, and the best was given.
    BestEffort,
    /// No tick coarser than the data's quantum fits: the tick is at most the quantum.
    Precision,
    /// The values lie on no step at all (averages, ratios): there is no tick to give.
    NoTick,
}

/// A tick estimate, in the unit of the data it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TickEstimate {
    /// The estimated tick. For [`Method::Precision`] the quantum, an upper bound; for
    /// [`Method::NoTick`] the float noise allowed, not a tick.
    pub tick: f64,
    /// Standard error of the tick from the least-squares refinement (0 when exact).
    pub uncertainty: f64,
    /// The tick as an exact number, when the data pin it down (250, 125/3, 10⁹/3 222 557).
    #[serde(default)]
    pub exact: Option<Exact>,
    /// Share of the positive intervals within tolerance of a multiple of the tick.
    pub share_explained: f64,
    /// Share of the intervals that are not multiples but pair up into them: reads that
    /// caught the clock mid-step (1 + 25 = 26 counts).
    #[serde(default)]
    pub straddles: f64,
    /// Share a tick this size would explain by chance at the same tolerance.
    #[serde(default)]
    pub chance: f64,
    /// The data's own precision.
    #[serde(default)]
    pub quantum: Quantum,
    /// How it was reached.
    pub method: Method,
    /// Positive finite intervals used.
    pub intervals: u64,
    /// Zero intervals (uninformative: a multiple of any tick).
    pub zeros: u64,
    /// Values refused: NaN, infinite or negative.
    pub rejected: u64,
    /// The first answer of "Finding Timer Resolution and Overhead": the smallest non-zero
    /// interval.
    pub smallest_nonzero: f64,
    /// Its second answer: the smallest non-zero step of diff(sort()).
    pub smallest_diff_sort: Option<f64>,
    /// Whether the estimate deserves confidence; `caveats` say why not.
    pub reliable: bool,
    /// What limits the estimate.
    pub caveats: Vec<String>,
}

impl TickEstimate {
    /// Whether a tick was found: not just the data's precision, and not "no tick".
    pub fn found(&self) -> bool {
        matches!(self.method, Method::ExactGcd | Method::Robust)
    }
}

/// Fewest intervals for an estimate to be called reliable.
pub(crate) const MIN_RELIABLE: u64 = 10;
/// Bases taken from the smallest values and from the smallest diff(sort()) steps.
const BASES: usize = 6;
/// Values the candidates are scored on; the chosen one is then checked on all.
const SCORE_SAMPLE: usize = 4096;
/// Most candidates scored in full, largest first.
const MAX_SCORED: usize = 768;
/// Most survivors of the ladder kept from one base, largest first.
const PER_BASE_SURVIVORS: usize = 64;
/// Most candidates tried on the ladder, over all bases: many for a few values (a hundred
/// timings of a millisecond may hide a 10 ns tick, 10^5 of them in each), fewer for a
/// million, whose sorting and scoring take the time.
fn max_candidates(n: usize) -> usize {
    if n <= 100_000 {
        4_000_000
    } else {
        400_000
    }
}
/// The accepted share of misses is at most this share of what chance leaves unexplained.
const EFFECT: f64 = 0.25;
/// A tick that chance alone would credit with more than this share of values cannot be
/// told from none (2.05 steps on a grid explains 97% of random integers).
const MAX_CHANCE: f64 = 0.85;
/// ln of the odds against a false tick, before the correction for the candidates tried.
const LN_ODDS: f64 = 9.2; // 10^4
/// How far the explained levels must stand out from chance on their own: p ≤ 1%.
const LEVELS_LN: f64 = 4.6;
/// Most distinct levels counted for that test.
const LEVELS_COUNTED: u32 = 4096;

/// Exact GCD of the non-zero values; 0 when there is none.
pub fn exact_gcd(intervals: &[u64]) -> u64 {
    intervals.iter().fold(
        0u64,
        |g, &d| {
            if d == 0 {
                g
            } else {
                crate::clock::gcd(g, d)
            }
        },
    )
}

/// Estimates the tick of integer intervals (wrapped differences of counts of a counter):
/// the exact GCD, unless a larger tick explains nearly all intervals (straddling reads or a
/// few outliers spoil a GCD; a non-integer tick written in whole counts has none).
pub fn estimate_counts(intervals: &[u64], opts: &EstimatorOptions) -> Result<TickEstimate> {
    estimate_counts_with(intervals, Quantum::Count, None, opts)
}

/// [`estimate_counts`] for counts whose readings are `quantum` apart (a float clock's
/// spacing) and last `count_s` seconds each, when known (for exact frequencies).
pub fn estimate_counts_with(
    intervals: &[u64],
    quantum: Quantum,
    count_s: Option<f64>,
    opts: &EstimatorOptions,
) -> Result<TickEstimate> {
    let g = exact_gcd(intervals);
    if g == 0 {
        return Err(Error::NoData(
            "no non-zero interval: the clock never advanced between readings".into(),
        ));
    }
    let values: Vec<f64> = intervals.iter().map(|&d| d as f64).collect();
    let mut est = estimate(&values, quantum, count_s, opts)?;
    let gf = g as f64;
    let spoiled = est.method == Method::Robust && est.tick > gf * (1.0 + opts.rel_tolerance);
    if !spoiled && quantum == Quantum::Count {
        // The GCD divides every interval exactly, and a counter has nothing finer than a
        // count: it is the tick, unless a coarser one explained nearly all of them.
        est.tick = gf;
        est.uncertainty = 0.0;
        est.exact = Exact::new(g, 1);
        est.share_explained = 1.0;
        est.straddles = 0.0;
        est.chance = (1.0 / gf).min(1.0);
        est.method = Method::ExactGcd;
        // The robust search's caveats were of its own tick (a beat that fits as well,
        // straddles, misses): the GCD divides every interval exactly, so only the number of
        // intervals and a single level still limit it.
        let single = est.caveats.iter().any(|c| c.starts_with(SINGLE_LEVEL));
        est.caveats.clear();
        if single {
            est.caveats.push(single_level_caveat());
        }
        if est.intervals < MIN_RELIABLE {
            est.caveats.push(few_intervals_caveat(est.intervals));
        }
        est.reliable = est.intervals >= MIN_RELIABLE && !single;
    } else if spoiled {
        est.caveats.push(format!(
            "the exact GCD is {g}: some intervals are not whole multiples of the tick"
        ));
    }
    Ok(est)
}

/// Estimates the tick of real-valued intervals (durations in seconds, milliseconds...),
/// with the quantum read off the values themselves ([`Quantum::infer`]). NaN, infinite and
/// negative values are counted as rejected, zeros as uninformative.
pub fn estimate_values(values: &[f64], opts: &EstimatorOptions) -> Result<TickEstimate> {
    let (quantum, finer) = Quantum::infer_with_finer(values);
    estimate_with_finer(values, quantum, finer, None, opts)
}

/// [`estimate`] at `quantum`, and when nothing coarser fits, at the `finer` quantum of
/// doubles whose grid may be their tick (0.1 ms of a clamped performance.now).
pub fn estimate_with_finer(
    values: &[f64],
    quantum: Quantum,
    finer: Option<Quantum>,
    unit_s: Option<f64>,
    opts: &EstimatorOptions,
) -> Result<TickEstimate> {
    opts.validate()?;
    let p = Prepared::new(values)?;
    let e = estimate_prepared(&p, quantum, unit_s, opts, None)?;
    match finer {
        // The values lie on the coarse grid, so the tick is a whole number of its steps.
        // Multiples of a few steps were tried at the coarse quantum but could not stand
        // out from chance there (two steps explain half of any values on it); at the finer
        // quantum they can. The largest that explains the values wins (20 µs, not 10 µs,
        // for an isolated Firefox's performance.now written with float noise).
        Some(f) if !e.found() => {
            let coarse = quantum.step();
            let top = (p.sorted[p.sorted.len() - 1] / coarse)
                .floor()
                .clamp(1.0, 64.0) as usize;
            let multiples: Vec<f64> = (1..=top).rev().map(|k| k as f64 * coarse).collect();
            let again = estimate_prepared(&p, f, unit_s, opts, Some(&multiples))?;
            Ok(if again.found() { again } else { e })
        }
        _ => Ok(e),
    }
}

const SINGLE_LEVEL: &str = "every interval has the same length";
const PRECISION_CAVEAT: &str = "nothing coarser than the data's own precision";

/// The estimate of values written to `quantum`, in a unit of `unit_s` seconds when known
/// (it lets a tick be pinned to an exact frequency).
pub fn estimate(
    values: &[f64],
    quantum: Quantum,
    unit_s: Option<f64>,
    opts: &EstimatorOptions,
) -> Result<TickEstimate> {
    estimate_among(values, quantum, unit_s, opts, None)
}

/// The positive finite values, sorted, and what was left out.
struct Prepared {
    sorted: Vec<f64>,
    zeros: u64,
    rejected: u64,
}

impl Prepared {
    fn new(values: &[f64]) -> Result<Self> {
        let mut rejected = 0u64;
        let mut zeros = 0u64;
        let mut bits: Vec<u64> = Vec::with_capacity(values.len());
        for &x in values {
            if !(x.is_finite() && x >= 0.0) {
                rejected += 1;
            } else if x == 0.0 {
                zeros += 1;
            } else {
                bits.push(x.to_bits());
            }
        }
        if bits.is_empty() {
            return Err(Error::NoData(format!(
                "no positive finite interval among {} values ({zeros} zero, {rejected} refused)",
                values.len()
            )));
        }
        // Positive doubles sort as their bits do, and integers sort fast.
        radix_sort(&mut bits);
        Ok(Self {
            sorted: bits.into_iter().map(f64::from_bits).collect(),
            zeros,
            rejected,
        })
    }
}

/// [`estimate`], trying only the ticks `only` (in the data's unit) when given.
fn estimate_among(
    values: &[f64],
    quantum: Quantum,
    unit_s: Option<f64>,
    opts: &EstimatorOptions,
    only: Option<&[f64]>,
) -> Result<TickEstimate> {
    opts.validate()?;
    estimate_prepared(&Prepared::new(values)?, quantum, unit_s, opts, only)
}

fn estimate_prepared(
    p: &Prepared,
    quantum: Quantum,
    unit_s: Option<f64>,
    opts: &EstimatorOptions,
    only: Option<&[f64]>,
) -> Result<TickEstimate> {
    let step = quantum.step();
    if !(step.is_finite() && step > 0.0) {
        return Err(invalid(
            "quantum",
            format!("a step of {step}; expected finite and positive"),
        ));
    }
    let space = Space {
        grid: quantum.on_grid(),
        q_tol: if quantum.on_grid() { 1.0 - 1e-6 } else { 1.0 },
        rel: opts.rel_tolerance,
    };
    let (zeros, rejected) = (p.zeros, p.rejected);
    // Everything below is in steps of the quantum (whole numbers on a grid), in order.
    let u: Vec<f64> = p
        .sorted
        .iter()
        .map(|&x| {
            let s = x / step;
            if space.grid {
                rnd(s).max(1.0)
            } else {
                s
            }
        })
        .collect();
    if !u[u.len() - 1].is_finite() {
        return Err(Error::NoData(format!(
            "the intervals are too large to estimate a tick from (largest {:e})",
            p.sorted[p.sorted.len() - 1]
        )));
    }
    let smallest_nonzero = u[0] * step;
    let gaps = small_gaps(&u, space.q_tol * 0.5);
    let smallest_diff_sort = if zeros > 0 {
        Some(gaps.first().map_or(u[0], |g| g.min(u[0])) * step)
    } else {
        gaps.first().map(|g| g * step)
    };

    let mut est = TickEstimate {
        tick: step,
        uncertainty: 0.0,
        exact: None,
        share_explained: 0.0,
        straddles: 0.0,
        chance: 1.0,
        quantum,
        method: if quantum.is_precision() {
            Method::Precision
        } else {
            Method::NoTick
        },
        intervals: u.len() as u64,
        zeros,
        rejected,
        smallest_nonzero,
        smallest_diff_sort,
        reliable: false,
        caveats: Vec::new(),
    };
    let n = u.len() as u64;
    if u[u.len() - 1] - u[0] < space.q_tol {
        // One level: it is a multiple of the tick, nothing says which.
        est.tick = stats::mean(&u) * step;
        est.share_explained = 1.0;
        est.method = Method::Robust;
        est.caveats.push(single_level_caveat());
        return Ok(est);
    }
    let only: Option<Vec<f64>> = only.map(|o| o.iter().map(|t| t / step).collect());
    let search = search(&u, &gaps, &space, opts, only.as_deref());
    match search.found {
        Some(f) => {
            // Every tick between lo and hi explains the hits as well: the uncertainty is at
            // least the spread of that range (as a standard deviation, width/√12), however
            // small the least-squares error.
            let (lo, hi) = (f.score.lo, f.score.hi);
            let mut range = if lo <= f.tau && f.tau <= hi && hi.is_finite() {
                (hi - lo) / 12f64.sqrt()
            } else {
                0.0
            };
            // Values that span few multiples fit a beat of the tick as well (k ticks of τ
            // are k − 1 of τ·k/(k − 1)): when one does, the data cannot tell the two apart,
            // and the uncertainty spans both.
            let some = stats::decimate(&u, 1 << 12);
            let k = rnd(some[some.len() / 2] / f.tau).max(1.0);
            let mut beats = Vec::new();
            for j in [-1.0, 1.0] {
                let b = f.tau * k / (k + j);
                // A beat chance alone would credit as much (1.67 steps on a grid of whole
                // steps) could never be a tick: it spans nothing.
                let s = score(&some, b, f.tol, &space);
                if k + j >= 1.0 && s.chance <= MAX_CHANCE && s.share >= f.score.share - 2e-3 {
                    range = range.max((b - f.tau).abs());
                    beats.push(b * step);
                }
            }
            if !beats.is_empty() {
                est.caveats.push(format!(
                    "the values span few multiples of the tick: {} fit{} them as well, and the \
                     uncertainty spans {}",
                    beats
                        .iter()
                        .map(|b| short(*b))
                        .collect::<Vec<_>>()
                        .join(" and "),
                    if beats.len() == 1 { "s" } else { "" },
                    if beats.len() == 1 { "it" } else { "them" }
                ));
            }
            est.tick = f.tau * step;
            est.uncertainty = f.se.max(range) * step;
            est.share_explained = f.score.share;
            est.straddles = f.score.paired;
            est.chance = f.chance;
            est.method = Method::Robust;
            // Exact forms are held against a sample of the values, enough to tell shares
            // apart by a tenth of a percent.
            let some = stats::decimate(&u, 1 << 16);
            let base = score(&some, f.tau, f.tol, &space).share;
            est.exact = exact::snap(f.tau, f.se.max(range), step, unit_s, base, |t| {
                score(&some, t, f.tol, &space).share
            });
            if let Some(e) = est.exact {
                est.tick = e.value();
            }
            if let Some((a, b)) = f.score.pair {
                est.caveats.push(format!(
                    "{:.2}% of the intervals are straddles: reads that caught the clock \
                     mid-step, in pairs that add up to whole ticks ({} + {} = {})",
                    f.score.paired * 100.0,
                    short(a * step),
                    short(b * step),
                    short((a + b) * step)
                ));
            }
            let missed = 1.0 - f.score.share - f.score.paired;
            if missed > 0.0 {
                est.caveats.push(format!(
                    "{:.2}% of the intervals are not multiples of the tick (outliers, steps or \
                     noise)",
                    missed * 100.0
                ));
            }
            if n < MIN_RELIABLE {
                est.caveats.push(few_intervals_caveat(n));
            }
            est.reliable = n >= MIN_RELIABLE;
        }
        None => {
            est.share_explained = if quantum.on_grid() { 1.0 } else { 0.0 };
            let reached = search.down_to * step;
            if quantum.is_precision() && reached > 2.5 * step {
                // Ticks below the reach of the search are not ruled out: the bound is
                // where the search stopped, not the data's precision.
                est.tick = reached;
                est.caveats.push(format!(
                    "no tick tried, from {} up, explains the intervals beyond chance: the \
                     tick is at most that; finer ones, down to the data's own precision ({}), \
                     cannot be searched for in values this long",
                    short(reached),
                    short(step)
                ));
            } else if quantum.is_precision() {
                est.caveats.push(format!(
                    "{PRECISION_CAVEAT} ({}) explains the intervals beyond chance: the tick \
                     is at most that",
                    short(step)
                ));
            } else {
                est.caveats.push(
                    "no tick found: the values lie on no step (doubles at full precision); \
                     averages over many runs have no tick"
                        .into(),
                );
            }
            if let Some(b) = search.best {
                est.caveats.push(format!(
                    "the best candidate, {}, explains {:.1}% of the intervals where chance \
                     gives {:.1}%: too few for a tick",
                    short(b.tau * step),
                    (b.score.share + b.score.paired) * 100.0,
                    b.chance * 100.0
                ));
            }
        }
    }
    Ok(est)
}

fn single_level_caveat() -> String {
    format!(
        "{SINGLE_LEVEL}: the tick divides it but may be smaller; vary the intervals to see \
         further"
    )
}

fn few_intervals_caveat(n: u64) -> String {
    format!(
        "only {n} positive intervals: the tick is an upper bound; more intervals can only lower it"
    )
}

/// A number in a caveat: six significant digits, no more.
fn short(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let places = (5 - x.abs().log10().floor() as i32).clamp(0, 17) as usize;
    let s = format!("{x:.places$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The tolerances of the search, in steps of the quantum.
struct Space {
    /// Values are whole numbers of steps.
    grid: bool,
    /// An interval may be off its multiple by less than this (one step, strictly, on a grid).
    q_tol: f64,
    /// The relative tolerance for coarse clocks' jitter.
    rel: f64,
}

impl Space {
    fn loose(&self, tau: f64) -> f64 {
        self.q_tol.max(self.rel * tau)
    }

    /// The chance that a value near multiple `k` of `tau` lies within `tol` of it, were it
    /// anywhere nearby: on a grid, the grid points within `tol` of k·τ over those nearer k
    /// than any other multiple (a tick of 3 steps explains a third of the integers exactly,
    /// not two thirds; a tick a hair off 2 steps explains nearly all of them far out); off a
    /// grid, 2·tol/τ.
    fn chance_at(&self, tau: f64, tol: f64, k: f64) -> f64 {
        if 2.0 * tol >= tau {
            return 1.0;
        }
        if !self.grid {
            return 2.0 * tol / tau;
        }
        // The grid points within `tol` of k·τ, over those that round to k at all.
        let c = k * tau;
        let near = -flo(-(c + tol)) - flo(c - tol) - 1.0;
        let mapped = flo(c + 0.5 * tau) - flo(c - 0.5 * tau);
        (near / mapped.max(1.0)).min(1.0)
    }

    /// The share of `values` chance would put within `tol` of a multiple of `tau`, each at
    /// the multiple it sits at: what the share explained must be held against.
    fn chance(&self, tau: f64, tol: f64, values: &[f64]) -> f64 {
        if values.is_empty() {
            return 1.0;
        }
        let sum: f64 = values
            .iter()
            .map(|&x| self.chance_at(tau, tol, rnd(x / tau).max(1.0)))
            .sum();
        sum / values.len() as f64
    }
}

/// How well a tick explains a set of values.
#[derive(Clone, Copy, Debug, Default)]
struct Score {
    /// Share within tolerance of a multiple of at least 1.
    share: f64,
    /// Share of the rest that pairs up into multiples (straddles).
    paired: f64,
    /// The two residues of the pairs, in steps.
    pair: Option<(f64, f64)>,
    /// Whether the hits lie on more than one multiple: values all at one level are a
    /// multiple of any of its divisors, so they show no tick.
    levels: bool,
    /// Mean distance of the hits from their multiples, as a share of the tolerance (a half
    /// when they fill it evenly, near 0 when they sit on the multiples).
    spread: f64,
    /// The ticks that would explain every hit as well: each hit x at multiple k allows
    /// (x − tol)/k to (x + tol)/k, and the tick lies where all of these meet.
    lo: f64,
    hi: f64,
    /// The share chance would explain at the same tolerance ([`Space::chance`]).
    chance: f64,
    /// Distinct values (levels) scored, how many of them a multiple explains, and the mean
    /// chance at them: values repeated a thousand times are one piece of evidence, not a
    /// thousand.
    distinct: u32,
    distinct_hits: u32,
    distinct_chance: f64,
}

impl Score {
    fn effective(&self) -> f64 {
        self.share + self.paired
    }
}

/// Scores `tau` on sorted `u` with tolerance `tol`, looking for straddles among the misses.
fn score(u: &[f64], tau: f64, tol: f64, space: &Space) -> Score {
    if u.is_empty() || tau.is_nan() || tau <= 0.0 {
        return Score::default();
    }
    let mut hits = 0usize;
    let mut dist = 0.0;
    let mut chance = 0.0;
    let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
    // Sorted values have non-decreasing multiples: the longest run of one multiple is the
    // most populated level.
    let (mut run_k, mut run, mut longest) = (0.0, 0usize, 0usize);
    let mut residues: Vec<f64> = Vec::new();
    // The chance, from one value in `every` (a few thousand are plenty).
    let every = (u.len() / 8192).max(1);
    let mut charged = 0usize;
    let (mut distinct, mut distinct_hits, mut distinct_chance) = (0u32, 0u32, 0.0);
    let mut last = f64::NEG_INFINITY;
    let inv = 1.0 / tau;
    for (i, &x) in u.iter().enumerate() {
        let k = rnd(x * inv);
        let r = (x - k * tau).abs();
        if i % every == 0 {
            chance += space.chance_at(tau, tol, k.max(1.0));
            charged += 1;
        }
        // The levels matter when they are few: past a few thousand, the values' own test
        // says all there is.
        if distinct < LEVELS_COUNTED && x > last + 0.5 * space.q_tol {
            last = x;
            distinct += 1;
            distinct_chance += space.chance_at(tau, tol, k.max(1.0));
            if k >= 1.0 && r < tol {
                distinct_hits += 1;
            }
        }
        if k >= 1.0 && r < tol {
            hits += 1;
            dist += r;
            lo = lo.max((x - tol) / k);
            hi = hi.min((x + tol) / k);
            if k == run_k {
                run += 1;
            } else {
                run_k = k;
                run = 1;
            }
            longest = longest.max(run);
        } else if residues.len() < 1 << 16 {
            residues.push(x - flo(x / tau) * tau);
        }
    }
    let n = u.len() as f64;
    let share = hits as f64 / n;
    let mut s = Score {
        share,
        paired: 0.0,
        pair: None,
        levels: hits - longest >= 2,
        spread: if hits > 0 {
            dist / hits as f64 / tol
        } else {
            0.0
        },
        lo,
        hi,
        chance: chance / charged.max(1) as f64,
        distinct,
        distinct_hits,
        distinct_chance: distinct_chance / f64::from(distinct.max(1)),
    };
    // Straddles are a few reads caught mid-step while the rest sit on their multiples:
    // misses around hits that fill the tolerance evenly are a spread, not straddles.
    if share >= 0.75 && s.spread <= 0.25 && residues.len() >= 10 {
        if let Some((c, a, b)) = straddle_pair(&residues, tau, space) {
            // The residues kept may be a part of the misses: their pairs in proportion.
            let misses = u.len() - hits;
            s.paired = c as f64 / residues.len() as f64 * misses as f64 / n;
            s.pair = Some((a, b));
        }
    }
    s
}

/// The pair of residues the misses crowd into, when they do: reads that straddle a step
/// give intervals a little over and a little under a multiple, in equal numbers. Returns
/// the misses in the pair and the two residues.
fn straddle_pair(residues: &[f64], tau: f64, space: &Space) -> Option<(usize, f64, f64)> {
    let bw = space.q_tol.max(tau / 2048.0);
    let bins = (tau / bw).ceil() as usize;
    if bins < 20 {
        return None;
    }
    let mut hist = vec![0usize; bins];
    for &r in residues {
        let b = ((r / bw) as usize).min(bins - 1);
        hist[b] += 1;
    }
    let near = |b: usize| -> usize {
        (b.saturating_sub(1)..=(b + 1).min(bins - 1))
            .map(|i| hist[i])
            .sum()
    };
    let (mode, _) = hist.iter().enumerate().max_by_key(|&(_, c)| *c)?;
    let a = (mode as f64 + 0.5) * bw;
    let mirror = (((tau - a) / bw) as usize).min(bins - 1);
    if mirror.abs_diff(mode) <= 2 {
        return None;
    }
    let (c1, c2) = (near(mode), near(mirror));
    let total = c1 + c2;
    let balanced = c1.min(c2) * 4 >= total;
    (balanced && total * 5 >= residues.len() * 4).then(|| {
        let mean_in = |b: usize| -> f64 {
            let lo = b.saturating_sub(1) as f64 * bw;
            let hi = ((b + 2).min(bins)) as f64 * bw;
            let v: Vec<f64> = residues
                .iter()
                .copied()
                .filter(|&r| r >= lo && r < hi)
                .collect();
            stats::mean(&v)
        };
        let (ra, rb) = (mean_in(mode), mean_in(mirror));
        let snap = |r: f64| if space.grid { r.round() } else { r };
        let (ra, rb) = (snap(ra), snap(rb));
        (total, ra.min(rb), ra.max(rb))
    })
}

/// Sorts by an LSD radix sort on 11-bit digits (six passes at most), skipping the digits
/// every key shares (a million doubles of one magnitude differ in four or five of them):
/// several times faster than a comparison sort.
fn radix_sort(keys: &mut Vec<u64>) {
    const BITS: u32 = 11;
    const BUCKETS: usize = 1 << BITS;
    if keys.len() < 4096 {
        // The keys are positive doubles' bits, which sort as the doubles do: the one float
        // sort serves.
        let mut v: Vec<f64> = keys.iter().map(|&k| f64::from_bits(k)).collect();
        stats::sort_f64(&mut v);
        for (k, x) in keys.iter_mut().zip(v) {
            *k = x.to_bits();
        }
        return;
    }
    let mut other = vec![0u64; keys.len()];
    // Every digit's histogram in one pass: moving the keys does not change them.
    const DIGITS: usize = 64usize.div_ceil(BITS as usize);
    let mut counts = vec![[0usize; BUCKETS]; DIGITS];
    for &k in keys.iter() {
        for (d, count) in counts.iter_mut().enumerate() {
            count[((k >> (d as u32 * BITS)) as usize) & (BUCKETS - 1)] += 1;
        }
    }
    for (d, count) in counts.iter_mut().enumerate() {
        if count.contains(&keys.len()) {
            continue;
        }
        let shift = d as u32 * BITS;
        let mut at = 0;
        for c in count.iter_mut() {
            let n = *c;
            *c = at;
            at += n;
        }
        for &k in keys.iter() {
            let b = ((k >> shift) as usize) & (BUCKETS - 1);
            other[count[b]] = k;
            count[b] += 1;
        }
        std::mem::swap(keys, &mut other);
    }
}

/// 1.5 × 2^52: added to a double below 2^51 and taken away again, it leaves it rounded.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

/// `x` rounded to a whole number, without a call into libm (x86-64 has no rounding
/// instruction before SSE4.1): adding and taking away 1.5 × 2^52 leaves no fraction.
#[inline(always)]
fn rnd(x: f64) -> f64 {
    if x.abs() < 2.0e15 {
        (x + ROUND_MAGIC) - ROUND_MAGIC
    } else {
        x.round()
    }
}

/// `x` rounded down, with [`rnd`].
#[inline(always)]
fn flo(x: f64) -> f64 {
    let r = rnd(x);
    if r > x {
        r - 1.0
    } else {
        r
    }
}

/// ln of the chance of `share` or more hits in `n` tries at `p` each (Chernoff's bound).
fn ln_tail(n: f64, share: f64, p: f64) -> f64 {
    if share <= p || n == 0.0 {
        return 0.0;
    }
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    let s = share.min(1.0);
    let mut kl = s * (s / p).ln();
    if s < 1.0 {
        kl += (1.0 - s) * ((1.0 - s) / (1.0 - p)).ln();
    }
    -n * kl
}

/// A candidate that passed the ladder.
#[derive(Clone, Copy, Debug)]
struct Survivor {
    tau: f64,
    /// About one standard error of `tau`.
    delta: f64,
    /// For a tick of a few steps, the range every tick in which explains the small values:
    /// searched on all values instead of refined.
    range: Option<(f64, f64)>,
}

impl Survivor {
    /// Largest tick first; one comparator for both sorts, so one copy of the sort.
    fn by_tau_descending(a: &Self, b: &Self) -> std::cmp::Ordering {
        b.tau.total_cmp(&a.tau)
    }
}

/// The accepted tick.
#[derive(Clone, Copy, Debug)]
struct Found {
    tau: f64,
    se: f64,
    tol: f64,
    score: Score,
    chance: f64,
}

struct Search {
    found: Option<Found>,
    /// The best candidate that was not enough, for the caveat.
    best: Option<Found>,
    /// The smallest candidate tried from a base among the values: below it, ticks were not
    /// ruled out.
    down_to: f64,
}

/// Values the ladder climbs: the median of each band of 15% that holds a fair share of the
/// values (so a few scattered outliers do not crowd the low rungs), and values spread over
/// the whole range, so ticks are tried on every scale.
fn ladder(s: &[f64]) -> Vec<f64> {
    let mut l = Vec::new();
    let least = (s.len() / 200).max(1);
    let mut start = 0;
    while start < s.len() {
        let top = s[start] * 1.15;
        let end = start + s[start..].partition_point(|&x| x < top).max(1);
        if end - start >= least {
            l.push(s[(start + end) / 2]);
        }
        start = end;
    }
    let q = 32.min(s.len());
    for i in 0..q {
        l.push(s[i * (s.len() - 1) / (q - 1).max(1)]);
    }
    crate::stats::sort_f64(&mut l);
    l.dedup();
    l
}

/// Tries `tau0 = b / k` on the ladder, refining it from every value it explains.
fn climb(b: f64, k: f64, ladder: &[f64], space: &Space) -> Option<Survivor> {
    let mut skk = k * k;
    let mut skx = k * b;
    let mut tau = b / k;
    let (mut hits, mut misses, mut tried) = (1u32, 0u32, 1u32);
    // Upwards from the base: below it lie the few short outliers a base of the most
    // frequent values was chosen to avoid.
    let from = ladder.partition_point(|&x| x < b * (1.0 - 1e-9));
    let (below, ladder) = ladder.split_at(from);
    // Then downwards (a base among the values, not below them): short values test a
    // candidate cheaply, and a wrong one misses them; a few outliers there are misses
    // the rule below allows.
    for &x in ladder.iter().chain(below.iter().rev()) {
        let t = space.loose(tau);
        let delta = t / skk.sqrt();
        let m = rnd(x / tau);
        if m < 1.0 {
            // Shorter than the tick: an outlier, or a smaller tick; the scoring counts it.
            continue;
        }
        let w = t + 2.0 * m * delta;
        if w >= 0.45 * tau {
            // Too far for the tick's precision yet; larger rungs are farther still.
            continue;
        }
        if (x - m * tau).abs() < w {
            hits += 1;
            skk += m * m;
            skx += m * x;
            tau = skx / skk;
        } else {
            misses += 1;
        }
        tried += 1;
        // Most candidates are wrong: three misses before three hits end them early.
        if misses > 3 + tried / 4 || (misses >= 3 && hits < 3) {
            return None;
        }
    }
    // A candidate must have been tried on most of a short ladder (data of few distinct
    // values), or on eight values of a long one, and on one value at least besides its base.
    if tried
        < 8.min((ladder.len() + below.len()) as u32 * 2 / 3 + 1)
            .max(2)
    {
        return None;
    }
    // Hits on a long ladder must already stand out from chance (a rough, generous chance);
    // a short one leaves that to the scoring, which counts every value.
    let t = space.loose(tau);
    let p = ((2.0 * t + if space.grid { 1.0 } else { 0.0 }) / tau).min(1.0);
    if tried >= 8 && ln_tail(tried as f64, hits as f64 / tried as f64, p) > -4.6 {
        return None;
    }
    Some(Survivor {
        tau,
        delta: t / skk.sqrt(),
        range: None,
    })
}

/// Least-squares refinement of `tau` over sorted `u`: each value within `tol` (plus the
/// uncertainty of τ times its multiple) of a multiple counts, τ = Σkx / Σk², accumulated as
/// residuals from the previous τ so large values lose no digits. Returns τ and its
/// standard error.
fn refine(u: &[f64], tau0: f64, delta0: f64, tol: &dyn Fn(f64) -> f64) -> (f64, f64) {
    refine_passes(u, tau0, delta0, tol, 4)
}

/// [`refine`] in at most `passes` passes over `u`.
fn refine_passes(
    u: &[f64],
    tau0: f64,
    delta0: f64,
    tol: &dyn Fn(f64) -> f64,
    passes: usize,
) -> (f64, f64) {
    let mut tau = tau0;
    let mut delta = delta0;
    let mut se = delta0;
    for _ in 0..passes {
        let t = tol(tau);
        let (mut skr, mut skk, mut srr, mut m) = (0.0, 0.0, 0.0, 0u64);
        for &x in u {
            let k = rnd(x / tau);
            if k < 1.0 {
                continue;
            }
            let w = t + 3.0 * k * delta;
            if w >= 0.5 * tau {
                break;
            }
            let r = x - k * tau;
            if r.abs() < w {
                skr += k * r;
                skk += k * k;
                srr += r * r;
                m += 1;
            }
        }
        if skk == 0.0 {
            break;
        }
        let shift = skr / skk;
        let nt = tau + shift;
        if !(nt.is_finite() && nt > 0.0) {
            break;
        }
        let ss = (srr - skr * skr / skk).max(0.0);
        se = if m > 1 {
            (ss / (m - 1) as f64 / skk).sqrt()
        } else {
            0.0
        };
        tau = nt;
        delta = se.max(shift.abs()).max(tau * 1e-15);
        if shift.abs() <= tau * 1e-12 {
            break;
        }
    }
    (tau, se)
}

/// Most values for which the median is a base too: many values make a dense ladder from
/// the smallest, and each base of full reach costs a million candidates.
const FEW_VALUES: usize = 100_000;
/// A ratio between neighbouring sorted values past which the larger is a base of its own.
const SCALE_JUMP: f64 = 8.0;

/// The bases candidates are divided from: the smallest values and the smallest steps of
/// diff(sort()), each cluster of nearly equal ones taken once.
/// The smallest value, the most frequent one, the feet of jumps and the median come first:
/// they are divided all the way down to two quanta, the others as far as the budget allows.
fn bases(u: &[f64], gaps: &[f64], space: &Space) -> (Vec<f64>, usize) {
    let merge = space.q_tol;
    let small = cluster_means(u, merge, BASES);
    // The most frequent values too: a few outliers below the data must not be all the
    // bases there are.
    let frequent = crowded(u, merge, BASES);
    let wide: Vec<f64> = gaps.iter().copied().filter(|&g| g > merge).collect();
    let keep = |x: &f64| x.is_finite() && *x >= 2.0 * space.q_tol;
    // And the foot of each of the two widest jumps in scale, and (for few values) the
    // median: a climb from below cannot carry a tick's precision across a wide gap (a few
    // short runs analysed with many long ones), one from among the many can.
    // (−ratio, foot): the widest first in the one order pairs are sorted in.
    let mut jumps: Vec<(f64, f64)> = u
        .windows(2)
        .filter(|w| w[0] >= 2.0 * space.q_tol && w[1] > SCALE_JUMP * w[0])
        .map(|w| (-(w[1] / w[0]), w[1]))
        .collect();
    stats::sort_pairs(&mut jumps);
    let mut first: Vec<f64> = small
        .iter()
        .take(1)
        .chain(frequent.iter().take(1))
        .chain(jumps.iter().take(2).map(|j| &j.1))
        .chain((u.len() <= FEW_VALUES).then(|| &u[u.len() / 2]))
        .copied()
        .filter(keep)
        .collect();
    first.dedup_by(|a, b| (*a - *b).abs() <= 1e-9 * b.abs());
    let mut rest: Vec<f64> = small
        .iter()
        .skip(1)
        .chain(frequent.iter().skip(1))
        .copied()
        .chain(cluster_means(&wide, merge, BASES))
        .filter(keep)
        .filter(|x| !first.iter().any(|f| (f - x).abs() <= 1e-9 * x.abs()))
        .collect();
    crate::stats::sort_f64(&mut rest);
    rest.dedup_by(|a, b| (*a - *b).abs() <= 1e-9 * b.abs());
    let n = first.len();
    first.extend(rest);
    (first, n)
}

/// Most candidates from one of the first bases: for a few values, down to two quanta from
/// a million steps; for a million values, what their sorting leaves time for.
fn full_reach(n: usize) -> usize {
    if n <= 100_000 {
        1 << 20
    } else {
        1 << 19
    }
}

fn search(
    u: &[f64],
    gaps: &[f64],
    space: &Space,
    opts: &EstimatorOptions,
    only: Option<&[f64]>,
) -> Search {
    let sample = stats::decimate(u, SCORE_SAMPLE);
    let steps = ladder(&sample);
    let min_tau = 2.0 * space.q_tol;
    let (bases, full) = if only.is_some() {
        (Vec::new(), 0)
    } else {
        bases(u, gaps, space)
    };
    let mut survivors: Vec<Survivor> = only
        .unwrap_or_default()
        .iter()
        .map(|&tau| Survivor {
            tau,
            delta: 0.0,
            range: None,
        })
        .collect();
    let mut tried = survivors.len().saturating_sub(1);
    // How far down the candidates reached: below that, a tick was not tried.
    let mut down_to = f64::INFINITY;
    let per_base = (max_candidates(u.len()) / bases.len().max(1)).min(opts.max_divisor as usize);
    for (i, &b) in bases.iter().enumerate() {
        let cap = if i < full {
            full_reach(u.len()).min(opts.max_divisor as usize)
        } else {
            per_base
        };
        let kmax = ((b / min_tau).floor() as usize).clamp(1, cap.max(1));
        // A base shorter than every value is a gap of diff(sort()): its candidates are
        // tried but seldom tested (no rung lies near it to climb on), so only bases
        // among the values say how far down ticks were ruled out.
        if b >= u[0] * (1.0 - 1e-9) {
            down_to = down_to.min(b / kmax as f64);
        }
        // A cheap first test before the climb: two of the next three values of the ladder
        // above the base must sit on a multiple (most candidates fail it; one outlier
        // among them does not fail the right one).
        let above: Vec<f64> = steps
            .iter()
            .copied()
            .filter(|&x| x > b * (1.0 + 1e-9))
            .take(3)
            .collect();
        let below = steps.partition_point(|&x| x < b * (1.0 - 1e-9));
        // Past a few dozen survivors a base only yields divisors of those already found.
        let mut kept = 0;
        // In units of τ = b/k, a value x sits at k·x/b and its window is t/τ·(1 + 2x/b):
        // no division in the loop over k.
        let inv_b = 1.0 / b;
        let ratios: Vec<f64> = above.iter().map(|&x| x * inv_b).collect();
        // With many values the ladder's rungs are medians, seldom outliers: all three
        // must sit on a multiple, and far fewer candidates climb.
        let slack = usize::from(u.len() <= 100_000);
        for k in 1..=kmax {
            if kept >= PER_BASE_SURVIVORS {
                break;
            }
            tried += 1;
            let k = k as f64;
            let t_over_tau = (space.q_tol * k * inv_b).max(space.rel);
            // A value whose window spans half a tick cannot test anything: with nothing
            // below the base to climb on, such a candidate could never survive.
            let on = ratios
                .iter()
                .filter(|&&r| {
                    let y = k * r;
                    let lim = t_over_tau * (1.0 + 2.0 * r);
                    (lim < 0.45 || below >= 3) && (y - rnd(y)).abs() < lim
                })
                .count();
            let near = on + slack >= ratios.len();
            if near {
                if let Some(s) = climb(b, k, &steps, space) {
                    survivors.push(s);
                    kept += 1;
                }
            }
        }
    }
    // Climbers that reached the same tick are scored once.
    survivors.sort_unstable_by(Survivor::by_tau_descending);
    // The one kept is the most precise: a rough climb from short values must not stand
    // for a fine one from long values that reached the same tick.
    survivors.dedup_by(|a, b| {
        let same = (a.tau - b.tau).abs() <= 3.0 * a.delta.max(b.delta) + 1e-12;
        if same && a.delta < b.delta {
            *b = *a;
        }
        same
    });
    // On a grid the GCD of every value is one more candidate.
    if only.is_none() && space.grid && u[u.len() - 1] < 9e15 {
        // Stops at 1: nothing divides further.
        let mut g = 0u64;
        for &x in u {
            g = crate::clock::gcd(g, x as u64);
            if g == 1 {
                break;
            }
        }
        if g >= 2 {
            survivors.push(Survivor {
                tau: g as f64,
                delta: 0.0,
                range: None,
            });
        }
    }
    survivors.sort_unstable_by(Survivor::by_tau_descending);
    let loose = |t: f64| space.loose(t);
    let tight = |_: f64| space.q_tol;
    let rank = Rank {
        sample: &sample,
        space,
        opts,
        loose: &loose,
        tight: &tight,
    };
    let (mut accepted, mut best) = rank.pick(&survivors, (tried.max(1) as f64).ln() + LN_ODDS);
    // Ticks of a few quanta cannot climb (the window around a multiple is most of a tick):
    // when nothing larger was found, they are scanned for.
    if accepted.is_none_or(|a| a.tau < SMALL_TICKS.1) && only.is_none() {
        let (small, scanned) = small_ticks(u, space);
        tried += scanned;
        let (a, b) = rank.pick(&small, (tried.max(1) as f64).ln() + LN_ODDS);
        accepted = match (accepted, a) {
            (Some(x), Some(y)) => Some(rank.larger(x, y)),
            (x, y) => x.or(y),
        };
        if best.is_none_or(|x| b.is_some_and(|y| y.score.effective() > x.score.effective())) {
            best = b.or(best);
        }
    }
    let threshold = (tried.max(1) as f64).ln() + LN_ODDS;
    // Checked on every value, not just the sample, at the tolerance the sample chose.
    let found = accepted.and_then(|a| {
        if sample.len() == u.len() {
            return Some(a);
        }
        let f = confirm(u, &a, space, &loose, &tight);
        ok(&f, u.len(), threshold, opts).then_some(f)
    });
    if found.is_some() {
        best = None;
    }
    Search {
        found,
        best: best.filter(|b| b.score.effective() > b.chance),
        down_to: if down_to.is_finite() {
            down_to
        } else {
            min_tau
        },
    }
}

/// The ticks scanned for among the smallest values, in steps.
const SMALL_TICKS: (f64, f64) = (2.0, 8.0);
/// Fewest of the smallest values, and most distinct ones, a tick of a few steps is scanned
/// for in.
const SMALL: (usize, usize) = (16, 96);
/// Most ticks of a few steps passed on from the scan.
const SMALL_KEPT: usize = 16;
/// Largest value, in steps, the scan for ticks of a few steps looks at.
const SMALL_TOP: f64 = 2048.0;

/// Ticks of 2 to 8 steps on a grid that are not whole numbers of steps: no single value
/// predicts another well enough to climb on (the window around a multiple is most of a
/// tick), so they are scanned for among the smallest values, where their multiples are
/// still few, finely enough that no multiple there moves by a quarter of a step. Those
/// that explain nearly all of those values go on to be searched on all of them.
/// Returns them and the ticks scanned.
fn small_ticks(u: &[f64], space: &Space) -> (Vec<Survivor>, usize) {
    if !space.grid {
        return (Vec::new(), 0);
    }
    // The smallest distinct values, as (value, count).
    let mut small: Vec<(f64, u32)> = Vec::new();
    for &x in u.iter().take_while(|&&x| x <= SMALL_TOP) {
        if let Some((v, c)) = small.last_mut() {
            if *v == x {
                *c = c.saturating_add(1);
                continue;
            }
        }
        if small.len() == SMALL.1 {
            break;
        }
        small.push((x, 1));
    }
    let n: u32 = small.iter().map(|s| s.1).sum();
    // A few levels at least: one value is a multiple of everything that divides it.
    if (n as usize) < SMALL.0 || small.len() < 4 {
        return (Vec::new(), 0);
    }
    let top = small[small.len() - 1].0.max(16.0);
    let per_step = (4.0 * top).ceil();
    let steps = ((SMALL_TICKS.1 - SMALL_TICKS.0) * per_step) as usize;
    let t = space.q_tol;
    // Plateaus of the share (every tick between two bounds explains the same values) that
    // explain nearly everything; the best few of them go on.
    // (evidence, lo, hi, skk): the evidence is how unlikely the share is by chance.
    let mut plateaus: Vec<(f64, f64, f64, f64)> = Vec::new();
    let (mut prev, mut flat_from, mut prev_skk, mut prev_ln) = (0.0f64, 0.0, 0.0, 0.0);
    for i in 0..=steps + 1 {
        let tau = SMALL_TICKS.0 + i as f64 / per_step;
        let (mut hits, mut skk) = (0u32, 0.0);
        if i <= steps {
            for &(v, c) in &small {
                let k = rnd(v / tau);
                if k >= 1.0 && (v - k * tau).abs() < t {
                    hits += c;
                    skk += k * k * c as f64;
                }
            }
        }
        // Counted as nothing where chance alone would explain nearly everything.
        let raw = hits as f64 / n as f64;
        let chance = || {
            small
                .iter()
                .map(|&(v, c)| c as f64 * space.chance_at(tau, t, rnd(v / tau).max(1.0)))
                .sum::<f64>()
                / n as f64
        };
        let (share, ln) = if i <= steps && raw >= 0.85 {
            let c = chance();
            if (1.0 - raw) <= EFFECT * (1.0 - c) {
                (raw, ln_tail(n as f64, raw, c))
            } else {
                (0.0, 0.0)
            }
        } else {
            (0.0, 0.0)
        };
        if share != prev {
            if prev > 0.0 {
                plateaus.push((prev_ln, flat_from - 1.0 / per_step, tau, prev_skk));
            }
            flat_from = tau;
            prev_ln = ln;
        }
        prev = share;
        prev_skk = skk;
    }
    plateaus.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
    plateaus.truncate(SMALL_KEPT);
    let out = plateaus
        .into_iter()
        .map(|(_, lo, hi, skk)| Survivor {
            tau: 0.5 * (lo + hi),
            delta: t / skk.max(1.0).sqrt() + (hi - lo),
            range: Some((lo, hi)),
        })
        .collect();
    (out, steps)
}

/// The tick in `lo..hi` that explains most of `u`: the share is a staircase of plateaus
/// in τ, so the search narrows to the middle of the best plateau, 64 ticks at a time.
/// Returns the tick and the half-width of the plateau.
fn zoom(u: &[f64], mut lo: f64, mut hi: f64, space: &Space) -> (f64, f64) {
    let t = space.q_tol;
    // A plateau is found as well on a thousand values as on all of them.
    let u = stats::decimate(u, 1024);
    // The chance is a mean over the values: a quarter of them give it to a few percent.
    let few = stats::decimate(&u, 256);
    let count = |tau: f64| {
        let inv = 1.0 / tau;
        u.iter()
            .filter(|&&x| {
                let k = rnd(x * inv);
                k >= 1.0 && (x - k * tau).abs() < t
            })
            .count()
    };
    for _ in 0..4 {
        let step = (hi - lo) / 64.0;
        if step.is_nan() || step <= 0.0 {
            break;
        }
        // A tick chance would credit with nearly everything scores nothing: near 2 steps
        // every tick but 2 itself explains almost all integers. (Checked only where the
        // count could be the best.)
        let mut scores: Vec<usize> = (0..=64).map(|i| count(lo + i as f64 * step)).collect();
        // Highest score first, the smaller tick first among equals, in the one order pairs
        // are sorted in: (−score, −i).
        let mut ranked: Vec<(f64, f64)> = scores
            .iter()
            .enumerate()
            .map(|(i, &s)| (-(s as f64), -(i as f64)))
            .collect();
        crate::stats::sort_pairs(&mut ranked);
        let order: Vec<usize> = ranked.iter().map(|&(_, i)| (-i) as usize).collect();
        let mut top = None;
        for i in order {
            match top {
                // Ties with the best are taken as they come.
                Some(t) if scores[i] == t => {}
                Some(_) => scores[i] = 0,
                None if space.chance(lo + i as f64 * step, t, &few) > MAX_CHANCE => scores[i] = 0,
                None => top = Some(scores[i]),
            }
        }
        let best = scores.iter().copied().max().unwrap_or(0);
        // The longest run of the best score.
        let (mut run, mut from, mut best_run) = (0usize, 0usize, (0usize, 0usize));
        for (i, &c) in scores.iter().enumerate() {
            if c == best {
                if run == 0 {
                    from = i;
                }
                run += 1;
                if run > best_run.1 {
                    best_run = (from, run);
                }
            } else {
                run = 0;
            }
        }
        let (a, len) = best_run;
        let new_lo = lo + a.saturating_sub(1) as f64 * step;
        let new_hi = lo + (a + len).min(64) as f64 * step;
        lo = new_lo;
        hi = new_hi;
    }
    (0.5 * (lo + hi), 0.5 * (hi - lo))
}

/// Refines a candidate on `u` and scores it at the tolerance that suits the data: the
/// quantum alone when the intervals are exact to it, else the looser one of a jittery
/// clock, but only when its hits sit well inside it (values that fill a 3% tolerance
/// evenly are a spread, not a jitter). On a grid the nearest whole number of steps is
/// scored too: a few near-misses (25 beside 26) must not pull a whole tick off its value.
fn judge(
    u: &[f64],
    tau: f64,
    delta: f64,
    space: &Space,
    loose: &dyn Fn(f64) -> f64,
    tight: &dyn Fn(f64) -> f64,
    accept: &dyn Fn(&Found) -> bool,
) -> Option<Found> {
    let found = |tau: f64, se: f64, tol: f64| {
        let score = score(u, tau, tol, space);
        Found {
            tau,
            se,
            tol,
            score,
            chance: score.chance,
        }
    };
    // The candidate as it came, too: refinement can carry a small tick astray when its
    // uncertainty spans several multiples.
    let mut options = vec![found(tau, delta, loose(tau))];
    let (tl, sel) = refine(u, tau, delta, loose);
    let l = found(tl, sel, loose(tl));
    if space.rel * tl > space.q_tol {
        if l.score.spread <= 0.25 {
            options.push(l);
        }
        let (tt, set) = refine(u, tl, sel.max(tl * 1e-12), tight);
        options.push(found(tt, set, tight(tt)));
    } else {
        options.push(l);
    }
    // Scored at the quantum alone: a whole number of steps must explain the values as
    // exactly as they are written, not merely within a coarse clock's jitter.
    if space.grid {
        let whole: Vec<Found> = options
            .iter()
            .filter(|o| {
                let k = o.tau.round();
                k >= 2.0 && k != o.tau && (k - o.tau).abs() < 0.5
            })
            .map(|o| found(o.tau.round(), o.se, tight(o.tau)))
            .collect();
        options.extend(whole);
    }
    // The best explanation: one that is a tick before one that is not, then the one that
    // explains most; among near ties the later (tighter, whole) one.
    let mut best: Option<(bool, Found)> = None;
    for o in options {
        if !(o.tau.is_finite() && o.tau > 0.0) {
            continue;
        }
        let good = accept(&o);
        let better = match &best {
            None => true,
            Some((g, b)) => {
                (good && !g) || (good == *g && o.score.effective() >= b.score.effective() - 0.002)
            }
        };
        if better {
            best = Some((good, o));
        }
    }
    best.map(|(_, f)| f)
}

/// What candidates are scored with.
struct Rank<'a> {
    sample: &'a [f64],
    space: &'a Space,
    opts: &'a EstimatorOptions,
    loose: &'a dyn Fn(f64) -> f64,
    tight: &'a dyn Fn(f64) -> f64,
}

impl Rank<'_> {
    /// Of two ticks, the larger, unless the smaller is no divisor of it (a divisor always
    /// explains as much) and explains more: at all when the two are close (a beat of the
    /// other), clearly and beyond chance when not (a smaller tick explains more by chance
    /// alone).
    fn larger(&self, a: Found, b: Found) -> Found {
        let (big, small) = if a.tau >= b.tau { (a, b) } else { (b, a) };
        let r = big.tau / small.tau;
        let divisor = r.round() >= 2.0 && (r - r.round()).abs() < 0.01 * r;
        let n = self.sample.len() as f64;
        let more = small.score.effective() > big.score.effective();
        let close = r < 1.2;
        if divisor {
            big
        } else if close && more {
            // Two ticks a beat apart both fit values of few multiples; the one that fits
            // them better is the tick, the other its beat.
            small
        } else if more
            && small.score.effective() > big.score.effective() + 0.01
            && ln_tail(n, small.score.share, small.chance) < ln_tail(n, big.score.share, big.chance)
        {
            small
        } else {
            big
        }
    }

    /// The tick among `survivors` (largest first) at significance `threshold`, and the best
    /// candidate that was not enough.
    fn pick(&self, survivors: &[Survivor], threshold: f64) -> (Option<Found>, Option<Found>) {
        let (sample, space, opts) = (self.sample, self.space, self.opts);
        let mut best: Option<Found> = None;
        let mut accepted: Option<Found> = None;
        // The first accepted, largest first, unless a candidate below it explains clearly
        // more and is no divisor of it (a divisor always explains as much): values that
        // span few multiples also fit a tick a little off the true one, by a beat.
        let mut first_accepted: Option<f64> = None;
        for s in survivors.iter().take(MAX_SCORED) {
            if let Some(a) = first_accepted {
                if s.tau < 0.5 * a {
                    break;
                }
            }
            let (tau, delta) = match s.range {
                Some((lo, hi)) => zoom(sample, lo, hi, space),
                None => (s.tau, s.delta),
            };
            // A quick look on a few hundred values first: most candidates explain far too
            // few to be worth refining.
            if s.range.is_none() {
                let glance = stats::decimate(sample, 512);
                let l = score(&glance, tau, (self.loose)(tau) * 1.5, space);
                if l.share + 0.08 < opts.min_share {
                    continue;
                }
            }
            let verdict = |f: &Found| ok(f, sample.len(), threshold, opts);
            let Some(f) = judge(sample, tau, delta, space, self.loose, self.tight, &verdict) else {
                continue;
            };
            if verdict(&f) {
                first_accepted.get_or_insert(f.tau);
                accepted = Some(match accepted {
                    None => f,
                    Some(a) => self.larger(a, f),
                });
            } else if best.is_none_or(|b| f.score.effective() > b.score.effective()) {
                best = Some(f);
            }
        }
        (accepted, best)
    }
}

/// A tick chosen on the sample, refined and scored on every value at the same tolerance.
fn confirm(
    u: &[f64],
    a: &Found,
    space: &Space,
    loose: &dyn Fn(f64) -> f64,
    tight: &dyn Fn(f64) -> f64,
) -> Found {
    let tol: &dyn Fn(f64) -> f64 = if a.tol > space.q_tol { loose } else { tight };
    // One pass: the sample's tick already puts every value at its multiple.
    let (tau, se) = if space.grid && a.tau.fract() == 0.0 {
        (a.tau, a.se)
    } else {
        refine_passes(u, a.tau, a.se.max(a.tau * 1e-12), tol, 1)
    };
    let t = tol(tau);
    let score = score(u, tau, t, space);
    Found {
        tau,
        se,
        tol: t,
        score,
        chance: score.chance,
    }
}

/// Whether a scored candidate is a tick: nearly every interval, on more than one multiple,
/// far beyond chance.
fn ok(f: &Found, n: usize, threshold: f64, opts: &EstimatorOptions) -> bool {
    let s = f.score.effective();
    s >= opts.min_share
        && f.chance <= MAX_CHANCE
        && f.score.levels
        && (1.0 - s) <= EFFECT * (1.0 - f.chance)
        && ln_tail(n as f64, f.score.share, f.chance) <= -threshold
        && levels_stand_out(&f.score)
}

/// Whether the levels a tick explains stand out from chance on their own (p ≤ 1%): eight
/// distinct whole milliseconds that a tick of 2.4 ms happens to come near are no evidence
/// of it, however often each was seen. Straddling levels count as explained.
fn levels_stand_out(s: &Score) -> bool {
    if s.distinct == 0 {
        return true;
    }
    let l = f64::from(s.distinct);
    let hits = (f64::from(s.distinct_hits) + s.paired * l).min(l);
    ln_tail(l, hits / l, s.distinct_chance) <= -LEVELS_LN
}

/// Means of the `max` most populated clusters of sorted values (neighbours within `merge`
/// join), when some cluster holds more than one value.
fn crowded(sorted: &[f64], merge: f64, max: usize) -> Vec<f64> {
    let mut top: Vec<(usize, usize, usize)> = Vec::new(); // (count, start, end)
    let mut start = 0;
    for i in 1..=sorted.len() {
        if i == sorted.len() || sorted[i] - sorted[i - 1] > merge {
            let c = i - start;
            if c > 1 && (top.len() < max || c > top[top.len() - 1].0) {
                let at = top.partition_point(|t| t.0 >= c);
                top.insert(at, (c, start, i));
                top.truncate(max);
            }
            start = i;
        }
    }
    top.iter()
        .map(|&(_, a, b)| stats::mean(&sorted[a..b]))
        .collect()
}

/// Means of the first `max` clusters of sorted values (neighbours within `merge` join).
fn cluster_means(sorted: &[f64], merge: f64, max: usize) -> Vec<f64> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=sorted.len() {
        if i == sorted.len() || sorted[i] - sorted[i - 1] > merge {
            out.push(stats::mean(&sorted[start..i]));
            if out.len() >= max {
                break;
            }
            start = i;
        }
    }
    out
}

/// The smallest steps of diff(sort()) above `floor`, in order (a few dozen).
fn small_gaps(sorted: &[f64], floor: f64) -> Vec<f64> {
    let keep = BASES * 8;
    // The smallest so far, in order; most gaps are larger than all of them.
    let mut best: Vec<f64> = Vec::with_capacity(keep + 1);
    for w in sorted.windows(2) {
        let g = w[1] - w[0];
        if g > floor && (best.len() < keep || g < best[keep - 1]) {
            let at = best.partition_point(|&b| b <= g);
            best.insert(at, g);
            best.truncate(keep);
        }
    }
    best
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
    fn chance_on_a_grid_counts_grid_points() {
        let s = Space {
            grid: true,
            q_tol: 1.0 - 1e-6,
            rel: 0.0,
        };
        let spread: Vec<f64> = (1..4000).map(f64::from).collect();
        // A whole tick of 3 steps explains a third of the integers, exactly.
        assert!((s.chance(3.0, s.q_tol, &spread) - 1.0 / 3.0).abs() < 1e-3);
        // 2.5 steps: every other multiple is a whole number.
        assert!((s.chance(2.5, s.q_tol, &spread) - 0.6).abs() < 1e-2);
        // 10.015 steps: two grid points near almost every multiple.
        assert!((s.chance(10.015, s.q_tol, &spread) - 2.0 / 10.015).abs() < 2e-3);
        // A hair off 2 steps: far out, both neighbours of every multiple.
        let far: Vec<f64> = (50_000..60_000).map(f64::from).collect();
        assert!(s.chance(2.000_000_001, s.q_tol, &far) > 0.95);
        let f = Space { grid: false, ..s };
        assert!((f.chance(100.0, 1.0, &spread) - 0.02).abs() < 1e-12);
    }

    #[test]
    fn radix_sort_sorts() {
        let mut rng = crate::rng::SplitMix64::new(3);
        let mut v: Vec<u64> = (0..10_000)
            .map(|i| match i % 3 {
                0 => (1.0 + rng.unit() * 1e6).to_bits(),
                1 => rng.next_u64(),
                _ => 42,
            })
            .collect();
        let mut want = v.clone();
        want.sort_unstable();
        radix_sort(&mut v);
        assert_eq!(v, want);
    }

    #[test]
    fn tail_bound() {
        assert_eq!(ln_tail(100.0, 0.5, 0.5), 0.0);
        assert!((ln_tail(10.0, 1.0, 0.1) - 10.0 * 0.1f64.ln()).abs() < 1e-9);
        assert!(ln_tail(1000.0, 0.99, 0.98) > -20.0);
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

    /// An Intel TSC's back-to-back deltas (34 to 48 counts, all even): the exact GCD, 2
    /// counts, with no caveat of the robust search's (a beat near 1.95 that "fits as well"
    /// would contradict an exact tick of uncertainty 0).
    #[test]
    fn an_exact_gcd_keeps_no_caveat_of_another_tick() {
        let mut rng = crate::rng::SplitMix64::new(4);
        let d: Vec<u64> = (0..20_000).map(|_| 34 + 2 * rng.below(8)).collect();
        let e = estimate_counts(&d, &EstimatorOptions::default()).unwrap();
        assert_eq!(
            (e.tick, e.uncertainty, e.method),
            (2.0, 0.0, Method::ExactGcd)
        );
        assert!(e.caveats.is_empty(), "{:?}", e.caveats);
    }
}
