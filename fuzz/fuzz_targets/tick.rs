//! The tick estimators on any intervals: the bytes as 8-byte words (every bit pattern of u64
//! and f64) and as numbers in text. An estimate is finite and positive, its shares are
//! shares, an exact GCD divides every interval; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ticklab::tick::{estimate_counts, estimate_values, EstimatorOptions, Method};

fuzz_target!(|bytes: &[u8]| {
    let words: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    let floats: Vec<f64> = words.iter().map(|&w| f64::from_bits(w)).collect();
    let text: Vec<f64> = std::str::from_utf8(bytes)
        .unwrap_or("")
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter_map(|t| t.parse().ok())
        .collect();
    let opts = EstimatorOptions::default();
    for v in [&floats, &text] {
        if let Ok(e) = estimate_values(v, &opts) {
            assert!(e.tick.is_finite() && e.tick > 0.0, "tick {}", e.tick);
            assert!((0.0..=1.0).contains(&e.share_explained));
            assert_eq!(e.intervals + e.zeros + e.rejected, v.len() as u64);
        }
    }
    if let Ok(e) = estimate_counts(&words, &opts) {
        assert!(e.tick.is_finite() && e.tick > 0.0, "tick {}", e.tick);
        assert!((0.0..=1.0).contains(&e.share_explained));
        if e.method == Method::ExactGcd && e.tick < 2f64.powi(53) {
            let t = e.tick as u64;
            assert!(words.iter().all(|&d| d % t == 0), "exact GCD {t}");
        }
    }
});
