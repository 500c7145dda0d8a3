//! A class's view: the ticks of one clock by engine and isolation.

use super::*;

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
