//! One machine's clocks beside its browsers': the native report and a report per engine and
//! context (cross-origin isolated or not), with the engines that could not run and why.
//! `ticklab browsers` writes it; `ticklab show` reads it; its table is the digests' pivot.

use serde::{Deserialize, Serialize};

use crate::caveat::Caveat;
use crate::digest::PAGE_NOW;
use crate::error::{Error, ErrorKind, Result};
use crate::report::{Report, Version, MAX_REPORT_BYTES};
use crate::tick::Verdict;

/// The version of the comparison's format this crate writes and reads.
pub const COMPARISON_VERSION: u32 = 1;
/// The most runs a comparison may hold: every engine in both contexts, and more.
pub const MAX_RUNS: usize = 32;
/// The largest comparison read: a few reports' worth.
pub const MAX_COMPARISON_BYTES: usize = 4 * MAX_REPORT_BYTES;

/// Reports of one machine side by side: its native clocks and its browsers'.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Marks the document as a comparison, and its format's version.
    pub ticklab_comparison: u32,
    /// The runs: the machine's own first, then each engine's, isolated before not.
    pub runs: Vec<EngineRun>,
}

/// One column of a comparison: a run of the lab, or why there is none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineRun {
    /// "native", or the engine: "Chromium", "Firefox", "WebKit", "Edge", "Safari".
    pub engine: String,
    /// The engine's version, as its WebDriver server gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Whether the page was to be cross-origin isolated (none for the native run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolated: Option<bool>,
    /// Seconds the run took, a browser's start included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// The report, when the run ended with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<Report>,
    /// Why there is no report: a missing engine, a failed run, Ctrl-C.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// What to install, when the engine is missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The page's runs made for this column, when more than one: the browser starved the
    /// lab's worker in those before the last ([`page_clock_starved`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
}

/// Whether a page's report says its worker's performance.now had too little to tell: the
/// browser starved the worker (WebKit's, beside two busy loops on two cores, once read it
/// 8 times in 0.2 s), so its tick is "too busy to tell" or rests on too few edges. Such a
/// run says so; a comparison runs its column again rather than set it beside the others.
/// A tick experiment refused because a read took too long or its budget ran out is starved
/// too, and so is one that saw no edge in fewer reads than the experiment needs (WebKit's
/// worker, beside the test command's builds, read performance.now once in 0.124 s: no
/// frozen clock, a reader that hardly ran). A worker's performance.now costs well under a
/// microsecond when it runs.
pub fn page_clock_starved(report: &Report) -> bool {
    report
        .clocks
        .iter()
        .filter(|c| c.info.name == PAGE_NOW)
        .any(|c| {
            c.tick.as_ref().is_some_and(|t| {
                t.verdict == Verdict::TooBusy
                    || t.caveats
                        .iter()
                        .any(|k| matches!(k, Caveat::FewEdges { .. } | Caveat::TooBusy { .. }))
            }) || c.errors.iter().any(|e| {
                e.experiment == "tick"
                    && (matches!(e.kind, ErrorKind::TooSlow | ErrorKind::BudgetExhausted)
                        || matches!(e.cause, Caveat::Frozen { reads, .. }
                            if reads < u64::from(crate::tick::MIN_READS)))
            })
        })
}

impl Comparison {
    /// A comparison of `runs`.
    pub fn new(runs: Vec<EngineRun>) -> Self {
        Self {
            ticklab_comparison: COMPARISON_VERSION,
            runs,
        }
    }

    /// Whether JSON `text` is a comparison rather than a report (it names its format).
    pub fn is_one(text: &str) -> bool {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        serde_json::from_str::<serde_json::Value>(text)
            .is_ok_and(|v| v.get("ticklab_comparison").is_some())
    }

    /// Reads a comparison, refusing anything too large, malformed, of another format
    /// version, or holding a report of a schema this crate does not read.
    pub fn from_json(text: &str) -> Result<Self> {
        Self::check_size(text.len())?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| Error::Report(format!("not JSON: {e}")))?;
        Self::check_format(Version::of(value.get("ticklab_comparison")))?;
        let runs = value.get("runs").and_then(serde_json::Value::as_array);
        Self::check_runs(runs.map_or(0, Vec::len))?;
        for report in runs.into_iter().flatten().filter_map(|r| r.get("report")) {
            Report::check_version(Version::of(report.get("schema_version")))?;
        }
        serde_json::from_value(value)
            .map_err(|e| Error::Report(format!("malformed comparison: {e}")))
    }

    /// Refuses a comparison text of more than [`MAX_COMPARISON_BYTES`] bytes.
    pub fn check_size(bytes: usize) -> Result<()> {
        if bytes > MAX_COMPARISON_BYTES {
            return Err(Error::Report(format!(
                "{bytes} bytes is larger than the {} MiB a comparison may be",
                MAX_COMPARISON_BYTES >> 20
            )));
        }
        Ok(())
    }

    /// Refuses a document whose `ticklab_comparison` is missing or not this crate's
    /// format. The page reads the field with the browser's JSON parser; the command, here.
    pub fn check_format(version: Version) -> Result<()> {
        match version {
            Version::Missing => Err(Error::Report("this is not a ticklab comparison".into())),
            Version::Whole(v) if v == COMPARISON_VERSION as u64 => Ok(()),
            Version::Whole(v) => Err(Error::Report(format!(
                "a comparison of format {v}; this ticklab reads format {COMPARISON_VERSION}"
            ))),
            Version::NotWhole => Err(Error::Report(format!(
                "a comparison of format (not a whole number); this ticklab reads format {COMPARISON_VERSION}"
            ))),
        }
    }

    /// Refuses a comparison of more than [`MAX_RUNS`] runs.
    pub fn check_runs(runs: usize) -> Result<()> {
        if runs > MAX_RUNS {
            return Err(Error::Report(format!(
                "a comparison holds at most {MAX_RUNS} runs"
            )));
        }
        Ok(())
    }

    /// As JSON.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string(self).map_err(|e| Error::Report(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(engine: &str, isolated: Option<bool>, report: Option<Report>) -> EngineRun {
        EngineRun {
            engine: engine.into(),
            version: None,
            isolated,
            seconds: None,
            failure: report.is_none().then(|| "not found".into()),
            report,
            hint: None,
            attempts: None,
        }
    }

    #[test]
    fn a_comparison_reads_back_and_refuses_what_is_not_one() {
        let c = Comparison::new(vec![
            run("native", None, Some(Report::new(Default::default()))),
            run("WebKit", Some(true), None),
        ]);
        let text = c.to_json().unwrap();
        assert!(Comparison::is_one(&text));
        assert_eq!(Comparison::from_json(&text).unwrap(), c);
        let report = Report::new(Default::default()).to_json().unwrap();
        assert!(!Comparison::is_one(&report));
        assert!(Comparison::from_json(&report).is_err());
        let newer = text.replace("\"ticklab_comparison\":1", "\"ticklab_comparison\":2");
        let e = Comparison::from_json(&newer).unwrap_err().to_string();
        assert!(e.contains("format 2"), "{e}");
        let old_report = text.replace(
            &format!("\"schema_version\":{}", crate::report::SCHEMA_VERSION),
            "\"schema_version\":999",
        );
        assert!(Comparison::from_json(&old_report).is_err());
        assert_eq!(c.measured().len(), 1);
        assert_eq!(c.runs[1].heading(), "WebKit isolated");
    }

    #[test]
    fn a_worker_whose_reads_took_too_long_was_starved_and_one_that_failed_otherwise_was_not() {
        use crate::clock::{ClockInfo, ClockKind, CountPeriod};
        use crate::report::{ClockReport, ExperimentError};
        let with = |name: &str, e: Option<Error>| {
            let mut r = Report::new(Default::default());
            let mut c = ClockReport::new(ClockInfo::new(
                name,
                ClockKind::Monotonic,
                CountPeriod::NANOSECOND,
            ));
            c.errors.extend(e.map(|e| ExperimentError::new("tick", e)));
            r.clocks.push(c);
            r
        };
        let slow = || Error::TooSlow {
            clock: PAGE_NOW.into(),
            experiment: "tick",
            read_s: 0.2,
            budget_s: 0.1,
            min_reads: 64,
        };
        assert!(page_clock_starved(&with(PAGE_NOW, Some(slow()))));
        let frozen = |reads| Error::Frozen {
            clock: PAGE_NOW.into(),
            elapsed_s: 0.124,
            reads,
        };
        assert!(page_clock_starved(&with(PAGE_NOW, Some(frozen(1)))));
        // Frozen over many reads is a frozen clock, not a starved reader.
        assert!(!page_clock_starved(&with(PAGE_NOW, Some(frozen(100_000)))));
        // Another clock's slowness, a worker measured, or one that failed another way: not.
        assert!(!page_clock_starved(&with("performance.now", Some(slow()))));
        assert!(!page_clock_starved(&with(PAGE_NOW, None)));
        let cancelled = with(PAGE_NOW, Some(Error::Cancelled));
        assert!(!page_clock_starved(&cancelled));
    }
}
