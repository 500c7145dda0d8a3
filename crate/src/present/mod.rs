//! Results in words and numbers for people: the one place both front ends take them from.
//!
//! Durations with their unit, the verdict and method labels, every caveat and note of a
//! clock, the summary row and the sentences under the plots. The command prints these, the
//! CSV export names verdicts with [`verdict_key`], and the page shows what its wasm module
//! hands over from here: JavaScript formats nothing.

use serde::Serialize;

use crate::caveat::Caveat;
use crate::clock::ClockKind;
use crate::cpu_wall::CpuWall;
use crate::error::ErrorKind;
use crate::overhead::OverheadResult;
use crate::ranking::Ranking;
use crate::report::{ClockReport, CounterFrequency, Environment, Report};
use crate::tick::{EdgeGrid, Grid, Method, TickEstimate, TickResult, Verdict};

pub mod analysis;
mod caveat;
mod clock;
mod digests;
mod error;
mod labels;
mod run;
mod tables;
mod units;
pub use caveat::caveat;
#[cfg(test)]
pub(crate) use caveat::unsaid;
pub use clock::*;
pub use digests::*;
pub use labels::*;
pub use run::*;
pub use tables::*;

/// What stands where a figure cannot be given; a note says why.
pub const DASH: &str = "-";

/// The unit a duration of `ns` reads best in, and its length in ns.
pub fn unit_of(ns: f64) -> (f64, &'static str) {
    match ns.abs() {
        a if a >= 1e9 => (1e9, "s"),
        a if a >= 1e6 => (1e6, "ms"),
        a if a >= 1e3 => (1e3, "µs"),
        _ => (1.0, "ns"),
    }
}

/// A duration in a readable unit: "41.67 ns", "0.4089 ns", "100.000 µs", "4.000 ms",
/// "1.000 s"; the dash for a value that is not finite.
pub fn duration(ns: f64) -> String {
    if !ns.is_finite() {
        return DASH.into();
    }
    match unit_of(ns) {
        (_, "ns") if ns.abs() >= 1.0 || ns == 0.0 => format!("{ns:.2} ns"),
        (_, "ns") => format!("{ns:.4} ns"),
        (scale, name) => format!("{:.3} {name}", ns / scale),
    }
}

/// `x` and its uncertainty `e` written to the same place, `e` with two significant digits:
/// ("10.0148", "0.0003").
pub fn to_digits(x: f64, e: f64) -> (String, String) {
    let places = (1 - e.log10().floor() as i32).clamp(0, 12) as usize;
    (format!("{x:.places$}"), format!("{e:.places$}"))
}

/// A duration and its uncertainty in a readable unit, to the digits the uncertainty allows:
/// ("10.0148", "0.0003", "ns").
pub fn duration_digits(ns: f64, e_ns: f64) -> (String, String, &'static str) {
    let (scale, name) = unit_of(ns);
    let (x, e) = to_digits(ns / scale, e_ns / scale);
    (x, e, name)
}

/// [`duration`], or the dash when there is none.
pub fn opt_duration(ns: Option<f64>) -> String {
    ns.map_or(DASH.into(), duration)
}

/// Counts of a clock whose count has no known length: "26 counts", "24.5000 counts".
pub fn counts(x: f64) -> String {
    if !x.is_finite() {
        DASH.into()
    } else if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0} counts")
    } else if x.abs() >= 1e4 {
        format!("{x:.1} counts")
    } else {
        format!("{x:.4} counts")
    }
}

/// `counts` of a clock as a duration when each lasts `ns_per_count`, else in counts.
pub fn counts_or_duration(x: f64, ns_per_count: Option<f64>) -> String {
    match ns_per_count.filter(|p| p.is_finite()) {
        Some(p) => duration(x * p),
        None => counts(x),
    }
}

/// A share as a percentage: "97.5%".
pub fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// A whole number of ticks: "0 ticks", "1 tick", "12 ticks".
pub fn ticks(k: f64) -> String {
    if k == 1.0 {
        "1 tick".into()
    } else {
        format!("{k:.0} ticks")
    }
}

#[cfg(test)]
mod tests {
    use super::run::times;
    #[test]
    fn the_crossing_is_told_only_from_enough_blocks() {
        let mut r = ClockReport::new(crate::clock::ClockInfo::new(
            "performance.now",
            crate::clock::ClockKind::Monotonic,
            crate::clock::CountPeriod::NANOSECOND,
        ));
        r.overhead = Some(OverheadResult {
            per_read_counts: 64.0,
            per_read_ns: Some(64.0),
            block_reads: 4096,
            rule_met: true,
            block_error_bound: 0.01,
            blocks: 20,
            distribution: crate::stats::Summary::of(&[64.0]).unwrap(),
            samples: vec![],
            min_block_counts: 1e4,
            min_block_ns: Some(1e4),
            elapsed_s: 0.1,
            stop: crate::run::Stop::Time,
            caveats: vec![],
            pace: None,
            doubling: vec![],
            unusable: None,
            gaps: Default::default(),
            own_per_read_counts: Some(48.0),
            own_per_read_ns: Some(48.0),
        });
        let o = r.overhead.as_mut().unwrap();
        assert!(
            crossing(o)
                .unwrap()
                .contains("costs 16.00 ns a read (1.33×"),
            "{:?}",
            crossing(o)
        );
        o.blocks = 2;
        assert!(
            crossing(o).unwrap().contains("not told: 2 blocks"),
            "{:?}",
            crossing(o)
        );
        assert_eq!(read_cost(&r), "48.00 ns (wasm 64.00 ns)");
    }

    #[test]
    fn an_interruption_in_words_and_an_older_reports_sentence() {
        let mut r = Report::new(Default::default());
        assert_eq!(interrupted(&r), None);
        r.interruption = Some(crate::report::Interruption {
            clock: "rdtsc".into(),
            during: true,
            measured: 3,
            total: 9,
        });
        assert_eq!(
            interrupted(&r).unwrap(),
            "interrupted (Ctrl-C) during rdtsc, which is kept in part: 3 of 9 clocks measured"
        );
        let mut old = Report::new(Default::default());
        old.interrupted = Some("interrupted (Ctrl-C) before gettimeofday: 2 of 9".into());
        assert_eq!(interrupted(&old), old.interrupted);
    }

    #[test]
    fn a_ranking_in_words() {
        use crate::ranking::{Ranking, Step};
        let s = |name: &str, ns: f64, cadence: bool| Step {
            name: name.into(),
            ns,
            cadence,
        };
        let now = "performance.now";
        let r = Ranking::of(
            vec![
                s("rAF", 16.8e6, true),
                s(now, 100_000.0, false),
                s("MessageChannel", 8_000.0, false),
            ],
            now,
            now,
        )
        .unwrap();
        let words = ranking(&r, "this page built");
        assert!(
            words.starts_with(
                "Finest clock this page built: MessageChannel, 8.000 µs: 13× finer than \
                 performance.now (100.000 µs). All, finest first: MessageChannel 8.000 µs"
            ),
            "{words}"
        );
        assert!(words.contains("rAF 16.800 ms (its updates)"), "{words}");
        let r = Ranking::of(
            vec![s("rAF", 16.8e6, true), s(now, 100_000.0, false)],
            now,
            now,
        );
        let words = ranking(&r.unwrap(), "this page built");
        assert!(
            words.contains("no clock this page built is finer than performance.now"),
            "{words}"
        );
        let r = Ranking::of(vec![s("rdtsc", 0.385, false)], "Instant", "Instant").unwrap();
        let words = ranking(&r, "this machine has");
        assert!(
            words.contains("rdtsc, 0.3850 ns: Instant was not measured"),
            "{words}"
        );
        assert_eq!(times(1234.4), "1\u{2009}234×");
        assert_eq!(times(1.84), "1.8×");
    }

    use super::*;
    use crate::clock::{ClockInfo, CountPeriod};

    #[test]
    fn a_hidden_page_is_said_from_its_flag_and_an_older_reports_words_kept() {
        let mut env = Environment::default();
        assert!(run_notes(&env).is_empty());
        env.hidden_during_run = Some(false);
        assert!(run_notes(&env).is_empty());
        env.hidden_during_run = Some(true);
        env.notes = vec!["an older report's note".into()];
        let lines = run_notes(&env);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].contains("hidden during the run"), "{lines:?}");
        assert_eq!(lines[1], "an older report's note");
    }

    #[test]
    fn each_front_end_gets_its_own_advice_and_the_notes_none() {
        let e = crate::Error::BudgetExhausted {
            experiment: "fit",
            why: Caveat::NoTwoSizes { budget_s: 0.1 },
        };
        let mut c = ClockReport::new(ClockInfo::new(
            "c",
            ClockKind::Synthetic,
            CountPeriod::Unknown,
        ));
        c.errors.push(crate::report::ExperimentError::new("fit", e));
        let command = failures_for(&c, Front::Command).join("");
        let page = failures_for(&c, Front::Page).join("");
        assert!(command.ends_with("(raise --time)"), "{command}");
        assert!(
            page.ends_with("(raise the time budgets in Settings)"),
            "{page}"
        );
        assert!(!page.contains("--"), "{page}");
        for n in notes(&c) {
            assert!(!n.contains("raise"), "{n}");
        }
        // A cancelled run is not helped by a longer budget.
        assert!(command.contains("fit failed: the time budget of 0.1 s ended before two"));
        assert_eq!(
            advice(ErrorKind::Cancelled, &Caveat::Cancelled, Front::Page),
            None
        );
        let few = Caveat::FewerThanTwoSizes;
        assert_eq!(
            advice(ErrorKind::NoData, &few, Front::Command),
            Some("widen --n")
        );
        assert_eq!(advice(ErrorKind::NoData, &few, Front::Page), None);
    }

    #[test]
    fn durations_take_their_unit() {
        assert_eq!(duration(41.666), "41.67 ns");
        assert_eq!(duration(0.40891), "0.4089 ns");
        assert_eq!(duration(100_000.0), "100.000 µs");
        assert_eq!(duration(4e6), "4.000 ms");
        assert_eq!(duration(1e9), "1.000 s");
        assert_eq!(duration(f64::NAN), DASH);
        assert_eq!(
            duration_digits(10.01479, 0.00031),
            ("10.01479".into(), "0.00031".into(), "ns")
        );
        assert_eq!(duration_digits(4.2e6, 3e3).2, "ms");
        assert_eq!(counts(26.0), "26 counts");
        assert_eq!(counts(24.5), "24.5000 counts");
    }

    #[test]
    fn half_counts_are_named_and_odd_fractions_are_not() {
        assert_eq!(whole_or_half(24.495).as_deref(), Some("24.5"));
        assert_eq!(whole_or_half(26.01).as_deref(), Some("26"));
        assert_eq!(whole_or_half(2445.4), None);
    }

    #[test]
    fn an_unavailable_clock_says_why_and_shows_dashes() {
        let c = ClockReport::unavailable(
            ClockInfo::new("x", ClockKind::Counter, CountPeriod::Unknown),
            "not an x86-64 CPU",
        );
        let r = SummaryRow::new(&c, &[]);
        assert_eq!(r.cell("tick"), "not available");
        assert_eq!(r.cell("read cost"), DASH);
        assert_eq!(r.notes, vec!["not available here: not an x86-64 CPU"]);
        assert_eq!(r.cells.len(), SUMMARY_COLUMNS.len());
    }
}
