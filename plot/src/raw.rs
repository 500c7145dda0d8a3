//! The raw views: values in order (banded by level when they have levels), and the edge grid.

use super::*;

/// Raw timings in the order taken: horizontal bands at multiples of the tick.
pub fn raw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    values: &[f64],
    unit: &str,
) -> PlotResult {
    let pts = indexed(values);
    scatter(area, "raw timings", "sample", unit, &pts)
}

/// Raw timings with a guide line at each band's level, labelled as a multiple of `tick`
/// when it is known: its first view.
pub fn raw_banded<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    values: &[f64],
    levels: &[f64],
    tick: Option<f64>,
    unit: &str,
) -> PlotResult {
    let pts = indexed(values);
    scatter_with_levels(
        area,
        "raw timings and bands",
        "sample",
        unit,
        &pts,
        &Levels { at: levels, tick },
        &|_| true,
    )
}

/// The reads counted in each tick, in order, with the median and the long-tick line: a flat
/// band on a fixed grid; spread from near 0 to twice the median when a clamp moves its
/// edges; spikes above the line where a few edges moved.
pub fn grid<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, g: &EdgeGrid) -> PlotResult {
    let points: Vec<(f64, f64)> = g
        .counts
        .iter()
        .enumerate()
        .map(|(i, &c)| (i as f64, c as f64))
        .collect();
    let median = g.reads[2];
    let lines = [median, ticklab::tick::grid::LONG_TICK * median];
    scatter_with_levels(
        area,
        "reads in each tick",
        "tick, in order",
        "reads",
        &points,
        &Levels {
            at: &lines,
            tick: None,
        },
        &|y| y <= 3.0 * median,
    )
}
