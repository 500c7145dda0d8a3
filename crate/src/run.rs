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
}

/// Seconds a [`Pace`] aims to leave between checks.
const PACE_S: f64 = 0.001;

/// Spaces the budget checks of a loop whose iterations cost an unknown time: a check at the
/// first iteration, then the gap doubles while checks come closer than [`PACE_S`] and halves
/// when they come further apart. A clock that takes seconds per read is checked at every read;
/// one that takes nanoseconds costs a stopwatch read per ~10^4 reads.
#[derive(Clone, Debug)]
pub struct Pace {
    left: u32,
    every: u32,
    last: f64,
}

impl Default for Pace {
    fn default() -> Self {
        Self::new()
    }
}

impl Pace {
    /// Most iterations between checks.
    const MAX_EVERY: u32 = 1 << 20;

    /// A pace that checks at the first iteration.
    pub fn new() -> Self {
        Self {
            left: 1,
            every: 1,
            last: f64::NAN,
        }
    }

    /// Counts one iteration; true when a check is due.
    #[inline(always)]
    pub fn due(&mut self) -> bool {
        self.left -= 1;
        self.left == 0
    }

    fn respace(&mut self, now: f64) {
        let gap = now - self.last;
        if gap < PACE_S / 2.0 && self.every < Self::MAX_EVERY {
            self.every *= 2;
        } else if gap > 2.0 * PACE_S && self.every > 1 {
            self.every /= 2;
        }
        // The first check has no gap to go by (NaN compares false): the gap stays 1.
        self.last = now;
        self.left = self.every;
    }
}

impl<'a> Run<'a> {
    /// A context for experiments: each starts it with its own name and budget
    /// ([`Run::start`]), so the budget is given once, in the experiment's options.
    pub fn new(
        stopwatch: &'a mut dyn Stopwatch,
        observer: &'a mut dyn FnMut(&Progress<'_>) -> Flow,
    ) -> Self {
        let start = stopwatch.seconds();
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
        }
    }

    /// Starts `experiment` on a fresh `budget`, now.
    pub fn start(&mut self, experiment: &'static str, budget: Budget) {
        let now = self.stopwatch.seconds();
        self.experiment = experiment;
        self.budget = budget;
        self.start = now;
        self.last_report = now;
        self.last_elapsed = 0.0;
    }

    /// The stopwatch, for an experiment that hands it on (a calibration of its own).
    pub fn stopwatch(&mut self) -> &mut dyn Stopwatch {
        &mut *self.stopwatch
    }

    /// The budget.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Seconds since the run started.
    pub fn elapsed(&mut self) -> f64 {
        let now = self.stopwatch.seconds();
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
        let elapsed = self.elapsed();
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
            if (self.observer)(&p) == Flow::Cancel {
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
}

impl Run<'_> {
    /// [`Run::check`] when `pace` says a check is due, else go on.
    #[inline(always)]
    pub fn poll(&mut self, pace: &mut Pace, samples: u64) -> Result<Option<Stop>> {
        if !pace.due() {
            return Ok(None);
        }
        let r = self.check(samples);
        pace.respace(self.last_elapsed);
        r
    }

    /// Times up to `reads` calls of `read`, stopping early once they have taken `share` of the
    /// budget; returns the seconds per call. Warm-ups use it, so a clock that is slow to read
    /// is found before anything counts on many reads.
    pub fn warm_up(&mut self, reads: u32, share: f64, read: &mut dyn FnMut()) -> f64 {
        let t0 = self.elapsed();
        let limit = share * self.budget.time_s;
        let mut n = 0u32;
        let mut dt = 0.0;
        while n < reads {
            read();
            n += 1;
            dt = self.elapsed() - t0;
            if dt >= limit {
                break;
            }
        }
        dt / n.max(1) as f64
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
            let mut pace = Pace::new();
            {
                let mut run = run;
                for _ in 0..100_000 {
                    run.poll(&mut pace, 0).unwrap();
                }
            }
            // One read when the context is made, one when the experiment starts.
            calls - 2
        };
        assert_eq!(checks(1.0), 100_000);
        assert!(checks(1e-9) < 100, "{}", checks(1e-9));
    }
}
