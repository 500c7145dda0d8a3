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
}

impl<'a> Run<'a> {
    /// Starts the budget now.
    pub fn new(
        experiment: &'static str,
        budget: Budget,
        stopwatch: &'a mut dyn Stopwatch,
        observer: &'a mut dyn FnMut(&Progress<'_>) -> Flow,
    ) -> Self {
        let start = stopwatch.seconds();
        Self {
            stopwatch,
            observer,
            budget,
            experiment,
            start,
            last_report: start,
        }
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
        let mut run = Run::new("x", Budget::new(1.0, 100).unwrap(), &mut sw, &mut obs);
        assert_eq!(run.check(1), Err(Error::Cancelled));

        let mut nan = || f64::NAN;
        let mut q = quiet;
        let mut run = Run::new("x", Budget::new(1.0, 100).unwrap(), &mut nan, &mut q);
        assert_eq!(run.check(1), Ok(Some(Stop::Time)));
    }
}
