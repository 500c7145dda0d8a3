//! The tick (resolution) of a clock: the experiment that gathers intervals, and the
//! estimators over them (in [`estimate`], with the data's [`quantum`] and [`exact`] forms).
//!
//! The tick divides every short interval (Krutar), so the greatest common divisor of many
//! unsigned differences converges to it; the smallest difference does not. The exact GCD is
//! spoiled by a single interval that is not a multiple (a read that straddles a step, a
//! non-integer tick written in whole counts, float noise), so beside it runs the robust
//! estimate: the largest tick that explains nearly all intervals, to within the data's
//! quantum, far beyond what chance would.

pub mod estimate;
pub mod exact;
pub mod quantum;

use serde::{Deserialize, Serialize};
use std::hint::black_box;

pub use estimate::{
    estimate, estimate_counts, estimate_counts_with, estimate_values, estimate_with_finer,
    exact_gcd, EstimatorOptions, Method, TickEstimate,
};
pub use exact::Exact;
pub use quantum::Quantum;

use crate::clock::{Clock, ClockInfo};
use crate::error::{Error, Result};
use crate::run::{Budget, Pace, Run, Stop};
use crate::stats::{self, Band, Summary};
use crate::synthetic::SplitMix64;
use estimate::MIN_RELIABLE;

/// How a measured tick compares with the platform's claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Within 5% of the claim.
    Matches,
    /// Coarser than claimed: the claim is optimistic.
    CoarserThanClaimed,
    /// Finer than claimed: the claim is pessimistic.
    FinerThanClaimed,
    /// The platform claims nothing.
    NoClaim,
    /// The tick is known only in counts of unknown length.
    Unknown,
}

/// Compares a measured tick with a claim, both in ns.
pub fn verdict(measured_ns: Option<f64>, claimed_ns: Option<f64>) -> Verdict {
    match (measured_ns, claimed_ns) {
        (_, None) => Verdict::NoClaim,
        (None, _) => Verdict::Unknown,
        (Some(m), Some(c)) => {
            let r = m / c;
            if !r.is_finite() {
                Verdict::Unknown
            } else if r > 1.05 {
                Verdict::CoarserThanClaimed
            } else if r < 1.0 / 1.05 {
                Verdict::FinerThanClaimed
            } else {
                Verdict::Matches
            }
        }
    }
}

/// Options of the tick experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TickOptions {
    /// Time and interval budget.
    pub budget: Budget,
    /// Tolerances of the robust estimate.
    pub estimator: EstimatorOptions,
    /// Raw samples kept in the result for plots.
    pub keep: usize,
    /// Seed of the dither.
    pub seed: u64,
}

impl TickOptions {
    /// Defaults with the given budget.
    pub fn new(budget: Budget) -> Self {
        Self {
            budget,
            estimator: EstimatorOptions::default(),
            keep: 4096,
            seed: 0x7ec1_ab00,
        }
    }
}

/// The result of the tick experiment, in counts of the clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TickResult {
    /// The estimate over edges, spans and dithered timings.
    pub estimate: TickEstimate,
    /// Exact GCD of all integer intervals.
    pub exact_gcd: u64,
    /// Nanoseconds per count, when known.
    pub ns_per_count: Option<f64>,
    /// The tick in ns, when the period is known.
    pub tick_ns: Option<f64>,
    /// The claimed resolution in ns.
    pub claimed_ns: Option<f64>,
    /// Measured against claimed.
    pub verdict: Verdict,
    /// Reads between consecutive changes of value (1 means the clock changed at every read).
    pub reads_per_change: Option<Summary>,
    /// Edge-to-edge intervals gathered.
    pub edges: u64,
    /// Dithered timings gathered (read, a random short wait, read).
    pub timings: u64,
    /// Differences that went backwards (left out of the estimate).
    pub backwards_steps: u64,
    /// Edge-to-edge intervals in order, decimated.
    pub edge_intervals: Vec<u64>,
    /// Dithered timings in order, decimated: the raw view of "Finding Timer Resolution and Overhead".
    pub timings_sample: Vec<u64>,
    /// Bands of the timings (levels at multiples of the tick).
    pub bands: Vec<Band>,
    /// Seconds spent.
    pub elapsed_s: f64,
    /// What ended the sampling.
    pub stop: Stop,
    /// What limits the result, beyond the estimate's own caveats.
    pub caveats: Vec<String>,
}

/// Spans (in edges) over which sums of consecutive edges are added to the intervals: sums of
/// edges are exact unwrapped differences, and they tell a true tick from a read cadence.
const SPANS: [usize; 10] = [2, 3, 5, 8, 13, 21, 34, 55, 89, 144];

/// Busy work of `n` dependent steps the optimiser cannot remove.
#[inline(never)]
fn spin(n: u64) -> u64 {
    let mut x = black_box(n);
    for _ in 0..n {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
    }
    x
}

/// Fewest reads the tick and overhead experiments need inside their budget.
pub const MIN_READS: u32 = 64;

/// Refuses a clock whose reads, at `read_s` each, do not fit [`MIN_READS`] times in the budget:
/// a few slow reads can only give a confident-looking upper bound.
pub(crate) fn too_slow(
    clock: &str,
    experiment: &'static str,
    read_s: f64,
    budget_s: f64,
) -> Result<()> {
    if read_s * MIN_READS as f64 > budget_s {
        return Err(Error::TooSlow {
            clock: clock.into(),
            experiment,
            read_s,
            budget_s,
            min_reads: MIN_READS,
        });
    }
    Ok(())
}

/// Longest time each side of [`dither_range`] spends, in seconds.
const DITHER_PROBE_S: f64 = 0.001;

/// How many spin steps the dither draws from: 64, or two reads' worth when a read costs more
/// (a syscall clock, an interpolated clock), so the dithered intervals still vary finely
/// over a whole read and the GCD can go below it. Costs are compared on the stopwatch; the
/// flag says whether it saw the spins take time at all (a simulated stopwatch does not).
fn dither_range<C: Clock + ?Sized>(clock: &mut C, run: &mut Run<'_>) -> (u64, bool) {
    // None when the count runs out first: the stopwatch did not see the work, so there is
    // no ratio to trust.
    let rate = |run: &mut Run<'_>, f: &mut dyn FnMut()| {
        let t0 = run.elapsed();
        let mut n = 0u64;
        let mut dt = 0.0;
        while dt < DITHER_PROBE_S {
            if n == 1 << 20 {
                return None;
            }
            f();
            n += 1;
            dt = run.elapsed() - t0;
        }
        Some(n as f64 / dt)
    };
    let reads = rate(run, &mut || {
        black_box(clock.read());
    });
    let spins = rate(run, &mut || {
        black_box(spin(16));
    });
    match (reads, spins) {
        (Some(r), Some(s)) => ((2.0 * 16.0 * s / r).clamp(64.0, 1e7) as u64, true),
        _ => (64, false),
    }
}

/// Measures the tick of `clock`: edge-to-edge sampling (spin until the reading changes,
/// bounded by time) interleaved with dithered timings (read, a random number of reads and
/// spins, read), then the estimators over edges, sums of edges and timings.
pub fn measure<C: Clock + ?Sized>(
    clock: &mut C,
    run: &mut Run<'_>,
    opts: &TickOptions,
) -> Result<TickResult> {
    let info = clock.info().clone();
    let mut rng = SplitMix64::new(opts.seed);
    let mut edges: Vec<u64> = Vec::new();
    let mut segments: Vec<usize> = vec![0]; // edge indices where a backwards step broke the run
    let mut rpc: Vec<u64> = Vec::new();
    let mut timings: Vec<u64> = Vec::new();
    let mut backwards = 0u64;
    let mut reads_waiting = 0u64;

    let read_s = run.warm_up(64, 0.05, &mut || {
        black_box(clock.read());
    });
    too_slow(&info.name, "tick", read_s, run.budget().time_s)?;
    let (spin_range, dither_seen) = dither_range(clock, run);
    let (mut edge_pace, mut timing_pace) = (Pace::new(), Pace::new());
    let mut prev = clock.read();
    let mut partial = true; // the first wait after a jump starts mid-tick
    let stop = 'outer: loop {
        // Edge-to-edge: spin until the value changes.
        for _ in 0..64 {
            let mut spins = 0u64;
            let r = loop {
                let r = clock.read();
                spins += 1;
                if r != prev {
                    break r;
                }
                if let Some(s) = run.poll(&mut edge_pace, (edges.len() + timings.len()) as u64)? {
                    reads_waiting += spins;
                    break 'outer s;
                }
            };
            reads_waiting += spins;
            let d = info.diff(prev, r);
            if info.looks_backwards(d) {
                backwards += 1;
                segments.push(edges.len());
            } else {
                edges.push(d);
                if !partial {
                    rpc.push(spins);
                }
            }
            partial = false;
            prev = r;
            // A clock that changes at every read never waits above: check here too.
            if let Some(s) = run.poll(&mut edge_pace, (edges.len() + timings.len()) as u64)? {
                break 'outer s;
            }
        }
        if let Some(f) = clock.take_fault() {
            return Err(Error::Fault {
                clock: info.name.clone(),
                fault: f,
            });
        }
        // Dithered timings: a random wait of reads and spins, so the intervals vary on a
        // scale finer than the read cost and the GCD can go below it.
        let typical = if rpc.is_empty() {
            4
        } else {
            rpc[rpc.len() / 2].clamp(1, 1 << 16)
        };
        for _ in 0..64u32 {
            if let Some(s) = run.poll(&mut timing_pace, (edges.len() + timings.len()) as u64)? {
                break 'outer s;
            }
            let m = rng.below(4 * typical + 1);
            let s = rng.below(spin_range);
            let a = clock.read();
            for _ in 0..m {
                black_box(clock.read());
            }
            black_box(spin(s));
            let b = clock.read();
            let d = info.diff(a, b);
            if info.looks_backwards(d) {
                backwards += 1;
            } else {
                timings.push(d);
            }
            prev = b;
        }
        partial = true;
        if let Some(s) = run.check((edges.len() + timings.len()) as u64)? {
            break s;
        }
    };
    if let Some(f) = clock.take_fault() {
        return Err(Error::Fault {
            clock: info.name.clone(),
            fault: f,
        });
    }
    let elapsed_s = run.elapsed();
    if edges.is_empty() && timings.iter().all(|&d| d == 0) {
        return Err(Error::Frozen {
            clock: info.name.clone(),
            elapsed_s,
            reads: reads_waiting,
        });
    }

    // Intervals for the estimate: edges, sums of consecutive edges within each unbroken
    // segment, and the dithered timings.
    segments.push(edges.len());
    let mut all = with_span_sums(&edges, &segments);
    all.extend(timings.iter().copied());
    let mut estimate = estimate_clock(&info, &all, &opts.estimator)?;
    let ns = info.period.ns_per_count();
    let claimed_ns = info.claimed.as_ref().map(|c| c.ns);

    let mut caveats = Vec::new();
    let reads_per_change = Summary::of_counts(&rpc).ok();
    if let Some(r) = &reads_per_change {
        if r.median <= 1.5 {
            if dither_seen {
                caveats.push(
                    "the value changed at nearly every read: the tick comes from the dithered \
                     timings, whose lengths varied over two reads' worth of work"
                        .into(),
                );
            } else {
                caveats.push(
                    "the value changed at nearly every read: the tick is at most one read's \
                     cost, and comes from the GCD of the varied intervals"
                        .into(),
                );
                caveats.extend(bound_by_cadence(&mut estimate, &edges, "reading cadence"));
            }
        }
    }
    if backwards > 0 {
        caveats.push(backwards_caveat(backwards));
    }
    if edges.len() < MIN_RELIABLE as usize {
        caveats.push(format!(
            "only {} edges seen within the budget: raise --time for a coarse clock",
            edges.len()
        ));
    }
    let tick_ns = ns.map(|p| p * estimate.tick);
    let gap = estimate.tick / 4.0;
    let timings_f: Vec<f64> = timings.iter().map(|&d| d as f64).collect();
    Ok(TickResult {
        exact_gcd: exact_gcd(&all),
        ns_per_count: ns,
        tick_ns,
        claimed_ns,
        verdict: tick_verdict(&estimate, tick_ns, claimed_ns),
        reads_per_change,
        edges: edges.len() as u64,
        timings: timings.len() as u64,
        backwards_steps: backwards,
        edge_intervals: stats::decimate(&edges, opts.keep),
        timings_sample: stats::decimate(&timings, opts.keep),
        bands: stats::bands(&timings_f, gap, 64),
        elapsed_s,
        stop,
        caveats,
        estimate,
    })
}

/// The estimate over a clock's intervals: in counts, to the clock's quantum (one count, or a
/// float clock's spacing), with the count's length for exact frequencies.
fn estimate_clock(
    info: &ClockInfo,
    intervals: &[u64],
    opts: &EstimatorOptions,
) -> Result<TickEstimate> {
    let quantum = info
        .quantum
        .filter(|q| q.is_finite() && *q > 1.0)
        .map_or(Quantum::Count, |step| Quantum::Spacing { step });
    let count_s = info.period.ns_per_count().map(|ns| ns * 1e-9);
    estimate_counts_with(intervals, quantum, count_s, opts)
}

/// The verdict of a measured tick: against the claim when a tick was found; a tick that is
/// only the data's precision cannot match or beat a claim.
fn tick_verdict(e: &TickEstimate, tick_ns: Option<f64>, claimed_ns: Option<f64>) -> Verdict {
    let v = verdict(tick_ns, claimed_ns);
    if e.found() || v == Verdict::NoClaim {
        v
    } else {
        Verdict::Unknown
    }
}

/// The edges followed by sums of consecutive edges over [`SPANS`], never across a break
/// (`segments` holds the edge indices where unbroken runs start and end).
fn with_span_sums(edges: &[u64], segments: &[usize]) -> Vec<u64> {
    let mut all = edges.to_vec();
    for seg in segments.windows(2) {
        let e = &edges[seg[0]..seg[1]];
        let mut prefix = Vec::with_capacity(e.len() + 1);
        prefix.push(0u64);
        for &d in e {
            prefix.push(prefix[prefix.len() - 1].saturating_add(d));
        }
        for s in SPANS {
            let mut i = 0;
            while i + s < prefix.len() {
                all.push(prefix[i + s] - prefix[i]);
                i += s;
            }
        }
    }
    all
}

/// When the tick found is the shortest edge, every interval may be one cadence (reads,
/// frames): a finer tick would look the same, so the estimate becomes an upper bound. Edges
/// that are not multiples of the tick (straddles, outliers) do not count; edges of two and
/// three ticks (20 and 30 ns) show a tick below the cadence.
fn bound_by_cadence(estimate: &mut TickEstimate, edges: &[u64], cadence: &str) -> Option<String> {
    let t = estimate.tick;
    let tol = 0.03 * t;
    let shortest = edges
        .iter()
        .map(|&d| d as f64)
        .filter(|&d| {
            let k = (d / t).round();
            k >= 1.0 && (d - k * t).abs() <= tol.max(1.0)
        })
        .fold(f64::INFINITY, f64::min);
    (shortest.is_finite() && t >= shortest * 0.97).then(|| {
        estimate.reliable = false;
        format!("no interval was shorter than the {cadence}: the tick found is only an upper bound")
    })
}

fn backwards_caveat(n: u64) -> String {
    format!("{n} differences went backwards (the clock is not monotonic); they were left out")
}

/// Relative tolerance of the estimate from sampled readings.
pub const SAMPLED_REL_TOLERANCE: f64 = 0.002;

/// The tick of a clock that cannot be spun on, from readings taken when the platform
/// allows (a page's frame timestamps, an audio clock sampled once per task).
///
/// Consecutive distinct readings are intervals the tick divides, like edges, but they are
/// not edge-to-edge: the estimate is as good as the spread of the sampling moments.
/// Readings that repeat count as reads per change; steps backwards are left out.
pub fn from_readings(
    info: &ClockInfo,
    readings: &[u64],
    elapsed_s: f64,
    stop: Stop,
    opts: &TickOptions,
) -> Result<TickResult> {
    if readings.len() < 3 {
        return Err(Error::NoData(format!(
            "{}: {} readings; at least 3 are needed",
            info.name,
            readings.len()
        )));
    }
    let mut edges = Vec::new();
    let mut segments = vec![0];
    let mut rpc = Vec::new();
    let mut backwards = 0u64;
    let mut same = 1u64;
    for w in readings.windows(2) {
        let d = info.diff(w[0], w[1]);
        if d == 0 {
            same += 1;
        } else if info.looks_backwards(d) {
            backwards += 1;
            segments.push(edges.len());
        } else {
            edges.push(d);
            rpc.push(same);
            same = 1;
        }
    }
    if edges.is_empty() {
        return Err(Error::Frozen {
            clock: info.name.clone(),
            elapsed_s,
            reads: readings.len() as u64,
        });
    }
    segments.push(edges.len());
    let all = with_span_sums(&edges, &segments);
    // Sampling moments come at a cadence (a frame, a task) with jitter of a few percent: at
    // the usual tolerance the cadence itself would pass for the tick.
    let mut estimator = opts.estimator.clone();
    estimator.rel_tolerance = estimator.rel_tolerance.min(SAMPLED_REL_TOLERANCE);
    let estimate = estimate_clock(info, &all, &estimator)?;
    let ns = info.period.ns_per_count();
    let claimed_ns = info.claimed.as_ref().map(|c| c.ns);
    let mut caveats = vec![
        "sampled at moments the platform chose, not edge to edge: every interval is a \
         multiple of the tick, but a tick finer than the sampling spread may be missed"
            .to_string(),
    ];
    if backwards > 0 {
        caveats.push(backwards_caveat(backwards));
    }
    if edges.len() < MIN_RELIABLE as usize {
        caveats.push(format!(
            "only {} changes seen: sample for longer",
            edges.len()
        ));
    }
    let mut estimate = estimate;
    caveats.extend(bound_by_cadence(
        &mut estimate,
        &edges,
        "sampling cadence (a frame, a task)",
    ));
    let tick_ns = ns.map(|p| p * estimate.tick);
    let edges_f: Vec<f64> = edges.iter().map(|&d| d as f64).collect();
    Ok(TickResult {
        exact_gcd: exact_gcd(&all),
        ns_per_count: ns,
        tick_ns,
        claimed_ns,
        verdict: tick_verdict(&estimate, tick_ns, claimed_ns),
        reads_per_change: Summary::of_counts(&rpc).ok(),
        edges: edges.len() as u64,
        timings: 0,
        backwards_steps: backwards,
        edge_intervals: stats::decimate(&edges, opts.keep),
        timings_sample: stats::decimate(&edges, opts.keep),
        bands: stats::bands(&edges_f, estimate.tick / 4.0, 64),
        elapsed_s,
        stop,
        caveats,
        estimate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        assert_eq!(verdict(Some(100.0), Some(100.0)), Verdict::Matches);
        assert_eq!(
            verdict(Some(200.0), Some(100.0)),
            Verdict::CoarserThanClaimed
        );
        assert_eq!(verdict(Some(1.0), Some(100.0)), Verdict::FinerThanClaimed);
        assert_eq!(verdict(Some(1.0), None), Verdict::NoClaim);
        assert_eq!(verdict(None, Some(1.0)), Verdict::Unknown);
    }

    #[test]
    fn readings_at_frame_moments_reveal_a_100us_clamp() {
        use crate::clock::{ClockKind, CountPeriod};
        let info = ClockInfo::new("raf", ClockKind::Monotonic, CountPeriod::NANOSECOND);
        // Frames about 16.7 ms apart with jitter, each stamp clamped to 100 µs.
        let mut rng = SplitMix64::new(7);
        let mut t = 5_000_000u64;
        let mut r = Vec::new();
        for _ in 0..300 {
            t += 16_666_667 + rng.below(400_000);
            r.push(t / 100_000 * 100_000);
        }
        let opts = TickOptions::new(Budget::new(1.0, 1000).unwrap());
        let res = from_readings(&info, &r, 5.0, Stop::Samples, &opts).unwrap();
        assert_eq!(res.tick_ns, Some(100_000.0));
        assert!(from_readings(&info, &[5, 5, 5, 5], 1.0, Stop::Time, &opts).is_err());
        assert!(from_readings(&info, &[5], 1.0, Stop::Time, &opts).is_err());
    }
}
