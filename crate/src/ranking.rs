//! The ranking of the clocks a run measured: the finest one, and how much finer than the
//! clock everyone already has (a page's performance.now; a program's `std::time::Instant`)
//! it is (Schwarz et al., "Fantastic Timers"; Rokicki et al., "SoK: In Search of Lost
//! Time"). Data here; its words are [`crate::present::ranking`].
//!
//! A clock's step is the shortest interval it can tell: its tick when it is read at will; for
//! a clock updated only at moments of its own (a frame, an audio quantum), the median
//! interval between its changes when that is longer, since its values may sit on a finer
//! grid than they move on. Simulated and synthetic clocks are lessons, not clocks of the
//! machine or page: they are not ranked.

use serde::Serialize;

use crate::clock::ClockKind;
use crate::report::ClockReport;

/// How a clock is read, which decides what its step is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Read at will (performance.now, clock_gettime): its step is its tick.
    AtWill,
    /// Sampled at moments of its own (a frame's time, an audio quantum): its step is the
    /// median interval between its changes when that is longer than its tick.
    AtItsMoments,
    /// A set of durations (Event Timing), not a series: its changes mean nothing.
    Durations,
}

/// One ranked clock.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    /// Its name.
    pub name: String,
    /// The shortest interval it tells, in ns.
    pub ns: f64,
    /// Whether that is its cadence of updates rather than its tick.
    pub cadence: bool,
}

/// The step of one measured clock, when it has one.
pub fn step(report: &ClockReport, reading: Reading) -> Option<Step> {
    if report.info.kind == ClockKind::Synthetic {
        return None;
    }
    let t = report.tick.as_ref()?;
    let tick = t.told_ns().filter(|ns| ns.is_finite() && *ns > 0.0)?;
    let cadence = match reading {
        Reading::AtItsMoments => t
            .ns_per_count
            .and_then(|ns| median(&t.edge_intervals).map(|m| m * ns)),
        Reading::AtWill | Reading::Durations => None,
    };
    let (ns, cadence) = match cadence {
        Some(c) if c > tick * 1.5 => (c, true),
        _ => (tick, false),
    };
    Some(Step {
        name: report.info.name.clone(),
        ns,
        cadence,
    })
}

fn median(xs: &[u64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    // As floats, through the one float sort (counts far below 2^53 are exact).
    let mut v: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
    crate::stats::sort_f64(&mut v);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// The clocks ranked, finest first, against the one everyone already has.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ranking {
    /// Every ranked clock, finest first.
    pub steps: Vec<Step>,
    /// The finest: the first, unless it is within a tenth of the reference (a float's
    /// rounding, not a step), when the reference is.
    pub best: usize,
    /// The reference clock among the steps, when it was measured.
    pub reference: Option<usize>,
    /// What the reference is called in words ("performance.now", "Instant").
    pub reference_label: String,
}

impl Ranking {
    /// `steps` ranked against the clock named `reference`, called `label`; none when
    /// nothing was ranked.
    pub fn of(steps: Vec<Step>, reference: &str, label: &str) -> Option<Self> {
        if steps.is_empty() {
            return None;
        }
        let steps = crate::stats::stable_by_key(steps, |s| s.ns);
        let at = steps.iter().position(|s| s.name == reference);
        let best = match at {
            Some(r) if steps[0].ns > steps[r].ns * 0.9 => r,
            _ => 0,
        };
        Some(Self {
            steps,
            best,
            reference: at,
            reference_label: label.to_string(),
        })
    }

    /// How many times finer the best is than the reference, when it is finer.
    pub fn finer(&self) -> Option<f64> {
        let r = &self.steps[self.reference?];
        let b = &self.steps[self.best];
        (self.best != self.reference? && b.ns < r.ns).then(|| r.ns / b.ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{ClockInfo, CountPeriod};
    use crate::tick::{self, TickOptions};

    pub(crate) fn sampled(name: &str, kind: ClockKind, readings: &[u64]) -> ClockReport {
        let info = ClockInfo::new(name, kind, CountPeriod::NANOSECOND);
        let budget = crate::run::Budget::new(1.0, 1_000_000).unwrap();
        let t = tick::from_readings(
            &info,
            readings,
            1.0,
            crate::run::Stop::Time,
            &TickOptions::new(budget),
        )
        .unwrap();
        let mut r = ClockReport::new(info);
        r.tick = Some(t);
        r
    }

    #[test]
    fn frames_rank_by_their_cadence_and_the_finest_leads() {
        // Frame times on a 100 µs grid, 16.7 ms apart: values fine, updates coarse.
        let frames: Vec<u64> = (0..60).map(|i| (i * 167 + i % 3) * 100_000).collect();
        let raf = step(
            &sampled("rAF", ClockKind::Monotonic, &frames),
            Reading::AtItsMoments,
        )
        .unwrap();
        assert!(raf.cadence && (raf.ns - 16.7e6).abs() < 0.2e6, "{raf:?}");
        // The same frames as durations: their tick, not a cadence.
        let set = step(
            &sampled("durations", ClockKind::Monotonic, &frames),
            Reading::Durations,
        )
        .unwrap();
        assert!(!set.cadence && set.ns < 1e6, "{set:?}");
        // performance.now at 100 µs, read at will.
        let now_readings: Vec<u64> = (0..4000).map(|i| i / 7 * 100_000).collect();
        let now = step(
            &sampled("performance.now", ClockKind::Monotonic, &now_readings),
            Reading::AtWill,
        )
        .unwrap();
        assert!(!now.cadence && (now.ns - 100_000.0).abs() < 1.0, "{now:?}");
        let counter = Step {
            name: "MessageChannel".into(),
            ns: 8_000.0,
            cadence: false,
        };
        let r = Ranking::of(
            vec![raf.clone(), now.clone(), counter],
            "performance.now",
            "performance.now",
        )
        .unwrap();
        assert_eq!(r.steps[r.best].name, "MessageChannel");
        assert!((r.finer().unwrap() - 12.5).abs() < 1e-9);
        let r = Ranking::of(vec![raf, now], "performance.now", "performance.now").unwrap();
        assert_eq!(r.best, r.reference.unwrap());
        assert_eq!(r.finer(), None);
        assert_eq!(Ranking::of(vec![], "x", "x"), None);
        // A lesson's clock is not ranked.
        let sim = sampled("sim", ClockKind::Synthetic, &now_readings);
        assert_eq!(step(&sim, Reading::AtWill), None);
    }
}
