//! Lines and tables: one number a line, a column of a CSV or TSV file, every column of
//! one, and Criterion's raw.csv.

use super::*;

/// The header of a one-column CSV: a first line that is no number, above lines that all
/// are (at least one). None for anything else, which is read, and refused, line by line.
pub(super) fn one_column_header(bytes: &[u8]) -> Option<String> {
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

pub(super) fn read_lines(bytes: &[u8]) -> Result<Written> {
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
pub(super) struct Records<'a> {
    rest: &'a [u8],
    sep: u8,
}

impl<'a> Records<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Self::with(bytes, b',')
    }

    /// Records whose fields are separated by `sep` (a tab for TSV).
    pub(super) fn with(bytes: &'a [u8], sep: u8) -> Self {
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

pub(super) fn read_column(bytes: &[u8], column: &str, sep: u8) -> Result<Written> {
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
pub(super) fn separator(first_line: &[u8]) -> Option<u8> {
    [b',', b'\t', b';']
        .into_iter()
        .find(|s| first_line.contains(s))
}

/// Most columns a table may have.
pub(super) const MAX_COLUMNS: usize = 256;

/// Every column of a table (CSV, TSV): named by its header when the first row is one (some
/// field of it is no number), else by its number. A column of numbers is a series; one
/// holding anything else is named, with the first field that is no number, and skipped.
/// None when no row follows the first: a line of text, no table (read as lines, it is
/// refused with that line quoted).
pub(super) fn read_table(
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
    refused.resize_with(width, || None);
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
pub(super) fn unit_named(s: &str) -> Option<Unit> {
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
pub(super) fn read_criterion_raw(bytes: &[u8], name: &str) -> Result<Vec<Series>> {
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
