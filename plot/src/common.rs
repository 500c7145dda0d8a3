//! What the views share: their colours, scales and ranges, and scatters with levels.

use super::*;

/// Guide lines, and the tick they are multiples of.
pub(crate) struct Levels<'a> {
    pub(crate) at: &'a [f64],
    pub(crate) tick: Option<f64>,
}

/// No more labels than this on the bands, so they stay readable: every n-th band otherwise.
pub(crate) const BAND_LABELS: usize = 10;

pub(crate) const RUNS: RGBColor = RGBColor(120, 144, 200);
pub(crate) const MINIMA: RGBColor = RGBColor(200, 40, 40);
pub(crate) const LVF: RGBColor = RGBColor(20, 130, 60);
pub(crate) const OLS: RGBColor = RGBColor(150, 90, 0);

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
pub(crate) fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
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
pub(crate) fn bulk_range(ys: &[f64]) -> ((f64, f64), usize) {
    bulk_of(ys, &|_| true)
}

/// [`bulk_range`] judged by the values `counts` keeps: the differences of sorted timings are
/// mostly zero, and their spikes at the tick are the lesson, not outliers.
pub(crate) fn bulk_of(ys: &[f64], counts: &dyn Fn(f64) -> bool) -> ((f64, f64), usize) {
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
pub(crate) fn axis_label(v: &f64) -> String {
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
pub(crate) fn scatter<DB: DrawingBackend>(
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
pub(crate) fn scatter_with_levels<DB: DrawingBackend>(
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
pub(crate) fn indexed(values: &[f64]) -> Vec<(f64, f64)> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| (i as f64, v))
        .collect()
}
