//! What a file's printing alone makes of its values: a tick that only their digits show,
//! and values printed to a few significant digits rather than to one step.

use super::formats::{self, Series};

/// Fewest values written finely enough to show a tick for it to be one, unless they are
/// most of the values.
pub(super) const MIN_SHOWN: usize = 10;

/// A tick is evidence of a clock only in the values whose printing could have shown a
/// value off its multiples: those written to a step finer than it (487.3, written to 0.1,
/// is a multiple of 0.001 because of its printing, whatever timed it). Returns how many
/// values are written that finely and the share of them the tick explains, to within their
/// own step or the error the tick was found at (`grid`: a doubles' grid, or the whole
/// nanoseconds readings were rounded to before a program held them), the larger, as the
/// error model has it (`tick::model`); none when the values' digits are not known.
pub(super) fn printing_alone(series: &Series, tick: f64, grid: f64) -> Option<(usize, f64)> {
    if series.places.len() != series.values.len() || tick.is_nan() || tick <= 0.0 {
        return None;
    }
    // Values written to a double's full precision (differences of doubles, with their
    // float noise) were written to no fixed number of digits: they are data on a grid, and
    // their printing makes no tick.
    if series.places.iter().all(|p| *p == formats::FULL_PRECISION) {
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
        if (x - (x / tick).round() * tick).abs() < q.max(grid) * (1.0 + 1e-9) + 1e-12 * x {
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
pub(super) fn significant_print(series: &Series) -> Option<i32> {
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
    // A printer of so many digits writes no fraction past them: 1000.1 beside 16.7 and
    // 1000 is a fixed step's printing with its zeros dropped, not four digits.
    let longer =
        series.values.iter().zip(&series.places).any(|(x, p)| {
            *p > 0 && *x > 0.0 && i32::from(*p) + x.log10().floor() as i32 + 1 > digits
        });
    (2 * at_finest < written.len() && digits <= 6 && !longer).then_some(digits)
}

/// The significant digits most values were written with (a printer's "%.4g" writes 31007
/// whole, with five).
pub(super) fn significant_digits(series: &Series) -> i32 {
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
