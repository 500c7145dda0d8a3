//! Calibration: warm up once, then double the size until one timed block is long enough
//! (the loop of Cox's "Measuring Time"), to choose the sizes a fit is run at.

use serde::{Deserialize, Serialize};

use crate::clock::Clock;
use crate::error::{invalid, Result};
use crate::run::Run;
use crate::workload::Workload;

/// Where the doubling stopped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The size reached.
    pub n: u64,
    /// Duration of the last block, in counts.
    pub block_counts: u64,
    /// The threshold asked for, in counts.
    pub threshold_counts: f64,
    /// Doublings made.
    pub doublings: u32,
    /// Whether the block reached the threshold (not stopped by the budget or the largest size).
    pub reached: bool,
}

/// Doubles the workload's size from 1 until a run lasts at least `threshold_counts` of
/// `clock`, after one untimed warm-up run at each new size. A run that reaches it is timed
/// twice more and the least of the three must reach it too: the required time is the
/// smallest timing, and a run the process was not running through (descheduled, a
/// browser's worker stalled for milliseconds) would stop the doubling at a size far too
/// small for the fit.
pub fn calibrate<C: Clock + ?Sized, W: Workload + ?Sized>(
    clock: &mut C,
    workload: &mut W,
    threshold_counts: f64,
    run: &mut Run<'_>,
) -> Result<Calibration> {
    calibrate_from(clock, workload, threshold_counts, run, 1)
}

/// [`calibrate`], doubling from `from` instead of 1 (a size known too small already).
pub fn calibrate_from<C: Clock + ?Sized, W: Workload + ?Sized>(
    clock: &mut C,
    workload: &mut W,
    threshold_counts: f64,
    run: &mut Run<'_>,
    from: u64,
) -> Result<Calibration> {
    if !(threshold_counts.is_finite() && threshold_counts > 0.0) {
        return Err(invalid(
            "calibration threshold",
            format!("{threshold_counts} counts; expected a finite positive number"),
        ));
    }
    let info = clock.info().clone();
    let max = workload.max_n();
    let mut n = from.clamp(1, max);
    let mut doublings = 0;
    loop {
        workload.prepare(n)?;
        workload.run(n); // warm-up
        let mut time = || {
            let a = clock.read();
            workload.run(n);
            let b = clock.read();
            let d = info.diff(a, b);
            if info.looks_backwards(d) {
                0
            } else {
                d
            }
        };
        let mut d = time();
        if d as f64 >= threshold_counts {
            for _ in 0..2 {
                d = d.min(time());
            }
        }
        let reached = d as f64 >= threshold_counts;
        if reached || n >= max || run.check(0)?.is_some() {
            clock.check_fault()?;
            return Ok(Calibration {
                n,
                block_counts: d,
                threshold_counts,
                doublings,
                reached,
            });
        }
        n = (n * 2).min(max);
        doublings += 1;
    }
}

/// Why a counter's period could not be had against a reference clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unmoved {
    /// The reference never moved (or has no period in ns): it cannot time anything.
    Reference,
    /// The counter did not move over the span.
    Counter,
}

/// Most reads of the reference a wait for its edge, or for the end of the span, may take:
/// the reference is the only clock there is to time the wait, so a frozen one is bounded
/// by reads (a quarter billion: seconds, not forever).
const MOST_READS: u64 = 1 << 28;

/// ns per count of `counter`, from its counts over `span_ns` of `reference`, edge to edge:
/// begun on an edge of the reference, the counter read there and at the reference's first
/// reading `span_ns` later (a page's shared counter against performance.now).
pub fn period_against<C: Clock + ?Sized, R: Clock + ?Sized>(
    counter: &mut C,
    reference: &mut R,
    span_ns: f64,
) -> std::result::Result<f64, Unmoved> {
    let ns = reference
        .info()
        .period
        .ns_per_count()
        .ok_or(Unmoved::Reference)?;
    let info = reference.info().clone();
    let start = reference.read();
    let mut t0 = start;
    let mut reads = 0u64;
    while t0 == start {
        t0 = reference.read();
        reads += 1;
        if reads > MOST_READS {
            return Err(Unmoved::Reference);
        }
    }
    let c0 = counter.read();
    let mut t1 = t0;
    reads = 0;
    while (info.diff(t0, t1) as f64) * ns < span_ns {
        t1 = reference.read();
        reads += 1;
        if reads > MOST_READS {
            return Err(Unmoved::Reference);
        }
    }
    let c1 = counter.read();
    let d = counter.info().diff(c0, c1);
    if d == 0 {
        return Err(Unmoved::Counter);
    }
    Ok(info.diff(t0, t1) as f64 * ns / d as f64)
}

/// One reading of `counter` bracketed by two of `reference`, the tightest bracket of
/// `tries`: the reference's midpoint (in its counts) and the counter's reading. The
/// tightest is the one least disturbed between the reads.
pub fn bracketed(
    counter: &mut impl FnMut() -> u64,
    reference: &mut impl FnMut() -> u64,
    tries: u32,
) -> (f64, u64) {
    let mut best = (u64::MAX, 0.0, 0);
    for _ in 0..tries.max(1) {
        let a = reference();
        let c = counter();
        let b = reference();
        if b.wrapping_sub(a) < best.0 {
            best = (
                b.wrapping_sub(a),
                a as f64 + b.wrapping_sub(a) as f64 / 2.0,
                c,
            );
        }
    }
    (best.1, best.2)
}

/// Counts of `counter` per count of `reference` across `wait` (a sleep the caller
/// provides), each end the tightest of 16 brackets; none unless both moved forward.
pub fn rate_across(
    mut counter: impl FnMut() -> u64,
    mut reference: impl FnMut() -> u64,
    wait: impl FnOnce(),
) -> Option<f64> {
    let (t0, c0) = bracketed(&mut counter, &mut reference, 16);
    wait();
    let (t1, c1) = bracketed(&mut counter, &mut reference, 16);
    let rate = c1.wrapping_sub(c0) as f64 / (t1 - t0);
    (rate.is_finite() && rate > 0.0).then_some(rate)
}

/// Share of a count's span left out at its start: a warm-up (a setTimeout chain's first five
/// calls wait no 4 ms; code not yet optimised runs slower).
pub const COUNT_WARM_UP: f64 = 0.1;

/// ns per count of a counter read `counts` at `times_ms` of a clock in ms, from its first
/// reading past the warm-up to its last, and that span in ms; none unless both moved
/// forward.
pub fn count_rate(times_ms: &[f64], counts: &[f64]) -> Option<(f64, f64)> {
    let n = times_ms.len().min(counts.len());
    if n < 2 {
        return None;
    }
    let from = times_ms[0] + COUNT_WARM_UP * (times_ms[n - 1] - times_ms[0]);
    let first = times_ms[..n - 1]
        .iter()
        .position(|&t| t >= from)
        .unwrap_or(0);
    let span_ms = times_ms[n - 1] - times_ms[first];
    let moved = counts[n - 1] - counts[first];
    let ns = span_ms * 1e6 / moved;
    (span_ms > 0.0 && moved > 0.0 && ns.is_finite()).then_some((ns, span_ms))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{ClockInfo, ClockKind, CountPeriod};
    use std::cell::Cell;
    use std::rc::Rc;

    /// A clock on shared simulated time that each read advances: a counter of
    /// `counts_per_ns`, or (at zero) a clock stepping by `step_ns`.
    struct Shared {
        info: ClockInfo,
        time: Rc<Cell<u64>>,
        step_ns: u64,
        per_read_ns: u64,
        counts_per_ns: f64,
    }

    impl Clock for Shared {
        fn info(&self) -> &ClockInfo {
            &self.info
        }
        fn read(&mut self) -> u64 {
            let t = self.time.get() + self.per_read_ns;
            self.time.set(t);
            if self.counts_per_ns > 0.0 {
                (t as f64 * self.counts_per_ns) as u64
            } else {
                t / self.step_ns * self.step_ns
            }
        }
    }

    /// A counter of 2.5 counts a ns against a ns clock, read 7 ns apart: 2.5 counts a
    /// count across a wait, whatever the wait.
    #[test]
    fn a_counter_s_rate_across_a_wait() {
        let t = Cell::new(1_000u64);
        let read = |step: u64| {
            t.set(t.get() + step);
            t.get()
        };
        let rate = rate_across(
            || (read(7) as f64 * 2.5) as u64,
            || read(7),
            || t.set(t.get() + 25_000_000),
        )
        .unwrap();
        assert!((rate - 2.5).abs() < 1e-6, "{rate}");
        assert_eq!(rate_across(|| 5, || read(7), || ()), None);
    }

    /// A counter of 3 counts a µs against a 1 µs reference: 333.3 ns a count, edge to edge;
    /// a reference that never moves, or a counter that does not, is said, not waited on.
    #[test]
    fn a_counter_s_period_against_a_reference() {
        let time = Rc::new(Cell::new(123));
        let clock = |name: &str, step_ns, counts_per_ns| Shared {
            info: ClockInfo::new(name, ClockKind::Monotonic, CountPeriod::NANOSECOND),
            time: time.clone(),
            step_ns,
            per_read_ns: 7,
            counts_per_ns,
        };
        let mut counter = clock("counter", 1, 3e-3);
        let mut reference = clock("µs", 1000, 0.0);
        let ns = period_against(&mut counter, &mut reference, 100_000.0).unwrap();
        assert!((ns - 1000.0 / 3.0).abs() < 1.0, "{ns}");
        let mut still = clock("still", 1, 0.0);
        still.per_read_ns = 0;
        assert_eq!(
            period_against(&mut counter, &mut still, 1000.0),
            Err(Unmoved::Reference)
        );
        let mut frozen = clock("frozen", 1, 1e-12);
        assert_eq!(
            period_against(&mut frozen, &mut reference, 1000.0),
            Err(Unmoved::Counter)
        );
    }
}
