//! The `Lab` handle the page holds, and the lab worker's protocol ([`Message`], [`answer`]):
//! one clock measured, reports read, the playground; words and plots from the core.

use super::*;
use catalogue::ClockId;
use class::Digest;
use playground::Knobs;

/// The id under which the page draws the playground's clock.
const PLAYGROUND: &str = "playground";
use js_sys::{Function, Int32Array, Object, Reflect};
use lab_state::{LabState, PageFacts};
use plotters::prelude::*;
use serde::Serialize;
use settings::RawSettings;
use ticklab::characterise::characterise;
use ticklab::present::SummaryRow;
use ticklab::report::{ClockReport, Report};
use ticklab::run::{Flow, Progress};
use ticklab_plot::View;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::canvas::Sharp;
use crate::clocks::build;
use crate::js::{from_js, js_err, said, to_js};

/// Panics become console errors with their message, not "unreachable executed".
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|p| {
        web_sys::console::error_1(&format!("ticklab: {p}").into());
    }));
}

/// `{experiment, fraction, samples}` of a progress.
fn progress_object(p: &Progress<'_>) -> Object {
    let fields = [
        ("experiment", p.experiment.into()),
        ("fraction", p.fraction.into()),
        ("samples", (p.samples as f64).into()),
    ];
    object(Object::new(), &fields)
}

/// An observer that reports progress to `progress` and cancels when it returns truthy.
fn observer(progress: &Function) -> impl FnMut(&Progress<'_>) -> Flow + '_ {
    move |p: &Progress<'_>| -> Flow {
        let o = progress_object(p);
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
    state: LabState,
}

#[wasm_bindgen]
impl Lab {
    /// A lab for a page in context `ctx` (`{user_agent, isolated, audio_sample_rate,
    /// shared_counter, shared_memory}`).
    #[wasm_bindgen(constructor)]
    pub fn new(ctx: JsValue) -> Result<Lab, JsError> {
        Ok(Lab {
            state: LabState::new(from_js(ctx, "context")?),
        })
    }

    /// The headers of the summary, the class matrix and a shared result, the same words as
    /// the command's tables, and the keys the matrix sorts by: `{summary, matrix,
    /// matrix_keys, figures}`.
    pub fn columns(&self) -> Result<JsValue, JsError> {
        #[derive(Serialize)]
        struct Columns {
            summary: &'static [&'static str],
            matrix: &'static [&'static str],
            matrix_keys: &'static [&'static str],
            figures: &'static [&'static str],
        }
        to_js(&Columns {
            summary: &ticklab::present::SUMMARY_COLUMNS,
            matrix: &class::MATRIX_COLUMNS,
            matrix_keys: &class::MATRIX_KEYS,
            figures: &class::FIGURES,
        })
    }

    /// Whether the AudioContext is suspended as its clocks are sampled: their reason, if they
    /// stand still, is then that and not a frozen clock.
    pub fn set_audio_suspended(&mut self, suspended: bool) {
        self.state.set_audio_suspended(suspended);
    }

    /// What cross-origin isolation means for this page, in this browser, with or without
    /// SharedArrayBuffer.
    pub fn isolation_note(&self) -> String {
        let ctx = self.state.context();
        ticklab_first::isolation_note(
            catalogue::browser(&ctx.user_agent),
            ctx.isolated,
            ctx.shared_memory,
            !ctx.not_secure,
        )
    }

    /// The rows of the clock choice, every cell in words.
    pub fn choices(&self) -> Result<JsValue, JsError> {
        to_js(&self.state.choices())
    }

    /// Checks the form once for the run (the error names the bad field) and returns it
    /// checked, for the worker.
    pub fn set_settings(&mut self, raw: JsValue) -> Result<JsValue, JsError> {
        let raw: RawSettings = from_js(raw, "settings")?;
        to_js(self.state.set_settings(&raw).map_err(js_err)?)
    }

    /// Seconds of sampling the checked form asks for.
    pub fn sample_s(&self) -> Result<f64, JsError> {
        Ok(self.state.settings().map_err(js_err)?.sample_s)
    }

    /// Seconds a count of messages or timeouts runs: half the sampling time, as it runs
    /// after the sampling (hundreds of counts calibrate a rate to within a tick of
    /// performance.now over the span).
    pub fn count_s(&self) -> Result<f64, JsError> {
        Ok(self.state.settings().map_err(js_err)?.sample_s / 2.0)
    }

    /// Forgets the last run.
    pub fn start(&mut self) {
        self.state.start();
    }

    /// Runs clock `id` here, on the page's thread, keeps its result and returns its
    /// summary row. `progress` gets `{experiment, fraction, samples}` every 20 ms, and a
    /// truthy return cancels.
    pub fn run_here(
        &mut self,
        id: &str,
        fit: bool,
        progress: Function,
    ) -> Result<JsValue, JsError> {
        let id = ClockId::parse(id).map_err(js_err)?;
        let settings = self.state.settings().map_err(js_err)?.clone();
        let entry = self.state.entry(id).clone();
        let report =
            measure(&entry, &settings, fit, None, &mut observer(&progress)).map_err(js_err)?;
        self.state.add_measured(id, report);
        self.rows()
    }

    /// Keeps the report the worker measured for clock `id`; returns the summary rows (a
    /// new clock can change another's: a read cost below its base's becomes a dash).
    pub fn add_result(&mut self, id: &str, report: JsValue) -> Result<JsValue, JsError> {
        let id = ClockId::parse(id).map_err(js_err)?;
        let report: ClockReport = from_js(report, "clock report")?;
        self.state.add_from_worker(id, report);
        self.rows()
    }

    /// Records that clock `id` could not be measured; returns the summary rows.
    pub fn add_failure(&mut self, id: &str, message: &str) -> Result<JsValue, JsError> {
        let id = ClockId::parse(id).map_err(js_err)?;
        self.state.add_failure(id, message);
        self.rows()
    }

    /// The tick of sampled clock `id` from readings in its raw unit taken over
    /// `elapsed_s`; keeps it and returns the summary rows.
    pub fn add_readings(
        &mut self,
        id: &str,
        readings: Vec<f64>,
        elapsed_s: f64,
    ) -> Result<JsValue, JsError> {
        let id = ClockId::parse(id).map_err(js_err)?;
        self.state
            .add_readings(id, &readings, elapsed_s)
            .map_err(js_err)?;
        self.rows()
    }

    /// The tick of counted clock `id` from `counts` read at `times_ms` of performance.now
    /// over `elapsed_s`; keeps it and returns the summary rows.
    pub fn add_counts(
        &mut self,
        id: &str,
        times_ms: Vec<f64>,
        counts: Vec<f64>,
        elapsed_s: f64,
    ) -> Result<JsValue, JsError> {
        let id = ClockId::parse(id).map_err(js_err)?;
        self.state
            .add_counts(id, &times_ms, &counts, elapsed_s)
            .map_err(js_err)?;
        self.rows()
    }

    /// The line ranking the clocks measured, finest first, or nothing yet.
    pub fn ranking(&self) -> Option<String> {
        self.state.ranking()
    }

    /// Assembles the run's report (kept here) from what the page knows of itself:
    /// `{cpus, hidden_during_run}`.
    pub fn finish(&mut self, facts: JsValue) -> Result<(), JsError> {
        let mut facts: PageFacts = from_js(facts, "page facts")?;
        facts.created_unix_ms = Some(js_sys::Date::now() as u64);
        self.state.finish(&facts);
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
            .state
            .rows()
            .into_iter()
            .map(|(id, row)| Row { id, row })
            .collect();
        to_js(&rows)
    }

    /// The clocks with plots to show: `[[id, name]]`.
    pub fn detail_choices(&self) -> Result<JsValue, JsError> {
        to_js(&self.state.with_detail())
    }

    /// The sentences and views of clock `id`'s result, or null.
    pub fn detail(&self, id: &str) -> Result<JsValue, JsError> {
        let id = ClockId::parse(id).map_err(js_err)?;
        to_js(&self.state.detail(id))
    }

    /// Draws `view` ("raw", "sorted", "diff_sorted", "histogram", "grid", "overhead",
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
            self.state.play()
        } else {
            self.state.result(ClockId::parse(id).map_err(js_err)?)
        }
        .ok_or_else(|| js_err(format!("{id}: not measured")))?;
        described(&canvas, &ticklab_plot::describe(c, view))?;
        let root = Sharp::on(canvas)?.into_drawing_area();
        root.fill(&WHITE)
            .map_err(|e| js_err(ticklab_plot::fail(e)))?;
        ticklab_plot::draw(&root, c, view).map_err(js_err)?;
        root.present().map_err(|e| js_err(ticklab_plot::fail(e)))
    }

    /// The run's report as JSON text, for Export.
    pub fn export_json(&mut self) -> Result<String, JsError> {
        json_text_of(self.state.export().map_err(js_err)?, 2)
    }

    /// Every table and plot's data as CSV, for Export: `[{name, csv}]`.
    pub fn export_csv(&mut self) -> Result<JsValue, JsError> {
        to_js(&self.state.export_csv().map_err(js_err)?)
    }

    /// Keeps the digest of another report, made in a worker ([`Message::Digests`]), and
    /// says what it holds.
    pub fn add_digest(&mut self, digest: JsValue) -> Result<String, JsError> {
        let d: Digest = from_js(digest, "digest")?;
        self.state.add_digest(d).map_err(js_err)
    }

    /// The tick lesson's example from the machine serving the page, once its report was
    /// taken in (`add_digest` from "the server"); none otherwise.
    pub fn served_lesson(&self) -> Option<String> {
        self.state.served_lesson()
    }

    /// The playground's knobs in words, for the labels beside the sliders.
    pub fn knob_words(&self, knobs: JsValue) -> Result<JsValue, JsError> {
        let k: Knobs = from_js(knobs, "playground")?;
        to_js(&k.words().map_err(js_err)?)
    }

    /// Keeps the playground's result from the worker: `{tick, overhead, fit}` in words.
    pub fn add_play(&mut self, report: JsValue) -> Result<JsValue, JsError> {
        let report: ClockReport = from_js(report, "clock report")?;
        to_js(&self.state.add_play(report))
    }

    /// Timings measured elsewhere (a file's bytes, read as `ticklab analyze` reads them:
    /// UTF-8 with or without a byte-order mark, or UTF-16; or a paste; named `name`), analysed as
    /// `ticklab analyze` does with plain numbers in `unit` ("s", "ms", "us", "ns",
    /// "ticks"), read as `read_as` ("auto", "durations", "readings"): the overview,
    /// detail, answer, bands and notes in words.
    pub fn analyze(
        &mut self,
        bytes: &[u8],
        name: &str,
        unit: &str,
        read_as: &str,
    ) -> Result<JsValue, JsError> {
        let json = |b: &[u8]| -> Result<serde_json::Value, String> {
            let text = std::str::from_utf8(b).map_err(|_| "not UTF-8 text".to_string())?;
            let v = js_sys::JSON::parse(text).map_err(|_| "not JSON".to_string())?;
            serde_wasm_bindgen::from_value(v).map_err(|e| e.to_string())
        };
        let words = self
            .state
            .analyze(bytes, name, unit, read_as, &json)
            .map_err(js_err)?;
        to_js(&words)
    }

    /// Draws `view` ("raw", "sorted", "diff_sorted", "histogram") of the last analysed
    /// timings on `canvas`.
    pub fn draw_analysis(&self, canvas: HtmlCanvasElement, view: &str) -> Result<(), JsError> {
        let a = self
            .state
            .analysed()
            .ok_or_else(|| js_err("nothing analysed yet"))?;
        let (values, unit) = (
            &a.series.values,
            ticklab::present::analysis::unit_name(a.series.unit),
        );
        let levels: Vec<f64> = a.bands.iter().map(|b| b.level).collect();
        let tick = a.estimate.as_ref().filter(|e| e.found()).map(|e| e.tick);
        let view = View::parse(view, 0).map_err(js_err)?;
        described(
            &canvas,
            &ticklab_plot::describe_values(values, &levels, tick, unit, view),
        )?;
        let root = Sharp::on(canvas)?.into_drawing_area();
        root.fill(&WHITE)
            .map_err(|e| js_err(ticklab_plot::fail(e)))?;
        match view {
            View::Raw => ticklab_plot::raw_banded(&root, values, &levels, tick, unit),
            View::Sorted => ticklab_plot::sorted(&root, values, unit),
            View::DiffSorted => ticklab_plot::diff_sorted(&root, values, unit),
            View::Histogram => ticklab_plot::histogram(&root, values, 60, unit),
            other => return Err(js_err(format!("no view '{}' of timings", other.name()))),
        }
        .map_err(js_err)?;
        root.present().map_err(|e| js_err(ticklab_plot::fail(e)))
    }

    /// Forgets the digests of other reports.
    pub fn clear_digests(&mut self) {
        self.state.clear_digests();
    }

    /// Clocks × reports, a group per clock, rows sorted by the column of key `sort`
    /// (`columns().matrix_keys`): `[{clock, rows: [{place, cells}]}]`.
    pub fn matrix(&self, sort: &str, descending: bool) -> Result<JsValue, JsError> {
        let sort = class::Column::parse(sort).map_err(js_err)?;
        to_js(&self.state.matrix(sort, descending))
    }

    /// The matrix as CSV text.
    pub fn matrix_csv(&self, sort: &str, descending: bool) -> Result<String, JsError> {
        let sort = class::Column::parse(sort).map_err(js_err)?;
        Ok(class::matrix_csv(&self.state.matrix(sort, descending)))
    }

    /// This run's summary for a result link, as JSON text (no samples).
    pub fn share(&self) -> Result<String, JsError> {
        json_text_of(&self.state.share().map_err(js_err)?, 0)
    }

    /// Opens a result link's JSON text: `{line, rows: [cells]}` to show read-only.
    pub fn open_shared(&mut self, text: &str) -> Result<JsValue, JsError> {
        #[derive(Serialize)]
        struct Shown {
            line: String,
            rows: Vec<class::Figures>,
        }
        let d: Digest = parse_json(text)?;
        let d = self.state.open_shared(d).map_err(js_err)?;
        to_js(&Shown {
            line: d.line(),
            rows: d.clocks.iter().map(|c| c.figures.clone()).collect(),
        })
    }

    /// What crossed the boundary so far: `{reports_out, clocks_in, digests_in}`.
    pub fn crossings(&self) -> Result<JsValue, JsError> {
        to_js(&self.state.crossings())
    }
}

/// Gives `canvas` its text alternative: an image (to assistive technology) named by what
/// the plot shows.
fn described(canvas: &HtmlCanvasElement, words: &str) -> Result<(), JsError> {
    let set = |k: &str, v: &str| {
        canvas
            .set_attribute(k, v)
            .map_err(|_| js_err("a canvas refused its text alternative"))
    };
    set("role", "img")?;
    set("aria-label", words)
}

/// Every message between the page and a lab worker, by kind, written as the `kind` field
/// of `{kind, id?, ...}`. The page asks: `Run` clock `id` (`ctx`, `settings`, `fit`,
/// `counter`), `Play` the playground (`knobs`), `Digests` of files (`items`: `{name,
/// blob}`), `Count` a MessageChannel's messages (`seconds`), `Bench` (`ctx`, `counter`).
/// The worker answers `Progress` (`fraction`, `experiment`, `samples`) while it runs, then
/// `Measured` (`report`: the clock's `ClockReport`), `Counted` (`times`, `counts`,
/// `elapsed`), `Played` (`report`), `Digested` (`out`: `{name, digest}` or `{name,
/// error}`), `Benched` (`rows`) or `Failed` (`message`). Every answer carries the ask's
/// `id`. The worker's one entry point for the Rust side is [`answer`]; Count's messages are
/// JavaScript events, which worker.js counts.
#[wasm_bindgen]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Message {
    Run,
    Play,
    Digests,
    Count,
    Bench,
    Progress,
    Measured,
    Counted,
    Played,
    Digested,
    Benched,
    Failed,
}

impl Message {
    /// The kind a message's `kind` field names.
    fn of(v: &JsValue) -> Option<Message> {
        use Message::*;
        let k = field(v, "kind").as_f64()?;
        [Run, Play, Digests, Count, Bench]
            .into_iter()
            .find(|m| *m as u32 as f64 == k)
    }
}

/// Answers `ask` (a [`Message`] the page posted to a lab worker) through `post`: progress
/// while it runs, then its one answer. What fails is returned, for the worker to post as
/// `Failed`.
#[wasm_bindgen]
pub fn answer(ask: JsValue, post: &Function) -> Result<(), JsError> {
    let id = field(&ask, "id");
    let send = |o: Object| {
        post.call1(&JsValue::NULL, &o)
            .map(|_| ())
            .map_err(|_| js_err("could not post"))
    };
    let reply = |kind: Message, key: &str, value: JsValue| {
        send(object(
            Object::new(),
            &[
                ("kind", (kind as u32).into()),
                ("id", id.clone()),
                (key, value),
            ],
        ))
    };
    let counter = || {
        let sab = field(&ask, "counter");
        (!sab.is_null() && !sab.is_undefined()).then(|| Int32Array::new(&sab))
    };
    match Message::of(&ask) {
        Some(Message::Run) => {
            let ctx: catalogue::Context = from_js(field(&ask, "ctx"), "context")?;
            let settings: Settings = from_js(field(&ask, "settings"), "settings")?;
            let name = id.as_string().unwrap_or_default();
            let entry = catalogue::entry(&ctx, ClockId::parse(&name).map_err(js_err)?);
            let fit = field(&ask, "fit").is_truthy();
            // The page cancels a worker's run by ending the worker: progress only goes out.
            let mut progress = |p: &Progress<'_>| {
                let kind = (Message::Progress as u32).into();
                let _ = send(object(
                    progress_object(p),
                    &[("kind", kind), ("id", id.clone())],
                ));
                Flow::Continue
            };
            let report =
                measure(&entry, &settings, fit, counter(), &mut progress).map_err(js_err)?;
            reply(Message::Measured, "report", to_js(&report)?)
        }
        Some(Message::Play) => {
            let k: Knobs = from_js(field(&ask, "knobs"), "playground")?;
            let seed = 0x91a7 ^ js_sys::Date::now() as u64;
            let report = playground::run(&k, seed).map_err(js_err)?;
            reply(Message::Played, "report", to_js(&report)?)
        }
        Some(Message::Digests) => {
            let items: js_sys::Array = field(&ask, "items")
                .dyn_into()
                .map_err(|_| js_err("no files to read"))?;
            let out = js_sys::Array::new();
            for item in items.iter() {
                let name = field(&item, "name").as_string().unwrap_or_default();
                match read_digests(&field(&item, "blob"), &name) {
                    Ok(ds) => {
                        for d in ds {
                            let fields = [("name", d.from.as_str().into()), ("digest", to_js(&d)?)];
                            out.push(&object(Object::new(), &fields));
                        }
                    }
                    Err(why) => {
                        let fields = [("name", name.into()), ("error", why.into())];
                        out.push(&object(Object::new(), &fields));
                    }
                }
            }
            reply(Message::Digested, "out", out.into())
        }
        Some(Message::Bench) => {
            bench_answer(&ask, counter()).and_then(|rows| reply(Message::Benched, "rows", rows))
        }
        Some(Message::Count) | None | Some(_) => {
            Err(js_err("a lab worker cannot answer this message"))
        }
    }
}

/// `o` with `fields` set: a message, or an item of one.
fn object(o: Object, fields: &[(&str, JsValue)]) -> Object {
    for (key, value) in fields {
        let _ = Reflect::set(&o, &(*key).into(), value);
    }
    o
}

/// The page's figures, in a build for `cargo xtask bench`.
#[cfg(feature = "bench")]
fn bench_answer(ask: &JsValue, counter: Option<Int32Array>) -> Result<JsValue, JsError> {
    crate::bench::bench(field(ask, "ctx"), crate::bench::plain_loop_ns(), counter)
}

#[cfg(not(feature = "bench"))]
fn bench_answer(_: &JsValue, _: Option<Int32Array>) -> Result<JsValue, JsError> {
    Err(js_err(
        "this build has no benchmark: run `cargo xtask bench`",
    ))
}

/// The digests of one file (a `Blob`) the page chose: refused unread if larger than a report
/// may be, else read here (a worker may read a file at once) and reduced.
fn read_digests(blob: &JsValue, from: &str) -> Result<Vec<Digest>, String> {
    let said = |e: ticklab::Error| format!("Could not read {from}: {e}");
    let blob: &web_sys::Blob = blob
        .dyn_ref()
        .ok_or_else(|| format!("{from}: not a file"))?;
    Report::check_size(blob.size().min(usize::MAX as f64) as usize).map_err(said)?;
    let text = web_sys::FileReaderSync::new()
        .and_then(|r| r.read_as_text(blob))
        .map_err(|_| format!("Could not read {from}: the browser could not read the file"))?;
    digests_of(&text, from).map_err(said)
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

/// A field of a JSON object as the page's parser gave it (undefined if `v` is no object).
fn field(v: &JsValue, name: &str) -> JsValue {
    if v.is_object() {
        Reflect::get(v, &name.into()).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

/// A document's version field, as found.
fn version_of(v: &JsValue, name: &str) -> ticklab::report::Version {
    use ticklab::report::Version;
    let f = field(v, name);
    if f.is_undefined() {
        return Version::Missing;
    }
    match f.as_f64() {
        Some(f) if f >= 0.0 && f.fract() == 0.0 && f < 9e15 => Version::Whole(f as u64),
        _ => Version::NotWhole,
    }
}

/// A report's tree, checked and read.
fn report_of(v: JsValue) -> Result<Report, ticklab::Error> {
    Report::check_version(version_of(&v, "schema_version"))?;
    serde_wasm_bindgen::from_value(v)
        .map_err(|e| ticklab::Error::Report(format!("malformed report: {}", said(e))))
}

/// A report's or a comparison's JSON text, through the browser's parser.
fn parse_any(text: &str) -> Result<JsValue, ticklab::Error> {
    js_sys::JSON::parse(text).map_err(|e| {
        let why = e
            .dyn_ref::<js_sys::Error>()
            .map_or_else(|| "unreadable".to_string(), |e| String::from(e.message()));
        ticklab::Error::Report(format!("not JSON: {why}"))
    })
}

/// The digests of a report (one) or of a comparison `ticklab browsers` saved (one per run
/// that measured, named `from` and the run's heading), checked as the command checks them.
fn digests_of(text: &str, from: &str) -> Result<Vec<Digest>, ticklab::Error> {
    use ticklab::comparison::Comparison;
    // A report's limit for any file: a comparison of six engines is 2 MB.
    Report::check_size(text.len())?;
    let v = parse_any(text)?;
    if field(&v, "ticklab_comparison").is_undefined() {
        return Ok(vec![Digest::of(&report_of(v)?, from)]);
    }
    Comparison::check_format(version_of(&v, "ticklab_comparison"))?;
    let runs: js_sys::Array = field(&v, "runs")
        .dyn_into()
        .map_err(|_| ticklab::Error::Report("malformed comparison: no runs".into()))?;
    Comparison::check_runs(runs.length() as usize)?;
    let mut out = Vec::new();
    for run in runs.iter() {
        let report = field(&run, "report");
        if report.is_undefined() {
            continue; // an engine that was missing or failed: nothing measured
        }
        let engine = field(&run, "engine").as_string().unwrap_or_default();
        let head = ticklab::present::engine_heading(&engine, field(&run, "isolated").as_bool());
        out.push(Digest::of(&report_of(report)?, &format!("{from}: {head}")));
    }
    if out.is_empty() {
        return Err(ticklab::Error::Report(
            "this comparison holds no run that measured".into(),
        ));
    }
    Ok(out)
}
