//! Timings measured elsewhere, in words: the answer, the tick, the overview and detail of a
//! series, its bands and notes, for `ticklab analyze` and the page alike.

pub use super::units::{duration, unit_name};
use super::{caveat, percent, ticks, DASH};
use crate::analyze::{ns_per_unit, Format, SeriesAnalysis, Unit, RULE};
use crate::caveat::Caveat;
use crate::tick::Method;

/// A value and its standard error, to the digits the error allows: "10.0148 ± 0.0003 ns".
fn with_error(v: f64, se: f64, u: Option<Unit>) -> String {
    if !(se > 0.0 && se.is_finite()) {
        return duration(v, u);
    }
    let (x, e, name) = to_digits(v, se, u);
    format!("{x} ± {e} {name}")
}

/// A value to the digits a resolution allows: a band at "4.789 µs" for a tick of 10 ns.
pub fn to_resolution(v: f64, res: f64, u: Option<Unit>) -> String {
    if !(res > 0.0 && res.is_finite()) {
        return duration(v, u);
    }
    let (x, _, name) = to_digits(v, res, u);
    format!("{x} {name}")
}

/// `v` and `e` scaled to a readable unit, with two significant digits of `e` and `v` to the
/// same place.
fn to_digits(v: f64, e: f64, u: Option<Unit>) -> (String, String, &'static str) {
    match ns_per_unit(u) {
        Some(f) => super::duration_digits(v * f, e * f),
        None => {
            let (x, e) = super::to_digits(v, e);
            (x, e, unit_name(u))
        }
    }
}

/// Why a format's averages have no tick.
fn averages_reason(f: Format) -> &'static str {
    match f {
        Format::CriterionEstimates => {
            "Criterion's estimates are per-iteration averages over many iterations, which \
             carry no tick; its sample.json holds the timings"
        }
        Format::Jmh => {
            "JMH's average-time and throughput modes report averages over many operations, \
             which carry no tick; its sample and single-shot modes hold timings"
        }
        _ => "these are averages",
    }
}

/// The answer in the terms of whoever made the timings.
pub fn answer(a: &SeriesAnalysis) -> String {
    let s = &a.series;
    let u = s.unit;
    let (one, many) = s.format.noun();
    let Some(e) = &a.estimate else {
        return format!("no tick: {}", averages_reason(s.format));
    };
    if let Some(d) = a.printed_digits {
        return format!(
            "no tick: the values are printed to {d} significant digits, so each one's \
             precision changes with its size, and no step finer than a value's own \
             printing shows in them; timings to {d} digits are likely averages"
        );
    }
    match e.method {
        Method::NoTick => "no tick found: the values lie on no step (doubles at full \
                           precision); averages over many runs have no tick"
            .into(),
        Method::Precision if e.tick > 1.5 * e.quantum.step() => format!(
            "at most {}: no coarser tick tried fits, and finer ones cannot be searched for \
             in {many} this long (they are written to {})",
            duration(e.tick, u),
            duration(e.quantum.step(), u)
        ),
        Method::Precision => format!(
            "at most {}: the data's own precision; nothing coarser fits",
            duration(e.tick, u)
        ),
        _ => {
            let rule = RULE * e.tick;
            let shorter = s.values.iter().filter(|&&v| v > 0.0 && v < rule).count();
            let shortest = s.shortest();
            let tail = if a.offset {
                // The values are the runs less an unknown offset, and those it made
                // negative are 0: how long the runs lasted is not in them.
                "; these values are the runs less a common offset (a shell's start-up \
                 time taken off each), so they do not say how long the runs lasted"
                    .to_string()
            } else if shorter == 0 {
                format!(
                    "; every one here is longer (the shortest lasted {})",
                    duration(shortest, u)
                )
            } else {
                format!("; {shorter} of the {} here are shorter", s.values.len())
            };
            format!(
                "these {many} were timed by a clock of {}: a {one} shorter than {} carries \
                 more than 1% quantisation error (Rule of 100){tail}",
                duration(e.tick, u),
                duration(rule, u)
            )
        }
    }
}

/// The tick as a person reads it: "41.67 ns = 125/3 ns", "at most 1.000 ms", "none".
pub fn tick_words(a: &SeriesAnalysis) -> String {
    let u = a.series.unit;
    match &a.estimate {
        None => "none (averages)".into(),
        Some(e) => match e.method {
            Method::NoTick => "none found".into(),
            Method::Precision => format!("at most {}", duration(e.tick, u)),
            _ => {
                let mut t = match e.exact {
                    Some(_) => duration(e.tick, u),
                    None => with_error(e.tick, e.uncertainty, u),
                };
                if let Some(x) = e.exact {
                    if x.den != 1 || ns_per_unit(u).is_none() {
                        t.push_str(&format!(" = {x} {}", unit_name(u)));
                    }
                }
                t
            }
        },
    }
}

/// The columns of the overview of many series.
pub const OVERVIEW_COLUMNS: [&str; 7] = [
    "series",
    "format",
    "values",
    "tick",
    "explains",
    "shortest",
    "Rule of 100 asks",
];

/// One series' row of the overview, under [`OVERVIEW_COLUMNS`].
pub fn overview_row(a: &SeriesAnalysis) -> Vec<String> {
    let s = &a.series;
    let shortest = s.shortest();
    vec![
        s.name.clone(),
        s.format.name().into(),
        s.values.len().to_string(),
        tick_words(a),
        a.estimate
            .as_ref()
            .filter(|e| e.found())
            .map_or(DASH.into(), |e| percent(e.share_explained)),
        if shortest.is_finite() {
            duration(shortest, s.unit)
        } else {
            DASH.into()
        },
        a.rule_of_100()
            .map_or(DASH.into(), |r| format!("≥ {}", duration(r, s.unit))),
    ]
}

/// The lines of one series' detail: `[label, words]`, as the command's table and the page's
/// list show them.
pub fn detail_rows(a: &SeriesAnalysis) -> Vec<[String; 2]> {
    let s = &a.series;
    let u = s.unit;
    let mut rows = vec![
        [
            "source".into(),
            format!(
                "{} ({}), {} values",
                s.name,
                s.format.name(),
                s.values.len()
            ),
        ],
        ["tick".into(), tick_words(a)],
    ];
    if let Some(e) = &a.estimate {
        if e.found() {
            rows.push([
                "explains".into(),
                format!(
                    "{:.2}% of {} positive values, where chance gives {:.1}%",
                    e.share_explained * 100.0,
                    e.intervals,
                    e.chance * 100.0
                ),
            ]);
            if e.straddles > 0.0 {
                rows.push(["straddles".into(), format!("{:.2}%", e.straddles * 100.0)]);
            }
        }
        rows.push(["method".into(), super::method_label(e.method).into()]);
        rows.push([
            "reliable".into(),
            if e.reliable { "yes" } else { "no" }.into(),
        ]);
        rows.push([
            "precision".into(),
            format!("{} (the values' own)", duration(e.quantum.step(), u)),
        ]);
        rows.push(["zero values".into(), e.zeros.to_string()]);
        rows.push(["smallest non-zero".into(), duration(e.smallest_nonzero, u)]);
        rows.push([
            "smallest diff(sort())".into(),
            e.smallest_diff_sort.map_or(DASH.into(), |v| duration(v, u)),
        ]);
    }
    rows
}

/// The bands worth showing, "level: count", when they gather the values: a level per value
/// is no band, and the largest bands (at most 32 are kept) must hold most values.
pub fn band_lines(a: &SeriesAnalysis) -> Vec<String> {
    let s = &a.series;
    let gathered: u64 = a.bands.iter().map(|b| b.count).sum();
    if a.bands.is_empty()
        || a.bands.len() * 4 > s.values.len()
        || gathered * 2 < s.values.len() as u64
    {
        return Vec::new();
    }
    let tick = a.estimate.as_ref().filter(|e| e.found()).map(|e| e.tick);
    let res = a.estimate.as_ref().map_or(0.0, |e| e.tick / 4.0);
    a.bands
        .iter()
        .map(|b| {
            let level = to_resolution(b.level, res, s.unit);
            match tick.map(|t| (b.level / t).round()) {
                Some(k) => format!("{level} ({}): {}", ticks(k), b.count),
                None => format!("{level}: {}", b.count),
            }
        })
        .collect()
}

/// The notes under a series' detail: how the values were made, and the estimate's caveats
/// that its answer does not already say.
pub fn notes(a: &SeriesAnalysis) -> Vec<String> {
    let mut out: Vec<String> = a.series.notes.iter().map(caveat).collect();
    if let Some(e) = &a.estimate {
        // The answer says these already.
        let said = |c: &Caveat| matches!(c, Caveat::AtPrecision { .. } | Caveat::NoStep);
        out.extend(e.caveats.iter().filter(|c| !said(c)).map(caveat));
    }
    out
}
