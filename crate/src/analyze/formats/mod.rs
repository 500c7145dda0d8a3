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
mod table;
mod text;

use table::*;
use text::*;
pub use text::{parse_value, FULL_PRECISION};

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
