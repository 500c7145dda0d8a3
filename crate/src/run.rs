//! Budgets, progress and cancellation: what every experiment is bounded by.
//!
//! The budget is kept by a [`Stopwatch`] that the platform supplies (Instant natively,
//! performance.now in a worker, a simulated timeline in tests), never by the clock under
//! test: a frozen clock must not be able to stop time for its own budget.

use serde::{Deserialize, Serialize};

use crate::error::{invalid, Error, Result};

/// Seconds elapsed, from a clock the platform trusts for budgets.
pub trait Stopwatch {
    /// Seconds since an arbitrary fixed origin.
    fn seconds(&mut self) -> f64;

    /// Its own step in seconds: 0 (the default) for one that moves at every read.
    fn step_s(&self) -> f64 {
        0.0
    }
}

/// A stopwatch whose step was measured when it was made ([`stopwatch_step`]), for one that
/// moves in coarse steps: performance.now in a page.
pub struct Stepped<S> {
    inner: S,
    step: f64,
}

impl<S: Stopwatch> Stepped<S> {
    /// Measures `inner`'s step (a few of its steps' time: up to 3 ms for a 1 ms one).
    pub fn new(mut inner: S) -> Self {
        let step = stopwatch_step(&mut inner);
        Self { inner, step }
    }
}

impl<S: Stopwatch> Stopwatch for Stepped<S> {
    fn seconds(&mut self) -> f64 {
        self.inner.seconds()
    }
    fn step_s(&self) -> f64 {
        self.step
    }
}

impl<F: FnMut() -> f64> Stopwatch for F {
    fn seconds(&mut self) -> f64 {
        self()
    }
}

/// The most an experiment may spend.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// Wall seconds.
    pub time_s: f64,
    /// Samples (intervals, blocks or timed runs, as the experiment counts them).
    pub samples: u64,
}

impl Budget {
    /// Longest time budget accepted: an hour.
    pub const MAX_TIME_S: f64 = 3600.0;
    /// Most samples accepted: 10^8 (800 MB of intervals).
    pub const MAX_SAMPLES: u64 = 100_000_000;

    /// A budget of `time_s` seconds (0 < t ≤ 3600) and `samples` samples (1 ≤ n ≤ 10^8).
    pub fn new(time_s: f64, samples: u64) -> Result<Self> {
        if !(time_s.is_finite() && time_s > 0.0 && time_s <= Self::MAX_TIME_S) {
            return Err(invalid(
                "time budget",
                format!(
                    "{time_s} s; expected more than 0 and at most {} s",
                    Self::MAX_TIME_S
                ),
            ));
        }
        if !(1..=Self::MAX_SAMPLES).contains(&samples) {
            return Err(invalid(
                "sample budget",
                format!("{samples}; expected 1 to {}", Self::MAX_SAMPLES),
            ));
        }
        Ok(Self { time_s, samples })
    }
}

/// What the observer wants after a progress report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on.
    Continue,
    /// Stop as soon as possible; the experiment returns [`Error::Cancelled`].
    Cancel,
}

/// A progress report.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress<'a> {
    /// Which experiment ("tick", "overhead", "fit").
    pub experiment: &'a str,
    /// Share done, 0 to 1 (the larger of time and sample shares).
    pub fraction: f64,
    /// Samples taken so far.
    pub samples: u64,
}

/// Why an experiment stopped taking samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// It had all the samples it wanted.
    Samples,
    /// The time budget ran out.
    Time,
}

/// Seconds between progress reports, so Cancel is honoured well within 100 ms.
const REPORT_EVERY_S: f64 = 0.02;

/// One experiment's context: its budget, the stopwatch that keeps it, and the observer.
pub struct Run<'a> {
    stopwatch: &'a mut dyn Stopwatch,
    observer: &'a mut dyn FnMut(&Progress<'_>) -> Flow,
    budget: Budget,
    experiment: &'static str,
    start: f64,
    last_report: f64,
    /// Seconds since the start at the last check.
    last_elapsed: f64,
    /// The stretches between the stopwatch's reads, watched for gaps.
    watch: Watch,
}

/// Seconds a [`Pace`] aims to leave between checks: short beside the scheduler's slices
/// (a millisecond and more), so a stretch between two checks that lost one stands out
/// against its work, and long beside a stopwatch read (tens of ns natively).
const PACE_S: f64 = 0.000_25;

/// Spaces the budget checks of a loop whose iterations cost an unknown time: a check at the
/// first iteration, then the gap doubles while checks come closer than the run's pace (a
/// quarter of a millisecond, longer for a coarse stopwatch) and halves when they come
/// further apart. A clock that takes seconds per read is checked at every read; one that
/// takes nanoseconds costs a stopwatch read per ~10^4 reads. Its checks are stamps of the
/// loop it paces ([`Loop`]): the iterations since the last check are the stretch's work.
#[derive(Clone, Debug)]
pub struct Pace {
    count: u32,
    every: u32,
    last: f64,
    kind: Loop,
}

impl Pace {
    /// Most iterations between checks.
    const MAX_EVERY: u32 = 1 << 20;

    /// A pace of `kind`'s loop that checks at the first iteration.
    pub fn new(kind: Loop) -> Self {
        Self {
            count: 0,
            every: 1,
            last: f64::NAN,
            kind,
        }
    }

    /// Counts one iteration; true when a check is due.
    #[inline(always)]
    pub fn due(&mut self) -> bool {
        self.count += 1;
        self.count >= self.every
    }

    /// Counts `k` iterations' worth of other work at once (a spin of the dither, in reads);
    /// the next [`Pace::due`] says whether a check is due.
    #[inline(always)]
    pub fn credit(&mut self, k: u32) {
        self.count = self.count.saturating_add(k);
    }

    fn respace(&mut self, now: f64, target: f64) {
        let gap = now - self.last;
        if gap < target / 2.0 && self.every < Self::MAX_EVERY {
            self.every *= 2;
        } else if gap > 2.0 * target && self.every > 1 {
            self.every /= 2;
        }
        // The first check has no gap to go by (NaN compares false): the gap stays 1.
        self.last = now;
        self.count = 0;
    }
}

/// A loop whose stretches between stopwatch reads the run watches for gaps. Every stretch
/// of one loop does the same work per unit (a read, a block's read, a run of one size), so
/// the median time per unit among them is what the work costs while the process runs, and
/// a stretch that took far longer lost the rest: the process was not running (the
/// scheduler gave its core away, the hypervisor took the CPU, a browser ran other tasks).
/// The median, not the least: some units cost more than others (an interpolated clock's
/// read waits up to a tick for an edge), and a gap is a stretch far beyond the usual.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loop {
    /// Reads waiting for a clock's edge.
    Edges,
    /// Reads and spins of dithered timings, in reads.
    Dither,
    /// Blocks of back-to-back reads, in reads.
    Blocks,
    /// Timed runs of one size of a fit (its index), one a unit: runs of every size are one
    /// loop, each size its own cost.
    Runs(u32),
}

/// Least time a stretch must lose to count as a gap: well above an interrupt (a few µs)
/// and below a scheduler's slice (0.75 ms and more), so a process descheduled even once is
/// seen.
pub const GAP_MIN_S: f64 = 100e-6;

/// Stretches kept for judging at most; past them only the long ones are kept, and judged
/// against the costs of the first.
const MAX_STRETCHES: usize = 1 << 16;

/// Where an experiment's loops were not running: stretches between two reads of the
/// stopwatch whose cost per unit of work was out of the ordinary for their loop, and that
/// took more than twice what their work takes at its median cost, and [`GAP_MIN_S`] more.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Gaps {
    /// Stretches that lost time.
    pub count: u64,
    /// Seconds lost in them, in all (each its stretch less its work at the median cost).
    pub lost_s: f64,
    /// The most lost in one.
    pub longest_s: f64,
    /// Seconds of the loops watched: the share's whole.
    pub watched_s: f64,
}

impl Gaps {
    /// The share of the watched time lost, when any was watched.
    pub fn share(&self) -> Option<f64> {
        (self.watched_s > 0.0).then(|| (self.lost_s / self.watched_s).min(1.0))
    }

    /// Adds another experiment's gaps.
    pub fn add(&mut self, other: &Gaps) {
        self.count += other.count;
        self.lost_s += other.lost_s;
        self.longest_s = self.longest_s.max(other.longest_s);
        self.watched_s += other.watched_s;
    }
}

/// One gap: the stopwatch read that ended its stretch ([`Run::stamps`] then), and the
/// seconds it lost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gap {
    /// The stamp that closed the stretch.
    pub stamp: u64,
    /// Seconds lost.
    pub lost_s: f64,
}

#[derive(Clone, Copy, Debug)]
struct Stretch {
    kind: Loop,
    work: f64,
    wall: f64,
    stamp: u64,
}

/// The stretches of the stopwatch's reads, each closed by a read of the stopwatch.
#[derive(Debug, Default)]
struct Watch {
    /// The stopwatch's own step, in seconds (0 for one as fine as its reads).
    step_s: f64,
    /// Reads of the stopwatch so far in this experiment.
    stamps: u64,
    /// The last read.
    last_s: f64,
    /// The loop whose stretch the last read closed, when it closed one: the next read
    /// closes a stretch of that loop's alone if it is that loop's too.
    chained: Option<Loop>,
    stretches: Vec<Stretch>,
    /// Stretches past [`MAX_STRETCHES`]: gaps judged as they ended, and their time.
    late: Vec<Stretch>,
    late_watched_s: f64,
}

impl Watch {
    /// Records a stretch of `work` units of `kind` that took `wall` seconds.
    fn add(&mut self, kind: Loop, work: f64, wall: f64) {
        if !(work > 0.0 && wall.is_finite() && wall >= 0.0) {
            return;
        }
        let s = Stretch {
            kind,
            work,
            wall,
            stamp: self.stamps,
        };
        if self.stretches.len() < MAX_STRETCHES {
            self.stretches.push(s);
        } else {
            self.late_watched_s += wall;
            // Only the long ones can be gaps; they are judged at the end.
            if wall >= GAP_MIN_S && self.late.len() < MAX_STRETCHES {
                self.late.push(s);
            }
        }
    }

    /// A loop's seconds per unit of work while running: the median, and the fence above
    /// which a unit's cost is out of the ordinary (the upper quartile and three times the
    /// quartiles' spread: some units cost more than others, an interpolated clock's read
    /// waits up to a tick for an edge). Each stretch lasted at most its wall time and the
    /// stopwatch's step.
    fn cost(&self, kind: Loop) -> (f64, f64) {
        let mut units = Vec::new();
        for s in &self.stretches {
            if s.kind == kind {
                units.push((s.wall + self.step_s) / s.work);
            }
        }
        crate::stats::sort_f64(&mut units);
        let at = |q: f64| crate::stats::quantile_sorted(&units, q);
        let (q1, q3) = (at(0.25), at(0.75));
        (at(0.5), q3 + 3.0 * (q3 - q1))
    }

    /// The gaps: each stretch less its work at the median cost and the stopwatch's step,
    /// when that is beyond the loop's fence, more than the work took and more than
    /// [`GAP_MIN_S`].
    fn judge(&self) -> (Gaps, Vec<Gap>) {
        let mut costs: Vec<(Loop, (f64, f64))> = Vec::new();
        let mut gaps = Gaps {
            watched_s: self.late_watched_s,
            ..Gaps::default()
        };
        let mut found = Vec::new();
        for s in self.stretches.iter().chain(&self.late) {
            let (median, fence) = match costs.iter().find(|c| c.0 == s.kind) {
                Some(c) => c.1,
                None => {
                    let c = self.cost(s.kind);
                    costs.push((s.kind, c));
                    c
                }
            };
            let ran = s.wall - self.step_s;
            let expect = s.work * median;
            let lost = ran - expect;
            if ran > s.work * fence && lost >= GAP_MIN_S.max(expect).max(2.0 * self.step_s) {
                found.push(Gap {
                    stamp: s.stamp,
                    lost_s: lost,
                });
                gaps.count += 1;
                gaps.lost_s += lost;
                gaps.longest_s = gaps.longest_s.max(lost);
            }
        }
        for s in &self.stretches {
            gaps.watched_s += s.wall;
        }
        (gaps, found)
    }
}

/// The step of a stopwatch that advances in coarse steps (performance.now in a page: 5 µs
/// to 1 ms), measured once: the least of three steps in its readings, reading at most 2^20
/// times (a stopwatch that never moves on its own, simulated time's, has step 0). Its
/// readings move by whole steps, and a sleep of the reader makes a step a multiple: WebKit's
/// worker, asleep 36 ms in one, kept that as the step when the larger of two was taken,
/// and its budgets were reckoned by it; on a machine busy beside it, two steps in three.
pub fn stopwatch_step(stopwatch: &mut dyn Stopwatch) -> f64 {
    let mut last = stopwatch.seconds();
    let mut steps = Vec::with_capacity(3);
    for _ in 0..1 << 20 {
        let now = stopwatch.seconds();
        if !now.is_finite() {
            return 0.0;
        }
        if now != last {
            steps.push(now - last);
            if steps.len() == 3 {
                // Each is whole in the readings, however soon after an edge the reads
                // began.
                return steps[0].min(steps[1]).min(steps[2]).max(0.0);
            }
            last = now;
        }
    }
    0.0
}

impl<'a> Run<'a> {
    /// A context for experiments: each starts it with its own name and budget
    /// ([`Run::start`]), so the budget is given once, in the experiment's options.
    pub fn new(
        stopwatch: &'a mut dyn Stopwatch,
        observer: &'a mut dyn FnMut(&Progress<'_>) -> Flow,
    ) -> Self {
        let start = stopwatch.seconds();
        let step_s = stopwatch.step_s();
        Self {
            stopwatch,
            observer,
            // Spent until an experiment starts with a budget of its own.
            budget: Budget {
                time_s: 0.0,
                samples: 0,
            },
            experiment: "",
            start,
            last_report: start,
            last_elapsed: 0.0,
            watch: Watch {
                step_s: if step_s.is_finite() && step_s > 0.0 {
                    step_s
                } else {
                    0.0
                },
                ..Watch::default()
            },
        }
    }

    /// Starts `experiment` on a fresh `budget`, now, with no stretch watched yet.
    pub fn start(&mut self, experiment: &'static str, budget: Budget) {
        let step_s = self.watch.step_s;
        self.watch = Watch {
            step_s,
            ..Watch::default()
        };
        let now = self.read(None);
        self.experiment = experiment;
        self.budget = budget;
        self.start = now;
        self.last_report = now;
        self.last_elapsed = 0.0;
    }

    /// Reads the stopwatch. `closes` names the loop and the work done since the last read
    /// when that read too was a loop's: the stretch between them is then watched.
    fn read(&mut self, closes: Option<(Loop, f64)>) -> f64 {
        let now = self.stopwatch.seconds();
        let w = &mut self.watch;
        w.stamps += 1;
        if let (Some((kind, work)), Some(last)) = (closes, w.chained) {
            // Runs of any size are one loop; edges and dithers are two.
            if std::mem::discriminant(&kind) == std::mem::discriminant(&last) {
                w.add(kind, work, now - w.last_s);
            }
        }
        w.chained = closes.map(|c| c.0);
        w.last_s = now;
        now
    }

    /// The stopwatch, for an experiment that hands it on (a calibration of its own).
    pub fn stopwatch(&mut self) -> &mut dyn Stopwatch {
        self.watch.chained = None;
        &mut *self.stopwatch
    }

    /// The budget.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// How many times the stopwatch was read in this experiment: a read made now ends the
    /// stretch numbered one more. An interval of the clock under test whose first read came
    /// when this was `a` and whose last when it was `b` lies within stretches `a + 1 ..= b + 1`.
    pub fn stamps(&self) -> u64 {
        self.watch.stamps
    }

    /// The gaps of the experiment so far, and each gap with the stamp that closed it, in
    /// order.
    pub fn gaps(&self) -> (Gaps, Vec<Gap>) {
        self.watch.judge()
    }

    /// Seconds since the experiment started, read inside a watched stretch without closing
    /// it: a mark of where a piece of the loop's work began or ended (a block's own span),
    /// which the watch of gaps does not see.
    pub fn mark(&mut self) -> f64 {
        let now = self.stopwatch.seconds();
        self.since(now)
    }

    /// The stopwatch's step in seconds (0 for one that moves at every read).
    pub fn step_s(&self) -> f64 {
        self.watch.step_s
    }

    /// Seconds since the experiment started.
    pub fn elapsed(&mut self) -> f64 {
        let now = self.read(None);
        self.since(now)
    }

    fn since(&self, now: f64) -> f64 {
        // A stopwatch that goes backwards or returns NaN must not extend the budget forever.
        if now.is_finite() {
            (now - self.start).max(0.0)
        } else {
            f64::INFINITY
        }
    }

    /// Whether the time budget is spent.
    pub fn time_up(&mut self) -> bool {
        self.elapsed() >= self.budget.time_s
    }

    /// Checks time and samples, reports progress when due, and honours Cancel.
    /// `Ok(Some(stop))` means stop sampling; `Ok(None)` means go on.
    pub fn check(&mut self, samples: u64) -> Result<Option<Stop>> {
        self.check_closing(samples, None)
    }

    /// [`Run::check`], closing a stretch of `work` units of `kind`'s loop: the stretch since
    /// the stopwatch's last read is watched when that read too closed a loop's stretch.
    pub fn check_watched(&mut self, samples: u64, kind: Loop, work: f64) -> Result<Option<Stop>> {
        self.check_closing(samples, Some((kind, work)))
    }

    fn check_closing(&mut self, samples: u64, closes: Option<(Loop, f64)>) -> Result<Option<Stop>> {
        let now = self.read(closes);
        let elapsed = self.since(now);
        self.last_elapsed = elapsed;
        let now = self.start + elapsed;
        if now - self.last_report >= REPORT_EVERY_S || samples >= self.budget.samples {
            self.last_report = now;
            let fraction = (elapsed / self.budget.time_s)
                .max(samples as f64 / self.budget.samples as f64)
                .clamp(0.0, 1.0);
            let p = Progress {
                experiment: self.experiment,
                fraction,
                samples,
            };
            let flow = (self.observer)(&p);
            // The observer's own time (a progress bar drawn, a message posted) is no
            // loop's work: the next stretch starts after it.
            if self.watch.chained.is_some() {
                self.watch.last_s = self.stopwatch.seconds();
                self.watch.stamps += 1;
            }
            if flow == Flow::Cancel {
                return Err(Error::Cancelled);
            }
        }
        if samples >= self.budget.samples {
            Ok(Some(Stop::Samples))
        } else if elapsed >= self.budget.time_s {
            Ok(Some(Stop::Time))
        } else {
            Ok(None)
        }
    }

    /// The pace a [`Pace`] aims for: [`PACE_S`], or eight of the stopwatch's steps when it
    /// is coarser, so its rounding stays small beside a stretch.
    fn pace_s(&self) -> f64 {
        PACE_S.max(8.0 * self.watch.step_s)
    }
}

impl Run<'_> {
    /// [`Run::check`] when `pace` says a check is due, else go on. The check closes a
    /// stretch of the paced loop.
    #[inline(always)]
    pub fn poll(&mut self, pace: &mut Pace, samples: u64) -> Result<Option<Stop>> {
        if !pace.due() {
            return Ok(None);
        }
        self.poll_now(pace, samples)
    }

    /// A check of `pace`'s loop now, due or not: it closes the loop's stretch here (at an
    /// edge, so the stretch after it belongs to the next wait alone).
    pub fn poll_now(&mut self, pace: &mut Pace, samples: u64) -> Result<Option<Stop>> {
        let work = pace.count as f64;
        let r = self.check_watched(samples, pace.kind, work);
        let target = self.pace_s();
        pace.respace(self.last_elapsed, target);
        r
    }

    /// Times up to `reads` calls of `read` in small batches, and returns the least seconds
    /// per call among them: the required time is the smallest timing, so a batch the
    /// process was not running through costs one sample, not the answer. It stops early
    /// once the reads, at that least cost, have taken `share` of the budget (after three
    /// batches, so one descheduled read is not taken for a slow clock), or once the whole
    /// budget is gone. Warm-ups use it, so a clock that is slow to read is found before
    /// anything counts on many reads.
    pub fn warm_up(&mut self, reads: u32, share: f64, read: &mut dyn FnMut()) -> f64 {
        let t_start = self.elapsed();
        let limit = share * self.budget.time_s;
        let mut least = f64::INFINITY;
        let (mut n, mut batch, mut batches) = (0u32, 1u32, 0u32);
        let mut t0 = t_start;
        while n < reads {
            let b = batch.min(reads - n);
            for _ in 0..b {
                read();
            }
            n += b;
            batches += 1;
            let t1 = self.elapsed();
            least = least.min((t1 - t0).max(0.0) / b as f64);
            t0 = t1;
            if (batches >= 3 && least * n as f64 >= limit) || t1 - t_start >= self.budget.time_s {
                break;
            }
            batch = (batch * 2).min(16);
        }
        if least.is_finite() {
            least
        } else {
            0.0
        }
    }
}

/// An observer that never cancels and ignores progress.
pub fn quiet(_: &Progress<'_>) -> Flow {
    Flow::Continue
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_out_of_range_are_refused() {
        assert!(Budget::new(0.0, 10).is_err());
        assert!(Budget::new(f64::NAN, 10).is_err());
        assert!(Budget::new(1e9, 10).is_err());
        assert!(Budget::new(1.0, 0).is_err());
        assert!(Budget::new(1.0, u64::MAX).is_err());
        assert!(Budget::new(1.0, 1).is_ok());
    }

    #[test]
    fn cancel_is_honoured_and_nan_stopwatch_ends_the_run() {
        let mut t = 0.0;
        let mut sw = move || {
            t += 0.05;
            t
        };
        let mut obs = |_: &Progress<'_>| Flow::Cancel;
        let mut run = Run::new(&mut sw, &mut obs);
        run.start("x", Budget::new(1.0, 100).unwrap());
        assert_eq!(run.check(1), Err(Error::Cancelled));

        let mut nan = || f64::NAN;
        let mut q = quiet;
        let mut run = Run::new(&mut nan, &mut q);
        run.start("x", Budget::new(1.0, 100).unwrap());
        assert_eq!(run.check(1), Ok(Some(Stop::Time)));
    }

    #[test]
    fn a_sleep_while_the_step_is_measured_is_not_the_step() {
        // A 1 ms stopwatch read every µs, its reader asleep 36 ms at two of its first
        // three edges.
        for asleep in [[1, 2], [2, 3], [1, 3]] {
            let (mut us, mut edges) = (0u64, 0);
            let mut sw = move || {
                us += 1;
                if us % 1000 == 0 {
                    edges += 1;
                    if asleep.contains(&edges) {
                        us += 36_000;
                    }
                }
                (us / 1000) as f64 * 1e-3
            };
            let step = stopwatch_step(&mut sw);
            assert!((step - 1e-3).abs() < 1e-9, "asleep at {asleep:?}: {step}");
        }
    }

    #[test]
    fn pace_checks_slow_loops_every_time_and_fast_loops_seldom() {
        // A stopwatch that moves `step` per call: each check sees `step` since the last.
        let checks = |step: f64| {
            let mut calls = 0u64;
            let mut sw = || {
                calls += 1;
                calls as f64 * step
            };
            let mut q = quiet;
            let mut run = Run::new(&mut sw, &mut q);
            run.start("x", Budget::new(3600.0, 100).unwrap());
            let mut pace = Pace::new(Loop::Edges);
            {
                let mut run = run;
                for _ in 0..100_000 {
                    run.poll(&mut pace, 0).unwrap();
                }
            }
            // One read when the context is made, one when the experiment starts.
            calls - 2
        };
        // A check each iteration, and each reports progress (a second apart), after which
        // the stopwatch is read again: the report's own time is no loop's work.
        assert_eq!(checks(1.0), 200_000);
        assert!(checks(1e-9) < 100, "{}", checks(1e-9));
    }
}
