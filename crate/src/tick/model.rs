//! The error of a recorded value, stated once.
//!
//! A value a program wrote is `k·τ + e`: a whole number `k` of the clock's tick `τ`, and an
//! error `e` that comes from how the value was made, not from the clock:
//!
//! - **the print**: a value printed to a step `q` is off by at most `q/2`; a difference of
//!   two printed readings by up to a whole `q` (each reading was rounded on its own);
//! - **the doubles that held the readings**: a reading of magnitude `M` held as a double is
//!   rounded to the doubles' spacing there, `ulp(M)`, so a difference of two is off by up to
//!   one `ulp(M)`, and is itself an exact multiple of it (the subtraction of two close
//!   doubles is exact). Multiplied into the printed unit (`× 1e9`, `× 1e3`, `/ count`) the
//!   grid becomes `g = ulp(M)·c`. For readings `M` is their size; for durations it is read
//!   off the values: the coarsest grid `2^e·c` that holds nearly all of them, finer than
//!   their print, that doubles of a magnitude a clock reaches (the epoch at most) have;
//! - **a rounding before storage**: readings a kernel rounded to whole nanoseconds before a
//!   program held them as doubles lie on whole ns within the doubles' error (which the
//!   print may hide: up to ten of its steps, never more than the epoch's doubles), and that
//!   grid is their precision ([`rounded_before`]); it is tried as the tick at the finer
//!   print only where nothing coarser rivals it;
//! - **a jittered clamp**: the documented spread of its edges (the lab's own clocks).
//!
//! So a value's error is at most `E = max(print, storage)`, and the values show it: their
//! residuals around the true lattice stay within `E`. Two consequences are the whole model:
//!
//! 1. **The doubles' grid is never a tick.** Values on the grid `g` are multiples of it
//!    because of their storage, whatever clock made them: `g` is their precision, and a
//!    candidate lattice is scored with a tolerance of a whole `g` (the readings' rounding
//!    against each other), where the print's `q` alone would call every true multiple a
//!    miss (1 499 999.998 ns is 100 µs × 15 off by a storage step).
//! 2. **"At most" is said of the finest lattice the error lets be tested.** Every value
//!    lies within `E` of a multiple of any `τ ≤ 2E`, so no such lattice can show itself:
//!    when nothing coarser explains the values, the tick is at most `2E` for differences
//!    of stored readings (`E` a whole step), never `E` (a 279.365 ns counter read through
//!    doubles 238.42 ns apart is not "at most 238.42 ns").
//!
//! The estimator scores each candidate against a finer clock at the tolerance this module
//! gives (the likelihood of the share it explains, with the penalty for the candidates
//! tried: `score.rs`); what is here only says how large the error of the values is.

/// The units, in seconds, programs hold readings in as doubles.
const HELD: [f64; 4] = [1.0, 1e-3, 1e-6, 1e-9];

/// The counts of runs a program divides a difference by (a mean over 10, 100 or 1 000).
const COUNTS: [f64; 4] = [1.0, 10.0, 100.0, 1000.0];

use super::{Method, Quantum, TickEstimate};
use crate::caveat::Caveat;

/// The largest magnitude, in seconds, a clock's readings held as doubles reach: the epoch
/// until 2100 (4.1·10⁹ s). A grid that only larger readings would have is a clock's.
const LARGEST_S: f64 = 4.2e9;

/// The multiples of a grid the values of a doubles' grid never all lie on: the primes a
/// decimal or binary grid coarser than it is made of (whole ns are five steps of 0.2 ns).
const COARSER: [f64; 3] = [2.0, 3.0, 5.0];

/// Share of the values that must lie on a grid for it to be their storage's.
const ON_GRID: f64 = 0.99;

/// How far from a point of the doubles' grid a value may lie, as a share of its step.
const GRID_SLACK: f64 = 0.05;

/// Fewest values a grid is read off.
const FEWEST: usize = 20;

/// Values looked at to read a grid off.
const SAMPLE: usize = 2048;

/// One unit in the last place of `x`: how far apart the doubles near it are.
pub fn spacing(x: f64) -> f64 {
    let x = x.abs();
    if !x.is_finite() || x == 0.0 {
        return 0.0;
    }
    f64::from_bits(x.to_bits() + 1) - x
}

/// The grid of the doubles that held the readings behind durations `values` printed to
/// `print` (their quantum's step) in a unit of `unit_s` seconds (none when unknown): the
/// coarsest `2^e·u/n` (u a unit readings are held in, n a count of runs) that nearly every
/// value is a multiple of, and not twice it, within the print's half step and the float
/// error of the last multiplication, showing through the print, that readings of some
/// magnitude up to [`LARGEST_S`] and above the values themselves are spaced by. `None` when no such grid holds them: the print is their precision.
pub fn doubles_grid(values: &[f64], print: f64, unit_s: Option<f64>) -> Option<f64> {
    let v = sample(values)?;
    let unit_s = unit_s?;
    let top = v.iter().copied().fold(0.0f64, f64::max);
    let mut best: Option<f64> = None;
    for (held_s, count) in HELD
        .iter()
        .flat_map(|&h| COUNTS.iter().map(move |&n| (h, n)))
    {
        // Readings held in a unit of `held_s` seconds, their difference printed in the
        // values' unit over `count` runs: doubles of magnitude M are 2^e apart from
        // 2^(e+52) up. Whole units (e = 0) are a clock's as well as the doubles'.
        let c = held_s / unit_s / count;
        for e in (-80..=80).filter(|&e| e != 0) {
            let g = 2f64.powi(e) * c;
            // The grid must show through the print: values within a twentieth of it
            // land there by chance one time in ten, 99 % of them never.
            if 0.5 * print > GRID_SLACK * g || g * 4.0 > top {
                continue;
            }
            let m_s = 2f64.powi(e + 52) * held_s;
            if !(m_s <= LARGEST_S && m_s * 2.0 >= top * unit_s * count) {
                continue;
            }
            if best.is_some_and(|b| b >= g) {
                continue;
            }
            // On this grid, and on no coarser one of a few of its steps: readings rounded
            // to the doubles land on every multiple of it alike, where a clock of a few of
            // its steps (5 µs on 0.5 µs), or whole ns on 0.2 ns, sits on the coarser grid.
            let err = (0.5 * print).min(GRID_SLACK * g);
            if on_grid(&v, g, err, false)
                && !COARSER.iter().any(|&k| on_grid(&v, k * g, err, false))
            {
                best = Some(g);
            }
        }
    }
    best
}

/// The coarsest decimal grid, as places, that `values` (durations, or differences of
/// readings when `differences`) printed to `print` lie on, within their error, when it is
/// coarser than the print: readings rounded to whole nanoseconds by the kernel before a
/// program held them as doubles of seconds (`clock_gettime`) carry that rounding too, a
/// whole unit between two of them, and the grid is where their error begins, not a tick.
/// The error is the print's (half a step, a whole one between two printed readings), the
/// doubles' `storage` where known, and what doubles the print hides: a grid under
/// `1/(2·GRID_SLACK)` of its steps never shows through it ([`doubles_grid`]), and none is
/// coarser than the epoch's in seconds at [`LARGEST_S`] (in the values' unit of `unit_s`
/// seconds; nothing hidden where the unit is unknown).
pub fn rounded_before(
    values: &[f64],
    print: f64,
    storage: f64,
    differences: bool,
    unit_s: Option<f64>,
) -> Option<i32> {
    let v = sample(values)?;
    let rounding = if differences { print } else { 0.5 * print };
    let hidden = unit_s.map_or(0.0, |u| {
        (print / (2.0 * GRID_SLACK)).min(spacing(LARGEST_S) / u)
    });
    // Values within 15 % of a grid land there by chance 30 % of the time: 99 % of twenty
    // values or more, never.
    const SLACK: f64 = 0.15;
    let top = v.iter().copied().fold(0.0f64, f64::max);
    // The error hidden doubles may add is tried only where the values reach that many
    // different multiples: a timer's pile lies within a few steps of each divisor of its
    // period.
    let tries = [
        (rounding + storage, false),
        (rounding + storage + hidden, true),
    ];
    tries[..if hidden > 0.0 { 2 } else { 1 }]
        .iter()
        .find_map(|&(err, distinct)| {
            (-6..=15).find(|&p| {
                let d = 10f64.powi(-p);
                d > 1.5 * print
                    && d * 4.0 <= top
                    && err <= SLACK * d
                    && on_grid(&v, d, err, distinct)
            })
        })
}

/// The positive finite values a grid is read off, a sample of them; none when too few.
fn sample(values: &[f64]) -> Option<Vec<f64>> {
    let v: Vec<f64> = crate::stats::decimate(values, SAMPLE)
        .into_iter()
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect();
    (v.len() >= FEWEST).then_some(v)
}

/// Whether nearly all of `v` lie within `err` (and a value's float error) of multiples of
/// `g`, reaching [`GRID_POINTS`] multiples at least: counted as the values come, or when
/// `distinct` as different multiples (a pile a few steps wide reaches one at most).
fn on_grid(v: &[f64], g: f64, err: f64, distinct: bool) -> bool {
    let (mut points, mut last) = (0usize, f64::NAN);
    let mut seen = [f64::NAN; GRID_POINTS];
    let on = v
        .iter()
        .filter(|&&x| {
            let k = (x / g).round();
            let hit = k >= 1.0 && (x - k * g).abs() <= err + 8.0 * spacing(x);
            if hit && k != last && points < GRID_POINTS {
                last = k;
                if !(distinct && seen.contains(&k)) {
                    seen[points] = k;
                    points += 1;
                }
            }
            hit
        })
        .count();
    on as f64 >= ON_GRID * v.len() as f64 && points >= GRID_POINTS
}

/// Fewest multiples of a grid the values must lie on for it to be their storage's: a pile
/// at one value lies on every divisor of it.
const GRID_POINTS: usize = 8;

/// The grid of the doubles that held readings as large as `top`, when the readings (as
/// `written`, whole units of `10^-places`, or as the doubles `values`) nearly all lie on
/// it: text read exactly still came from doubles when every reading is a multiple of
/// their spacing (integers of epoch ns printed from a double are multiples of 256).
pub fn readings_grid(values: &[f64], written: Option<(&[u64], i32)>, top: f64) -> Option<f64> {
    let g = spacing(top);
    if g <= 0.0 || values.len() < FEWEST {
        return None;
    }
    match written {
        None => Some(g),
        Some((w, places)) => {
            let units = g * 10f64.powi(places);
            if units < 2.0 || units.fract() != 0.0 || units > 9e15 {
                return None;
            }
            let u = units as u64;
            let every = (w.len() / SAMPLE).max(1);
            let (mut n, mut on) = (0usize, 0usize);
            for &x in w.iter().step_by(every) {
                n += 1;
                // On the doubles' grid, or the shortest digits of the double nearest it,
                // padded with zeros (how a double of 1.7e18 prints): either way a double's.
                on += usize::from(x % u == 0 || shortest_of_its_double(x));
            }
            (on as f64 >= ON_GRID * n as f64).then_some(g)
        }
    }
}

/// Whether the whole number `x` is how the double nearest it prints (its shortest digits,
/// then zeros): an integer clock's readings of 100 ns print so a quarter of the time at
/// most, where a shorter number lies as near their double.
fn shortest_of_its_double(x: u64) -> bool {
    let d = x as f64;
    d < 1.8e19 && format!("{d}") == x.to_string()
}

/// Whether `tick` (in units of `unit_s` seconds; never in no known unit) is exactly a grid of
/// doubles, `2^e` of a unit programs hold readings in over a count of runs, at a magnitude
/// readings reach ([`LARGEST_S`]): 238.418 579 101 562 5 ns is 2⁻²² s, the epoch's doubles
/// in seconds; 256 ns the epoch's in ns. No clock's tick is a power of two that exactly;
/// a few units of 2 (2, 4, 8 ns) are left to the clocks.
pub fn is_doubles_grid(tick: f64, unit_s: Option<f64>) -> bool {
    // In no known unit, no magnitude tells a doubles' grid from a clock's tick.
    let Some(unit_s) = unit_s else {
        return false;
    };
    HELD.iter().any(|&held_s| {
        COUNTS.iter().any(|&count| {
            power_of_two(tick / (held_s / unit_s / count))
                .is_some_and(|e| e.abs() >= 4 && 2f64.powi(e + 52) * held_s <= LARGEST_S)
        })
    })
}

/// The exponent `e` when `x` is 2^e to within a billionth, read off its bits (no logarithm:
/// the page's module carries no libm for it).
fn power_of_two(x: f64) -> Option<i32> {
    if !(x.is_finite() && x > 0.0) {
        return None;
    }
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32 - 1023;
    // The mantissa as a number in [1, 2).
    let m = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52));
    if (m - 1.0).abs() < 1e-9 {
        Some(e)
    } else if (2.0 - m).abs() < 2e-9 {
        Some(e + 1)
    } else {
        None
    }
}

/// A tick found that is exactly a grid of doubles ([`is_doubles_grid`]) is their storage:
/// at most two of its steps.
pub fn never_storage(e: &mut TickEstimate, unit_s: Option<f64>) {
    if e.found() && is_doubles_grid(e.tick, unit_s) {
        let step = e.tick;
        e.method = Method::Precision;
        hold_to_storage(e, step);
    }
}

/// Most doublings of the doubles' step tried as the values' error: a reading converted
/// between units on its way (Blink clamps seconds, a page reads ms, a program divides) is
/// rounded once a conversion, so a difference of two may err by several steps.
const WIDENINGS: u32 = 3;

/// The estimate at the error the values show: for values on a doubles' grid (`quantum` a
/// [`Quantum::Spacing`]), a whole step first, then twice, four and eight times it, until a
/// tick explains them; the quantum it was found at (or the first, when none was) and the
/// estimate. Each error tried is one more candidate, and a tick found at a wider error must
/// still clear twice it.
pub fn widened(
    quantum: Quantum,
    estimate: &mut dyn FnMut(Quantum) -> crate::error::Result<TickEstimate>,
) -> crate::error::Result<(Quantum, TickEstimate)> {
    let first = estimate(quantum)?;
    // A print's step is its error, exactly (values one step off a lattice are a finer
    // clock's); only the doubles' may be rounded again on the way.
    let Quantum::Spacing { step } = quantum else {
        return Ok((quantum, first));
    };
    if first.found() || first.method == Method::Ambiguous {
        return Ok((quantum, first));
    }
    for i in 1..=WIDENINGS {
        let q = Quantum::Spacing {
            step: step * f64::from(1u32 << i),
        };
        // A lattice that explains the values at the error they show, reliable or named
        // beside its rivals, is more than a bound: "at most" would deny it.
        if let Ok(e) = estimate(q) {
            if e.found() || e.method == Method::Ambiguous {
                return Ok((q, e));
            }
        }
    }
    Ok((quantum, first))
}

/// The finest tick the values can show when their error is a whole `step` (differences
/// of readings rounded to it): every value lies within a step of a multiple of any tick up
/// to two steps, so nothing that fine can be told.
pub fn finest_testable(step: f64) -> f64 {
    2.0 * step
}

/// Holds the estimate of values whose error is a whole `step` of their doubles' grid to
/// the model: a tick no coarser than two steps is that grid's, not a clock's, and where
/// nothing coarser was found the bound is two steps ([`finest_testable`]), or where a
/// search stopped above them.
pub fn hold_to_storage(e: &mut TickEstimate, step: f64) {
    let floor = finest_testable(step);
    let within = |t: f64| t <= floor * (1.0 + 1e-9);
    let storage_tick = e.found() && within(e.tick);
    let bound = e.method == Method::Precision;
    // Ticks named as rivals: only when every one is the grid's is there none.
    let rivals_all_grid = e
        .caveats
        .iter()
        .any(|c| matches!(c, Caveat::Ambiguous { ticks } if ticks.iter().all(|&t| within(t))));
    if !(storage_tick || bound || rivals_all_grid) {
        return;
    }
    let reached = if bound && e.tick > floor {
        e.tick
    } else {
        floor
    };
    e.tick = reached;
    e.method = Method::Precision;
    e.reliable = false;
    e.exact = None;
    e.uncertainty = 0.0;
    e.caveats.retain(|c| {
        !matches!(
            c,
            Caveat::AtPrecision { .. } | Caveat::Ambiguous { .. } | Caveat::Beats { .. }
        )
    });
    e.caveats.insert(
        0,
        Caveat::Storage {
            bound: reached,
            spacing: step,
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_of_readings_held_in_seconds_near_ten_thousand_show_their_doubles() {
        // An ACPI PM timer (279.365 ns) read as seconds near 10⁴ s, differenced, in ns.
        let tick = 1.0 / 3_579_545.0;
        let v: Vec<f64> = (0..500)
            .map(|i| {
                let a = ((10_000.0 + i as f64 * 0.37) / tick).floor() * tick;
                let b = ((10_000.0 + i as f64 * 0.37 + 1e-6 * (1 + i % 97) as f64) / tick).floor()
                    * tick;
                (b - a) * 1e9
            })
            .collect();
        let g = doubles_grid(&v, 1e-9, Some(1e-9)).expect("a grid");
        // 2^-39 s in ns.
        assert!((g - 2f64.powi(-39) * 1e9).abs() < 1e-12, "{g}");
    }

    #[test]
    fn a_clock_of_whole_units_is_no_storage() {
        // 15.625 ms in ms to 3 decimals: only readings of 2^46 s would be that far apart.
        let v: Vec<f64> = (1..300).map(|i| (i % 17 + 1) as f64 * 15.625).collect();
        assert_eq!(doubles_grid(&v, 1e-3, Some(1e-3)), None);
        // Whole ns printed whole: the print is the precision.
        let w: Vec<f64> = (1..300).map(|i| (1000 + i * 37) as f64).collect();
        assert_eq!(doubles_grid(&w, 1.0, Some(1e-9)), None);
    }

    #[test]
    fn whole_nanoseconds_are_no_grid_of_doubles_finer_than_them() {
        // Whole ns printed to 4 decimals lie on 0.2 ns (a mean over 10 of readings in ns
        // held as doubles up to 2^53 ns) and not on 0.4: but on 1 ns, five of its steps,
        // which no doubles' rounding gives.
        let w: Vec<f64> = (1..400).map(|i| (1000 + i * 37) as f64).collect();
        assert_eq!(doubles_grid(&w, 1e-4, Some(1e-9)), None);
    }

    #[test]
    fn integers_of_epoch_nanoseconds_from_doubles_are_on_their_grid() {
        let top = 1.77e18;
        let w: Vec<u64> = (0..100)
            .map(|i| 1_770_000_000_000_000_000 + i * 256 * 7)
            .collect();
        let v: Vec<f64> = w.iter().map(|&x| x as f64).collect();
        assert_eq!(readings_grid(&v, Some((&w, 0)), top), Some(256.0));
        let odd: Vec<u64> = w.iter().map(|x| x + 3).collect();
        assert_eq!(readings_grid(&v, Some((&odd, 0)), top), None);
        // Printed from doubles: each the shortest digits of its double, padded with zeros.
        let printed: Vec<u64> = (0..100u64)
            .map(|i| {
                format!("{}", (1.77e18 + (i * 7919) as f64 * 256.0))
                    .parse()
                    .unwrap()
            })
            .collect();
        assert_eq!(readings_grid(&v, Some((&printed, 0)), top), Some(256.0));
        // An integer clock of 100 ns: a shorter number lies as near many of their doubles.
        let clock: Vec<u64> = (0..100u64)
            .map(|i| 1_770_000_000_000_000_000 + i * 7919 * 100)
            .collect();
        assert_eq!(readings_grid(&v, Some((&clock, 0)), top), None);
    }
}
