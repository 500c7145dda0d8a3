//! The tick of durations measured elsewhere, and what it means for them: what `ticklab
//! analyze` and the page's "Timings measured elsewhere" both run, in the same words.

pub mod formats;

use serde::{Deserialize, Serialize};

use crate::caveat::Caveat;
use crate::error::Result;
use crate::present;
use crate::stats::{self, Band};
use crate::tick::{self, EstimatorOptions, Method, Quantum, TickEstimate};

/// The unit of plain numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Seconds.
    S,
    /// Milliseconds.
    Ms,
    /// Microseconds.
    Us,
    /// Nanoseconds.
    Ns,
    /// Counts of an unknown clock.
    Ticks,
}

pub use formats::{Format, Series};

/// The factor of the Rule of 100: a timing should last 100 ticks for 1% quantisation error.
const RULE: f64 = 100.0;

/// The unit's name in words and CSV ("ms"; "ticks" when none is known).
pub fn unit_name(u: Option<Unit>) -> &'static str {
    match u {
        Some(Unit::S) => "s",
        Some(Unit::Ms) => "ms",
        Some(Unit::Us) => "us",
        Some(Unit::Ns) => "ns",
        Some(Unit::Ticks) | None => "ticks",
    }
}

/// Nanoseconds in one unit, when the unit is a time.
pub fn ns_per_unit(u: Option<Unit>) -> Option<f64> {
    match u {
        Some(Unit::S) => Some(1e9),
        Some(Unit::Ms) => Some(1e6),
        Some(Unit::Us) => Some(1e3),
        Some(Unit::Ns) => Some(1.0),
        Some(Unit::Ticks) | None => None,
    }
}

/// A duration in the series' unit, readable: "41.67 ns", or "3.5 ticks" when the unit is
/// not known.
pub fn duration(v: f64, u: Option<Unit>) -> String {
    match ns_per_unit(u) {
        Some(f) => present::duration(v * f),
        None => format!("{v} {}", unit_name(u)),
    }
}

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
        Some(f) => present::duration_digits(v * f, e * f),
        None => {
            let (x, e) = present::to_digits(v, e);
            (x, e, unit_name(u))
        }
    }
}

/// What one series gave.
pub struct SeriesAnalysis {
    /// The values and where they came from.
    pub series: Series,
    /// The tick estimate; none for averages, which have no tick.
    pub estimate: Option<TickEstimate>,
    /// Whether the estimate is of the values' differences: they share an offset.
    pub offset: bool,
    /// Levels of the values at multiples of the tick.
    pub bands: Vec<Band>,
    /// The significant digits the values were printed to, when the only tick that fits
    /// them is one their printing makes (means printed to four digits).
    pub printed_digits: Option<i32>,
}

impl SeriesAnalysis {
    /// The tick, when one was found or the data's precision bounds it; none otherwise.
    pub fn tick(&self) -> Option<f64> {
        self.estimate
            .as_ref()
            .filter(|e| e.method != Method::NoTick)
            .map(|e| e.tick)
    }

    /// The shortest timing with at most 1% quantisation error, when a tick was found.
    pub fn rule_of_100(&self) -> Option<f64> {
        self.estimate
            .as_ref()
            .filter(|e| e.found())
            .map(|e| RULE * e.tick)
    }

    /// The answer in the terms of whoever made the timings.
    pub fn answer(&self) -> String {
        let s = &self.series;
        let u = s.unit;
        let (one, many) = s.format.noun();
        let Some(e) = &self.estimate else {
            return format!(
                "no tick: {}",
                s.averages.as_deref().unwrap_or("these are averages")
            );
        };
        if let Some(d) = self.printed_digits {
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
                let tail = if self.offset {
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
}

/// Everything `analyze` made of its input.
pub struct Analysis {
    /// One result for each series read.
    pub series: Vec<SeriesAnalysis>,
    /// All timing series of one unit together, when there are several: one clock timed
    /// them all, and more values pin its tick down better.
    pub combined: Option<SeriesAnalysis>,
}

impl Analysis {
    /// The headline result: all series together, or the first of timings, or the first.
    pub fn main(&self) -> &SeriesAnalysis {
        self.combined.as_ref().unwrap_or_else(|| {
            self.series
                .iter()
                .find(|s| s.series.averages.is_none())
                .unwrap_or(&self.series[0])
        })
    }
}

fn analyse(series: Series) -> Result<SeriesAnalysis> {
    if series.averages.is_some() {
        return Ok(SeriesAnalysis {
            series,
            estimate: None,
            offset: false,
            bands: Vec::new(),
            printed_digits: None,
        });
    }
    let opts = EstimatorOptions::default();
    let unit_s = ns_per_unit(series.unit).map(|ns| ns * 1e-9);
    let mut estimate =
        tick::estimate_with_finer(&series.values, series.quantum, series.finer, unit_s, &opts)?;
    let mut offset = false;
    // Values that sit on their own grid (whole milliseconds) carry no offset to take off:
    // trying their differences too would only be another look for a chance fit.
    let step = series.quantum.step();
    let on_grid = series
        .values
        .iter()
        .filter(|v| (*v / step - (*v / step).round()).abs() > 0.01)
        .count()
        * 100
        <= series.values.len();
    if !estimate.found() && !on_grid && series.values.len() >= 10 {
        if let Some((mut e, reference)) = offset_estimate(&series, unit_s, &opts)? {
            // The zeros the table shows are the file's (runs the offset made negative).
            e.zeros = series.values.iter().filter(|v| **v == 0.0).count() as u64;
            e.caveats.insert(
                0,
                Caveat::SharedOffset {
                    reference,
                    unit: series.unit,
                },
            );
            estimate = e;
            offset = true;
        }
    }
    // A tick, or the bound of the values' precision, that only their printing makes.
    let mut printed_digits = None;
    let refused = if estimate.found()
        && !offset
        && estimate.tick > series.quantum.step() * (1.0 + 1e-9)
    {
        printing_alone(&series, estimate.tick, estimate.quantum.step()).filter(|&(shown, share)| {
            let positive = series.values.iter().filter(|x| **x > 0.0).count();
            shown == 0 || share < opts.min_share || (shown < MIN_SHOWN && 2 * shown < positive)
        })
    } else if estimate.method == Method::Precision {
        significant_print(&series).map(|_| (0, 0.0))
    } else {
        None
    };
    if let Some((shown, share)) = refused {
        let digits = significant_digits(&series);
        printed_digits = Some(digits);
        // Its caveats were of the tick refused.
        estimate.caveats = vec![Caveat::OnlyPrinting {
            tick: estimate.tick,
            shown: shown as u64,
            values: series.values.len() as u64,
            share,
            digits,
            precision: series.quantum.step(),
            unit: series.unit,
        }];
        estimate.method = Method::NoTick;
        estimate.reliable = false;
        estimate.exact = None;
        estimate.share_explained = share;
    }
    let bands = if estimate.found() || estimate.method == Method::Precision {
        stats::bands(&series.values, estimate.tick / 4.0, 32)
    } else {
        Vec::new()
    };
    Ok(SeriesAnalysis {
        series,
        estimate: Some(estimate),
        offset,
        bands,
        printed_digits,
    })
}

/// Fewest values written finely enough to show a tick for it to be one, unless they are
/// most of the values.
const MIN_SHOWN: usize = 10;

/// A tick is evidence of a clock only in the values whose printing could have shown a
/// value off its multiples: those written to a step finer than it (487.3, written to 0.1,
/// is a multiple of 0.001 because of its printing, whatever timed it). Returns how many
/// values are written that finely and the share of them the tick explains, to within their
/// own step (`grid` for values at a double's full precision); none when the values' digits
/// are not known.
fn printing_alone(series: &Series, tick: f64, grid: f64) -> Option<(usize, f64)> {
    if series.places.len() != series.values.len() || tick.is_nan() || tick <= 0.0 {
        return None;
    }
    let (mut shown, mut hit) = (0usize, 0usize);
    for (&x, &p) in series.values.iter().zip(&series.places) {
        let q = if p == formats::FULL_PRECISION {
            grid
        } else {
            10f64.powi(-i32::from(p))
        };
        if x.is_nan() || x <= 0.0 || q >= tick * (1.0 - 1e-9) {
            continue;
        }
        shown += 1;
        if (x - (x / tick).round() * tick).abs() < q * (1.0 + 1e-9) + 1e-12 * x {
            hit += 1;
        }
    }
    Some((
        shown,
        if shown == 0 {
            0.0
        } else {
            hit as f64 / shown as f64
        },
    ))
}

/// Values printed to a few significant digits rather than to one step: most of them are
/// written coarser than the finest (31007 to 1, 0.8903 to 0.0001), so the finest step is
/// no bound on a tick. The digits, when so.
fn significant_print(series: &Series) -> Option<i32> {
    let written: Vec<i16> = series
        .places
        .iter()
        .zip(&series.values)
        .filter(|(p, x)| **p != formats::FULL_PRECISION && **x > 0.0)
        .map(|(p, _)| *p)
        .collect();
    if written.len() != series.values.len() || written.len() < MIN_SHOWN {
        return None;
    }
    let finest = *written.iter().max()?;
    let at_finest = written.iter().filter(|p| **p == finest).count();
    let digits = significant_digits(series);
    (2 * at_finest < written.len() && digits <= 6).then_some(digits)
}

/// The significant digits most values were written with (a printer's "%.4g" writes 31007
/// whole, with five).
fn significant_digits(series: &Series) -> i32 {
    // A double prints at most 17 significant digits; more are the print's own zeros.
    let mut counts = [0usize; 18];
    for (x, p) in series.values.iter().zip(&series.places) {
        if *x > 0.0 && *p != formats::FULL_PRECISION {
            let d = i32::from(*p) + x.log10().floor() as i32 + 1;
            counts[d.clamp(0, 17) as usize] += 1;
        }
    }
    // The most common, the fewer digits among equals.
    let mut best = 0;
    for (d, &n) in counts.iter().enumerate() {
        if n > counts[best] {
            best = d;
        }
    }
    best as i32
}

/// References tried for values that share an offset.
const OFFSET_REFERENCES: usize = 5;

/// The tick of values that share an offset (hyperfine takes the shell's mean start-up time
/// off every run, and clamps the runs it makes negative to 0): they are multiples of no
/// tick, but their differences are. The offset cancels, so the differences lie on the
/// values' grid, off their multiple by the two values' rounding: up to one quantum when the
/// reference value sits near its multiple, two at most. A reference off its multiple shifts
/// every difference, so a few of the smallest values are tried as the reference at one
/// quantum before all differences from the smallest at two. Returns the estimate and the
/// reference.
fn offset_estimate(
    series: &Series,
    unit_s: Option<f64>,
    opts: &EstimatorOptions,
) -> Result<Option<(TickEstimate, f64)>> {
    let mut refs: Vec<f64> = series
        .values
        .iter()
        .copied()
        .filter(|v| *v > 0.0 && v.is_finite())
        .collect();
    crate::stats::sort_f64(&mut refs);
    refs.dedup();
    refs.truncate(OFFSET_REFERENCES);
    let differences = |r: f64| -> Vec<f64> {
        series
            .values
            .iter()
            .filter(|v| **v > 0.0)
            .map(|v| (v - r).abs())
            .filter(|d| *d > 0.0)
            .collect()
    };
    let Some(&min) = refs.first() else {
        return Ok(None);
    };
    let d = differences(min);
    if d.len() < 10 {
        return Ok(None);
    }
    let q = Quantum::infer(&d);
    if q.is_precision() {
        for &r in &refs {
            let e = tick::estimate(&differences(r), q, unit_s, opts)?;
            if e.found() {
                return Ok(Some((e, r)));
            }
        }
    }
    let step = if q.is_precision() {
        q.step()
    } else {
        series.quantum.step()
    };
    let e = tick::estimate(&d, Quantum::Spacing { step: 2.0 * step }, unit_s, opts)?;
    Ok(e.found().then_some((e, min)))
}

/// Every series' tick, and that of all timing series together when they share a unit.
pub fn analyse_all(all: Vec<Series>) -> Result<Analysis> {
    // All timing series together, when they share a unit and there are several.
    let timings: Vec<&Series> = all.iter().filter(|s| s.averages.is_none()).collect();
    let combined = if timings.len() >= 2 && timings.iter().all(|s| s.unit == timings[0].unit) {
        let values: Vec<f64> = timings
            .iter()
            .flat_map(|s| s.values.iter().copied())
            .collect();
        // The finest quantum of them all holds every value.
        let quantum = timings
            .iter()
            .map(|s| s.quantum)
            .min_by(|a, b| a.step().total_cmp(&b.step()))
            .unwrap_or_default();
        let finer = timings
            .iter()
            .filter_map(|s| s.finer)
            .min_by(|a, b| a.step().total_cmp(&b.step()));
        let first = timings[0];
        Some(Series {
            name: format!("all {} series together", timings.len()),
            format: first.format,
            unit: first.unit,
            values,
            quantum,
            finer,
            averages: None,
            notes: Vec::new(),
            places: timings
                .iter()
                .flat_map(|s| s.places.iter().copied())
                .collect(),
        })
    } else {
        None
    };
    let series = all.into_iter().map(analyse).collect::<Result<Vec<_>>>()?;
    let combined = combined.map(analyse).transpose()?;
    Ok(Analysis { series, combined })
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
            .map_or(present::DASH.into(), |e| {
                present::percent(e.share_explained)
            }),
        if shortest.is_finite() {
            duration(shortest, s.unit)
        } else {
            present::DASH.into()
        },
        a.rule_of_100().map_or(present::DASH.into(), |r| {
            format!("≥ {}", duration(r, s.unit))
        }),
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
        rows.push(["method".into(), present::method_label(e.method).into()]);
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
            e.smallest_diff_sort
                .map_or(present::DASH.into(), |v| duration(v, u)),
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
                Some(k) => format!("{level} ({}): {}", present::ticks(k), b.count),
                None => format!("{level}: {}", b.count),
            }
        })
        .collect()
}

/// The notes under a series' detail: how the values were made, and the estimate's caveats
/// that its answer does not already say.
pub fn notes(a: &SeriesAnalysis) -> Vec<String> {
    let mut out = a.series.notes.clone();
    if let Some(e) = &a.estimate {
        // The answer says these already.
        let said = |c: &Caveat| matches!(c, Caveat::AtPrecision { .. } | Caveat::NoStep);
        out.extend(e.caveats.iter().filter(|c| !said(c)).map(present::caveat));
    }
    out
}

/// Reads `bytes` as `analyze` does and estimates their tick: every step from bytes to
/// answer.
pub fn examine(
    bytes: &[u8],
    column: Option<&str>,
    name: &str,
    unit: Option<Unit>,
    json: formats::JsonParser,
) -> Result<Analysis> {
    analyse_all(formats::read(bytes, column, name, unit, json)?)
}
