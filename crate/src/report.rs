//! The report: one versioned schema for everything both front ends produce.
//!
//! Native (`ticklab run --json`) and the page write the same structure, so the page can set
//! one beside the other. The schema is documented in `docs/report-schema.md`; any change to
//! its shape raises [`SCHEMA_VERSION`].

use serde::{Deserialize, Serialize};

use crate::caveat::Caveat;
use crate::clock::ClockInfo;
use crate::error::{Error, ErrorKind, Result};
use crate::fit::FitResult;
use crate::overhead::OverheadResult;
use crate::run::Gaps;
use crate::tick::TickResult;

/// Version of the report schema this crate writes and reads.
pub const SCHEMA_VERSION: u32 = 8;

/// Oldest version it reads: version 1 lacks the fields version 2 added (the data's quantum
/// and exact tick, straddles, chance, pace, unusable figures), which read as absent; before
/// version 3 an experiment's error had no kind, and reads as [`ErrorKind::Other`].
pub const OLDEST_SCHEMA_VERSION: u32 = 1;

/// Largest report accepted by [`Report::from_json`]: 32 MiB.
pub const MAX_REPORT_BYTES: usize = 32 << 20;

/// Where the measurements were taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Platform {
    /// The `ticklab` command.
    Native,
    /// A web page.
    Browser,
    /// Synthetic clocks only.
    Simulation,
}

/// What is known of the machine and context.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Environment {
    /// Where the measurements were taken.
    pub platform: Option<Platform>,
    /// Operating system.
    pub os: Option<String>,
    /// CPU architecture.
    pub arch: Option<String>,
    /// CPU model.
    pub cpu: Option<String>,
    /// Logical CPUs (navigator.hardwareConcurrency in a page).
    pub cpus: Option<u32>,
    /// The browser's user agent.
    pub user_agent: Option<String>,
    /// Whether the page was cross-origin isolated.
    pub cross_origin_isolated: Option<bool>,
    /// Whether the page was hidden (throttled) at any time during the run.
    pub hidden_during_run: Option<bool>,
    /// When the report was made, in ms since the Unix epoch.
    pub created_unix_ms: Option<u64>,
    /// Frequencies of hardware counters: measured, and as claimed.
    pub counters: Vec<CounterFrequency>,
    /// Words of an older report (schema 3 and before) on its run; none are written now:
    /// what they said is data ([`present::run_notes`](crate::present::run_notes)).
    pub notes: Vec<String>,
}

/// A counter's frequency as measured against a reference clock, beside the platform's claims
/// (Cox's "Measuring Time" converts TSC ticks with /proc/cpuinfo's "cpu MHz", wrong on many modern CPUs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CounterFrequency {
    /// The counter ("rdtsc").
    pub clock: String,
    /// Measured frequency in Hz.
    pub measured_hz: Option<f64>,
    /// What it was measured against, and for how long.
    pub against: Option<String>,
    /// Frequencies claimed elsewhere.
    pub claims: Vec<FrequencyClaim>,
    /// Whether the counter runs at a constant rate in every power state, when known.
    pub invariant: Option<bool>,
}

/// A frequency someone claims.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrequencyClaim {
    /// Hz.
    pub hz: f64,
    /// Who claims it ("/proc/cpuinfo cpu MHz", "cpuid leaf 0x15").
    pub source: String,
}

/// An experiment that failed on a clock, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExperimentError {
    /// "tick", "overhead" or "fit".
    pub experiment: String,
    /// What went wrong, for programs (version 3 on).
    #[serde(default)]
    pub kind: ErrorKind,
    /// Why, with its figures (version 5 on; an older report's message reads as
    /// [`Caveat::Text`]).
    #[serde(alias = "message")]
    pub cause: Caveat,
}

impl ExperimentError {
    /// `experiment` failed with `e`.
    pub fn new(experiment: impl Into<String>, e: Error) -> Self {
        Self {
            experiment: experiment.into(),
            kind: e.kind(),
            cause: e.into_cause(),
        }
    }
}

/// Everything measured on one clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockReport {
    /// What is known about the clock.
    pub info: ClockInfo,
    /// Whether the clock exists here; an unavailable clock is listed, not dropped.
    pub available: bool,
    /// Why it is unavailable.
    pub unavailable_reason: Option<String>,
    /// The tick experiment.
    pub tick: Option<TickResult>,
    /// The overhead experiment.
    pub overhead: Option<OverheadResult>,
    /// Fits, one per workload.
    pub fits: Vec<FitResult>,
    /// Experiments that failed.
    pub errors: Vec<ExperimentError>,
}

impl ClockReport {
    /// An available clock with nothing measured yet.
    pub fn new(info: ClockInfo) -> Self {
        Self {
            info,
            available: true,
            unavailable_reason: None,
            tick: None,
            overhead: None,
            fits: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// A clock that does not exist here, and why.
    pub fn unavailable(info: ClockInfo, reason: impl Into<String>) -> Self {
        Self {
            available: false,
            unavailable_reason: Some(reason.into()),
            ..Self::new(info)
        }
    }

    /// Where the tick and overhead experiments on this clock were not running, together (a
    /// fit's runs are not watched: a run far slower than the others of its size may be an
    /// engine still compiling the work, and the least run of each size is its time).
    pub fn gaps(&self) -> Gaps {
        let mut g = Gaps::default();
        if let Some(t) = &self.tick {
            g.add(&t.gaps);
        }
        if let Some(o) = &self.overhead {
            g.add(&o.gaps);
        }
        g
    }
}

/// A whole report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Always [`SCHEMA_VERSION`] when written by this crate.
    pub schema_version: u32,
    /// The program and version that wrote it.
    pub generator: String,
    /// The machine and context.
    pub environment: Environment,
    /// One entry per clock.
    pub clocks: Vec<ClockReport>,
    /// Where Ctrl-C stopped the run, when it did: the clocks are what was measured until
    /// then, the last one perhaps in part (version 7 on; its words are
    /// [`crate::present::interrupted`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interruption: Option<Interruption>,
    /// The same, as reports before version 7 said it: a sentence, shown as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
}

/// Where Ctrl-C stopped a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interruption {
    /// The clock it stopped at.
    pub clock: String,
    /// Whether it came while that clock was measured (which is kept in part), rather than
    /// before it began.
    pub during: bool,
    /// Clocks the report holds.
    pub measured: u64,
    /// Clocks the run was to measure.
    pub total: u64,
}

impl Report {
    /// An empty report of the current schema.
    pub fn new(environment: Environment) -> Self {
        Self {
            schema_version: SCHEMA_VERSION,
            generator: format!("ticklab {}", env!("CARGO_PKG_VERSION")),
            environment,
            clocks: Vec::new(),
            interruption: None,
            interrupted: None,
        }
    }

    /// Where the experiments were not running, over every clock.
    pub fn gaps(&self) -> Gaps {
        let mut g = Gaps::default();
        for c in &self.clocks {
            g.add(&c.gaps());
        }
        g
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self).map_err(|e| Error::Report(e.to_string()))
    }

    /// Reads a report, refusing anything too large, malformed, foreign or of another
    /// schema version, with a message saying which.
    pub fn from_json(text: &str) -> Result<Self> {
        Self::check_size(text.len())?;
        // An editor's byte-order mark, which JSON parsers refuse.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| Error::Report(format!("not JSON: {e}")))?;
        Self::check_version(Version::of(value.get("schema_version")))?;
        serde_json::from_value(value).map_err(|e| Error::Report(format!("malformed report: {e}")))
    }

    /// Refuses a report text of more than [`MAX_REPORT_BYTES`] bytes.
    pub fn check_size(bytes: usize) -> Result<()> {
        if bytes > MAX_REPORT_BYTES {
            return Err(Error::Report(format!(
                "{bytes} bytes is larger than the {} MiB a report may be",
                MAX_REPORT_BYTES >> 20
            )));
        }
        Ok(())
    }

    /// Refuses a document whose `schema_version` is missing, not a whole number, or not one
    /// this crate reads. The page parses JSON with the browser's parser and checks the
    /// version with this; the command, with [`Report::from_json`].
    pub fn check_version(version: Version) -> Result<()> {
        let v = match version {
            Version::Missing => {
                return Err(Error::Report(
                    "no schema_version: this is not a ticklab report".into(),
                ))
            }
            Version::NotWhole => {
                return Err(Error::Report("schema_version is not a whole number".into()))
            }
            Version::Whole(v) => v,
        };
        if !(OLDEST_SCHEMA_VERSION as u64..=SCHEMA_VERSION as u64).contains(&v) {
            return Err(Error::Report(format!(
                "schema version {v}; this ticklab reads versions \
                 {OLDEST_SCHEMA_VERSION} to {SCHEMA_VERSION}"
            )));
        }
        Ok(())
    }
}

/// A document's `schema_version`, as found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// There is none.
    Missing,
    /// It is not a whole number.
    NotWhole,
    /// It is this whole number.
    Whole(u64),
}

impl Version {
    /// The version a JSON document holds in a field (`None`: no such field).
    pub fn of(field: Option<&serde_json::Value>) -> Self {
        field.map_or(Version::Missing, |v| {
            v.as_u64().map_or(Version::NotWhole, Version::Whole)
        })
    }
}

/// One line of the benchmark table (BENCHMARKS.md): the native benchmark and the page each
/// write a list of these as JSON, and `cargo xtask bench` gathers them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// Which of the performance goals it belongs to (1 to 9).
    pub figure: u8,
    /// What is measured.
    pub name: String,
    /// The target, or a parenthesised word for a row shown for contrast.
    pub target: String,
    /// The measured value, as printed.
    pub measured: String,
    /// Whether the target is met; none for rows shown for contrast.
    pub ok: Option<bool>,
    /// What bounds or explains the value.
    #[serde(default)]
    pub note: String,
}

impl Figure {
    /// A row without a note.
    pub fn new(
        figure: u8,
        name: impl Into<String>,
        target: impl Into<String>,
        measured: String,
        ok: Option<bool>,
    ) -> Self {
        Self {
            figure,
            name: name.into(),
            target: target.into(),
            measured,
            ok,
            note: String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_and_malformed_reports_are_refused() {
        for bad in [
            "",
            "[1,2]",
            "{\"a\":1}",
            "{\"schema_version\":\"1\"}",
            "{\"schema_version\":99}",
            "{\"schema_version\":1}",
            "{\"schema_version\":1,\"generator\":\"x\",\"environment\":{},\"clocks\":[{}]}",
        ] {
            assert!(
                matches!(Report::from_json(bad), Err(Error::Report(_))),
                "{bad}"
            );
        }
        let big = " ".repeat(MAX_REPORT_BYTES + 1);
        assert!(Report::from_json(&big).is_err());
    }

    #[test]
    fn errors_are_written_as_data_and_older_messages_still_read() {
        let mut r = Report::new(Environment::default());
        let mut c = ClockReport::new(ClockInfo::new(
            "x",
            crate::clock::ClockKind::Wall,
            crate::clock::CountPeriod::NANOSECOND,
        ));
        c.errors.push(ExperimentError::new(
            "tick",
            Error::NoData(Caveat::TooFewReadings { readings: 2 }),
        ));
        r.clocks.push(c);
        let text = r.to_json().unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v["clocks"][0]["errors"][0],
            serde_json::json!({"experiment": "tick", "kind": "no_data",
                "cause": {"caveat": "too_few_readings", "readings": 2}})
        );
        assert_eq!(Report::from_json(&text).unwrap(), r);
        // As version 2 wrote it: a message, and no kind.
        v["schema_version"] = 2.into();
        let e = v["clocks"][0]["errors"][0].as_object_mut().unwrap();
        e.remove("kind");
        e.remove("cause");
        e.insert("message".into(), "not enough data: none".into());
        let r = Report::from_json(&v.to_string()).unwrap();
        assert_eq!(r.clocks[0].errors[0].kind, ErrorKind::Other);
        assert_eq!(
            r.clocks[0].errors[0].cause,
            Caveat::Text {
                text: "not enough data: none".into()
            }
        );
        let e = ExperimentError::new("tick", Error::Cancelled);
        assert_eq!(e.kind, ErrorKind::Cancelled);
        assert_eq!(e.cause, Caveat::Cancelled);
    }

    #[test]
    fn empty_report_round_trips() {
        let r = Report::new(Environment::default());
        assert_eq!(Report::from_json(&r.to_json().unwrap()).unwrap(), r);
        // Saved again by an editor that writes a byte-order mark.
        let marked = format!("\u{feff}{}", r.to_json().unwrap());
        assert_eq!(Report::from_json(&marked).unwrap(), r);
    }
}
