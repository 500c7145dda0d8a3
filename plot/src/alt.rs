//! Each plot in words, for whoever cannot see it (a screen reader reads it as the canvas's
//! or the image's text alternative): what it shows, and the figure it makes its point with.

use super::*;
use ticklab::present;

/// A value of the plot's unit, as its axes label it.
fn at(v: f64, unit: &str) -> String {
    format!("{} {unit}", axis_label(&v))
}

/// " (k far outliers above, marked ▲)" when the plot leaves any out of its range.
fn outliers(ys: &[f64]) -> String {
    match bulk_range(ys).1 {
        0 => String::new(),
        1 => "; 1 far outlier above the range, marked ▲".into(),
        k => format!("; {k} far outliers above the range, marked ▲"),
    }
}

/// Timings (`values` in `unit`) in words for `view` of the tick: their bands at `levels`,
/// multiples of `tick` when it is known.
pub fn describe_values(
    values: &[f64],
    levels: &[f64],
    tick: Option<f64>,
    unit: &str,
    view: View,
) -> String {
    let n = values.len();
    if n == 0 {
        return "No values to plot.".into();
    }
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    stats::sort_f64(&mut sorted);
    let (lo, hi) = (
        sorted.first().copied().unwrap_or(0.0),
        sorted.last().copied().unwrap_or(0.0),
    );
    let tick_words = tick
        .filter(|t| t.is_finite() && *t > 0.0)
        .map(|t| at(t, unit));
    match view {
        View::Raw => {
            let bands = match (levels.len(), &tick_words) {
                (0, _) => "no bands".to_string(),
                (b, Some(t)) => format!("{b} bands at multiples of the tick, {t}"),
                (b, None) => format!("{b} bands"),
            };
            format!(
                "{n} timings in the order taken, from {} to {}: {bands}{}.",
                at(lo, unit),
                at(hi, unit),
                outliers(values)
            )
        }
        View::Sorted => format!(
            "The {n} timings sorted, from {} to {}: {}.",
            at(lo, unit),
            at(hi, unit),
            match &tick_words {
                Some(t) => format!("flat steps one tick ({t}) high"),
                None => "no steps of one size".into(),
            }
        ),
        View::DiffSorted => {
            let steps: Vec<f64> = sorted.windows(2).map(|w| w[1] - w[0]).collect();
            let spikes = steps.iter().filter(|d| **d > 0.0).count();
            format!(
                "Differences between consecutive sorted timings: zero within a step, {spikes} \
                 spikes where the timings step up{}.",
                match &tick_words {
                    Some(t) => format!(", each a multiple of the tick ({t})"),
                    None => String::new(),
                }
            )
        }
        View::Histogram => {
            let mode = mode_of(&sorted);
            format!(
                "Histogram of {n} timings from {} to {}: the most common near {}{}.",
                at(lo, unit),
                at(hi, unit),
                at(mode, unit),
                match &tick_words {
                    Some(t) => format!("; spikes one tick ({t}) apart, not a hill"),
                    None => String::new(),
                }
            )
        }
        other => format!("{n} values ({}).", other.name()),
    }
}

/// The value the most values sit at (to a sixtieth of the range).
fn mode_of(sorted: &[f64]) -> f64 {
    let (lo, hi) = match (sorted.first(), sorted.last()) {
        (Some(lo), Some(hi)) if hi > lo => (*lo, *hi),
        (Some(lo), _) => return *lo,
        _ => return 0.0,
    };
    let width = (hi - lo) / 60.0;
    let mut counts = [0usize; 61];
    for v in sorted {
        counts[(((v - lo) / width) as usize).min(60)] += 1;
    }
    let best = (0..61).max_by_key(|&i| counts[i]).unwrap_or(0);
    lo + (best as f64 + 0.5) * width
}

/// `view` of clock `c` in words: what [`draw`] draws, and its figure.
pub fn describe(c: &ClockReport, view: View) -> String {
    let name = &c.info.name;
    let tick = present::tick(c, &[]);
    match view {
        View::Grid => match c.tick.as_ref().and_then(|t| t.edge_grid.as_ref()) {
            Some(g) => format!(
                "{name}: the reads counted in each of {} ticks, median {:.0}. {}",
                g.counts.len(),
                g.reads[2],
                present::grid_note(g)
            ),
            None => format!("{name}: no edges' grid."),
        },
        View::Overhead => match &c.overhead {
            Some(o) => format!(
                "{name}: the read cost of each of {} timed blocks; a read costs {}, and the \
                 shortest block to time is {}{}.",
                o.blocks,
                present::read_cost(c),
                present::min_block(c),
                outliers(&o.samples)
            ),
            None => format!("{name}: no read cost measured."),
        },
        View::Fit(i) => match c.fits.get(i) {
            Some(f) => format!(
                "{name}, {}: the smallest timing at each of {} sizes N under the runs, with \
                 the least-squares and least-values lines: {}.",
                f.workload,
                f.points.len(),
                present::slope(c)
            ),
            None => format!("{name}: no fit {i}."),
        },
        View::Excess(i) => match c.fits.get(i) {
            Some(f) => format!(
                "{name}, {}: each size's smallest timing less the fitted line (a sawtooth of \
                 the tick, {tick}, the Moiré pattern) and less the tick's staircase (flat).",
                f.workload
            ),
            None => format!("{name}: no fit {i}."),
        },
        tick_view => match &c.tick {
            Some(t) => {
                let d = TickData::of(t);
                format!(
                    "{name}: {}",
                    describe_values(&d.values, &d.levels, d.tick, d.unit, tick_view)
                )
            }
            None => format!("{name}: no tick measured."),
        },
    }
}

/// The class's plot of `clock`'s ticks in words: each group's students and ticks.
pub fn describe_class(clock: &str, groups: &[ticklab::digest::TickGroup]) -> String {
    if groups.is_empty() {
        return format!("{clock}: no student has sent a run yet.");
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|g| {
            let mut t: Vec<f64> = g.ticks_ns.clone();
            stats::sort_f64(&mut t);
            let median = t.get(t.len() / 2).copied().unwrap_or(f64::NAN);
            format!(
                "{}: {} student{}, median tick {}",
                g.label,
                t.len(),
                if t.len() == 1 { "" } else { "s" },
                present::duration(median)
            )
        })
        .collect();
    format!(
        "{clock}, one point per student, by engine and isolation, log scale. {}.",
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_and_outliers_are_said() {
        let mut v: Vec<f64> = (0..200).map(|i| 5.0 * f64::from(i % 4 + 1)).collect();
        v.extend([900.0, 1200.0, 1500.0]);
        let levels = [5.0, 10.0, 15.0, 20.0];
        let raw = describe_values(&v, &levels, Some(5.0), "µs", View::Raw);
        assert!(
            raw.contains("4 bands at multiples of the tick, 5 µs"),
            "{raw}"
        );
        assert!(raw.contains("3 far outliers above"), "{raw}");
        let sorted = describe_values(&v, &levels, Some(5.0), "µs", View::Sorted);
        assert!(sorted.contains("one tick (5 µs) high"), "{sorted}");
        let none = describe_values(&[], &[], None, "ns", View::Raw);
        assert_eq!(none, "No values to plot.");
    }
}
