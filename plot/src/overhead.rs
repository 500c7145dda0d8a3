//! The overhead view: each block's cost a read, the least marked.

use super::*;

/// The cost of one read against the length of the block that gave it: the doubling's
/// blocks, short ones of a coarse clock at 0 (it did not move) or a whole tick shared by few
/// reads, then the timed blocks at the length the Rule of 100 chose, their least (the line)
/// the cost and the rest interference.
pub fn overhead<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    o: &OverheadResult,
) -> PlotResult {
    let (factor, unit) = match o.per_read_ns {
        Some(ns) if o.per_read_counts > 0.0 && ns.is_finite() => {
            (ns / o.per_read_counts, "ns per read")
        }
        _ => (1.0, "counts per read"),
    };
    let log2 = |reads: u64| (reads.max(1) as f64).log2();
    let mut points: Vec<(f64, f64)> = o
        .doubling
        .iter()
        .map(|b| (log2(b.reads), b.per_read * factor))
        .collect();
    let at = log2(o.block_reads);
    points.extend(o.samples.iter().map(|&c| (at, c * factor)));
    let least = [o.per_read_counts * factor];
    // A short block that caught a whole tick is far above the cost: marked, not scaled to.
    let mut timed: Vec<f64> = o.samples.iter().map(|&c| c * factor).collect();
    stats::sort_f64(&mut timed);
    let typical = timed.get(timed.len() / 2).copied().unwrap_or(f64::INFINITY);
    scatter_with_levels(
        area,
        "cost per read against block length",
        "reads per block, log₂",
        unit,
        &points,
        &Levels {
            at: &least,
            tick: None,
        },
        &|y| y <= 4.0 * typical,
    )
}
