//! What the page's [`Lab`](crate::Lab) handle keeps in wasm memory between calls: the form,
//! the results, the report, the digests of reports a class compares, and the count of what crossed the
//! boundary. Pure Rust, so it is tested natively; `lib.rs` only converts at the boundary.

use serde::Serialize;
use ticklab::caveat::Caveat;
use ticklab::clock::{ClockInfo, CountPeriod};
use ticklab::export::CsvTable;
use ticklab::present::{self, SummaryRow};
use ticklab::report::{ClockReport, Environment, ExperimentError, Platform, Report};
use ticklab::run::{Budget, Stop};
use ticklab::tick::{self, TickOptions};
use ticklab::Error;
use ticklab_plot::View;

use crate::catalogue::{self, ClockId, Context, Entry, Place};
use crate::class::{self, Digest, Group};
use crate::settings::{RawSettings, Settings};
use ticklab::analyze::{self, formats::JsonParser, Analysis, Unit};

/// Whole reports and single clock reports that crossed the wasm boundary. A page's run
/// moves each worker clock's report in once and nothing else; a whole report leaves only
/// when the visitor exports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Crossings {
    /// Whole reports handed out to JavaScript (exports).
    pub reports_out: u32,
    /// Clock reports handed in (from the worker).
    pub clocks_in: u32,
    /// Digests of other reports taken in (files, the server's, a link).
    pub digests_in: u32,
}

/// One row of the page's clock choice, every cell in words.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Choice {
    /// The clock's id.
    pub id: ClockId,
    /// Its name.
    pub name: String,
    /// What it is.
    pub description: String,
    /// Whether it can run here.
    pub available: bool,
    /// Why not.
    pub reason: Option<String>,
    /// Where it is read, for the page to route it.
    pub runs_in: Place,
    /// Where it is read, in words.
    pub place: &'static str,
    /// Whether it reads the SharedArrayBuffer counter, whose worker runs only meanwhile.
    pub counter: bool,
    /// The claimed resolution and who claims it.
    pub claimed: String,
    /// Whether a fit runs on it by default.
    pub fit: bool,
    /// Whether a fit can run on it.
    pub can_fit: bool,
}

/// The sentences under one clock's plots, and the views it has.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Detail {
    /// The tick in a sentence.
    pub tick: Option<String>,
    /// The read cost in a sentence.
    pub overhead: Option<String>,
    /// The first fit in a sentence.
    pub fit: Option<String>,
    /// The views the plots can show ("raw", "overhead", "fit"...).
    pub views: Vec<&'static str>,
}

/// Timings measured elsewhere, analysed, in the command's words.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Analyzed {
    /// The overview's columns.
    pub columns: &'static [&'static str],
    /// One row a series (and all together, when several share a unit).
    pub overview: Vec<Vec<String>>,
    /// The main series' detail: `[label, words]`.
    pub detail: Vec<[String; 2]>,
    /// What the tick means for these timings.
    pub answer: String,
    /// The bands, "level (n ticks): count".
    pub bands: Vec<String>,
    /// How the values were made and the estimate's caveats.
    pub notes: Vec<String>,
    /// The tick in ns, when one was found and the unit is a time.
    pub tick_ns: Option<f64>,
}

/// What the page adds to the report of its run.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
#[serde(default)]
pub struct PageFacts {
    /// navigator.hardwareConcurrency.
    pub cpus: Option<u32>,
    /// Whether the page was hidden at any time during the run.
    pub hidden_during_run: bool,
    /// When the run ended, in ms since the Unix epoch.
    pub created_unix_ms: Option<u64>,
}

/// The page's lab: its clocks, the form, the results and reports.
pub struct LabState {
    ctx: Context,
    entries: Vec<Entry>,
    settings: Option<Settings>,
    results: Vec<(ClockId, ClockReport)>,
    report: Option<Report>,
    /// The ids of the report's clocks, in its order: a finished run's results move into
    /// its report, not copied.
    reported: Vec<ClockId>,
    digests: Vec<Digest>,
    shared: Option<Digest>,
    play: Option<ClockReport>,
    analysis: Option<Analysis>,
    crossings: Crossings,
}

fn place_label(p: Place) -> &'static str {
    match p {
        Place::Worker => "worker",
        Place::Simulated => "its own worker",
        Place::Main => "main thread",
        Place::Sampled => "sampled per frame or task",
        Place::Counted => "counted against performance.now",
    }
}

impl LabState {
    /// A lab for a page in `ctx`.
    pub fn new(ctx: Context) -> Self {
        Self {
            entries: catalogue::entries(&ctx),
            ctx,
            settings: None,
            results: Vec::new(),
            report: None,
            reported: Vec::new(),
            digests: Vec::new(),
            shared: None,
            play: None,
            analysis: None,
            crossings: Crossings::default(),
        }
    }

    /// The page's context.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The clock `id` of this page.
    pub fn entry(&self, id: ClockId) -> &Entry {
        self.entries
            .iter()
            .find(|e| e.id == id)
            .expect("every id has an entry (tested)")
    }

    /// The rows of the clock choice.
    pub fn choices(&self) -> Vec<Choice> {
        self.entries
            .iter()
            .map(|e| Choice {
                id: e.id,
                name: e.info.name.clone(),
                description: e.info.description.clone(),
                available: e.available,
                reason: e.reason.clone(),
                runs_in: e.place,
                place: place_label(e.place),
                counter: e.id.reads_counter(),
                claimed: e.info.claimed.as_ref().map_or(present::DASH.into(), |c| {
                    format!("{} ({})", present::duration(c.ns), c.source)
                }),
                fit: e.available && e.fit,
                can_fit: e.available && e.can_fit,
            })
            .collect()
    }

    /// Checks the form, once for the whole run; the error names the bad field.
    pub fn set_settings(&mut self, raw: &RawSettings) -> Result<&Settings, String> {
        Ok(self.settings.insert(Settings::parse(raw)?))
    }

    /// The form as last checked.
    pub fn settings(&self) -> Result<&Settings, String> {
        self.settings
            .as_ref()
            .ok_or_else(|| "the form has not been checked yet".to_string())
    }

    /// Forgets the last run's results and report.
    pub fn start(&mut self) {
        self.results.clear();
        self.report = None;
        self.reported.clear();
    }

    fn add(&mut self, id: ClockId, mut report: ClockReport) -> SummaryRow {
        // Its tick may say which of the browser's documented clamps applies (Firefox's
        // resistFingerprinting).
        let browser = catalogue::browser(&self.ctx.user_agent);
        ticklab_first::hold_against_applicable(&mut report, browser, self.ctx.isolated);
        self.results.retain(|(i, _)| *i != id);
        self.results.push((id, report));
        // A clock's read cost against the clock it reads underneath, measured so far.
        ticklab::characterise::check_bases(
            &mut self.results.iter_mut().map(|(_, c)| c).collect::<Vec<_>>(),
        );
        let (_, report) = self.results.last().expect("just pushed");
        SummaryRow::new(report, &[])
    }

    /// Keeps the report of a clock measured in the worker, handed in.
    pub fn add_from_worker(&mut self, id: ClockId, report: ClockReport) -> SummaryRow {
        self.crossings.clocks_in += 1;
        self.add(id, report)
    }

    /// Keeps the report of a clock measured here.
    pub fn add_measured(&mut self, id: ClockId, report: ClockReport) -> SummaryRow {
        self.add(id, report)
    }

    /// Whether the AudioContext is suspended as its clocks are sampled (it waits for a
    /// click the browser accepts).
    pub fn set_audio_suspended(&mut self, suspended: bool) {
        self.ctx.audio_suspended = suspended;
    }

    /// Records that clock `id` could not be measured, and why: the browser's own message
    /// (a worker that failed, a clock that would not start).
    pub fn add_failure(&mut self, id: ClockId, message: &str) -> SummaryRow {
        let mut r = ClockReport::new(self.entry(id).info.clone());
        r.errors.push(ExperimentError {
            experiment: "run".into(),
            kind: Default::default(),
            cause: Caveat::Text {
                text: message.into(),
            },
        });
        self.add(id, r)
    }

    /// Clock `id`'s entry when it can run here; else its result, kept, says why not.
    fn available(&mut self, id: ClockId) -> Result<Entry, SummaryRow> {
        let entry = self.entry(id).clone();
        if entry.available {
            return Ok(entry);
        }
        let why = entry.reason.clone().unwrap_or_default();
        Err(self.add(id, ClockReport::unavailable(entry.info, why)))
    }

    /// The tick of sampled clock `id` from readings in its raw unit (ms or s) taken over
    /// `elapsed_s`; readings that are not finite non-negative times are left out and noted.
    pub fn add_readings(
        &mut self,
        id: ClockId,
        readings: &[f64],
        elapsed_s: f64,
    ) -> Result<SummaryRow, String> {
        let entry = match self.available(id) {
            Ok(entry) => entry,
            Err(row) => return Ok(row),
        };
        let mut info = entry.info;
        if id == ClockId::CssAnimation {
            info = info.with_quantum(printed_step(readings) * entry.counts_per_unit);
        }
        self.tick_of(id, info, readings, entry.counts_per_unit, elapsed_s)
    }

    /// The tick of counted clock `id` (a count of messages or timeouts) from `counts` read
    /// at `times_ms` of performance.now over `elapsed_s`: its rate is calibrated from the
    /// first pair to the last.
    pub fn add_counts(
        &mut self,
        id: ClockId,
        times_ms: &[f64],
        counts: &[f64],
        elapsed_s: f64,
    ) -> Result<SummaryRow, String> {
        let entry = match self.available(id) {
            Ok(entry) => entry,
            Err(row) => return Ok(row),
        };
        let mut info = entry.info;
        match ticklab::calibrate::count_rate(times_ms, counts) {
            Some((ns, span_ms)) => {
                info.period = CountPeriod::Calibrated {
                    ns,
                    against: format!("performance.now over {span_ms:.0} ms"),
                }
            }
            None => {
                let mut report = ClockReport::new(info);
                report.errors.push(ExperimentError::new(
                    "tick",
                    Error::NoData(Caveat::TooFewReadings {
                        readings: counts.len().min(times_ms.len()) as u64,
                    }),
                ));
                return Ok(self.add(id, report));
            }
        }
        self.tick_of(id, info, counts, 1.0, elapsed_s)
    }

    fn tick_of(
        &mut self,
        id: ClockId,
        info: ClockInfo,
        readings: &[f64],
        counts_per_unit: f64,
        elapsed_s: f64,
    ) -> Result<SummaryRow, String> {
        let sample_s = self.settings()?.sample_s;
        let mut report = ClockReport::new(info.clone());
        let budget = Budget::new(sample_s, 1_000_000).map_err(|e| e.to_string())?;
        let stop = if elapsed_s + 1e-3 >= sample_s {
            Stop::Time
        } else {
            Stop::Samples
        };
        let kind = self.entry(id).read_as().values();
        let opts = TickOptions::new(budget);
        match tick::from_values(
            &info,
            readings,
            counts_per_unit,
            kind,
            elapsed_s,
            stop,
            &opts,
        ) {
            Ok(t) => report.tick = Some(t),
            // A suspended audio context's clocks stand still: said as such, not as frozen.
            Err(Error::Frozen { .. } | Error::NoData(Caveat::TooFewReadings { .. }))
                if self.ctx.audio_suspended && id.is_audio() =>
            {
                report.errors.push(ExperimentError::new(
                    "tick",
                    Error::NoData(Caveat::AudioSuspended),
                ))
            }
            Err(e) => report.errors.push(ExperimentError::new("tick", e)),
        }
        Ok(self.add(id, report))
    }

    /// The line ranking the clocks measured so far, finest first, against performance.now
    /// (the worker's): the core's ranking, each clock read as its place says.
    pub fn ranking(&self) -> Option<String> {
        use ticklab::ranking::{step, Ranking};
        let steps = self
            .results
            .iter()
            .filter_map(|(id, r)| step(r, self.entry(*id).read_as().reading()))
            .collect();
        let r = Ranking::of(steps, ticklab::digest::PAGE_NOW, "performance.now")?;
        Some(present::ranking(&r, "this page built"))
    }

    /// The report of the run, the same schema as `ticklab run --json`, kept here.
    pub fn finish(&mut self, facts: &PageFacts) {
        let env = Environment {
            platform: Some(Platform::Browser),
            arch: Some("wasm32".into()),
            user_agent: Some(self.ctx.user_agent.clone()),
            cross_origin_isolated: Some(self.ctx.isolated),
            cpus: facts.cpus,
            hidden_during_run: Some(facts.hidden_during_run),
            created_unix_ms: facts.created_unix_ms,
            ..Default::default()
        };
        let mut r = Report::new(env);
        (self.reported, r.clocks) = std::mem::take(&mut self.results).into_iter().unzip();
        self.report = Some(r);
    }

    /// Keeps the playground's latest result (from the worker) and says what it shows.
    pub fn add_play(&mut self, report: ClockReport) -> Detail {
        self.crossings.clocks_in += 1;
        let c = self.play.insert(report);
        Detail {
            tick: present::tick_detail(c, &[]).or_else(|| Some(present::notes(c).join("; "))),
            overhead: present::overhead_detail(c),
            fit: present::fit_detail(c),
            views: View::of(c).into_iter().map(View::name).collect(),
        }
    }

    /// Timings measured elsewhere, `bytes` of a file or a paste named `name`, read and
    /// analysed as `ticklab analyze` does; plain numbers are in `unit`, and read as
    /// `read_as` ("auto", "durations", "readings": the command's --durations, --readings).
    pub fn analyze(
        &mut self,
        bytes: &[u8],
        name: &str,
        unit: &str,
        read_as: &str,
        json: JsonParser,
    ) -> Result<Analyzed, String> {
        let unit = Unit::parse(unit)?;
        let forced = match read_as {
            "auto" => None,
            "durations" => Some(analyze::Kind::Durations),
            "readings" => Some(analyze::Kind::Readings),
            other => {
                return Err(format!(
                    "read as '{other}': expected auto, durations or readings"
                ))
            }
        };
        let an = analyze::examine(bytes, None, name, Some(unit), json, forced)
            .map_err(|e| e.to_string())?;
        let m = an.main();
        let (columns, overview) = present::analysis::overview(&an);
        let words = Analyzed {
            columns,
            overview,
            detail: present::analysis::detail_rows(m),
            answer: present::analysis::answer(m),
            bands: present::analysis::band_lines(m),
            notes: present::analysis::notes(m),
            // A tick found, not a bound: what the page marks on its plots.
            tick_ns: m.estimate.as_ref().filter(|e| e.found()).and(m.tick_ns()),
        };
        self.analysis = Some(an);
        Ok(words)
    }

    /// The last analysis, for its plots.
    pub fn analysed(&self) -> Option<&analyze::SeriesAnalysis> {
        Some(self.analysis.as_ref()?.main())
    }

    /// The playground's latest result.
    pub fn play(&self) -> Option<&ClockReport> {
        self.play.as_ref()
    }

    /// The result of clock `id`, if it ran.
    pub fn result(&self, id: ClockId) -> Option<&ClockReport> {
        self.all().find(|(i, _)| *i == id).map(|(_, c)| c)
    }

    /// Every result with its id: the run's so far, then a finished run's.
    fn all(&self) -> impl Iterator<Item = (ClockId, &ClockReport)> {
        // A result handed in after the run finished stands for the report's.
        let done = self
            .report
            .iter()
            .flat_map(|r| self.reported.iter().copied().zip(&r.clocks))
            .filter(|(i, _)| self.results.iter().all(|(j, _)| j != i));
        self.results.iter().map(|(i, c)| (*i, c)).chain(done)
    }

    /// The summary rows of the run so far, with their ids.
    pub fn rows(&self) -> Vec<(ClockId, SummaryRow)> {
        self.all()
            .map(|(id, c)| (id, SummaryRow::new(c, &[])))
            .collect()
    }

    /// The clocks that have something to show in the detail view.
    pub fn with_detail(&self) -> Vec<(ClockId, String)> {
        self.all()
            .filter(|(_, c)| !View::of(c).is_empty())
            .map(|(id, c)| (id, c.info.name.clone()))
            .collect()
    }

    /// The sentences and views of clock `id`'s result.
    pub fn detail(&self, id: ClockId) -> Option<Detail> {
        let c = self.result(id)?;
        let mut views: Vec<&'static str> = View::of(c).into_iter().map(View::name).collect();
        views.dedup();
        Some(Detail {
            tick: present::tick_detail(c, &[]),
            overhead: present::overhead_detail(c),
            fit: present::fit_detail(c),
            views,
        })
    }

    fn whole_report(&mut self) -> Result<&Report, String> {
        self.crossings.reports_out += 1;
        self.report
            .as_ref()
            .ok_or_else(|| "there is no report yet: run the lab first".to_string())
    }

    /// The report, for Export (the page writes it as JSON with the browser's own writer).
    pub fn export(&mut self) -> Result<&Report, String> {
        self.whole_report()
    }

    /// Every table and plot's data as CSV, for Export.
    pub fn export_csv(&mut self) -> Result<Vec<CsvTable>, String> {
        Ok(ticklab::export::tables(self.whole_report()?))
    }

    /// Keeps the digest of another report (a file, the server's), and says what it holds.
    pub fn add_digest(&mut self, d: Digest) -> Result<String, String> {
        let d = d.check()?;
        self.crossings.digests_in += 1;
        let line = d.line();
        self.digests.retain(|x| x.from != d.from);
        self.digests.push(d);
        Ok(line)
    }

    /// CLOCK_MONOTONIC as the machine serving the page measured it, in words, when its
    /// report was taken in: the lesson's example, from this machine rather than another.
    pub fn served_lesson(&self) -> Option<String> {
        let d = self
            .digests
            .iter()
            .find(|d| d.from == class::SERVER && d.place == "native")?;
        let c = d.clocks.iter().find(|c| c.name() == "CLOCK_MONOTONIC")?;
        Some(present::served_machine_tick(
            &d.who.cpu,
            "CLOCK_MONOTONIC",
            &c.figures.tick,
            &c.figures.verdict,
        ))
    }

    /// Forgets the digests of other reports.
    pub fn clear_digests(&mut self) {
        self.digests.clear();
    }

    fn own_digest(&self) -> Option<Digest> {
        self.report.as_ref().map(|r| Digest::of(r, "this page"))
    }

    /// Clocks × reports: this page's run, every digest taken in, and an opened link.
    pub fn matrix(&self, sort: class::Column, descending: bool) -> Vec<Group> {
        let own = self.own_digest();
        let all: Vec<&Digest> = own
            .iter()
            .chain(&self.digests)
            .chain(&self.shared)
            .collect();
        class::matrix(&all, sort, descending)
    }

    /// The summary of this page's run for a result link: its digest (no samples).
    pub fn share(&self) -> Result<Digest, String> {
        let mut d = self
            .own_digest()
            .ok_or_else(|| "there is no result yet: run the lab first".to_string())?;
        d.from = "a shared result".into();
        Ok(d)
    }

    /// Opens a result link's digest, checked, to show read-only beside this page's.
    pub fn open_shared(&mut self, d: Digest) -> Result<&Digest, String> {
        let d = d.check()?;
        self.crossings.digests_in += 1;
        Ok(self.shared.insert(d))
    }

    /// What crossed the boundary so far.
    pub fn crossings(&self) -> Crossings {
        self.crossings
    }
}

/// The step a computed style's length is written to, at the largest of `px`: CSSOM writes
/// numbers to six significant digits, as every engine does (w3c/csswg-drafts#7416), so a
/// CSS animation read back through getComputedStyle is known to 1 µs up to a second of
/// animation and to 10 µs up to ten; the coarsest step of its readings is its data's
/// precision, whatever time the animation keeps inside.
pub(crate) fn printed_step(px: &[f64]) -> f64 {
    const SIGNIFICANT: i32 = 6;
    px.iter()
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .reduce(f64::max)
        .map_or(0.0, |top| {
            10f64.powi(top.log10().floor() as i32 + 1 - SIGNIFICANT)
        })
}

#[cfg(test)]
mod tests;
