//! Recorded values (a file's timer firings, frames, loops: moments the lab did not choose)
//! pile near a period's multiples, and a period read by a fine clock looks like a coarse
//! clock: what a tick must show in them beyond explaining them.

use super::levels::{fitting_tick, past_chance, Fit, FIT_LEVELS, TWICE_ROUNDED};
use super::*;

/// A value within this share of one on a multiple is in its pile: a timer's firings,
/// spread by their lateness, stay within one.
pub(super) const PILE_GAP: f64 = 0.05;

/// A level far from the others holding under this share of the most populated one's
/// values is a stray outlier's.
const STRAY: usize = 20;

/// Largest numerator and denominator of the ratios that make a level a harmonic of the
/// most populated one: a period's double, half, triple, two thirds, and a double's double.
const HARMONIC: u32 = 4;

/// Whether recorded values stand on the tick's grid beyond what a period's multiples give.
/// The most populated multiple may sit where it does by fitting, and its harmonics (half,
/// double, three halves of it: a dropped frame, an extra firing) come with it; every
/// further multiple the values occupy, and every value beside a multiple that is on none,
/// is a draw that lands on the grid only by the chance a finer clock would give (16.6 and
/// 16.7 ms of 100 µs; 996, 1000 and 1004 ms of 4 ms; 0.1 to 0.9 ms of 100 µs). Multiples
/// of a period alone (1000 ms and its half, 500) have no such draws: a clock as fine as
/// the data's precision reading events of that period gives the same levels. Beside a
/// timer's pile the finer clock that matters is one of half the tick, whatever the data's
/// precision. Draws must nearly all hit (a tick misses none of its own values), and stand
/// out as the levels' do, p ≤ 1%, and for a tick fitted to the values against every
/// candidate tried too (`threshold`): among millions of fractional ticks, some meet three
/// stray outliers.
pub(super) fn steps_inside_piles(
    u: &[f64],
    f: &Found,
    space: &Space,
    threshold: f64,
    min_share: f64,
) -> bool {
    // The multiples the values are on, with their counts, and the values on none.
    let mut levels: Vec<(f64, usize)> = Vec::new();
    let mut off: Vec<f64> = Vec::new();
    let mut off_values = 0usize;
    for &x in u {
        let k = rnd(x / f.tau);
        if k >= 1.0 && (x - k * f.tau).abs() < f.tol {
            match levels.last_mut() {
                Some((lk, n)) if *lk == k => *n += 1,
                _ => levels.push((k, 1)),
            }
        } else {
            off_values += 1;
            if off.last() != Some(&x) {
                off.push(x);
            }
        }
    }
    let Some(&(main, _)) = levels.iter().max_by_key(|l| l.1) else {
        return false;
    };
    let harmonic = |k: f64| {
        (1..=HARMONIC).any(|p| (1..=HARMONIC).any(|q| k * f64::from(q) == main * f64::from(p)))
    };
    // A level far from every other and thin beside the most populated (a stray outlier
    // that happens to sit on a multiple) is as free for a fitted tick as the level it was
    // fitted to: no draw. For a whole number of steps it is one, and so is every value off
    // the grid. Levels of durations of every size are each a draw.
    let most = levels.iter().map(|l| l.1).max().unwrap_or(0);
    let in_pile = |i: usize| {
        let k = levels[i].0;
        [i.checked_sub(1), Some(i + 1)]
            .into_iter()
            .flatten()
            .filter_map(|j| levels.get(j))
            .any(|l| (l.0 - k).abs() <= 2.0 || (l.0 - k).abs() <= PILE_GAP * k)
    };
    let stray = |i: usize| levels[i].1 * STRAY <= most && !in_pile(i);
    // A clock of half the tick puts a value on the tick's multiples half the time, however
    // fine the data's precision (a 10 ms clock's 520 ms is on 40 ms's grid by a chance of
    // one in four): beside a timer's pile, every draw is at that chance. Inside a pile
    // spread over several multiples such a clock would fill the halves between them: there
    // each value is a draw, up to [`PILE_WEIGHT`] a level. Levels of durations of every
    // size, with no pile among them, keep the data's chance.
    let half = if f.tau >= 2.0 && most >= STRAY {
        0.5
    } else {
        0.0
    };
    let at = |k: f64| space.chance_at(f.tau, f.tol, k).max(half);
    let (mut draws, mut hits, mut chance) = (0usize, 0usize, 0.0);
    // The values on those levels: what the share of misses is held against.
    let mut hit_values = 0usize;
    for (i, &(k, n)) in levels.iter().enumerate() {
        if k != main && !harmonic(k) && (!f.score.fitted || !stray(i)) {
            let w = if in_pile(i) { n.min(PILE_WEIGHT) } else { 1 };
            draws += w;
            hits += w;
            hit_values += n;
            chance += w as f64 * at(k);
        }
    }
    // Values beside a populated multiple but on none: draws that missed.
    let near = |x: f64| {
        let at = levels.partition_point(|l| l.0 * f.tau < x);
        [at.checked_sub(1), Some(at)]
            .into_iter()
            .flatten()
            .filter_map(|i| levels.get(i))
            .any(|l| (x - l.0 * f.tau).abs() <= PILE_GAP * x)
    };
    for &x in &off {
        if near(x) || !f.score.fitted {
            draws += 1;
            chance += at(rnd(x / f.tau).max(1.0));
        }
    }
    if draws == 0 {
        return false;
    }
    let bar = if f.score.fitted {
        threshold - LN_ODDS + LEVELS_LN
    } else {
        LEVELS_LN
    };
    let share = hits as f64 / draws as f64;
    // The clock's tick misses no draw but by an outlier of its own: draws that miss as
    // often as they hit are a finer clock's (6 of 11 strays of a 10 ms clock on 20 ms).
    // Counted in values, the misses are the outliers the tick is allowed anywhere: 3 % of
    // a counter's values at random beside levels of a hundred each are not a finer clock.
    let in_values = hit_values as f64 / (hit_values + off_values).max(1) as f64;
    if share < min_share && !(f.score.share >= min_share && in_values >= min_share) {
        return false;
    }
    ln_tail(draws as f64, share, chance / draws as f64) <= -bar
}

/// Most values of one level counted as draws inside a pile.
const PILE_WEIGHT: usize = 8;

/// A tick whose recorded values pile on its multiples without stepping by it inside a pile:
/// it and `other` (the data's precision, or a multiple of it) explain them alike, so no tick
/// is given.
pub(super) fn piled(est: &mut TickEstimate, f: &Found, other: f64) {
    let step = est.quantum.step();
    est.tick = f.tau * step;
    est.uncertainty = f.se * step;
    est.share_explained = f.score.share;
    est.chance = f.chance;
    est.method = Method::Ambiguous;
    est.reliable = false;
    est.caveats.push(Caveat::Ambiguous {
        ticks: if other > f.tau {
            vec![other * step, f.tau * step]
        } else {
            vec![f.tau * step, other * step]
        },
    });
}

/// Recorded values piled near a few multiples fit every beat of a fitted tick their steps
/// inside a pile allow (1000 ms as 250 ticks of 4 ms or 244 of 4.098): the farthest beats
/// on each side that fit as well, however many, when they are more than twice
/// [`AMBIGUOUS_SPREAD`] apart. (A whole number of steps is no fit: its beats are, and need
/// more evidence than it.) `k` is the multiple the values' median sits at.
pub(super) fn walked_beats(f: &Found, k: f64, some: &[f64], space: &Space) -> Vec<f64> {
    let whole = |b: f64| {
        let r = (b / f.tau).max(f.tau / b);
        r.round() >= 2.0 && (r - r.round()).abs() < 0.01 * r
    };
    let mut far = [f.tau, f.tau];
    for (side, dir) in [-1.0, 1.0].into_iter().enumerate() {
        for j in 2..=BEATS_WALKED {
            let kj = k + dir * f64::from(j);
            if kj < 1.0 {
                break;
            }
            let b = f.tau * k / kj;
            if whole(b) {
                continue;
            }
            let s = score(some, b, f.tol, space);
            if !(s.chance <= MAX_CHANCE && s.share >= f.score.share - 2e-3) {
                break;
            }
            far[side] = b;
        }
    }
    if (far[0] - far[1]).abs() / f.tau > 2.0 * AMBIGUOUS_SPREAD {
        far.into_iter().filter(|&b| b != f.tau).collect()
    } else {
        Vec::new()
    }
}

/// Most beats of a tick walked on each side, for recorded values.
const BEATS_WALKED: u32 = 64;

/// When recorded values are too many ticks long for the search to reach their tick (a
/// 10.015 ns counter's 100 ms intervals: ten million ticks each), or lie on no grid, the
/// differences between the values inside each pile are short multiples of it: the tick is
/// theirs. Whole steps are told exactly; a tick of no whole number of steps to two steps
/// (each value is off its multiple by under one). `e` is the estimate so far, returned
/// unchanged when the differences tell nothing more.
pub(super) fn from_piles(
    p: &Prepared,
    quantum: Quantum,
    unit_s: Option<f64>,
    opts: &EstimatorOptions,
    e: TickEstimate,
) -> Result<TickEstimate> {
    if !opts.recorded() || !matches!(e.method, Method::Precision | Method::NoTick) {
        return Ok(e);
    }
    let d = differences_inside_piles(&p.sorted);
    if d.len() < PILE_DIFFERENCES {
        return Ok(e);
    }
    let inner = EstimatorOptions {
        recorded: false,
        ..opts.clone()
    };
    let diffs = Prepared::new(&d)?;
    let step = quantum.step();
    let exact = if quantum.on_grid() {
        Some(estimate_prepared(&diffs, quantum, unit_s, &inner, None)?)
    } else {
        None
    };
    // A tick of a few steps, which chance puts near most differences, is chance's.
    let good = |t: &TickEstimate| t.found() && t.chance <= 0.5;
    // On the grid, whole steps only: they divide the differences exactly, where a fraction
    // of steps meets each within a step, as it would the noise of two roundings.
    let whole = |t: &TickEstimate| (t.tick / step - (t.tick / step).round()).abs() < 1e-6;
    // A step under doubles' noise (2e-6 ns among values of 1e8 ns) is that noise.
    let largest = p.sorted[p.sorted.len() - 1];
    let noise = |t: &TickEstimate| t.tick <= FLOAT_NOISE * largest;
    let told = match exact {
        Some(x) if good(&x) && whole(&x) && !noise(&x) => x,
        _ => {
            let two = estimate_prepared(
                &diffs,
                Quantum::Spacing { step: 2.0 * step },
                unit_s,
                &inner,
                None,
            )?;
            // Differences of two and three steps inside piles: a tick of several steps,
            // whole or not, leaves values at one multiple one step apart at most (a
            // rounded reading moves by one step), and the next multiple several away.
            let steps = |n: f64| {
                d.iter()
                    // Differences of values near 33 ms carry their doubles' noise,
                    // far under a step.
                    .filter(|&&x| (x - n * step).abs() <= 0.01 * step)
                    .count()
            };
            // Steps under doubles' noise are that noise, not a clock's.
            let fine = step > FLOAT_NOISE * largest && steps(2.0) >= 3 && steps(3.0) >= 3;
            match exact {
                _ if good(&two) && !noise(&two) => two,
                // Nothing coarser than one step divides the differences, and values two
                // and three steps apart inside piles show a tick of about one step: the
                // values' own precision is the bound, not where the search stopped.
                Some(x) if fine && at_precision(&x.caveats, step) => {
                    let mut out = e;
                    out.tick = step;
                    out.caveats
                        .retain(|c| !matches!(c, Caveat::BelowReach { .. }));
                    if !at_precision(&out.caveats, step) {
                        out.caveats
                            .insert(0, Caveat::AtPrecision { precision: step });
                    }
                    out.caveats.push(Caveat::InsidePiles {
                        differences: d.len() as u64,
                    });
                    return Ok(out);
                }
                _ => return Ok(e),
            }
        }
    };
    Ok(TickEstimate {
        intervals: e.intervals,
        zeros: e.zeros,
        rejected: e.rejected,
        smallest_nonzero: e.smallest_nonzero,
        smallest_diff_sort: e.smallest_diff_sort,
        quantum: e.quantum,
        caveats: told
            .caveats
            .into_iter()
            .chain([Caveat::InsidePiles {
                differences: d.len() as u64,
            }])
            .collect(),
        ..told
    })
}

/// A bound on recorded values is only as sound as their closest values. Two values on
/// different multiples of a tick lie at least a tick apart, less the readings' rounding (a
/// step when each reading was rounded to the step before they were differenced: a 10.015
/// ns counter read in whole ns gives 999 707 and 999 708 ns for one multiple). A search
/// that meets no tick says nothing of a fractional one that the values hold a million
/// times, nor of any tick when the values sit on a few levels; so "at most the precision"
/// (or the search's reach) stands only where values come closer: three in a row a step
/// apart, one step apart with two or three steps apart beside, or one step apart with no
/// wider gap. Otherwise the bound
/// is the closest values' gap, plus two steps of rounding when values one step apart show
/// it. `e` is returned unchanged when its bound stands.
pub(super) fn closest_values(
    p: &Prepared,
    quantum: Quantum,
    unit_s: Option<f64>,
    opts: &EstimatorOptions,
    mut e: TickEstimate,
) -> TickEstimate {
    let step = quantum.step();
    if opts.recorded() && !quantum.is_precision() && e.method == Method::NoTick {
        return on_no_step(p, quantum, unit_s, opts, e);
    }
    // A tick explaining nearly every value on too few levels, named beside the precision
    // (a timer's period, its odd intervals elsewhere): every level decides between them.
    let named = e.method == Method::Ambiguous
        && matches!(e.caveats.last(), Some(Caveat::Ambiguous { ticks })
            if matches!(ticks[..], [_, s] if s == step));
    if !opts.recorded() || !(e.method == Method::Precision || named) || !quantum.is_precision() {
        return e;
    }
    let k = levels(p, step);
    let Gaps {
        ones,
        twos,
        threes,
        runs,
        wider,
    } = gaps(&k);
    let Some(&least) = k.first() else {
        return e;
    };
    let proven = if ones == 0 {
        // Every value two steps or more from the next: a tick of that gap fits them all,
        // and one of the smallest value (a single level) too.
        wider.min(least)
    } else if runs > 0 || twos > 0 || threes > 0 || wider.is_infinite() {
        // Values a step apart show the precision: only a bound where a search stopped
        // (above it) is left to try.
        if e.tick <= step * (1.0 + 1e-9) {
            return e;
        }
        f64::NAN
    } else {
        // One step apart, then nothing closer than `wider`: the ones are a multiple's
        // rounding, the next multiple `wider` on, give or take a step each side.
        wider + 2.0
    };
    // Every tick up to the bound, tried on every level: one that fits them all past chance
    // is the tick. None from two steps up (values rounded once) nor from
    // [`TWICE_ROUNDED`] steps (rounded twice) leaves the precision standing: a clock under
    // those passes for the precision, as it does beside values a step apart (a clock under
    // two steps puts its own multiples a step apart), and a few levels fit one by chance;
    // past them, a 10.015 ns counter read in whole ns would.
    let bound = e.tick / step;
    // Whether the closest values raise the bound.
    let raises = !named && proven.is_finite() && proven > bound * (1.0 + 1e-9);
    // Doubles' noise, in steps, where the digits go finer (a 10.015 ns counter's 33 ms
    // written to 1e-6 ns, from readings of 30 s: one multiple's values 4 steps apart);
    // ticks under three of it fit any level.
    let noise = FLOAT_NOISE * k[k.len() - 1];
    let from = past_chance(&k).max(3.0 * (1.0 + noise));
    // A named tick is tried as any other, up to the closest values where they show a bound;
    // two multiples read twice rounded come closer by two steps (10.015 apart as 8).
    let hi = 2.0
        + match proven.is_finite() {
            true if named => proven,
            true => proven.max(bound),
            false => bound,
        };
    let fit = if k.len() >= FIT_LEVELS {
        fitting_tick(&k, from, hi, 1.0, FLOAT_NOISE)
    } else {
        Fit::Unknown
    };
    match fit {
        Fit::Tick(t) => {
            if let Ok(f) = estimate_prepared(p, quantum, unit_s, opts, Some(&[t * step])) {
                if f.reliable {
                    return f;
                }
            }
        }
        // No coarser tick up to the bound fits: the precision stands, wherever a search
        // or the values' differences stopped.
        Fit::None
            if (from <= TWICE_ROUNDED
                || matches!(
                    fitting_tick(&k, TWICE_ROUNDED, from, 1.0, FLOAT_NOISE),
                    Fit::None
                ))
                && matches!(fitting_tick(&k, 2.0, hi, 0.5, 0.0), Fit::None) =>
        {
            return precision_stands(e, step);
        }
        Fit::None if !raises => return e,
        _ => {}
    }
    if !raises {
        return e;
    }
    e.tick = proven * step;
    e.caveats.retain(|c| {
        !matches!(
            c,
            Caveat::AtPrecision { .. } | Caveat::BelowReach { .. } | Caveat::InsidePiles { .. }
        )
    });
    e.caveats.insert(
        0,
        Caveat::ClosestValues {
            closest: proven * step,
            precision: step,
        },
    );
    e
}

/// The distinct values in whole steps. Values closer than doubles' noise are one value
/// (differences of readings near 20 s, written to 1e-6 ns, differ by 4e-6 ns for one
/// multiple).
fn levels(p: &Prepared, step: f64) -> Vec<f64> {
    let mut k: Vec<f64> = Vec::new();
    for &x in &p.sorted {
        let at = (x / step).round();
        match k.last() {
            Some(&last) if (at - last) * step <= FLOAT_NOISE * x => {}
            _ => k.push(at),
        }
    }
    k
}

/// `e` at most the precision `step`, a named tick beside it or a search's reach given up.
fn precision_stands(mut e: TickEstimate, step: f64) -> TickEstimate {
    if e.method == Method::Ambiguous {
        e.method = Method::Precision;
        (e.uncertainty, e.share_explained, e.chance) = (0.0, 1.0, 1.0);
    }
    e.tick = step;
    e.caveats.retain(|c| {
        !matches!(
            c,
            Caveat::BelowReach { .. } | Caveat::InsidePiles { .. } | Caveat::Ambiguous { .. }
        )
    });
    if !at_precision(&e.caveats, step) {
        e.caveats.insert(0, Caveat::AtPrecision { precision: step });
    }
    e
}

/// Doubles at full precision lie on no step of the data's own, and a search of steps
/// stops far above a fine clock's in long values (a 10.015 ns counter's seconds, as
/// doubles since its program began: 1 000 034 404.90 ns). Each of their levels still lies
/// within the doubles' noise of a multiple of the tick: every tick from where chance stops
/// up to the closest levels is tried on every level.
fn on_no_step(
    p: &Prepared,
    quantum: Quantum,
    unit_s: Option<f64>,
    opts: &EstimatorOptions,
    e: TickEstimate,
) -> TickEstimate {
    let noise = quantum.step();
    // Levels in the noise's units; one multiple's values lie within two of each other.
    let mut k: Vec<f64> = Vec::new();
    for &x in &p.sorted {
        match k.last() {
            Some(&l) if x / noise - l <= 2.0 => {}
            _ => k.push(x / noise),
        }
    }
    let closest = k
        .windows(2)
        .map(|w| w[1] - w[0])
        .fold(f64::INFINITY, f64::min);
    if k.len() < FIT_LEVELS {
        return e;
    }
    match fitting_tick(&k, past_chance(&k), closest + 2.0, 1.0, 0.0) {
        Fit::Tick(t) => estimate_prepared(p, quantum, unit_s, opts, Some(&[t * noise]))
            .ok()
            .filter(|f| f.reliable)
            .unwrap_or(e),
        _ => e,
    }
}

/// Gaps between neighbouring distinct values, in steps.
struct Gaps {
    ones: usize,
    twos: usize,
    threes: usize,
    /// Runs of three values a step apart (99, 100 and 101 ms): more than one multiple's
    /// rounding gives.
    runs: usize,
    /// The smallest gap of two steps or more.
    wider: f64,
}

fn gaps(k: &[f64]) -> Gaps {
    let mut g = Gaps {
        ones: 0,
        twos: 0,
        threes: 0,
        runs: 0,
        wider: f64::INFINITY,
    };
    let mut last = 0.0;
    for w in k.windows(2) {
        let d = w[1] - w[0];
        if d == 1.0 && last == 1.0 {
            g.runs += 1;
        }
        last = d;
        match d {
            1.0 => g.ones += 1,
            2.0 => g.twos += 1,
            3.0 => g.threes += 1,
            _ => {}
        }
        if d >= 2.0 {
            g.wider = g.wider.min(d);
        }
    }
    g
}

/// Whether `caveats` say the tick is at most the precision `step`.
fn at_precision(caveats: &[Caveat], step: f64) -> bool {
    caveats
        .iter()
        .any(|c| matches!(c, Caveat::AtPrecision { precision } if *precision == step))
}

/// Differences of doubles carry the noise of a double's rounding (2.2e-16 of the readings'
/// size), and readings may be a million times the intervals (a second's intervals read by
/// a clock started eleven days before): steps finer than this share of a value are no
/// clock's. Allowing more (1e-9) let 5 ns ticks fit a 1 ns clock's 38 seconds by chance.
pub(crate) const FLOAT_NOISE: f64 = 2.5e-10;

/// The largest multiple of a tick found in recorded values that explains every level the
/// tick does, when they are three or more: the tick is the largest that divides them (a
/// 52.083 ns counter's values are multiples of 5/12 ns too).
pub(super) fn larger_multiple(u: &[f64], f: &Found) -> Option<f64> {
    let hit = |t: f64, x: f64| {
        let k = rnd(x / t);
        k >= 1.0 && (x - k * t).abs() < f.tol
    };
    let mut own: Vec<f64> = u.iter().copied().filter(|&x| hit(f.tau, x)).collect();
    own.dedup();
    if own.len() < 3 {
        return None;
    }
    let top = (own[0] / f.tau).floor().min(f64::from(MULTIPLES_TRIED)) as u32;
    (2..=top)
        .rev()
        .map(|m| f64::from(m) * f.tau)
        .find(|&t| own.iter().all(|&x| hit(t, x)))
}

/// Most multiples of a found tick tried by [`larger_multiple`].
const MULTIPLES_TRIED: u32 = 4096;

/// Fewest differences inside piles worth a look.
const PILE_DIFFERENCES: usize = 20;

/// Spans (in distinct values) of the differences taken inside a pile: as the edges' sums
/// of the tick experiment, they climb from one tick to many.
const PILE_SPANS: [usize; 11] = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144];

/// The differences between the distinct sorted values of each pile, over [`PILE_SPANS`].
fn differences_inside_piles(sorted: &[f64]) -> Vec<f64> {
    let mut distinct: Vec<f64> = sorted.to_vec();
    distinct.dedup();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=distinct.len() {
        if i < distinct.len() && distinct[i] <= distinct[i - 1] * (1.0 + PILE_GAP) {
            continue;
        }
        let pile = &distinct[start..i];
        for s in PILE_SPANS {
            let mut j = 0;
            while j + s < pile.len() {
                out.push(pile[j + s] - pile[j]);
                j += s;
            }
        }
        start = i;
    }
    out
}
