//! The tick experiment: edges (spin until the reading changes) interleaved with dithered
//! timings, each loop bounded by the run's budget; the estimators are in the parent module.

use std::hint::black_box;

use super::*;
use crate::clock::Clock;
use crate::rng::SplitMix64;
use crate::run::{Pace, Run};

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

/// Measures the tick of `clock`: edge-to-edge sampling (spin until the reading changes,
/// bounded by time) interleaved with dithered timings (read, a random number of reads and
/// spins, read), then the estimators over edges, sums of edges and timings.
pub fn measure<C: Clock + ?Sized>(
    clock: &mut C,
    run: &mut Run<'_>,
    opts: &TickOptions,
) -> Result<TickResult> {
    run.start("tick", opts.budget);
    let info = clock.info().clone();
    let mut rng = SplitMix64::new(opts.seed);
    let mut edges: Vec<u64> = Vec::new();
    let mut segments: Vec<usize> = vec![0]; // edge indices where a backwards step broke the run
    let mut rpc: Vec<u64> = Vec::new();
    // (reads, step, whether it follows the one before) of each whole wait between edges.
    let mut spacing: Vec<(u64, u64, bool)> = Vec::new();
    let mut follows = false;
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
                follows = false;
            } else {
                edges.push(d);
                if !partial {
                    rpc.push(spins);
                    spacing.push((spins, d, follows));
                }
                follows = !partial;
            }
            partial = false;
            prev = r;
            // A clock that changes at every read never waits above: check here too.
            if let Some(s) = run.poll(&mut edge_pace, (edges.len() + timings.len()) as u64)? {
                break 'outer s;
            }
        }
        clock.check_fault()?;
        // Dithered timings: a random wait of reads and spins, so the intervals vary on a
        // scale finer than the read cost and the GCD can go below it.
        let typical = if rpc.is_empty() {
            4
        } else {
            rpc[rpc.len() / 2].clamp(1, 1 << 16)
        };
        // A coarse clock's edges are exact ticks and its dithered timings cost ticks each:
        // its budget goes mostly to edges, which also tell a jittered clamp from a grid.
        let dithers = if typical >= grid::MIN_GRID_READS as u64 {
            16
        } else {
            64
        };
        for _ in 0..dithers {
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
    clock.check_fault()?;
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
                caveats.push(Caveat::ChangesEveryReadDithered);
            } else {
                caveats.push(Caveat::ChangesEveryRead);
                caveats.extend(bound_by_cadence(&mut estimate, &edges, Cadence::Reading));
            }
        }
    }
    if backwards > 0 {
        caveats.push(Caveat::Backwards {
            differences: backwards,
        });
    }
    if edges.len() < MIN_RELIABLE as usize {
        caveats.push(Caveat::FewEdges {
            edges: edges.len() as u64,
        });
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
        edge_grid: grid::edge_grid(&spacing, estimate.tick),
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
