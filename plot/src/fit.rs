//! The fit views: time against work with both lines, and the excess over the least-values fit.

use super::*;

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
