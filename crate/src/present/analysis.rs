//! Timings measured elsewhere, in words: the answer, the tick, the overview and detail of a
//! series, its bands and notes, for `ticklab analyze` and the page alike.

pub use super::units::{duration, unit_name};
use super::{caveat, percent, ticks, DASH};
use crate::analyze::{
    ns_per_unit, Analysis, Format, Kind, Readings, SeriesAnalysis, Unit, READINGS_DOWN,
    READINGS_FEWEST, RULE,
};
use crate::caveat::Caveat;
use crate::tick::{Method, TickEstimate};

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
    let u = a.unit();
    let (one, many) = s.format.noun();
    match &a.failure {
        Some(why @ (Caveat::NotNumbers { .. } | Caveat::NoValues)) => return caveat(why),
        Some(why) => return format!("no tick: {}", caveat(why)),
        None => {}
    }
    let Some(e) = &a.estimate else {
        return format!("no tick: {}", averages_reason(s.format));
    };
    if let Some(r) = &a.readings {
        return readings_answer(a, r, e);
    }
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
        Method::Ambiguous => ambiguous_answer(e, u),
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

/// The ticks an ambiguous estimate names, each with its unit.
fn ambiguous_ticks(e: &TickEstimate, u: Option<Unit>) -> String {
    let ticks = e.caveats.iter().find_map(|c| match c {
        Caveat::Ambiguous { ticks } => Some(ticks.as_slice()),
        _ => None,
    });
    ticks
        .unwrap_or(std::slice::from_ref(&e.tick))
        .iter()
        .map(|t| duration(*t, u))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The answer when the values cannot choose between ticks: which, and why.
fn ambiguous_answer(e: &TickEstimate, u: Option<Unit>) -> String {
    format!(
        "no tick: ticks of {} explain these values about as well, and they sit on too few \
         levels to choose between them (a timer's or a frame loop's intervals pile up near \
         its period); time intervals of more varied lengths to tell",
        ambiguous_ticks(e, u)
    )
}

/// The answer for readings of a clock: of the intervals between them.
fn readings_answer(a: &SeriesAnalysis, r: &Readings, e: &TickEstimate) -> String {
    let u = a.unit();
    let n = r.intervals.len();
    match e.method {
        Method::NoTick => "no tick found: the intervals between the readings lie on no step \
                           (doubles at full precision)"
            .into(),
        Method::Ambiguous => ambiguous_answer(e, u),
        Method::Precision => match r.storage {
            Some(step) => format!(
                "at most {}: finer than this file can show, for the doubles that hold \
                 readings near {} are {} apart: storage, not the clock, sets the finest \
                 step here",
                duration(e.tick, u),
                duration(a.series.values.iter().copied().fold(0.0, f64::max), u),
                duration(step, u)
            ),
            None => format!(
                "at most {}: the readings' own precision; nothing coarser fits the \
                 intervals between them",
                duration(e.tick, u)
            ),
        },
        _ => {
            let rule = RULE * e.tick;
            let shorter = r.intervals.iter().filter(|&&v| v < rule).count();
            let tail = if shorter == 0 {
                format!(
                    "every interval here is longer (the shortest {})",
                    duration(a.series_shortest(), u)
                )
            } else {
                format!("{shorter} of the {n} intervals here are shorter")
            };
            // Printed digits past the doubles' spacing are noise: the tick is known to it.
            let stored = r.storage.map_or(String::new(), |step| {
                format!(
                    "; the readings are known to {}, the spacing of the doubles that hold \
                     readings this large, whatever digits they were printed with",
                    duration(step, u)
                )
            });
            format!(
                "these readings come from a clock of {}: an interval between two of them \
                 shorter than {} carries more than 1% quantisation error (Rule of 100); \
                 {tail}{stored}",
                duration(e.tick, u),
                duration(rule, u)
            )
        }
    }
}

/// What the values were read as, and why: "readings: they only grow (0 of 1999 steps
/// down) and lie far from zero beside their steps (the median reading is 4.1e9 steps)".
pub fn kind_words(a: &SeriesAnalysis) -> Option<String> {
    let k = a.recognised?;
    let what = match k.kind {
        Kind::Readings => "readings of a clock",
        Kind::Durations => "durations",
    };
    if k.forced {
        return Some(format!("{what}, as asked"));
    }
    let far = if k.far.is_finite() {
        format!("{:.3e} steps", k.far)
    } else {
        "no step".into()
    };
    Some(match k.kind {
        Kind::Readings => format!(
            "{what}: they only grow ({} of {} steps down) and lie far from zero beside their \
             steps (the median value is {far}); --durations if they are durations in order",
            k.down, k.steps
        ),
        Kind::Durations if (k.steps as usize) + 1 < READINGS_FEWEST => {
            format!("{what}: too few to tell readings by; --readings if they are")
        }
        Kind::Durations if k.down as f64 > READINGS_DOWN * k.steps as f64 => format!(
            "{what}: they go down at {} of {} steps; --readings if they are a clock's \
             readings",
            k.down, k.steps
        ),
        Kind::Durations => format!(
            "{what}: they lie near zero beside their steps (the median value is {far}); \
             --readings if they are a clock's readings"
        ),
    })
}

/// The tick as a person reads it: "41.67 ns = 125/3 ns", "at most 1.000 ms", "none".
pub fn tick_words(a: &SeriesAnalysis) -> String {
    let u = a.unit();
    if a.failure.is_some() {
        return DASH.into();
    }
    match &a.estimate {
        None => "none (averages)".into(),
        Some(e) => match e.method {
            Method::NoTick => "none found".into(),
            Method::Ambiguous => format!("ambiguous: {}", ambiguous_ticks(e, u)),
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
    let shortest = a.series_shortest();
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
            duration(shortest, a.unit())
        } else {
            DASH.into()
        },
        a.rule_of_100()
            .map_or(DASH.into(), |r| format!("≥ {}", duration(r, a.unit()))),
    ]
}

/// The columns of a table's analysis, one row a column of the file.
pub const COLUMNS_COLUMNS: [&str; 7] = [
    "column",
    "values",
    "read as",
    "tick",
    "verdict",
    "precision",
    "reliable",
];

/// The verdict of a series in a word or three: what kind of answer its tick is.
pub fn verdict_words(a: &SeriesAnalysis) -> String {
    if let Some(why) = &a.failure {
        return match why {
            Caveat::NotNumbers { .. } => "not numbers: skipped".into(),
            Caveat::NoValues => "empty: skipped".into(),
            Caveat::NoPositiveInterval { .. } | Caveat::NeverAdvanced => {
                "no step: all alike or zero".into()
            }
            Caveat::OneValue { .. } => "all alike: no step".into(),
            _ => "no tick".into(),
        };
    }
    match &a.estimate {
        None => "averages: no tick".into(),
        Some(_) if a.printed_digits.is_some() => "printed averages: no tick".into(),
        Some(e) => match e.method {
            Method::NoTick => "on no step".into(),
            Method::Ambiguous => "ambiguous: no tick".into(),
            Method::Precision if a.readings.as_ref().is_some_and(|r| r.storage.is_some()) => {
                "finer than the file shows".into()
            }
            Method::Precision => "at most its precision".into(),
            _ if e.caveats.iter().any(|c| matches!(c, Caveat::SingleLevel)) => {
                "one level: a bound".into()
            }
            _ => "a tick".into(),
        },
    }
}

/// The overview of an analysis: a table's columns under [`COLUMNS_COLUMNS`], each with
/// its reason when it has no tick; a tool's series (and all of them together) under
/// [`OVERVIEW_COLUMNS`].
pub fn overview(an: &Analysis) -> (&'static [&'static str], Vec<Vec<String>>) {
    if an.is_table() {
        (&COLUMNS_COLUMNS, an.series.iter().map(column_row).collect())
    } else {
        (
            &OVERVIEW_COLUMNS,
            an.series
                .iter()
                .chain(an.combined.as_ref())
                .map(overview_row)
                .collect(),
        )
    }
}

/// One column's row of a table's analysis, under [`COLUMNS_COLUMNS`]: its reason in the
/// row when it has no tick.
pub fn column_row(a: &SeriesAnalysis) -> Vec<String> {
    let e = a.estimate.as_ref();
    vec![
        a.series.name.clone(),
        a.series.values.len().to_string(),
        match (&a.failure, a.recognised.map(|k| k.kind)) {
            (Some(Caveat::NotNumbers { .. } | Caveat::NoValues), _) => DASH.into(),
            (_, Some(Kind::Readings)) => "readings".into(),
            (_, Some(Kind::Durations)) => "durations".into(),
            (_, None) => DASH.into(),
        },
        tick_words(a),
        verdict_words(a),
        e.filter(|_| a.failure.is_none())
            .map_or(DASH.into(), |e| duration(e.quantum.step(), a.unit())),
        e.filter(|_| a.failure.is_none()).map_or(DASH.into(), |e| {
            if e.reliable { "yes" } else { "no" }.into()
        }),
    ]
}

/// The lines of one series' detail: `[label, words]`, as the command's table and the page's
/// list show them.
pub fn detail_rows(a: &SeriesAnalysis) -> Vec<[String; 2]> {
    let s = &a.series;
    let u = a.unit();
    let mut rows = vec![[
        "source".into(),
        format!(
            "{} ({}), {} values",
            s.name,
            s.format.name(),
            s.values.len()
        ),
    ]];
    if let Some(k) = kind_words(a) {
        rows.push(["read as".into(), k]);
    }
    if let Some(r) = &a.readings {
        rows.push([
            "intervals".into(),
            format!(
                "{} between consecutive readings ({} readings equal to the one before, {} \
                 below it, left out)",
                r.intervals.len(),
                r.repeats,
                r.down
            ),
        ]);
        if let Some(e) = r.epoch {
            rows.push([
                "unit".into(),
                format!(
                    "{}: readings of this size are epoch {} (since 1970) of the years 2000 to \
                     2100; --unit says otherwise",
                    unit_name(Some(e)),
                    match e {
                        Unit::S => "seconds",
                        Unit::Ms => "milliseconds",
                        Unit::Us => "microseconds",
                        _ => "nanoseconds",
                    }
                ),
            ]);
        }
    }
    rows.push(["tick".into(), tick_words(a)]);
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
            match a.readings.as_ref().and_then(|r| r.storage) {
                Some(q) => format!(
                    "{} (the spacing of the doubles that hold the readings)",
                    duration(q, u)
                ),
                None => format!("{} (the values' own)", duration(e.quantum.step(), u)),
            },
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
    let n = a.analysed().len();
    let gathered: u64 = a.bands.iter().map(|b| b.count).sum();
    if a.bands.is_empty() || a.bands.len() * 4 > n || gathered * 2 < n as u64 {
        return Vec::new();
    }
    let tick = a.estimate.as_ref().filter(|e| e.found()).map(|e| e.tick);
    let res = a.estimate.as_ref().map_or(0.0, |e| e.tick / 4.0);
    a.bands
        .iter()
        .map(|b| {
            let level = to_resolution(b.level, res, a.unit());
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
