//! The views of values sorted: the values, their differences (diff(sort())), a histogram.

use super::*;

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
