//! The tick experiment: edges (spin until the reading changes) interleaved with dithered
//! timings, each loop bounded by the run's budget; the estimators are in the parent module.

use std::hint::black_box;

use super::*;
use crate::clock::Clock;
use crate::rng::SplitMix64;
use crate::run::{Gap, Loop, Pace, Run};

/// Busy work of `n` dependent steps the optimiser cannot remove.
#[inline(never)]
fn spin(n: u64) -> u64 {
    let mut x = black_box(n);
    for _ in 0..n {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
    }
    x
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

/// Fewest reads a wait for an edge (or a dithered timing) must take for the stopwatch to be
/// read at its ends: the read then costs the loop a sixty-fourth at most, and the stretch it
/// closes is that wait's alone, so a gap is put in the wait it happened in.
const STAMP_READS: u64 = 64;

/// The share of a run the gaps may take before an answer that finds no grid (only the
/// data's own step) is "too busy to tell": an idle machine loses under 1 %.
pub const NO_GRID_BUSY_SHARE: f64 = 0.25;

/// How many ticks the shortest interval may span before a tick found only as their common
/// divisor is no evidence of the clock's step (a fine clock's shortest span a few).
const UNFOUNDED_RATIO: f64 = 1000.0;

/// Fewest edges, none broken by a gap, a tick rests on: fewer give at most a bound, and in a
/// starved run no figure at all ("too busy to tell").
pub const MIN_EDGES: u64 = 10;

/// Share of an interval a gap inside it must have lost for the interval to be set aside: a
/// reading that missed k ≥ 2 ticks was not running for (k − 1)/k of the interval, at least
/// half of it (less a little for the gap's measure).
const STARVED_SHARE: f64 = 0.4;

/// What the sampling gathered: edges and dithered timings, the stretches they lie within
/// ([`Run::stamps`]), and what the grid and the reads per change are found from.
struct Sampled {
    edges: Vec<u64>,
    edge_spans: Vec<(u64, u64)>,
    timings: Vec<u64>,
    timing_spans: Vec<(u64, u64)>,
    /// Edge indices where a backwards step broke the run.
    segments: Vec<usize>,
    /// Reads between edges of each whole wait, with its edge.
    rpc: Vec<(u64, usize)>,
    /// (reads, step, whether it follows the one before), for the grid.
    spacing: Vec<(u64, u64, bool)>,
    backwards: u64,
    reads_waiting: u64,
}

/// The sampling loop's state between its rounds of edges and of dithered timings.
struct Sampler<'c, C: Clock + ?Sized> {
    clock: &'c mut C,
    info: ClockInfo,
    rng: SplitMix64,
    got: Sampled,
    follows: bool,
    /// The stamp the next edge's wait starts after.
    open: u64,
    /// Whether the next wait starts mid-tick (the first after a jump).
    partial: bool,
    prev: u64,
    edge_pace: Pace,
    timing_pace: Pace,
    spin_range: u64,
    /// Spin steps a read's time is worth, to count a dither's spin as its loop's work (a
    /// simulated spin takes no simulated time).
    spins_per_read: f64,
}

impl<'c, C: Clock + ?Sized> Sampler<'c, C> {
    // Each round is inlined into `measure`, as the one loop it was (0.1 KB less of the
    // page's wasm, gzipped, in each module that runs a tick experiment).
    #[inline(always)]
    fn new(clock: &'c mut C, run: &mut Run<'_>, seed: u64, spin_range: u64, seen: bool) -> Self {
        let info = clock.info().clone();
        let prev = clock.read();
        Self {
            clock,
            info,
            rng: SplitMix64::new(seed),
            got: Sampled {
                edges: Vec::new(),
                edge_spans: Vec::new(),
                timings: Vec::new(),
                timing_spans: Vec::new(),
                segments: vec![0],
                rpc: Vec::new(),
                spacing: Vec::new(),
                backwards: 0,
                reads_waiting: 0,
            },
            follows: false,
            open: run.stamps(),
            partial: true,
            prev,
            edge_pace: Pace::new(Loop::Edges),
            timing_pace: Pace::new(Loop::Dither),
            spin_range,
            spins_per_read: if seen {
                (spin_range as f64 / 2.0).max(1.0)
            } else {
                f64::INFINITY
            },
        }
    }

    #[inline(always)]
    fn samples(&self) -> u64 {
        (self.got.edges.len() + self.got.timings.len()) as u64
    }

    /// Edge to edge: 64 times, spin until the value changes. Why the run stopped, if it did.
    #[inline(always)]
    fn edges(&mut self, run: &mut Run<'_>) -> Result<Option<Stop>> {
        for _ in 0..64 {
            let mut spins = 0u64;
            let prev = self.prev;
            let r = loop {
                let r = self.clock.read();
                spins += 1;
                if r != prev {
                    break r;
                }
                let samples = self.samples();
                if let Some(s) = run.poll(&mut self.edge_pace, samples)? {
                    self.got.reads_waiting += spins;
                    return Ok(Some(s));
                }
            };
            self.got.reads_waiting += spins;
            let seen = run.stamps();
            // A long wait ends its stretch at the edge; a short one is checked by the pace.
            let samples = self.samples();
            let (checked, hi, next) = if spins >= STAMP_READS {
                let c = run.poll_now(&mut self.edge_pace, samples)?;
                (c, run.stamps(), run.stamps())
            } else {
                let c = run.poll(&mut self.edge_pace, samples)?;
                (c, seen + 1, seen)
            };
            let d = self.info.diff(self.prev, r);
            let got = &mut self.got;
            if self.info.looks_backwards(d) {
                got.backwards += 1;
                got.segments.push(got.edges.len());
                self.follows = false;
            } else {
                if !self.partial {
                    got.rpc.push((spins, got.edges.len()));
                    got.spacing.push((spins, d, self.follows));
                }
                got.edges.push(d);
                got.edge_spans.push((self.open + 1, hi));
                self.follows = !self.partial;
            }
            self.open = next;
            self.partial = false;
            self.prev = r;
            if checked.is_some() {
                return Ok(checked);
            }
        }
        Ok(None)
    }

    /// Dithered timings: a random wait of reads and spins, so the intervals vary on a scale
    /// finer than the read cost and the GCD can go below it. Why the run stopped, if it did.
    #[inline(always)]
    fn dithers(&mut self, run: &mut Run<'_>) -> Result<Option<Stop>> {
        let rpc = &self.got.rpc;
        let typical = if rpc.is_empty() {
            4
        } else {
            rpc[rpc.len() / 2].0.clamp(1, 1 << 16)
        };
        // A coarse clock's edges are exact ticks and its dithered timings cost ticks each:
        // its budget goes mostly to edges, which also tell a jittered clamp from a grid.
        let dithers = if typical >= grid::MIN_GRID_READS as u64 {
            16
        } else {
            64
        };
        // Timings of many reads (a coarse clock's span ticks) are closed by stopwatch reads
        // of their own, so a gap is put in the timing it happened in.
        let stamped = typical >= STAMP_READS;
        for _ in 0..dithers {
            let samples = self.samples();
            let checked = if stamped {
                run.poll_now(&mut self.timing_pace, samples)?
            } else {
                run.poll(&mut self.timing_pace, samples)?
            };
            if checked.is_some() {
                return Ok(checked);
            }
            let m = self.rng.below(4 * typical + 1);
            let s = self.rng.below(self.spin_range);
            let lo = run.stamps() + 1;
            let a = self.clock.read();
            for _ in 0..m {
                black_box(self.clock.read());
                if let Some(s) = run.poll(&mut self.timing_pace, samples)? {
                    return Ok(Some(s));
                }
            }
            black_box(spin(s));
            self.timing_pace
                .credit(2 + (s as f64 / self.spins_per_read) as u32);
            let b = self.clock.read();
            // The next edge's wait starts at this read.
            self.open = run.stamps();
            let hi = if stamped {
                let c = run.poll_now(&mut self.timing_pace, samples)?;
                if c.is_some() {
                    return Ok(c);
                }
                run.stamps()
            } else {
                run.stamps() + 1
            };
            let d = self.info.diff(a, b);
            if self.info.looks_backwards(d) {
                self.got.backwards += 1;
            } else {
                self.got.timings.push(d);
                self.got.timing_spans.push((lo, hi));
            }
            self.prev = b;
        }
        self.partial = true;
        Ok(None)
    }
}

/// Measures the tick of `clock`: edge-to-edge sampling (spin until the reading changes,
/// bounded by time) interleaved with dithered timings (read, a random number of reads and
/// spins, read), then the estimators over edges, sums of edges and timings. Intervals that
/// straddle a gap (a time the process was not running, [`crate::run::Gaps`]) are set aside
/// when the rest can answer, and the answer is "too busy to tell" when they cannot.
pub fn measure<C: Clock + ?Sized>(
    clock: &mut C,
    run: &mut Run<'_>,
    opts: &TickOptions,
) -> Result<TickResult> {
    run.start("tick", opts.budget);
    let name = clock.info().name.clone();
    let read_s = run.warm_up(64, 0.05, &mut || {
        black_box(clock.read());
    });
    too_slow(&name, "tick", read_s, run.budget().time_s)?;
    let (spin_range, dither_seen) = dither_range(clock, run);
    let mut sampler = Sampler::new(clock, run, opts.seed, spin_range, dither_seen);
    let stop = loop {
        if let Some(s) = sampler.edges(run)? {
            break s;
        }
        sampler.clock.check_fault()?;
        if let Some(s) = sampler.dithers(run)? {
            break s;
        }
        if let Some(s) = run.check(sampler.samples())? {
            break s;
        }
    };
    sampler.clock.check_fault()?;
    let elapsed_s = run.elapsed();
    let Sampler { info, got, .. } = sampler;
    if got.edges.is_empty() && got.timings.iter().all(|&d| d == 0) {
        return Err(Error::Frozen {
            clock: info.name.clone(),
            elapsed_s,
            reads: got.reads_waiting,
        });
    }
    let (gaps, found) = run.gaps();
    conclude(
        &info,
        got,
        opts,
        dither_seen,
        (stop, elapsed_s),
        (gaps, &found),
    )
}

/// What the estimate over every interval, and over those no gap starved, says: the
/// estimate, its caveats, and whether the machine was too busy to tell.
struct Starving {
    estimate: TickEstimate,
    caveats: Vec<Caveat>,
    too_busy: bool,
}

/// Whether a tick is no more than the GCD of intervals a thousand times longer: the data's
/// step, no evidence of the clock's (a 4 ms coarse clock beside two busy loops once gave
/// 1 ns, "finer than claimed", its step a few tenths of a ns off whole, updates missed).
fn unfounded(e: &TickEstimate) -> bool {
    !e.found() || e.smallest_nonzero >= UNFOUNDED_RATIO * e.tick
}

/// The estimate over `all` intervals, or over those no gap starved when gaps set some
/// aside (`set_aside` of `of`), with the caveat that says which.
#[allow(clippy::too_many_arguments)]
fn starving(
    info: &ClockInfo,
    all: &[u64],
    rest: impl FnOnce() -> Vec<u64>,
    set_aside: u64,
    of: u64,
    clean_edges: u64,
    gaps: &crate::run::Gaps,
    opts: &TickOptions,
) -> Result<Starving> {
    let mut estimate = estimate_clock(info, all, &opts.estimator)?;
    let (mut caveats, mut too_busy) = (Vec::new(), false);
    let (lost_s, longest_s) = (gaps.lost_s, gaps.longest_s);
    let share = gaps.share().unwrap_or(0.0);
    if set_aside == 0 {
        // No interval straddled a gap that hid a tick, yet the gaps took much of the run
        // and the tick is unfounded: the reader missed updates in ways no single interval
        // shows. Too busy to tell.
        if share >= NO_GRID_BUSY_SHARE && unfounded(&estimate) {
            estimate.reliable = false;
            caveats.push(Caveat::TooBusy {
                intervals: 0,
                of,
                gaps: gaps.count,
                lost_s,
                longest_s,
                share,
            });
            too_busy = true;
        }
        return Ok(Starving {
            estimate,
            caveats,
            too_busy,
        });
    }
    match estimate_clock(info, &rest(), &opts.estimator) {
        // A handful of edges between the gaps is no tick (WebKit's performance.now once
        // 183 ms beside two busy loops): below MIN_EDGES the machine was too busy.
        Ok(e)
            if e.found()
                && e.reliable
                && clean_edges >= MIN_EDGES
                && !(share >= NO_GRID_BUSY_SHARE && unfounded(&e)) =>
        {
            // A finer tick is as true from every interval (each is a whole number of
            // ticks) when they found it; a coarser one only from the starved, and an
            // unfounded one of every interval is the starved ones' step, not the clock's.
            if e.tick < estimate.tick * (1.0 - opts.estimator.rel_tolerance) || unfounded(&estimate)
            {
                estimate = e;
            }
            caveats.push(Caveat::Starved {
                intervals: set_aside,
                of,
                gaps: gaps.count,
                lost_s,
                longest_s,
                share,
            });
        }
        _ => {
            too_busy = true;
            estimate.reliable = false;
            caveats.push(Caveat::TooBusy {
                intervals: set_aside,
                of,
                gaps: gaps.count,
                lost_s,
                longest_s,
                share,
            });
        }
    }
    Ok(Starving {
        estimate,
        caveats,
        too_busy,
    })
}

/// The tick result of what was sampled: intervals that straddle a gap long enough to have
/// hidden a tick set aside, the estimate, its caveats and its verdict.
fn conclude(
    info: &ClockInfo,
    got: Sampled,
    opts: &TickOptions,
    dither_seen: bool,
    (stop, elapsed_s): (Stop, f64),
    (gaps, found): (crate::run::Gaps, &[Gap]),
) -> Result<TickResult> {
    let Sampled {
        edges,
        edge_spans,
        timings,
        timing_spans,
        mut segments,
        rpc,
        spacing,
        backwards,
        ..
    } = got;
    let ns = info.period.ns_per_count();
    let edge_starved = starved(&edges, &edge_spans, found, ns);
    let timing_starved = starved(&timings, &timing_spans, found, ns);
    // Intervals for the estimate: edges, sums of consecutive edges within each unbroken
    // segment, and the dithered timings.
    segments.push(edges.len());
    let mut all = with_span_sums(&edges, &segments);
    all.extend_from_slice(&timings);
    let set_aside = count(&edge_starved) + count(&timing_starved);
    // The edges the tick rests on: those no gap broke.
    let clean_edges = (edges.len() as u64).saturating_sub(count(&edge_starved));
    let of = (edges.len() + timings.len()) as u64;
    let rest = || unstarved(&edges, &segments, &edge_starved, &timings, &timing_starved);
    let Starving {
        mut estimate,
        mut caveats,
        too_busy,
    } = starving(info, &all, rest, set_aside, of, clean_edges, &gaps, opts)?;
    // The waits of the grid and of reads per change, starved ones left out (a wait the
    // process slept through counts fewer reads than its tick holds).
    let mut clean_rpc = Vec::with_capacity(rpc.len());
    let mut clean_spacing = Vec::with_capacity(rpc.len());
    for (&(reads, edge), &sp) in rpc.iter().zip(&spacing) {
        if !edge_starved[edge] {
            clean_rpc.push(reads);
            clean_spacing.push(sp);
        }
    }
    let claimed_ns = info.claimed.as_ref().map(|c| c.ns);
    let claimed_minimum = info.claimed.as_ref().is_some_and(|c| c.minimum);
    let reads_per_change = Summary::of_counts(&clean_rpc).ok();
    if reads_per_change.as_ref().is_some_and(|r| r.median <= 1.5) {
        if dither_seen {
            caveats.push(Caveat::ChangesEveryReadDithered);
        } else {
            caveats.push(Caveat::ChangesEveryRead);
            caveats.extend(bound_by_cadence(&mut estimate, &edges, Cadence::Reading));
        }
    }
    if backwards > 0 {
        caveats.push(Caveat::Backwards {
            differences: backwards,
        });
    }
    if clean_edges < MIN_EDGES {
        caveats.push(Caveat::FewEdges { edges: clean_edges });
        // Fewer edges than a tick rests on: at most an upper bound.
        estimate.reliable = false;
    }
    let tick_ns = ns.map(|p| p * estimate.tick);
    let timings_f: Vec<f64> = timings.iter().map(|&d| d as f64).collect();
    Ok(TickResult {
        exact_gcd: exact_gcd(&all),
        ns_per_count: ns,
        tick_ns,
        claimed_ns,
        claimed_minimum,
        verdict: if too_busy {
            Verdict::TooBusy
        } else {
            tick_verdict(&estimate, tick_ns, claimed_ns, claimed_minimum)
        },
        reads_per_change,
        edge_grid: grid::edge_grid(&clean_spacing, estimate.tick),
        edges: edges.len() as u64,
        timings: timings.len() as u64,
        backwards_steps: backwards,
        edge_intervals: stats::decimate(&edges, opts.keep),
        timings_sample: stats::decimate(&timings, opts.keep),
        bands: stats::bands(&timings_f, estimate.tick / 4.0, 64),
        elapsed_s,
        stop,
        caveats,
        gaps,
        estimate,
    })
}

/// Whether each interval straddles gaps that lost at least [`STARVED_SHARE`] of it (any gap,
/// when the clock's period is unknown): `spans` are the stretches each lies within, `found`
/// the gaps in order of their stamps.
fn starved(intervals: &[u64], spans: &[(u64, u64)], found: &[Gap], ns: Option<f64>) -> Vec<bool> {
    let mut out = Vec::with_capacity(intervals.len());
    for (&d, &(lo, hi)) in intervals.iter().zip(spans) {
        let mut lost = 0.0;
        let mut i = found.partition_point(|g| g.stamp < lo);
        while i < found.len() && found[i].stamp <= hi {
            lost += found[i].lost_s;
            i += 1;
        }
        out.push(match ns {
            _ if lost <= 0.0 => false,
            Some(p) => lost >= STARVED_SHARE * d as f64 * p * 1e-9,
            None => true,
        });
    }
    out
}

fn count(flags: &[bool]) -> u64 {
    flags.iter().filter(|&&f| f).count() as u64
}

/// The intervals of the estimate without the starved: a starved edge breaks the sums of
/// edges as a step backwards does.
fn unstarved(
    edges: &[u64],
    segments: &[usize],
    edge_starved: &[bool],
    timings: &[u64],
    timing_starved: &[bool],
) -> Vec<u64> {
    let (mut clean, mut breaks) = (Vec::with_capacity(edges.len()), vec![0usize]);
    let mut next = 1; // the next segment boundary in `segments`
    for (i, &d) in edges.iter().enumerate() {
        while next < segments.len() && segments[next] <= i {
            next += 1;
            breaks.push(clean.len());
        }
        if edge_starved[i] {
            breaks.push(clean.len());
        } else {
            clean.push(d);
        }
    }
    breaks.push(clean.len());
    breaks.dedup();
    let mut rest = with_span_sums(&clean, &breaks);
    for (&d, &s) in timings.iter().zip(timing_starved) {
        if !s {
            rest.push(d);
        }
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{ClockKind, CountPeriod, Ratio};
    use crate::run::{Budget, Gaps};

    /// Intervals of 4 to 20 ms on no grid coarser than 1 ns (a generator's, seeded): what
    /// a reader that was not running for half the run may see of a coarse clock.
    fn off_grid() -> Vec<u64> {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        (0..40)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                4_000_000 + x % 16_000_000
            })
            .collect()
    }

    fn gaps(lost_s: f64) -> Gaps {
        Gaps {
            count: 38,
            lost_s,
            longest_s: 0.009,
            watched_s: 0.3,
        }
    }

    /// A clock counting whole ns, and the tick experiment's options.
    fn coarse() -> (ClockInfo, TickOptions) {
        let period = CountPeriod::Exact {
            ns: Ratio::new(1, 1).unwrap(),
        };
        let info = ClockInfo::new("coarse", ClockKind::Monotonic, period);
        (info, TickOptions::new(Budget::new(1.0, 1000).unwrap()))
    }

    /// No grid fits and the gaps took half the run: too busy to tell, with the reason; the
    /// same intervals on a quiet run give the data's step, as they should.
    #[test]
    fn no_grid_on_a_run_half_lost_is_too_busy_not_the_data_s_step() {
        let (info, opts) = coarse();
        let all = off_grid();
        let busy = starving(&info, &all, Vec::new, 0, 40, 0, &gaps(0.15), &opts).unwrap();
        assert!(busy.too_busy);
        assert!(matches!(
            busy.caveats[..],
            [Caveat::TooBusy { intervals: 0, .. }]
        ));
        let words = crate::present::caveat(&busy.caveats[0]);
        assert!(words.contains("no grid fits the 40 intervals"), "{words}");
        let quiet = starving(&info, &all, Vec::new, 0, 40, 0, &gaps(0.001), &opts).unwrap();
        assert!(!quiet.too_busy && quiet.caveats.is_empty());
    }

    /// Starved intervals that leave no grid but 1 ns (whole updates missed on a clock whose
    /// step is 4 ms and a few tenths of a ns) beside clean ones on a 4 ms grid: the tick is
    /// the clean ones', never the data's step ("1 ns, finer than claimed" beside two busy
    /// loops once).
    #[test]
    fn a_grid_of_the_clean_intervals_beats_the_data_s_step_of_all() {
        let (info, opts) = coarse();
        let clean: Vec<u64> = (0..30).map(|i| 4_000_000 * (1 + i % 3)).collect();
        let mut all = clean.clone();
        all.extend(off_grid());
        let got = starving(
            &info,
            &all,
            || clean.clone(),
            40,
            70,
            30,
            &gaps(0.15),
            &opts,
        )
        .unwrap();
        assert!(!got.too_busy && matches!(got.caveats[..], [Caveat::Starved { .. }]));
        assert!((got.estimate.tick - 4e6).abs() < 1.0, "{:?}", got.estimate);
        // Clean intervals that are themselves off any grid, half the run lost: too busy.
        let off = off_grid();
        let busy = starving(&info, &all, || off.clone(), 30, 70, 40, &gaps(0.15), &opts).unwrap();
        assert!(busy.too_busy && !busy.estimate.reliable);
    }
}
