//! `ticklab analyze`: the tick of durations measured elsewhere, and what it means for them.
//! The reading and the estimate are the core's ([`ticklab::analyze`]), shared with the page;
//! here are the files, directories and the command's output.

pub mod formats;

use std::io::Read;

use serde::Serialize;
use ticklab::analyze::{self as core, Analysis, SeriesAnalysis};
use ticklab::present::{
    self,
    analysis::{self as words, answer, band_lines, detail_rows, unit_name},
};
use ticklab::stats::Band;
use ticklab::tick::{Method, TickEstimate};

use crate::cli::AnalyzeArgs;
use crate::error::CliError;
use crate::output::{self, TextTable};

pub use ticklab::analyze::{Format, Series};

/// Reads durations as `analyze` does (a tool's file, one a line, or a column of a CSV)
/// from `input`, named `name` in messages, and estimates their tick: every step from bytes
/// to answer.
pub fn examine(
    input: Box<dyn Read>,
    column: Option<&str>,
    name: &str,
    forced: Option<core::Kind>,
) -> Result<Analysis, CliError> {
    let bytes = formats::read_all(input, name)?;
    Ok(core::examine(
        &bytes,
        column,
        name,
        None,
        &formats::parse_json,
        forced,
    )?)
}

/// One series in the JSON output.
#[derive(Serialize)]
struct SeriesReport<'a> {
    source: &'a str,
    format: &'static str,
    /// "durations", "readings", "averages", or "skipped" (a column of words).
    kind: &'static str,
    /// Why it was read so, in words; and the figures.
    read_as: Option<String>,
    recognised: Option<core::Recognised>,
    values: usize,
    /// For readings, the intervals between them the tick was found in.
    intervals: Option<usize>,
    unit: &'static str,
    /// For readings held by doubles coarser than their printing: the doubles' spacing,
    /// the finest step the file can show.
    storage: Option<f64>,
    /// Why there is no tick, when there is none for want of data.
    failure: Option<String>,
    verdict: String,
    /// The tick in the values' unit; for a bound (`at_most`) the data's precision; none
    /// when there is no tick.
    tick: Option<f64>,
    tick_ns: Option<f64>,
    at_most: bool,
    share_explained: Option<f64>,
    /// The data's own precision, in the values' unit.
    tolerance: f64,
    offset: bool,
    /// The shortest timing with at most 1% quantisation error (Rule of 100).
    rule_of_100: Option<f64>,
    answer: String,
    notes: Vec<String>,
    estimate: Option<&'a TickEstimate>,
    bands: &'a [Band],
}

fn series_report(a: &SeriesAnalysis) -> SeriesReport<'_> {
    let s = &a.series;
    let tick = a.tick();
    SeriesReport {
        source: &s.name,
        format: s.format.name(),
        kind: if s.averages {
            "averages"
        } else if a.failure.is_some() && s.values.is_empty() {
            "skipped"
        } else if a.is_readings() {
            "readings"
        } else {
            "durations"
        },
        read_as: words::kind_words(a),
        recognised: a.recognised,
        values: s.values.len(),
        intervals: a.readings.as_ref().map(|r| r.intervals.len()),
        unit: unit_name(a.unit()),
        storage: a.readings.as_ref().and_then(|r| r.storage),
        failure: a.failure.as_ref().map(present::caveat),
        verdict: words::verdict_words(a),
        tick,
        tick_ns: a.tick_ns(),
        at_most: a
            .estimate
            .as_ref()
            .is_some_and(|e| e.method == Method::Precision),
        share_explained: a
            .estimate
            .as_ref()
            .filter(|e| e.found())
            .map(|e| e.share_explained),
        tolerance: a
            .estimate
            .as_ref()
            .map_or(s.quantum.step(), |e| e.quantum.step()),
        offset: a.offset,
        rule_of_100: a.rule_of_100(),
        answer: answer(a),
        notes: s.notes.iter().map(present::caveat).collect(),
        estimate: a.estimate.as_ref(),
        bands: &a.bands,
    }
}

#[derive(Serialize)]
struct ManyReport<'a> {
    combined: Option<SeriesReport<'a>>,
    series: Vec<SeriesReport<'a>>,
}

fn method_word(e: &TickEstimate) -> &'static str {
    present::method_label(e.method)
}

fn detail(a: &SeriesAnalysis) -> String {
    let mut t = TextTable::new(&["", ""]);
    for [label, words] in detail_rows(a) {
        t.row(vec![label, words]);
    }
    let mut text = t.render();
    text.push_str(&format!("\n{}\n", answer(a)));
    let bands = band_lines(a);
    if !bands.is_empty() {
        text.push_str("\nbands (level: count)\n");
        for b in bands {
            text.push_str(&format!("  {b}\n"));
        }
    }
    for n in words::notes(a) {
        text.push_str(&format!("note: {n}\n"));
    }
    text
}

/// A table's columns, one row each, and each column's notes.
fn columns(an: &Analysis) -> String {
    let (heads, rows) = words::overview(an);
    let mut t = TextTable::new(heads);
    for r in rows {
        t.row(r);
    }
    let mut text = t.render();
    for a in &an.series {
        let mut notes = vec![answer(a)];
        notes.extend(words::kind_words(a).filter(|_| a.failure.is_none()));
        for n in words::notes(a) {
            if !notes.contains(&n) {
                notes.push(n);
            }
        }
        text.push_str(&format!("\n{}:\n", a.series.name));
        for n in notes {
            text.push_str(&format!("  - {n}\n"));
        }
    }
    text
}

fn overview(an: &Analysis) -> String {
    let (heads, rows) = words::overview(an);
    let mut t = TextTable::new(heads);
    for r in rows {
        t.row(r);
    }
    let mut text = t.render();
    text.push('\n');
    text.push_str(&detail(an.main()));
    text
}

fn csv_rows(an: &Analysis) -> Result<String, CliError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| CliError::write("the output", e);
    w.write_record([
        "tick",
        "unit",
        "share_explained",
        "method",
        "reliable",
        "values",
        "zeros",
        "smallest_nonzero",
        "smallest_diff_sort",
        "source",
        "format",
        "at_most",
        "rule_of_100",
    ])
    .map_err(err)?;
    let rows: Vec<&SeriesAnalysis> = an.series.iter().chain(an.combined.as_ref()).collect();
    for a in rows {
        let s = &a.series;
        let e = a.estimate.as_ref();
        let opt = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
        w.write_record([
            opt(a.tick()),
            unit_name(a.unit()).to_string(),
            opt(e.filter(|e| e.found()).map(|e| e.share_explained)),
            e.map_or(
                if a.failure.is_some() {
                    "none"
                } else {
                    "averages"
                },
                method_word,
            )
            .to_string(),
            e.is_some_and(|e| e.reliable).to_string(),
            s.values.len().to_string(),
            e.map_or(String::new(), |e| e.zeros.to_string()),
            opt(e.map(|e| e.smallest_nonzero)),
            opt(e.and_then(|e| e.smallest_diff_sort)),
            s.name.clone(),
            s.format.name().to_string(),
            e.is_some_and(|e| e.method == Method::Precision).to_string(),
            opt(a.rule_of_100()),
        ])
        .map_err(err)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| CliError::write("the output", e))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

pub(crate) fn analyze(a: AnalyzeArgs) -> Result<(), CliError> {
    let series = formats::read_path(&a.file, a.column.as_deref(), a.unit)?;
    let forced = match (a.readings, a.durations) {
        (true, _) => Some(core::Kind::Readings),
        (_, true) => Some(core::Kind::Durations),
        _ => None,
    };
    let an = core::analyse_all(series, forced)?;
    if let Some(dir) = &a.output.plot {
        let m = an.main();
        let v = m.analysed();
        if !v.is_empty() {
            let unit = unit_name(m.unit());
            output::plot_dir(dir)?;
            let levels: Vec<f64> = m.bands.iter().map(|b| b.level).collect();
            let tick = m.estimate.as_ref().filter(|e| e.found()).map(|e| e.tick);
            output::svg(&dir.join("analyze.raw.svg"), (800, 500), |ar| {
                ticklab_plot::raw_banded(ar, v, &levels, tick, unit)
            })?;
            output::svg(&dir.join("analyze.sorted.svg"), (800, 500), |ar| {
                ticklab_plot::sorted(ar, v, unit)
            })?;
            output::svg(&dir.join("analyze.diffsort.svg"), (800, 500), |ar| {
                ticklab_plot::diff_sorted(ar, v, unit)
            })?;
            output::svg(&dir.join("analyze.histogram.svg"), (800, 500), |ar| {
                ticklab_plot::histogram(ar, v, 60, unit)
            })?;
        }
    }
    if a.output.json {
        let text = if an.series.len() == 1 && an.combined.is_none() {
            serde_json::to_string_pretty(&series_report(&an.series[0]))
        } else if an.is_table() {
            // A table's columns: a list, one a column.
            serde_json::to_string_pretty(&an.series.iter().map(series_report).collect::<Vec<_>>())
        } else {
            serde_json::to_string_pretty(&ManyReport {
                combined: an.combined.as_ref().map(series_report),
                series: an.series.iter().map(series_report).collect(),
            })
        }
        .map_err(|e| CliError::write("the output", e))?;
        return output::print(&text);
    }
    if a.output.csv {
        return output::print(&csv_rows(&an)?);
    }
    if an.series.len() == 1 {
        output::print(&detail(&an.series[0]))
    } else if an.is_table() {
        output::print(&columns(&an))
    } else {
        output::print(&overview(&an))
    }
}
