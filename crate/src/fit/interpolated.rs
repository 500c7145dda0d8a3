//! Fits through interpolation: runs of a few ticks or less, each begun on an edge of a
//! coarse clock and ended by counting reads to the next (Schwarz et al., "Fantastic
//! Timers").

use super::experiment::*;
use crate::caveat::Caveat;
use crate::clock::Clock;
use crate::error::{invalid, Error, Result};
use crate::interpolate::Interpolated;
use crate::run::Run;
use crate::workload::Workload;

/// An interpolated clock's scale: a count is its tick, and it costs no read of its own.
pub(super) const ONE_COUNT: Scale = Scale {
    tick_counts: 1.0,
    overhead_counts: 0.0,
};

/// Fewest edges an interpolated fit calibrates over: [`Interpolated::stop`] counts its
/// own pace, so calibration only sets the size of a count.
pub(super) const INTERPOLATION_EDGES: u64 = 3;

/// [`measure`] for a clock whose tick is too coarse for the budget to hold runs of many
/// ticks: each run begins on an edge and ends by counting reads to the next one
/// (interpolation, Schwarz et al., "Fantastic Timers"), so runs of a few ticks or less are
/// timed to a few reads. Sizes run from a quarter to all of the work of 4, 2 or 1 ticks, the
/// longest whose 20 runs the budget holds, else of half a tick or more (sized by the
/// stopwatch: choosing N measures nothing).
/// Needs a known period, a tick of at least 2 counts and edges at regular times.
pub fn measure_interpolated<C: Clock + ?Sized, W: Workload + ?Sized>(
    clock: &mut C,
    workload: &mut W,
    tick_counts: f64,
    run: &mut Run<'_>,
    opts: &FitOptions,
) -> Result<FitResult> {
    Ok(interpolated_inner(clock, None, workload, tick_counts, run, opts)?.0)
}

/// [`measure_interpolated`], with every run also timed by `reference` (inside the
/// interpolated clock's begin and end): the fit through `clock`, then through `reference`.
pub fn measure_interpolated_against<C: Clock + ?Sized, W: Workload + ?Sized>(
    clock: &mut C,
    reference: Reference<'_>,
    workload: &mut W,
    tick_counts: f64,
    run: &mut Run<'_>,
    opts: &FitOptions,
) -> Result<(FitResult, FitResult)> {
    let (fit, r) = interpolated_inner(clock, Some(reference), workload, tick_counts, run, opts)?;
    let r = r.ok_or(Error::NoData(Caveat::ReferenceTimedNoRun))?;
    Ok((fit, r))
}

pub(super) fn interpolated_inner<C: Clock + ?Sized, W: Workload + ?Sized>(
    clock: &mut C,
    reference: Option<Reference<'_>>,
    workload: &mut W,
    tick_counts: f64,
    run: &mut Run<'_>,
    opts: &FitOptions,
) -> Result<(FitResult, Option<FitResult>)> {
    run.start("fit", opts.budget);
    opts.validate()?;
    let info = clock.info().clone();
    let ns = info.period.ns_per_count().ok_or_else(|| {
        invalid(
            "clock period",
            "unknown: an interpolated fit sizes its runs by the tick in seconds",
        )
    })?;
    if !(tick_counts.is_finite() && tick_counts >= 2.0) {
        return Err(invalid(
            "tick",
            format!("{tick_counts} counts; interpolation needs at least 2"),
        ));
    }
    let tick_s = tick_counts * ns * 1e-9;
    let max = workload.max_n();
    let mut n = 1u64;
    let took_s = loop {
        workload.prepare(n)?;
        let t = run.elapsed();
        workload.run(n);
        let took = run.elapsed() - t;
        if took >= tick_s / 2.0 || n >= max {
            break took;
        }
        if run.check(0)?.is_some() {
            return Err(Error::BudgetExhausted {
                experiment: "fit",
                why: Caveat::NoHalfTickRun {
                    budget_s: opts.budget.time_s,
                    tick_s,
                },
            });
        }
        n = (n * 2).min(max);
    };
    // A wall clock may step; over a fit's fraction of a second a step would spoil a run
    // or two, which the per-size minima leave out, so its edges are trusted here. As trait
    // objects, the interpolation and the fit are the code the page's own clocks run (one
    // copy of each in its module).
    let base: Box<dyn Clock + '_> = Box::new(&mut *clock);
    let mut ic = Interpolated::calibrate_over(
        base,
        tick_counts.round() as u64,
        run.stopwatch(),
        1e-6,
        // Edges enough to see a jittered clamp's irregular ones: 10 ms' worth, at least 3.
        ((0.01 / tick_s).ceil() as u64).clamp(INTERPOLATION_EDGES, 64),
    )?;
    let (fewest, most) = ic.calibration().spread;
    if most as f64 > 1.5 * fewest as f64 {
        return Err(invalid(
            "coarse clock",
            format!(
                "'{}' cannot be interpolated: its edges come at irregular times ({fewest} to \
                 {most} reads a tick), as a jittered clamp's do",
                info.name
            ),
        ));
    }
    let mut o = opts.clone();
    let spent_s = run.elapsed();
    let left_s = opts.budget.time_s - spent_s;
    let (top, affordable) = interpolated_sizes(n, took_s / tick_s, max, left_s / tick_s);
    o.points = ((affordable / 5.0) as usize).clamp(2, o.points.max(2));
    o.n_range = Some(((top / 4).max(1), top.max(2)));
    o.budget.time_s = (opts.budget.time_s - spent_s).max(0.0);
    let per_tick = ic.calibration().per_tick;
    let count_ns = ic.info().period.ns_per_count().unwrap_or(f64::NAN);
    let (wall_from, from) = (run.stopwatch().seconds(), ic.base_mut().read());
    let mut timed: Box<dyn Clock + '_> = Box::new(&mut ic);
    let (mut fit, theirs) = measure_inner(
        &mut timed,
        reference,
        workload,
        ONE_COUNT,
        run,
        &o,
        PaceCheck::ByCaller,
    )?;
    drop(timed);
    let to = ic.base_mut().read();
    ic.check_fault()?;
    let wall_s = run.stopwatch().seconds() - wall_from;
    // The waits for edges are wall time too: over them all, the coarse clock must keep
    // pace with the stopwatch, or its edges are not the time's.
    let pace = info.diff(from, to) as f64 * ns * 1e-9 / wall_s;
    fit.pace = pace.is_finite().then_some(pace);
    if fit.unusable.is_none() && pace < crate::overhead::LEAST_PACE {
        fit.unusable = Some(Caveat::EdgesNotTime {
            clock: info.name.clone(),
            pace,
        });
        fit.slope_ns = None;
        fit.ols_slope_ns = None;
    }
    fit.caveats.push(Caveat::Interpolated {
        tick_ns: tick_s * 1e9,
        reads_per_tick: per_tick,
        count_ns,
    });
    fit.elapsed_s += spent_s;
    Ok((fit, theirs))
}

/// Longest runs, in ticks, an interpolated fit tries first. Each run's error is the pace
/// of reads in the part of a tick after it (a machine's pace wanders by 5 % and more from one
/// tick to the next), so it is some share of a tick whatever the run's length: runs spanning
/// several ticks spread the sizes far wider than that error, where runs shorter than a tick
/// barely do, and they decouple the reads counted from the size (a run half a tick long
/// always leaves half a tick to count, at a pace other than the next tick's).
pub(super) const INTERPOLATED_TICKS: [f64; 3] = [4.0, 2.0, 1.0];

/// Fewest runs the longest sizes must leave room for before shorter ones are taken instead.
pub(super) const INTERPOLATED_RUNS: f64 = 20.0;

/// The largest size of an interpolated fit and how many runs the budget holds: `n` is the
/// work of `ticks` of a tick (half a tick or more), `left` the budget left in ticks. A run
/// costs its work, the wait for the edge after it (half a tick on average) and the tick
/// that gives the pace; sizes spread from a quarter of the largest up.
pub(super) fn interpolated_sizes(n: u64, ticks: f64, max: u64, left: f64) -> (u64, f64) {
    let cost = |l: f64| 0.625 * l + 1.5;
    let per_tick = n as f64 / ticks.max(1e-9);
    for l in INTERPOLATED_TICKS {
        let top = (per_tick * l).min(max as f64) as u64;
        if top > n && left / cost(l) >= INTERPOLATED_RUNS {
            return (top, left / cost(l));
        }
    }
    (n, left / cost(ticks))
}
