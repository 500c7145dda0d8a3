//! The atlas's view: a clock's ticks across an engine's versions, each mode a point sized by
//! its share, beside the documented claim: where a clamp changed shows as a step.

use super::*;
use ticklab::atlas::Versions;

/// The ticks of `v`'s clock by version on a log scale, each mode's area its share; the
/// documented claim as a dashed red line.
pub fn atlas_versions<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    v: &Versions,
) -> PlotResult {
    area.fill(&WHITE).map_err(fail)?;
    let ticks = v.points.iter().flat_map(|p| p.modes.iter().map(|m| m.0));
    let (lo, hi) = ticks
        .chain(v.claim_ns)
        .filter(|t| t.is_finite() && *t > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), t| {
            (lo.min(t), hi.max(t))
        });
    if v.points.is_empty() || !lo.is_finite() {
        return scatter(
            area,
            &format!("{} (no cell shown)", v.title),
            "",
            "tick",
            &[],
        );
    }
    let n = v.points.len();
    let labels: Vec<String> = v.points.iter().map(|p| p.version.to_string()).collect();
    let mut chart = ChartBuilder::on(area)
        .caption(&v.title, (FontFamily::SansSerif, 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(90)
        .build_cartesian_2d(-0.5..n as f64 - 0.5, (lo / 3.0..hi * 3.0).log_scale())
        .map_err(fail)?;
    chart
        .configure_mesh()
        .x_labels(n.min(20))
        .x_label_formatter(&|x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|t: &f64| ticklab::atlas::short_duration(*t))
        .x_desc("major version")
        .y_desc("tick")
        .label_style((FontFamily::SansSerif, 16))
        .light_line_style(WHITE)
        .draw()
        .map_err(fail)?;
    if let Some(c) = v.claim_ns {
        let dashes = (0..10 * n).map(|i| {
            let x0 = -0.5 + i as f64 * 0.1;
            PathElement::new(vec![(x0, c), (x0 + 0.06, c)], MINIMA.stroke_width(2))
        });
        chart.draw_series(dashes).map_err(fail)?;
    }
    for (i, p) in v.points.iter().enumerate() {
        let dots = p.modes.iter().map(|&(t, share)| {
            let r = (4.0 + 14.0 * share.sqrt()) as i32;
            Circle::new((i as f64, t), r, RUNS.mix(0.8).filled())
        });
        chart.draw_series(dots).map_err(fail)?;
    }
    Ok(())
}
