//! Every tick of a range tried on every level of recorded values: the search that lets a
//! bound on them fall to the precision, or shows the tick they all sit on.

/// What trying every tick of a range on every level found.
pub(super) enum Fit {
    None,
    Tick(f64),
    Unknown,
}

/// Every tick from `lo` to `hi` steps tried on `levels` (distinct, sorted, in steps), each
/// within `h` steps of a multiple (½ for values rounded once, 1 for readings rounded before
/// they were differenced): the largest that fits them all, or none; unknown past
/// [`FIT_NODES`] tries, or when so many were tried that one of them fitting is chance (a
/// tick `t` fits a whole number of steps by chance about `2h + 1` times in `t`, counting
/// the ties of whole and half ticks). Doubles' `noise`, a share of each level, widens `h`.
///
/// Levels of a second in ns hold a hundred million multiples of a 10 ns tick each: too
/// many to try one by one. Their distances from one level, smallest first, are tried
/// before them: a tick fitting every level puts each such distance, shifted by that
/// level's own error, within `h` of a multiple, and small distances have few. That error
/// (its rounding and noise) is tried in [`FIT_SHIFTS`] slices each side, each with its
/// half-width of slack, so no tick that fits is lost.
pub(super) fn fitting_tick(levels: &[f64], lo: f64, hi: f64, h: f64, noise: f64) -> Fit {
    if lo > hi || levels.is_empty() {
        return Fit::None;
    }
    // The level with the closest neighbour: the most distances of few multiples.
    let anchor = levels
        .windows(2)
        .enumerate()
        .min_by(|(_, x), (_, y)| (x[1] - x[0]).total_cmp(&(y[1] - y[0])))
        .map_or(0, |(i, _)| i);
    let at = levels[anchor];
    // The distances above and below it, each in order, merged by size.
    let (mut up, mut down) = (anchor + 1, anchor);
    let mut apart = Vec::with_capacity(levels.len());
    while up < levels.len() || down > 0 {
        let d = match (levels.get(up), down.checked_sub(1).map(|i| levels[i])) {
            (Some(&u), Some(l)) if u - at <= at - l => u - at,
            (Some(&u), None) => u - at,
            (_, Some(l)) => l - at,
            (None, None) => break,
        };
        if d > 0.0 {
            up += 1;
        } else {
            down -= 1;
        }
        if d.abs() > 2.0 * h + 1.0 {
            apart.push(d);
        }
    }
    // The anchor's own error, its rounding and noise, is what the slices cover.
    let off = h + noise * at;
    let slack = off / FIT_SHIFTS;
    let mut nodes = 0.0;
    let mut fit = Fit::None;
    let mut shift = -off;
    while shift <= off + slack / 2.0 {
        let ladder = Ladder {
            apart: &apart,
            levels,
            at,
            shift,
            h,
            noise,
            slack,
        };
        match ladder.fit(lo, hi, &mut nodes) {
            Some(Some(t)) => {
                if !matches!(fit, Fit::Tick(u) if u >= t) {
                    fit = Fit::Tick(t);
                }
            }
            Some(None) => {}
            None => return Fit::Unknown,
        }
        shift += 2.0 * slack;
    }
    let Fit::Tick(t) = fit else {
        return fit;
    };
    let t = pinned(levels, t, h + noise * levels[levels.len() - 1]);
    // Levels closer than `hi` fit a tick near the truth together (1 000 and 1 010 ns fit
    // 10.4 as they fit 10.015): one chance between them, not two. The first is the one
    // every tick was tried on; each other fits by chance within its tolerance.
    let mut chance = levels[0] * (1.0 / lo - 1.0 / hi) + 1.0;
    let mut last = levels[0];
    for &x in &levels[1..] {
        if x - last >= hi {
            chance *= ((2.0 * (h + noise * x) + 1.0) / t).min(1.0);
            last = x;
        }
    }
    if chance < FIT_ODDS {
        Fit::Tick(t)
    } else {
        Fit::Unknown
    }
}

/// The tick that the levels pin among those a fit found: levels of similar length (a
/// second, 1e8 multiples of 10 ns) fit ticks a beat apart (`t·k/(k±j)`, `j` multiples
/// fewer or more) nearly as well, within their tolerance `h`, for as many beats as their
/// spread of lengths allows (their halves and doubles shift by whole beats too); the
/// least-squares slope through each one's multiples, with the least squared error, is
/// the clock's.
fn pinned(levels: &[f64], t: f64, h: f64) -> f64 {
    // The middle half's spread: a few halves and doubles of a period pin no beats.
    let n = levels.len();
    let (least, most) = (levels[n / 4], levels[3 * n / 4]);
    let k = (levels[n / 2] / t).round();
    let beats = ((2.0 * h + 1.0) * most / (t * (most - least)))
        .ceil()
        .clamp(3.0, 1e3)
        .min((k / 2.0).floor());
    let mut best = (f64::INFINITY, t);
    let mut j = -beats;
    while j <= beats {
        let b = t * k / (k + j);
        j += 1.0;
        let (mut kv, mut kk) = (0.0, 0.0);
        for &v in levels {
            let m = (v / b).round();
            (kv, kk) = (kv + m * v, kk + m * m);
        }
        let b = kv / kk;
        let mut sse = 0.0;
        for &v in levels {
            sse += (v - (v / b).round() * b).powi(2);
        }
        if sse < best.0 {
            best = (sse, b);
        }
    }
    best.1
}

/// The distances from one level (shifted by its error) and then the levels themselves,
/// each with its tolerance, that [`fitting_tick`] fits a tick to in turn.
struct Ladder<'a> {
    apart: &'a [f64],
    levels: &'a [f64],
    at: f64,
    shift: f64,
    h: f64,
    noise: f64,
    slack: f64,
}

impl Ladder<'_> {
    /// The `i`th value and how far from a multiple it may lie.
    fn get(&self, i: usize) -> Option<(f64, f64)> {
        match self.apart.get(i) {
            Some(&d) => Some((
                (d + self.shift).abs(),
                self.h + self.noise * (self.at + d) + self.slack,
            )),
            None => {
                let v = *self.levels.get(i - self.apart.len())?;
                Some((v, self.h + self.noise * v))
            }
        }
    }

    /// The largest tick from `lo` to `hi` within its tolerance of a multiple of every
    /// value, by intervals of ticks, the largest first; `None` past [`FIT_NODES`] tries
    /// counted in `nodes`.
    fn fit(&self, lo: f64, hi: f64, nodes: &mut f64) -> Option<Option<f64>> {
        let mut stack = vec![(0, lo, hi)];
        while let Some((i, a, b)) = stack.pop() {
            if a > b {
                continue;
            }
            let Some((v, within)) = self.get(i) else {
                return Some(Some((a + b) / 2.0));
            };
            // Ties of a rounding (a multiple at a half step) fit.
            let within = within + 1e-9;
            let (ja, jb) = (
                ((v - within) / b).ceil().max(1.0),
                ((v + within) / a).floor(),
            );
            *nodes += (jb - ja + 1.0).max(0.0);
            if *nodes > FIT_NODES {
                // Past the budget, the ticks left untried are not ruled out.
                return None;
            }
            let mut j = jb;
            while j >= ja {
                stack.push((i + 1, a.max((v - within) / j), b.min((v + within) / j)));
                j -= 1.0;
            }
        }
        Some(None)
    }
}

/// Steps of the coarsest clock read through two roundings (readings rounded, then
/// differenced) that may pass for the data's precision when no coarser tick fits.
pub(super) const TWICE_ROUNDED: f64 = 5.0;
/// Fewest levels worth trying every tick on.
pub(super) const FIT_LEVELS: usize = 8;
/// Most ticks [`fitting_tick`] tries before it gives up (about a second: `ticklab analyze`
/// takes 0.3 s on 60 durations near 8 ms in ns, 1.4 s on 60 near a second, where it gives
/// up, on a 2-core machine).
const FIT_NODES: f64 = 2e7;
/// Slices of a level's rounding that [`fitting_tick`] tries its distances with, each side.
const FIT_SHIFTS: f64 = 4.0;
/// Odds of a tick fitting every level by chance that [`fitting_tick`] accepts.
const FIT_ODDS: f64 = 1e-3;

/// Where a tick fitting every one of `levels` within a step stops being chance (every
/// whole number of steps lies within one of a multiple of 3).
pub(super) fn past_chance(levels: &[f64]) -> f64 {
    let n = levels.len() as i32 - 1;
    let mut from = 3.0;
    while levels[0] / from * (3.0 / from).powi(n) > FIT_ODDS {
        from *= 1.01;
    }
    from
}
