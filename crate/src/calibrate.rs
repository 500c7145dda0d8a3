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
