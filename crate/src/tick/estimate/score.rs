//! Scoring a candidate tick: the share of intervals it explains, what chance would give at
//! the same tolerance, and whether the difference is evidence of a tick.

use super::*;

/// The accepted share of misses is at most this share of what chance leaves unexplained.
pub(super) const EFFECT: f64 = 0.25;

/// A tick that chance alone would credit with more than this share of values cannot be
/// told from none (2.05 steps on a grid explains 97% of random integers).
pub(super) const MAX_CHANCE: f64 = 0.85;

/// ln of the odds against a false tick, before the correction for the candidates tried.
pub(super) const LN_ODDS: f64 = 9.2; // 10^4

/// How far the explained levels must stand out from chance on their own: p ≤ 1%.
pub(super) const LEVELS_LN: f64 = 4.6;

/// Most distinct levels counted for that test.
pub(super) const LEVELS_COUNTED: u32 = 4096;

/// The tolerances of the search, in steps of the quantum.
pub(super) struct Space {
    /// Values are whole numbers of steps.
    pub(super) grid: bool,
    /// An interval may be off its multiple by less than this (one step, strictly, on a grid).
    pub(super) q_tol: f64,
    /// The relative tolerance for coarse clocks' jitter.
    pub(super) rel: f64,
    /// On a grid, the steps every value is a whole multiple of (4 when counts are all
    /// multiples of 4): the data's own grid, 1 when the quantum is all they share.
    pub(super) unit: f64,
}

impl Space {
    pub(super) fn loose(&self, tau: f64) -> f64 {
        self.q_tol.max(self.rel * tau)
    }

    /// The chance that a value near multiple `k` of `tau` lies within `tol` of it, were it
    /// anywhere nearby: on a grid, the grid points within `tol` of k·τ over those nearer k
    /// than any other multiple (a tick of 3 steps explains a third of the integers exactly,
    /// not two thirds; a tick a hair off 2 steps explains nearly all of them far out); off a
    /// grid, 2·tol/τ. A tick coarser than the values' own grid is held against that grid:
    /// of values that are all multiples of 4, a tick of 8 explains half by chance, not an
    /// eighth, while 4 itself stands out against the quantum.
    pub(super) fn chance_at(&self, tau: f64, tol: f64, k: f64) -> f64 {
        if 2.0 * tol >= tau {
            return 1.0;
        }
        if !self.grid {
            return 2.0 * tol / tau;
        }
        let g = if tau >= 1.5 * self.unit {
            self.unit
        } else {
            1.0
        };
        let (tau, tol) = (tau / g, tol / g);
        // The grid points within `tol` of k·τ, over those that round to k at all.
        let c = k * tau;
        let near = -flo(-(c + tol)) - flo(c - tol) - 1.0;
        let mapped = flo(c + 0.5 * tau) - flo(c - 0.5 * tau);
        // Past 2^53 steps the counts lose their units: never below nothing.
        (near / mapped.max(1.0)).clamp(0.0, 1.0)
    }

    /// The share of `values` chance would put within `tol` of a multiple of `tau`, each at
    /// the multiple it sits at: what the share explained must be held against.
    pub(super) fn chance(&self, tau: f64, tol: f64, values: &[f64]) -> f64 {
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
pub(super) struct Score {
    /// Share within tolerance of a multiple of at least 1.
    pub(super) share: f64,
    /// Share of the rest that pairs up into multiples (straddles).
    pub(super) paired: f64,
    /// The two residues of the pairs, in steps.
    pub(super) pair: Option<(f64, f64)>,
    /// Whether the hits lie on more than one multiple: values all at one level are a
    /// multiple of any of its divisors, so they show no tick.
    pub(super) levels: bool,
    /// Mean distance of the hits from their multiples, as a share of the tolerance (a half
    /// when they fill it evenly, near 0 when they sit on the multiples).
    pub(super) spread: f64,
    /// The ticks that would explain every hit as well: each hit x at multiple k allows
    /// (x − tol)/k to (x + tol)/k, and the tick lies where all of these meet.
    pub(super) lo: f64,
    pub(super) hi: f64,
    /// The share chance would explain at the same tolerance ([`Space::chance`]).
    pub(super) chance: f64,
    /// Distinct multiples (levels) the values sit at, how many of them the tick explains
    /// (most of their values within tolerance), and the mean chance at them: values
    /// repeated a thousand times, or piled within a period's jitter, are one piece of
    /// evidence, not a thousand.
    pub(super) distinct: u32,
    pub(super) distinct_hits: u32,
    pub(super) distinct_chance: f64,
    /// Whether the tick was fitted to the values (any tick off a grid, or a fraction of
    /// its steps on one): one of the levels it explains, it explains by being fitted.
    pub(super) fitted: bool,
}

impl Score {
    pub(super) fn effective(&self) -> f64 {
        self.share + self.paired
    }
}

/// Scores `tau` on sorted `u` with tolerance `tol`, looking for straddles among the misses.
pub(super) fn score(u: &[f64], tau: f64, tol: f64, space: &Space) -> Score {
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
    // The multiple being counted: its values, and how many of them it explains.
    let (mut level_k, mut level_n, mut level_hits) = (f64::NAN, 0u32, 0u32);
    let mut close_level = |k: f64, n: u32, h: u32| {
        if n > 0 && distinct < LEVELS_COUNTED {
            distinct += 1;
            distinct_chance += space.chance_at(tau, tol, k.max(1.0));
            // A multiple is explained when most of its values are: values piled near one
            // level are one draw of where that level lies, not one each.
            if k >= 1.0 && 2 * h > n {
                distinct_hits += 1;
            }
        }
    };
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
        if k != level_k {
            close_level(level_k, level_n, level_hits);
            (level_k, level_n, level_hits) = (k, 0, 0);
        }
        level_n += 1;
        if k >= 1.0 && r < tol {
            level_hits += 1;
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
    close_level(level_k, level_n, level_hits);
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
        fitted: !(space.grid && tau.fract() == 0.0),
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
pub(super) fn straddle_pair(
    residues: &[f64],
    tau: f64,
    space: &Space,
) -> Option<(usize, f64, f64)> {
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

/// ln of the chance of `share` or more hits in `n` tries at `p` each (Chernoff's bound).
pub(super) fn ln_tail(n: f64, share: f64, p: f64) -> f64 {
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

/// Whether a scored candidate is a tick: nearly every interval, on more than one multiple,
/// far beyond chance.
pub(super) fn ok(f: &Found, n: usize, threshold: f64, opts: &EstimatorOptions) -> bool {
    // Recorded values are read at moments of their own, never caught mid-step: values
    // that pair up around a multiple (99 and 101 beside 100) are a spread, not straddles.
    let s = if opts.recorded() {
        f.score.share
    } else {
        f.score.effective()
    };
    s >= opts.min_share
        && f.chance <= MAX_CHANCE
        && f.score.levels
        && (1.0 - s) <= EFFECT * (1.0 - f.chance)
        && ln_tail(n as f64, f.score.share, f.chance) <= -threshold
        && levels_stand_out(&f.score)
        && (!opts.recorded() || !f.score.fitted || fitted_levels_stand_out(&f.score, threshold))
}

/// Whether the levels a tick fitted to recorded values explains stand out even against
/// every candidate tried (`threshold` is ln of their number and [`LN_ODDS`]): a timer's
/// values pile on a dozen levels, each repeated hundreds of times, and among thousands of
/// fractional ticks some come near all twelve by chance (6.19 steps of 1 µs for a 5 µs
/// clock). A whole number of steps is one of few candidates, and is held to the levels'
/// test alone.
pub(super) fn fitted_levels_stand_out(s: &Score, threshold: f64) -> bool {
    s.distinct == 0 || level_evidence(s) <= -(threshold - LN_ODDS + LEVELS_LN)
}

/// Whether the levels a tick explains stand out from chance on their own (p ≤ 1%): eight
/// distinct whole milliseconds that a tick of 2.4 ms happens to come near are no evidence
/// of it, however often each was seen. Straddling levels count as explained.
pub(super) fn levels_stand_out(s: &Score) -> bool {
    s.distinct == 0 || level_evidence(s) <= -LEVELS_LN
}

/// ln of the chance that the levels a tick explains would be explained by chance: the more
/// negative, the stronger the evidence of the tick.
pub(super) fn level_evidence(s: &Score) -> f64 {
    if s.distinct == 0 {
        return 0.0;
    }
    let l = f64::from(s.distinct);
    let hits = (f64::from(s.distinct_hits) + s.paired * l).min(l);
    // A fitted tick explains the level it was fitted to whatever the values are: that one
    // is no evidence. A whole number of steps is no fit: it divides a level or it does not.
    let free = if s.fitted && hits >= 1.0 { 1.0 } else { 0.0 };
    if l - free <= 0.0 {
        return 0.0;
    }
    ln_tail(l - free, (hits - free) / (l - free), s.distinct_chance)
}
