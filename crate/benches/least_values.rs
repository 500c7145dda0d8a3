//! Least-values fit of 1 000 000 points (target ≤ 50 ms), sorted and unsorted input.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use ticklab::fit::least_values;
use ticklab::synthetic::staircase_points;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("least_values_1e6");
    g.sample_size(20);
    for (name, shuffled) in [("sorted", false), ("shuffled", true)] {
        let (x, y) = staircase_points(1_000_000, shuffled);
        g.bench_function(name, |b| {
            b.iter(|| least_values(black_box(&x), black_box(&y)).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
