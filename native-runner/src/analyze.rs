//! `ticklab analyze`: the tick of durations measured elsewhere.

use std::io::{BufRead, BufReader, Read};

use serde::Serialize;
use ticklab::stats::{self, Band};
use ticklab::tick::{estimate_values, EstimatorOptions, TickEstimate};

use crate::cli::{AnalyzeArgs, Unit};
use crate::output::{self, Table};
use crate::CliError;

/// Most values read: enough for seed 001's "gazillion", small enough to stay in memory.
const MAX_VALUES: usize = 10_000_000;
/// Longest line accepted.
const MAX_LINE: usize = 64 * 1024;

fn unit_name(u: Unit) -> &'static str {
    match u {
        Unit::S => "s",
        Unit::Ms => "ms",
        Unit::Us => "us",
        Unit::Ns => "ns",
        Unit::Ticks => "ticks",
    }
}

fn ns_per_unit(u: Unit) -> Option<f64> {
    match u {
        Unit::S => Some(1e9),
        Unit::Ms => Some(1e6),
        Unit::Us => Some(1e3),
        Unit::Ns => Some(1.0),
        Unit::Ticks => None,
    }
}

/// Digits after the decimal point as written, exponent included: "1.953125e-3" has 9.
fn decimals(token: &str) -> i32 {
    let t = token.trim().trim_start_matches(['+', '-']);
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i32>().unwrap_or(0)),
        None => (t, 0),
    };
    let frac = mantissa.split_once('.').map_or(0, |(_, f)| f.len() as i32);
    frac - exp
}

/// One value: a finite non-negative number, or an error naming the line.
fn parse_value(token: &str, line: usize) -> Result<f64, CliError> {
    let t = token.trim();
    let v: f64 = t
        .parse()
        .map_err(|_| CliError::Usage(format!("line {line}: '{}' is not a number", shorten(t))))?;
    if !v.is_finite() {
        return Err(CliError::Usage(format!(
            "line {line}: '{}' is not a finite number",
            shorten(t)
        )));
    }
    if v < 0.0 {
        return Err(CliError::Usage(format!(
            "line {line}: {v} is negative; durations cannot be"
        )));
    }
    Ok(v)
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Values and the most decimals seen.
struct Parsed {
    values: Vec<f64>,
    max_decimals: i32,
}

impl Parsed {
    fn push(&mut self, token: &str, line: usize) -> Result<(), CliError> {
        if self.values.len() >= MAX_VALUES {
            return Err(CliError::Usage(format!(
                "more than {MAX_VALUES} values; analyze a sample of them"
            )));
        }
        self.values.push(parse_value(token, line)?);
        self.max_decimals = self.max_decimals.max(decimals(token));
        Ok(())
    }
}

fn open(file: &str) -> Result<Box<dyn Read>, CliError> {
    if file == "-" {
        return Ok(Box::new(std::io::stdin()));
    }
    let f = std::fs::File::open(file)
        .map_err(|e| CliError::Usage(format!("cannot open '{file}': {e}")))?;
    if f.metadata().map(|m| m.is_dir()).unwrap_or(false) {
        return Err(CliError::Usage(format!(
            "'{file}' is a directory, not a file"
        )));
    }
    Ok(Box::new(f))
}

fn read_lines(input: Box<dyn Read>) -> Result<Parsed, CliError> {
    let mut p = Parsed {
        values: Vec::new(),
        max_decimals: 0,
    };
    let mut reader = BufReader::new(input);
    let mut buf = Vec::new();
    let mut line = 0usize;
    loop {
        buf.clear();
        // Bounded read, so one endless line cannot exhaust memory.
        let n = (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| CliError::Usage(format!("cannot read the input: {e}")))?;
        if n == 0 {
            break;
        }
        line += 1;
        if buf.len() > MAX_LINE && !buf.ends_with(b"\n") {
            return Err(CliError::Usage(format!(
                "line {line} is longer than {MAX_LINE} bytes"
            )));
        }
        let text = std::str::from_utf8(&buf)
            .map_err(|_| CliError::Usage(format!("line {line} is not text (invalid UTF-8)")))?;
        let t = text.trim();
        if t.is_empty() {
            continue;
        }
        p.push(t, line)?;
    }
    Ok(p)
}

fn read_column(input: Box<dyn Read>, column: &str) -> Result<Parsed, CliError> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(input);
    let mut p = Parsed {
        values: Vec::new(),
        max_decimals: 0,
    };
    let by_index = column.parse::<usize>().ok();
    if by_index == Some(0) {
        return Err(CliError::Usage("--column 0: columns count from 1".into()));
    }
    let mut index: Option<usize> = by_index.map(|i| i - 1);
    for (i, rec) in r.records().enumerate() {
        let line = i + 1;
        let rec = rec.map_err(|e| CliError::Usage(format!("line {line}: {e}")))?;
        if rec.iter().all(|f| f.is_empty()) {
            continue;
        }
        if index.is_none() {
            // The first row names the columns.
            let found = rec.iter().position(|h| h == column).ok_or_else(|| {
                CliError::Usage(format!(
                    "no column named '{column}'; the header has: {}",
                    rec.iter().collect::<Vec<_>>().join(", ")
                ))
            })?;
            index = Some(found);
            continue;
        }
        let c = index.unwrap_or(0);
        let field = rec.get(c).ok_or_else(|| {
            CliError::Usage(format!(
                "line {line}: no column {} (it has {})",
                c + 1,
                rec.len()
            ))
        })?;
        if line == 1 && by_index.is_some() && field.parse::<f64>().is_err() {
            continue; // a header row above numbered columns
        }
        if field.is_empty() {
            continue;
        }
        p.push(field, line)?;
    }
    Ok(p)
}

#[derive(Serialize)]
struct AnalyzeReport {
    /// The tick estimate, in the input's unit.
    tick: f64,
    unit: &'static str,
    tick_ns: Option<f64>,
    share_explained: f64,
    values: usize,
    tolerance: f64,
    estimate: TickEstimate,
    bands: Vec<Band>,
}

/// What `analyze` makes of its input: the values, the rounding tolerance their digits imply,
/// the tick estimate and the bands.
pub struct Analysis {
    /// The durations read.
    pub values: Vec<f64>,
    /// Half a unit in the last printed place, the estimator's absolute tolerance.
    pub tolerance: f64,
    /// The tick.
    pub estimate: TickEstimate,
    /// Levels of the values at multiples of the tick.
    pub bands: Vec<Band>,
}

/// Reads durations as `analyze` does (one a line, or a column of a CSV) from `input`, named
/// `name` in messages, and estimates their tick: every step from bytes to estimate.
pub fn examine(
    input: Box<dyn Read>,
    column: Option<&str>,
    name: &str,
) -> Result<Analysis, CliError> {
    let parsed = match column {
        Some(c) => read_column(input, c)?,
        None => read_lines(input)?,
    };
    if parsed.values.is_empty() {
        return Err(CliError::Usage(format!(
            "'{name}' holds no numbers: expected one duration a line{}",
            if column.is_some() {
                " in the column"
            } else {
                ""
            }
        )));
    }
    // Values printed with d decimals carry up to half a unit in the last place of rounding.
    let tolerance = if parsed.max_decimals <= 15 {
        0.5 * 10f64.powi(-parsed.max_decimals)
    } else {
        0.0
    };
    let opts = EstimatorOptions {
        abs_tolerance: tolerance,
        ..Default::default()
    };
    let estimate = estimate_values(&parsed.values, &opts)?;
    let bands = stats::bands(&parsed.values, estimate.tick / 4.0, 32);
    Ok(Analysis {
        values: parsed.values,
        tolerance,
        estimate,
        bands,
    })
}

pub(crate) fn analyze(a: AnalyzeArgs) -> Result<(), CliError> {
    let Analysis {
        values,
        tolerance,
        estimate,
        bands,
    } = examine(open(&a.file)?, a.column.as_deref(), &a.file)?;
    let unit = unit_name(a.unit);
    let tick_ns = ns_per_unit(a.unit).map(|f| f * estimate.tick);
    if let Some(dir) = &a.output.plot {
        output::plot_dir(dir)?;
        let v = &values;
        output::svg(&dir.join("analyze.raw.svg"), (800, 500), |ar| {
            ticklab_plot::raw(ar, v, unit)
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
    let report = AnalyzeReport {
        tick: estimate.tick,
        unit,
        tick_ns,
        share_explained: estimate.share_explained,
        values: values.len(),
        tolerance,
        estimate,
        bands,
    };
    if a.output.json {
        let s =
            serde_json::to_string_pretty(&report).map_err(|e| CliError::Output(e.to_string()))?;
        return output::print(&s);
    }
    let e = &report.estimate;
    if a.output.csv {
        let mut w = csv::Writer::from_writer(Vec::new());
        let err = |e: csv::Error| CliError::Output(e.to_string());
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
        ])
        .map_err(err)?;
        w.write_record([
            e.tick.to_string(),
            unit.to_string(),
            e.share_explained.to_string(),
            format!("{:?}", e.method).to_lowercase(),
            e.reliable.to_string(),
            report.values.to_string(),
            e.zeros.to_string(),
            e.smallest_nonzero.to_string(),
            e.smallest_diff_sort
                .map_or(String::new(), |v| v.to_string()),
        ])
        .map_err(err)?;
        let bytes = w
            .into_inner()
            .map_err(|e| CliError::Output(e.to_string()))?;
        return output::print(&String::from_utf8_lossy(&bytes));
    }
    let mut t = Table::new(&["", ""]);
    let with_ns = |v: f64| match ns_per_unit(a.unit) {
        Some(f) => format!("{v} {unit} ({})", output::ns(v * f)),
        None => format!("{v} {unit}"),
    };
    t.row(vec!["tick".into(), with_ns(e.tick)]);
    if e.uncertainty > 0.0 {
        t.row(vec![
            "± (standard error)".into(),
            format!("{} {unit}", e.uncertainty),
        ]);
    }
    t.row(vec![
        "explains".into(),
        format!(
            "{:.2}% of {} positive values",
            e.share_explained * 100.0,
            e.intervals
        ),
    ]);
    t.row(vec![
        "method".into(),
        format!("{:?}", e.method).to_lowercase(),
    ]);
    t.row(vec![
        "reliable".into(),
        if e.reliable { "yes" } else { "no" }.into(),
    ]);
    t.row(vec!["zero values".into(), e.zeros.to_string()]);
    t.row(vec![
        "smallest non-zero (seed 001)".into(),
        with_ns(e.smallest_nonzero),
    ]);
    t.row(vec![
        "smallest diff(sort()) (seed 001)".into(),
        e.smallest_diff_sort.map_or("-".into(), with_ns),
    ]);
    let mut text = t.render();
    text.push_str("\nbands (level: count)\n");
    for b in &report.bands {
        text.push_str(&format!("  {}: {}\n", b.level, b.count));
    }
    for c in &e.caveats {
        text.push_str(&format!("note: {c}\n"));
    }
    output::print(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_count_the_exponent() {
        assert_eq!(decimals("1.75"), 2);
        assert_eq!(decimals("1.953125e-3"), 9);
        assert_eq!(decimals("12"), 0);
        assert_eq!(decimals("5e2"), -2);
    }

    #[test]
    fn bad_values_name_their_line() {
        for bad in ["abc", "NaN", "inf", "-1", "1e400", "0x10"] {
            let e = parse_value(bad, 7).unwrap_err().to_string();
            assert!(e.contains("line 7"), "{e}");
        }
        assert_eq!(parse_value(" 0.25 ", 1).unwrap(), 0.25);
    }
}
