//! The page's first answer: how finely performance.now ticks in this browser, measured in
//! a worker of its own as soon as the page loads, and said against what the browser
//! documents for it. A module of its own, small enough to arrive first on a phone's network;
//! the full lab (`ticklab-www`) loads after it and takes the browsers' claims and the
//! performance.now clock from here, so both say the same.

use ticklab::clock::{ClockInfo, ClockKind, CountPeriod};
use ticklab::present;
use ticklab::report::{ClockReport, ExperimentError};
use ticklab::run::{Budget, Flow, Progress, Run, Stopwatch};
use ticklab::tick::{self, TickOptions};
use ticklab::Clock;

#[cfg(target_arch = "wasm32")]
pub mod web;

// Both of the page's modules link this crate, so both allocate with Talc: it weighs less in
// wasm than the standard library's dlmalloc, which every visitor downloads twice.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

pub use ticklab::claims::{
    applicable_clamp, browser, documented_clamp, Browser, RESIST_FINGERPRINTING_NS,
};

/// Holds `report`'s tick against the clamp that applies, when its claim was the documented
/// clamp of this context: the same clock, its verdict against the right figure.
pub fn hold_against_applicable(report: &mut ClockReport, b: Browser, isolated: bool) {
    let Some((_, documented)) = documented_clamp(b, isolated) else {
        return;
    };
    if report.info.claimed.as_ref().map(|c| c.source.as_str()) != Some(documented) {
        return;
    }
    let Some(t) = &mut report.tick else {
        return;
    };
    if let Some((ns, source)) = applicable_clamp(b, isolated, t.tick_ns) {
        if source != documented {
            report.info = report.info.clone().with_claim(ns, source);
            t.hold_against(ns);
        }
    }
}

/// What cross-origin isolation means for this page in browser `b`, isolated or not, with
/// SharedArrayBuffer or without (WebKitGTK isolates a page and still gives it none).
pub fn isolation_note(b: Browser, isolated: bool, shared_memory: bool, secure: bool) -> String {
    let figure = |iso: bool| documented_clamp(b, iso).map(|(ns, _)| present::duration(ns));
    let coarsened = match (figure(isolated), figure(!isolated)) {
        (Some(here), Some(there)) if isolated => format!(
            "performance.now is coarsened less: this browser documents {here} (without \
             isolation {there})"
        ),
        (Some(here), Some(there)) => format!(
            "performance.now is coarsened to {here} in this browser ({there} when isolated)"
        ),
        _ if isolated => "performance.now may be coarsened less".into(),
        _ => "performance.now is coarsened more than it would be isolated".into(),
    };
    if !secure && !isolated {
        return format!(
            "{NOT_SECURE}: browsers give it no cross-origin isolation, no SharedArrayBuffer, \
             no service worker (so no offline copy) and no AudioWorklet, and {coarsened}. \
             Opened on the serving machine itself (localhost) or over https, it gets them."
        );
    }
    match (isolated, shared_memory) {
        (true, true) => format!(
            "This page is cross-origin isolated: {coarsened}, and SharedArrayBuffer works, so \
             a shared counter clock is available."
        ),
        (true, false) => format!(
            "This page is cross-origin isolated, yet this browser gives it no \
             SharedArrayBuffer: {coarsened}, but there is no shared counter clock."
        ),
        (false, _) => format!(
            "This page is not cross-origin isolated: {coarsened}, and there is no \
             SharedArrayBuffer. Served with the COOP and COEP headers (ticklab serve does \
             this), or through this page's service worker, it is."
        ),
    }
}

/// Why a page reached over plain http lacks what only secure contexts get.
pub const NOT_SECURE: &str = "This page came over plain http from another machine, so it is \
                              not a secure context";

/// How a page's millisecond clock becomes the core's counts.
pub const ROUNDING: &str =
    "count = round(ms × 1e6): one count is 1 ns; exact for whole-ns ticks below 2^52 ns";

/// A page clock read in milliseconds, counted in ns.
pub fn ns_clock(name: &str, kind: ClockKind, description: &str) -> ClockInfo {
    ClockInfo::new(name, kind, CountPeriod::NANOSECOND)
        .with_description(description)
        .with_mapping(ROUNDING)
}

/// performance.now in a worker, with what this browser documents for it in this context.
pub fn worker_now_info(user_agent: &str, isolated: bool) -> ClockInfo {
    let info = ns_clock(
        ticklab::digest::PAGE_NOW,
        ClockKind::Monotonic,
        "High-resolution time in the lab's worker, coarsened by the browser",
    );
    match documented_clamp(browser(user_agent), isolated) {
        Some((ns, src)) => info.with_claim(ns, src),
        None => info,
    }
}

/// The headline's tick experiment: a short first look (pass 0), then a longer one that
/// refines it while the visitor reads.
pub fn headline_options(pass: u32) -> TickOptions {
    let time_s = if pass == 0 { 0.2 } else { 1.5 };
    TickOptions::new(
        Budget::new(time_s, 20_000).unwrap_or_else(|_| unreachable!("a valid budget (tested)")),
    )
}

/// The tick of `clock` for the headline, kept by `stopwatch`: a report with the tick or the
/// reason there is none.
pub fn measure(clock: &mut dyn Clock, stopwatch: &mut dyn Stopwatch, pass: u32) -> ClockReport {
    let mut report = ClockReport::new(clock.info().clone());
    let mut go_on = |_: &Progress<'_>| Flow::Continue;
    let mut run = Run::new(stopwatch, &mut go_on);
    match tick::measure(clock, &mut run, &headline_options(pass)) {
        Ok(t) => report.tick = Some(t),
        Err(e) => report.errors.push(ExperimentError::new("tick", e)),
    }
    report
}

/// The page's first answer: what performance.now resolves here, in words.
#[derive(Clone, Debug, PartialEq)]
pub struct Headline {
    /// The measured tick in ns, once there is one.
    pub tick_ns: Option<f64>,
    /// The tick ("100.000 µs", "≤ 1.000 ms").
    pub tick: String,
    /// The tick against this browser's documented figure for this context.
    pub verdict: String,
    /// What cross-origin isolation changes here.
    pub isolation: String,
}

/// The headline for performance.now's `report`, in a page of `user_agent`, isolated or not,
/// a secure context or not.
pub fn headline(report: &ClockReport, user_agent: &str, isolated: bool, secure: bool) -> Headline {
    let b = browser(user_agent);
    let mut report = report.clone();
    hold_against_applicable(&mut report, b, isolated);
    let report = &report;
    let here = applicable_clamp(b, isolated, report.tick.as_ref().and_then(|t| t.tick_ns));
    let there = documented_clamp(b, !isolated);
    let tick = present::tick(report, &[]);
    let verdict = match (&report.tick, here) {
        (Some(t), Some((_, source))) => {
            format!("{} ({source})", present::verdict_label(t.verdict))
        }
        (Some(_), None) => "this browser documents no figure to hold it against".into(),
        (None, _) => present::failed_briefly(report),
    };
    let isolation = match (isolated, there) {
        (false, Some((ns, _))) if !secure => format!(
            "{NOT_SECURE}, and no browser isolates such a page (isolated, this browser \
             documents {}).",
            present::duration(ns)
        ),
        (false, Some((ns, _))) => format!(
            "Cross-origin isolated, this browser documents {} instead: reload isolated to see \
             it.",
            present::duration(ns)
        ),
        (true, Some((ns, _))) => format!(
            "This page is cross-origin isolated; without isolation this browser documents {}.",
            present::duration(ns)
        ),
        (_, None) => String::new(),
    };
    Headline {
        tick_ns: report.tick.as_ref().and_then(|t| t.told_ns()),
        tick,
        verdict,
        isolation,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ticklab::synthetic::{Clamp, ClampStyle, SimTime, Timeline};

    const CHROME: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                          Chrome/141.0.0.0 Safari/537.36";
    const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0";

    #[test]
    fn browsers_and_their_clamps() {
        assert_eq!(browser(CHROME), Browser::Chromium);
        assert_eq!(browser(FIREFOX), Browser::Firefox);
        assert_eq!(browser("Version/17.0 Safari/605.1.15"), Browser::Safari);
        assert_eq!(
            documented_clamp(Browser::Chromium, true).unwrap().0,
            5_000.0
        );
        assert_eq!(documented_clamp(Browser::Firefox, false).unwrap().0, 1e6);
        assert!(documented_clamp(Browser::Other, false).is_none());
        let claim = |ua| worker_now_info(ua, true).claimed.map(|c| c.ns);
        assert_eq!(claim(FIREFOX), Some(20_000.0));
        assert_eq!(claim("curl/8"), None);
    }

    #[test]
    fn the_headline_says_what_isolation_changes() {
        for pass in [0, 1] {
            assert!(headline_options(pass).budget.time_s > 0.0);
        }
        let r = ClockReport::new(worker_now_info(FIREFOX, false));
        let h = headline(&r, FIREFOX, false, true);
        assert_eq!(h.tick, present::DASH);
        assert_eq!(h.tick_ns, None);
        assert!(h.isolation.contains("20.000 µs"), "{}", h.isolation);
        let h = headline(&r, FIREFOX, true, true);
        assert!(h.isolation.contains("1.000 ms"), "{}", h.isolation);
        assert!(headline(&r, "curl/8", false, true).isolation.is_empty());
    }

    const SAFARI: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like \
                          Gecko) Version/18.0 Safari/605.1.15";

    #[test]
    fn safari_documents_20_us_isolated_and_1_ms_not() {
        assert_eq!(browser(SAFARI), Browser::Safari);
        assert_eq!(documented_clamp(Browser::Safari, true).unwrap().0, 20_000.0);
        assert_eq!(documented_clamp(Browser::Safari, false).unwrap().0, 1e6);
        let r = ClockReport::new(worker_now_info(SAFARI, true));
        assert!(headline(&r, SAFARI, true, true)
            .isolation
            .contains("1.000 ms"));
    }

    /// Each sentence is true where it is shown: isolation without SharedArrayBuffer is said
    /// as such, and each browser's own figures are named.
    #[test]
    fn the_isolation_note_names_this_browsers_figures_and_shared_memory() {
        let n = isolation_note(Browser::Safari, true, false, true);
        assert!(n.contains("no SharedArrayBuffer"), "{n}");
        assert!(!n.contains("SharedArrayBuffer works"), "{n}");
        assert!(n.contains("20.000 µs") && n.contains("1.000 ms"), "{n}");
        let n = isolation_note(Browser::Chromium, true, true, true);
        assert!(
            n.contains("SharedArrayBuffer works") && n.contains("5.000 µs"),
            "{n}"
        );
        let n = isolation_note(Browser::Firefox, false, false, true);
        assert!(
            n.contains("not cross-origin isolated") && n.contains("1.000 ms"),
            "{n}"
        );
        assert!(n.contains("20.000 µs") && !n.contains("100"), "{n}");
        let n = isolation_note(Browser::Other, false, false, true);
        assert!(!n.contains("µs") && !n.contains(" ms"), "{n}");
        // Over plain http from another machine: the cause, not a missing feature.
        let n = isolation_note(Browser::Chromium, false, false, false);
        assert!(
            n.contains("not a secure context") && n.contains("AudioWorklet"),
            "{n}"
        );
        assert!(
            n.contains("100.000 µs") && !n.contains("service worker, it is"),
            "{n}"
        );
        let r = ClockReport::new(worker_now_info(CHROME, false));
        let h = headline(&r, CHROME, false, false);
        assert!(
            h.isolation.contains("not a secure context"),
            "{}",
            h.isolation
        );
        assert!(!h.isolation.contains("reload"), "{}", h.isolation);
    }

    /// A 100 µs clamp laid over simulated time, as Chromium coarsens performance.now: the
    /// headline finds 100 µs and holds it against Chromium's documented figure.
    #[test]
    fn a_clamped_clock_gets_its_tick_and_the_verdict() {
        let tl = Timeline::new(1_000_000_000_000);
        let time = SimTime::new(&tl, 25_000, 5_000, 7);
        let mut now = Clamp::new(time, ClampStyle::Chromium, 100_000, 7).unwrap();
        *now.info_mut() = worker_now_info(CHROME, false);
        let mut stopwatch = tl.stopwatch();
        let r = measure(&mut now, &mut stopwatch, 0);
        let h = headline(&r, CHROME, false, true);
        assert_eq!(h.tick_ns, Some(100_000.0), "{h:?}");
        assert_eq!(h.tick, "100.000 µs");
        assert!(
            h.verdict.starts_with("matches the claim (Chromium: 100 µs"),
            "{}",
            h.verdict
        );
    }

    /// A Firefox with privacy.resistFingerprinting clamps to a 60th of a second: the tick
    /// tells, and the verdict holds it against that figure, not the 1 ms of the context.
    #[test]
    fn resist_fingerprinting_is_told_by_its_tick() {
        let tl = Timeline::new(1_000_000_000_000);
        let time = SimTime::new(&tl, 25_000, 5_000, 7);
        let mut now = Clamp::new(time, ClampStyle::Firefox, 16_666_667, 7).unwrap();
        *now.info_mut() = worker_now_info(FIREFOX, false);
        let mut stopwatch = tl.stopwatch();
        let r = measure(&mut now, &mut stopwatch, 1);
        let h = headline(&r, FIREFOX, false, true);
        assert!(
            h.verdict
                .starts_with("matches the claim (Firefox with privacy.resistFingerprinting"),
            "{h:?}"
        );
        // Only a clock claimed with the documented clamp is held against another.
        let mut other = r.clone();
        other.info = other.info.clone().with_claim(4e6, "its own");
        hold_against_applicable(&mut other, Browser::Firefox, false);
        assert_eq!(other.info.claimed.unwrap().ns, 4e6);
        // A 1 ms tick stays against the documented 1 ms.
        assert_eq!(
            applicable_clamp(Browser::Firefox, false, Some(1e6)),
            documented_clamp(Browser::Firefox, false)
        );
        assert_eq!(
            applicable_clamp(Browser::Chromium, false, Some(RESIST_FINGERPRINTING_NS)),
            documented_clamp(Browser::Chromium, false)
        );
    }
}
