//! The page's clocks: what each is, what the browser documents for it, and where it runs.
//! Pure data, so it is tested natively; `lib.rs` builds the clocks themselves.

use serde::{Deserialize, Serialize};
use ticklab::clock::{ClockInfo, ClockKind, CountPeriod};
pub use ticklab_first::{browser, documented_clamp, ns_clock, worker_now_info, Browser};

/// What the page knows of its context, sent by the JavaScript side.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct Context {
    /// navigator.userAgent.
    pub user_agent: String,
    /// self.crossOriginIsolated.
    pub isolated: bool,
    /// The AudioContext's sample rate, when one could be made.
    pub audio_sample_rate: Option<f64>,
    /// Whether a SharedArrayBuffer counter worker is running.
    pub shared_counter: bool,
    /// Whether the page has SharedArrayBuffer at all (an isolated WebKitGTK page has not).
    pub shared_memory: bool,
    /// Whether the page is not a secure context (`!self.isSecureContext`: plain http from
    /// another machine), which no browser isolates or gives an AudioWorklet.
    pub not_secure: bool,
    /// Whether the AudioContext was suspended when its clocks were sampled.
    pub audio_suspended: bool,
    /// The web APIs the page's implicit clocks are built on, as the page found them.
    pub apis: Apis,
}

/// Which of the APIs the implicit clocks need the page has (each a clock, or its reason).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct Apis {
    /// document.timeline (Web Animations).
    pub timeline: bool,
    /// CSS animations read back through getComputedStyle.
    pub css_animation: bool,
    /// AudioWorkletNode.
    pub audio_worklet: bool,
    /// PerformanceObserver with "event" entries (Event Timing).
    pub event_timing: bool,
}

/// Every clock of the page, by the stable identifier the page and its tests use
/// ("performance.now", "rAF"...). Building a clock matches on this, so a new clock cannot
/// be listed without being built. Written (serde) as [`ClockId::as_str`] says, the one
/// place the ids are spelled; the page's scripts and tests are held to it by a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClockId {
    /// performance.now in the lab's worker.
    PerformanceNow,
    /// Date.now.
    DateNow,
    /// performance.timeOrigin + performance.now().
    TimeOriginPlusNow,
    /// Event.timeStamp of a fresh Event.
    EventTimeStamp,
    /// the SharedArrayBuffer counter.
    SharedCounter,
    /// a 100 µs clamp over the shared counter.
    Clamp100usOverCounter,
    /// the interpolated 100 µs clamp.
    Interpolated100us,
    /// a 1 ms clamp over performance.now.
    Clamp1msOverNow,
    /// simulated Chromium clamp.
    SimChromium,
    /// simulated 24 MHz counter.
    Sim24Mhz,
    /// simulated jiffy clock.
    SimJiffy,
    /// performance.now on the main thread.
    PerformanceNowMain,
    /// requestAnimationFrame time stamps.
    Raf,
    /// AudioContext.currentTime.
    AudioCurrentTime,
    /// getOutputTimestamp().contextTime.
    AudioContextTime,
    /// getOutputTimestamp().performanceTime.
    AudioPerformanceTime,
    /// document.timeline.currentTime (Web Animations).
    Timeline,
    /// A CSS animation's progress read back through getComputedStyle.
    CssAnimation,
    /// An AudioWorklet's currentFrame, posted to the page at each render quantum.
    AudioWorkletFrame,
    /// Messages bounced between a MessageChannel's two ports, counted.
    MessageChannel,
    /// A chain of setTimeout(0) callbacks, counted.
    SetTimeoutChain,
    /// The durations Event Timing reports of the page's input events.
    EventTiming,
}

impl ClockId {
    /// Whether it is a clock of the page's AudioContext.
    pub fn is_audio(self) -> bool {
        matches!(
            self,
            ClockId::AudioCurrentTime
                | ClockId::AudioContextTime
                | ClockId::AudioPerformanceTime
                | ClockId::AudioWorkletFrame
        )
    }

    /// Every id, in the order the page runs them.
    pub const ALL: [ClockId; 22] = [
        ClockId::PerformanceNow,
        ClockId::DateNow,
        ClockId::TimeOriginPlusNow,
        ClockId::EventTimeStamp,
        ClockId::SharedCounter,
        ClockId::Clamp100usOverCounter,
        ClockId::Interpolated100us,
        ClockId::Clamp1msOverNow,
        ClockId::SimChromium,
        ClockId::Sim24Mhz,
        ClockId::SimJiffy,
        ClockId::PerformanceNowMain,
        ClockId::Raf,
        ClockId::AudioCurrentTime,
        ClockId::AudioContextTime,
        ClockId::AudioPerformanceTime,
        ClockId::Timeline,
        ClockId::CssAnimation,
        ClockId::AudioWorkletFrame,
        ClockId::MessageChannel,
        ClockId::SetTimeoutChain,
        ClockId::EventTiming,
    ];

    /// The identifier as the page writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            ClockId::PerformanceNow => "performance.now",
            ClockId::DateNow => "Date.now",
            ClockId::TimeOriginPlusNow => "timeOrigin+now",
            ClockId::EventTimeStamp => "Event.timeStamp",
            ClockId::SharedCounter => "shared-counter",
            ClockId::Clamp100usOverCounter => "clamp-100us-over-counter",
            ClockId::Interpolated100us => "interpolated-100us",
            ClockId::Clamp1msOverNow => "clamp-1ms-over-now",
            ClockId::SimChromium => "sim-chromium",
            ClockId::Sim24Mhz => "sim-24mhz",
            ClockId::SimJiffy => "sim-jiffy",
            ClockId::PerformanceNowMain => "performance.now-main",
            ClockId::Raf => "rAF",
            ClockId::AudioCurrentTime => "audio.currentTime",
            ClockId::AudioContextTime => "audio.contextTime",
            ClockId::AudioPerformanceTime => "audio.performanceTime",
            ClockId::Timeline => "timeline.currentTime",
            ClockId::CssAnimation => "css-animation",
            ClockId::AudioWorkletFrame => "audio-worklet.currentFrame",
            ClockId::MessageChannel => "message-channel",
            ClockId::SetTimeoutChain => "setTimeout-chain",
            ClockId::EventTiming => "event-timing",
        }
    }

    /// The id the page wrote, or a message naming it.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|id| id.as_str() == s)
            .ok_or_else(|| format!("no clock '{s}' in this page"))
    }
}

impl Serialize for ClockId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ClockId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        ClockId::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// Where a clock is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// Spun on in the lab's worker.
    Worker,
    /// Spun on in the page's main thread, briefly (the page is frozen meanwhile).
    Main,
    /// Read at moments the browser chooses (frames, tasks), on the main thread.
    Sampled,
    /// A count of events (messages, timeouts) kept by the page, its rate calibrated
    /// against performance.now.
    Counted,
}

/// One clock of the page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entry {
    /// Stable identifier the page uses.
    pub id: ClockId,
    /// Name, claim and so on.
    pub info: ClockInfo,
    /// Where it is read.
    pub place: Place,
    /// Whether it exists here.
    pub available: bool,
    /// Why not, when it does not.
    pub reason: Option<String>,
    /// Whether a fit runs on it by default (real clocks fine enough to time a loop).
    pub fit: bool,
    /// Whether a fit can run on it at all (simulated time does not see real work).
    pub can_fit: bool,
    /// For sampled clocks: counts (ns) per unit of the raw value (1e6 for ms, 1e9 for s).
    pub counts_per_unit: f64,
}

/// How a clock's values are read, decided once: the tick is found from them, and the
/// ranking reads the clock, as this says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadAs {
    /// Spun on, read at will.
    AtWill,
    /// Read at moments the browser chose (frames, tasks).
    AtItsMoments,
    /// A count of events.
    Counted,
    /// A set of durations (Event Timing's), not a series.
    Durations,
}

impl ReadAs {
    /// What the tick is found from.
    pub fn values(self) -> ticklab::tick::Values {
        use ticklab::tick::Values;
        match self {
            ReadAs::Durations => Values::Durations,
            ReadAs::Counted => Values::Counts,
            ReadAs::AtWill | ReadAs::AtItsMoments => Values::Readings,
        }
    }

    /// How a ranking reads the clock.
    pub fn reading(self) -> ticklab::ranking::Reading {
        use ticklab::ranking::Reading;
        match self {
            ReadAs::Durations => Reading::Durations,
            ReadAs::AtItsMoments => Reading::AtItsMoments,
            ReadAs::AtWill | ReadAs::Counted => Reading::AtWill,
        }
    }
}

impl Entry {
    /// How its values are read.
    pub fn read_as(&self) -> ReadAs {
        match (self.id, self.place) {
            (ClockId::EventTiming, _) => ReadAs::Durations,
            (_, Place::Counted) => ReadAs::Counted,
            (_, Place::Sampled) => ReadAs::AtItsMoments,
            (_, Place::Worker | Place::Main) => ReadAs::AtWill,
        }
    }
}

/// Every clock the page knows, available or not, in the order the page runs them.
pub fn entries(ctx: &Context) -> Vec<Entry> {
    let b = browser(&ctx.user_agent);
    let clamp = documented_clamp(b, ctx.isolated);
    let claim = |info: ClockInfo| match clamp {
        Some((ns, src)) => info.with_claim(ns, src),
        None => info,
    };
    let mut out = Vec::new();
    let mut push = |id, info, place, fit, can_fit, why: Option<String>, per_unit| {
        out.push(Entry {
            id,
            info,
            place,
            available: why.is_none(),
            reason: why,
            fit,
            can_fit,
            counts_per_unit: per_unit,
        })
    };
    let no_isolation = if !ctx.isolated && ctx.not_secure {
        Some(format!(
            "needs cross-origin isolation (SharedArrayBuffer): {}, which no browser isolates",
            ticklab_first::NOT_SECURE
        ))
    } else if !ctx.isolated {
        Some("needs cross-origin isolation (SharedArrayBuffer)".to_string())
    } else if !ctx.shared_memory {
        Some("this browser gives no SharedArrayBuffer, even cross-origin isolated".to_string())
    } else {
        None
    };
    let no_counter = no_isolation
        .clone()
        .or_else(|| (!ctx.shared_counter).then(|| "the counter worker did not start".to_string()));
    push(
        ClockId::PerformanceNow,
        worker_now_info(&ctx.user_agent, ctx.isolated),
        Place::Worker,
        true,
        true,
        None,
        1e6,
    );
    const EPOCH: &str = "count = round((ms − (first reading − 1 day)) × 1e6): one count is 1 ns; \
                         epoch ms × 1e6 would not fit a double's 53 bits";
    push(
        ClockId::DateNow,
        ns_clock(
            "Date.now",
            ClockKind::Wall,
            "Time of day in whole milliseconds; may be stepped",
        )
        .with_claim(1e6, "ECMAScript: integer milliseconds")
        .with_mapping(EPOCH)
        .non_monotonic(),
        Place::Worker,
        false,
        true,
        None,
        1e6,
    );
    push(
        ClockId::TimeOriginPlusNow,
        claim(
            ns_clock(
                "performance.timeOrigin + now()",
                ClockKind::Wall,
                "Epoch milliseconds as a float: at 1.7e12 ms one step of a double is 0.24 µs",
            )
            .with_mapping(EPOCH),
        ),
        Place::Worker,
        false,
        true,
        None,
        1e6,
    );
    push(
        ClockId::EventTimeStamp,
        claim(ns_clock(
            "Event.timeStamp",
            ClockKind::Monotonic,
            "The time stamp of a freshly made Event, on performance.now's timeline",
        )),
        Place::Worker,
        false,
        true,
        None,
        1e6,
    );
    push(
        ClockId::SharedCounter,
        ClockInfo::new(
            "SharedArrayBuffer counter",
            ClockKind::Counter,
            CountPeriod::Unknown,
        )
        .with_description(
            "A second worker increments a shared integer as fast as it can; the lab reads it \
             with Atomics.load. Its rate is calibrated against performance.now.",
        )
        .with_bits(32)
        .unwrap_or_else(|_| unreachable!("32 is a valid width")),
        Place::Worker,
        true,
        true,
        no_counter.clone(),
        1.0,
    );
    push(
        ClockId::Clamp100usOverCounter,
        ClockInfo::new(
            "100 µs clamp over the counter",
            ClockKind::Synthetic,
            CountPeriod::NANOSECOND,
        )
        .with_description(
            "The SharedArrayBuffer counter coarsened by ticklab the way Chromium coarsens \
                 performance.now: watch a fine clock become a 100 µs one",
        )
        .with_claim(100_000.0, "synthetic: its clamp")
        .with_base("SharedArrayBuffer counter"),
        Place::Worker,
        false,
        true,
        no_counter.clone(),
        1.0,
    );
    push(
        ClockId::Interpolated100us,
        ClockInfo::new(
            "interpolated 100 µs clamp",
            ClockKind::Synthetic,
            CountPeriod::Unknown,
        )
        .with_description(
            "A plain 100 µs clamp of the counter made fine again by counting reads to its next \
                 edge (Schwarz et al., Fantastic Timers): why browsers add jitter to their clamps",
        )
        .with_base("SharedArrayBuffer counter"),
        Place::Worker,
        false,
        true,
        no_counter,
        1.0,
    );
    push(
        ClockId::Clamp1msOverNow,
        ClockInfo::new(
            "1 ms clamp over performance.now",
            ClockKind::Synthetic,
            CountPeriod::NANOSECOND,
        )
        .with_description("performance.now floored to 1 ms by ticklab, as Firefox does by default")
        .with_claim(1e6, "synthetic: its clamp")
        .with_base(ticklab::digest::PAGE_NOW),
        Place::Worker,
        false,
        true,
        None,
        1.0,
    );
    for (id, name, description, claim_ns) in [
        (
            ClockId::SimChromium,
            "simulated Chromium 100 µs clamp",
            "Chromium's jittered 100 µs clamp over simulated time (25 ns per read)",
            100_000.0,
        ),
        (
            ClockId::Sim24Mhz,
            "simulated 24 MHz counter in ns",
            "A 24 MHz counter (41.67 ns) reported in rounded ns: every step is 41 or 42",
            125.0 / 3.0,
        ),
        (
            ClockId::SimJiffy,
            "simulated 4 ms jiffy clock",
            "A clock updated every 4 ms with up to 50 µs of jitter, like CLOCK_MONOTONIC_COARSE",
            4e6,
        ),
    ] {
        push(
            id,
            ClockInfo::new(name, ClockKind::Synthetic, CountPeriod::NANOSECOND)
                .with_description(description)
                .with_claim(claim_ns, "synthetic: its definition"),
            Place::Worker,
            false,
            false,
            None,
            1.0,
        );
    }
    push(
        ClockId::PerformanceNowMain,
        claim(ns_clock(
            "performance.now (main thread)",
            ClockKind::Monotonic,
            "High-resolution time on the page's own thread",
        )),
        Place::Main,
        false,
        // No fit: the page could not answer Cancel through one (the worker's is the same clock).
        false,
        None,
        1e6,
    );
    push(
        ClockId::Raf,
        claim(ns_clock(
            "requestAnimationFrame timestamp",
            ClockKind::Monotonic,
            "The time stamps handed to animation frame callbacks, one per frame",
        )),
        Place::Sampled,
        false,
        false,
        None,
        1e6,
    );
    let audio_claim = |info: ClockInfo| match ctx.audio_sample_rate {
        Some(sr) if sr.is_finite() && sr > 0.0 => info.with_claim(
            128.0 / sr * 1e9,
            format!("Web Audio: one render quantum, 128 frames at {sr} Hz"),
        ),
        _ => info,
    };
    let no_audio = ctx
        .audio_sample_rate
        .is_none()
        .then(|| "no AudioContext could be made in this page".to_string());
    for (id, name, description) in [
        (
            ClockId::AudioCurrentTime,
            "AudioContext.currentTime",
            "Seconds of audio rendered, read once per task",
        ),
        (
            ClockId::AudioContextTime,
            "AudioContext.getOutputTimestamp().contextTime",
            "The audio position at the output, read once per task",
        ),
    ] {
        push(
            id,
            audio_claim(
                ClockInfo::new(name, ClockKind::Monotonic, CountPeriod::NANOSECOND)
                    .with_description(description)
                    .with_mapping("count = round(s × 1e9): one count is 1 ns"),
            ),
            Place::Sampled,
            false,
            false,
            no_audio.clone(),
            1e9,
        );
    }
    push(
        ClockId::AudioPerformanceTime,
        claim(ns_clock(
            "AudioContext.getOutputTimestamp().performanceTime",
            ClockKind::Monotonic,
            "When the output position was current, on performance.now's timeline",
        )),
        Place::Sampled,
        false,
        false,
        no_audio.clone(),
        1e6,
    );
    implicit(ctx, &claim, &mut push, no_audio);
    out
}

/// The clocks a page builds from APIs that were never meant as clocks (Schwarz et al.,
/// "Fantastic Timers"; Rokicki et al., "SoK: In Search of Lost Time").
fn implicit(
    ctx: &Context,
    claim: &dyn Fn(ClockInfo) -> ClockInfo,
    push: &mut dyn FnMut(ClockId, ClockInfo, Place, bool, bool, Option<String>, f64),
    no_audio: Option<String>,
) {
    let lacks = |has: bool, what: &str| (!has).then(|| format!("this browser has no {what}"));
    push(
        ClockId::Timeline,
        claim(ns_clock(
            "document.timeline.currentTime",
            ClockKind::Monotonic,
            "Web Animations' document timeline: the time of the current frame, the same for \
             every read until the next",
        )),
        Place::Sampled,
        false,
        false,
        lacks(ctx.apis.timeline, "document.timeline (Web Animations)"),
        1e6,
    );
    push(
        ClockId::CssAnimation,
        claim(
            ns_clock(
                "CSS animation (computed text-indent)",
                ClockKind::Monotonic,
                "An empty element's text-indent animated linearly by 1 px a millisecond, read \
                 back with getComputedStyle: time as a style value",
            )
            .with_mapping("count = round(px × 1e6): one px is 1 ms"),
        ),
        Place::Sampled,
        false,
        false,
        lacks(
            ctx.apis.css_animation,
            "CSS animations read back by getComputedStyle",
        ),
        1e6,
    );
    // currentFrame counts sample frames: its period is the sample rate's, exactly.
    let frames = ctx
        .audio_sample_rate
        .filter(|sr| sr.fract() == 0.0 && *sr >= 1.0 && *sr <= 1e7)
        .and_then(|sr| ticklab::clock::Ratio::new(1_000_000_000, sr as u64).ok());
    let worklet = ClockInfo::new(
        "AudioWorklet currentFrame",
        ClockKind::Monotonic,
        frames.map_or(CountPeriod::Unknown, |ns| CountPeriod::Exact { ns }),
    )
    .with_description(
        "An AudioWorklet's process() posts its currentFrame to the page at every render \
         quantum: the audio thread's own count of sample frames",
    );
    let worklet = match frames {
        Some(ns) => worklet.with_claim(
            128.0 * ns.as_f64(),
            "Web Audio: process() runs once per render quantum of 128 frames",
        ),
        None => worklet,
    };
    push(
        ClockId::AudioWorkletFrame,
        worklet,
        Place::Sampled,
        false,
        false,
        no_audio.or_else(|| {
            if ctx.not_secure && !ctx.apis.audio_worklet {
                Some(format!(
                    "browsers give AudioWorklet only to a secure context. {}",
                    ticklab_first::NOT_SECURE
                ))
            } else {
                lacks(ctx.apis.audio_worklet, "AudioWorklet")
            }
        }),
        1.0,
    );
    push(
        ClockId::MessageChannel,
        ClockInfo::new(
            "MessageChannel ping-pong counter",
            ClockKind::Counter,
            CountPeriod::Unknown,
        )
        .with_description(
            "The two ports of a MessageChannel bounce one message on the page's thread; each \
             arrival counts one. Its rate is calibrated against performance.now",
        ),
        Place::Counted,
        false,
        false,
        None,
        1.0,
    );
    push(
        ClockId::SetTimeoutChain,
        ClockInfo::new(
            "setTimeout(0) chain",
            ClockKind::Counter,
            CountPeriod::Unknown,
        )
        .with_description(
            "Each setTimeout(0) callback sets the next and counts one. Its rate is calibrated \
             against performance.now",
        )
        .with_minimum(
            4e6,
            "HTML: a timeout nested more than 5 deep waits at least 4 ms",
        ),
        Place::Counted,
        false,
        false,
        None,
        1.0,
    );
    push(
        ClockId::EventTiming,
        ns_clock(
            "Event Timing duration",
            ClockKind::Monotonic,
            "The durations Event Timing gives the page's own input events (a click, a key) \
             of 16 ms or more, and its first input: their differences, sorted, show the step",
        )
        .with_claim(8e6, "W3C Event Timing: durations rounded to 8 ms"),
        Place::Sampled,
        false,
        false,
        lacks(ctx.apis.event_timing, "Event Timing (no \"event\" entries)"),
        1e6,
    );
}

/// The entry with `id`.
pub fn entry(ctx: &Context, id: ClockId) -> Entry {
    entries(ctx)
        .into_iter()
        .find(|e| e.id == id)
        .expect("every id has an entry (tested)")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts quoted by `quote` right after each `prefix` in `text`.
    fn quoted_after(text: &str, prefix: &str, quote: char) -> Vec<String> {
        text.match_indices(prefix)
            .filter_map(|(i, _)| {
                let rest = &text[i + prefix.len()..];
                let rest = rest.trim_start().strip_prefix(quote)?;
                Some(rest[..rest.find(quote)?].to_string())
            })
            .collect()
    }

    /// lab.js measures a clock by where it runs: its table `measureIn` has a way for every
    /// `Place`, under the name the page is given, and no other.
    #[test]
    fn the_page_measures_a_clock_in_every_place() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let js = std::fs::read_to_string(root.join("www/lab.js")).unwrap();
        let table = &js[js.find("const measureIn = {").unwrap()..];
        let table = &table[..table.find("\n};").unwrap()];
        let mut keys: Vec<&str> = table
            .lines()
            .filter_map(|l| l.strip_prefix("  ")?.split_once(": async").map(|(k, _)| k))
            .filter(|k| k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .collect();
        keys.sort();
        // A new place fails to compile here until it is in the list below.
        let _every = |p: Place| match p {
            Place::Worker | Place::Main | Place::Sampled | Place::Counted => (),
        };
        let mut places: Vec<String> = [Place::Worker, Place::Main, Place::Sampled, Place::Counted]
            .iter()
            .map(|p| {
                serde_json::to_string(p)
                    .unwrap()
                    .trim_matches('"')
                    .to_string()
            })
            .collect();
        places.sort();
        assert_eq!(keys, places);
    }

    /// The ids are spelled once, in `ClockId::as_str`: every id the page's scripts compare
    /// with or key a reader by, and every id the browser tests pick a clock by, is one of
    /// them (a renamed id fails here, not in a browser).
    #[test]
    fn scripts_and_browser_tests_spell_only_the_catalogue_s_ids() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
        let mut spelled: Vec<(String, String)> = Vec::new();
        let scripts: Vec<String> = std::fs::read_dir(root.join("www"))
            .unwrap()
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                name.ends_with(".js").then(|| format!("www/{name}"))
            })
            .collect();
        assert!(scripts.len() >= 10, "{scripts:?}");
        for file in scripts.iter().map(String::as_str) {
            let js = read(file);
            spelled.extend(
                quoted_after(&js, "id === ", '"')
                    .into_iter()
                    .map(|id| (file.to_string(), id)),
            );
            // The keys of the readers' maps: `"rAF": null,`, `"audio.currentTime": () =>`.
            for line in js.lines().map(str::trim) {
                if let Some((key, value)) = line.split_once("\": ") {
                    if value.starts_with("null") || value.starts_with("() =>") {
                        spelled.push((file.to_string(), key.trim_start_matches('"').to_string()));
                    }
                }
            }
        }
        let e2e: String = std::fs::read_dir(root.join("tests/e2e"))
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect();
        let list = |name: &str| {
            let start = e2e.find(name).unwrap();
            e2e[start..start + e2e[start..].find(";\n").unwrap()].to_string()
        };
        for id in quoted_after(&list("const IMPLICIT"), "", '\'') {
            if !id.trim_matches([',', ' ', '\n', '[', ']', '"']).is_empty() {
                spelled.push(("tests/e2e/".into(), id));
            }
        }
        for id in quoted_after(&list("const DEATH_RUN").replace("Some(", ""), "(", '"') {
            spelled.push(("tests/e2e/".into(), id));
        }
        for prefix in ["data-run=", "dataset.run === "] {
            for id in quoted_after(&e2e, prefix, '\'') {
                if !id.starts_with('$') {
                    spelled.push(("tests/e2e/".into(), id));
                }
            }
        }
        // Enough found that the search itself cannot have gone blind.
        assert!(spelled.len() >= 20, "{spelled:?}");
        for (file, id) in &spelled {
            assert!(
                ClockId::parse(id).is_ok(),
                "{file} spells the clock id '{id}', which the catalogue has not"
            );
        }
        // Serialised as spelled.
        for id in ClockId::ALL {
            let json = serde_json::to_string(&id).unwrap();
            assert_eq!(json, format!("\"{}\"", id.as_str()));
            assert_eq!(serde_json::from_str::<ClockId>(&json).unwrap(), id);
        }
    }

    const CHROME: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                          Chrome/156.0.0.0 Safari/537.36";

    #[test]
    fn isolation_decides_the_shared_counter() {
        let mut ctx = Context {
            user_agent: CHROME.into(),
            ..Default::default()
        };
        let e = entry(&ctx, ClockId::SharedCounter);
        assert!(!e.available && e.reason.unwrap().contains("isolation"));
        let now = entry(&ctx, ClockId::PerformanceNow);
        assert_eq!(now.info.claimed.unwrap().ns, 100_000.0);
        ctx.isolated = true;
        // Isolated without SharedArrayBuffer (WebKitGTK): no counter, and said why.
        let e = entry(&ctx, ClockId::SharedCounter);
        assert!(!e.available && e.reason.unwrap().contains("no SharedArrayBuffer"));
        ctx.shared_memory = true;
        ctx.shared_counter = true;
        ctx.audio_sample_rate = Some(48_000.0);
        assert!(entry(&ctx, ClockId::SharedCounter).available);
        assert_eq!(
            entry(&ctx, ClockId::PerformanceNow)
                .info
                .claimed
                .unwrap()
                .ns,
            5_000.0
        );
        let a = entry(&ctx, ClockId::AudioCurrentTime);
        assert!((a.info.claimed.unwrap().ns - 2_666_666.67).abs() < 1.0);
        assert!(ClockId::parse("nope").is_err());
        // Over plain http from another machine, the reasons name that, not the browser.
        let plain = Context {
            user_agent: CHROME.into(),
            not_secure: true,
            audio_sample_rate: Some(48_000.0),
            ..Default::default()
        };
        let worklet = entry(&plain, ClockId::AudioWorkletFrame).reason.unwrap();
        assert!(worklet.contains("secure context"), "{worklet}");
        assert!(!worklet.contains("this browser has no"), "{worklet}");
        let counter = entry(&plain, ClockId::SharedCounter).reason.unwrap();
        assert!(counter.contains("not a secure context"), "{counter}");
        // Every id has exactly one entry, and reads back from its string.
        let ids: Vec<ClockId> = entries(&ctx).iter().map(|e| e.id).collect();
        assert_eq!(ids, ClockId::ALL.to_vec());
        for id in ClockId::ALL {
            assert_eq!(ClockId::parse(id.as_str()), Ok(id));
        }
    }
}
