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

/// A backend's error, whose type differs from backend to backend, as a [`PlotError`].
pub fn fail<E: std::fmt::Debug>(e: E) -> PlotError {
    PlotError::Backend(format!("{e:?}"))
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
    let src = if t.timings_sample.is_empty() {
        &t.edge_intervals
    } else {
        &t.timings_sample
    };
    let counts: Vec<f64> = src.iter().map(|&x| x as f64).collect();
    let s = Scale::readable(t.ns_per_count, &counts);
    let v: Vec<f64> = counts.iter().map(|&x| x * s.factor).collect();
    match view {
        View::Raw => {
            let levels: Vec<f64> = t.bands.iter().map(|b| b.level * s.factor).collect();
            let tick = Some(t.estimate.tick * s.factor).filter(|t| t.is_finite() && *t > 0.0);
            raw_banded(area, &v, &levels, tick, s.unit)
        }
        View::Sorted => sorted(area, &v, s.unit),
        View::DiffSorted => diff_sorted(area, &v, s.unit),
        View::Histogram => histogram(area, &v, 60, s.unit),
        _ => raw(area, &v, s.unit),
    }
}

const RUNS: RGBColor = RGBColor(120, 144, 200);
const MINIMA: RGBColor = RGBColor(200, 40, 40);
const LVF: RGBColor = RGBColor(20, 130, 60);
const OLS: RGBColor = RGBColor(150, 90, 0);

/// Values in a display unit: ns when the clock's period is known, counts otherwise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    /// Multiplier from counts.
    pub factor: f64,
    /// Unit label.
    pub unit: &'static str,
}

impl Scale {
    /// The unit that reads best for `counts` (ns, µs, ms or s, by their typical size) when
    /// `ns_per_count` is known, otherwise counts: "5 µs", not "5000.0 ns".
    pub fn readable(ns_per_count: Option<f64>, counts: &[f64]) -> Self {
        let Some(f) = ns_per_count.filter(|f| f.is_finite() && *f > 0.0) else {
            return Self::for_counts(None);
        };
        let mut v: Vec<f64> = counts.iter().copied().filter(|c| c.is_finite()).collect();
        stats::sort_f64(&mut v);
        let typical = stats::quantile_sorted(&v, 0.9) * f;
        let (scale, unit) = if typical.is_finite() {
            ticklab::present::unit_of(typical)
        } else {
            (1.0, "ns")
        };
        Self {
            factor: f / scale,
            unit,
        }
    }

    /// ns when `ns_per_count` is known, otherwise counts.
    pub fn for_counts(ns_per_count: Option<f64>) -> Self {
        match ns_per_count {
            Some(f) => Self {
                factor: f,
                unit: "ns",
            },
            None => Self {
                factor: 1.0,
                unit: "counts",
            },
        }
    }
}

/// Finite range of the values, padded so a constant series still has height.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = if hi > lo {
        (hi - lo) * 0.05
    } else {
        lo.abs().max(1.0) * 0.05
    };
    (lo - pad, hi + pad)
}

/// The y range of the bulk of `ys`: a few far outliers (a preempted read, an interrupt)
/// would squeeze every band into one line. Values above the 95th percentile by more than
/// half the bulk's own spread are left out of the range; returns the range and how many.
fn bulk_range(ys: &[f64]) -> ((f64, f64), usize) {
    bulk_of(ys, &|_| true)
}

/// [`bulk_range`] judged by the values `counts` keeps: the differences of sorted timings are
/// mostly zero, and their spikes at the tick are the lesson, not outliers.
fn bulk_of(ys: &[f64], counts: &dyn Fn(f64) -> bool) -> ((f64, f64), usize) {
    let all: Vec<f64> = ys.iter().copied().filter(|y| y.is_finite()).collect();
    let mut v: Vec<f64> = all.iter().copied().filter(|&y| counts(y)).collect();
    stats::sort_f64(&mut v);
    let (Some(&lo), Some(&max)) = (v.first(), v.last()) else {
        return ((0.0, 1.0), 0);
    };
    // Half the 95th percentile's span again above it: a heavy tail (a page's timings wait
    // out many ticks now and then) would otherwise squeeze the lowest bands together.
    let q95 = stats::quantile_sorted(&v, 0.95);
    let cut = q95 + ((q95 - lo) * 0.5).max(q95.abs() * 0.05);
    if max <= cut {
        return (range(all.into_iter()), 0);
    }
    let above = all.iter().filter(|&&y| y > cut).count();
    (range(all.into_iter().filter(|&y| y <= cut)), above)
}

/// An axis label with no more digits than it needs: "700000", "2.5", "0.125".
fn axis_label(v: &f64) -> String {
    let a = v.abs();
    let s = if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Points (x, y) as small circles, titled, on `area`.
fn scatter<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    points: &[(f64, f64)],
) -> PlotResult {
    let none = Levels {
        at: &[],
        tick: None,
    };
    scatter_with_levels(area, title, x_desc, y_desc, points, &none, &|_| true)
}

/// A scatter with horizontal guide lines at `levels` (the bands of a tick).
fn scatter_with_levels<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    points: &[(f64, f64)],
    levels: &Levels,
    // One copy for every caller's rule (a generic would be one a rule, 2 KB each in the page).
    bulk: &dyn Fn(f64) -> bool,
) -> PlotResult {
    let (x0, x1) = range(points.iter().map(|p| p.0));
    let ys: Vec<f64> = points.iter().map(|p| p.1).collect();
    let ((y0, y1), above) = bulk_of(&ys, bulk);
    let title = if above > 0 {
        format!("{title}, {above} above ▲")
    } else {
        title.to_string()
    };
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FontFamily::SansSerif, 15))
        .margin(8)
        // Room on the right for the bands' names, when they have them.
        .margin_right(if levels.tick.is_some() { 62 } else { 8 })
        .x_label_area_size(32)
        .y_label_area_size(56)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(fail)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&axis_label)
        .y_label_formatter(&axis_label)
        .light_line_style(WHITE)
        .draw()
        .map_err(fail)?;
    chart
        .draw_series(
            points
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite() && p.1 > y1)
                // A triangle pointing up, in pixels from the point: plotters' own marker
                // computes its corners with sin and cos, which the page's module would carry.
                .map(|&(x, _)| {
                    EmptyElement::at((x, y1))
                        + Polygon::new(vec![(-5, 4), (5, 4), (0, -5)], MINIMA.filled())
                }),
        )
        .map_err(fail)?;
    let mut shown: Vec<f64> = levels
        .at
        .iter()
        .copied()
        .filter(|l| (y0..=y1).contains(l))
        .collect();
    // Bottom to top, so labels too close to the one below are left out.
    stats::sort_f64(&mut shown);
    chart
        .draw_series(
            shown
                .iter()
                .map(|&l| PathElement::new([(x0, l), (x1, l)], LVF.mix(0.6).stroke_width(1))),
        )
        .map_err(fail)?;
    if let Some(tick) = levels.tick {
        let every = shown.len().div_ceil(BAND_LABELS).max(1);
        let font = (FontFamily::SansSerif, 12).into_font().color(&LVF);
        let (bx, by) = area.get_base_pixel();
        let mut last = i32::MAX;
        for &l in shown.iter().step_by(every) {
            // In the margin right of the plot, level with the band's line, and never on
            // the label below it.
            let (px, py) = chart.backend_coord(&(x1, l));
            if (last - py).abs() < 14 {
                continue;
            }
            last = py;
            let label = ticklab::present::ticks((l / tick).round());
            area.draw(&Text::new(label, (px - bx + 4, py - by - 6), font.clone()))
                .map_err(fail)?;
        }
    }
    chart
        .draw_series(
            points
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .map(|&p| Circle::new(p, 2, RUNS.filled())),
        )
        .map_err(fail)?;
    Ok(())
}

/// Values against their index.
fn indexed(values: &[f64]) -> Vec<(f64, f64)> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| (i as f64, v))
        .collect()
}

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

/// Guide lines, and the tick they are multiples of.
struct Levels<'a> {
    at: &'a [f64],
    tick: Option<f64>,
}

/// No more labels than this on the bands, so they stay readable: every n-th band otherwise.
const BAND_LABELS: usize = 10;

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

/// Timings sorted: flat steps, one per multiple of the tick.
pub fn sorted<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    values: &[f64],
    unit: &str,
) -> PlotResult {
    let mut v: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    stats::sort_f64(&mut v);
    let pts: Vec<(f64, f64)> = v.iter().enumerate().map(|(i, &v)| (i as f64, v)).collect();
    scatter(area, "sorted timings", "rank", unit, &pts)
}

/// Consecutive differences of the sorted timings: spikes at the tick, zeros between.
pub fn diff_sorted<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    values: &[f64],
    unit: &str,
) -> PlotResult {
    let d = stats::diff_of_sorted(values);
    let pts: Vec<(f64, f64)> = d.iter().enumerate().map(|(i, &v)| (i as f64, v)).collect();
    let none = Levels {
        at: &[],
        tick: None,
    };
    // The spikes at the tick are the lesson; the gaps between a few far outliers would
    // squeeze them flat. The range is judged by the spikes near the typical one.
    let mut spikes: Vec<f64> = d.iter().copied().filter(|&x| x > 0.0).collect();
    stats::sort_f64(&mut spikes);
    let typical = spikes
        .get(spikes.len() / 2)
        .copied()
        .unwrap_or(f64::INFINITY);
    scatter_with_levels(
        area,
        "diff(sort(timings))",
        "rank",
        unit,
        &pts,
        &none,
        &|d| d > 0.0 && d <= 4.0 * typical,
    )
}

/// A histogram of the values in `bins` bins.
pub fn histogram<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    values: &[f64],
    bins: usize,
    unit: &str,
) -> PlotResult {
    // Bins over the bulk: a far outlier would put every value in the first bin.
    let ((_, cut), above) = bulk_range(values);
    let bulk: Vec<f64> = values
        .iter()
        .copied()
        .filter(|&v| above == 0 || v <= cut)
        .collect();
    let h = match stats::histogram(&bulk, bins) {
        Ok(h) => h,
        Err(_) => return scatter(area, "histogram (no data)", unit, "count", &[]),
    };
    let top = h.counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let hi = h.lo + h.width * h.counts.len() as f64;
    let caption = if above > 0 {
        format!("histogram: {above} above, left out")
    } else {
        "histogram".into()
    };
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FontFamily::SansSerif, 16))
        .margin(8)
        .x_label_area_size(32)
        .y_label_area_size(64)
        .build_cartesian_2d(h.lo..hi, 0.0..top * 1.05)
        .map_err(fail)?;
    chart
        .configure_mesh()
        .x_desc(unit)
        .y_desc("count")
        .x_label_formatter(&axis_label)
        .y_label_formatter(&axis_label)
        .light_line_style(WHITE)
        .draw()
        .map_err(fail)?;
    chart
        .draw_series(h.counts.iter().enumerate().map(|(i, &c)| {
            let x0 = h.lo + h.width * i as f64;
            Rectangle::new([(x0, 0.0), (x0 + h.width, c as f64)], RUNS.filled())
        }))
        .map_err(fail)?;
    Ok(())
}

/// Runs against work: every run, the per-N minimum, and both fitted lines.
pub fn fit<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, f: &FitResult) -> PlotResult {
    let minima: Vec<f64> = f.points.iter().map(|p| p.min).collect();
    let s = Scale::readable(f.ns_per_count, &minima);
    let runs: Vec<(f64, f64)> = f
        .points
        .iter()
        .flat_map(|p| p.runs.iter().map(move |&r| (p.work, r * s.factor)))
        .collect();
    let (x0, x1) = range(f.points.iter().map(|p| p.work));
    // The runs an interrupt made far longer would flatten the line: the range is the bulk's,
    // and those above it are marks at the top.
    let ys: Vec<f64> = runs.iter().map(|r| r.1).collect();
    let ((y0, y1), above) = bulk_range(&ys);
    let mut title = format!("{}: time against {}s", f.workload, f.unit);
    if above > 0 {
        title.push_str(&format!(", {above} above ▲"));
    }
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FontFamily::SansSerif, 16))
        .margin(8)
        .x_label_area_size(32)
        .y_label_area_size(72)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(fail)?;
    chart
        .configure_mesh()
        .x_desc(f.unit.as_str())
        .y_desc(s.unit)
        .x_label_formatter(&axis_label)
        .y_label_formatter(&axis_label)
        .light_line_style(WHITE)
        .draw()
        .map_err(fail)?;
    chart
        .draw_series(
            runs.iter()
                .filter(|p| p.1 <= y1)
                .map(|&p| Circle::new(p, 2, RUNS.filled())),
        )
        .map_err(fail)?;
    chart
        .draw_series(runs.iter().filter(|p| p.1 > y1).map(|&(x, _)| {
            EmptyElement::at((x, y1))
                + Polygon::new(vec![(-5, 4), (5, 4), (0, -5)], MINIMA.filled())
        }))
        .map_err(fail)?;
    chart
        .draw_series(
            f.points
                .iter()
                .map(|p| Cross::new((p.work, p.min * s.factor), 4, MINIMA.stroke_width(2))),
        )
        .map_err(fail)?;
    for (line, color) in [(f.least_values.line, LVF), (f.ols.line, OLS)] {
        chart
            .draw_series(LineSeries::new(
                [x0, x1].map(|x| (x, line.at(x) * s.factor)),
                color.stroke_width(2),
            ))
            .map_err(fail)?;
    }
    legend(area)
}

/// The fit plot's legend, top left inside the plot: drawn here, with the font named by its
/// family (plotters' own legend looks the family up by a lower-cased name, which costs the
/// page's module the Unicode case tables).
fn legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>) -> PlotResult {
    let font = (FontFamily::SansSerif, 13).into_font();
    let (x, mut y) = (90, 40);
    area.draw(&Rectangle::new(
        [(x - 6, y - 6), (x + 170, y + 4 * 18 - 2)],
        ShapeStyle::from(WHITE.mix(0.85)).filled(),
    ))
    .map_err(fail)?;
    for (name, color, mark) in [
        ("runs", RUNS, 0),
        ("minimum per N", MINIMA, 1),
        ("least-values fit", LVF, 2),
        ("least squares", OLS, 2),
    ] {
        let c = (x + 8, y + 6);
        match mark {
            0 => area.draw(&Circle::new(c, 3, color.filled())),
            1 => area.draw(&Cross::new(c, 4, color.stroke_width(2))),
            _ => area.draw(&PathElement::new(
                [(x, y + 6), (x + 16, y + 6)],
                color.stroke_width(2),
            )),
        }
        .map_err(fail)?;
        area.draw(&Text::new(name, (x + 24, y), font.clone().color(&BLACK)))
            .map_err(fail)?;
        y += 18;
    }
    Ok(())
}

/// Excess of every run over the least-values line (a Moiré sawtooth when the tick is coarse)
/// and over the tick-quantized step (flat bands at multiples of the tick).
pub fn excess<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, f: &FitResult) -> PlotResult {
    let all: Vec<f64> = f
        .points
        .iter()
        .flat_map(|p| p.excess_line.iter().copied())
        .collect();
    let s = Scale::readable(f.ns_per_count, &all);
    let halves = area.split_evenly((2, 1));
    let line: Vec<(f64, f64)> = f
        .points
        .iter()
        .flat_map(|p| p.excess_line.iter().map(move |&e| (p.work, e * s.factor)))
        .collect();
    let step: Vec<(f64, f64)> = f
        .points
        .iter()
        .flat_map(|p| p.excess_step.iter().map(move |&e| (p.work, e * s.factor)))
        .collect();
    scatter(
        &halves[0],
        "excess over the least-values line",
        &f.unit,
        s.unit,
        &line,
    )?;
    scatter(
        &halves[1],
        "excess over the tick-quantized step",
        &f.unit,
        s.unit,
        &step,
    )
}

/// A class's ticks of one clock, one point per report, in a column per engine and isolation
/// (the core's [`ticklab::digest::ticks_by_engine`]), on a log scale: a browser's clamp
/// shows as a column at one height whatever machine the page ran on.
pub fn class_ticks<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    clock: &str,
    groups: &[ticklab::digest::TickGroup],
) -> PlotResult {
    area.fill(&WHITE).map_err(fail)?;
    let ticks = groups
        .iter()
        .flat_map(|g| g.ticks_ns.iter().copied())
        .filter(|t| t.is_finite() && *t > 0.0);
    let (lo, hi) = ticks.fold((f64::INFINITY, 0.0f64), |(lo, hi), t| {
        (lo.min(t), hi.max(t))
    });
    let caption = format!("{clock}: the class's ticks");
    if groups.is_empty() || !lo.is_finite() {
        return scatter(area, &format!("{caption} (none yet)"), "", "tick", &[]);
    }
    let n = groups.len();
    let labels: Vec<String> = groups
        .iter()
        .map(|g| format!("{} ({})", g.label, g.ticks_ns.len()))
        .collect();
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FontFamily::SansSerif, 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(90)
        .build_cartesian_2d(-0.5..n as f64 - 0.5, (lo / 3.0..hi * 3.0).log_scale())
        .map_err(fail)?;
    chart
        .configure_mesh()
        .x_labels(n)
        .x_label_formatter(&|x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        // Labels at 1, 2 and 5 of each decade only: a log axis's nine a decade crowd.
        .y_label_formatter(&|v: &f64| {
            let m = v / 10f64.powf(v.log10().floor());
            if [1.0, 2.0, 5.0].iter().any(|k| (m - k).abs() < 1e-6) {
                ticklab::present::duration(*v)
            } else {
                String::new()
            }
        })
        .y_desc("tick")
        .label_style((FontFamily::SansSerif, 16))
        .light_line_style(WHITE)
        .draw()
        .map_err(fail)?;
    for (i, g) in groups.iter().enumerate() {
        let k = g.ticks_ns.len().max(1) as f64;
        // Spread across the column, so that thirty equal ticks are thirty points.
        let points = g
            .ticks_ns
            .iter()
            .enumerate()
            .filter(|(_, t)| t.is_finite() && **t > 0.0)
            .map(|(j, &t)| {
                let x = i as f64
                    + if k > 1.0 {
                        (j as f64 / (k - 1.0) - 0.5) * 0.6
                    } else {
                        0.0
                    };
                Circle::new((x, t), 6, RUNS.mix(0.8).filled())
            });
        chart.draw_series(points).map_err(fail)?;
    }
    Ok(())
}

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
