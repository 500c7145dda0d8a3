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
mod experiment;
pub mod grid;
pub mod model;
pub mod quantum;

use serde::{Deserialize, Serialize};

pub(crate) use estimate::FLOAT_NOISE;
pub use estimate::{
    estimate, estimate_counts, estimate_counts_with, estimate_values, estimate_with_finer,
    exact_gcd, EstimatorOptions, Method, TickEstimate,
};
pub use exact::Exact;
pub use experiment::{measure, MIN_EDGES};
pub use grid::{EdgeGrid, Grid};
pub use quantum::Quantum;

use crate::caveat::{Cadence, Caveat};
use crate::clock::ClockInfo;
use crate::error::{Error, Result};
use crate::run::{Budget, Gaps, Stop};
use crate::stats::{self, Band, Summary};
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
    /// The machine was too busy to tell: every interval that could show the tick straddled
    /// a time the process was not running (version 6 on).
    TooBusy,
    /// At or above a claimed floor (a nested timeout waits at least 4 ms): as promised.
    AtLeastClaimed,
    /// Below a claimed floor: shorter than the promised minimum.
    BelowClaimedMinimum,
}

/// Compares a measured tick with a claim, both in ns; `minimum` when the claim is a floor
/// rather than a resolution.
pub fn verdict(measured_ns: Option<f64>, claimed_ns: Option<f64>, minimum: bool) -> Verdict {
    match (measured_ns, claimed_ns) {
        (_, None) => Verdict::NoClaim,
        (None, _) => Verdict::Unknown,
        (Some(m), Some(c)) => {
            let r = m / c;
            if !r.is_finite() {
                Verdict::Unknown
            } else if minimum && r >= 1.0 / 1.05 {
                Verdict::AtLeastClaimed
            } else if minimum {
                Verdict::BelowClaimedMinimum
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
    /// Whether the claim is a floor, not a resolution ([`crate::clock::Claim::minimum`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub claimed_minimum: bool,
    /// Measured against claimed.
    pub verdict: Verdict,
    /// Reads between consecutive changes of value (1 means the clock changed at every read).
    pub reads_per_change: Option<Summary>,
    /// Whether the edges fall on a fixed grid or are jittered, when enough reads fit in a
    /// tick to tell (version 5 on).
    #[serde(default)]
    pub edge_grid: Option<EdgeGrid>,
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
    pub caveats: Vec<Caveat>,
    /// Where the loops were not running (version 6 on; none in older reports).
    #[serde(default)]
    pub gaps: Gaps,
}

/// Spans (in edges) over which sums of consecutive edges are added to the intervals: sums of
/// edges are exact unwrapped differences, and they tell a true tick from a read cadence.
const SPANS: [usize; 10] = [2, 3, 5, 8, 13, 21, 34, 55, 89, 144];

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
/// only the data's precision cannot match or beat a claim, and one that is only an upper
/// bound (too few intervals, none shorter than the reading cadence) can show a clock finer
/// than claimed, or one as fine, but never one coarser: "≤ 16.666 ms" of frames says
/// nothing against a 5 µs claim.
impl TickResult {
    /// The tick in ns as a figure to show, when there is one: not when the machine was too
    /// busy to tell (the estimate is then only a bound, and a dash stands for it).
    pub fn told_ns(&self) -> Option<f64> {
        self.tick_ns.filter(|_| self.verdict != Verdict::TooBusy)
    }

    /// Holds the tick against another claim, `claimed_ns`: the one that applies, once the
    /// measurement has told which of several a platform documents.
    pub fn hold_against(&mut self, claimed_ns: f64) {
        self.claimed_ns = Some(claimed_ns);
        // Too busy to tell is so against any claim.
        if self.verdict != Verdict::TooBusy {
            self.verdict = tick_verdict(
                &self.estimate,
                self.tick_ns,
                self.claimed_ns,
                self.claimed_minimum,
            );
        }
    }
}

fn tick_verdict(
    e: &TickEstimate,
    tick_ns: Option<f64>,
    claimed_ns: Option<f64>,
    minimum: bool,
) -> Verdict {
    match verdict(tick_ns, claimed_ns, minimum) {
        Verdict::NoClaim => Verdict::NoClaim,
        _ if !e.found() => Verdict::Unknown,
        // An unreliable tick is an upper bound: it can say "finer", never "at least".
        Verdict::CoarserThanClaimed | Verdict::AtLeastClaimed if !e.reliable => Verdict::Unknown,
        v => v,
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
fn bound_by_cadence(
    estimate: &mut TickEstimate,
    edges: &[u64],
    cadence: Cadence,
) -> Option<Caveat> {
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
        Caveat::BoundByCadence { cadence }
    })
}

/// The tick of a count of events (messages, timeouts) read at moments of another clock,
/// `info.period` its rate calibrated against that clock: one count by construction when the
/// readings step by one, and then no bound of the sampling's cadence; otherwise what the
/// readings show, as for any sampled clock.
pub fn from_counts(
    info: &ClockInfo,
    readings: &[u64],
    elapsed_s: f64,
    stop: Stop,
    opts: &TickOptions,
) -> Result<TickResult> {
    let mut t = from_readings(info, readings, elapsed_s, stop, opts)?;
    if t.exact_gcd == 1 && t.estimate.found() && t.estimate.tick == 1.0 {
        t.caveats
            .retain(|c| !matches!(c, Caveat::Sampled | Caveat::BoundByCadence { .. }));
        t.estimate.reliable = !t
            .caveats
            .iter()
            .any(|c| matches!(c, Caveat::FewChanges { .. }));
        t.caveats.insert(0, Caveat::Counted);
        t.verdict = tick_verdict(&t.estimate, t.tick_ns, t.claimed_ns, t.claimed_minimum);
    }
    Ok(t)
}

/// Relative tolerance of the estimate from sampled readings.
pub const SAMPLED_REL_TOLERANCE: f64 = 0.002;

/// What a list of values sampled from a clock is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Values {
    /// Readings taken at moments of the sampler's (a frame, a task): [`from_readings`].
    Readings,
    /// A count of events read against another clock, its rate in `info.period`:
    /// [`from_counts`].
    Counts,
    /// A set of durations (Event Timing's), not a series: sorted, their differences are
    /// the steps of their rounding (diff(sort()), as in "Finding Timer Resolution and
    /// Overhead").
    Durations,
}

/// The tick of `values` in the clock's own unit (ms, s, a count), `counts_per_unit` counts
/// each: values that are no count (negative, not finite, too large) are left out and said
/// (a caveat). Durations all alike say there is one value, not a frozen clock; too few
/// durations are too few input events (a page's visitor makes them).
pub fn from_values(
    info: &ClockInfo,
    values: &[f64],
    counts_per_unit: f64,
    kind: Values,
    elapsed_s: f64,
    stop: Stop,
    opts: &TickOptions,
) -> Result<TickResult> {
    let mut sorted;
    let values = if kind == Values::Durations {
        sorted = values.to_vec();
        // Equal under total order is the same bits: the page's one float sort does.
        stats::sort_f64(&mut sorted);
        &sorted[..]
    } else {
        values
    };
    let mut counts = Vec::with_capacity(values.len());
    let mut bad = 0u64;
    for v in values {
        let c = (v * counts_per_unit).round();
        if (0.0..1.8e19).contains(&c) {
            counts.push(c as u64);
        } else {
            bad += 1;
        }
    }
    let estimate = match kind {
        Values::Counts => from_counts,
        Values::Readings | Values::Durations => from_readings,
    };
    match (estimate(info, &counts, elapsed_s, stop, opts), kind) {
        (Ok(mut t), _) => {
            if bad > 0 {
                t.caveats.push(Caveat::BadReadings { readings: bad });
            }
            Ok(t)
        }
        (Err(Error::Frozen { reads, .. }), Values::Durations) => {
            Err(Error::NoData(Caveat::OneValue { readings: reads }))
        }
        (Err(Error::NoData(Caveat::TooFewReadings { readings })), Values::Durations) => {
            Err(Error::NoData(Caveat::FewInputEvents { events: readings }))
        }
        (Err(e), _) => Err(e),
    }
}

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
        return Err(Error::NoData(Caveat::TooFewReadings {
            readings: readings.len() as u64,
        }));
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
    let claimed_minimum = info.claimed.as_ref().is_some_and(|c| c.minimum);
    let mut caveats = vec![Caveat::Sampled];
    if backwards > 0 {
        caveats.push(Caveat::Backwards {
            differences: backwards,
        });
    }
    if edges.len() < MIN_RELIABLE as usize {
        caveats.push(Caveat::FewChanges {
            changes: edges.len() as u64,
        });
    }
    let mut estimate = estimate;
    caveats.extend(bound_by_cadence(&mut estimate, &edges, Cadence::Sampling));
    let tick_ns = ns.map(|p| p * estimate.tick);
    let edges_f: Vec<f64> = edges.iter().map(|&d| d as f64).collect();
    Ok(TickResult {
        exact_gcd: exact_gcd(&all),
        ns_per_count: ns,
        tick_ns,
        claimed_ns,
        claimed_minimum,
        verdict: tick_verdict(&estimate, tick_ns, claimed_ns, claimed_minimum),
        reads_per_change: Summary::of_counts(&rpc).ok(),
        // Readings taken when the platform lets them are no count of time between edges.
        edge_grid: None,
        edges: edges.len() as u64,
        timings: 0,
        backwards_steps: backwards,
        edge_intervals: stats::decimate(&edges, opts.keep),
        timings_sample: stats::decimate(&edges, opts.keep),
        bands: stats::bands(&edges_f, estimate.tick / 4.0, 64),
        elapsed_s,
        stop,
        caveats,
        gaps: Gaps::default(),
        estimate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    #[test]
    fn an_upper_bound_is_never_coarser_than_the_claim() {
        let e = |reliable| TickEstimate {
            reliable,
            ..estimate_counts(&[16_666_000, 33_332_000, 16_666_000], &Default::default()).unwrap()
        };
        let frames = Some(16_666_000.0);
        assert_eq!(
            tick_verdict(&e(false), frames, Some(5_000.0), false),
            Verdict::Unknown
        );
        assert_eq!(
            tick_verdict(&e(true), frames, Some(5_000.0), false),
            Verdict::CoarserThanClaimed
        );
        assert_eq!(
            tick_verdict(&e(false), frames, Some(1e9), false),
            Verdict::FinerThanClaimed
        );
    }

    #[test]
    fn verdicts() {
        assert_eq!(verdict(Some(100.0), Some(100.0), false), Verdict::Matches);
        assert_eq!(
            verdict(Some(200.0), Some(100.0), false),
            Verdict::CoarserThanClaimed
        );
        assert_eq!(
            verdict(Some(1.0), Some(100.0), false),
            Verdict::FinerThanClaimed
        );
        assert_eq!(verdict(Some(1.0), None, false), Verdict::NoClaim);
        assert_eq!(verdict(None, Some(1.0), false), Verdict::Unknown);
        // A floor: HTML's nested timeouts wait at least 4 ms; 4.1 to 4.8 ms keep it.
        for ms in [3.9, 4.0, 4.1, 4.8, 40.0] {
            assert_eq!(
                verdict(Some(ms * 1e6), Some(4e6), true),
                Verdict::AtLeastClaimed
            );
        }
        assert_eq!(
            verdict(Some(1e6), Some(4e6), true),
            Verdict::BelowClaimedMinimum
        );
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
