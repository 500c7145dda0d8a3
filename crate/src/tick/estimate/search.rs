//! The candidate search: bases from the smallest values and steps, each climbed on a ladder
//! of values into a survivor; small ticks scanned directly.

use super::*;

/// Bases taken from the smallest values and from the smallest diff(sort()) steps.
pub(super) const BASES: usize = 6;

/// Values the candidates are scored on; the chosen one is then checked on all.
pub(super) const SCORE_SAMPLE: usize = 4096;

/// Most candidates scored in full, largest first.
pub(super) const MAX_SCORED: usize = 768;

/// Most survivors of the ladder kept from one base, largest first.
pub(super) const PER_BASE_SURVIVORS: usize = 64;

/// Most candidates tried on the ladder, over all bases: many for a few values (a hundred
/// timings of a millisecond may hide a 10 ns tick, 10^5 of them in each), fewer for a
/// million, whose sorting and scoring take the time.
pub(super) fn max_candidates(n: usize) -> usize {
    if n <= 100_000 {
        4_000_000
    } else {
        400_000
    }
}

/// A candidate that passed the ladder.
#[derive(Clone, Copy, Debug)]
pub(super) struct Survivor {
    pub(super) tau: f64,
    /// About one standard error of `tau`.
    pub(super) delta: f64,
    /// For a tick of a few steps, the range every tick in which explains the small values:
    /// searched on all values instead of refined.
    pub(super) range: Option<(f64, f64)>,
}

impl Survivor {
    /// Largest tick first; one comparator for both sorts, so one copy of the sort.
    /// Largest tick first (through the one stable sort: no sort code of its own).
    pub(super) fn by_tau_descending(v: Vec<Self>) -> Vec<Self> {
        crate::stats::stable_by_key(v, |s| -s.tau)
    }
}

/// The accepted tick.
#[derive(Clone, Copy, Debug)]
pub(super) struct Found {
    pub(super) tau: f64,
    pub(super) se: f64,
    pub(super) tol: f64,
    pub(super) score: Score,
    pub(super) chance: f64,
}

pub(super) struct Search {
    pub(super) found: Option<Found>,
    /// The best candidate that was not enough, for the caveat.
    pub(super) best: Option<Found>,
    /// The smallest candidate tried from a base among the values: below it, ticks were not
    /// ruled out.
    pub(super) down_to: f64,
    /// ln of the odds a tick must beat: the candidates tried and [`LN_ODDS`].
    pub(super) threshold: f64,
}

/// Values the ladder climbs: the median of each band of 15% that holds a fair share of the
/// values (so a few scattered outliers do not crowd the low rungs), and values spread over
/// the whole range, so ticks are tried on every scale.
pub(super) fn ladder(s: &[f64]) -> Vec<f64> {
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
pub(super) fn climb(b: f64, k: f64, ladder: &[f64], space: &Space) -> Option<Survivor> {
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

/// Most values for which the median is a base too: many values make a dense ladder from
/// the smallest, and each base of full reach costs a million candidates.
pub(super) const FEW_VALUES: usize = 100_000;

/// A ratio between neighbouring sorted values past which the larger is a base of its own.
pub(super) const SCALE_JUMP: f64 = 8.0;

/// The bases candidates are divided from: the smallest values and the smallest steps of
/// diff(sort()), each cluster of nearly equal ones taken once.
/// The smallest value, the most frequent one, the feet of jumps and the median come first:
/// they are divided all the way down to two quanta, the others as far as the budget allows.
pub(super) fn bases(u: &[f64], gaps: &[f64], space: &Space) -> (Vec<f64>, usize) {
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
pub(super) fn full_reach(n: usize) -> usize {
    if n <= 100_000 {
        1 << 20
    } else {
        1 << 19
    }
}

/// The candidates that climbed, how many were tried, and how far down they reached.
struct Climbed {
    survivors: Vec<Survivor>,
    tried: usize,
    down_to: f64,
}

/// The candidates from each base, divided down to two quanta (the first bases) or as far as
/// the budget allows, that pass a cheap first test and climb the ladder `steps`.
fn from_bases(
    u: &[f64],
    gaps: &[f64],
    space: &Space,
    opts: &EstimatorOptions,
    steps: &[f64],
) -> Climbed {
    let min_tau = 2.0 * space.q_tol;
    let (bases, full) = bases(u, gaps, space);
    let mut out = Climbed {
        survivors: Vec::new(),
        tried: 0,
        down_to: f64::INFINITY,
    };
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
            out.down_to = out.down_to.min(b / kmax as f64);
        }
        // With many values the ladder's rungs are medians, seldom outliers: all three
        // must sit on a multiple, and far fewer candidates climb.
        let slack = usize::from(u.len() <= 100_000);
        out.tried += from_base(b, kmax, slack, steps, space, &mut out.survivors);
    }
    out
}

/// The candidates b/k for k up to `kmax` that climb from base `b`, into `survivors`; how
/// many were tried.
fn from_base(
    b: f64,
    kmax: usize,
    slack: usize,
    steps: &[f64],
    space: &Space,
    survivors: &mut Vec<Survivor>,
) -> usize {
    // A cheap first test before the climb: two of the next three values of the ladder
    // above the base must sit on a multiple (most candidates fail it; one outlier among
    // them does not fail the right one).
    let above: Vec<f64> = steps
        .iter()
        .copied()
        .filter(|&x| x > b * (1.0 + 1e-9))
        .take(3)
        .collect();
    let below = steps.partition_point(|&x| x < b * (1.0 - 1e-9));
    // Past a few dozen survivors a base only yields divisors of those already found.
    let mut kept = 0;
    let mut tried = 0;
    // In units of τ = b/k, a value x sits at k·x/b and its window is t/τ·(1 + 2x/b): no
    // division in the loop over k.
    let inv_b = 1.0 / b;
    let ratios: Vec<f64> = above.iter().map(|&x| x * inv_b).collect();
    for k in 1..=kmax {
        if kept >= PER_BASE_SURVIVORS {
            break;
        }
        tried += 1;
        let k = k as f64;
        let t_over_tau = (space.q_tol * k * inv_b).max(space.rel);
        // A value whose window spans half a tick cannot test anything: with nothing below
        // the base to climb on, such a candidate could never survive.
        let on = ratios
            .iter()
            .filter(|&&r| {
                let y = k * r;
                let lim = t_over_tau * (1.0 + 2.0 * r);
                (lim < 0.45 || below >= 3) && (y - rnd(y)).abs() < lim
            })
            .count();
        if on + slack >= ratios.len() {
            if let Some(s) = climb(b, k, steps, space) {
                survivors.push(s);
                kept += 1;
            }
        }
    }
    tried
}

/// Climbers that reached the same tick, once (the most precise: a rough climb from short
/// values must not stand for a fine one from long values that reached the same tick); and
/// on a grid, the GCD of every value as one more candidate. Largest first.
fn merged(survivors: Vec<Survivor>, u: &[f64], space: &Space, grid: bool) -> Vec<Survivor> {
    let mut survivors = Survivor::by_tau_descending(survivors);
    survivors.dedup_by(|a, b| {
        let same = (a.tau - b.tau).abs() <= 3.0 * a.delta.max(b.delta) + 1e-12;
        if same && a.delta < b.delta {
            *b = *a;
        }
        same
    });
    if grid && space.grid && u[u.len() - 1] < 9e15 {
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
    Survivor::by_tau_descending(survivors)
}

/// Searches for the tick of the sorted values `u` (their gaps `gaps`): candidates divided
/// from bases climb the ladder of the values, those that reach the same tick are merged,
/// and the best that stands out from chance is checked on every value. With `only`, those
/// candidates alone are scored.
pub(super) fn search(
    u: &[f64],
    gaps: &[f64],
    space: &Space,
    opts: &EstimatorOptions,
    only: Option<&[f64]>,
) -> Search {
    let sample = stats::decimate(u, SCORE_SAMPLE);
    let steps = ladder(&sample);
    let min_tau = 2.0 * space.q_tol;
    let climbed = match only {
        None => from_bases(u, gaps, space, opts, &steps),
        Some(only) => Climbed {
            survivors: only
                .iter()
                .map(|&tau| Survivor {
                    tau,
                    delta: 0.0,
                    range: None,
                })
                .collect(),
            tried: only.len().saturating_sub(1),
            down_to: f64::INFINITY,
        },
    };
    let mut tried = climbed.tried;
    let survivors = merged(climbed.survivors, u, space, only.is_none());
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
    let found = match found {
        Some(f) if opts.recorded() => Some(finer_grids(u, f, space, opts, threshold)),
        f => f,
    };
    if found.is_some() {
        best = None;
    }
    Search {
        found,
        threshold,
        best: best.filter(|b| b.score.effective() > b.chance),
        down_to: if climbed.down_to.is_finite() {
            climbed.down_to
        } else {
            min_tau
        },
    }
}

/// Most divisors of a tick tried as the grid of the values it leaves unexplained.
pub(super) const FINER_DIVISORS: usize = 4096;

/// Fewest values a tick leaves unexplained that can show a finer grid.
pub(super) const FINER_FEWEST: usize = 3;

/// The tick of recorded values, once no finer grid holds what it leaves unexplained: a
/// 100 ms timer read on 10 ms piles at 100 ms with a few at 90 and 110, which 100 ms
/// misses and 10 ms explains. Each divisor τ/m (at least two quanta) is held against the
/// misses at the quantum alone; the coarsest that explains at least half of them far
/// beyond chance, and then all values well enough to be a tick, replaces τ.
fn finer_grids(
    u: &[f64],
    mut f: Found,
    space: &Space,
    opts: &EstimatorOptions,
    threshold: f64,
) -> Found {
    // Half a step on a grid: a value one step off a multiple (a reading that moved by its
    // rounding) sits at the tolerance's edge, where float error in k·τ/m decides.
    let tight = if space.grid { 0.5 } else { space.q_tol };
    // A grid inside a grid: at most a few rounds (100 ms, 10 ms, 1 ms).
    for _ in 0..4 {
        let misses: Vec<f64> = u
            .iter()
            .copied()
            .filter(|&x| {
                let k = rnd(x / f.tau);
                k < 1.0 || (x - k * f.tau).abs() >= f.tol
            })
            .collect();
        if misses.len() < FINER_FEWEST {
            break;
        }
        let misses = stats::decimate(&misses, 256);
        let n = misses.len() as f64;
        let most = ((f.tau / (2.0 * tight)).floor() as usize).min(FINER_DIVISORS);
        let bar = threshold + (most.max(2) as f64).ln();
        // The coarsest divisor that explains the misses and stands as a tick: a divisor near
        // it may explain most misses by their closeness alone (100/23 ms for 96 and 104
        // beside 100, under a 4 ms clock) and fall short on all values.
        let finer = (2..=most).find_map(|m| {
            let t = f.tau / m as f64;
            let (mut hits, mut chance) = (0usize, 0.0);
            for &x in &misses {
                let k = rnd(x / t).max(1.0);
                chance += space.chance_at(t, tight, k);
                if (x - k * t).abs() < tight {
                    hits += 1;
                }
            }
            let share = hits as f64 / n;
            if !(hits >= FINER_FEWEST
                && 2 * hits >= misses.len()
                && ln_tail(n, share, chance / n) <= -bar)
            {
                return None;
            }
            let score = score(u, t, space.q_tol, space);
            let finer = Found {
                tau: t,
                se: f.se * t / f.tau,
                tol: space.q_tol,
                score,
                chance: score.chance,
            };
            ok(&finer, u.len(), threshold, opts).then_some(finer)
        });
        let Some(finer) = finer else { break };
        f = finer;
    }
    f
}

/// The ticks scanned for among the smallest values, in steps.
pub(super) const SMALL_TICKS: (f64, f64) = (2.0, 8.0);

/// Fewest of the smallest values, and most distinct ones, a tick of a few steps is scanned
/// for in.
pub(super) const SMALL: (usize, usize) = (16, 96);

/// Most ticks of a few steps passed on from the scan.
pub(super) const SMALL_KEPT: usize = 16;

/// Largest value, in steps, the scan for ticks of a few steps looks at.
pub(super) const SMALL_TOP: f64 = 2048.0;

/// Ticks of 2 to 8 steps on a grid that are not whole numbers of steps: no single value
/// predicts another well enough to climb on (the window around a multiple is most of a
/// tick), so they are scanned for among the smallest values, where their multiples are
/// still few, finely enough that no multiple there moves by a quarter of a step. Those
/// that explain nearly all of those values go on to be searched on all of them.
/// Returns them and the ticks scanned.
pub(super) fn small_ticks(u: &[f64], space: &Space) -> (Vec<Survivor>, usize) {
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
    // By the first ascending, then the second descending: two stable sorts, the last
    // deciding (the page's one sort, no code of their own).
    let mut plateaus = crate::stats::stable_by_key(plateaus, |p| -p.1);
    plateaus = crate::stats::stable_by_key(plateaus, |p| p.0);
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
