//! ticklab in the browser. The core runs the experiments; this crate only turns the page's
//! clocks into the core's [`Clock`](ticklab::Clock)s, keeps the page's results in wasm
//! memory behind the [`Lab`] handle, and draws the plot crate's views on a canvas.
//!
//! The same module is loaded by the lab's worker (spinning clocks: its `Lab` hands each
//! clock's report out) and by the page (a `Lab`: the form, main-thread and sampled clocks,
//! the worker's results, words and plots from the core, import and export).

pub mod catalogue;
pub mod class;
pub mod playground;
pub mod session;
pub mod settings;

use catalogue::{Entry, Place};
use settings::Settings;

#[cfg(target_arch = "wasm32")]
pub use web::*;

#[cfg(target_arch = "wasm32")]
// The page's benchmark figures (`cargo xtask bench`): built only for it, so visitors do not
// download them.
#[cfg(feature = "bench")]
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

#[cfg(target_arch = "wasm32")]
mod web {
    use super::*;
    use catalogue::{ClockId, Context};
    use class::Digest;
    use playground::Knobs;

    /// The id under which the page draws the playground's clock.
    const PLAYGROUND: &str = "playground";
    use js_sys::{Function, Int32Array, Object, Reflect};
    use plotters::prelude::*;
    use plotters_backend::{
        BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
    };
    use plotters_canvas::CanvasBackend;
    use serde::Serialize;
    use session::{PageFacts, Session};
    use settings::RawSettings;
    use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod, FloatClock};
    use ticklab::interpolate::Interpolated;
    use ticklab::lab::characterise;
    use ticklab::present::SummaryRow;
    use ticklab::report::{ClockReport, Report};
    use ticklab::run::{Flow, Progress, Stopwatch};
    use ticklab::synthetic::{Clamp, ClampStyle, ClockTime, Jiffy, RoundedNs, SimTime, Timeline};
    use ticklab_plot::View;
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
        serde_wasm_bindgen::from_value(v).map_err(|e| js_err(format!("{what}: {}", said(e))))
    }

    /// serde-wasm-bindgen's error in serde's words, as the command says them: its errors are
    /// JS errors ("Error: missing field"), and it asks a value where a list belongs for its
    /// iterator, which throws a TypeError for a string or a number.
    fn said(e: serde_wasm_bindgen::Error) -> String {
        let e = e.to_string();
        if e.starts_with("TypeError") {
            return "invalid type: expected a sequence".into();
        }
        e.strip_prefix("Error: ").unwrap_or(&e).into()
    }

    /// Panics become console errors with their message, not "unreachable executed".
    #[wasm_bindgen(start)]
    pub fn start() {
        std::panic::set_hook(Box::new(|p| {
            web_sys::console::error_1(&format!("ticklab: {p}").into());
        }));
    }

    /// A canvas drawn at the screen's own pixel density: the page sizes the canvas to its
    /// column in CSS pixels times devicePixelRatio; plots are laid out in CSS pixels, and
    /// the context's scale turns each into that many device pixels, so lines and text stay
    /// sharp on a phone. Every call goes to the canvas backend but the size.
    struct Sharp {
        inner: CanvasBackend,
        size: (u32, u32),
    }

    impl Sharp {
        fn on(canvas: HtmlCanvasElement) -> Result<Self, JsError> {
            let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
            let ratio = if ratio.is_finite() && ratio >= 1.0 {
                ratio
            } else {
                1.0
            };
            let size = (
                (f64::from(canvas.width()) / ratio).round() as u32,
                (f64::from(canvas.height()) / ratio).round() as u32,
            );
            let ctx: web_sys::CanvasRenderingContext2d = canvas
                .get_context("2d")
                .ok()
                .flatten()
                .and_then(|c| c.dyn_into().ok())
                .ok_or_else(|| js_err("the canvas has no 2D context"))?;
            ctx.set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0)
                .map_err(|_| js_err("the canvas cannot be scaled"))?;
            let inner = CanvasBackend::with_canvas_object(canvas)
                .ok_or_else(|| js_err("the canvas has no 2D context"))?;
            Ok(Self { inner, size })
        }
    }

    impl DrawingBackend for Sharp {
        type ErrorType = <CanvasBackend as DrawingBackend>::ErrorType;
        fn get_size(&self) -> (u32, u32) {
            self.size
        }
        fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            self.inner.ensure_prepared()
        }
        fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            self.inner.present()
        }
        fn draw_pixel(
            &mut self,
            p: BackendCoord,
            c: BackendColor,
        ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            self.inner.draw_pixel(p, c)
        }
        fn draw_line<S: BackendStyle>(
            &mut self,
            a: BackendCoord,
            b: BackendCoord,
            s: &S,
        ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            self.inner.draw_line(a, b, s)
        }
        fn draw_rect<S: BackendStyle>(
            &mut self,
            a: BackendCoord,
            b: BackendCoord,
            s: &S,
            fill: bool,
        ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            self.inner.draw_rect(a, b, s, fill)
        }
        fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
            &mut self,
            path: I,
            s: &S,
        ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            self.inner.draw_path(path, s)
        }
        fn draw_circle<S: BackendStyle>(
            &mut self,
            c: BackendCoord,
            r: u32,
            s: &S,
            fill: bool,
        ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            self.inner.draw_circle(c, r, s, fill)
        }
        fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
            &mut self,
            v: I,
            s: &S,
        ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            self.inner.fill_polygon(v, s)
        }
        fn draw_text<T: BackendTextStyle>(
            &mut self,
            text: &str,
            s: &T,
            p: BackendCoord,
        ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            self.inner.draw_text(text, s, p)
        }
        fn estimate_text_size<T: BackendTextStyle>(
            &self,
            text: &str,
            s: &T,
        ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
            self.inner.estimate_text_size(text, s)
        }
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

    fn float_clock(info: ClockInfo, f: impl FnMut() -> f64 + 'static) -> Box<dyn Clock> {
        // Boxed: one copy of FloatClock's code for every page clock, not one a closure.
        let f: Box<dyn FnMut() -> f64> = Box::new(f);
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
            ClockId::PerformanceNow | ClockId::PerformanceNowMain => {
                let p = perf.clone();
                float_clock(info, move || p.now())
            }
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
                let info = info.with_quantum(ulp(origin + p.now()) * 1e6);
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
                let mut c = interpolated_over_counter(
                    counter_clock(cell, &perf)?,
                    &perf,
                    ClampStyle::Firefox,
                )?;
                c.info_mut().name = info.name.clone();
                Box::new(c)
            }
            ClockId::Clamp1msOverNow => {
                let p = perf.clone();
                let now =
                    FloatClock::milliseconds("performance.now", ClockKind::Monotonic, move || {
                        p.now()
                    });
                let t = boxed_time(Box::new(now))?;
                let clamp = Clamp::new(t, ClampStyle::Firefox, 1_000_000, seed)
                    .map_err(|e| e.to_string())?;
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
            | ClockId::AudioPerformanceTime => {
                return Err(format!(
                    "'{}' is not read by spinning on it",
                    entry.id.as_str()
                ))
            }
        };
        Ok((clock, wall))
    }

    /// An observer that reports progress to `progress` and cancels when it returns truthy.
    fn observer(progress: &Function) -> impl FnMut(&Progress<'_>) -> Flow + '_ {
        move |p: &Progress<'_>| -> Flow {
            let o = Object::new();
            let _ = Reflect::set(&o, &"experiment".into(), &p.experiment.into());
            let _ = Reflect::set(&o, &"fraction".into(), &p.fraction.into());
            let _ = Reflect::set(&o, &"samples".into(), &(p.samples as f64).into());
            match progress.call1(&JsValue::NULL, &o) {
                Ok(v) if v.is_truthy() => Flow::Cancel,
                _ => Flow::Continue,
            }
        }
    }

    /// The experiments on one clock of the page, here: what the [`Lab`] runs, for Rust callers.
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

    /// The page's lab: its clocks, the form and every result stay here, in wasm memory. The
    /// page asks it to run a clock, to keep a worker's result, for the words of a row or a
    /// detail, to draw a view on a canvas, and to export; only an export hands out a whole
    /// report.
    #[wasm_bindgen]
    pub struct Lab {
        session: Session,
    }

    #[wasm_bindgen]
    impl Lab {
        /// A lab for a page in context `ctx` (`{user_agent, isolated, audio_sample_rate,
        /// shared_counter}`).
        #[wasm_bindgen(constructor)]
        pub fn new(ctx: JsValue) -> Result<Lab, JsError> {
            Ok(Lab {
                session: Session::new(from_js(ctx, "context")?),
            })
        }

        /// The headers of the summary, the class matrix and a shared result: `{summary,
        /// matrix, figures}`, the same
        /// words as the command's tables.
        pub fn columns(&self) -> Result<JsValue, JsError> {
            #[derive(Serialize)]
            struct Columns {
                summary: &'static [&'static str],
                matrix: &'static [&'static str],
                figures: &'static [&'static str],
            }
            to_js(&Columns {
                summary: &ticklab::present::SUMMARY_COLUMNS,
                matrix: &class::MATRIX_COLUMNS,
                figures: &class::FIGURES,
            })
        }

        /// The rows of the clock choice, every cell in words.
        pub fn choices(&self) -> Result<JsValue, JsError> {
            to_js(&self.session.choices())
        }

        /// Checks the form once for the run (the error names the bad field) and returns it
        /// checked, for the worker.
        pub fn set_settings(&mut self, raw: JsValue) -> Result<JsValue, JsError> {
            let raw: RawSettings = from_js(raw, "settings")?;
            to_js(self.session.set_settings(&raw).map_err(js_err)?)
        }

        /// The form of headline pass `pass` (0: a first look, 1: a longer one), for the
        /// worker.
        pub fn headline_settings(&self, pass: u32) -> Result<JsValue, JsError> {
            to_js(&session::headline_settings(pass))
        }

        /// The headline for the worker's report on performance.now: `{tick_ns, tick,
        /// verdict, isolation}`, in words.
        pub fn headline(&mut self, report: JsValue) -> Result<JsValue, JsError> {
            let report: ClockReport = from_js(report, "clock report")?;
            to_js(&self.session.headline(&report))
        }

        /// Takes the form as the page's lab checked it (in the worker: nothing is parsed
        /// twice).
        pub fn use_settings(&mut self, checked: JsValue) -> Result<(), JsError> {
            self.session.use_settings(from_js(checked, "settings")?);
            Ok(())
        }

        /// Runs clock `id` in this worker and hands its `ClockReport` out, for the page's
        /// lab: the one report that crosses the boundary in a run, one clock at a time.
        /// `progress` gets `{experiment, fraction, samples}` every 20 ms, and a truthy
        /// return cancels; `counter` is the SharedArrayBuffer cell, when there is one.
        pub fn run_for_page(
            &mut self,
            id: &str,
            fit: bool,
            progress: Function,
            counter: Option<Int32Array>,
        ) -> Result<JsValue, JsError> {
            let id = ClockId::parse(id).map_err(js_err)?;
            let settings = self.session.settings().map_err(js_err)?.clone();
            let entry = self.session.entry(id).clone();
            let report = measure(&entry, &settings, fit, counter, &mut observer(&progress))
                .map_err(js_err)?;
            to_js(&self.session.hand_out(report))
        }

        /// Seconds of sampling the checked form asks for.
        pub fn sample_s(&self) -> Result<f64, JsError> {
            Ok(self.session.settings().map_err(js_err)?.sample_s)
        }

        /// Forgets the last run.
        pub fn start(&mut self) {
            self.session.start();
        }

        /// Runs clock `id` here, on the page's thread, keeps its result and returns its
        /// summary row. `progress` is as for [`Lab::run_for_page`].
        pub fn run_here(
            &mut self,
            id: &str,
            fit: bool,
            progress: Function,
        ) -> Result<JsValue, JsError> {
            let id = ClockId::parse(id).map_err(js_err)?;
            let settings = self.session.settings().map_err(js_err)?.clone();
            let entry = self.session.entry(id).clone();
            let report =
                measure(&entry, &settings, fit, None, &mut observer(&progress)).map_err(js_err)?;
            to_js(&self.session.add_measured(id, report))
        }

        /// Keeps the report the worker measured for clock `id`; returns its summary row.
        pub fn add_result(&mut self, id: &str, report: JsValue) -> Result<JsValue, JsError> {
            let id = ClockId::parse(id).map_err(js_err)?;
            let report: ClockReport = from_js(report, "clock report")?;
            to_js(&self.session.add_from_worker(id, report))
        }

        /// Records that clock `id` could not be measured; returns its summary row.
        pub fn add_failure(&mut self, id: &str, message: &str) -> Result<JsValue, JsError> {
            let id = ClockId::parse(id).map_err(js_err)?;
            to_js(&self.session.add_failure(id, message))
        }

        /// The tick of sampled clock `id` from readings in its raw unit taken over
        /// `elapsed_s`; keeps it and returns its summary row.
        pub fn add_readings(
            &mut self,
            id: &str,
            readings: Vec<f64>,
            elapsed_s: f64,
        ) -> Result<JsValue, JsError> {
            let id = ClockId::parse(id).map_err(js_err)?;
            let row = self
                .session
                .add_readings(id, &readings, elapsed_s)
                .map_err(js_err)?;
            to_js(&row)
        }

        /// Assembles the run's report (kept here) from what the page knows of itself:
        /// `{cpus, hidden_during_run}`.
        pub fn finish(&mut self, facts: JsValue) -> Result<(), JsError> {
            let mut facts: PageFacts = from_js(facts, "page facts")?;
            facts.created_unix_ms = Some(js_sys::Date::now() as u64);
            self.session.finish(&facts);
            Ok(())
        }

        /// The summary rows of the run so far: `[{id, row}]`.
        pub fn rows(&self) -> Result<JsValue, JsError> {
            #[derive(Serialize)]
            struct Row {
                id: ClockId,
                row: SummaryRow,
            }
            let rows: Vec<Row> = self
                .session
                .rows()
                .into_iter()
                .map(|(id, row)| Row { id, row })
                .collect();
            to_js(&rows)
        }

        /// The clocks with plots to show: `[[id, name]]`.
        pub fn detail_choices(&self) -> Result<JsValue, JsError> {
            to_js(&self.session.with_detail())
        }

        /// The sentences and views of clock `id`'s result, or null.
        pub fn detail(&self, id: &str) -> Result<JsValue, JsError> {
            let id = ClockId::parse(id).map_err(js_err)?;
            to_js(&self.session.detail(id))
        }

        /// Draws `view` ("raw", "sorted", "diff_sorted", "histogram", "edges", "overhead",
        /// "fit", "excess"; `fit` picks the fit) of clock `id` (or "playground") on `canvas`.
        pub fn draw(
            &self,
            canvas: HtmlCanvasElement,
            id: &str,
            view: &str,
            fit: usize,
        ) -> Result<(), JsError> {
            let view = View::parse(view, fit).map_err(js_err)?;
            let c = if id == PLAYGROUND {
                self.session.play()
            } else {
                self.session.result(ClockId::parse(id).map_err(js_err)?)
            }
            .ok_or_else(|| js_err(format!("{id}: not measured")))?;
            let root = Sharp::on(canvas)?.into_drawing_area();
            root.fill(&WHITE)
                .map_err(|e| js_err(ticklab_plot::fail(e)))?;
            ticklab_plot::draw(&root, c, view).map_err(js_err)?;
            root.present().map_err(|e| js_err(ticklab_plot::fail(e)))
        }

        /// The run's report as JSON text, for Export.
        pub fn export_json(&mut self) -> Result<String, JsError> {
            json_text_of(self.session.export().map_err(js_err)?, 2)
        }

        /// Every table and plot's data as CSV, for Export: `[{name, csv}]`.
        pub fn export_csv(&mut self) -> Result<JsValue, JsError> {
            to_js(&self.session.export_csv().map_err(js_err)?)
        }

        /// Keeps the digest of another report, made by [`digest_report`] in a worker, and
        /// says what it holds.
        pub fn add_digest(&mut self, digest: JsValue) -> Result<String, JsError> {
            let d: Digest = from_js(digest, "digest")?;
            self.session.add_digest(d).map_err(js_err)
        }

        /// The tick lesson's example from the machine serving the page, once its report was
        /// taken in (`add_digest` from "the server"); none otherwise.
        pub fn served_lesson(&self) -> Option<String> {
            self.session.served_lesson()
        }

        /// The playground's knobs in words, for the labels beside the sliders.
        pub fn knob_words(&self, knobs: JsValue) -> Result<JsValue, JsError> {
            let k: Knobs = from_js(knobs, "playground")?;
            to_js(&k.words().map_err(js_err)?)
        }

        /// Keeps the playground's result from the worker: `{tick, overhead, fit}` in words.
        pub fn add_play(&mut self, report: JsValue) -> Result<JsValue, JsError> {
            let report: ClockReport = from_js(report, "clock report")?;
            to_js(&self.session.add_play(report))
        }

        /// Timings measured elsewhere (a file's bytes, read as `ticklab analyze` reads them:
        /// UTF-8 with or without a byte-order mark, or UTF-16; or a paste; named `name`), analysed as
        /// `ticklab analyze` does with plain numbers in `unit` ("s", "ms", "us", "ns",
        /// "ticks"): the overview, detail, answer, bands and notes in words.
        pub fn analyze(
            &mut self,
            bytes: &[u8],
            name: &str,
            unit: &str,
        ) -> Result<JsValue, JsError> {
            let json = |b: &[u8]| -> Result<serde_json::Value, String> {
                let text = std::str::from_utf8(b).map_err(|_| "not UTF-8 text".to_string())?;
                let v = js_sys::JSON::parse(text).map_err(|_| "not JSON".to_string())?;
                serde_wasm_bindgen::from_value(v).map_err(|e| e.to_string())
            };
            let words = self
                .session
                .analyze(bytes, name, unit, &json)
                .map_err(js_err)?;
            to_js(&words)
        }

        /// Draws `view` ("raw", "sorted", "diff_sorted", "histogram") of the last analysed
        /// timings on `canvas`.
        pub fn draw_analysis(&self, canvas: HtmlCanvasElement, view: &str) -> Result<(), JsError> {
            let a = self
                .session
                .analysed()
                .ok_or_else(|| js_err("nothing analysed yet"))?;
            let (values, unit) = (&a.series.values, ticklab::analyze::unit_name(a.series.unit));
            let levels: Vec<f64> = a.bands.iter().map(|b| b.level).collect();
            let tick = a.estimate.as_ref().filter(|e| e.found()).map(|e| e.tick);
            let root = Sharp::on(canvas)?.into_drawing_area();
            root.fill(&WHITE)
                .map_err(|e| js_err(ticklab_plot::fail(e)))?;
            match view {
                "raw" => ticklab_plot::raw_banded(&root, values, &levels, tick, unit),
                "sorted" => ticklab_plot::sorted(&root, values, unit),
                "diff_sorted" => ticklab_plot::diff_sorted(&root, values, unit),
                "histogram" => ticklab_plot::histogram(&root, values, 60, unit),
                other => return Err(js_err(format!("no view '{other}'"))),
            }
            .map_err(js_err)?;
            root.present().map_err(|e| js_err(ticklab_plot::fail(e)))
        }

        /// Forgets the digests of other reports.
        pub fn clear_digests(&mut self) {
            self.session.clear_digests();
        }

        /// Clocks × reports, a group per clock, rows sorted by column `sort` of
        /// `columns().matrix`: `[{clock, rows: [{place, cells}]}]`.
        pub fn matrix(&self, sort: usize, descending: bool) -> Result<JsValue, JsError> {
            to_js(&self.session.matrix(sort, descending))
        }

        /// The matrix as CSV text.
        pub fn matrix_csv(&self, sort: usize, descending: bool) -> String {
            class::matrix_csv(&self.session.matrix(sort, descending))
        }

        /// This run's summary for a result link, as JSON text (no samples).
        pub fn share(&self) -> Result<String, JsError> {
            json_text_of(&self.session.share().map_err(js_err)?, 0)
        }

        /// Opens a result link's JSON text: `{line, rows: [cells]}` to show read-only.
        pub fn open_shared(&mut self, text: &str) -> Result<JsValue, JsError> {
            #[derive(Serialize)]
            struct Shown {
                line: String,
                rows: Vec<Vec<String>>,
            }
            let d: Digest = parse_json(text)?;
            let d = self.session.open_shared(d).map_err(js_err)?;
            to_js(&Shown {
                line: d.line(),
                rows: d.clocks.iter().map(|c| c.cells.clone()).collect(),
            })
        }

        /// What crossed the boundary so far: `{reports_out, clocks_in, clocks_out,
        /// native_imports}`.
        pub fn crossings(&self) -> Result<JsValue, JsError> {
            to_js(&self.session.crossings())
        }
    }

    /// The digest of a report's JSON text, `from` a file or the server, for the page's
    /// [`Lab::add_digest`]; made in a worker, so thirty files never hold up the page.
    /// Malformed, foreign and oversized reports are refused with a message.
    #[wasm_bindgen]
    pub fn digest_report(text: &str, from: &str) -> Result<JsValue, JsError> {
        let r = parse_report(text).map_err(|e| js_err(format!("Could not read {from}: {e}")))?;
        to_js(&Digest::of(&r, from))
    }

    /// Runs the playground's simulated clock for knobs `{tick, jitter, read, per_n}` (the
    /// sliders' positions) and returns its `ClockReport`, for the page's [`Lab::add_play`].
    #[wasm_bindgen]
    pub fn play(knobs: JsValue) -> Result<JsValue, JsError> {
        let k: Knobs = from_js(knobs, "playground")?;
        let seed = 0x91a7 ^ js_sys::Date::now() as u64;
        to_js(&playground::run(&k, seed).map_err(js_err)?)
    }

    /// Refuses a report of `bytes` from `from` before it is read, if it is too large.
    #[wasm_bindgen]
    pub fn check_report_size(bytes: f64, from: &str) -> Result<(), JsError> {
        Report::check_size(bytes.min(usize::MAX as f64) as usize)
            .map_err(|e| js_err(format!("Could not read {from}: {e}")))
    }

    /// `v` as JSON text, indented by `indent` spaces, by the browser's JSON writer: a second
    /// writer in the module would cost the page a tenth of its weight.
    fn json_text_of<T: Serialize + ?Sized>(v: &T, indent: u32) -> Result<String, JsError> {
        let value = to_js(v)?;
        js_sys::JSON::stringify_with_replacer_and_space(&value, &JsValue::NULL, &indent.into())
            .ok()
            .and_then(|s| s.as_string())
            .ok_or_else(|| js_err("the browser could not write the JSON"))
    }

    /// JSON text through the browser's parser, then into `T`.
    fn parse_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, JsError> {
        let v = js_sys::JSON::parse(text).map_err(|_| js_err("not JSON"))?;
        from_js(v, "result")
    }

    fn parse_report(text: &str) -> Result<Report, ticklab::Error> {
        use ticklab::report::Version;
        Report::check_size(text.len())?;
        let v = js_sys::JSON::parse(text).map_err(|e| {
            let why = e
                .dyn_ref::<js_sys::Error>()
                .map_or_else(|| "unreadable".to_string(), |e| String::from(e.message()));
            ticklab::Error::Report(format!("not JSON: {why}"))
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
        Report::check_version(version)?;
        serde_wasm_bindgen::from_value(v)
            .map_err(|e| ticklab::Error::Report(format!("malformed report: {}", said(e))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use catalogue::{ClockId, Context};
    use settings::RawSettings;

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
        let main = catalogue::entry(&ctx, ClockId::PerformanceNowMain);
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
        let sim = catalogue::entry(&ctx, ClockId::SimJiffy);
        assert!(plan_for(&sim, &s, true).unwrap().fits.is_empty());
    }
}
