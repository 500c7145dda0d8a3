//! What each browser documents for performance.now: the clamp of a context (cross-origin
//! isolated or not) and where the figure comes from. The page holds its clocks against
//! these, and the atlas holds each cell's measured ticks against the same figures.

/// The browser family, for the resolutions each documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Browser {
    /// Chrome, Chromium, Edge, Opera...
    Chromium,
    /// Firefox.
    Firefox,
    /// Safari.
    Safari,
    /// Anything else.
    Other,
}

/// Reads the family from a user agent string.
pub fn browser(user_agent: &str) -> Browser {
    if user_agent.contains("Firefox/") {
        Browser::Firefox
    } else if user_agent.contains("Chrome/") || user_agent.contains("Chromium/") {
        Browser::Chromium
    } else if user_agent.contains("Safari/") {
        Browser::Safari
    } else {
        Browser::Other
    }
}

/// The resolution this browser documents for performance.now in this context, in ns, and
/// where that figure comes from.
/// Every clock on performance.now's timeline (Event.timeStamp, requestAnimationFrame's time
/// stamps, the animation timeline) is coarsened by the same code, so shares this figure.
pub fn documented_clamp(b: Browser, isolated: bool) -> Option<(f64, &'static str)> {
    match (b, isolated) {
        (Browser::Chromium, false) => Some((
            100_000.0,
            "Chromium: 100 µs, jittered, not cross-origin isolated, per Blink's time_clamper.h",
        )),
        (Browser::Chromium, true) => Some((
            5_000.0,
            "Chromium: 5 µs, jittered, cross-origin isolated, per Blink's time_clamper.h",
        )),
        (Browser::Firefox, false) => Some((
            1_000_000.0,
            "Firefox: 1 ms, jittered, not cross-origin isolated, per nsRFPService.cpp",
        )),
        (Browser::Firefox, true) => Some((
            20_000.0,
            "Firefox: 20 µs, cross-origin isolated, per nsRFPService.cpp",
        )),
        (Browser::Safari, false) => Some((
            1_000_000.0,
            "Safari: 1 ms, not cross-origin isolated, per WebCore's Performance.cpp",
        )),
        (Browser::Safari, true) => Some((
            20_000.0,
            "Safari: 20 µs, cross-origin isolated, per WebCore's Performance.cpp",
        )),
        (Browser::Other, _) => None,
    }
}

/// Firefox's clamp under privacy.resistFingerprinting: a 60th of a second.
pub const RESIST_FINGERPRINTING_NS: f64 = 50_000_000.0 / 3.0;
const RESIST_FINGERPRINTING: &str =
    "Firefox with privacy.resistFingerprinting: 16.67 ms, per nsRFPService.cpp";

/// The figure a clock coarsened as performance.now is should be held against: the
/// documented clamp of the context, or, in a Firefox whose clock measured a 60th of a
/// second, resistFingerprinting's (a page cannot read the setting; its tick tells).
pub fn applicable_clamp(
    b: Browser,
    isolated: bool,
    measured_ns: Option<f64>,
) -> Option<(f64, &'static str)> {
    match (b, measured_ns) {
        (Browser::Firefox, Some(t)) if (t / RESIST_FINGERPRINTING_NS - 1.0).abs() < 0.01 => {
            Some((RESIST_FINGERPRINTING_NS, RESIST_FINGERPRINTING))
        }
        _ => documented_clamp(b, isolated),
    }
}
