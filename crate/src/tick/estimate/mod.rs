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
use crate::caveat::Caveat;
use crate::error::{invalid, Error, Result};
use crate::stats;

mod judge;
mod levels;
mod numeric;
mod piles;
mod score;
mod search;

use judge::*;
use numeric::*;
pub(crate) use piles::FLOAT_NOISE;
use piles::*;
use score::*;
use search::*;

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
    /// The values are intervals between moments the lab did not choose (a file's timer
    /// firings, frames, loops), not edges of a clock it spun on: values a tick leaves
    /// unexplained that lie on a finer grid, far beyond chance, make that grid the
    /// candidate; and a tick whose levels never step by it inside one pile (16.6 and
    /// 16.7 ms) is ambiguous with the data's precision, since events of a period read by a
    /// finer clock pile up the same way.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recorded: bool,
}

impl Default for EstimatorOptions {
    fn default() -> Self {
        Self {
            rel_tolerance: 0.03,
            min_share: 0.92,
            max_divisor: 1 << 20,
            recorded: false,
        }
    }
}

impl EstimatorOptions {
    /// Whether the rules for recorded values apply: asked for, and built in (the page's
    /// first answer reads no file, and its module leaves them out).
    #[inline(always)] // a constant where they are not built in: the rules' code goes
    fn recorded(&self) -> bool {
        cfg!(feature = "recorded") && self.recorded
    }

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
    /// Ticks that are no multiples of each other explain the values about as well, and
    /// the values sit on too few levels to choose ([`Caveat::Ambiguous`] names them): no
    /// tick is given. `tick` holds the best of them, not a tick.
    Ambiguous,
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
    pub caveats: Vec<Caveat>,
}

impl TickEstimate {
    /// Whether a tick was found: not just the data's precision, and not "no tick".
    #[inline(always)] // one caller: a stage of it, named
    pub fn found(&self) -> bool {
        matches!(self.method, Method::ExactGcd | Method::Robust)
    }
}

/// Fewest intervals for an estimate to be called reliable.
pub(crate) const MIN_RELIABLE: u64 = 10;
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
        return Err(Error::NoData(Caveat::NeverAdvanced));
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
        let single = est.caveats.iter().any(|c| matches!(c, Caveat::SingleLevel));
        est.caveats.clear();
        if single {
            est.caveats.push(Caveat::SingleLevel);
        }
        if est.intervals < MIN_RELIABLE {
            est.caveats.push(Caveat::FewIntervals {
                intervals: est.intervals,
            });
        }
        est.reliable = est.intervals >= MIN_RELIABLE && !single;
    } else if spoiled {
        est.caveats.push(Caveat::GcdSpoiled { gcd: g });
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
        // for an isolated Firefox's performance.now written with float noise). But the grid
        // may be the values' rounding (whole ns of a counter's readings), which puts every
        // value on it at the finer print whatever clock made them: not where the search
        // stopped above the grid (ticks between were never tried), nor where a coarser
        // rival explains the values at the grid's error against less chance than the grid
        // does at the finer print (279.365 ns against 1 ns on 0.1 ns: the one likelihood,
        // a value each, of both).
        Some(f) if finer_may_tell(&e, quantum, f) => {
            let coarse = quantum.step();
            let top = (p.sorted[p.sorted.len() - 1] / coarse)
                .floor()
                .clamp(1.0, 64.0) as usize;
            let multiples: Vec<f64> = (1..=top).rev().map(|k| k as f64 * coarse).collect();
            let again = estimate_prepared(&p, f, unit_s, opts, Some(&multiples))?;
            Ok(if again.found() {
                again
            } else {
                closest_values(
                    &p,
                    quantum,
                    unit_s,
                    opts,
                    from_piles(&p, quantum, unit_s, opts, e)?,
                )
            })
        }
        _ => Ok(closest_values(
            &p,
            quantum,
            unit_s,
            opts,
            from_piles(&p, quantum, unit_s, opts, e)?,
        )),
    }
}

/// Whether the grid's multiples are tried at the `finer` quantum after the estimate `e` at
/// `quantum` found no tick: not where the search stopped above the data's precision
/// (values too long to search finer), nor where a rival explains the values against less
/// chance, a value each, than the finer print gives the grid.
fn finer_may_tell(e: &TickEstimate, quantum: Quantum, finer: Quantum) -> bool {
    let stopped_above = e
        .caveats
        .iter()
        .any(|c| matches!(c, Caveat::BelowReach { .. }));
    let rival = e.method == Method::Ambiguous && e.chance <= finer.step() / quantum.step();
    !(e.found() || stopped_above || rival)
}

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
            return Err(Error::NoData(Caveat::NoPositiveInterval {
                values: values.len() as u64,
                zeros,
                refused: rejected,
            }));
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
    let mut space = Space {
        grid: quantum.on_grid(),
        q_tol: if quantum.on_grid() { 1.0 - 1e-6 } else { 1.0 },
        rel: opts.rel_tolerance,
        unit: 1.0,
    };
    let u = in_steps(p, step, &space)?;
    space.unit = common_steps(&u, &space);
    let gaps = small_gaps(&u, space.q_tol * 0.5);
    let mut est = unanswered(p, &u, &gaps, quantum);
    if u[u.len() - 1] - u[0] < space.q_tol {
        return Ok(single_level(est, &u, &space));
    }
    let only: Option<Vec<f64>> = only.map(|o| o.iter().map(|t| t / step).collect());
    let search = search(&u, &gaps, &space, opts, only.as_deref());
    match search.found {
        Some(f)
            if opts.recorded()
                && !steps_inside_piles(&u, &f, &space, search.threshold, opts.min_share) =>
        {
            if stepwise(&u, &space, quantum) {
                precision_shown(&mut est);
            } else {
                piled(&mut est, &f, 1.0);
            }
        }
        // The multiple first: the tick is the largest that explains the values.
        Some(f) => match opts.recorded().then(|| larger_multiple(&u, &f)).flatten() {
            Some(m) => piled(&mut est, &f, m),
            None => found(&mut est, &f, &u, &space, unit_s, opts.recorded()),
        },
        None if opts.recorded() && stepwise(&u, &space, quantum) => precision_shown(&mut est),
        None => not_found(&mut est, &search, opts),
    }
    Ok(est)
}

/// The values in steps of the quantum (whole numbers on a grid), in order.
#[inline(always)] // one caller: a stage of it, named
fn in_steps(p: &Prepared, step: f64, space: &Space) -> Result<Vec<f64>> {
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
        return Err(Error::NoData(Caveat::IntervalsTooLarge {
            largest: p.sorted[p.sorted.len() - 1],
        }));
    }
    Ok(u)
}

/// The steps every value on a grid is a whole multiple of (their exact GCD), 1 off a grid
/// or past doubles' whole numbers.
fn common_steps(u: &[f64], space: &Space) -> f64 {
    if !space.grid || u[u.len() - 1] >= (1u64 << 53) as f64 {
        return 1.0;
    }
    u.iter().fold(0, |g, &x| crate::clock::gcd(x as u64, g)) as f64
}

/// The estimate before any tick is judged: the quantum, what the values are, and the
/// smallest values and gaps (which are not the tick, and are shown as such).
#[inline(always)] // one caller: a stage of it, named
fn unanswered(p: &Prepared, u: &[f64], gaps: &[f64], quantum: Quantum) -> TickEstimate {
    let step = quantum.step();
    let smallest_diff_sort = if p.zeros > 0 {
        Some(gaps.first().map_or(u[0], |g| g.min(u[0])) * step)
    } else {
        gaps.first().map(|g| g * step)
    };
    TickEstimate {
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
        zeros: p.zeros,
        rejected: p.rejected,
        smallest_nonzero: u[0] * step,
        smallest_diff_sort,
        reliable: false,
        caveats: Vec::new(),
    }
}

/// One level: it is a multiple of the tick, nothing says which. On a grid the level is a
/// whole number of steps, not a mean's rounding of one; at one step, it is the data's own
/// precision (readings of an uptime printed to 10 ms, read every 10 ms).
#[inline(always)] // one caller: a stage of it, named
fn single_level(mut est: TickEstimate, u: &[f64], space: &Space) -> TickEstimate {
    let step = est.quantum.step();
    est.tick = if space.grid { u[0] } else { stats::mean(u) } * step;
    est.share_explained = 1.0;
    if space.grid && u[0] == 1.0 && est.quantum.is_precision() {
        est.caveats.push(Caveat::AtPrecision { precision: step });
        return est;
    }
    est.method = Method::Robust;
    est.caveats.push(Caveat::SingleLevel);
    est
}

/// The tick the search accepted: its uncertainty (the range of ticks that explain the
/// values as well, beats of it included), its exact form, and what it leaves unexplained.
fn found(
    est: &mut TickEstimate,
    f: &Found,
    u: &[f64],
    space: &Space,
    unit_s: Option<f64>,
    recorded: bool,
) {
    let step = est.quantum.step();
    let n = u.len() as u64;
    // Every tick between lo and hi explains the hits as well: the uncertainty is at least
    // the spread of that range (as a standard deviation, width/√12), however small the
    // least-squares error.
    let (lo, hi) = (f.score.lo, f.score.hi);
    let mut range = if lo <= f.tau && f.tau <= hi && hi.is_finite() {
        (hi - lo) / 12f64.sqrt()
    } else {
        0.0
    };
    // Values that span few multiples fit a beat of the tick as well (k ticks of τ are
    // k − 1 of τ·k/(k − 1)): when one does, the data cannot tell the two apart, and the
    // uncertainty spans both.
    let some = stats::decimate(u, 1 << 12);
    let k = rnd(some[some.len() / 2] / f.tau).max(1.0);
    let mut beats = Vec::new();
    let mut rivals = Vec::new();
    let own = level_evidence(&score(&some, f.tau, f.tol, space));
    for j in [-1.0, 1.0] {
        let b = f.tau * k / (k + j);
        // A beat chance alone would credit as much (1.67 steps on a grid of whole steps)
        // could never be a tick: it spans nothing.
        let s = score(&some, b, f.tol, space);
        if k + j >= 1.0 && s.chance <= MAX_CHANCE && s.share >= f.score.share - 2e-3 {
            range = range.max((b - f.tau).abs());
            beats.push(b * step);
            if rival(f.tau, b, own, level_evidence(&s)) {
                rivals.push(b * step);
            }
        }
    }
    if recorded && f.score.fitted {
        rivals.extend(
            walked_beats(f, k, &some, space)
                .into_iter()
                .map(|b| b * step),
        );
    }
    if !rivals.is_empty() {
        // Values piled near a few multiples of a period fit the period's divisors, a beat
        // apart, about as well: which is the clock's is not in them.
        est.tick = f.tau * step;
        est.uncertainty = f.se.max(range) * step;
        est.share_explained = f.score.share;
        est.chance = f.chance;
        est.method = Method::Ambiguous;
        est.reliable = false;
        rivals.insert(0, f.tau * step);
        est.caveats.push(Caveat::Ambiguous { ticks: rivals });
        return;
    }
    if !beats.is_empty() {
        est.caveats.push(Caveat::Beats { beats });
    }
    est.tick = f.tau * step;
    est.uncertainty = f.se.max(range) * step;
    est.share_explained = f.score.share;
    est.straddles = f.score.paired;
    est.chance = f.chance;
    est.method = Method::Robust;
    // Exact forms are held against a sample of the values, enough to tell shares apart by
    // a tenth of a percent.
    let some = stats::decimate(u, 1 << 16);
    let base = score(&some, f.tau, f.tol, space).share;
    est.exact = exact::snap(f.tau, f.se.max(range), step, unit_s, base, |t| {
        score(&some, t, f.tol, space).share
    });
    if let Some(e) = est.exact {
        est.tick = e.value();
    }
    if let Some((a, b)) = f.score.pair {
        est.caveats.push(Caveat::Straddles {
            share: f.score.paired,
            a: a * step,
            b: b * step,
        });
    }
    let missed = 1.0 - f.score.share - f.score.paired;
    if missed > 0.0 {
        est.caveats.push(Caveat::NotMultiples { share: missed });
    }
    if n < MIN_RELIABLE {
        est.caveats.push(Caveat::FewIntervals { intervals: n });
    }
    est.reliable = n >= MIN_RELIABLE;
}

/// Ticks further apart than this share are two answers, not one answer's uncertainty: half
/// the Rule of 100's 1 %.
pub(crate) const AMBIGUOUS_SPREAD: f64 = 0.005;

/// Whether the beat `b` of the tick `tau` is a rival to it: no divisor or multiple of it,
/// more than [`AMBIGUOUS_SPREAD`] away, its levels as far beyond chance as a tick's must
/// be, and the tick's own evidence not beyond it by as much again (ln, from
/// [`level_evidence`]).
fn rival(tau: f64, b: f64, own: f64, theirs: f64) -> bool {
    let r = (b / tau).max(tau / b);
    let whole = r.round() >= 2.0 && (r - r.round()).abs() < 0.01 * r;
    !whole && (r - 1.0) > AMBIGUOUS_SPREAD && theirs <= -LEVELS_LN && theirs - own < LEVELS_LN
}

/// No tick coarser than the quantum: "at most" the quantum, or where the search stopped
/// when that is coarser, or no step at all; and the best candidate that was not enough.
#[inline(always)] // one caller: a stage of it, named
/// Whether recorded values on a grid come four in a row a step apart (16.5 to 16.8 ms): one
/// level of a tick holds at most three (readings rounded before they were differenced, a
/// whole number of steps apart give or take doubles' noise: 9 999 999 to 10 000 001 ns of
/// a 41.667 ns counter), so no tick of more than a few steps holds them, and a coarser
/// tick that leaves them piled is no rival to the data's precision.
fn stepwise(u: &[f64], space: &Space, quantum: Quantum) -> bool {
    if !(space.grid && quantum.is_precision()) {
        return false;
    }
    let (mut last, mut run) = (f64::NAN, 0);
    for &x in u {
        let k = rnd(x);
        if k == last + 1.0 {
            run += 1;
            if run >= 4 {
                return true;
            }
        } else if k != last {
            run = 1;
        }
        last = k;
    }
    false
}

/// "At most the data's precision", which the values show.
fn precision_shown(est: &mut TickEstimate) {
    est.share_explained = 1.0;
    est.caveats.push(Caveat::AtPrecision {
        precision: est.quantum.step(),
    });
}

fn not_found(est: &mut TickEstimate, search: &Search, opts: &EstimatorOptions) {
    let (quantum, step) = (est.quantum, est.quantum.step());
    if let Some(b) = search.best.filter(|b| {
        opts.recorded()
            && quantum.is_precision()
            // Its own hits, not straddling pairs: 99 and 101 beside 100 are a spread.
            && b.score.share >= opts.min_share
            && b.chance <= 0.5
    }) {
        // A tick that explains nearly every recorded value, on too few levels to stand out
        // from chance (a 10 ms clock's 10 and 20 ms): "at most the precision" would deny
        // it, and nothing shows it is the clock's. Both are named.
        est.tick = b.tau * step;
        est.share_explained = b.score.share;
        est.chance = b.chance;
        est.method = Method::Ambiguous;
        est.caveats.push(Caveat::Ambiguous {
            ticks: vec![b.tau * step, step],
        });
        return;
    }
    est.share_explained = if quantum.on_grid() { 1.0 } else { 0.0 };
    let reached = search.down_to * step;
    if quantum.is_precision() && reached > 2.5 * step {
        // Ticks below the reach of the search are not ruled out: the bound is where the
        // search stopped, not the data's precision.
        est.tick = reached;
        est.caveats.push(Caveat::BelowReach {
            reached,
            precision: step,
        });
    } else if quantum.is_precision() {
        est.caveats.push(Caveat::AtPrecision { precision: step });
    } else {
        est.caveats.push(Caveat::NoStep);
    }
    if let Some(b) = search.best {
        est.caveats.push(Caveat::BestCandidate {
            tick: b.tau * step,
            explains: b.score.share + b.score.paired,
            chance: b.chance,
        });
    }
}

#[cfg(test)]
mod tests;
