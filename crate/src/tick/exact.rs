//! Exact ticks: a refined tick of 41.66668 ns from a 24 MHz counter is 125/3 ns, and the
//! 249.99996 ns of an integer clock with outliers is 250 ns. A simple number replaces the
//! refined one only when it lies within the refinement's uncertainty and explains the
//! intervals as well.

use serde::{Deserialize, Serialize};

use crate::clock::gcd;

/// A tick as an exact fraction of the data's unit: 250, 125/3, 10⁹/3 222 557.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exact {
    /// Numerator.
    pub num: u64,
    /// Denominator, never zero.
    pub den: u64,
}

impl Exact {
    /// `num/den` in lowest terms; none when either is zero.
    pub fn new(num: u64, den: u64) -> Option<Self> {
        if num == 0 || den == 0 {
            return None;
        }
        let g = gcd(num, den);
        Some(Self {
            num: num / g,
            den: den / g,
        })
    }

    /// The value.
    pub fn value(&self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl std::fmt::Display for Exact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

/// Largest denominator of a "small" fraction.
const SMALL_DEN: u64 = 16;

/// The simplest exact form of a tick `tau` ± `se` (in steps of `step`, the data's
/// quantum, of `unit_s` seconds each when known), if the data pin one down: a whole number
/// of steps, a fraction with a small denominator, or one tick per second of a whole-Hz
/// counter. `share(t)` scores a tick in steps; a snap must explain as well as `tau`, which
/// explains `base`.
pub fn snap(
    tau: f64,
    se: f64,
    step: f64,
    unit_s: Option<f64>,
    base: f64,
    share: impl Fn(f64) -> f64,
) -> Option<Exact> {
    if !(tau.is_finite() && tau > 0.0 && se.is_finite() && se >= 0.0) {
        return None;
    }
    let value = tau * step;
    let sigma = se * step;
    let reach = 3.0 * sigma + 1e-9 * value;
    let holds = |v: f64| (v - value).abs() <= reach && share(v / step) >= base - 1e-3;

    // Steps as a fraction of the unit: 1 for counts, 1/10^d for d decimals.
    let per_unit = 1.0 / step;
    let decimal_den = (per_unit.round() >= 1.0
        && (per_unit - per_unit.round()).abs() <= 1e-9 * per_unit
        && per_unit < 1e18)
        .then(|| per_unit.round() as u64);

    // A whole number of steps, when the data resolve single steps.
    if let Some(den) = decimal_den {
        let k = tau.round();
        if (1.0..9e15).contains(&k) && 3.0 * sigma < 0.5 * step && holds(k * step) {
            return Exact::new(k as u64, den);
        }
    }
    // A fraction with a small denominator (125/3 ns).
    for den in 1..=SMALL_DEN {
        let num = (value * den as f64).round();
        if (1.0..9e15).contains(&num) {
            let v = num / den as f64;
            if holds(v) {
                return Exact::new(num as u64, den);
            }
        }
    }
    // A counter of a whole number of Hz: a tick of 1/hz seconds, when the data tell hz
    // from hz ± 1.
    let per_second = unit_s
        .map(|s| 1.0 / s)
        .filter(|p| p.is_finite() && *p >= 1.0 && (p - p.round()).abs() <= 1e-9 * p && *p < 1e18)?;
    let hz = (per_second / value).round();
    if (1.0..9e15).contains(&hz) {
        let v = per_second / hz;
        if 3.0 * sigma < 0.5 * v / hz && holds(v) {
            return Exact::new(per_second.round() as u64, hz as u64);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snaps_to_simple_numbers_only_within_reach() {
        let all = |_: f64| 1.0;
        assert_eq!(
            snap(41.66668, 0.0001, 1.0, Some(1e-9), 1.0, all),
            Exact::new(125, 3)
        );
        assert_eq!(
            snap(249.99995, 0.0001, 1.0, None, 1.0, all),
            Exact::new(250, 1)
        );
        assert_eq!(snap(10.0148, 0.0002, 1.0, Some(1e-9), 1.0, all), None);
        assert_eq!(
            snap(310.312_587, 2e-6, 1.0, Some(1e-9), 1.0, all),
            Exact::new(1_000_000_000, 3_222_557)
        );
        // 0.25 s written to 0.01 s.
        assert_eq!(snap(25.0, 0.0, 0.01, Some(1.0), 1.0, all), Exact::new(1, 4));
        // A snap that explains less is refused.
        assert_eq!(
            snap(10.0148, 0.01, 1.0, None, 1.0, |t| if t == 10.0148 {
                1.0
            } else {
                0.9
            }),
            None
        );
    }
}
