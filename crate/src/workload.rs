//! Workloads whose cost grows with a parameter N, for calibration and linear fits.
//!
//! Buffers are allocated once at their largest size and touched before timing (Krutar's "Tuning a Timer":
//! a fixed large buffer makes size-related costs constant; the MacResearch tutorial: touching memory first
//! keeps zero-fill page faults out of the timings).

use std::hint::black_box;

use serde::{Deserialize, Serialize};

use crate::error::{invalid, Result};
use crate::rng::SplitMix64;
use crate::synthetic::Timeline;

/// Something to time at a size N.
pub trait Workload {
    /// Short name ("count", "copy", "sqrt", "matmul").
    fn name(&self) -> &str;
    /// The unit the slope is reported per ("iteration", "byte", "sqrt", "multiply-add").
    fn unit(&self) -> &str;
    /// Largest N accepted.
    fn max_n(&self) -> u64;
    /// Units of work done at N (N, or N³ for a matrix multiply).
    fn work(&self, n: u64) -> f64;
    /// The N that does about `work` units (inverse of [`Workload::work`]), at least 1.
    fn n_for_work(&self, work: f64) -> u64;
    /// Makes buffers ready for sizes up to `n` and touches them (untimed).
    fn prepare(&mut self, n: u64) -> Result<()>;
    /// Does the work at size `n` (≤ the prepared size).
    fn run(&mut self, n: u64);
}

/// The workloads the lab offers by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadKind {
    /// Krutar's count-down loop.
    Count,
    /// Copy of N bytes.
    Copy,
    /// Sum of the square roots of N doubles.
    Sqrt,
    /// N×N matrix multiply.
    Matmul,
}

impl WorkloadKind {
    /// Every workload, in menu order.
    pub const ALL: [WorkloadKind; 4] = [Self::Count, Self::Copy, Self::Sqrt, Self::Matmul];

    /// The workload's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Count => "count",
            Self::Copy => "copy",
            Self::Sqrt => "sqrt",
            Self::Matmul => "matmul",
        }
    }

    /// Looks a workload up by name.
    pub fn parse(s: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                invalid(
                    "workload",
                    format!("'{s}'; expected one of count, copy, sqrt, matmul"),
                )
            })
    }

    /// A fresh instance.
    pub fn build(self) -> Box<dyn Workload> {
        match self {
            Self::Count => Box::new(CountDown),
            Self::Copy => Box::new(Copy::default()),
            Self::Sqrt => Box::new(Sqrt::default()),
            Self::Matmul => Box::new(Matmul::default()),
        }
    }
}

fn check_n(n: u64, max: u64, what: &str) -> Result<()> {
    if n == 0 || n > max {
        return Err(invalid(
            "workload size",
            format!("{n} for {what}; expected 1 to {max}"),
        ));
    }
    Ok(())
}

/// Krutar's benchmark: count N down to zero. `black_box` on every step keeps the
/// optimiser from replacing the loop by its result.
#[derive(Clone, Copy, Debug, Default)]
pub struct CountDown;

impl Workload for CountDown {
    fn name(&self) -> &str {
        "count"
    }
    fn unit(&self) -> &str {
        "iteration"
    }
    fn max_n(&self) -> u64 {
        1 << 40
    }
    fn work(&self, n: u64) -> f64 {
        n as f64
    }
    fn n_for_work(&self, work: f64) -> u64 {
        work.round().clamp(1.0, self.max_n() as f64) as u64
    }
    fn prepare(&mut self, n: u64) -> Result<()> {
        check_n(n, self.max_n(), "count")
    }
    #[inline(never)]
    fn run(&mut self, n: u64) {
        let mut i = black_box(n);
        while i > 0 {
            i = black_box(i - 1);
        }
    }
}

/// Copy of N bytes between two buffers of the prepared size.
#[derive(Clone, Debug, Default)]
pub struct Copy {
    src: Vec<u8>,
    dst: Vec<u8>,
}

impl Workload for Copy {
    fn name(&self) -> &str {
        "copy"
    }
    fn unit(&self) -> &str {
        "byte"
    }
    fn max_n(&self) -> u64 {
        1 << 28
    }
    fn work(&self, n: u64) -> f64 {
        n as f64
    }
    fn n_for_work(&self, work: f64) -> u64 {
        work.round().clamp(1.0, self.max_n() as f64) as u64
    }
    fn prepare(&mut self, n: u64) -> Result<()> {
        check_n(n, self.max_n(), "copy")?;
        let n = n as usize;
        if self.src.len() < n {
            self.src = (0..n).map(|i| i as u8).collect();
            self.dst = vec![1u8; n];
        }
        Ok(())
    }
    #[inline(never)]
    fn run(&mut self, n: u64) {
        let n = (n as usize).min(self.src.len());
        self.dst[..n].copy_from_slice(black_box(&self.src[..n]));
        black_box(&mut self.dst);
    }
}

/// Sum of the square roots of N doubles (the loop of the MacResearch tutorial "Performance and Time").
#[derive(Clone, Debug, Default)]
pub struct Sqrt {
    data: Vec<f64>,
}

impl Workload for Sqrt {
    fn name(&self) -> &str {
        "sqrt"
    }
    fn unit(&self) -> &str {
        "sqrt"
    }
    fn max_n(&self) -> u64 {
        1 << 26
    }
    fn work(&self, n: u64) -> f64 {
        n as f64
    }
    fn n_for_work(&self, work: f64) -> u64 {
        work.round().clamp(1.0, self.max_n() as f64) as u64
    }
    fn prepare(&mut self, n: u64) -> Result<()> {
        check_n(n, self.max_n(), "sqrt")?;
        if self.data.len() < n as usize {
            self.data = (0..n).map(|i| i as f64).collect();
        }
        Ok(())
    }
    #[inline(never)]
    fn run(&mut self, n: u64) {
        let n = (n as usize).min(self.data.len());
        let s: f64 = black_box(&self.data[..n]).iter().map(|x| x.sqrt()).sum();
        black_box(s);
    }
}

/// Naive N×N matrix multiply ("Performance Metrics and Measurement"): N³ multiply-adds.
#[derive(Clone, Debug, Default)]
pub struct Matmul {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
}

impl Workload for Matmul {
    fn name(&self) -> &str {
        "matmul"
    }
    fn unit(&self) -> &str {
        "multiply-add"
    }
    fn max_n(&self) -> u64 {
        2048
    }
    fn work(&self, n: u64) -> f64 {
        (n as f64).powi(3)
    }
    /// The nearest cube root, by bisection: `cbrt` would bring 2 KB of code into the page.
    fn n_for_work(&self, work: f64) -> u64 {
        let (mut lo, mut hi) = (1u64, self.max_n());
        // Largest n with (n - ½)³ ≤ work: the n whose cube is nearest on the cube-root scale.
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if (mid as f64 - 0.5).powi(3) <= work {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }
    fn prepare(&mut self, n: u64) -> Result<()> {
        check_n(n, self.max_n(), "matmul")?;
        let len = (n * n) as usize;
        if self.a.len() < len {
            self.a = (0..len).map(|i| (i % 7) as f64).collect();
            self.b = (0..len).map(|i| (i % 5) as f64).collect();
            self.c = vec![0.0; len];
        }
        Ok(())
    }
    #[inline(never)]
    fn run(&mut self, n: u64) {
        let n = n as usize;
        if n * n > self.c.len() {
            return;
        }
        let (a, b, c) = (black_box(&self.a), black_box(&self.b), &mut self.c);
        for i in 0..n {
            for j in 0..n {
                let mut s = 0.0;
                for k in 0..n {
                    s += a[i * n + k] * b[k * n + j];
                }
                c[i * n + j] = s;
            }
        }
        black_box(c);
    }
}

/// A simulated workload: advances a [`Timeline`] by `base_ps + per_unit_ps × N`, with
/// seeded noise and occasional interrupts, so fits can be checked against a known slope.
#[derive(Clone, Debug)]
pub struct SimWork {
    timeline: Timeline,
    base_ps: f64,
    per_unit_ps: f64,
    noise_ps: u64,
    interrupt_per_million: u64,
    interrupt_ps: u64,
    rng: SplitMix64,
}

impl SimWork {
    /// Work that costs `base_ps + per_unit_ps × N` plus up to `noise_ps`.
    pub fn new(
        timeline: &Timeline,
        base_ps: f64,
        per_unit_ps: f64,
        noise_ps: u64,
        seed: u64,
    ) -> Self {
        Self {
            timeline: timeline.clone(),
            base_ps,
            per_unit_ps,
            noise_ps,
            interrupt_per_million: 0,
            interrupt_ps: 0,
            rng: SplitMix64::new(seed),
        }
    }

    /// Adds interrupts: `per_million` runs in a million lose `ps` more.
    pub fn with_interrupts(mut self, per_million: u64, ps: u64) -> Self {
        self.interrupt_per_million = per_million;
        self.interrupt_ps = ps;
        self
    }
}

impl Workload for SimWork {
    fn name(&self) -> &str {
        "simulated"
    }
    fn unit(&self) -> &str {
        "unit"
    }
    fn max_n(&self) -> u64 {
        1 << 40
    }
    fn work(&self, n: u64) -> f64 {
        n as f64
    }
    fn n_for_work(&self, work: f64) -> u64 {
        work.round().clamp(1.0, self.max_n() as f64) as u64
    }
    fn prepare(&mut self, n: u64) -> Result<()> {
        check_n(n, self.max_n(), "simulated")
    }
    fn run(&mut self, n: u64) {
        let mut ps = self.base_ps + self.per_unit_ps * n as f64;
        ps += self.rng.below(self.noise_ps + 1) as f64;
        if self.interrupt_per_million > 0 && self.rng.below(1_000_000) < self.interrupt_per_million
        {
            ps += self.interrupt_ps as f64;
        }
        self.timeline.advance(ps.round() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_is_refused() {
        for k in WorkloadKind::ALL {
            assert_eq!(WorkloadKind::parse(k.name()).unwrap(), k);
            assert_eq!(k.build().name(), k.name());
        }
        assert!(WorkloadKind::parse("fft").is_err());
    }

    #[test]
    fn matmul_sizes_are_the_rounded_cube_root() {
        let m = Matmul::default();
        for w in [
            0.0f64,
            0.1,
            1.0,
            7.9,
            8.0,
            3.4e3,
            1e6,
            123_456_789.0,
            8.6e9,
            1e12,
        ] {
            let want = w.cbrt().round().clamp(1.0, 2048.0) as u64;
            assert_eq!(m.n_for_work(w), want, "{w}");
        }
        for n in 1..=2048u64 {
            assert_eq!(m.n_for_work(m.work(n)), n);
        }
    }

    #[test]
    fn sizes_are_checked_and_work_inverts() {
        let mut m = Matmul::default();
        assert!(m.prepare(0).is_err());
        assert!(m.prepare(4096).is_err());
        m.prepare(8).unwrap();
        m.run(8);
        assert_eq!(
            m.c[0],
            (0..8)
                .map(|k| ((k % 7) * ((k * 8) % 5)) as f64)
                .sum::<f64>()
        );
        assert_eq!(m.n_for_work(m.work(100)), 100);
        let mut c = Copy::default();
        c.prepare(100).unwrap();
        c.run(100);
        assert_eq!(c.dst[..100], c.src[..100]);
    }
}
