//! The line that ranks the clocks this page measured: the finest one it can build, and how
//! much finer than performance.now that is (Schwarz et al., "Fantastic Timers"; Rokicki et
//! al., "SoK: In Search of Lost Time").
//!
//! A clock's step is the shortest interval it can tell: its tick when it is read at will; for
//! a clock the browser only updates at moments of its own (a frame, an audio quantum), the
//! median interval between its changes when that is longer, since its values may sit on a
//! finer grid than they move on. Simulated and synthetic clocks are lessons, not clocks of
//! this page: they are not ranked.

use ticklab::clock::ClockKind;
use ticklab::present;
use ticklab::report::ClockReport;

use crate::catalogue::{ClockId, Place};

/// One ranked clock.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// Which clock.
    pub id: ClockId,
    /// Its name.
    pub name: String,
    /// The shortest interval it tells, in ns.
    pub ns: f64,
    /// Whether that is its cadence of updates rather than its tick.
    pub cadence: bool,
}

/// The step of one measured clock, when it has one.
pub fn step(id: ClockId, place: Place, report: &ClockReport) -> Option<Step> {
    if report.info.kind == ClockKind::Synthetic {
        return None;
    }
    let t = report.tick.as_ref()?;
    let tick = t.told_ns().filter(|ns| ns.is_finite() && *ns > 0.0)?;
    // Durations (Event Timing) are a set, not a series: their changes mean nothing.
    let cadence = match (place, id) {
        (Place::Sampled, id) if id != ClockId::EventTiming => t
            .ns_per_count
            .and_then(|ns| median(&t.edge_intervals).map(|m| m * ns)),
        _ => None,
    };
    Some(match cadence {
        Some(c) if c > tick * 1.5 => Step {
            id,
            name: report.info.name.clone(),
            ns: c,
            cadence: true,
        },
        _ => Step {
            id,
            name: report.info.name.clone(),
            ns: tick,
            cadence: false,
        },
    })
}

fn median(xs: &[u64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_unstable();
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] as f64 + v[n / 2] as f64) / 2.0
    })
}

/// The ranking in words: the finest first, against performance.now (the worker's); none
/// when nothing was measured.
pub fn line(mut steps: Vec<Step>) -> Option<String> {
    steps.sort_by(|a, b| a.ns.total_cmp(&b.ns));
    let now = steps.iter().find(|s| s.id == ClockId::PerformanceNow);
    // Within a tenth of performance.now is no finer clock: a float's rounding, not a step.
    let best = match now {
        Some(now) if steps.first()?.ns > now.ns * 0.9 => now,
        _ => steps.first()?,
    };
    let against = match now {
        Some(now) if now.id == best.id => {
            "no clock this page built is finer than performance.now".to_string()
        }
        Some(now) if best.ns < now.ns => format!(
            "{} finer than performance.now ({})",
            times(now.ns / best.ns),
            present::duration(now.ns)
        ),
        Some(now) => format!("as fine as performance.now ({})", present::duration(now.ns)),
        None => "performance.now was not measured".to_string(),
    };
    let each: Vec<String> = steps
        .iter()
        .map(|s| {
            let how = if s.cadence { " (its updates)" } else { "" };
            format!("{} {}{how}", s.name, present::duration(s.ns))
        })
        .collect();
    Some(format!(
        "Finest clock this page built: {}, {}: {against}. All, finest first: {}.",
        best.name,
        present::duration(best.ns),
        each.join(" · ")
    ))
}

/// A ratio of steps, to the precision it deserves: "1.8×", "12×", "1 200×".
fn times(r: f64) -> String {
    if r < 10.0 {
        format!("{r:.1}×")
    } else {
        let digits = r.round() as u64;
        let mut s = digits.to_string();
        // Thousands set apart by a thin space, as the page writes counts.
        let mut i = s.len();
        while i > 3 {
            i -= 3;
            s.insert(i, '\u{2009}');
        }
        format!("{s}×")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ticklab::clock::{ClockInfo, CountPeriod};
    use ticklab::tick::{self, TickOptions};

    fn sampled(name: &str, kind: ClockKind, readings: &[u64]) -> ClockReport {
        let info = ClockInfo::new(name, kind, CountPeriod::NANOSECOND);
        let budget = ticklab::run::Budget::new(1.0, 1_000_000).unwrap();
        let t = tick::from_readings(
            &info,
            readings,
            1.0,
            ticklab::run::Stop::Time,
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
            ClockId::Raf,
            Place::Sampled,
            &sampled("rAF", ClockKind::Monotonic, &frames),
        )
        .unwrap();
        assert!(raf.cadence && (raf.ns - 16.7e6).abs() < 0.2e6, "{raf:?}");
        // performance.now at 100 µs, read at will.
        let now_readings: Vec<u64> = (0..4000).map(|i| i / 7 * 100_000).collect();
        let now = step(
            ClockId::PerformanceNow,
            Place::Worker,
            &sampled("performance.now", ClockKind::Monotonic, &now_readings),
        )
        .unwrap();
        assert!(!now.cadence && (now.ns - 100_000.0).abs() < 1.0, "{now:?}");
        let counter = Step {
            id: ClockId::MessageChannel,
            name: "MessageChannel".into(),
            ns: 8_000.0,
            cadence: false,
        };
        let words = line(vec![raf.clone(), now.clone(), counter]).unwrap();
        assert!(
            words.starts_with("Finest clock this page built: MessageChannel, 8.000 µs: 13× finer"),
            "{words}"
        );
        assert!(words.contains("rAF 16.800 ms (its updates)"), "{words}");
        let words = line(vec![raf, now]).unwrap();
        assert!(
            words.contains("no clock this page built is finer"),
            "{words}"
        );
        assert_eq!(line(vec![]), None);
        // A lesson's clock is not ranked.
        let sim = sampled("sim", ClockKind::Synthetic, &now_readings);
        assert_eq!(step(ClockId::SimChromium, Place::Worker, &sim), None);
        assert_eq!(times(1234.4), "1\u{2009}234×");
    }
}
