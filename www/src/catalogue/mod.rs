//! The page's clocks: what each is, what the browser documents for it, and where it runs.
//! Pure data, so it is tested natively; `lib.rs` builds the clocks themselves.

use serde::{Deserialize, Serialize};
use ticklab::clock::{ClockInfo, ClockKind, CountPeriod};
pub use ticklab_first::{browser, documented_clamp, ns_clock, worker_now_info, Browser};

mod list;
pub use list::entries;

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

    /// Whether it reads the SharedArrayBuffer counter: the page sets the counter's worker
    /// running while it is measured (lab.js), and to sleep the rest of the time.
    pub fn reads_counter(self) -> bool {
        matches!(
            self,
            ClockId::SharedCounter | ClockId::Clamp100usOverCounter | ClockId::Interpolated100us
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
    /// Spun on over simulated time, in a worker of its own beside the lab's: its budgets
    /// are kept in simulated time, so sharing the machine changes nothing it finds.
    Simulated,
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
            (_, Place::Worker | Place::Simulated | Place::Main) => ReadAs::AtWill,
        }
    }
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
            .filter_map(|l| l.strip_prefix("  ")?.split_once(": ").map(|(k, _)| k))
            .filter(|k| k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .collect();
        keys.sort();
        // A new place fails to compile here until it is in the list below.
        let _every = |p: Place| match p {
            Place::Worker | Place::Simulated | Place::Main | Place::Sampled | Place::Counted => (),
        };
        let mut places: Vec<String> = [
            Place::Worker,
            Place::Simulated,
            Place::Main,
            Place::Sampled,
            Place::Counted,
        ]
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
        // Every file of the end-to-end tests, those in their subjects' folders too.
        fn texts(dir: &std::path::Path, out: &mut String) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    texts(&p, out);
                } else {
                    out.push_str(&std::fs::read_to_string(p).unwrap());
                }
            }
        }
        let mut e2e = String::new();
        texts(&root.join("tests/e2e"), &mut e2e);
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
        // The clocks said to read the counter are those that cannot run without it.
        let no_counter = Context {
            shared_counter: false,
            ..ctx.clone()
        };
        for e in entries(&no_counter) {
            let wants = e.reason.as_deref() == Some("the counter worker did not start");
            assert_eq!(e.id.reads_counter(), wants, "{}", e.id.as_str());
        }
    }
}
