//! Wall time against CPU time: the matrix multiply of "Performance Metrics and Measurement"
//! timed by a wall clock and by the process's and the thread's CPU clocks (the required
//! time is the least of the runs, by each clock), and the first pass over fresh memory of
//! the MacResearch tutorial "Performance and Time" against warm passes. The clocks are the
//! caller's, as every experiment's; the words are [`crate::present::cpu_wall`], the CSV
//! [`crate::export::cpu_wall_csv`].

use std::hint::black_box;

use serde::{Deserialize, Serialize};

use crate::clock::Clock;
use crate::error::{invalid, Result};
use crate::workload::{Matmul, Workload};

/// Most runs at each size.
pub const MAX_RUNS: usize = 1000;
/// Most MiB of fresh memory for the cold pass.
pub const MAX_COLD_MIB: usize = 4096;

/// What to time: the multiply at each of `sizes`, the least of `runs` runs at each, and a
/// pass over `cold_mib` MiB of fresh memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Matrix sizes N (N×N).
    pub sizes: Vec<u64>,
    /// Runs at each size.
    pub runs: usize,
    /// MiB of fresh memory.
    pub cold_mib: usize,
}

impl Options {
    /// Checked options: every size 1 to the multiply's largest, 1 to [`MAX_RUNS`] runs, 1
    /// to [`MAX_COLD_MIB`] MiB.
    pub fn new(sizes: Vec<u64>, runs: usize, cold_mib: usize) -> Result<Self> {
        let max = Matmul::default().max_n();
        if sizes.is_empty() || sizes.iter().any(|&n| n == 0 || n > max) {
            return Err(invalid("sizes", format!("each size must be 1 to {max}")));
        }
        if !(1..=MAX_RUNS).contains(&runs) {
            return Err(invalid("runs", format!("{runs}: expected 1 to {MAX_RUNS}")));
        }
        if !(1..=MAX_COLD_MIB).contains(&cold_mib) {
            return Err(invalid(
                "cold MiB",
                format!("{cold_mib}: expected 1 to {MAX_COLD_MIB}"),
            ));
        }
        Ok(Self {
            sizes,
            runs,
            cold_mib,
        })
    }
}

/// The multiply at one size: the least time of the runs by each clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The matrices' size.
    pub n: u64,
    /// Wall seconds.
    pub wall_s: f64,
    /// The process's CPU seconds, where there is such a clock.
    pub process_cpu_s: Option<f64>,
    /// The thread's CPU seconds, where there is such a clock.
    pub thread_cpu_s: Option<f64>,
    /// Million floating-point operations a second of wall time (2N³ a multiply).
    pub mflops_wall: f64,
    /// The same a second of the thread's CPU time.
    pub mflops_cpu: Option<f64>,
}

/// The first pass over fresh memory against warm passes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ColdWarm {
    /// MiB passed over.
    pub mib: usize,
    /// The first pass's wall seconds (its pages faulted in as it goes).
    pub cold_s: f64,
    /// The least of four warm passes.
    pub warm_s: f64,
    /// Cold over warm.
    pub ratio: f64,
    /// What the passes summed (zero: fresh memory is zero-filled), kept so none is skipped.
    pub sum: f64,
}

/// Wall against CPU time, and cold against warm memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CpuWall {
    /// Runs at each size.
    pub runs: usize,
    /// The multiply, a row per size.
    pub matmul: Vec<Row>,
    /// The memory passes.
    pub cold_vs_warm: ColdWarm,
}

/// The clocks that time it: wall time, and the process's and the thread's CPU time where
/// the platform keeps them.
pub struct Clocks<'a> {
    /// The wall clock.
    pub wall: &'a mut dyn Clock,
    /// The process's CPU clock.
    pub process: Option<&'a mut dyn Clock>,
    /// The thread's CPU clock.
    pub thread: Option<&'a mut dyn Clock>,
}

/// Seconds between readings `a` and `b` of `c`, when its count's length is known.
fn seconds(c: &dyn Clock, a: u64, b: u64) -> Option<f64> {
    let info = c.info();
    info.counts_to_ns(info.diff(a, b) as f64)
        .map(|ns| ns * 1e-9)
}

fn least(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Sum of square roots over `data`, the loop of "Performance and Time".
fn pass(data: &[f64]) -> f64 {
    black_box(data).iter().map(|x| x.sqrt()).sum()
}

/// Times the multiply and the memory passes with `clocks`.
pub fn measure(clocks: Clocks<'_>, o: &Options) -> Result<CpuWall> {
    let Clocks {
        wall,
        mut process,
        mut thread,
    } = clocks;
    if wall.info().counts_to_ns(1.0).is_none() {
        return Err(invalid(
            "wall clock",
            format!("{}: the length of its count is not known", wall.info().name),
        ));
    }
    let mut m = Matmul::default();
    m.prepare(o.sizes.iter().copied().max().unwrap_or(1))?;
    let mut rows = Vec::new();
    for &n in &o.sizes {
        m.run(n); // warm-up
        let (mut w, mut pcpu, mut tcpu) = (f64::INFINITY, None, None);
        for _ in 0..o.runs {
            let p0 = process.as_deref_mut().map(Clock::read);
            let t0 = thread.as_deref_mut().map(Clock::read);
            let w0 = wall.read();
            m.run(n);
            let w1 = wall.read();
            let t1 = thread.as_deref_mut().map(Clock::read);
            let p1 = process.as_deref_mut().map(Clock::read);
            w = w.min(seconds(wall, w0, w1).unwrap_or(f64::INFINITY));
            let cpu = |c: &Option<&mut dyn Clock>, a: Option<u64>, b: Option<u64>| {
                seconds(&**c.as_ref()?, a?, b?)
            };
            pcpu = least(pcpu, cpu(&process, p0, p1));
            tcpu = least(tcpu, cpu(&thread, t0, t1));
        }
        let flops = 2.0 * (n as f64).powi(3);
        rows.push(Row {
            n,
            wall_s: w,
            process_cpu_s: pcpu,
            thread_cpu_s: tcpu,
            mflops_wall: flops / w / 1e6,
            mflops_cpu: tcpu.filter(|&t| t > 0.0).map(|t| flops / t / 1e6),
        });
    }
    // Fresh memory: zeros the allocator maps from pages faulted in at their first touch.
    let fresh = vec![0.0f64; o.cold_mib * (1 << 20) / 8];
    let timed = |wall: &mut dyn Clock, sum: &mut f64| {
        let a = wall.read();
        *sum += pass(&fresh);
        let b = wall.read();
        seconds(wall, a, b).unwrap_or(f64::INFINITY)
    };
    let mut sum = 0.0;
    let cold = timed(wall, &mut sum);
    let warm = (0..4)
        .map(|_| timed(wall, &mut sum))
        .fold(f64::INFINITY, f64::min);
    Ok(CpuWall {
        runs: o.runs,
        matmul: rows,
        cold_vs_warm: ColdWarm {
            mib: o.cold_mib,
            cold_s: cold,
            warm_s: warm,
            ratio: cold / warm,
            sum,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{ClockInfo, ClockKind, CountPeriod};

    /// A clock that moves 1 µs a read: every timing is known without a machine's.
    struct Steps(ClockInfo, u64);
    impl Clock for Steps {
        fn info(&self) -> &ClockInfo {
            &self.0
        }
        fn read(&mut self) -> u64 {
            self.1 += 1000;
            self.1
        }
    }

    #[test]
    fn each_clock_times_the_multiply_and_the_memory() {
        let ns = |name| {
            Steps(
                ClockInfo::new(name, ClockKind::Monotonic, CountPeriod::NANOSECOND),
                0,
            )
        };
        let (mut wall, mut cpu) = (ns("wall"), ns("thread"));
        let o = Options::new(vec![4, 8], 3, 1).unwrap();
        let r = measure(
            Clocks {
                wall: &mut wall,
                process: None,
                thread: Some(&mut cpu),
            },
            &o,
        )
        .unwrap();
        assert_eq!(r.matmul.len(), 2);
        // A read before and after: one step of 1 µs by each clock.
        let us = |s: f64| (s - 1e-6).abs() < 1e-15;
        for row in &r.matmul {
            assert!(
                us(row.wall_s) && row.thread_cpu_s.is_some_and(us),
                "{row:?}"
            );
            assert_eq!(row.process_cpu_s, None);
            let mflops = 2.0 * (row.n as f64).powi(3) / row.thread_cpu_s.unwrap() / 1e6;
            assert_eq!(row.mflops_cpu, Some(mflops));
        }
        assert!(
            us(r.cold_vs_warm.cold_s) && us(r.cold_vs_warm.warm_s),
            "{:?}",
            r.cold_vs_warm
        );
        assert_eq!(r.cold_vs_warm.sum, 0.0);
        assert!(Options::new(vec![0], 1, 1).is_err());
        assert!(Options::new(vec![4], 0, 1).is_err());
        assert!(Options::new(vec![4], 1, 0).is_err());
        assert!(Options::new(vec![u64::MAX], 1, 1).is_err());
    }
}
