//! Whether a coarsened clock's edges fall on a fixed grid or are jittered, told from the
//! reads counted between consecutive edges (Schwarz et al., "Fantastic Timers"). On a fixed
//! grid every tick holds nearly the same number of reads, and what varies is the pace of
//! reading, which drifts: one tick's count is like the next's. A clamp that switches each
//! interval at its own point (Chromium's, Firefox's without isolation) makes a late edge
//! lengthen one interval and shorten the next: consecutive counts are anti-correlated
//! (−0.5 when the switch points are all that varies), however narrow their spread.

use serde::{Deserialize, Serialize};

use crate::stats::Summary;

/// Fewest pairs of consecutive single-tick edges for an answer.
pub const MIN_GRID_PAIRS: usize = 24;
/// Fewest reads between edges, at the median, for an answer: fewer cannot place an edge
/// finely enough to see where it fell.
pub const MIN_GRID_READS: f64 = 16.0;
/// At or below this correlation of consecutive counts the edges are jittered (uniform
/// switch points give −0.5), however few the pairs; at or above [`NOT_SEEN_FROM`] no jitter
/// is seen (a fixed grid read at a noisy pace gives zero, within a few hundredths). Between,
/// it cannot tell. A weak jitter hides in the noise of the pace: Firefox's 1 ms clamp,
/// whose consecutive counts correlate −0.3 to −0.5 over 600 edges of a plain JavaScript
/// loop, gives −0.21 to −0.33 over 360 pairs in the lab's worker; so no jitter seen is not
/// a fixed grid proven.
pub const JITTERED_BELOW: f64 = -0.25;
/// With many pairs, a weaker anti-correlation is jittered too: one below 2.5 standard
/// errors of a fixed grid's zero (1/√pairs), and never above this.
pub const JITTERED_MANY: f64 = -0.18;

/// The correlation at or below which `pairs` consecutive counts say "jittered": a fixed
/// grid goes below it by chance once in 160 times at most.
pub fn jittered_below(pairs: u64) -> f64 {
    (-2.5 / (pairs.max(1) as f64).sqrt()).clamp(JITTERED_BELOW, JITTERED_MANY)
}
/// See [`JITTERED_BELOW`].
pub const NOT_SEEN_FROM: f64 = -0.12;
/// A tick that held more than this many times the median count of reads, beside one as far
/// under and the two together two ticks' worth, is an edge that moved: a stall shortens one
/// tick, a fast stretch of reading lengthens one, neither makes the pair. Firefox's 1 ms
/// clamp moves a few edges in a hundred (5 to 9 % of ticks over 1.3 times the median, over
/// 1500 edges of a plain JavaScript loop, the rest within 2 % of it), too few to
/// anti-correlate the counts clearly; Chromium's moves every edge (25 %); WebKit's fixed
/// grid none (0 of 1500).
pub const LONG_TICK: f64 = 1.3;
/// Share of consecutive pairs, and fewest of them, that are a moved edge (a long tick
/// beside a short one, together two ticks' worth) and say "jittered" on their own.
pub const LONG_SHARE: f64 = 0.02;
/// How near two ticks' worth of reads a moved edge's pair must come, as a share of a tick.
pub const PAIR_SUM: f64 = 0.15;
/// The 95th percentile of the counts over the median beyond which they spread above it,
/// as jitter spreads them and stalls do not.
pub const HIGH_SPREAD: f64 = 1.15;
/// See [`LONG_SHARE`].
pub const LONG_FEWEST: usize = 3;
/// Counts whose 5th to 95th percentiles lie within this share of the median, or within
/// [`TIGHT_READS`], show no jitter whatever their correlation.
pub const TIGHT_SPREAD: f64 = 0.02;
/// See [`TIGHT_SPREAD`].
pub const TIGHT_READS: f64 = 4.0;

/// What the counts say of the edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grid {
    /// No jitter seen: consecutive counts are not anti-correlated, as on a fixed grid.
    NotSeen,
    /// Jittered: each interval switches at its own point.
    Jittered,
    /// Neither clearly: more edges would tell.
    Unclear,
}

/// How the edges of a clock fall in time, from the reads counted between consecutive
/// single-tick edges.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EdgeGrid {
    /// Single-tick edges whose reads were counted.
    pub edges: u64,
    /// Pairs of consecutive ones, for the correlation.
    pub pairs: u64,
    /// Reads between consecutive edges: 5th, 25th, 50th, 75th and 95th percentiles.
    pub reads: [f64; 5],
    /// The correlation of each count with the next, each less the mean of its run of
    /// consecutive edges (counts held within a quarter and seven quarters of the median, so
    /// one pause weighs no more than a tick's worth).
    pub correlation: f64,
    /// Share of consecutive single-tick pairs that are a moved edge: one tick over
    /// [`LONG_TICK`] times the median count of reads beside one as far under, together two
    /// ticks' worth (version 5 on).
    #[serde(default)]
    pub moved_share: f64,
    /// What the correlation and the long ticks say.
    pub grid: Grid,
    /// Reads counted in each single-tick edge, in order, the first [`KEEP_COUNTS`]: the
    /// evidence, plotted (version 5 on).
    #[serde(default)]
    pub counts: Vec<u64>,
    /// Share of the waits that spanned two ticks or more: the reader missed a tick, not
    /// running (version 6 on). Over [`SKIPPED_SHARE`] the grid is unclear.
    #[serde(default)]
    pub skipped_share: f64,
}

/// Counts kept for the plot.
pub const KEEP_COUNTS: usize = 512;

/// Share of the waits that spanned two ticks or more above which the grid is unclear: the
/// reader was not running through a whole tick that often, so it was interrupted within
/// many others too, and a tick shortened by a stall (or lengthened beside one) looks like
/// a moved edge. A reader that runs sees nearly every tick (a jittered clamp's value can
/// show for a moment only, once in thousands); one that shares a busy core skips one in
/// five (Firefox's 1 ms performance.now beside two busy loops: 24 of 122).
pub const SKIPPED_SHARE: f64 = 0.05;

/// The grid of edges from `spacing`, (reads counted, step in counts, whether it follows
/// the one before) of each edge after a whole wait, for a clock of `tick` counts; `None`
/// when too few consecutive edges of one tick, or too few reads between them, to tell.
pub fn edge_grid(spacing: &[(u64, u64, bool)], tick: f64) -> Option<EdgeGrid> {
    if !(tick.is_finite() && tick >= 1.0) {
        return None;
    }
    let single = |step: u64| (step as f64 - tick).abs() <= tick * 0.01;
    let counts: Vec<u64> = spacing
        .iter()
        .filter(|e| single(e.1))
        .map(|e| e.0)
        .collect();
    let s = Summary::of_counts(&counts).ok()?;
    if s.median < MIN_GRID_READS {
        return None;
    }
    let skipped = spacing
        .iter()
        .filter(|e| (e.1 as f64 / tick).round() >= 2.0)
        .count();
    let skipped_share = skipped as f64 / spacing.len().max(1) as f64;
    let interrupted = spacing.len() >= MIN_GRID_PAIRS && skipped_share > SKIPPED_SHARE;
    let held = |r: u64| (r as f64).clamp(0.25 * s.median, 1.75 * s.median);
    // Runs of consecutive single-tick counts (a batch of edges each); each count less its
    // run's mean, so the pace's drift from batch to batch does not hide the anti-correlation.
    let mut runs: Vec<Vec<f64>> = Vec::new();
    let mut open = false;
    for e in spacing {
        if !single(e.1) {
            open = false;
            continue;
        }
        if !(open && e.2) {
            runs.push(Vec::new());
        }
        open = true;
        runs.last_mut().expect("pushed above").push(held(e.0));
    }
    let (mut cov, mut var, mut pairs) = (0.0, 0.0, 0usize);
    let mut n = 0usize;
    for run in runs.iter().filter(|r| r.len() >= 8) {
        let mean = run.iter().sum::<f64>() / run.len() as f64;
        let residual: Vec<f64> = run.iter().map(|r| r - mean).collect();
        n += residual.len();
        var += residual.iter().map(|r| r * r).sum::<f64>();
        for w in residual.windows(2) {
            cov += w[0] * w[1];
            pairs += 1;
        }
    }
    if pairs < MIN_GRID_PAIRS && !interrupted {
        return None;
    }
    // Counts that never vary are a fixed grid read at a steady pace.
    let correlation = if var > 0.0 {
        (cov / pairs as f64) / (var / n as f64)
    } else {
        0.0
    };
    let m = s.median;
    // A moved edge: a long tick beside a short one, the two together two ticks' worth of
    // reads. A reading that ran fast for a tick (no collection in it, where the median had
    // one) lengthens that tick alone.
    let mut moved_edges = 0usize;
    let mut adjacent = 0usize;
    for w in spacing.windows(2) {
        if !(single(w[0].1) && single(w[1].1) && w[1].2) {
            continue;
        }
        adjacent += 1;
        let (a, b) = (w[0].0 as f64, w[1].0 as f64);
        let (hi, lo) = (a.max(b), a.min(b));
        if hi > LONG_TICK * m
            && lo < (2.0 - LONG_TICK) * m
            && (a + b - 2.0 * m).abs() < PAIR_SUM * m
        {
            moved_edges += 1;
        }
    }
    let moved_share = moved_edges as f64 / adjacent.max(1) as f64;
    // Stalls alone (a WebKit worker's, every few ticks) shorten ticks and can anti-correlate
    // the counts of a few dozen pairs by chance: jitter spreads them above the median too.
    let above = s.p95 > HIGH_SPREAD * m;
    let moved = moved_edges >= LONG_FEWEST && moved_share >= LONG_SHARE;
    // Counts alike to a few reads: a steady pace on a fixed grid, whose counts alternate as
    // the reads' phase beats against the edges (anti-correlated, like jitter, but by a read).
    let tight = s.p95 - s.p05 <= (TIGHT_SPREAD * s.median).max(TIGHT_READS);
    Some(EdgeGrid {
        edges: counts.len() as u64,
        pairs: pairs as u64,
        reads: [s.p05, s.p25, s.median, s.p75, s.p95],
        correlation,
        moved_share,
        counts: counts.iter().copied().take(KEEP_COUNTS).collect(),
        skipped_share,
        grid: if interrupted {
            Grid::Unclear
        } else if moved || (!tight && above && correlation <= jittered_below(pairs as u64)) {
            Grid::Jittered
        } else if tight || (correlation >= NOT_SEEN_FROM && moved_edges == 0) {
            Grid::NotSeen
        } else {
            Grid::Unclear
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Reads between edges of a 1000-read tick of 100 counts, in batches of 64 consecutive
    /// edges as the experiment takes them: on a fixed grid read at a drifting pace, or each
    /// edge at its own point within `width` of the interval.
    fn spacing(width: f64, n: usize) -> Vec<(u64, u64, bool)> {
        sparse(width, 1.0, n)
    }

    /// The same with only a share `moved` of the edges off the grid, the rest on it.
    fn sparse(width: f64, moved: f64, n: usize) -> Vec<(u64, u64, bool)> {
        let mut rng = SplitMix64::new(3);
        let mut last = 0.0;
        let mut pace = 1.0;
        (1..=n)
            .map(|k| {
                pace = (pace + (rng.below(21) as f64 - 10.0) * 0.0005).clamp(0.8, 1.2);
                let off = rng.unit() < moved;
                let at = k as f64
                    + if off {
                        width * rng.below(1000) as f64 / 1000.0
                    } else {
                        0.0
                    };
                let reads = ((at * 1000.0 - last) * pace).max(1.0) as u64;
                last = at * 1000.0;
                (reads, 100, k % 64 != 1)
            })
            .collect()
    }

    /// A reader interrupted so often that one wait in five spans two ticks: neither a fixed
    /// grid nor jitter can be told (its stalls shorten the ticks they fall in), whatever
    /// the counts of the rest say; one in a hundred does not stop the answer.
    #[test]
    fn a_reader_that_skips_ticks_cannot_tell_the_grid() {
        for (every, unclear) in [(5, true), (100, false)] {
            for width in [0.0, 1.0] {
                let skipping: Vec<_> = spacing(width, 400)
                    .iter()
                    .enumerate()
                    .map(|(i, &(r, s, f))| {
                        if i % every == 3 {
                            (r / 3, 2 * s, f)
                        } else {
                            (r, s, f)
                        }
                    })
                    .collect();
                let g = edge_grid(&skipping, 100.0).unwrap();
                assert_eq!(g.grid == Grid::Unclear, unclear, "{every} {width}: {g:?}");
                assert!((g.skipped_share - 1.0 / every as f64).abs() < 0.01, "{g:?}");
            }
        }
    }

    #[test]
    fn a_fixed_grid_and_jittered_edges_are_told_apart() {
        let fixed = edge_grid(&spacing(0.0, 200), 100.0).unwrap();
        assert!(fixed.grid == Grid::NotSeen, "{fixed:?}");
        // Uniform switch points (Chromium), and switch points within a third of the
        // interval: a narrow spread, still anti-correlated.
        for width in [1.0, 0.3] {
            let jit = edge_grid(&spacing(width, 200), 100.0).unwrap();
            assert!(
                jit.grid == Grid::Jittered && jit.correlation < -0.3,
                "{width}: {jit:?}"
            );
        }
        assert_eq!(jittered_below(60), JITTERED_BELOW);
        assert_eq!(jittered_below(10_000), JITTERED_MANY);
        // A fixed grid never says jittered, at any number of pairs.
        for n in [100, 400, 1600] {
            let fixed = edge_grid(&spacing(0.0, n), 100.0).unwrap();
            assert!(fixed.grid != Grid::Jittered, "{n}: {fixed:?}");
        }
        // A few edges in a hundred moved (Firefox's 1 ms clamp): long ticks tell it.
        let few = edge_grid(&sparse(1.0, 0.08, 150), 100.0).unwrap();
        assert!(
            few.grid == Grid::Jittered && few.moved_share > 0.02,
            "{few:?}"
        );
        // A reading that runs fast now and then (the median tick held a collection, these
        // did not) lengthens single ticks: no moved edge.
        let fast: Vec<_> = spacing(0.0, 400)
            .iter()
            .enumerate()
            .map(|(i, &(r, s, f))| (if i % 7 == 0 { r * 3 / 2 } else { r }, s, f))
            .collect();
        let fast = edge_grid(&fast, 100.0).unwrap();
        assert!(
            fast.grid != Grid::Jittered && fast.moved_share < 0.02,
            "{fast:?}"
        );
        // Stalls shorten ticks' counts, never lengthen them: a grid read with pauses is no jitter.
        let stalled: Vec<_> = spacing(0.0, 400)
            .iter()
            .enumerate()
            .map(|(i, &(r, s, f))| (if i % 9 == 0 { r / 3 } else { r }, s, f))
            .collect();
        let stalled = edge_grid(&stalled, 100.0).unwrap();
        // Stalls every other pair, each followed by a full tick and then a slow one: the
        // counts anti-correlate, but nothing lies above the median.
        let seesaw: Vec<_> = spacing(0.0, 400)
            .iter()
            .enumerate()
            .map(|(i, &(r, s, f))| (if i % 4 == 0 { r / 4 } else { r }, s, f))
            .collect();
        let seesaw = edge_grid(&seesaw, 100.0).unwrap();
        assert!(seesaw.grid != Grid::Jittered, "{seesaw:?}");
        assert!(
            stalled.grid != Grid::Jittered && stalled.moved_share == 0.0,
            "{stalled:?}"
        );
        let wide = edge_grid(&spacing(1.0, 200), 100.0).unwrap();
        assert!(wide.reads[0] < 400.0 && wide.reads[4] > 1600.0, "{wide:?}");
    }

    #[test]
    fn too_few_edges_or_reads_give_no_answer() {
        assert!(edge_grid(&spacing(1.0, 20), 100.0).is_none());
        // Edges of two ticks are left out, not counted as one; nor are edges that do not
        // follow each other.
        let doubled: Vec<_> = spacing(0.0, 200)
            .iter()
            .map(|&(r, _, f)| (r, 200, f))
            .collect();
        assert!(edge_grid(&doubled, 100.0).is_none());
        let apart: Vec<_> = spacing(1.0, 200)
            .iter()
            .map(|&(r, s, _)| (r, s, false))
            .collect();
        assert!(edge_grid(&apart, 100.0).is_none());
        let few_reads: Vec<_> = (0..100).map(|i| (4 + i % 3, 100, true)).collect();
        assert!(edge_grid(&few_reads, 100.0).is_none());
        assert!(edge_grid(&spacing(0.0, 200), f64::NAN).is_none());
    }
}
