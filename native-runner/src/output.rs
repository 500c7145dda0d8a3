//! Tables, CSV, JSON and SVG plots of a report.

use std::io::Write;
use std::path::Path;

use plotters::prelude::*;
use ticklab::present::{self, SummaryRow};
use ticklab::report::{ClockReport, CounterFrequency, Report};
use ticklab_plot::{PlotResult, View as PlotView};

use ticklab::comparison::Comparison;
use ticklab::digest::Figure;

use crate::cli::Output;
use crate::error::CliError;

/// A left-aligned text table.
pub struct TextTable {
    rows: Vec<Vec<String>>,
}

impl TextTable {
    pub fn new(header: &[&str]) -> Self {
        Self {
            rows: vec![header.iter().map(|s| s.to_string()).collect()],
        }
    }
    pub fn row(&mut self, r: Vec<String>) {
        self.rows.push(r);
    }
    pub fn render(&self) -> String {
        let cols = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let width: Vec<usize> = (0..cols)
            .map(|c| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for r in &self.rows {
            let line: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{s:<w$}", w = width[i]))
                .collect();
            out.push_str(line.join("  ").trim_end());
            out.push('\n');
        }
        out
    }
}

/// `text` with every control character (but line ends) and every bidirectional control
/// written out as `\uXXXX`: a report or a file from elsewhere is shown as text, never left
/// to clear the terminal, retitle it or reorder a line. The escape is JSON's own, so JSON
/// output means what it meant.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| {
        (c.is_control() && c != '\n' && c != '\r')
            || matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    // A carriage return only ends a line (CSV's CRLF); alone it would overwrite one.
    let bare_cr =
        |i: usize| text.as_bytes()[i] == b'\r' && text.as_bytes().get(i + 1) != Some(&b'\n');
    if !text.char_indices().any(|(i, c)| hidden(c) || bare_cr(i)) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (i, c) in text.char_indices() {
        if hidden(c) || bare_cr(i) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out.into()
}

/// Writes to stdout, [`visible`]; a closed pipe is not an error worth a panic.
pub fn print(text: &str) -> Result<(), CliError> {
    let text = visible(text);
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| {
        if text.ends_with('\n') {
            Ok(())
        } else {
            out.write_all(b"\n")
        }
    }) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::write("the output", e)),
    }
}

/// Which table a command prints (a plot is a `ticklab_plot::View`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Printed {
    Summary,
    Tick,
    Overhead,
    Fit,
}

/// Prints the report as the output flags ask, and writes plots.
pub fn emit(report: &Report, o: &Output, printed: Printed) -> Result<(), CliError> {
    if let Some(dir) = &o.plot {
        plots(report, dir)?;
    }
    if o.json {
        return print(&report.to_json()?);
    }
    if o.csv {
        return print(&ticklab::export::summary(report));
    }
    let mut text = match printed {
        Printed::Summary => summary(report),
        Printed::Tick => tick_table(report),
        Printed::Overhead => overhead_table(report),
        Printed::Fit => fit_table(report),
    };
    if printed == Printed::Summary {
        if let Some(line) = machine_ranking(report) {
            text.push_str(&format!("\n{line}\n"));
        }
    }
    for f in &report.environment.counters {
        text.push_str(&frequency_line(f));
    }
    text.push_str(&notes(report));
    // A saved report that Ctrl-C cut short says so wherever it is shown.
    if let Some(why) = present::interrupted(report) {
        text.push_str(&format!("\n{why}\n"));
    }
    print(&text)
}

/// A machine's clocks ranked, finest first, against `std::time::Instant` (what a program
/// times with when it asks for nothing else), as the page ranks its clocks against
/// performance.now. None for a page's report: only the page knows how its clocks are read.
fn machine_ranking(report: &Report) -> Option<String> {
    use ticklab::ranking::{step, Ranking, Reading};
    if report.environment.platform == Some(ticklab::report::Platform::Browser) {
        return None;
    }
    let steps = report
        .clocks
        .iter()
        .filter_map(|c| step(c, Reading::AtWill))
        .collect();
    let r = Ranking::of(steps, crate::clocks::std_clock::INSTANT, "Instant")?;
    Some(present::ranking(&r, "this machine has"))
}

/// A counter's frequency on a line of its own, after a table.
pub fn frequency_line(f: &CounterFrequency) -> String {
    format!("\n{}\n", present::frequency(f))
}

/// Every clock's notes, under its name.
fn notes(report: &Report) -> String {
    let mut s = String::new();
    let mut run = present::run_notes(&report.environment);
    run.extend(present::run_gaps(report));
    if !run.is_empty() {
        s.push_str("\nthe run:\n");
        for l in run {
            s.push_str(&format!("  - {l}\n"));
        }
    }
    for c in &report.clocks {
        let lines = present::notes(c);
        if !lines.is_empty() {
            s.push_str(&format!("\n{}:\n", c.info.name));
            for l in lines {
                s.push_str(&format!("  - {l}\n"));
            }
        }
    }
    s
}

fn summary(report: &Report) -> String {
    let mut t = TextTable::new(&present::SUMMARY_COLUMNS);
    for c in &report.clocks {
        t.row(SummaryRow::new(c, &report.environment.counters).cells);
    }
    t.render()
}

/// A table of `columns`, a row (or rows) per clock from `rows`.
fn table(
    report: &Report,
    columns: &[&str],
    rows: impl Fn(&ClockReport, &[CounterFrequency]) -> Vec<Vec<String>>,
) -> String {
    let mut t = TextTable::new(columns);
    for c in &report.clocks {
        for r in rows(c, &report.environment.counters) {
            t.row(r);
        }
    }
    t.render()
}

fn tick_table(report: &Report) -> String {
    table(report, &present::TICK_COLUMNS, |c, f| {
        vec![present::tick_row(c, f)]
    })
}

fn overhead_table(report: &Report) -> String {
    table(report, &present::OVERHEAD_COLUMNS, |c, f| {
        vec![present::overhead_row(c, f)]
    })
}

fn fit_table(report: &Report) -> String {
    table(report, &present::FIT_COLUMNS, present::fit_rows)
}

/// Writes one SVG with `draw` on an area of `size`.
pub fn svg(
    path: &Path,
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> PlotResult,
) -> Result<(), CliError> {
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE)
        .map_err(|e| CliError::write(path.display(), format!("{e:?}")))?;
    draw(&root).map_err(|e| CliError::write(path.display(), e))?;
    root.present()
        .map_err(|e| CliError::write(path.display(), format!("{e:?}")))
}

/// Creates the plot directory, or says why it cannot.
pub fn plot_dir(dir: &Path) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::Directory {
        flag: "--plot",
        dir: dir.to_path_buf(),
        reason: e.to_string(),
    })
}

/// The file a view of clock `c` is written to, after the clock's slug:
/// "raw", "diffsort", "fit-count"...
fn file_suffix(c: &ClockReport, view: PlotView) -> String {
    match view {
        PlotView::DiffSorted => "diffsort".into(),
        PlotView::Fit(i) | PlotView::Excess(i) => {
            let w = c.fits.get(i).map_or("", |f| f.workload.as_str());
            format!("{}-{}", view.name(), ticklab::export::slug(w))
        }
        v => v.name().into(),
    }
}

/// Every view of every clock, as the page shows them, as SVG files.
pub(crate) fn plots(report: &Report, dir: &Path) -> Result<(), CliError> {
    plot_dir(dir)?;
    for c in &report.clocks {
        let base = ticklab::export::slug(&c.info.name);
        for view in PlotView::of(c) {
            let path = dir.join(format!("{base}.{}.svg", file_suffix(c, view)));
            svg(&path, view.size(), |a| ticklab_plot::draw(a, c, view))?;
        }
    }
    Ok(())
}

/// Prints a comparison as `o` asks: its table (with the verdicts' signs, who ran, and why a
/// run is missing), its JSON or its CSV; each run's plots into a folder of its own.
pub fn emit_comparison(c: &Comparison, o: &Output, figure: Figure) -> Result<(), CliError> {
    if let Some(dir) = &o.plot {
        for (run, _) in c.measured() {
            if let Some(report) = &run.report {
                plots(report, &dir.join(ticklab::export::slug(&run.heading())))?;
            }
        }
    }
    if o.json {
        return print(&c.to_json()?);
    }
    let (heads, rows) = c.table(figure);
    if o.csv {
        return print(&ticklab::digest::pivot_csv(&heads, &rows));
    }
    let header: Vec<&str> = std::iter::once("clock")
        .chain(heads.iter().map(String::as_str))
        .collect();
    let mut t = TextTable::new(&header);
    for r in rows {
        t.row(std::iter::once(r.clock).chain(r.cells).collect());
    }
    let mut text = t.render();
    if figure == Figure::Tick {
        text.push_str(&format!("\n{}\n", present::verdict_signs_legend()));
    }
    text.push('\n');
    for run in &c.runs {
        text.push_str(&present::engine_run_line(run));
        text.push('\n');
    }
    let native = c.runs.iter().find(|r| r.isolated.is_none());
    for f in native
        .and_then(|r| r.report.as_ref())
        .map_or(&[][..], |r| &r.environment.counters[..])
    {
        text.push_str(&frequency_line(f));
    }
    print(&text)
}
