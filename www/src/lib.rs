//! ticklab in the browser. The core runs the experiments; this crate only turns the page's
//! clocks into the core's [`Clock`]s, carries reports across the wasm boundary with
//! serde-wasm-bindgen, and draws the core's plots on a canvas.
//!
//! The same module is loaded by the lab's worker (spinning clocks) and by the page (brief
//! main-thread clocks, sampled clocks, plots, import and export).

pub mod catalogue;
pub mod settings;

use catalogue::{Context, Entry, Place};
use settings::{RawSettings, Settings};

#[cfg(target_arch = "wasm32")]
pub use web::*;

#[cfg(target_arch = "wasm32")]
mod bench;

/// How long the SharedArrayBuffer counter is calibrated against performance.now, in ms.
pub const CALIBRATION_MS: f64 = 100.0;

/// Longest a main-thread clock may hold the page, tick and overhead together, in seconds:
/// the page cannot answer Cancel while the main thread is busy.
pub const MAIN_THREAD_S: f64 = 0.075;

/// The page's plan for one clock. A main-thread clock gets a quarter of the budgets, at most
/// [`MAIN_THREAD_S`] in all, and no fit, so Cancel is honoured within 100 ms.
pub fn plan_for(
    entry: &Entry,
    settings: &Settings,
    fit: bool,
) -> Result<ticklab::lab::Plan, String> {
    if entry.place != Place::Main {
        return settings.plan(fit && entry.can_fit, 1.0);
    }
    let mut plan = settings.plan(false, 0.25)?;
    let tick = &mut plan.tick.budget.time_s;
    *tick = tick.min(0.05);
    if let Some(o) = &mut plan.overhead {
        o.budget.time_s = o.budget.time_s.min(MAIN_THREAD_S - 0.05);
    }
    Ok(plan)
}

/// One unit in the last place of `x`.
pub fn ulp(x: f64) -> f64 {
    let x = x.abs();
    if !x.is_finite() || x == 0.0 {
        return f64::MIN_POSITIVE;
    }
    f64::from_bits(x.to_bits() + 1) - x
}

/// Checks the form and the clock, for messages before anything starts.
pub fn check(ctx: &Context, id: &str, raw: &RawSettings) -> Result<(Entry, Settings), String> {
    let e = catalogue::entry(ctx, id)?;
    let s = Settings::parse(raw)?;
    Ok((e, s))
}

#[cfg(target_arch = "wasm32")]
mod web {
    use super::*;
    use js_sys::{Function, Int32Array, Object, Reflect};
    use plotters::prelude::*;
    use plotters_canvas::CanvasBackend;
    use serde::Serialize;
    use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod, FloatClock};
    use ticklab::interpolate::Interpolated;
    use ticklab::lab::characterise;
    use ticklab::report::{ClockReport, Environment, Platform, Report};
    use ticklab::run::{Flow, Progress, Stop, Stopwatch};
    use ticklab::synthetic::{Clamp, ClampStyle, ClockTime, Jiffy, RoundedNs, SimTime, Timeline};
    use ticklab::tick::{self, TickOptions};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{HtmlCanvasElement, Performance};

    fn js_err(e: impl std::fmt::Display) -> JsError {
        JsError::new(&e.to_string())
    }

    fn to_js<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, JsError> {
        v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(js_err)
    }

    fn from_js<T: serde::de::DeserializeOwned>(v: JsValue, what: &str) -> Result<T, JsError> {
        serde_wasm_bindgen::from_value(v).map_err(|e| js_err(format!("{what}: {e}")))
    }

    /// Panics become console errors with their message, not "unreachable executed".
    #[wasm_bindgen(start)]
    pub fn start() {
        std::panic::set_hook(Box::new(|p| {
            web_sys::console::error_1(&format!("ticklab: {p}").into());
        }));
    }

    /// The performance object of this global (window or worker).
    pub(crate) fn performance() -> Result<Performance, String> {
        let g = js_sys::global();
        if let Some(w) = g.dyn_ref::<web_sys::Window>() {
            return w
                .performance()
                .ok_or_else(|| "no window.performance".into());
        }
        if let Some(w) = g.dyn_ref::<web_sys::WorkerGlobalScope>() {
            return w.performance().ok_or_else(|| "no self.performance".into());
        }
        Err("neither a window nor a worker: no performance object".into())
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

    /// Counter increments per ns over [`CALIBRATION_MS`] of performance.now, edge to edge.
    fn calibrate(c: &mut SharedCounter, perf: &Performance) -> Result<f64, String> {
        let start = perf.now();
        let mut t0 = start;
        // Start on an edge of performance.now, within 50 ms.
        while t0 == start && t0 - start < 50.0 {
            t0 = perf.now();
        }
        let c0 = c.read();
        let mut t1 = perf.now();
        while t1 - t0 < CALIBRATION_MS {
            t1 = perf.now();
        }
        let c1 = c.read();
        let d = c.info.diff(c0, c1);
        if d == 0 {
            return Err("the counter did not move in 100 ms: its worker is not running".into());
        }
        Ok((t1 - t0) * 1e6 / d as f64)
    }

    /// The counter as a clock in ns, calibrated against performance.now.
    pub(crate) fn counter_clock(
        cell: Int32Array,
        perf: &Performance,
    ) -> Result<SharedCounter, String> {
        let base = catalogue::entry(&Context::default(), "shared-counter")?.info;
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

    pub(crate) type InterpolatedCounter = Interpolated<Clamp<ClockTime<SharedCounter>>>;

    /// A 100 µs clamp of the (calibrated) counter `c` in `style`, interpolated.
    pub(crate) fn interpolated_over_counter(
        c: SharedCounter,
        perf: &Performance,
        style: ClampStyle,
    ) -> Result<InterpolatedCounter, String> {
        let t = ClockTime::new(c).map_err(|e| e.to_string())?;
        let base = Clamp::new(t, style, 100_000, 0x7ec1).map_err(|e| e.to_string())?;
        let p = perf.clone();
        let mut sw = move || p.now() / 1000.0;
        Interpolated::calibrate(base, 100_000, &mut sw, INTERPOLATION_CALIBRATION_S)
            .map_err(|e| e.to_string())
    }

    const DAY_MS: f64 = 86_400_000.0;

    fn float_clock(info: ClockInfo, f: impl FnMut() -> f64 + 'static) -> Box<dyn Clock> {
        let mut c = FloatClock::milliseconds(info.name.clone(), info.kind, f);
        *c.info_mut() = info;
        Box::new(c)
    }

    /// A clock of the page and the stopwatch its budgets are kept by.
    pub(crate) type Built = (Box<dyn Clock>, Box<dyn Stopwatch>);

    /// The clock of `entry` and the stopwatch its budgets are kept by.
    pub(crate) fn build(entry: &Entry, counter: Option<Int32Array>) -> Result<Built, String> {
        let perf = performance()?;
        let p = perf.clone();
        let wall: Box<dyn Stopwatch> = Box::new(move || p.now() / 1000.0);
        let info = entry.info.clone();
        let seed = 0x5eed_0000 ^ js_sys::Date::now() as u64;
        let sim = |tl: &Timeline| SimTime::new(tl, 25_000, 5_000, seed);
        let clock: Box<dyn Clock> = match entry.id {
            "performance.now" | "performance.now-main" => {
                let p = perf.clone();
                float_clock(info, move || p.now())
            }
            // Epoch milliseconds times 1e6 exceed 2^53: counts start a day before the first
            // reading, so the ns scaling stays exact (and a step back stays positive).
            "Date.now" => {
                let o = js_sys::Date::now().floor() - DAY_MS;
                float_clock(info, move || js_sys::Date::now() - o)
            }
            "timeOrigin+now" => {
                let p = perf.clone();
                let origin = p.time_origin();
                let o = (origin + p.now()).floor() - DAY_MS;
                // Epoch milliseconds in a double are only good to one unit in the last
                // place (0.24 µs in 2026): that is the readings' quantum, or float rounding
                // would pass for the tick.
                let info = info.with_quantum(ulp(origin + p.now()) * 1e6);
                // The sum is taken first, as a page would: its rounding is the lesson.
                float_clock(info, move || (origin + p.now()) - o)
            }
            "Event.timeStamp" => float_clock(info, || {
                web_sys::Event::new("t").map_or(f64::NAN, |e| e.time_stamp())
            }),
            "shared-counter" | "clamp-100us-over-counter" => {
                let cell = counter.ok_or("no SharedArrayBuffer counter was handed to the lab")?;
                let c = counter_clock(cell, &perf)?;
                if entry.id == "shared-counter" {
                    Box::new(c)
                } else {
                    let t = ClockTime::new(c).map_err(|e| e.to_string())?;
                    let clamp = Clamp::new(t, ClampStyle::Chromium, 100_000, seed)
                        .map_err(|e| e.to_string())?;
                    Box::new(Renamed { info, inner: clamp })
                }
            }
            "interpolated-100us" => {
                let cell = counter.ok_or("no SharedArrayBuffer counter was handed to the lab")?;
                let mut c = interpolated_over_counter(
                    counter_clock(cell, &perf)?,
                    &perf,
                    ClampStyle::Firefox,
                )?;
                c.info_mut().name = info.name.clone();
                Box::new(c)
            }
            "clamp-1ms-over-now" => {
                let p = perf.clone();
                let now =
                    FloatClock::milliseconds("performance.now", ClockKind::Monotonic, move || {
                        p.now()
                    });
                let t = ClockTime::new(now).map_err(|e| e.to_string())?;
                let clamp = Clamp::new(t, ClampStyle::Firefox, 1_000_000, seed)
                    .map_err(|e| e.to_string())?;
                Box::new(Renamed { info, inner: clamp })
            }
            "sim-chromium" | "sim-24mhz" | "sim-jiffy" => {
                let tl = Timeline::new(1_000_000_000_000);
                let clock: Box<dyn Clock> = match entry.id {
                    "sim-chromium" => Box::new(Renamed {
                        info,
                        inner: Clamp::new(sim(&tl), ClampStyle::Chromium, 100_000, seed)
                            .map_err(|e| e.to_string())?,
                    }),
                    "sim-24mhz" => Box::new(Renamed {
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
            other => return Err(format!("'{other}' is not read by spinning on it")),
        };
        Ok((clock, wall))
    }

    /// Every clock of the page for this context, as `catalogue::Entry` objects.
    #[wasm_bindgen]
    pub fn catalogue(ctx: JsValue) -> Result<JsValue, JsError> {
        let ctx: Context = from_js(ctx, "context")?;
        to_js(&catalogue::entries(&ctx))
    }

    /// Checks the form for clock `id`; the error names the bad field.
    #[wasm_bindgen]
    pub fn check_settings(ctx: JsValue, id: &str, settings: JsValue) -> Result<(), JsError> {
        let ctx: Context = from_js(ctx, "context")?;
        let raw: RawSettings = from_js(settings, "settings")?;
        check(&ctx, id, &raw).map(|_| ()).map_err(js_err)
    }

    /// Runs the lab's experiments on clock `id` here (worker or main thread) and returns its
    /// `ClockReport`. `progress` gets `{experiment, fraction, samples}` every 20 ms; a truthy
    /// return cancels. `counter` is the SharedArrayBuffer cell, when there is one.
    #[wasm_bindgen]
    pub fn run_clock(
        ctx: JsValue,
        id: &str,
        settings: JsValue,
        fit: bool,
        progress: Function,
        counter: Option<Int32Array>,
    ) -> Result<JsValue, JsError> {
        let ctx: Context = from_js(ctx, "context")?;
        let raw: RawSettings = from_js(settings, "settings")?;
        let (entry, settings) = check(&ctx, id, &raw).map_err(js_err)?;
        let mut observer = |p: &Progress<'_>| -> Flow {
            let o = Object::new();
            let _ = Reflect::set(&o, &"experiment".into(), &p.experiment.into());
            let _ = Reflect::set(&o, &"fraction".into(), &p.fraction.into());
            let _ = Reflect::set(&o, &"samples".into(), &(p.samples as f64).into());
            match progress.call1(&JsValue::NULL, &o) {
                Ok(v) if v.is_truthy() => Flow::Cancel,
                _ => Flow::Continue,
            }
        };
        let report = measure(&entry, &settings, fit, counter, &mut observer).map_err(js_err)?;
        to_js(&report)
    }

    /// The experiments on one clock of the page, here: what `run_clock` does, for Rust callers.
    pub fn measure(
        entry: &Entry,
        settings: &Settings,
        fit: bool,
        counter: Option<Int32Array>,
        observer: &mut dyn FnMut(&Progress<'_>) -> Flow,
    ) -> Result<ClockReport, String> {
        let entry = entry.clone();
        if !entry.available {
            let why = entry.reason.clone().unwrap_or_default();
            return Ok(ClockReport::unavailable(entry.info, why));
        }
        let plan = plan_for(&entry, settings, fit)?;
        let (mut clock, mut stopwatch) = match build(&entry, counter) {
            Ok(b) => b,
            Err(why) => return Ok(ClockReport::unavailable(entry.info, why)),
        };
        characterise(&mut clock, stopwatch.as_mut(), observer, &plan).map_err(|e| e.to_string())
    }

    /// The tick of sampled clock `id` from readings in its raw unit (ms or s) taken over
    /// `elapsed_s`; readings that are not finite become an error in the report.
    #[wasm_bindgen]
    pub fn analyze_readings(
        ctx: JsValue,
        id: &str,
        readings: Vec<f64>,
        elapsed_s: f64,
        settings: JsValue,
    ) -> Result<JsValue, JsError> {
        let ctx: Context = from_js(ctx, "context")?;
        let raw: RawSettings = from_js(settings, "settings")?;
        let (entry, settings) = check(&ctx, id, &raw).map_err(js_err)?;
        if !entry.available {
            let why = entry.reason.clone().unwrap_or_default();
            return to_js(&ClockReport::unavailable(entry.info, why));
        }
        let mut report = ClockReport::new(entry.info.clone());
        let mut counts = Vec::with_capacity(readings.len());
        let mut bad = 0usize;
        for v in &readings {
            let c = (v * entry.counts_per_unit).round();
            if (0.0..1.8e19).contains(&c) {
                counts.push(c as u64);
            } else {
                bad += 1;
            }
        }
        let budget = ticklab::run::Budget::new(settings.sample_s, 1_000_000).map_err(js_err)?;
        let stop = if elapsed_s + 1e-3 >= settings.sample_s {
            Stop::Time
        } else {
            Stop::Samples
        };
        match tick::from_readings(
            &entry.info,
            &counts,
            elapsed_s,
            stop,
            &TickOptions::new(budget),
        ) {
            Ok(mut t) => {
                if bad > 0 {
                    t.caveats.push(format!(
                        "{bad} readings were not finite non-negative times; left out"
                    ));
                }
                report.tick = Some(t);
            }
            Err(e) => report.errors.push(ticklab::report::ExperimentError {
                experiment: "tick".into(),
                message: e.to_string(),
            }),
        }
        to_js(&report)
    }

    /// What the page adds to a report of its own.
    #[derive(serde::Deserialize, Default)]
    #[serde(default)]
    struct PageFacts {
        cpus: Option<u32>,
        hidden_during_run: Option<bool>,
        notes: Vec<String>,
    }

    /// A report of the page's clocks, the same schema as `ticklab run --json`.
    #[wasm_bindgen]
    pub fn make_report(ctx: JsValue, facts: JsValue, clocks: JsValue) -> Result<JsValue, JsError> {
        let ctx: Context = from_js(ctx, "context")?;
        let facts: PageFacts = from_js(facts, "page facts")?;
        let clocks: Vec<ClockReport> = from_js(clocks, "clock reports")?;
        let mut notes = facts.notes;
        if facts.hidden_during_run == Some(true) {
            notes.push(
                "the page was hidden during the run: browsers throttle hidden pages, so the \
                 sampled clocks and timings may be off"
                    .into(),
            );
        }
        let env = Environment {
            platform: Some(Platform::Browser),
            arch: Some("wasm32".into()),
            user_agent: Some(ctx.user_agent.clone()),
            cross_origin_isolated: Some(ctx.isolated),
            cpus: facts.cpus,
            hidden_during_run: facts.hidden_during_run,
            created_unix_ms: Some(js_sys::Date::now() as u64),
            notes,
            ..Default::default()
        };
        let mut r = Report::new(env);
        r.clocks = clocks;
        to_js(&r)
    }

    /// The report as JSON text, checked against the schema on the way.
    #[wasm_bindgen]
    pub fn report_json(report: JsValue) -> Result<String, JsError> {
        let r: Report = from_js(report, "report")?;
        r.to_json().map_err(js_err)
    }

    /// Reads a report (from `ticklab run --json`, the server, or an export), refusing
    /// malformed, foreign and oversized ones with a message. The browser's JSON parser reads
    /// the text: a second JSON reader in the module would cost the page a fifth of its
    /// weight.
    #[wasm_bindgen]
    pub fn import_report(text: &str) -> Result<JsValue, JsError> {
        use ticklab::report::Version;
        let report_err = |m: String| js_err(ticklab::Error::Report(m));
        Report::check_size(text.len()).map_err(js_err)?;
        let v = js_sys::JSON::parse(text).map_err(|e| {
            let why = e
                .dyn_ref::<js_sys::Error>()
                .map_or_else(|| "unreadable".to_string(), |e| String::from(e.message()));
            report_err(format!("not JSON: {why}"))
        })?;
        let field = if v.is_object() {
            Reflect::get(&v, &"schema_version".into()).unwrap_or(JsValue::UNDEFINED)
        } else {
            JsValue::UNDEFINED
        };
        let version = if field.is_undefined() {
            Version::Missing
        } else {
            match field.as_f64() {
                Some(f) if f >= 0.0 && f.fract() == 0.0 && f < 9e15 => Version::Whole(f as u64),
                _ => Version::NotWhole,
            }
        };
        Report::check_version(version).map_err(js_err)?;
        let r: Report = serde_wasm_bindgen::from_value(v)
            .map_err(|e| report_err(format!("malformed report: {e}")))?;
        to_js(&r)
    }

    /// Every table and plot's data as CSV: `[{name, csv}]`.
    #[wasm_bindgen]
    pub fn csv_tables(report: JsValue) -> Result<JsValue, JsError> {
        let r: Report = from_js(report, "report")?;
        to_js(&ticklab::export::tables(&r))
    }

    /// Draws `view` of a clock's report on `canvas`: "raw", "sorted", "diff_sorted",
    /// "histogram", "edges", "overhead", "fit" or "excess" (`fit` picks the fit).
    #[wasm_bindgen]
    pub fn draw(
        canvas: HtmlCanvasElement,
        clock: JsValue,
        view: &str,
        fit: usize,
    ) -> Result<(), JsError> {
        let c: ClockReport = from_js(clock, "clock report")?;
        let backend = CanvasBackend::with_canvas_object(canvas)
            .ok_or_else(|| js_err("the canvas has no 2D context"))?;
        let root = backend.into_drawing_area();
        root.fill(&WHITE).map_err(|e| js_err(format!("{e:?}")))?;
        let need = |what: &str| js_err(format!("{}: no {what} result to draw", c.info.name));
        let drawn = match view {
            "raw" | "sorted" | "diff_sorted" | "histogram" | "edges" => {
                let t = c.tick.as_ref().ok_or_else(|| need("tick"))?;
                let s = ticklab_plot::Scale::for_counts(t.ns_per_count);
                let src = if view == "edges" {
                    &t.edge_intervals
                } else {
                    &t.timings_sample
                };
                let mut v: Vec<f64> = src.iter().map(|&x| x as f64 * s.factor).collect();
                if v.is_empty() {
                    // A sampled clock has no dithered timings; its intervals are the data.
                    v = t
                        .edge_intervals
                        .iter()
                        .map(|&x| x as f64 * s.factor)
                        .collect();
                }
                let levels: Vec<f64> = t.bands.iter().map(|b| b.level * s.factor).collect();
                match view {
                    "raw" => ticklab_plot::raw_banded(&root, &v, &levels, s.unit),
                    "edges" => ticklab_plot::raw(&root, &v, s.unit),
                    "sorted" => ticklab_plot::sorted(&root, &v, s.unit),
                    "diff_sorted" => ticklab_plot::diff_sorted(&root, &v, s.unit),
                    _ => ticklab_plot::histogram(&root, &v, 60, s.unit),
                }
            }
            "overhead" => {
                ticklab_plot::overhead(&root, c.overhead.as_ref().ok_or_else(|| need("overhead"))?)
            }
            "fit" | "excess" => {
                let f = c.fits.get(fit).ok_or_else(|| need("fit"))?;
                if view == "fit" {
                    ticklab_plot::fit(&root, f)
                } else {
                    ticklab_plot::excess(&root, f)
                }
            }
            other => return Err(js_err(format!("no view '{other}'"))),
        };
        drawn.map_err(js_err)?;
        root.present().map_err(|e| js_err(format!("{e:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_of_epoch_milliseconds_is_a_quarter_microsecond() {
        let u = ulp(1.79e12) * 1e6;
        assert!((u - 244.14).abs() < 0.01, "{u}");
        assert_eq!(ulp(1.0), f64::EPSILON);
    }

    #[test]
    fn main_thread_budgets_are_a_quarter_within_75_ms_and_simulations_never_fit() {
        let ctx = Context::default();
        let s = Settings::parse(&RawSettings::default()).unwrap();
        let (main, _) = check(&ctx, "performance.now-main", &RawSettings::default()).unwrap();
        let p = plan_for(&main, &s, true).unwrap();
        assert_eq!(p.tick.budget.time_s, s.tick_s * 0.25);
        assert!(p.fits.is_empty());
        // However long the form asks for, the main thread is held at most 75 ms.
        let long = Settings::parse(&RawSettings {
            tick_s: "100".into(),
            overhead_s: "100".into(),
            ..Default::default()
        })
        .unwrap();
        let p = plan_for(&main, &long, true).unwrap();
        let held = p.tick.budget.time_s + p.overhead.map_or(0.0, |o| o.budget.time_s);
        assert!(held <= MAIN_THREAD_S + 1e-12, "{held}");
        let sim = catalogue::entry(&ctx, "sim-jiffy").unwrap();
        assert!(plan_for(&sim, &s, true).unwrap().fits.is_empty());
        assert!(check(&ctx, "nope", &RawSettings::default()).is_err());
    }
}
