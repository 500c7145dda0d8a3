//! The page's form, checked here so every bad field gets a message that names it.

use serde::{Deserialize, Serialize};
use ticklab::characterise::Plan;
use ticklab::fit::FitOptions;
use ticklab::overhead::OverheadOptions;
use ticklab::run::Budget;
use ticklab::tick::TickOptions;
use ticklab::workload::WorkloadKind;

/// The form's fields as typed.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawSettings {
    /// Seconds for the tick experiment, per clock.
    pub tick_s: String,
    /// Seconds for the overhead experiment, per clock.
    pub overhead_s: String,
    /// Seconds for a fit, per clock that fits.
    pub fit_s: String,
    /// Seconds of sampling for clocks read at the platform's moments (frames, audio).
    pub sample_s: String,
    /// The fit's workload ("count", "copy", "sqrt", "matmul").
    pub workload: String,
}

/// The form, checked: parsed once on the page and handed to the worker as it is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Seconds for the tick experiment.
    pub tick_s: f64,
    /// Seconds for the overhead experiment.
    pub overhead_s: f64,
    /// Seconds for a fit.
    pub fit_s: f64,
    /// Seconds of sampling.
    pub sample_s: f64,
    /// The fit's workload.
    pub workload: WorkloadKind,
}

/// Default seconds of the tick experiment, per clock: 100 ticks of a 1 ms clock. 0.1 s gave
/// every clock the tick and verdict 0.15 s gave, in three engines isolated and not, and a
/// full run 0.2 s shorter (Firefox's four 1 ms and 100 µs clocks end on time, not samples).
/// The page's form shows the same (a test holds them together).
pub const DEFAULT_TICK_S: f64 = 0.1;
/// Default seconds of the overhead experiment, per clock.
pub const DEFAULT_OVERHEAD_S: f64 = 0.1;
/// Default seconds of a fit, per clock that fits.
pub const DEFAULT_FIT_S: f64 = 0.6;
/// Default seconds of sampling a clock read at the platform's moments: 24 frames at 60 Hz,
/// 137 audio quanta; 0.5 s gave every sampled clock the same tick and verdict in three
/// engines, and a run 0.1 s longer.
pub const DEFAULT_SAMPLE_S: f64 = 0.4;

/// Longest budget the page accepts for one experiment: a class waits for it.
pub const MAX_SECONDS: f64 = 120.0;

fn seconds(what: &str, text: &str, default: f64) -> Result<f64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(default);
    }
    let v: f64 = t
        .parse()
        .map_err(|_| format!("{what}: '{t}' is not a number of seconds"))?;
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("{what}: {t} s; give more than 0 seconds"));
    }
    if v > MAX_SECONDS {
        return Err(format!("{what}: {t} s; at most {MAX_SECONDS} s"));
    }
    Ok(v)
}

impl Settings {
    /// Checks the form; empty fields take the defaults.
    pub fn parse(raw: &RawSettings) -> Result<Self, String> {
        let workload = match raw.workload.trim() {
            "" => WorkloadKind::Count,
            w => WorkloadKind::parse(w).map_err(|e| e.to_string())?,
        };
        Ok(Self {
            tick_s: seconds("tick time", &raw.tick_s, DEFAULT_TICK_S)?,
            overhead_s: seconds("overhead time", &raw.overhead_s, DEFAULT_OVERHEAD_S)?,
            fit_s: seconds("fit time", &raw.fit_s, DEFAULT_FIT_S)?,
            sample_s: seconds("sampling time", &raw.sample_s, DEFAULT_SAMPLE_S)?,
            workload,
        })
    }

    /// The plan for one clock; `scale` shortens every budget (the main thread's share).
    /// Sample budgets end the experiments on fine clocks early, so the time budgets go to
    /// the coarse clocks that need them. A tick's 2 000 intervals are a fine clock's
    /// thousand edges and as many dithered timings in a few tens of ms, several times the
    /// 150 edges a 1 ms clock gives in all its time (20 000 took a 20 µs clock the whole
    /// 0.2 s).
    pub fn plan(&self, fit: bool, scale: f64) -> Result<Plan, String> {
        let b = |s: f64, samples: u64| {
            Budget::new((s * scale).max(0.01), samples).map_err(|e| e.to_string())
        };
        Ok(Plan {
            tick: TickOptions::new(b(self.tick_s, 2_000)?),
            overhead: Some(OverheadOptions::new(b(self.overhead_s, 500)?)),
            fits: if fit {
                vec![(self.workload, FitOptions::new(b(self.fit_s, 10_000_000)?))]
            } else {
                Vec::new()
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(tick: &str, workload: &str) -> RawSettings {
        RawSettings {
            tick_s: tick.into(),
            workload: workload.into(),
            ..Default::default()
        }
    }

    #[test]
    fn empty_fields_take_defaults() {
        let s = Settings::parse(&RawSettings::default()).unwrap();
        assert_eq!(s.tick_s, DEFAULT_TICK_S);
        assert_eq!(s.workload, WorkloadKind::Count);
        assert_eq!(s.plan(true, 1.0).unwrap().fits.len(), 1);
        assert!(s.plan(false, 0.5).unwrap().fits.is_empty());
    }

    #[test]
    fn the_pages_form_shows_the_defaults() {
        let page = include_str!("../../index.html");
        for (name, default) in [
            ("tick_s", DEFAULT_TICK_S),
            ("overhead_s", DEFAULT_OVERHEAD_S),
            ("fit_s", DEFAULT_FIT_S),
            ("sample_s", DEFAULT_SAMPLE_S),
        ] {
            let field = format!("name=\"{name}\" inputmode=\"decimal\" value=\"{default}\"");
            assert!(page.contains(&field), "index.html lacks {field}");
        }
    }

    #[test]
    fn bad_fields_are_named() {
        for (tick, workload, says) in [
            ("abc", "", "tick time: 'abc' is not a number"),
            ("-1", "", "give more than 0"),
            ("0", "", "give more than 0"),
            ("NaN", "", "give more than 0"),
            ("inf", "", "give more than 0"),
            ("1e9", "", "at most 120"),
            ("0.5", "bogus", "workload"),
        ] {
            let e = Settings::parse(&raw(tick, workload)).unwrap_err();
            assert!(e.contains(says), "{tick}/{workload}: {e}");
        }
    }
}
