//! Least-values fit of 1 000 000 points (target ≤ 50 ms), sorted and unsorted input.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use ticklab::fit::least_values;
use ticklab::synthetic::SplitMix64;

fn points(shuffled: bool) -> (Vec<f64>, Vec<f64>) {
    let mut rng = SplitMix64::new(42);
    let n = 1_000_000;
    let mut x: Vec<f64> = (0..n).map(|i| (i / 10) as f64).collect();
    if shuffled {
        for i in (1..n).rev() {
            x.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }
    let y = x
        .iter()
        .map(|&a| 500.0 * ((40.0 + 0.359 * a) / 500.0).floor() + 500.0 * rng.below(3) as f64)
        .collect();
    (x, y)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("least_values_1e6");
    g.sample_size(20);
    for (name, shuffled) in [("sorted", false), ("shuffled", true)] {
        let (x, y) = points(shuffled);
        g.bench_function(name, |b| {
            b.iter(|| least_values(black_box(&x), black_box(&y)).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
