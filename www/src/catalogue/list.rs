//! The page's clocks, each described: what it is, what the browser documents for it,
//! where it runs, and why it cannot run here when it cannot.

use super::*;

/// Adds an entry: its id, what it is, where it runs, whether a fit runs on it by default
/// and at all, why it cannot run here, and its counts per unit.
type Push<'a> = dyn FnMut(ClockId, ClockInfo, Place, bool, bool, Option<String>, f64) + 'a;

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
    read_in_the_worker(ctx, &claim, &mut push, no_counter);
    simulated(&mut push);
    let no_audio = read_on_the_page(ctx, &claim, &mut push);
    implicit(ctx, &claim, &mut push, no_audio);
    counted(ctx, &mut push);
    out
}

/// The clocks the lab's worker spins on: performance.now, the epoch clocks, the shared
/// counter (`no_counter` says why it cannot run) and the clamps built over them.
fn read_in_the_worker(
    ctx: &Context,
    claim: &dyn Fn(ClockInfo) -> ClockInfo,
    push: &mut Push<'_>,
    no_counter: Option<String>,
) {
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
    clamps(push, no_counter);
}

/// ticklab's clamps over the page's clocks: Chromium's and Firefox's, and one made fine
/// again by interpolation.
fn clamps(push: &mut Push<'_>, no_counter: Option<String>) {
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
}

/// Clocks of simulated time: a browser's clamp, a counter, a jiffy.
fn simulated(push: &mut Push<'_>) {
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
            Place::Simulated,
            false,
            false,
            None,
            1.0,
        );
    }
}

/// The clocks read on the page's own thread: performance.now there, and those sampled at
/// moments the browser chooses (frames, audio); why the audio ones cannot run, if not.
fn read_on_the_page(
    ctx: &Context,
    claim: &dyn Fn(ClockInfo) -> ClockInfo,
    push: &mut Push<'_>,
) -> Option<String> {
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
    no_audio
}

/// The clocks a page builds from APIs that were never meant as clocks (Schwarz et al.,
/// "Fantastic Timers"; Rokicki et al., "SoK: In Search of Lost Time").
fn implicit(
    ctx: &Context,
    claim: &dyn Fn(ClockInfo) -> ClockInfo,
    push: &mut Push<'_>,
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
                 back with getComputedStyle: the frame's time as a style value, written to six \
                 significant digits (1 µs in its first second, 10 µs up to its tenth), which \
                 bound what it can show",
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
}

/// The counts of events a page keeps (messages, timeouts), and Event Timing's durations.
fn counted(ctx: &Context, push: &mut Push<'_>) {
    let lacks = |has: bool, what: &str| (!has).then(|| format!("this browser has no {what}"));
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
