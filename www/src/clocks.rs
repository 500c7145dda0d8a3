//! The page's clocks as the core's: performance.now, Date, the shared counter, the
//! clamps and interpolations built on them.

use js_sys::Int32Array;
use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod, FloatClock};
use ticklab::interpolate::Interpolated;
use ticklab::run::{Stepped, Stopwatch};
use ticklab::synthetic::{Clamp, ClampStyle, ClockTime, Jiffy, RoundedNs, SimTime, Timeline};
use web_sys::Performance;

use crate::catalogue::{self, ClockId, Context, Entry};
use crate::{CALIBRATION_MS, COUNTER_UNMOVED};
pub(crate) use ticklab_first::web::{float_clock, performance};
use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen(raw_module = "../js-reads.js")]
extern "C" {
    /// `n` reads of performance.now by a plain JavaScript loop (www/js-reads.js).
    #[wasm_bindgen(js_name = nowMany)]
    fn now_many(perf: &Performance, n: f64) -> f64;
}

/// performance.now as the lab reads it, through WebAssembly, and as a page's own
/// JavaScript reads it ([`Clock::read_many`]): the read cost a page's code pays, beside
/// the lab's. The float clock is held, not boxed again: a second indirect call would
/// cost every read the lab times.
struct PerformanceNow {
    inner: FloatClock<Box<dyn FnMut() -> f64>>,
    perf: Performance,
}

impl Clock for PerformanceNow {
    fn info(&self) -> &ClockInfo {
        self.inner.info()
    }
    #[inline]
    fn read(&mut self) -> u64 {
        self.inner.read()
    }
    fn take_fault(&mut self) -> Option<ticklab::clock::ClockFault> {
        self.inner.take_fault()
    }
    fn read_many(&mut self, n: u64) -> bool {
        if n > 0 {
            now_many(&self.perf, n as f64);
        }
        true
    }
}

fn performance_now(info: ClockInfo, perf: &Performance) -> Box<dyn Clock> {
    let p = perf.clone();
    let source: Box<dyn FnMut() -> f64> = Box::new(move || p.now());
    let mut inner = FloatClock::milliseconds(info.name.clone(), info.kind, source);
    *inner.info_mut() = info;
    Box::new(PerformanceNow {
        inner,
        perf: perf.clone(),
    })
}

/// A clock under another name.
struct Renamed<C> {
    info: ClockInfo,
    inner: C,
}

impl<C: Clock> Clock for Renamed<C> {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    fn read(&mut self) -> u64 {
        self.inner.read()
    }
    fn begin(&mut self) -> u64 {
        self.inner.begin()
    }
    fn end(&mut self) -> u64 {
        self.inner.end()
    }
    fn take_fault(&mut self) -> Option<ticklab::clock::ClockFault> {
        self.inner.take_fault()
    }
}

/// The shared integer a second worker increments; read with Atomics.load. Cloned, it
/// keeps its calibration: clocks compared with each other must share one.
#[derive(Clone)]
pub(crate) struct SharedCounter {
    info: ClockInfo,
    cell: Int32Array,
}

impl Clock for SharedCounter {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    #[inline]
    fn read(&mut self) -> u64 {
        js_sys::Atomics::load(&self.cell, 0).map_or(0, |v| v as u32 as u64)
    }
}

/// ns per counter increment over [`CALIBRATION_MS`] of performance.now, edge to edge (the
/// core's calibration).
fn calibrate(c: &mut SharedCounter, perf: &Performance) -> Result<f64, String> {
    use ticklab::calibrate::{period_against, Unmoved};
    let p = perf.clone();
    let mut now =
        FloatClock::milliseconds("performance.now", ClockKind::Monotonic, move || p.now());
    period_against(c, &mut now, CALIBRATION_MS * 1e6).map_err(|u| match u {
        Unmoved::Counter => COUNTER_UNMOVED.into(),
        Unmoved::Reference => {
            "performance.now did not move: the counter cannot be calibrated".into()
        }
    })
}

/// The counter as a clock in ns, calibrated against performance.now.
pub(crate) fn counter_clock(cell: Int32Array, perf: &Performance) -> Result<SharedCounter, String> {
    let base = catalogue::entry(&Context::default(), ClockId::SharedCounter).info;
    let mut c = SharedCounter { info: base, cell };
    let ns = calibrate(&mut c, perf)?;
    c.info.period = CountPeriod::Calibrated {
        ns,
        against: format!("performance.now over {CALIBRATION_MS} ms"),
    };
    Ok(c)
}

/// Seconds the interpolated clock spends counting reads per tick of its clamp.
const INTERPOLATION_CALIBRATION_S: f64 = 0.05;

/// Boxed: the interpolation is then the very code a fit through interpolation runs.
pub(crate) type InterpolatedCounter = Interpolated<Box<dyn Clock>>;

/// A page clock as the time of a synthetic clamp; boxed, so the clamps over the counter
/// and over performance.now share one copy of the clamp's code.
fn boxed_time(c: Box<dyn Clock>) -> Result<ClockTime<Box<dyn Clock>>, String> {
    ClockTime::new(c).map_err(|e| e.to_string())
}

/// A 100 µs clamp of the (calibrated) counter `c` in `style`, interpolated.
pub(crate) fn interpolated_over_counter(
    c: SharedCounter,
    perf: &Performance,
    style: ClampStyle,
) -> Result<InterpolatedCounter, String> {
    let t = boxed_time(Box::new(c))?;
    let base = Clamp::new(t, style, 100_000, 0x7ec1).map_err(|e| e.to_string())?;
    let p = perf.clone();
    let mut sw = move || p.now() / 1000.0;
    Interpolated::calibrate(
        Box::new(base) as Box<dyn Clock>,
        100_000,
        &mut sw,
        INTERPOLATION_CALIBRATION_S,
    )
    .map_err(|e| e.to_string())
}

const DAY_MS: f64 = 86_400_000.0;

/// A clock of the page and the stopwatch its budgets are kept by.
pub(crate) type Built = (Box<dyn Clock>, Box<dyn Stopwatch>);

/// The clock of `entry` and the stopwatch its budgets are kept by.
pub(crate) fn build(entry: &Entry, counter: Option<Int32Array>) -> Result<Built, String> {
    let perf = performance()?;
    let p = perf.clone();
    // performance.now moves in steps of 5 µs to 1 ms: the run watches its gaps in stretches
    // long beside that step.
    let wall: Box<dyn Stopwatch> = Box::new(Stepped::new(move || p.now() / 1000.0));
    let info = entry.info.clone();
    let seed = 0x5eed_0000 ^ js_sys::Date::now() as u64;
    let sim = |tl: &Timeline| SimTime::new(tl, 25_000, 5_000, seed);
    let clock: Box<dyn Clock> = match entry.id {
        ClockId::PerformanceNow | ClockId::PerformanceNowMain => performance_now(info, &perf),
        // Epoch milliseconds times 1e6 exceed 2^53: counts start a day before the first
        // reading, so the ns scaling stays exact (and a step back stays positive).
        ClockId::DateNow => {
            let o = js_sys::Date::now().floor() - DAY_MS;
            float_clock(info, move || js_sys::Date::now() - o)
        }
        ClockId::TimeOriginPlusNow => {
            let p = perf.clone();
            let origin = p.time_origin();
            let o = (origin + p.now()).floor() - DAY_MS;
            // Epoch milliseconds in a double are only good to one unit in the last
            // place (0.24 µs in 2026): that is the readings' quantum, or float rounding
            // would pass for the tick.
            let info = info.with_quantum(ticklab::analyze::spacing(origin + p.now()) * 1e6);
            // The sum is taken first, as a page would: its rounding is the lesson.
            float_clock(info, move || (origin + p.now()) - o)
        }
        ClockId::EventTimeStamp => float_clock(info, || {
            web_sys::Event::new("t").map_or(f64::NAN, |e| e.time_stamp())
        }),
        ClockId::SharedCounter | ClockId::Clamp100usOverCounter => {
            let cell = counter.ok_or("no SharedArrayBuffer counter was handed to the lab")?;
            let c = counter_clock(cell, &perf)?;
            if entry.id == ClockId::SharedCounter {
                Box::new(c)
            } else {
                let t = boxed_time(Box::new(c))?;
                let clamp = Clamp::new(t, ClampStyle::Chromium, 100_000, seed)
                    .map_err(|e| e.to_string())?;
                Box::new(Renamed { info, inner: clamp })
            }
        }
        ClockId::Interpolated100us => {
            let cell = counter.ok_or("no SharedArrayBuffer counter was handed to the lab")?;
            let mut c =
                interpolated_over_counter(counter_clock(cell, &perf)?, &perf, ClampStyle::Firefox)?;
            c.info_mut().name = info.name.clone();
            Box::new(c)
        }
        ClockId::Clamp1msOverNow => {
            let p = perf.clone();
            let now =
                FloatClock::milliseconds("performance.now", ClockKind::Monotonic, move || p.now());
            let t = boxed_time(Box::new(now))?;
            let clamp =
                Clamp::new(t, ClampStyle::Firefox, 1_000_000, seed).map_err(|e| e.to_string())?;
            Box::new(Renamed { info, inner: clamp })
        }
        ClockId::SimChromium | ClockId::Sim24Mhz | ClockId::SimJiffy => {
            let tl = Timeline::new(1_000_000_000_000);
            let clock: Box<dyn Clock> = match entry.id {
                ClockId::SimChromium => Box::new(Renamed {
                    info,
                    inner: Clamp::new(sim(&tl), ClampStyle::Chromium, 100_000, seed)
                        .map_err(|e| e.to_string())?,
                }),
                ClockId::Sim24Mhz => Box::new(Renamed {
                    info,
                    inner: RoundedNs::mhz24(sim(&tl)),
                }),
                _ => Box::new(Renamed {
                    info,
                    inner: Jiffy::new(sim(&tl), 4_000_000, 50_000, seed)
                        .map_err(|e| e.to_string())?,
                }),
            };
            return Ok((clock, Box::new(tl.stopwatch())));
        }
        // Sampled at the moments the browser chooses, by the page: nothing to spin on.
        ClockId::Raf
        | ClockId::AudioCurrentTime
        | ClockId::AudioContextTime
        | ClockId::AudioPerformanceTime
        | ClockId::Timeline
        | ClockId::CssAnimation
        | ClockId::AudioWorkletFrame
        | ClockId::MessageChannel
        | ClockId::SetTimeoutChain
        | ClockId::EventTiming => {
            return Err(format!(
                "'{}' is not read by spinning on it",
                entry.id.as_str()
            ))
        }
    };
    Ok((clock, wall))
}
