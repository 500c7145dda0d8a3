//! How long the tick estimators take on large inputs (a profiling aid, not a test).

use std::time::Instant;
use ticklab::synthetic::SplitMix64;
use ticklab::tick::{estimate_counts, estimate_values, EstimatorOptions};

fn main() {
    let mut rng = SplitMix64::new(1);
    let o = EstimatorOptions::default();
    // Rounded-ns readings of a 24 MHz counter: 200 000 intervals of 1 to 64 counts.
    let counts: Vec<u64> = (0..200_000)
        .map(|_| {
            let k = 1 + rng.below(64);
            let phase = rng.unit();
            ((k as f64 + phase) * 125.0 / 3.0).round() as u64 - (phase * 125.0 / 3.0).round() as u64
        })
        .collect();
    let t = Instant::now();
    let e = estimate_counts(&counts, &o).unwrap();
    println!("counts 2e5: tick {:.4} in {:?}", e.tick, t.elapsed());
    // A million durations in seconds from a 1 µs clock, as `analyze` would read them.
    let values: Vec<f64> = (0..1_000_000)
        .map(|_| (1000 + rng.below(5000)) as f64 * 1e-6)
        .collect();
    let t = Instant::now();
    let e = estimate_values(&values, &o).unwrap();
    println!("values 1e6: tick {:e} in {:?}", e.tick, t.elapsed());
}
