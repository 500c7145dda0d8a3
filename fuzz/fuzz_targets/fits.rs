//! Least squares, the least-values fit and the step fit on any points (the bytes as pairs of
//! f64): where no sum can overflow, lines are finite and no point lies under the least-values
//! line; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ticklab::fit::{least_values, ols, step_fit};

fuzz_target!(|bytes: &[u8]| {
    let v: Vec<f64> = bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    let (x, y): (Vec<f64>, Vec<f64>) = v.chunks_exact(2).map(|p| (p[0], p[1])).unzip();
    let moderate = x.iter().chain(&y).all(|a| a.is_finite() && a.abs() <= 1e12);
    if let Ok(o) = ols(&x, &y) {
        if moderate {
            assert!(o.line.slope.is_finite() && o.line.intercept.is_finite());
        }
    }
    if let Ok(l) = least_values(&x, &y) {
        if moderate {
            let scale = y.iter().fold(1.0f64, |m, a| m.max(a.abs()))
                + l.line.slope.abs() * x.iter().fold(1.0f64, |m, a| m.max(a.abs()));
            for (a, b) in x.iter().zip(&y) {
                assert!(
                    b - l.line.at(*a) >= -1e-9 * scale,
                    "({a}, {b}) under {:?}",
                    l.line
                );
            }
        }
        let tick = v.first().copied().unwrap_or(1.0).abs();
        if let Ok(s) = step_fit(&x, &y, l.line.slope, tick) {
            assert!(s.on_steps <= x.len() as u64);
        }
    }
});
