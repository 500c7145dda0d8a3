//! The tick of durations measured elsewhere, and what it means for them: what `ticklab
//! analyze` and the page's "Timings measured elsewhere" both run, in the same words.

pub mod formats;

use crate::caveat::Caveat;
use crate::error::Result;
use crate::stats::{self, Band};
use crate::tick::{self, EstimatorOptions, Method, Quantum, TickEstimate};

pub use crate::unit::{ns_per_unit, Unit};
pub use formats::{Format, Series};

/// The factor of the Rule of 100: a timing should last 100 ticks for 1% quantisation error.
pub(crate) const RULE: f64 = 100.0;

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
                .find(|s| !s.series.averages)
                .unwrap_or(&self.series[0])
        })
    }
}

fn analyse(series: Series) -> Result<SeriesAnalysis> {
    if series.averages {
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
    let timings: Vec<&Series> = all.iter().filter(|s| !s.averages).collect();
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
            averages: false,
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
