//! The data's quantum: the finest step the values can show at all.
//!
//! A reading is rounded or truncated to some step q (one count of an integer counter, 10^-d
//! for values written with d decimals, the spacing of doubles for a float clock), so a
//! difference of two readings is off by up to one q. No tick finer than q can be seen in such
//! data, and every candidate tick must be tested with at least that much tolerance.

use serde::{Deserialize, Serialize};

/// How finely the data are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantum {
    /// Whole counts of a counter: the step is one count, and a tick of one count is exact.
    #[default]
    Count,
    /// Values written with `places` decimals (negative for whole tens, hundreds...): every
    /// value is a multiple of 10^-places.
    Decimals {
        /// Digits after the decimal point.
        places: i32,
    },
    /// Readings of a float clock whose doubles are `step` apart (in the data's unit): the
    /// 244 ns of epoch milliseconds. They lie on no grid the estimator can use.
    Spacing {
        /// The spacing.
        step: f64,
    },
    /// Doubles at full precision on no grid (averages, ratios): only float noise of about
    /// `step` limits them, so a tick must show itself against nothing coarser.
    Float {
        /// The float noise allowed, in the data's unit.
        step: f64,
    },
}

/// Most decimals a quantum is inferred at: beyond this a double has no digits left.
const MAX_PLACES: i32 = 15;
/// Fewest decimals tried (whole thousands).
const MIN_PLACES: i32 = -3;
/// Share of values that must lie on a grid for the grid to be the data's.
const ON_GRID: f64 = 0.99;
/// How far from a grid point a value may lie, as a share of the step (float noise).
const GRID_SLACK: f64 = 0.05;
/// Significant digits from which a printed value is a double at full precision.
const FULL_DIGITS: u32 = 15;
/// Values looked at to infer a quantum.
const INFER_SAMPLE: usize = 4096;

impl Quantum {
    /// The step, in the data's unit.
    pub fn step(&self) -> f64 {
        match *self {
            Quantum::Count => 1.0,
            Quantum::Decimals { places } => 10f64.powi(-places),
            Quantum::Spacing { step } | Quantum::Float { step } => step,
        }
    }

    /// Whether every value is a whole number of steps, so a tick that is itself a whole
    /// number of steps can be told exactly.
    pub fn on_grid(&self) -> bool {
        matches!(self, Quantum::Count | Quantum::Decimals { .. })
    }

    /// Whether nothing coarser than the step is the whole answer, i.e. the step is the data's
    /// own precision ("at most 1 ms") rather than float noise (no tick at all).
    pub fn is_precision(&self) -> bool {
        !matches!(self, Quantum::Float { .. })
    }

    /// The quantum of values written as text: `max_places` is the most decimals any token
    /// had (trailing zeros count: "12.300" was written to 0.001), `full_precision` whether
    /// some token carried a double's full precision (15 or more significant digits), in
    /// which case the digits say nothing and the grid, if any, is found in the values.
    pub fn from_text(values: &[f64], max_places: i32, full_precision: bool) -> Quantum {
        Self::from_text_with_finer(values, max_places, full_precision).0
    }

    /// [`Quantum::from_text`], and a finer quantum to try when nothing coarser than the
    /// first one fits ([`Quantum::infer_with_finer`]).
    pub fn from_text_with_finer(
        values: &[f64],
        max_places: i32,
        full_precision: bool,
    ) -> (Quantum, Option<Quantum>) {
        if full_precision {
            Self::hidden_grid(values)
        } else {
            (
                Quantum::Decimals {
                    places: max_places.clamp(MIN_PLACES, MAX_PLACES),
                },
                None,
            )
        }
    }

    /// The quantum of doubles with no text behind them (JSON numbers, a slice of f64): the
    /// decimals of each value's shortest round-trip form, unless some value needs a
    /// double's full precision, in which case the grid is looked for in the values.
    pub fn infer(values: &[f64]) -> Quantum {
        Self::infer_with_finer(values).0
    }

    /// [`Quantum::infer`], and for doubles from float arithmetic a finer quantum to try when
    /// nothing coarser than the first fits: differences of performance.now with a 100 µs
    /// clamp lie on a grid of 0.1 ms, which is their tick, not their precision.
    pub fn infer_with_finer(values: &[f64]) -> (Quantum, Option<Quantum>) {
        let sample = crate::stats::decimate(values, INFER_SAMPLE);
        let finite: Vec<f64> = sample
            .iter()
            .copied()
            .filter(|x| x.is_finite() && *x > 0.0)
            .collect();
        if finite.is_empty() {
            return (Quantum::Decimals { places: 0 }, None);
        }
        // Whole numbers were written whole: 300 is 300 to the unit, not 3e2 to the hundred.
        let mut places = 0;
        let mut long = 0usize;
        for &x in &finite {
            let (p, digits) = shortest_digits(x);
            places = places.max(p);
            if digits >= FULL_DIGITS {
                long += 1;
            }
        }
        // One value in two hundred that needed every digit: the values came out of float
        // arithmetic, and the short ones are short by chance.
        if long > 0 && long * 200 >= finite.len() {
            Self::hidden_grid(&finite)
        } else {
            (
                Quantum::Decimals {
                    places: places.clamp(0, MAX_PLACES),
                },
                None,
            )
        }
    }

    /// Doubles from float arithmetic may still sit on a decimal grid (seconds that were
    /// whole nanoseconds, milliseconds of a 5 µs clamp): the coarsest grid that holds nearly
    /// all of them is the first quantum, and the finest one, where float noise begins, the
    /// one to try when the coarse grid turns out to be the tick. With no grid they are
    /// plain floats.
    fn hidden_grid(values: &[f64]) -> (Quantum, Option<Quantum>) {
        let sample = crate::stats::decimate(values, INFER_SAMPLE);
        let v: Vec<f64> = sample
            .iter()
            .copied()
            .filter(|x| x.is_finite() && *x > 0.0)
            .collect();
        let max = v.iter().copied().fold(0.0f64, f64::max);
        if v.is_empty() || max == 0.0 {
            return (Quantum::Decimals { places: 0 }, None);
        }
        let mut finest = None;
        for places in MIN_PLACES..=MAX_PLACES {
            let scale = 10f64.powi(places);
            // Past 2^43 steps a double cannot say whether it sits on the grid.
            if max * scale > 8.8e12 {
                break;
            }
            if on_grid(&v, scale, GRID_SLACK) {
                finest = Some(places);
            }
        }
        // Noise that fits the finest grid within its slack is ten times smaller, in steps,
        // at each coarser one: values a coarse grid holds only to a twentieth of its step
        // are spread by something else (a 1 ms timer read on 1 ns lies within 5 µs of 1.00
        // by its jitter, and its grid is the nanosecond).
        let coarsest = finest.and_then(|f| {
            (MIN_PLACES..=f).find(|&c| {
                let slack = GRID_SLACK * 10f64.powi((c - f + 1).min(0));
                on_grid(&v, 10f64.powi(c), slack)
            })
        });
        // The finer quantum needs only to tell a tick of one coarse step from the steps:
        // a thousandth of it does, and keeps the values few steps long.
        match (coarsest, finest) {
            (Some(c), Some(f)) => (
                Quantum::Decimals { places: c },
                (f > c).then_some(Quantum::Decimals {
                    places: f.min(c + 3),
                }),
            ),
            _ => (Quantum::Float { step: max * 1e-9 }, None),
        }
    }
}

/// Fewest grid points values must lie on for the grid to be theirs: a narrow bunch of
/// values fits any coarse grid, but values off a grid land within its slack of it one time
/// in ten, five of them one time in 10^5 (a frame loop's intervals read on 20 µs sit at
/// 16.66, 16.68, 33.32, 33.34 ms and few more).
const GRID_POINTS: usize = 5;

/// Whether nearly all of `v` (times `scale`) lie on whole numbers, or all a fixed fraction
/// past them (hyperfine takes the shell's mean start-up time off whole nanoseconds), over
/// [`GRID_POINTS`] grid points at least, each within `slack` of a step.
fn on_grid(v: &[f64], scale: f64, slack: f64) -> bool {
    let mut residues: Vec<f64> = Vec::with_capacity(v.len());
    for &x in v {
        let y = x * scale;
        if y < 1.0 {
            return false;
        }
        residues.push(y - y.floor());
    }
    // The most residues in a window of 2 × slack, around the circle.
    let mut sorted = residues.clone();
    crate::stats::sort_f64(&mut sorted);
    let n = sorted.len();
    let wrapped: Vec<f64> = sorted
        .iter()
        .copied()
        .chain(sorted.iter().map(|r| r + 1.0))
        .collect();
    let (mut best, mut from) = (0, 0.0);
    let mut j = 0;
    for i in 0..n {
        while j < wrapped.len() && wrapped[j] <= wrapped[i] + 2.0 * slack {
            j += 1;
        }
        if j - i > best {
            (best, from) = (j - i, wrapped[i]);
        }
    }
    if (best as f64) < ON_GRID * n as f64 {
        return false;
    }
    // The distinct grid points the values in that window lie on: values piled near one
    // level, all on one point, fit a coarse grid whatever their few outliers do.
    let mut points: Vec<f64> = v
        .iter()
        .zip(&residues)
        .filter_map(|(&x, &r)| {
            // How far past the window's start, around the circle (both lie in [0, 1)).
            let d = r - from;
            let past = if d < 0.0 { d + 1.0 } else { d };
            (past <= 2.0 * slack + 1e-12).then(|| (x * scale - past).round())
        })
        .collect();
    crate::stats::sort_f64(&mut points);
    points.dedup();
    points.len() >= GRID_POINTS
}

/// Decimals and significant digits of the shortest text that reads back as `x`.
pub fn shortest_digits(x: f64) -> (i32, u32) {
    let s = format!("{:e}", x.abs());
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits = mantissa.chars().filter(|c| c.is_ascii_digit()).count() as i32;
    (digits - 1 - exp, digits as u32)
}

/// Decimals and significant digits of a number as written ("12.300" has 3 and 5;
/// "1.953125e-3" has 9 and 7; "1200" has 0 and 4).
pub fn written_digits(token: &str) -> (i32, u32) {
    let t = token.trim().trim_start_matches(['+', '-']);
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i32>().unwrap_or(0)),
        None => (t, 0),
    };
    let places = mantissa.split_once('.').map_or(0, |(_, f)| f.len() as i32) - exp;
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let significant = digits.trim_start_matches('0').len() as u32;
    (places, significant)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_digits_count_trailing_zeros_and_exponents() {
        assert_eq!(written_digits("12.300"), (3, 5));
        assert_eq!(written_digits("1.953125e-3"), (9, 7));
        assert_eq!(written_digits("1200"), (0, 4));
        assert_eq!(written_digits("5e2"), (-2, 1));
        assert_eq!(written_digits("0.004999999888241291"), (18, 16));
    }

    #[test]
    fn shortest_forms() {
        assert_eq!(shortest_digits(1234567.0), (0, 7));
        assert_eq!(shortest_digits(0.001234567), (9, 7));
        assert_eq!(shortest_digits(0.1 + 0.2), (17, 17));
    }

    #[test]
    fn integers_from_json_are_whole_units() {
        assert_eq!(
            Quantum::infer(&[1234567.0, 2e6, 1.5e7]),
            Quantum::Decimals { places: 0 }
        );
        assert_eq!(
            Quantum::infer(&[0.001234567, 0.002]),
            Quantum::Decimals { places: 9 }
        );
    }

    #[test]
    fn float_seconds_of_whole_nanoseconds_are_found_on_their_grid() {
        // perf_counter differences: whole ns as doubles of seconds, with float noise.
        let v: Vec<f64> = (1..500u64)
            .map(|i| {
                let t0 = 81234.0 + i as f64 * 0.37;
                let ns = 10_000 + i * 7919 % 100_000;
                (t0 + ns as f64 * 1e-9) - t0
            })
            .collect();
        assert_eq!(Quantum::infer(&v), Quantum::Decimals { places: 9 });
        // Exact multiples of 0.1 ms from float arithmetic: the grid is a candidate tick, and
        // the finest grid, where the float noise begins, is the one to fall back on.
        let ms: Vec<f64> = (1..300).map(|i| (i % 17 + 1) as f64 * 0.1).collect();
        let (coarse, finer) = Quantum::infer_with_finer(&ms);
        assert_eq!(coarse, Quantum::Decimals { places: 1 });
        assert_eq!(finer, Some(Quantum::Decimals { places: 4 }));
    }

    /// A 1 ms timer read on whole nanoseconds, in milliseconds from float arithmetic
    /// (1.000253000000157): within 5 µs of 1.00 by its jitter, on the nanosecond's grid by
    /// its clock. A few outliers near 0.5 and 2 ms lie near hundredths too.
    #[test]
    fn a_narrow_pile_is_not_on_a_coarse_grid_by_its_jitter() {
        let t0 = 81_234_567.125;
        let mut v: Vec<f64> = (0..400u64)
            .map(|i| (t0 + 1.0 + (i * 7919 % 400) as f64 * 1e-6) - t0)
            .collect();
        v.extend(
            [0.500_01, 0.500_03, 2.000_02, 3.000_04, 4.000_01, 0.700_02].map(|x| (t0 + x) - t0),
        );
        assert_eq!(Quantum::infer(&v), Quantum::Decimals { places: 6 });
    }

    #[test]
    fn whole_nanoseconds_less_a_fixed_offset_are_on_the_nanosecond_grid() {
        // hyperfine with a shell: every run less the shell's mean start-up time.
        let v: Vec<f64> = (0..40u64)
            .map(|i| (1_162_917 + i * 7919 % 50_000) as f64 * 1e-9 - 0.32e-9)
            .collect();
        assert_eq!(Quantum::infer(&v), Quantum::Decimals { places: 9 });
    }

    #[test]
    fn averages_are_plain_floats() {
        let v: Vec<f64> = (1..500u64)
            .map(|i| (4_190_000 + i * 7919 % 10_000) as f64 / 999_983.0)
            .collect();
        let q = Quantum::infer(&v);
        assert!(matches!(q, Quantum::Float { .. }), "{q:?}");
    }
}
