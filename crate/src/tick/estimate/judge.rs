//! From survivors to the tick: refined by least squares, zoomed to the middle of its
//! plateau, ranked, and confirmed on every value.

use super::*;

/// Least-squares refinement of `tau` over sorted `u`: each value within `tol` (plus the
/// uncertainty of τ times its multiple) of a multiple counts, τ = Σkx / Σk², accumulated as
/// residuals from the previous τ so large values lose no digits. Returns τ and its
/// standard error.
pub(super) fn refine(u: &[f64], tau0: f64, delta0: f64, tol: &dyn Fn(f64) -> f64) -> (f64, f64) {
    refine_passes(u, tau0, delta0, tol, 4)
}

/// [`refine`] in at most `passes` passes over `u`.
pub(super) fn refine_passes(
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

/// The tick in `lo..hi` that explains most of `u`: the share is a staircase of plateaus
/// in τ, so the search narrows to the middle of the best plateau, 64 ticks at a time.
/// Returns the tick and the half-width of the plateau.
pub(super) fn zoom(u: &[f64], mut lo: f64, mut hi: f64, space: &Space) -> (f64, f64) {
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
pub(super) fn judge(
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
pub(super) struct Rank<'a> {
    pub(super) sample: &'a [f64],
    pub(super) space: &'a Space,
    pub(super) opts: &'a EstimatorOptions,
    pub(super) loose: &'a dyn Fn(f64) -> f64,
    pub(super) tight: &'a dyn Fn(f64) -> f64,
}

impl Rank<'_> {
    /// Of two ticks, the larger, unless the smaller is no divisor of it (a divisor always
    /// explains as much) and explains more: at all when the two are close (a beat of the
    /// other), clearly and beyond chance when not (a smaller tick explains more by chance
    /// alone).
    pub(super) fn larger(&self, a: Found, b: Found) -> Found {
        let (big, small) = if a.tau >= b.tau { (a, b) } else { (b, a) };
        let r = big.tau / small.tau;
        let divisor = r.round() >= 2.0 && (r - r.round()).abs() < 0.01 * r;
        let n = self.sample.len() as f64;
        let more = small.score.effective() > big.score.effective();
        let close = r < 1.2;
        if divisor {
            big
        } else if close {
            // Two ticks a beat apart both fit values of few multiples; the one that fits
            // them better is the tick, the other its beat: the one that explains more
            // values, or among equals the one whose levels chance explains least (a whole
            // number of steps that every value sits on exactly, before a tick that explains
            // them only to within a step).
            let (bs, ss) = (big.score.effective(), small.score.effective());
            if ss > bs + 2e-3
                || (ss >= bs - 2e-3 && level_evidence(&small.score) < level_evidence(&big.score))
            {
                small
            } else {
                big
            }
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
    pub(super) fn pick(
        &self,
        survivors: &[Survivor],
        threshold: f64,
    ) -> (Option<Found>, Option<Found>) {
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
pub(super) fn confirm(
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
