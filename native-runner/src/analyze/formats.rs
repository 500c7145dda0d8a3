//! What `analyze` reads: durations one a line or in a CSV column, and the files other timing
//! tools write, alone or found in a directory: Criterion's `sample.json` and `raw.csv` (and
//! `estimates.json`, averages), hyperfine's `--export-json`, pytest-benchmark's
//! `--benchmark-json` and JMH's `-rf json`.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde_json::Value;
use ticklab::tick::quantum::written_digits;
use ticklab::tick::Quantum;

use crate::cli::Unit;
use crate::CliError;

/// Most values read: enough for a "gazillion" timings, small enough to stay in memory.
pub const MAX_VALUES: usize = 10_000_000;
/// Longest line accepted.
const MAX_LINE: usize = 64 * 1024;
/// Largest JSON file read.
const MAX_JSON: u64 = 256 << 20;
/// Deepest directory walked, and most entries looked at.
const MAX_DEPTH: usize = 16;
const MAX_ENTRIES: usize = 100_000;

/// Where a series of values came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One number a line.
    Lines,
    /// A column of a CSV file.
    Column,
    /// A JSON array of numbers.
    JsonArray,
    /// Criterion's `sample.json`: each sample's total time, in ns.
    CriterionSample,
    /// Criterion's `raw.csv`: `sample_measured_value` of each sample.
    CriterionRaw,
    /// Criterion's `estimates.json`: per-iteration averages.
    CriterionEstimates,
    /// hyperfine's `--export-json`: each run's wall time, in seconds.
    Hyperfine,
    /// pytest-benchmark's `--benchmark-json`: each round's time, in seconds.
    PytestBenchmark,
    /// JMH's JSON results.
    Jmh,
}

impl Format {
    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Lines => "one number a line",
            Format::Column => "CSV column",
            Format::JsonArray => "JSON array",
            Format::CriterionSample => "Criterion sample.json",
            Format::CriterionRaw => "Criterion raw.csv",
            Format::CriterionEstimates => "Criterion estimates.json",
            Format::Hyperfine => "hyperfine JSON",
            Format::PytestBenchmark => "pytest-benchmark JSON",
            Format::Jmh => "JMH JSON",
        }
    }

    /// What one value is, singular and plural.
    pub fn noun(self) -> (&'static str, &'static str) {
        match self {
            Format::CriterionSample | Format::CriterionRaw => ("sample", "samples"),
            Format::Hyperfine => ("run", "runs"),
            Format::PytestBenchmark => ("round", "rounds"),
            Format::Jmh => ("measurement", "measurements"),
            _ => ("timing", "timings"),
        }
    }
}

/// One set of durations, as read.
#[derive(Clone, Debug)]
pub struct Series {
    /// What the values time ("least_values/sorted", "sleep 0.002", the file's name).
    pub name: String,
    /// Where they came from.
    pub format: Format,
    /// Their unit, when the format or `--unit` says.
    pub unit: Option<Unit>,
    /// The values.
    pub values: Vec<f64>,
    /// The precision they were written to.
    pub quantum: Quantum,
    /// A finer precision to try when nothing coarser than `quantum` fits (doubles whose
    /// grid may be their tick).
    pub finer: Option<Quantum>,
    /// Why these values have no tick at all (averages), when they have none.
    pub averages: Option<String>,
    /// How the values were made from what the file holds.
    pub notes: Vec<String>,
}

impl Series {
    /// The shortest positive value (infinite when there is none).
    pub fn shortest(&self) -> f64 {
        self.values
            .iter()
            .copied()
            .filter(|&v| v > 0.0)
            .fold(f64::INFINITY, f64::min)
    }

    fn json(name: String, format: Format, unit: Option<Unit>, values: Vec<f64>) -> Self {
        let (quantum, finer) = Quantum::infer_with_finer(&values);
        Self {
            name,
            format,
            unit,
            values,
            quantum,
            finer,
            averages: None,
            notes: Vec::new(),
        }
    }

    fn averages(name: String, format: Format, unit: Option<Unit>, why: &str) -> Self {
        Self {
            averages: Some(why.to_string()),
            ..Self::json(name, format, unit, Vec::new())
        }
    }
}

fn usage(m: impl Into<String>) -> CliError {
    CliError::Usage(m.into())
}

/// One value: a finite non-negative number, or an error naming the line.
pub fn parse_value(token: &str, line: usize) -> Result<f64, CliError> {
    let t = token.trim();
    let v: f64 = t
        .parse()
        .map_err(|_| usage(format!("line {line}: '{}' is not a number", shorten(t))))?;
    if !v.is_finite() {
        return Err(usage(format!(
            "line {line}: '{}' is not a finite number",
            shorten(t)
        )));
    }
    if v < 0.0 {
        return Err(usage(format!(
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

/// Values as written, and what their digits say of their precision.
struct Written {
    values: Vec<f64>,
    max_places: i32,
    full_precision: bool,
}

impl Written {
    fn new() -> Self {
        Self {
            values: Vec::new(),
            max_places: 0,
            full_precision: false,
        }
    }

    fn push(&mut self, token: &str, line: usize) -> Result<(), CliError> {
        if self.values.len() >= MAX_VALUES {
            return Err(usage(format!(
                "more than {MAX_VALUES} values; analyze a sample of them"
            )));
        }
        self.values.push(parse_value(token, line)?);
        let (places, digits) = written_digits(token);
        self.max_places = self.max_places.max(places);
        self.full_precision |= digits >= 15;
        Ok(())
    }

    fn into_series(self, name: &str, format: Format, unit: Option<Unit>) -> Series {
        let (quantum, finer) =
            Quantum::from_text_with_finer(&self.values, self.max_places, self.full_precision);
        Series {
            name: name.to_string(),
            format,
            unit,
            values: self.values,
            quantum,
            finer,
            averages: None,
            notes: Vec::new(),
        }
    }
}

/// Reads `input` (named `name` in messages): a known tool's JSON or Criterion's raw.csv by
/// their content, else one duration a line, or `column` of a CSV file. `unit` is the
/// unit of plain numbers; known formats carry their own.
pub fn read(
    input: Box<dyn Read>,
    column: Option<&str>,
    name: &str,
    unit: Option<Unit>,
) -> Result<Vec<Series>, CliError> {
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    let head = reader
        .fill_buf()
        .map_err(|e| usage(format!("cannot read '{name}': {e}")))?;
    let first = head.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if column.is_none() && matches!(first, Some(b'{' | b'[')) {
        let mut bytes = Vec::new();
        reader
            .take(MAX_JSON + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| usage(format!("cannot read '{name}': {e}")))?;
        if bytes.len() as u64 > MAX_JSON {
            return Err(usage(format!(
                "'{name}' is larger than the {} MiB a JSON file may be",
                MAX_JSON >> 20
            )));
        }
        return read_json(&bytes, name);
    }
    let first_line = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    if column.is_none()
        && std::str::from_utf8(first_line).is_ok_and(|l| l.contains("sample_measured_value"))
    {
        return read_criterion_raw(reader, name);
    }
    let written = match column {
        Some(c) => read_column(Box::new(reader), c)?,
        None => read_lines(reader)?,
    };
    if written.values.is_empty() {
        return Err(usage(format!(
            "'{name}' holds no numbers: expected one duration a line{}",
            if column.is_some() {
                " in the column"
            } else {
                ""
            }
        )));
    }
    let format = if column.is_some() {
        Format::Column
    } else {
        Format::Lines
    };
    Ok(vec![written.into_series(name, format, unit)])
}

fn read_lines(mut reader: impl BufRead) -> Result<Written, CliError> {
    let mut w = Written::new();
    let mut buf = Vec::new();
    let mut line = 0usize;
    loop {
        buf.clear();
        // Bounded read, so one endless line cannot exhaust memory.
        let n = (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| usage(format!("cannot read the input: {e}")))?;
        if n == 0 {
            break;
        }
        line += 1;
        if buf.len() > MAX_LINE && !buf.ends_with(b"\n") {
            return Err(usage(format!(
                "line {line} is longer than {MAX_LINE} bytes"
            )));
        }
        let text = std::str::from_utf8(&buf)
            .map_err(|_| usage(format!("line {line} is not text (invalid UTF-8)")))?;
        let t = text.trim();
        if !t.is_empty() {
            w.push(t, line)?;
        }
    }
    Ok(w)
}

fn read_column(input: Box<dyn Read>, column: &str) -> Result<Written, CliError> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(input);
    let mut w = Written::new();
    let by_index = column.parse::<usize>().ok();
    if by_index == Some(0) {
        return Err(usage("--column 0: columns count from 1"));
    }
    let mut index: Option<usize> = by_index.map(|i| i - 1);
    for (i, rec) in r.records().enumerate() {
        let line = i + 1;
        let rec = rec.map_err(|e| usage(format!("line {line}: {e}")))?;
        if rec.iter().all(|f| f.is_empty()) {
            continue;
        }
        if index.is_none() {
            // The first row names the columns.
            let found = rec.iter().position(|h| h == column).ok_or_else(|| {
                usage(format!(
                    "no column named '{column}'; the header has: {}",
                    rec.iter().collect::<Vec<_>>().join(", ")
                ))
            })?;
            index = Some(found);
            continue;
        }
        let c = index.unwrap_or(0);
        let field = rec.get(c).ok_or_else(|| {
            usage(format!(
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
        w.push(field, line)?;
    }
    Ok(w)
}

/// The unit a tool names ("ns", "us/op", "ms"...).
fn unit_named(s: &str) -> Option<Unit> {
    match s.trim().trim_end_matches("/op") {
        "s" | "sec" => Some(Unit::S),
        "ms" => Some(Unit::Ms),
        "us" | "µs" => Some(Unit::Us),
        "ns" => Some(Unit::Ns),
        _ => None,
    }
}

/// Criterion's raw.csv: group,function,value,throughput_num,throughput_type,
/// sample_measured_value,unit,iteration_count; one series per benchmark.
fn read_criterion_raw(reader: impl Read, name: &str) -> Result<Vec<Series>, CliError> {
    let mut r = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(reader);
    let headers = r
        .headers()
        .map_err(|e| usage(format!("{name}: {e}")))?
        .clone();
    let col = |h: &str| headers.iter().position(|x| x == h);
    let measured = col("sample_measured_value")
        .ok_or_else(|| usage(format!("{name}: no sample_measured_value column")))?;
    let (group, function, value, unit) = (col("group"), col("function"), col("value"), col("unit"));
    let mut out: Vec<(String, Option<Unit>, Written)> = Vec::new();
    for (i, rec) in r.records().enumerate() {
        let line = i + 2;
        let rec = rec.map_err(|e| usage(format!("{name}: line {line}: {e}")))?;
        let get = |c: Option<usize>| c.and_then(|c| rec.get(c)).unwrap_or("");
        let bench = [get(group), get(function), get(value)]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("/");
        let u = unit_named(get(unit));
        let at = match out.iter().position(|(b, _, _)| *b == bench) {
            Some(at) => at,
            None => {
                out.push((bench, u, Written::new()));
                out.len() - 1
            }
        };
        out[at].2.push(get(Some(measured)), line)?;
    }
    if out.is_empty() {
        return Err(usage(format!("'{name}' holds no samples")));
    }
    Ok(out
        .into_iter()
        .map(|(bench, u, w)| w.into_series(&bench, Format::CriterionRaw, u.or(Some(Unit::Ns))))
        .collect())
}

fn numbers(v: &Value, what: &str, name: &str) -> Result<Vec<f64>, CliError> {
    let a = v
        .as_array()
        .ok_or_else(|| usage(format!("{name}: {what} is not a list of numbers")))?;
    if a.len() > MAX_VALUES {
        return Err(usage(format!(
            "{name}: more than {MAX_VALUES} values; analyze a sample of them"
        )));
    }
    a.iter()
        .enumerate()
        .map(|(i, x)| {
            let f = x.as_f64().filter(|f| f.is_finite() && *f >= 0.0);
            f.ok_or_else(|| {
                usage(format!(
                    "{name}: {what}[{i}] is {x}, not a finite non-negative number"
                ))
            })
        })
        .collect()
}

fn read_json(bytes: &[u8], name: &str) -> Result<Vec<Series>, CliError> {
    let v: Value = serde_json::from_slice(bytes)
        .map_err(|e| usage(format!("'{name}' is not valid JSON: {e}")))?;
    json_series(&v, name)?.ok_or_else(|| {
        usage(format!(
            "'{name}' is JSON, but not a kind ticklab reads: Criterion's sample.json or \
             estimates.json, hyperfine's --export-json, pytest-benchmark's --benchmark-json, \
             JMH's -rf json, or an array of numbers"
        ))
    })
}

/// The series of a JSON document, or none when it is no format ticklab knows.
fn json_series(v: &Value, name: &str) -> Result<Option<Vec<Series>>, CliError> {
    // Criterion's sample.json: total time of each sample in ns, and its iterations.
    if let (Some(times), Some(iters)) = (v.get("times"), v.get("iters")) {
        let times = numbers(times, "times", name)?;
        let iters = numbers(iters, "iters", name)?;
        if times.len() != iters.len() {
            return Err(usage(format!(
                "{name}: {} times but {} iteration counts",
                times.len(),
                iters.len()
            )));
        }
        let mut s = Series::json(
            name.to_string(),
            Format::CriterionSample,
            Some(Unit::Ns),
            times,
        );
        if let (Some(lo), Some(hi)) = (
            iters.iter().copied().reduce(f64::min),
            iters.iter().copied().reduce(f64::max),
        ) {
            s.notes.push(format!(
                "each sample times {lo} to {hi} iterations; their totals are analysed"
            ));
        }
        return Ok(Some(vec![s]));
    }
    // Criterion's estimates.json: point estimates of per-iteration statistics.
    if v.get("mean")
        .and_then(|m| m.get("point_estimate"))
        .is_some()
    {
        return Ok(Some(vec![Series::averages(
            name.to_string(),
            Format::CriterionEstimates,
            Some(Unit::Ns),
            "Criterion's estimates are per-iteration averages over many iterations, which \
             carry no tick; its sample.json holds the timings",
        )]));
    }
    // hyperfine: results[].times in seconds.
    if let Some(results) = v.get("results").and_then(Value::as_array) {
        if results.iter().all(|r| r.get("times").is_some()) && !results.is_empty() {
            let mut out = Vec::new();
            for (i, r) in results.iter().enumerate() {
                let command = r
                    .get("command")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("command {}", i + 1), str::to_string);
                let times = numbers(&r["times"], "times", name)?;
                out.push(Series::json(
                    command,
                    Format::Hyperfine,
                    Some(Unit::S),
                    times,
                ));
            }
            return Ok(Some(out));
        }
    }
    // pytest-benchmark: benchmarks[].stats.data in seconds, per round divided by the
    // round's iterations.
    if let Some(benches) = v.get("benchmarks").and_then(Value::as_array) {
        if benches.iter().all(|b| b.get("stats").is_some()) && !benches.is_empty() {
            let mut out = Vec::new();
            for (i, b) in benches.iter().enumerate() {
                let bench = ["fullname", "name"]
                    .iter()
                    .find_map(|k| b.get(*k).and_then(Value::as_str))
                    .map_or_else(|| format!("benchmark {}", i + 1), str::to_string);
                let stats = &b["stats"];
                let data = stats.get("data").ok_or_else(|| {
                    usage(format!(
                        "{name}: benchmark '{bench}' has no stats.data (run pytest-benchmark \
                         without --benchmark-skip-data... or with --benchmark-save-data)"
                    ))
                })?;
                let mut data = numbers(data, "stats.data", name)?;
                let iterations = stats
                    .get("iterations")
                    .or_else(|| b.get("options").and_then(|o| o.get("iterations")))
                    .and_then(Value::as_f64)
                    .unwrap_or(1.0);
                let mut notes = Vec::new();
                if iterations > 1.0 && iterations.is_finite() {
                    // Each datum is a round's time over its iterations: undo the division,
                    // and the round as the timer saw it comes back.
                    for d in &mut data {
                        *d *= iterations;
                    }
                    notes.push(format!(
                        "each round timed {iterations} iterations and was divided by them; \
                         the round times are analysed"
                    ));
                }
                let mut s = Series::json(bench, Format::PytestBenchmark, Some(Unit::S), data);
                s.notes = notes;
                out.push(s);
            }
            return Ok(Some(out));
        }
    }
    // JMH: an array of benchmark results.
    if let Some(runs) = v.as_array() {
        if !runs.is_empty() && runs.iter().all(|r| r.get("primaryMetric").is_some()) {
            return jmh(runs, name).map(Some);
        }
        if runs.iter().all(Value::is_number) && !runs.is_empty() {
            let values = numbers(v, "the array", name)?;
            return Ok(Some(vec![Series::json(
                name.to_string(),
                Format::JsonArray,
                None,
                values,
            )]));
        }
    }
    Ok(None)
}

fn jmh(runs: &[Value], name: &str) -> Result<Vec<Series>, CliError> {
    let mut out = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let bench = r
            .get("benchmark")
            .and_then(Value::as_str)
            .map_or_else(|| format!("benchmark {}", i + 1), str::to_string);
        let mode = r.get("mode").and_then(Value::as_str).unwrap_or("");
        let m = &r["primaryMetric"];
        let unit = m
            .get("scoreUnit")
            .and_then(Value::as_str)
            .and_then(unit_named);
        let label = format!("{bench} ({mode})");
        match mode {
            "avgt" | "thrpt" => out.push(Series::averages(
                label,
                Format::Jmh,
                unit,
                "JMH's average-time and throughput modes report averages over many \
                 operations, which carry no tick; its sample and single-shot modes hold \
                 timings",
            )),
            "sample" => {
                // rawDataHistogram: forks, iterations, then [value, count] pairs.
                let mut values = Vec::new();
                let forks = m.get("rawDataHistogram").and_then(Value::as_array);
                for fork in forks.into_iter().flatten() {
                    for iteration in fork.as_array().into_iter().flatten() {
                        for pair in iteration.as_array().into_iter().flatten() {
                            let (v, c) = (pair.get(0), pair.get(1));
                            let (Some(v), Some(c)) =
                                (v.and_then(Value::as_f64), c.and_then(Value::as_f64))
                            else {
                                return Err(usage(format!(
                                    "{name}: '{bench}': a histogram entry is not [value, count]"
                                )));
                            };
                            if !(v.is_finite() && v >= 0.0 && c >= 0.0) {
                                return Err(usage(format!(
                                    "{name}: '{bench}': histogram entry [{v}, {c}]"
                                )));
                            }
                            let c = c.min((MAX_VALUES - values.len().min(MAX_VALUES)) as f64);
                            values.extend(std::iter::repeat_n(v, c as usize));
                        }
                    }
                }
                out.push(Series::json(label, Format::Jmh, unit, values));
            }
            _ => {
                // Single shot: rawData holds each iteration's one timing.
                let mut values = Vec::new();
                for fork in m
                    .get("rawData")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    values.extend(numbers(fork, "rawData", name)?);
                }
                out.push(Series::json(label, Format::Jmh, unit, values));
            }
        }
    }
    Ok(out)
}

/// Reads `path`: a file as [`read`] does, or every timing file under a directory
/// (Criterion's tree under `target/criterion`, tools' JSON).
pub fn read_path(
    path: &str,
    column: Option<&str>,
    unit: Option<Unit>,
) -> Result<Vec<Series>, CliError> {
    if path == "-" {
        return read(Box::new(std::io::stdin()), column, "-", unit);
    }
    let p = Path::new(path);
    let meta = std::fs::metadata(p).map_err(|e| usage(format!("cannot open '{path}': {e}")))?;
    if meta.is_dir() {
        if column.is_some() {
            return Err(usage(format!(
                "'{path}' is a directory: --column reads one CSV file"
            )));
        }
        return walk(p);
    }
    let f = std::fs::File::open(p).map_err(|e| usage(format!("cannot open '{path}': {e}")))?;
    read(Box::new(f), column, path, unit)
}

/// The timing files under `root`: Criterion's samples (from the `new` run, with names
/// from `benchmark.json`), and other tools' JSON.
fn walk(root: &Path) -> Result<Vec<Series>, CliError> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    let mut seen = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        let mut entries: Vec<std::path::PathBuf> = match std::fs::read_dir(&dir) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => return Err(usage(format!("cannot read '{}': {e}", dir.display()))),
        };
        entries.sort();
        seen += entries.len();
        if seen > MAX_ENTRIES {
            return Err(usage(format!(
                "'{}' holds more than {MAX_ENTRIES} entries; point at a smaller directory",
                root.display()
            )));
        }
        let has_sample = entries.iter().any(|e| e.ends_with("sample.json"));
        for e in entries.iter().rev() {
            let file = e.file_name().and_then(|f| f.to_str()).unwrap_or("");
            // Symbolic links are not followed: a walk stays inside the tree it was given.
            let Ok(meta) = std::fs::symlink_metadata(e) else {
                continue;
            };
            if meta.is_dir() {
                // Criterion keeps the run before last in base/ and comparisons in change/.
                if depth < MAX_DEPTH && file != "base" && file != "change" && file != "report" {
                    stack.push((e.clone(), depth + 1));
                }
                continue;
            }
            if !meta.is_file() || meta.len() > MAX_JSON {
                continue;
            }
            let shown = e.strip_prefix(root).unwrap_or(e).display().to_string();
            if file == "sample.json" || (file == "raw.csv" && !has_sample) {
                let bytes = std::fs::read(e)
                    .map_err(|err| usage(format!("cannot read '{}': {err}", e.display())))?;
                let mut series = read(Box::new(std::io::Cursor::new(bytes)), None, &shown, None)?;
                if file == "sample.json" {
                    if let Some(id) = criterion_id(&dir) {
                        for s in &mut series {
                            s.name = id.clone();
                        }
                    }
                }
                out.extend(series);
            } else if file.ends_with(".json")
                && !matches!(file, "estimates.json" | "benchmark.json" | "tukey.json")
            {
                // Other JSON is read when it is a tool's, and passed over when not.
                let Ok(bytes) = std::fs::read(e) else {
                    continue;
                };
                if let Ok(v) = serde_json::from_slice::<Value>(&bytes) {
                    if let Ok(Some(series)) = json_series(&v, &shown) {
                        out.extend(series);
                    }
                }
            }
        }
    }
    if out.is_empty() {
        return Err(usage(format!(
            "'{}' holds no timings ticklab reads: Criterion's sample.json or raw.csv, or \
             hyperfine, pytest-benchmark or JMH JSON",
            root.display()
        )));
    }
    Ok(out)
}

/// The benchmark's name from Criterion's benchmark.json beside its sample.json.
fn criterion_id(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("benchmark.json")).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    v.get("full_id")
        .or_else(|| v.get("title"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_name_their_line() {
        for bad in ["abc", "NaN", "inf", "-1", "1e400", "0x10"] {
            let e = parse_value(bad, 7).unwrap_err().to_string();
            assert!(e.contains("line 7"), "{e}");
        }
        assert_eq!(parse_value(" 0.25 ", 1).unwrap(), 0.25);
    }

    fn series(text: &str) -> Vec<Series> {
        read(
            Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
            None,
            "t",
            None,
        )
        .unwrap()
    }

    #[test]
    fn tools_are_told_apart_by_their_json() {
        let s = series(r#"{"sampling_mode":"Linear","iters":[1.0,2.0],"times":[41.0,83.0]}"#);
        assert_eq!(s[0].format, Format::CriterionSample);
        assert_eq!(s[0].unit, Some(Unit::Ns));
        let s = series(r#"{"results":[{"command":"true","times":[0.001234567,0.00124]}]}"#);
        assert_eq!(
            (s[0].format, s[0].name.as_str()),
            (Format::Hyperfine, "true")
        );
        let s =
            series(r#"{"benchmarks":[{"name":"t","stats":{"iterations":100,"data":[6.21e-08]}}]}"#);
        assert_eq!(s[0].format, Format::PytestBenchmark);
        assert!((s[0].values[0] - 6.21e-6).abs() < 1e-18);
        let s =
            series(r#"[{"benchmark":"b","mode":"avgt","primaryMetric":{"scoreUnit":"ns/op"}}]"#);
        assert!(s[0].averages.is_some());
        let s = series(
            r#"[{"benchmark":"b","mode":"sample","primaryMetric":{"scoreUnit":"us/op",
                "rawDataHistogram":[[[[1.5,3],[2.0,1]]]]}}]"#,
        );
        assert_eq!(s[0].values, vec![1.5, 1.5, 1.5, 2.0]);
        assert_eq!(s[0].unit, Some(Unit::Us));
        assert!(series(r#"{"mean":{"point_estimate":4.19}}"#)[0]
            .averages
            .is_some());
    }

    #[test]
    fn criterion_raw_csv_is_one_series_a_benchmark() {
        let s = series(
            "group,function,value,throughput_num,throughput_type,sample_measured_value,unit,iteration_count\n\
             g,f,,,,1000,ns,1\ng,f,,,,2000,ns,2\ng,h,,,,30,ns,1\n",
        );
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].name.as_str(), s[0].values.len()), ("g/f", 2));
        assert_eq!(s[1].format, Format::CriterionRaw);
    }
}
