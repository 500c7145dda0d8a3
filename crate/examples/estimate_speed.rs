//! How long the tick estimators take on large inputs: `cargo run --release -p ticklab
//! --example estimate_speed`. The target is 100 ms for a million values, whatever they hold, as the least of five runs.

use std::time::Instant;
use ticklab::synthetic::SplitMix64;
use ticklab::tick::{estimate, estimate_counts, estimate_values, EstimatorOptions, Quantum};

fn main() {
    let mut rng = SplitMix64::new(1);
    let o = EstimatorOptions::default();
    // The least of five runs: what the estimator needs, not what the machine's other
    // work added.
    let time = |what: &str, f: &mut dyn FnMut() -> String| {
        let mut best = f64::INFINITY;
        let mut answer = String::new();
        for _ in 0..5 {
            let t = Instant::now();
            answer = f();
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
        }
        println!("{what:<58} {best:>7.1} ms  {answer}");
    };
    // Rounded-ns readings of a 24 MHz counter: intervals of 1 to 64 counts.
    let counts: Vec<u64> = (0..1_000_000)
        .map(|_| {
            let k = 1 + rng.below(64);
            let phase = rng.unit();
            ((k as f64 + phase) * 125.0 / 3.0).round() as u64 - (phase * 125.0 / 3.0).round() as u64
        })
        .collect();
    time("1e6 counts, 24 MHz in rounded ns", &mut || {
        let e = estimate_counts(&counts, &o).unwrap();
        format!("{:?} {}", e.method, e.tick)
    });
    // Durations in seconds from a 1 µs clock, as `analyze` would read them.
    let values: Vec<f64> = (0..1_000_000)
        .map(|_| (1000 + rng.below(5000)) as f64 * 1e-6)
        .collect();
    time("1e6 values, 1 µs clock in seconds", &mut || {
        let e = estimate_values(&values, &o).unwrap();
        format!("{:?} {:e}", e.method, e.tick)
    });
    // Whole ns near a millisecond from a 1 ns clock: no tick coarser than the data's
    // precision, so every candidate is tried.
    let flat: Vec<f64> = (0..1_000_000)
        .map(|_| (1_000_000 + rng.below(60_000)) as f64)
        .collect();
    time(
        "1e6 whole ns near 1 ms, 1 ns clock (nothing to find)",
        &mut || {
            let e = estimate(&flat, Quantum::Decimals { places: 0 }, None, &o).unwrap();
            format!("{:?} {}", e.method, e.tick)
        },
    );
    // Averages at full precision: no tick at all.
    let means: Vec<f64> = (0..1_000_000)
        .map(|i| (4_190_000 + rng.below(100_000)) as f64 / (999_983 + i % 7) as f64)
        .collect();
    time("1e6 averages at full precision (no tick)", &mut || {
        let e = estimate_values(&means, &o).unwrap();
        format!("{:?}", e.method)
    });
    // Sample totals of a 24 MHz counter, 1e6 to 1e8 ns, in whole ns.
    let totals: Vec<f64> = (0..1_000_000)
        .map(|_| {
            let start = rng.unit() * 1e9;
            let dur = 1e6 + rng.unit() * 1e8;
            let r = |t: f64| ((t * 3.0 / 125.0).floor() * 125.0 / 3.0).floor();
            r(start + dur) - r(start)
        })
        .collect();
    time("1e6 totals of 1e6..1e8 ns, 24 MHz counter", &mut || {
        let e = estimate_values(&totals, &o).unwrap();
        format!("{:?} {} {:?}", e.method, e.tick, e.exact)
    });
}
