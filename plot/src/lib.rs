//! ticklab's plots, one function per plot over any plotters backend: the command writes them
//! as SVG, the page draws the same code on a canvas.
//!
//! The three views of "Finding Timer Resolution and Overhead" of timings (raw with their bands, sorted, consecutive differences of
//! the sorted), a histogram, and for fits the runs with their per-N minimum, the
//! least-squares and least-values lines, and the excess against the line and the step.

use plotters::coord::Shift;
use plotters::prelude::*;
use ticklab::fit::FitResult;
use ticklab::overhead::OverheadResult;
use ticklab::report::ClockReport;
use ticklab::stats;
use ticklab::tick::{EdgeGrid, TickResult};

/// Why a plot could not be drawn.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlotError {
    /// The backend failed (an SVG file that cannot be written, a canvas without a context).
    #[error("plot: {0}")]
    Backend(String),
    /// The clock has no result for this view.
    #[error("{clock}: no {view} result to draw")]
    Missing {
        /// The clock's name.
        clock: String,
        /// What is missing ("tick", "overhead", "fit 2").
        view: String,
    },
    /// A view name no plot has.
    #[error("no view '{0}'; the views are raw, sorted, diff_sorted, histogram, grid, overhead, fit, excess")]
    UnknownView(String),
}

/// A drawing, or why it failed.
pub type PlotResult = Result<(), PlotError>;

/// A backend's error, whose type differs from backend to backend, as a [`PlotError`]: in
/// its own words (its Debug text would carry the formatting of nested structs into the
/// page's wasm).
pub fn fail<E: std::fmt::Display>(e: E) -> PlotError {
    PlotError::Backend(e.to_string())
}

/// A view of one clock's result: each front end shows these and no other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The dithered timings in the order taken, with the bands' levels.
    Raw,
    /// The timings sorted.
    Sorted,
    /// Consecutive differences of the sorted timings.
    DiffSorted,
    /// A histogram of the timings.
    Histogram,
    /// The reads counted in each tick: a fixed grid's edges or a jittered clamp's.
    Grid,
    /// The read cost of every timed block.
    Overhead,
    /// A fit's runs, minima and lines.
    Fit(usize),
    /// A fit's excess over the line and over the step.
    Excess(usize),
}

impl View {
    /// The views of the tick experiment, in the order both front ends show them.
    pub const TICK: [View; 4] = [View::Raw, View::Sorted, View::DiffSorted, View::Histogram];

    /// Every view's name, in the order the page lays them out.
    pub const NAMES: [&'static str; 8] = [
        "raw",
        "sorted",
        "diff_sorted",
        "histogram",
        "grid",
        "overhead",
        "fit",
        "excess",
    ];

    /// The view named `name` ("raw", "diff_sorted", "fit"...); a fit view shows fit `fit`.
    pub fn parse(name: &str, fit: usize) -> Result<Self, PlotError> {
        Ok(match name {
            "raw" => View::Raw,
            "sorted" => View::Sorted,
            "diff_sorted" => View::DiffSorted,
            "histogram" => View::Histogram,
            "grid" => View::Grid,
            "overhead" => View::Overhead,
            "fit" => View::Fit(fit),
            "excess" => View::Excess(fit),
            other => return Err(PlotError::UnknownView(other.into())),
        })
    }

    /// The view's name, as [`View::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            View::Raw => "raw",
            View::Sorted => "sorted",
            View::DiffSorted => "diff_sorted",
            View::Histogram => "histogram",
            View::Grid => "grid",
            View::Overhead => "overhead",
            View::Fit(_) => "fit",
            View::Excess(_) => "excess",
        }
    }

    /// Every view clock `c` has data for, in order: the tick's, the overhead's, each fit's.
    pub fn of(c: &ClockReport) -> Vec<View> {
        let mut out = Vec::new();
        if let Some(t) = &c.tick {
            out.extend(View::TICK);
            if t.edge_grid.as_ref().is_some_and(|g| !g.counts.is_empty()) {
                out.push(View::Grid);
            }
        }
        if c.overhead.is_some() {
            out.push(View::Overhead);
        }
        for i in 0..c.fits.len() {
            out.extend([View::Fit(i), View::Excess(i)]);
        }
        out
    }

    /// The size the command draws it at, in pixels.
    pub fn size(self) -> (u32, u32) {
        match self {
            View::Fit(_) => (900, 600),
            View::Excess(_) => (900, 800),
            _ => (800, 500),
        }
    }
}

/// Draws `view` of clock `c` on `area`: the one place that decides each view's data, range
/// and unit, for the command's SVG files and the page's canvases alike.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    c: &ClockReport,
    view: View,
) -> PlotResult {
    let missing = |what: String| PlotError::Missing {
        clock: c.info.name.clone(),
        view: what,
    };
    match view {
        View::Grid => grid(
            area,
            c.tick
                .as_ref()
                .and_then(|t| t.edge_grid.as_ref())
                .ok_or_else(|| missing("edges' grid".into()))?,
        ),
        View::Overhead => overhead(
            area,
            c.overhead
                .as_ref()
                .ok_or_else(|| missing("overhead".into()))?,
        ),
        View::Fit(i) | View::Excess(i) => {
            let f = c.fits.get(i).ok_or_else(|| missing(format!("fit {i}")))?;
            if matches!(view, View::Fit(_)) {
                fit(area, f)
            } else {
                excess(area, f)
            }
        }
        tick_view => tick(
            area,
            c.tick.as_ref().ok_or_else(|| missing("tick".into()))?,
            tick_view,
        ),
    }
}

/// One view of the tick experiment, in ns when the count's length is known. A sampled clock
/// has no dithered timings: its intervals are the data of every view.
fn tick<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &TickResult,
    view: View,
) -> PlotResult {
    let d = TickData::of(t);
    match view {
        View::Raw => raw_banded(area, &d.values, &d.levels, d.tick, d.unit),
        View::Sorted => sorted(area, &d.values, d.unit),
        View::DiffSorted => diff_sorted(area, &d.values, d.unit),
        View::Histogram => histogram(area, &d.values, 60, d.unit),
        _ => raw(area, &d.values, d.unit),
    }
}

/// What the tick's views show, in a readable unit: the timings (or a sampled clock's
/// intervals), the bands' levels, the tick, the unit.
pub(crate) struct TickData {
    pub(crate) values: Vec<f64>,
    pub(crate) levels: Vec<f64>,
    pub(crate) tick: Option<f64>,
    pub(crate) unit: &'static str,
}

impl TickData {
    pub(crate) fn of(t: &TickResult) -> Self {
        let src = if t.timings_sample.is_empty() {
            &t.edge_intervals
        } else {
            &t.timings_sample
        };
        let counts: Vec<f64> = src.iter().map(|&x| x as f64).collect();
        let s = Scale::readable(t.ns_per_count, &counts);
        Self {
            values: counts.iter().map(|&x| x * s.factor).collect(),
            levels: t.bands.iter().map(|b| b.level * s.factor).collect(),
            tick: Some(t.estimate.tick * s.factor).filter(|t| t.is_finite() && *t > 0.0),
            unit: s.unit,
        }
    }
}

mod alt;
mod atlas;
mod class;
mod common;
mod fit;
mod overhead;
mod raw;
mod sorted;

pub use alt::*;
pub use atlas::*;
pub use class::*;
use common::*;
pub use fit::*;
pub use overhead::*;
pub use raw::*;
pub use sorted::*;

#[cfg(test)]
mod tests {
    /// The page draws a view into the canvas `plot-NAME` of its "Look closer" section:
    /// index.html has one for every view, in the views' order, and none for a view that
    /// is not; names and parsing agree.
    #[test]
    fn the_page_has_a_canvas_for_every_view() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let html = std::fs::read_to_string(root.join("index.html")).unwrap();
        let canvases: Vec<&str> = html
            .match_indices("<canvas id=\"plot-")
            .map(|(i, m)| {
                let rest = &html[i + m.len()..];
                &rest[..rest.find('"').unwrap()]
            })
            .collect();
        assert_eq!(canvases, View::NAMES);
        // The playground's canvases (play-NAME) and the analysis's (an-NAME, the tick's
        // views of timings) are drawn by their names too.
        for (prefix, views) in [("play-", &View::NAMES[..]), ("an-", &View::NAMES[..4])] {
            let names: Vec<&str> = html
                .match_indices(&format!("<canvas id=\"{prefix}"))
                .map(|(i, m)| {
                    let rest = &html[i + m.len()..];
                    &rest[..rest.find('"').unwrap()]
                })
                .collect();
            assert!(!names.is_empty(), "no {prefix} canvas");
            for n in names {
                assert!(views.contains(&n), "canvas {prefix}{n}: no such view");
            }
        }
        assert_eq!(
            View::TICK.map(View::name),
            View::NAMES[..4],
            "the tick's views lead View::NAMES"
        );
        for name in View::NAMES {
            assert_eq!(View::parse(name, 0).unwrap().name(), name);
        }
        let e = View::parse("edges", 0).unwrap_err().to_string();
        assert!(
            e.ends_with(
                "the views are raw, sorted, diff_sorted, histogram, grid, overhead, fit, excess"
            ),
            "{e}"
        );
        // Every view a clock can have is among them.
        for v in View::TICK {
            assert!(View::NAMES.contains(&v.name()));
        }
    }

    use super::*;

    #[test]
    fn plots_of_empty_and_constant_data_draw() {
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (400, 300)).into_drawing_area();
            raw(&root, &[], "ns").unwrap();
            let mut outliers = [5.0, 10.0, 15.0, 20.0].repeat(50);
            outliers.push(1e6);
            raw(&root, &outliers, "µs").unwrap();
            sorted(&root, &[5.0, 5.0], "ns").unwrap();
            histogram(&root, &[f64::NAN], 10, "ns").unwrap();
            diff_sorted(&root, &[1.0, 2.0, 4.0], "ns").unwrap();
            let banded = [10.0, 20.0, 20.0, 30.0].repeat(20);
            raw_banded(&root, &banded, &[10.0, 20.0, 30.0], Some(10.0), "µs").unwrap();
            root.present().unwrap();
        }
        assert!(svg.contains("<svg"));
        assert!(svg.contains("diff(sort(timings))"));
        assert!(svg.contains("1 above ▲"), "the outlier is counted");
        assert!(
            svg.contains("1 tick") && svg.contains("3 ticks"),
            "bands are named: {svg}"
        );
        assert_eq!(bulk_range(&[1.0, 2.0, 3.0]).1, 0);
        assert_eq!(axis_label(&700000.0), "700000");
        assert_eq!(axis_label(&2.50), "2.5");
    }
}
