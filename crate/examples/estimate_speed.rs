//! How long the tick estimators take on large inputs: `cargo run --release -p ticklab
//! --example estimate_speed`. The target is 100 ms for a million values, whatever they
//! hold, as the least of seven runs taken in rounds over all the cases (a burst of other
//! work on a shared machine then spoils one run of each case, not every run of one).

use std::time::Instant;
use ticklab::rng::SplitMix64;
use ticklab::tick::{estimate, estimate_counts, estimate_values, EstimatorOptions, Quantum};

const ROUNDS: usize = 7;

type Case<'a> = (&'static str, Box<dyn Fn() -> String + 'a>);

fn main() {
    let mut rng = SplitMix64::new(1);
    let o = EstimatorOptions::default();
    // Rounded-ns readings of a 24 MHz counter: intervals of 1 to 64 counts.
    let counts: Vec<u64> = (0..1_000_000)
        .map(|_| {
            let k = 1 + rng.below(64);
            let phase = rng.unit();
            ((k as f64 + phase) * 125.0 / 3.0).round() as u64 - (phase * 125.0 / 3.0).round() as u64
        })
        .collect();
    // Durations in seconds from a 1 µs clock, as `analyze` would read them.
    let values: Vec<f64> = (0..1_000_000)
        .map(|_| (1000 + rng.below(5000)) as f64 * 1e-6)
        .collect();
    // Whole ns near a millisecond from a 1 ns clock: no tick coarser than the data's
    // precision, so every candidate is tried.
    let flat: Vec<f64> = (0..1_000_000)
        .map(|_| (1_000_000 + rng.below(60_000)) as f64)
        .collect();
    // Averages at full precision: no tick at all.
    let means: Vec<f64> = (0..1_000_000)
        .map(|i| (4_190_000 + rng.below(100_000)) as f64 / (999_983 + i % 7) as f64)
        .collect();
    // Sample totals of a 24 MHz counter, 1e6 to 1e8 ns, in whole ns.
    let totals: Vec<f64> = (0..1_000_000)
        .map(|_| {
            let start = rng.unit() * 1e9;
            let dur = 1e6 + rng.unit() * 1e8;
            let r = |t: f64| ((t * 3.0 / 125.0).floor() * 125.0 / 3.0).floor();
            r(start + dur) - r(start)
        })
        .collect();
    let o = &o;
    let cases: Vec<Case> = vec![
        (
            "1e6 counts, 24 MHz in rounded ns",
            Box::new(|| {
                let e = estimate_counts(&counts, o).unwrap();
                format!("{:?} {}", e.method, e.tick)
            }),
        ),
        (
            "1e6 values, 1 µs clock in seconds",
            Box::new(|| {
                let e = estimate_values(&values, o).unwrap();
                format!("{:?} {:e}", e.method, e.tick)
            }),
        ),
        (
            "1e6 whole ns near 1 ms, 1 ns clock (nothing to find)",
            Box::new(|| {
                let e = estimate(&flat, Quantum::Decimals { places: 0 }, None, o).unwrap();
                format!("{:?} {}", e.method, e.tick)
            }),
        ),
        (
            "1e6 averages at full precision (no tick)",
            Box::new(|| {
                let e = estimate_values(&means, o).unwrap();
                format!("{:?}", e.method)
            }),
        ),
        (
            "1e6 totals of 1e6..1e8 ns, 24 MHz counter",
            Box::new(|| {
                let e = estimate_values(&totals, o).unwrap();
                format!("{:?} {} {:?}", e.method, e.tick, e.exact)
            }),
        ),
    ];
    let mut best = vec![f64::INFINITY; cases.len()];
    let mut answers = vec![String::new(); cases.len()];
    for _ in 0..ROUNDS {
        for (i, (_, run)) in cases.iter().enumerate() {
            let t = Instant::now();
            answers[i] = run();
            best[i] = best[i].min(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    for (i, (what, _)) in cases.iter().enumerate() {
        println!("{what:<58} {:>7.1} ms  {}", best[i], answers[i]);
    }
}
