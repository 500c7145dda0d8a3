//! The tick of durations measured elsewhere, and what it means for them: what `ticklab
//! analyze` and the page's "Timings measured elsewhere" both run, in the same words.

pub mod formats;
mod printing;

use serde::{Deserialize, Serialize};

use crate::caveat::Caveat;
use crate::error::{Error, Result};
use crate::stats::{self, Band};
use crate::tick::{self, model, EstimatorOptions, Method, Quantum, TickEstimate};

pub use crate::unit::{ns_per_unit, Unit};
pub use formats::{Format, Series};
use printing::*;

/// The factor of the Rule of 100: a timing should last 100 ticks for 1% quantisation error.
pub(crate) const RULE: f64 = 100.0;

/// What a series' values are: how long things took, or what a clock read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Durations: each value is how long one thing took.
    Durations,
    /// Readings of a clock: each value is what it read, and the tick divides the intervals
    /// between them.
    Readings,
}

/// Why a series was read as it was, with the figures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recognised {
    /// What it was read as.
    pub kind: Kind,
    /// Whether that was asked for (`--readings`, `--durations`), not recognised.
    pub forced: bool,
    /// Steps between consecutive values.
    pub steps: u64,
    /// Steps that went down.
    pub down: u64,
    /// The median value over the median positive step: readings lie far from zero beside
    /// their steps (NaN when no step is positive).
    pub far: f64,
}

/// Fewest values a series needs to be recognised as readings: fewer may grow by chance.
pub const READINGS_FEWEST: usize = 10;
/// Most steps down, as a share of all, that readings may take: logs of several threads or
/// processes, each line stamped when written, come a little out of order; a set of
/// durations in no order goes down at half its steps, and sorted ones never.
pub const READINGS_DOWN: f64 = 0.01;
/// Least median value, in median positive steps, of readings: a clock read from some
/// origin lies far from zero beside the intervals between its readings, where durations
/// that grow (sizes timed in order) are a few steps from it.
pub const READINGS_FAR: f64 = 10.0;

/// Whether `values` are readings: they only grow (or nearly) and lie far from zero beside
/// their steps. `forced` is what the user asked for, when they asked.
pub fn recognise(values: &[f64], forced: Option<Kind>) -> Recognised {
    let mut down = 0u64;
    let mut steps: Vec<f64> = Vec::with_capacity(values.len());
    for w in values.windows(2) {
        if w[1] < w[0] {
            down += 1;
        } else if w[1] > w[0] {
            steps.push(w[1] - w[0]);
        }
    }
    let n = values.len().saturating_sub(1) as u64;
    let median = |v: &mut Vec<f64>| {
        stats::sort_f64(v);
        stats::quantile_sorted(v, 0.5)
    };
    let step = if steps.is_empty() {
        f64::NAN
    } else {
        median(&mut steps)
    };
    let mut all = values.to_vec();
    let far = median(&mut all) / step;
    // A clock's readings go down far less often than they go up: values that stand still
    // and wander by their doubles' noise (1e9, then 999999999.99994) are durations.
    let readings = values.len() >= READINGS_FEWEST
        && down as f64 <= READINGS_DOWN * n as f64
        && down as usize * 4 <= steps.len()
        && far >= READINGS_FAR;
    Recognised {
        kind: match forced {
            Some(k) => k,
            None if readings => Kind::Readings,
            None => Kind::Durations,
        },
        forced: forced.is_some(),
        steps: n,
        down,
        far,
    }
}

/// What readings gave beside their tick: the intervals between them, and what limits
/// their precision.
#[derive(Clone, Debug, PartialEq)]
pub struct Readings {
    /// The positive intervals between consecutive readings, in order.
    pub intervals: Vec<f64>,
    /// Consecutive readings that were equal (the clock had not moved).
    pub repeats: u64,
    /// Consecutive readings that went down, left out.
    pub down: u64,
    /// The spacing of the doubles holding readings this large, when it, not the printing,
    /// sets the finest step the file can show (2^-22 s for epoch seconds).
    pub storage: Option<f64>,
    /// The unit read off the readings' size, when none was given: epoch seconds,
    /// milliseconds, microseconds or nanoseconds of the years 2000 to 2100.
    pub epoch: Option<Unit>,
}

/// What one series gave.
pub struct SeriesAnalysis {
    /// The values and where they came from.
    pub series: Series,
    /// What the values were read as, and why.
    pub recognised: Option<Recognised>,
    /// For readings, the intervals between them.
    pub readings: Option<Readings>,
    /// Why the series has no tick at all, when it has none for want of data (a column of
    /// words, values all alike or zero).
    pub failure: Option<Caveat>,
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
    /// A series with no estimate: averages, or one that failed for `failure`.
    fn without(series: Series, failure: Option<Caveat>) -> Self {
        Self {
            series,
            recognised: None,
            readings: None,
            failure,
            estimate: None,
            offset: false,
            bands: Vec::new(),
            printed_digits: None,
        }
    }

    /// The values the tick was found in: the intervals between readings, or the durations.
    pub fn analysed(&self) -> &[f64] {
        match &self.readings {
            Some(r) => &r.intervals,
            None => &self.series.values,
        }
    }

    /// The shortest positive value analysed: interval or duration (infinite when none).
    pub fn series_shortest(&self) -> f64 {
        self.analysed()
            .iter()
            .copied()
            .filter(|&v| v > 0.0)
            .fold(f64::INFINITY, f64::min)
    }

    /// Whether the values are readings of a clock.
    pub fn is_readings(&self) -> bool {
        self.readings.is_some()
    }

    /// The unit of the values: the series', or the one its readings' size told.
    pub fn unit(&self) -> Option<Unit> {
        self.series
            .unit
            .or(self.readings.as_ref().and_then(|r| r.epoch))
    }

    /// The tick, when one was found or the data's precision bounds it; none otherwise.
    pub fn tick(&self) -> Option<f64> {
        self.estimate
            .as_ref()
            .filter(|e| e.method != Method::NoTick)
            .map(|e| e.tick)
    }

    /// [`Self::tick`] in ns, when the values' unit is a time.
    pub fn tick_ns(&self) -> Option<f64> {
        self.tick()
            .and_then(|t| ns_per_unit(self.unit()).map(|f| f * t))
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
    /// Whether the series are a table's columns (each read alone, one row each).
    pub fn is_table(&self) -> bool {
        self.series.len() > 1
            && self
                .series
                .iter()
                .all(|a| a.series.format == Format::Column)
    }

    /// The headline result: all series together, or the first of timings, or the first.
    pub fn main(&self) -> &SeriesAnalysis {
        self.combined.as_ref().unwrap_or_else(|| {
            self.series
                .iter()
                .find(|s| !s.series.averages && s.estimate.is_some())
                .unwrap_or(&self.series[0])
        })
    }
}

fn analyse(mut series: Series, forced: Option<Kind>) -> Result<SeriesAnalysis> {
    // Its reason moves to the analysis: a refused column has no values to show beside it.
    if let Some(why) = series.refused.take() {
        return Ok(SeriesAnalysis::without(series, Some(why)));
    }
    if series.averages {
        return Ok(SeriesAnalysis::without(series, None));
    }
    // A tool's file says what it holds (Criterion's totals grow with their iterations):
    // only plain numbers are told apart.
    let plain = matches!(
        series.format,
        Format::Lines | Format::Column | Format::JsonArray
    );
    let recognised = (plain || forced.is_some()).then(|| recognise(&series.values, forced));
    let kind = recognised.map_or(Kind::Durations, |r| r.kind);
    // Values all alike show no step, whatever they are: the column says so in its row.
    let v = &series.values;
    if v.len() >= 2 && v.iter().all(|x| *x == v[0]) && v[0] > 0.0 {
        let n = v.len() as u64;
        let mut a = SeriesAnalysis::without(series, Some(Caveat::OneValue { readings: n }));
        a.recognised = recognised;
        return Ok(a);
    }
    let mut a = SeriesAnalysis::without(series, None);
    a.recognised = recognised;
    let done = if kind == Kind::Readings {
        readings(&mut a)
    } else {
        durations(&mut a)
    };
    match done {
        Ok(()) => Ok(a),
        // A column of values all alike or zero has no tick, and says why in its row.
        Err(Error::NoData(why)) => {
            a.failure = Some(why);
            Ok(a)
        }
        Err(e) => Err(e),
    }
}

/// The epoch unit of readings of `median` size, when it is one of the years 2000 to 2100.
fn epoch_unit(median: f64) -> Option<Unit> {
    const FROM_S: f64 = 946_684_800.0;
    const TO_S: f64 = 4_102_444_800.0;
    [
        (Unit::S, 1.0),
        (Unit::Ms, 1e3),
        (Unit::Us, 1e6),
        (Unit::Ns, 1e9),
    ]
    .into_iter()
    .find(|(_, f)| (FROM_S * f..TO_S * f).contains(&median))
    .map(|(u, _)| u)
}

pub use crate::tick::model::spacing;

/// Whether readings written exactly to `places` decimals (`written`, in units of the last
/// place) are doubles printed with more decimals than doubles near `top` hold
/// (`(performance.timeOrigin + performance.now()).toFixed(4)`: near 1.7e12 ms doubles are
/// 244 ns apart, so the fourth decimal is noise): nearly every one is its double printed
/// to that many places. Decimals from an integer clock (`date +%s.%N`) would be so one
/// time in the ratio of the spacing to the printed step, each.
fn printed_doubles(values: &[f64], written: &[u64], places: i32, top: f64) -> bool {
    if !(1..=17).contains(&places) || 10f64.powi(-places) >= spacing(top) {
        return false;
    }
    // A thousand of them say it as well as all.
    let every = (values.len() / 1024).max(1);
    let (mut n, mut same) = (0usize, 0usize);
    for (&x, &w) in values.iter().zip(written).step_by(every) {
        n += 1;
        if prints_as(x, w, places as u32) {
            same += 1;
        }
    }
    n > 0 && same as f64 >= 0.99 * n as f64
}

/// Whether the double `x` printed to `places` decimals is `w` units of the last place:
/// |w − x·10^places| ≤ ½, in exact integers (x = m·2^e), with no float formatting.
fn prints_as(x: f64, w: u64, places: u32) -> bool {
    if !(x.is_finite() && x > 0.0) || places > 17 {
        return false;
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let m = u128::from(if exp == 0 {
        (bits & ((1 << 52) - 1)) << 1
    } else {
        (bits & ((1 << 52) - 1)) | (1 << 52)
    });
    // x = m · 2^e.
    let e = exp.max(1) - 1075;
    let scaled = m * 10u128.pow(places);
    if e >= 0 {
        return e < 16 && scaled << e == u128::from(w);
    }
    let shift = -e as u32;
    // |w·2^shift − m·10^places| ≤ 2^(shift − 1), when w·2^shift fits.
    if shift > 60 {
        return false;
    }
    let lhs = u128::from(w) << shift;
    lhs.abs_diff(scaled) <= 1u128 << (shift - 1)
}

/// The estimator's options for values recorded elsewhere: no tolerance beyond the data's
/// quantum. A file's values were taken at moments the lab did not choose (a timer's
/// firings, a loop's ends), so values spread inside one level say the clock is finer than
/// that level, not that a coarse clock jitters: a coarse clock's readings move inside a
/// level only by their rounding, one quantum ([`crate::tick::SAMPLED_REL_TOLERANCE`] is for
/// the lab's own sampled clocks, whose jitter is documented).
fn sampled() -> EstimatorOptions {
    EstimatorOptions {
        rel_tolerance: 0.0,
        recorded: true,
        ..EstimatorOptions::default()
    }
}

/// The tick of readings: from the intervals between consecutive ones (exact for whole
/// numbers, to the decimals written for decimals), to the readings' own precision or, when
/// it is coarser, the spacing of the doubles that hold them.
fn readings(a: &mut SeriesAnalysis) -> Result<()> {
    let series = &mut a.series;
    let v = &series.values;
    let (mut intervals, mut repeats, mut down) = (Vec::with_capacity(v.len()), 0u64, 0u64);
    let top = v.iter().copied().fold(0.0f64, f64::max);
    // Text printed past what doubles this large hold is a double's, however many digits
    // it has: the doubles are the readings, to their spacing.
    if series
        .exact
        .as_ref()
        .is_some_and(|(w, places)| printed_doubles(v, w, *places, top))
    {
        series.exact = None;
    }
    // Decimals written to a step, differenced on that step: exact while the scaled
    // readings are whole numbers a double holds (up to 2^53).
    // (Not a grid found in doubles written to full precision: their own digits are noise.)
    let full = series.places.first() == Some(&formats::FULL_PRECISION);
    let written = match series.quantum {
        Quantum::Decimals { places } if (0..=15).contains(&places) && !full => {
            let scale = 10f64.powi(places);
            (top * scale < 9.0e15).then_some(scale)
        }
        _ => None,
    };
    let mut push = |d: f64| {
        if d > 0.0 {
            intervals.push(d);
        } else if d == 0.0 {
            repeats += 1;
        } else {
            down += 1;
        }
    };
    match (&series.exact, written) {
        (Some((w, places)), _) => {
            // Exactly as written, beyond what a double holds.
            let unit = 10f64.powi(-*places);
            for p in w.windows(2) {
                push((i128::from(p[1]) - i128::from(p[0])) as f64 * unit);
            }
        }
        (None, Some(scale)) => {
            for p in v.windows(2) {
                push(((p[1] * scale).round() - (p[0] * scale).round()) / scale);
            }
        }
        (None, None) => {
            for p in v.windows(2) {
                push(p[1] - p[0]);
            }
        }
    }
    let median = {
        let mut all = v.clone();
        stats::sort_f64(&mut all);
        stats::quantile_sorted(&all, 0.5)
    };
    let epoch = series.unit.is_none().then(|| epoch_unit(median)).flatten();
    let unit = series.unit.or(epoch);
    let (mut quantum, mut finer) = match (&series.exact, written) {
        (Some((_, places)), _) => (Quantum::Decimals { places: *places }, None),
        (None, Some(_)) => (series.quantum, None),
        (None, None) => Quantum::infer_with_finer(&intervals),
    };
    // Storage, not the clock: readings this large are held by doubles this far apart (text
    // read exactly came from doubles too when every reading lies on their grid).
    let written = series.exact.as_ref().map(|(w, p)| (&w[..], *p));
    let stored = model::readings_grid(v, written, top).unwrap_or(0.0);
    let storage = (stored > quantum.step()).then_some(stored);
    if let Some(step) = storage {
        quantum = Quantum::Spacing { step };
        finer = None;
    }
    // Whole units rounded before the readings were held as doubles this coarse (whole ns of
    // a kernel's clock in doubles of seconds): that grid is the intervals' precision, as for
    // durations. (Readings held finely lie on their clock's own grid.)
    let print = match series.quantum {
        Quantum::Float { .. } => 0.0,
        q => q.step(),
    };
    let unit_s = ns_per_unit(unit).map(|ns| ns * 1e-9);
    if let Some(places) =
        storage.and_then(|step| model::rounded_before(&intervals, print, step, true, unit_s))
    {
        // The doubles' grid stays the finer error: a clock of that decimal tick (100 µs
        // of a performance.now clamp) is told there, as for durations.
        finer = Some(quantum);
        quantum = Quantum::Decimals { places };
    }
    let opts = sampled();
    let (quantum, mut estimate) = model::widened(quantum, &mut |q| {
        tick::estimate_with_finer(&intervals, q, finer, unit_s, &opts)
    })?;
    if let Some(step) = storage {
        model::hold_to_storage(&mut estimate, step);
    }
    model::never_storage(&mut estimate, unit_s);
    a.bands = if estimate.found() || estimate.method == Method::Precision {
        stats::bands(&intervals, estimate.tick / 4.0, 32)
    } else {
        Vec::new()
    };
    // The readings' quantum is their intervals' now.
    series.quantum = quantum;
    series.finer = finer;
    a.estimate = Some(estimate);
    a.readings = Some(Readings {
        intervals,
        repeats,
        down,
        storage,
        epoch,
    });
    Ok(())
}

/// The tick of durations, and whether only their printing makes it.
fn durations(a: &mut SeriesAnalysis) -> Result<()> {
    let (estimate, offset, bands, printed_digits) = durations_of(&a.series)?;
    a.estimate = Some(estimate);
    a.offset = offset;
    a.bands = bands;
    a.printed_digits = printed_digits;
    Ok(())
}

#[allow(clippy::type_complexity)]
fn durations_of(series: &Series) -> Result<(TickEstimate, bool, Vec<Band>, Option<i32>)> {
    let opts = sampled();
    let unit_s = ns_per_unit(series.unit).map(|ns| ns * 1e-9);
    // Values on the grid of the doubles that held their readings err by a whole step of it
    // (the error model, `tick::model`): that grid is their precision, never a tick.
    // Doubles printed in full read back exactly: their print adds no error.
    let print = match series.quantum {
        Quantum::Float { .. } => 0.0,
        q => q.step(),
    };
    // The error is the larger of the two: a grid finer than the quantum's step (the float
    // noise allowed doubles printed in full) is covered by it already.
    let stored =
        model::doubles_grid(&series.values, print, unit_s).filter(|&g| g > series.quantum.step());
    // Rounded to a coarser decimal grid before they were printed (whole ns of a kernel's
    // clock, held as doubles of seconds): that grid is their precision (a whole step
    // between two readings), the print's the finer one.
    let rounded =
        model::rounded_before(&series.values, print, stored.unwrap_or(0.0), false, unit_s)
            .filter(|&places| 10f64.powi(-places) > series.quantum.step() * (1.0 + 1e-9));
    let (quantum, finer) = match (rounded, stored) {
        (Some(places), _) => (Quantum::Decimals { places }, Some(series.quantum)),
        (None, Some(step)) => (Quantum::Spacing { step }, None),
        (None, None) => (series.quantum, series.finer),
    };
    let (quantum, mut estimate) = model::widened(quantum, &mut |q| {
        tick::estimate_with_finer(&series.values, q, finer, unit_s, &opts)
    })?;
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
    // Differences inside piles cancel a shared offset too, but say nothing of it: values
    // off their grid are tried as sharing one first.
    let from_piles = estimate
        .caveats
        .iter()
        .any(|c| matches!(c, Caveat::InsidePiles { .. }));
    if (!estimate.found() || from_piles) && !on_grid && series.values.len() >= 10 {
        if let Some((mut e, reference)) = offset_estimate(series, quantum, unit_s, &opts)? {
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
    // A tick told by the differences inside piles is shown by those differences, which
    // no printing makes: the values themselves are too long to show it.
    let told_inside = estimate
        .caveats
        .iter()
        .any(|c| matches!(c, Caveat::InsidePiles { .. }));
    let refused = if estimate.found()
        && !offset
        && !told_inside
        && estimate.tick > series.quantum.step() * (1.0 + 1e-9)
    {
        printing_alone(series, estimate.tick, estimate.quantum.step()).filter(|&(shown, share)| {
            let positive = series.values.iter().filter(|x| **x > 0.0).count();
            shown == 0 || share < opts.min_share || (shown < MIN_SHOWN && 2 * shown < positive)
        })
    } else if estimate.method == Method::Precision {
        significant_print(series).map(|_| (0, 0.0))
    } else {
        None
    };
    if let Some((shown, share)) = refused {
        let digits = significant_digits(series);
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
    if let Quantum::Spacing { step } = quantum {
        model::hold_to_storage(&mut estimate, step);
    }
    model::never_storage(&mut estimate, unit_s);
    let bands = if estimate.found() || estimate.method == Method::Precision {
        stats::bands(&series.values, estimate.tick / 4.0, 32)
    } else {
        Vec::new()
    };
    Ok((estimate, offset, bands, printed_digits))
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
    quantum: Quantum,
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
    let largest = series.values.iter().copied().fold(0.0f64, f64::max);
    let d = differences(min);
    if d.len() < 10 {
        return Ok(None);
    }
    // Differences of values this large are held by doubles this far apart: no finer; nor
    // than the grid of the doubles that held their readings.
    let stored = match quantum {
        Quantum::Spacing { step } => step,
        _ => 0.0,
    };
    let q = match Quantum::infer(&d) {
        q if q.step() < spacing(largest).max(stored) => Quantum::Spacing {
            step: spacing(largest).max(stored),
        },
        q => q,
    };
    if q.is_precision() {
        for &r in &refs {
            let e = tick::estimate(&differences(r), q, unit_s, opts)?;
            if e.found() && e.tick > tick::FLOAT_NOISE * largest {
                return Ok(Some((e, r)));
            }
        }
    }
    // Never finer than the doubles holding the values: differences of doubles a
    // hundredth of a nanosecond apart (nanoseconds of a day) sit on that grid, whatever
    // timed them.
    let step = if q.is_precision() {
        q.step()
    } else {
        quantum.step()
    }
    .max(spacing(largest))
    .max(stored);
    let e = tick::estimate(&d, Quantum::Spacing { step: 2.0 * step }, unit_s, opts)?;
    // A step under the noise of the readings' doubles is that noise (differences near
    // 100 ms of readings near 20 minutes sit 1.2e-10 ms apart), no clock's.
    Ok((e.found() && e.tick > tick::FLOAT_NOISE * largest).then_some((e, min)))
}

/// Every series' tick, and that of all timing series of a tool's file together when they
/// share a unit (one clock timed them all); a table's columns are each their own (one
/// browser each, one setting each). `forced` reads every series as durations or readings.
pub fn analyse_all(all: Vec<Series>, forced: Option<Kind>) -> Result<Analysis> {
    // All timing series together, when they share a unit and there are several.
    let timings: Vec<&Series> = all
        .iter()
        .filter(|s| !s.averages && s.format != Format::Column && forced != Some(Kind::Readings))
        .collect();
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
            exact: None,
            refused: None,
        })
    } else {
        None
    };
    let series = all
        .into_iter()
        .map(|s| analyse(s, forced))
        .collect::<Result<Vec<_>>>()?;
    // Durations of one clock together (readings of several logs have no order between them).
    let combined = combined
        .map(|s| analyse(s, Some(Kind::Durations)))
        .transpose()?;
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
    forced: Option<Kind>,
) -> Result<Analysis> {
    analyse_all(formats::read(bytes, column, name, unit, json)?, forced)
}

#[cfg(test)]
mod tests {
    #[test]
    fn doubles_of_epoch_milliseconds_are_a_quarter_microsecond_apart() {
        let u = super::spacing(1.79e12) * 1e6;
        assert!((u - 244.14).abs() < 0.01, "{u}");
        assert_eq!(super::spacing(1.0), f64::EPSILON);
    }

    #[test]
    fn a_double_prints_as_its_fixed_decimals() {
        let x = 1_732_550_000_124.525_1;
        for places in 0..=6u32 {
            let text = format!("{x:.p$}", p = places as usize).replace('.', "");
            let w: u64 = text.parse().unwrap();
            assert!(super::prints_as(x, w, places), "{places}: {text}");
            assert!(!super::prints_as(x, w + 2, places), "{places}: {text}");
        }
        assert!(super::prints_as(0.5, 5, 1) && super::prints_as(3.0, 3000, 3));
        assert!(super::prints_as(1e17, 100_000_000_000_000_000, 0));
    }
}
