//! The cost of one read, from blocks of back-to-back reads, and the Rule of 100.
//!
//! A timing block should last at least 100 × (resolution + overhead) for the timing itself to
//! perturb it by at most 1% (the Rule of 100 of "Finding Timer Resolution and Overhead"). The block of reads here is lengthened by doubling
//! until it satisfies that rule, and the cost of a read is the minimum over many such blocks.
//! Blocks run from one edge of the clock to another, so a coarse clock's quantization
//! costs a read at each end instead of a tick.

use std::hint::black_box;

use serde::{Deserialize, Serialize};

use crate::caveat::Caveat;
use crate::clock::{Clock, ClockInfo};
use crate::error::{invalid, Error, Result};
use crate::run::{Budget, Gaps, Loop, Run, Stop};
use crate::stats::{self, Summary};
use crate::tick;

/// The factor of the Rule of 100.
pub const RULE_FACTOR: f64 = 100.0;

/// Options of the overhead experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OverheadOptions {
    /// Time budget and the most blocks to time.
    pub budget: Budget,
    /// Per-block costs kept for plots.
    pub keep: usize,
    /// Fewest blocks of each caller a clock with a side of its own is timed in, past the
    /// time budget if need be (within [`CROSSING_LIMIT_S`]): [`CROSSING_BLOCKS`], or 0 for
    /// a caller that must keep to its time (a page's main thread).
    #[serde(default = "crossing_blocks")]
    pub crossing_blocks: u64,
}

fn crossing_blocks() -> u64 {
    CROSSING_BLOCKS
}

impl OverheadOptions {
    /// Defaults with the given budget.
    pub fn new(budget: Budget) -> Self {
        Self {
            budget,
            keep: 4096,
            crossing_blocks: CROSSING_BLOCKS,
        }
    }
}

/// The result of the overhead experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OverheadResult {
    /// Cost of one read in counts: the minimum over blocks.
    pub per_read_counts: f64,
    /// The same in ns, when the period is known.
    pub per_read_ns: Option<f64>,
    /// Reads per block, chosen by doubling until the Rule of 100 held.
    pub block_reads: u64,
    /// Whether the chosen block meets the Rule of 100 (a coarse clock may need a block
    /// longer than the time budget allows).
    pub rule_met: bool,
    /// Bound on the relative error of a block's timing: (tick + overhead) / block length.
    pub block_error_bound: f64,
    /// Blocks timed.
    pub blocks: u64,
    /// Distribution of the per-read cost over blocks, in counts.
    pub distribution: Summary,
    /// Per-read cost of each block, in order, decimated.
    pub samples: Vec<f64>,
    /// The shortest timing block to use with this clock: 100 × (tick + overhead), in counts.
    pub min_block_counts: f64,
    /// The same in ns.
    pub min_block_ns: Option<f64>,
    /// Seconds spent.
    pub elapsed_s: f64,
    /// What ended the sampling.
    pub stop: Stop,
    /// What limits the result.
    pub caveats: Vec<Caveat>,
    /// How fast the clock ran while it was read, against the stopwatch (1 for a wall
    /// clock; a CPU clock that does not count its own reads' time runs far slower).
    #[serde(default)]
    pub pace: Option<f64>,
    /// The blocks of the doubling, shortest first: how the cost per read settles as a block
    /// grows past the tick (version 5 on; none in older reports).
    #[serde(default)]
    pub doubling: Vec<BlockPoint>,
    /// Why the read cost cannot be right, when it cannot: it is then not given in ns.
    #[serde(default)]
    pub unusable: Option<Caveat>,
    /// Where the blocks were not running (version 6 on; none in older reports): the least
    /// of many blocks is the cost, so a gap costs a block, not the answer.
    #[serde(default)]
    pub gaps: Gaps,
    /// Cost of one read made by the clock's own side (a page's JavaScript loop over
    /// performance.now), in counts: the least over blocks of the same length taken in turn
    /// with this code's, so [`OverheadResult::per_read_counts`] minus this is what crossing
    /// into this code costs a read. None for a clock without such a side, or whose cost is
    /// unusable (version 7 on).
    #[serde(default)]
    pub own_per_read_counts: Option<f64>,
    /// The same in ns.
    #[serde(default)]
    pub own_per_read_ns: Option<f64>,
}

/// One timed block: its length in reads and what it gave a read, in counts (0 when the
/// clock did not move over it).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlockPoint {
    /// Reads in the block.
    pub reads: u64,
    /// Counts of the clock per read.
    pub per_read: f64,
}

/// Slowest pace, against the stopwatch, of a clock whose figures can be right: a CPU clock
/// of a busy process runs near 1, less when the machine is shared; one that misses the
/// time it measures runs near 0.
pub const LEAST_PACE: f64 = 0.25;

/// Fewest and most reads spent waiting for an edge at either end of a block (fewer when fewer
/// fit in the budget).
const EDGE_WAIT: (u64, u64) = (1 << 16, 1 << 32);

/// Reads to wait for an edge: three ticks' worth at the cost seen so far, and never more
/// than the reads that fit in the time budget at the pace of the last block (`reads` in
/// `took_s`), so one block overruns the budget by at most its two waits.
fn edge_wait(tick_counts: f64, cost: f64, budget_s: f64, reads: u64, took_s: f64) -> u64 {
    let ticks = if cost > 0.0 {
        3.0 * tick_counts / cost
    } else {
        0.0
    };
    let in_budget = if took_s > 0.0 {
        budget_s * reads as f64 / took_s
    } else {
        f64::INFINITY
    };
    ticks
        .clamp(EDGE_WAIT.0 as f64, EDGE_WAIT.1 as f64)
        .min(in_budget)
        .max(1.0) as u64
}

/// `n` calls of `read`, each result kept from the optimiser: the loop the overhead
/// experiment times its blocks with, and the one a hand-written loop to compare it with
/// must use, so both are the same loop on whatever CPU they run (its unrolling and the
/// place of its branch change a 5 ns read by a tenth). Four reads a turn: the loop's own
/// count and branch then weigh a quarter as much beside each read.
#[inline(always)]
pub fn repeat<T>(n: u64, mut read: impl FnMut() -> T) {
    for _ in 0..n / 4 {
        black_box(read());
        black_box(read());
        black_box(read());
        black_box(read());
    }
    for _ in 0..n % 4 {
        black_box(read());
    }
}

/// A block of back-to-back reads laid edge to edge: it starts at the read that sees the
/// clock change and ends at the first change after `len` reads, so its length is a whole
/// number of ticks and quantization costs at most a read at each end, not a tick.
/// Returns the readings at both edges, the reads between them and the reads in all (the
/// wait for the first edge too); a clock that does not
/// change within `wait` reads gives a block that is not edge-aligned (its ends may be
/// equal) and the caller treats it as it would any block.
#[inline(never)]
fn block<C: Clock + ?Sized>(clock: &mut C, len: u64, wait: u64) -> (u64, u64, u64, u64) {
    let (start, spun) = first_edge(clock, wait);
    repeat(len - 1, || clock.read());
    let (end, extra) = last_edge(clock, wait);
    (start, end, len + extra, 1 + spun + len + extra)
}

/// [`block`] with its `len - 1` reads made by the clock's own side ([`Clock::read_many`]):
/// the same edges, the same length, another caller.
#[inline(never)]
fn own_block<C: Clock + ?Sized>(clock: &mut C, len: u64, wait: u64) -> (u64, u64, u64, u64) {
    let (start, spun) = first_edge(clock, wait);
    clock.read_many(len - 1);
    let (end, extra) = last_edge(clock, wait);
    (start, end, len + extra, 1 + spun + len + extra)
}

/// The reading at which the clock first changes, within `wait` reads, and the reads spent.
#[inline(always)]
fn first_edge<C: Clock + ?Sized>(clock: &mut C, wait: u64) -> (u64, u64) {
    let before = clock.read();
    let mut start = before;
    let mut spun = 0u64;
    while start == before && spun < wait {
        start = clock.read();
        spun += 1;
    }
    (start, spun)
}

/// The reading at which the clock next changes, within about `wait` reads, and the reads
/// spent after the first.
#[inline(always)]
fn last_edge<C: Clock + ?Sized>(clock: &mut C, wait: u64) -> (u64, u64) {
    // Checked every fourth read: a wait may be most of a coarse clock's block, and a check
    // at every read would make its reads dearer than those of the block's loop. The edge is
    // then known to within four reads, against blocks of thousands.
    let last = clock.read();
    let mut end = last;
    let mut extra = 0u64;
    while end == last && extra < wait {
        black_box(clock.read());
        black_box(clock.read());
        black_box(clock.read());
        end = clock.read();
        extra += 4;
    }
    (end, extra)
}

/// Longest block tried, in reads.
const MAX_BLOCK: u64 = 1 << 30;

/// Measures the cost of one read of `clock`, whose tick is `tick_counts` (from the tick
/// experiment): blocks doubled until they meet the Rule of 100 (or the budget ends), then
/// timed again and again, the least cost kept.
pub fn measure<C: Clock + ?Sized>(
    clock: &mut C,
    tick_counts: f64,
    run: &mut Run<'_>,
    opts: &OverheadOptions,
) -> Result<OverheadResult> {
    run.start("overhead", opts.budget);
    if !(tick_counts.is_finite() && tick_counts > 0.0) {
        return Err(invalid(
            "tick",
            format!("{tick_counts} counts; expected a finite positive number"),
        ));
    }
    let info = clock.info().clone();
    // Warm up: caches, the vDSO page, branch predictors.
    let budget_s = run.budget().time_s;
    let read_s = run.warm_up(256, 0.05, &mut || {
        black_box(clock.read());
    });
    tick::too_slow(&info.name, "overhead", read_s, budget_s)?;
    let doubled = double(clock, &info, tick_counts, run, read_s, opts)?;
    clock.check_fault()?;
    let blocks = time_blocks(clock, &info, &doubled, run, opts)?;
    clock.check_fault()?;
    conclude(&info, tick_counts, doubled, blocks, run, opts)
}

/// The block the doubling ended on: its length in reads, the wait for its edges, whether it
/// met the Rule of 100, and the blocks on the way.
struct Doubled {
    len: u64,
    wait: u64,
    rule_met: bool,
    doubling: Vec<BlockPoint>,
}

/// Doubles the block until it lasts 100 × (tick + overhead), from 64 reads or from what
/// fits in 1% of the budget when reads are slow (`read_s` each).
fn double<C: Clock + ?Sized>(
    clock: &mut C,
    info: &ClockInfo,
    tick_counts: f64,
    run: &mut Run<'_>,
    read_s: f64,
    opts: &OverheadOptions,
) -> Result<Doubled> {
    let budget_s = run.budget().time_s;
    let mut len = if read_s > 0.0 {
        ((0.01 * budget_s / read_s) as u64).clamp(1, 64)
    } else {
        64
    };
    // All reads made, the edges' waits too.
    let mut reads = 0u64;
    let mut wait = if read_s > 0.0 {
        ((0.25 * budget_s / read_s) as u64).clamp(1, EDGE_WAIT.0)
    } else {
        EDGE_WAIT.0
    };
    let mut doubling = Vec::new();
    // The least time a read took over the warm-up and the blocks so far, each block's at
    // most what the stopwatch's step hides: the blocks' time is told from it, not from the
    // wall. The test command's busy machine put WebKit's worker to sleep for longer than
    // the 0.1 s budget in the first blocks, and the doubling ended at 512 reads of a 1 ms
    // clock, its cost "lost in the tick".
    let mut pace = if read_s > 0.0 { read_s } else { f64::INFINITY };
    // The least cost a read over the blocks so far, in counts: a block the reader slept
    // in is long for its reads, and must not pass for one that meets the rule.
    let mut least = f64::INFINITY;
    // What sleeps of the reader may add to the budget, as the crossing's blocks may; none
    // for a caller that must keep to its time (a page's main thread: held for seconds,
    // WebKit's driver took it for hung).
    let sleeps_s = if opts.crossing_blocks > 0 {
        CROSSING_LIMIT_S
    } else {
        0.0
    };
    let rule_met = loop {
        // A pace told by one block alone (the warm-up's reads hidden in the stopwatch's
        // step) cannot tell a sleep in it: that block is not judged by it.
        let known = pace.is_finite();
        let before = run.elapsed();
        let (a, b, n, all) = block(clock, len, wait);
        let now = run.elapsed();
        pace = pace.min((now - before + run.step_s()) / all as f64);
        let took = pace * n as f64;
        reads += all;
        // The blocks' time had the reader run throughout.
        let spent = if sleeps_s > 0.0 {
            now.min(pace * reads as f64)
        } else {
            now
        };
        let over = known && spent >= budget_s || now >= budget_s + sleeps_s;
        // Progress and Cancel; the time is judged here.
        run.check(0)?;
        let d = info.diff(a, b);
        if info.looks_backwards(d) {
            // A step backwards spoils this block only; try it again.
            if over {
                return Err(budget_end(run));
            }
            continue;
        }
        let cost = d as f64 / n as f64;
        if doubling.len() < 64 {
            doubling.push(BlockPoint {
                reads: n,
                per_read: cost,
            });
        }
        wait = edge_wait(tick_counts, cost, budget_s, n, took);
        if d > 0 {
            least = least.min(cost);
            // The block's own reads, edge to edge at the least cost, against the rule
            // (as the bound on the timed blocks is told).
            if len as f64 * least >= RULE_FACTOR * (tick_counts + least) {
                break true;
            }
        }
        if len >= MAX_BLOCK {
            break false;
        }
        // The next block takes twice as long and one more must be timed after it.
        if over || (known && spent + 4.0 * took > budget_s && d > 0) {
            if d == 0 {
                return Err(Error::Frozen {
                    clock: info.name.clone(),
                    elapsed_s: run.elapsed(),
                    reads,
                });
            }
            // Out of time before the rule held: keep this length and say so.
            break false;
        }
        len *= 2;
    };
    Ok(Doubled {
        len,
        wait,
        rule_met,
        doubling,
    })
}

/// What the timed blocks gave: each block's cost a read (this code's, and the clock's own
/// side's), the blocks the clock stood still through, what it counted over them against the
/// stopwatch's `wall` seconds, and why they stopped.
struct Blocks {
    costs: Vec<f64>,
    /// The stopwatch's seconds a read over the block of the least cost, less its step at
    /// either end (0 or less when the stopwatch cannot tell).
    least_by_watch: f64,
    own_costs: Vec<f64>,
    still: u64,
    counted: u64,
    wall: f64,
    stop: Stop,
}

/// Times blocks of the doubled length until the budget ends, at least one (and, for a clock
/// with a side of its own, [`OverheadOptions::crossing_blocks`] of each caller).
fn time_blocks<C: Clock + ?Sized>(
    clock: &mut C,
    info: &ClockInfo,
    doubled: &Doubled,
    run: &mut Run<'_>,
    opts: &OverheadOptions,
) -> Result<Blocks> {
    let (len, wait) = (doubled.len, doubled.wait);
    let mut costs: Vec<f64> = Vec::new();
    let (mut least_cost, mut least_own, mut least_by_watch) = (f64::INFINITY, f64::INFINITY, 0.0);
    // A clock with a side of its own (a page's JavaScript) is also read from there, in
    // blocks of the same length taken in turn with this code's: like with like, the least
    // of each, and the crossing's cost their difference.
    let has_own = clock.read_many(0);
    if has_own {
        // The doubling warmed this code's reads; the other side's get a block of their own
        // (a JavaScript engine compiles a hot loop in tiers), which counts for nothing.
        clock.read_many(len);
    }
    let mut own_costs: Vec<f64> = Vec::new();
    let mut still = 0u64;
    // What the clock counted over the blocks, against the stopwatch over the same time.
    let mut counted = 0u64;
    let wall_from = run.elapsed();
    let stop = loop {
        // The pair is one stretch of the watch: each turn is the same pair of blocks.
        let mut own_all = 0;
        if has_own {
            let (a, b, n, all) = own_block(clock, len, wait);
            own_all = all;
            let d = info.diff(a, b);
            if d > 0 && !info.looks_backwards(d) {
                let cost = d as f64 / n as f64;
                least_own = least_own.min(cost);
                own_costs.push(cost);
                counted = counted.saturating_add(d);
            }
        }
        let from = run.mark();
        let (a, b, n, all) = block(clock, len, wait);
        let span = run.mark() - from;
        let d = info.diff(a, b);
        // A block over which the clock did not move says nothing of the read's cost.
        if d == 0 {
            still += 1;
        } else if !info.looks_backwards(d) {
            let cost = d as f64 / n as f64;
            if cost < least_cost {
                least_cost = cost;
                least_by_watch = (span - 2.0 * run.step_s()) / all as f64;
            }
            costs.push(cost);
            counted = counted.saturating_add(d);
        }
        // At least one timed block even when the doubling used the whole budget. Each
        // check closes a block's stretch, watched for gaps.
        if let Some(s) =
            run.check_watched(costs.len() as u64, Loop::Blocks, (all + own_all) as f64)?
        {
            // A budget in blocks for a clock with a side of its own: the crossing's cost is
            // told from CROSSING_BLOCKS of each caller, however long a coarse clock makes
            // them, within CROSSING_LIMIT_S.
            let short = has_own
                && ((costs.len() as u64) < opts.crossing_blocks
                    || opts.crossing_blocks > 0 && unsettled(least_cost, least_own))
                && run.mark() < CROSSING_LIMIT_S;
            if !costs.is_empty() && !short {
                break s;
            }
            if costs.is_empty() && run.elapsed() > 2.0 * run.budget().time_s {
                return Err(budget_end(run));
            }
        }
    };
    Ok(Blocks {
        costs,
        least_by_watch,
        own_costs,
        still,
        counted,
        wall: run.elapsed() - wall_from,
        stop,
    })
}

/// The result of the blocks: the least cost, whether it can be right, and the shortest
/// block the Rule of 100 allows.
fn conclude(
    info: &ClockInfo,
    tick_counts: f64,
    doubled: Doubled,
    b: Blocks,
    run: &mut Run<'_>,
    opts: &OverheadOptions,
) -> Result<OverheadResult> {
    let Doubled {
        len,
        rule_met,
        doubling,
        ..
    } = doubled;
    let mut caveats = Vec::new();
    if b.still > 0 {
        caveats.push(Caveat::StoodStill {
            still: b.still,
            blocks: b.still + b.costs.len() as u64,
        });
    }
    let wall = b.wall;
    let pace = info
        .counts_to_ns(b.counted as f64)
        .filter(|_| wall > 0.0 && wall.is_finite())
        .map(|ns| ns * 1e-9 / wall);
    let distribution = Summary::of(&b.costs)?;
    let unusable = match pace {
        Some(p) if p < LEAST_PACE => Some(Caveat::ReadsNotCounted {
            clock: info.name.clone(),
            pace: p,
        }),
        // Interference only lengthens a block, so a faithful clock's least block is short
        // by the stopwatch too. One at under half the usual length is not enough: on a
        // shared core most blocks are lengthened and the least ran alone. A block the
        // clock gave under half the stopwatch's time, over the same reads, it undercounted.
        _ if distribution.count >= 8
            && distribution.min < 0.5 * distribution.median
            && short_by_watch(info, distribution.min, b.least_by_watch) =>
        {
            Some(Caveat::Undercounts {
                reads: len,
                min: distribution.min,
                max: distribution.max,
                median: distribution.median,
            })
        }
        _ => None,
    };
    let per_read = distribution.min;
    let block_len = per_read * len as f64;
    let min_block = RULE_FACTOR * (tick_counts + per_read);
    let block_error_bound = if block_len > 0.0 {
        (tick_counts + per_read) / block_len
    } else {
        1.0
    };
    // Blocks that may be off by more than their own length (a 1 ms clamp read in blocks of
    // tens of µs) hold no cost at all: a dash, with the bound as its reason.
    let unusable = unusable.or_else(|| {
        (!rule_met && block_error_bound > 1.0).then_some(Caveat::CostLostInTick {
            bound: block_error_bound,
        })
    });
    let usable = unusable.is_none();
    let own_per_read = least(&b.own_costs).filter(|_| usable);
    // Never dearer than the lab's reads, which make the same call and cross besides.
    let own_per_read = match own_per_read {
        Some(own) if own > OWN_MARGIN * per_read => {
            caveats.push(Caveat::OwnDearer { own, lab: per_read });
            None
        }
        own => own,
    };
    Ok(OverheadResult {
        per_read_counts: per_read,
        per_read_ns: info.counts_to_ns(per_read).filter(|_| usable),
        block_reads: len,
        rule_met,
        block_error_bound,
        blocks: b.costs.len() as u64,
        distribution,
        samples: stats::decimate(&b.costs, opts.keep),
        min_block_counts: min_block,
        min_block_ns: info.counts_to_ns(min_block).filter(|_| usable),
        elapsed_s: run.elapsed(),
        stop: b.stop,
        caveats,
        pace,
        doubling,
        unusable,
        gaps: run.gaps().0,
        own_per_read_counts: own_per_read,
        own_per_read_ns: own_per_read.and_then(|c| info.counts_to_ns(c)),
    })
}

/// Whether a block of `cost` counts a read took over twice as long a read by the
/// stopwatch (`by_watch` seconds): never when the clock's period is unknown or the
/// stopwatch's step hides the block (nothing to judge it by).
fn short_by_watch(info: &ClockInfo, cost: f64, by_watch: f64) -> bool {
    by_watch > 0.0
        && info
            .counts_to_ns(cost)
            .is_some_and(|ns| ns < 0.5 * by_watch * 1e9)
}

/// Most the least of the clock's own side's blocks may exceed the lab's (which make the
/// same call and cross besides) and still be its best: noise of the least of each.
pub const OWN_MARGIN: f64 = 1.1;

fn least(costs: &[f64]) -> Option<f64> {
    costs.iter().copied().reduce(f64::min)
}

/// Whether the clock's own side has not yet read it at its best: its least is dearer than
/// the lab's, as when its loop runs before the engine compiled it (on threads of its own,
/// which a busy machine starves). More blocks of each give the compiler its time.
fn unsettled(least_cost: f64, least_own: f64) -> bool {
    // Infinite until a block of each was timed: no comparison holds then.
    least_own.is_finite() && least_own > OWN_MARGIN * least_cost
}

/// Fewest blocks of each caller whose least figures tell the crossing's cost (a clock with
/// a side of its own): the least of a couple of long blocks is one stall away from the
/// truth.
pub const CROSSING_BLOCKS: u64 = 8;

/// Longest the blocks of a clock with a side of its own may go on past the time budget to
/// reach [`CROSSING_BLOCKS`], in seconds: a 1 ms clock's Rule-of-100 blocks last 100 ms,
/// so its sixteen take 1.6 s, where the page gives the experiment 0.1 s.
pub const CROSSING_LIMIT_S: f64 = 2.5;

fn budget_end(run: &Run<'_>) -> Error {
    Error::BudgetExhausted {
        experiment: "overhead",
        why: Caveat::NoSteadyBlock {
            budget_s: run.budget().time_s,
        },
    }
}
