//! What `analyze` reads, from bytes: durations one a line or in a CSV column, and the files
//! other timing tools write: Criterion's `sample.json` and `raw.csv` (and `estimates.json`,
//! averages), hyperfine's `--export-json`, pytest-benchmark's `--benchmark-json` and JMH's
//! `-rf json`. The command reads them from files and directories, the page from a file
//! input or a paste box.

use std::borrow::Cow;

use serde_json::Value;

use super::Unit;
use crate::caveat::Caveat;
use crate::error::{Error, Result};
use crate::tick::quantum::{shortest_digits, written_digits};
use crate::tick::Quantum;

mod json;

pub use json::json_series;
use json::*;

/// Most values read: enough for a "gazillion" timings, small enough to stay in memory.
pub const MAX_VALUES: usize = 10_000_000;
/// Longest line accepted.
const MAX_LINE: usize = 64 * 1024;
/// Largest JSON file read.
pub const MAX_JSON: u64 = 256 << 20;
/// Largest input of any kind: ten million values a line each, with room to spare.
pub const MAX_INPUT: u64 = 512 << 20;

/// Parses JSON text into a tree: the command with serde_json, the page with the browser's
/// own parser (one JSON reader in the page's module fewer).
pub type JsonParser<'a> = &'a dyn Fn(&[u8]) -> std::result::Result<Value, String>;

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
    /// Whether these are averages, which have no tick at all (the format says why).
    pub averages: bool,
    /// How the values were made from what the file holds.
    pub notes: Vec<Caveat>,
    /// Each value's decimals as written (its own precision is 10^-places), when known: a
    /// tick a value's printing alone makes it a multiple of is no evidence of a clock.
    pub places: Vec<i16>,
    /// The values exactly as written, in units of 10^-places, when every one was a plain
    /// decimal printed to one fixed number of places: beyond the 2^53 a double holds (epoch
    /// nanoseconds are 1.7e18; `date +%s.%N` writes seconds to nine decimals).
    pub exact: Option<(Vec<u64>, i32)>,
    /// Why the column holds no series to analyse (words, not numbers), when it does not.
    pub refused: Option<Caveat>,
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
        let mut places: Vec<i16> = values
            .iter()
            .map(|&x| {
                let (p, d) = shortest_digits(x);
                printed(p, d)
            })
            .collect();
        // One value in two hundred at full precision: they came out of float arithmetic, as
        // Quantum::infer reads them, and the short ones are short by chance.
        let full = places.iter().filter(|p| **p == FULL_PRECISION).count();
        if full > 0 && full * 200 >= places.len() {
            places.fill(FULL_PRECISION);
        }
        Self {
            name,
            format,
            unit,
            values,
            quantum,
            finer,
            averages: false,
            notes: Vec::new(),
            places,
            exact: None,
            refused: None,
        }
    }

    /// A column that is no series, and why.
    fn refused(name: String, why: Caveat) -> Self {
        Self {
            refused: Some(why),
            ..Self::json(name, Format::Column, None, Vec::new())
        }
    }

    fn averages(name: String, format: Format, unit: Option<Unit>) -> Self {
        Self {
            averages: true,
            ..Self::json(name, format, unit, Vec::new())
        }
    }
}

fn usage(m: impl Into<String>) -> Error {
    Error::Input(m.into())
}

/// One value: a finite non-negative number, or an error naming the line.
pub fn parse_value(token: &str, line: usize) -> Result<f64> {
    let t = token.trim();
    let v: f64 = t.parse().map_err(|_| {
        let why = separator_hint(t).map_or(String::new(), |h| format!(": {h}"));
        usage(format!(
            "line {line}: '{}' is not a number{why}",
            shorten(t)
        ))
    })?;
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

/// Text as people save it, as UTF-8: UTF-8 with or without a byte-order mark (what
/// spreadsheets write as "CSV UTF-8"), or UTF-16 in either byte order (what they write as
/// "Unicode text"), with its mark or, without one, when every other byte of its start is
/// zero. Anything else is passed on as it is, for the readers to judge line by line.
fn decode_text(bytes: &[u8]) -> Result<Cow<'_, [u8]>> {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return Ok(Cow::Borrowed(rest));
    }
    let (little, body) = match bytes {
        [0xFF, 0xFE, rest @ ..] => (true, rest),
        [0xFE, 0xFF, rest @ ..] => (false, rest),
        _ => match unmarked_utf16(bytes) {
            Some(little) => (little, bytes),
            None => return Ok(Cow::Borrowed(bytes)),
        },
    };
    let bad = |why: &str| {
        usage(format!(
            "UTF-16 text ({}-endian) {why}: save it again, or as UTF-8",
            if little { "little" } else { "big" }
        ))
    };
    if body.len() % 2 != 0 {
        return Err(bad("with an odd number of bytes, cut short"));
    }
    let units = body.chunks_exact(2).map(|p| {
        let pair = [p[0], p[1]];
        if little {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    let mut text = String::with_capacity(body.len() / 2);
    for c in char::decode_utf16(units) {
        text.push(c.map_err(|_| bad("that is not valid UTF-16 (a lone surrogate)"))?);
    }
    Ok(Cow::Owned(text.into_bytes()))
}

/// Whether `bytes` look like UTF-16 without a byte-order mark, and in which order: in their
/// first 64 pairs (two at least), one byte of every pair zero and the other not, as in text
/// of ASCII characters (timings are); the zero byte second in little-endian.
fn unmarked_utf16(bytes: &[u8]) -> Option<bool> {
    let pairs = || bytes.chunks_exact(2).take(64);
    if bytes.len() < 4 {
        None
    } else if pairs().all(|p| p[0] != 0 && p[1] == 0) {
        Some(true)
    } else if pairs().all(|p| p[0] == 0 && p[1] != 0) {
        Some(false)
    } else {
        None
    }
}

/// Why `t`, which did not parse, is not read as a number, when it is written with a
/// decimal comma (0,25) or with separators between groups of thousands (1,234 / 1 234 567 /
/// 1.234,5 / 1'234.5).
fn separator_hint(t: &str) -> Option<&'static str> {
    let t = t.trim_start_matches(['-', '+']);
    // Digit groups and the separators between them.
    let (mut groups, mut seps) = (vec![0usize], Vec::new());
    for c in t.chars() {
        match c {
            '0'..='9' => *groups.last_mut()? += 1,
            ',' | '.' | '\'' | ' ' | '_' | '\u{a0}' | '\u{202f}' => {
                seps.push(c);
                groups.push(0);
            }
            _ => return None,
        }
    }
    if groups.len() < 2 || groups.contains(&0) {
        return None;
    }
    if seps == [','] && groups[1] != 3 {
        return Some("it has a decimal comma: ticklab reads a point as the decimal mark");
    }
    // Grouped: 1 to 3 digits, then groups of three after one separator, and perhaps a
    // decimal part after another.
    let grouping = seps[0];
    let whole = seps.iter().take_while(|&&c| c == grouping).count();
    let decimals = seps.len() - whole;
    let grouped = groups[0] <= 3
        && groups[1..=whole].iter().all(|&g| g == 3)
        && (decimals == 0 || (decimals == 1 && matches!(seps[whole], '.' | ',')));
    match (grouped, seps.as_slice()) {
        (true, [',']) => Some(
            "it has a separator between groups of thousands (or a decimal comma): write the \
             digits alone, with a point as the decimal mark",
        ),
        (true, _) => Some(
            "it has a separator between groups of thousands: write the digits alone, with a \
             point as the decimal mark",
        ),
        _ => None,
    }
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Decimals as kept beside a value (a double has no more than 340 of them either way).
fn places_of(p: i32) -> i16 {
    p.clamp(-400, 400) as i16
}

/// A value written to a double's full precision: its digits say nothing of how finely it
/// was measured (float arithmetic made them), only the data's grid does.
pub const FULL_PRECISION: i16 = i16::MAX;

/// The decimals kept for a value of `places` decimals and `digits` significant digits.
fn printed(places: i32, digits: u32) -> i16 {
    if digits >= 15 {
        FULL_PRECISION
    } else {
        places_of(places)
    }
}

/// Values as written, and what their digits say of their precision.
struct Written {
    values: Vec<f64>,
    places: Vec<i16>,
    max_places: i32,
    full_precision: bool,
    /// Every token so far as its digits and decimals, while each was a plain decimal.
    exact: Option<Vec<(u64, i32)>>,
}

impl Written {
    fn new() -> Self {
        Self {
            values: Vec::new(),
            places: Vec::new(),
            max_places: 0,
            full_precision: false,
            exact: Some(Vec::new()),
        }
    }

    fn push(&mut self, token: &str, line: usize) -> Result<()> {
        if self.values.len() >= MAX_VALUES {
            return Err(usage(format!(
                "more than {MAX_VALUES} values; analyze a sample of them"
            )));
        }
        self.values.push(parse_value(token, line)?);
        if let Some(e) = &mut self.exact {
            match plain_decimal(token) {
                Some(d) => e.push(d),
                None => self.exact = None,
            }
        }
        let (places, digits) = written_digits(token);
        self.places.push(printed(places, digits));
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
            averages: false,
            notes: Vec::new(),
            // Some value written to a double's full precision: none was written to a step.
            places: if self.full_precision {
                vec![FULL_PRECISION; self.places.len()]
            } else {
                self.places
            },
            exact: self.exact.and_then(exact_at_common_places),
            refused: None,
        }
    }
}

/// A token of digits with perhaps a point and more digits ("1732550000.123456789"): its
/// digits as one number and its decimals; none for anything else, or too many digits.
fn plain_decimal(token: &str) -> Option<(u64, i32)> {
    let t = token.trim();
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    let digits = || int.bytes().chain(frac.bytes());
    if int.is_empty() || !digits().all(|b| b.is_ascii_digit()) || int.len() + frac.len() > 19 {
        return None;
    }
    let mut v = 0u64;
    for b in digits() {
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some((v, frac.len() as i32))
}

/// Decimals printed to one fixed number of places (`%.9f`, `date +%s.%N`, whole numbers),
/// as numbers of that place. A double's shortest form ("1732550000.0025835") has as
/// many decimals as it needs, some fewer than others: its digits are the double's, which
/// the values already are.
fn exact_at_common_places(values: Vec<(u64, i32)>) -> Option<(Vec<u64>, i32)> {
    let places = values.first()?.1;
    values
        .iter()
        .all(|v| v.1 == places)
        .then(|| (values.iter().map(|v| v.0).collect(), places))
}

/// Reads `bytes` (named `name` in messages): a known tool's JSON or Criterion's raw.csv by
/// their content, else one duration a line, or `column` of a CSV file. `unit` is the unit
/// of plain numbers; known formats carry their own. `json` parses JSON text.
pub fn read(
    bytes: &[u8],
    column: Option<&str>,
    name: &str,
    unit: Option<Unit>,
    json: JsonParser,
) -> Result<Vec<Series>> {
    if bytes.len() as u64 > MAX_INPUT {
        return Err(usage(format!(
            "'{name}' is larger than the {} MiB ticklab reads",
            MAX_INPUT >> 20
        )));
    }
    let text = decode_text(bytes).map_err(|e| usage(format!("'{name}': {e}")))?;
    let bytes: &[u8] = &text;
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if column.is_none() && matches!(first, Some(b'{' | b'[')) {
        if bytes.len() as u64 > MAX_JSON {
            return Err(usage(format!(
                "'{name}' is larger than the {} MiB a JSON file may be",
                MAX_JSON >> 20
            )));
        }
        return read_json(bytes, name, json);
    }
    let first_line = bytes.split(|&b| b == b'\n').next().unwrap_or(&[]);
    if column.is_none()
        && std::str::from_utf8(first_line).is_ok_and(|l| l.contains("sample_measured_value"))
    {
        return read_criterion_raw(bytes, name);
    }
    let sep = separator(first_line);
    if column.is_none() {
        if let Some(sep) = sep {
            if let Some(table) = read_table(bytes, sep, name, unit)? {
                return Ok(table);
            }
        }
    }
    // One column is a CSV too: a header, then a number a line.
    if column.is_none() && sep.is_none() {
        if let Some(header) = one_column_header(bytes) {
            let written = read_column(bytes, &header, b',')?;
            return Ok(vec![written.into_series(&header, Format::Column, unit)]);
        }
    }
    let written = match column {
        Some(c) => read_column(bytes, c, sep.unwrap_or(b','))?,
        None => read_lines(bytes)?,
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

/// The header of a one-column CSV: a first line that is no number, above lines that all
/// are (at least one). None for anything else, which is read, and refused, line by line.
fn one_column_header(bytes: &[u8]) -> Option<String> {
    let mut lines = bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter_map(|(i, l)| Some((i + 1, std::str::from_utf8(l).ok()?.trim())))
        .filter(|(_, l)| !l.is_empty());
    let (first, header) = lines.next()?;
    if parse_value(header, first).is_ok() || header.len() > MAX_LINE {
        return None;
    }
    let mut numbers = 0usize;
    for (i, l) in lines {
        parse_value(l, i).ok()?;
        numbers += 1;
    }
    let header = Records::new(header.as_bytes()).next()?.ok()?.pop()?;
    (numbers > 0 && !header.is_empty()).then_some(header)
}

fn read_lines(bytes: &[u8]) -> Result<Written> {
    let mut w = Written::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = i + 1;
        if raw.len() > MAX_LINE {
            return Err(usage(format!(
                "line {line} is longer than {MAX_LINE} bytes"
            )));
        }
        let text = std::str::from_utf8(raw)
            .map_err(|_| usage(format!("line {line} is not text (invalid UTF-8)")))?;
        let t = text.trim();
        if !t.is_empty() {
            w.push(t, line)?;
        }
    }
    Ok(w)
}

/// The records of CSV text (RFC 4180: commas, quoted fields with `""` for a quote, line
/// breaks inside quotes), each field trimmed. A reader of a few lines rather than the csv
/// crate's: the page's module carries it, and only this much is needed of it.
struct Records<'a> {
    rest: &'a [u8],
    sep: u8,
}

impl<'a> Records<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self::with(bytes, b',')
    }

    /// Records whose fields are separated by `sep` (a tab for TSV).
    fn with(bytes: &'a [u8], sep: u8) -> Self {
        Self { rest: bytes, sep }
    }
}

impl Iterator for Records<'_> {
    type Item = std::result::Result<Vec<String>, String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let mut fields = Vec::new();
        let mut field: Vec<u8> = Vec::new();
        let mut quoted = false;
        let mut i = 0;
        let bytes = self.rest;
        let end_field = |field: &mut Vec<u8>, fields: &mut Vec<String>| {
            let f = std::str::from_utf8(field).map_err(|_| "not text (invalid UTF-8)".to_string());
            let out = f.map(|f| fields.push(f.trim().to_string()));
            field.clear();
            out
        };
        loop {
            let Some(&b) = bytes.get(i) else {
                if quoted {
                    self.rest = &[];
                    return Some(Err("a quoted field never ends".into()));
                }
                break;
            };
            i += 1;
            match (quoted, b) {
                (true, b'"') if bytes.get(i) == Some(&b'"') => {
                    field.push(b'"');
                    i += 1;
                }
                (true, b'"') => quoted = false,
                (true, _) => field.push(b),
                (false, b'"') if field.iter().all(u8::is_ascii_whitespace) => {
                    field.clear();
                    quoted = true;
                }
                (false, c) if c == self.sep => {
                    if let Err(e) = end_field(&mut field, &mut fields) {
                        self.rest = &[];
                        return Some(Err(e));
                    }
                }
                (false, b'\n') => break,
                (false, _) => field.push(b),
            }
        }
        self.rest = &bytes[i..];
        if let Err(e) = end_field(&mut field, &mut fields) {
            self.rest = &[];
            return Some(Err(e));
        }
        Some(Ok(fields))
    }
}

fn read_column(bytes: &[u8], column: &str, sep: u8) -> Result<Written> {
    let mut w = Written::new();
    let by_index = column.parse::<usize>().ok();
    if by_index == Some(0) {
        return Err(usage("--column 0: columns count from 1"));
    }
    let mut index: Option<usize> = by_index.map(|i| i - 1);
    for (i, rec) in Records::with(bytes, sep).enumerate() {
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
                    rec.join(", ")
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

/// The separator of a table's first line: a comma (CSV), else a tab (TSV), else a
/// semicolon (a spreadsheet's CSV where the comma is the decimal mark); none for one value a
/// line.
fn separator(first_line: &[u8]) -> Option<u8> {
    [b',', b'\t', b';']
        .into_iter()
        .find(|s| first_line.contains(s))
}

/// Most columns a table may have.
const MAX_COLUMNS: usize = 256;

/// Every column of a table (CSV, TSV): named by its header when the first row is one (some
/// field of it is no number), else by its number. A column of numbers is a series; one
/// holding anything else is named, with the first field that is no number, and skipped.
/// None when no row follows the first: a line of text, no table (read as lines, it is
/// refused with that line quoted).
fn read_table(
    bytes: &[u8],
    sep: u8,
    name: &str,
    unit: Option<Unit>,
) -> Result<Option<Vec<Series>>> {
    let mut header: Option<Vec<String>> = None;
    let mut columns: Vec<Written> = Vec::new();
    let mut refused: Vec<Option<Caveat>> = Vec::new();
    let mut first = true;
    for (i, rec) in Records::with(bytes, sep).enumerate() {
        let line = i + 1;
        let rec = rec.map_err(|e| usage(format!("'{name}': line {line}: {e}")))?;
        if rec.iter().all(|f| f.is_empty()) {
            continue;
        }
        if rec.len() > MAX_COLUMNS {
            return Err(usage(format!(
                "'{name}': line {line} has {} columns; ticklab reads at most {MAX_COLUMNS}",
                rec.len()
            )));
        }
        if first {
            first = false;
            if rec
                .iter()
                .any(|f| !f.is_empty() && f.parse::<f64>().is_err())
            {
                header = Some(rec);
                continue;
            }
        }
        while columns.len() < rec.len() {
            columns.push(Written::new());
            refused.push(None);
        }
        for (c, field) in rec.iter().enumerate() {
            if field.is_empty() || refused[c].is_some() {
                continue;
            }
            if let Err(e) = columns[c].push(field, line) {
                if columns[c].values.len() >= MAX_VALUES {
                    return Err(e);
                }
                refused[c] = Some(Caveat::NotNumbers {
                    line: line as u64,
                    text: shorten(field),
                });
            }
        }
    }
    // One row of numbers, or rows that each read as one number with its thousands grouped
    // ("1,234,567"), are no table: read as lines, they are refused with the hint.
    let rows = columns.first().map_or(0, |w| w.values.len());
    let grouped = header.is_none()
        && bytes
            .split(|&b| b == b'\n')
            .filter_map(|l| std::str::from_utf8(l).ok())
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .all(|l| separator_hint(l).is_some());
    if columns.is_empty() || (header.is_none() && rows < 2) || grouped {
        return Ok(None);
    }
    let header = header.unwrap_or_default();
    let width = columns.len().max(header.len());
    columns.resize_with(width, Written::new);
    refused.resize(width, None);
    // A table with no column of numbers is no table of timings at all.
    if columns
        .iter()
        .zip(&refused)
        .all(|(w, r)| r.is_some() || w.values.is_empty())
    {
        let why = refused
            .iter()
            .flatten()
            .next()
            .map_or("no column holds a value".into(), |c| match c {
                Caveat::NotNumbers { line, text } => {
                    format!("line {line}: '{text}' is not a number")
                }
                _ => "no column holds a value".into(),
            });
        return Err(usage(format!("'{name}' holds no column of numbers: {why}")));
    }
    let mut out = Vec::with_capacity(width);
    for (c, (w, why)) in columns.into_iter().zip(refused).enumerate() {
        let label = header
            .get(c)
            .filter(|h| !h.is_empty())
            .cloned()
            .unwrap_or_else(|| format!("column {}", c + 1));
        out.push(match why {
            Some(why) => Series::refused(label, why),
            None if w.values.is_empty() => Series::refused(label, Caveat::NoValues),
            None => w.into_series(&label, Format::Column, unit),
        });
    }
    Ok(Some(out))
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
fn read_criterion_raw(bytes: &[u8], name: &str) -> Result<Vec<Series>> {
    let mut records = Records::new(bytes);
    let headers = match records.next() {
        Some(h) => h.map_err(|e| usage(format!("{name}: line 1: {e}")))?,
        None => Vec::new(),
    };
    let col = |h: &str| headers.iter().position(|x| x.as_str() == h);
    let measured = col("sample_measured_value")
        .ok_or_else(|| usage(format!("{name}: no sample_measured_value column")))?;
    let (group, function, value, unit) = (col("group"), col("function"), col("value"), col("unit"));
    let mut out: Vec<(String, Option<Unit>, Written)> = Vec::new();
    for (i, rec) in records.enumerate() {
        let line = i + 2;
        let rec = rec.map_err(|e| usage(format!("{name}: line {line}: {e}")))?;
        if rec.iter().all(|f| f.is_empty()) {
            continue;
        }
        let get = |c: Option<usize>| c.and_then(|c| rec.get(c)).map_or("", String::as_str);
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

    fn read_bytes(bytes: &[u8], column: Option<&str>) -> Result<Vec<Series>> {
        let json = |b: &[u8]| serde_json::from_slice(b).map_err(|e| e.to_string());
        read(bytes, column, "t", None, &json)
    }

    fn utf16(text: &str, little: bool, mark: bool) -> Vec<u8> {
        let mut out = Vec::new();
        if mark {
            out.extend(if little { [0xFF, 0xFE] } else { [0xFE, 0xFF] });
        }
        for u in text.encode_utf16() {
            out.extend(if little {
                u.to_le_bytes()
            } else {
                u.to_be_bytes()
            });
        }
        out
    }

    #[test]
    fn files_are_read_as_spreadsheets_and_editors_save_them() {
        let text = "ms\r\n0.25\r\n0.5\r\n\r\n";
        let want = vec![0.25, 0.5];
        // UTF-8 with a byte-order mark ("CSV UTF-8"), CRLF and a trailing blank line.
        let mut marked = b"\xEF\xBB\xBF".to_vec();
        marked.extend(text.as_bytes());
        assert_eq!(read_bytes(&marked, Some("ms")).unwrap()[0].values, want);
        let lines = "0.25\r\n0.5\r\n\r\n";
        let mut marked = b"\xEF\xBB\xBF".to_vec();
        marked.extend(lines.as_bytes());
        assert_eq!(read_bytes(&marked, None).unwrap()[0].values, want);
        // UTF-16 ("Unicode text"): both byte orders, with and without a mark.
        for little in [true, false] {
            for mark in [true, false] {
                let b = utf16(lines, little, mark);
                assert_eq!(read_bytes(&b, None).unwrap()[0].values, want);
                let b = utf16(text, little, mark);
                assert_eq!(read_bytes(&b, Some("ms")).unwrap()[0].values, want);
            }
        }
        // JSON saved as UTF-16 too.
        let j = utf16(
            r#"{"results":[{"command":"x","times":[0.5,0.25]}]}"#,
            true,
            true,
        );
        assert_eq!(read_bytes(&j, None).unwrap()[0].values, vec![0.5, 0.25]);
        // Cut short, or not UTF-16 at all once decoded: a message naming UTF-16.
        let mut odd = utf16(lines, true, true);
        odd.pop();
        let e = read_bytes(&odd, None).unwrap_err().to_string();
        assert!(e.contains("UTF-16") && e.contains("odd number"), "{e}");
        let e = read_bytes(b"\xFF\xFE\x00\xD8\x31\x00", None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not valid UTF-16"), "{e}");
    }

    #[test]
    fn decimal_commas_and_thousands_separators_are_named() {
        for (bad, says) in [
            ("0,25", "decimal comma"),
            ("12,5", "decimal comma"),
            ("1,234", "groups of thousands (or a decimal comma)"),
            ("1,234,567", "groups of thousands"),
            ("1 234", "groups of thousands"),
            ("1.234.567", "groups of thousands"),
            ("1.234,5", "groups of thousands"),
            ("1'234.5", "groups of thousands"),
        ] {
            let e = read_bytes(format!("1\n{bad}\n").as_bytes(), None)
                .unwrap_err()
                .to_string();
            assert!(e.contains("line 2") && e.contains(says), "{bad}: {e}");
        }
        // What has neither stays a plain "not a number".
        for bad in ["1,2,3", "abc", "12 ms"] {
            let e = parse_value(bad, 3).unwrap_err().to_string();
            assert!(
                !e.contains("comma") && !e.contains("thousands"),
                "{bad}: {e}"
            );
        }
    }

    fn series(text: &str) -> Vec<Series> {
        let json = |b: &[u8]| serde_json::from_slice(b).map_err(|e| e.to_string());
        read(text.as_bytes(), None, "t", None, &json).unwrap()
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
        assert!(s[0].averages);
        let s = series(
            r#"[{"benchmark":"b","mode":"sample","primaryMetric":{"scoreUnit":"us/op",
                "rawDataHistogram":[[[[1.5,3],[2.0,1]]]]}}]"#,
        );
        assert_eq!(s[0].values, vec![1.5, 1.5, 1.5, 2.0]);
        assert_eq!(s[0].unit, Some(Unit::Us));
        assert!(series(r#"{"mean":{"point_estimate":4.19}}"#)[0].averages);
    }

    #[test]
    fn csv_records_read_as_the_csv_crate_reads_them() {
        let text = "a, b ,\"c,\"\"d\"\"\"\r\n1,2.5,\"x\ny\"\n\n,,\n  7 ,8";
        let ours: Vec<Vec<String>> = Records::new(text.as_bytes()).map(Result::unwrap).collect();
        let mut r = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(text.as_bytes());
        let theirs: Vec<Vec<String>> = r
            .records()
            .map(|r| r.unwrap().iter().map(String::from).collect())
            .collect();
        let ours: Vec<_> = ours.into_iter().filter(|r| r != &[""]).collect();
        assert_eq!(ours, theirs);
        assert!(Records::new(b"\"open").next().unwrap().is_err());
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
