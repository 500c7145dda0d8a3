//! What the command saves and reads back: reports (`--save`), comparisons (`ticklab browsers
//! --save`), each written whole or not at all.

use std::path::Path;

use ticklab::comparison::{Comparison, MAX_COMPARISON_BYTES};
use ticklab::report::{Report, MAX_REPORT_BYTES};

use crate::error::CliError;

/// Writes `text` to `path` whole or not at all: into a temporary file beside it, then
/// renamed over it, so a crash or Ctrl-C never leaves half a report (nor spoils the old one).
pub fn write_atomically(path: &Path, text: &str) -> Result<(), CliError> {
    use std::io::Write;
    let fail = |e: &dyn std::fmt::Display| CliError::write(path.display(), e);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".ticklab-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| fail(&e))?;
    tmp.write_all(text.as_bytes()).map_err(|e| fail(&e))?;
    tmp.as_file().sync_all().map_err(|e| fail(&e))?;
    tmp.persist(path).map_err(|e| fail(&e.error))?;
    Ok(())
}

/// Saves the report, whole or not at all, when asked.
pub fn save(report: &Report, to: Option<&Path>) -> Result<(), CliError> {
    if let Some(path) = to {
        write_atomically(path, &report.to_json()?)?;
    }
    Ok(())
}

/// A saved report and its text, refused with a message (after `flag`) when it cannot be
/// read, is too large, or is no report of a version this ticklab reads.
pub fn read_report(p: &Path, flag: &str) -> Result<(Report, String), CliError> {
    let bad = |why: String| CliError::Usage(format!("{flag}{}: {why}", p.display()));
    let meta = std::fs::metadata(p).map_err(|e| bad(e.to_string()))?;
    if meta.len() > MAX_REPORT_BYTES as u64 {
        return Err(bad(format!(
            "{} bytes; a report is at most {MAX_REPORT_BYTES} bytes",
            meta.len(),
        )));
    }
    let text = std::fs::read_to_string(p).map_err(|e| bad(e.to_string()))?;
    let report = Report::from_json(&text).map_err(|e| bad(e.to_string()))?;
    Ok((report, text))
}

/// What `ticklab show` reads: a report, or a comparison `ticklab browsers` saved.
pub enum Saved {
    Report(Box<Report>),
    Comparison(Comparison),
}

/// The report or comparison in `file`, refused with the reason when it is neither.
pub fn read_saved(file: &Path) -> Result<Saved, CliError> {
    let bad = |why: String| CliError::Usage(format!("{}: {why}", file.display()));
    // A comparison may be larger than a report: read it when it names itself one, and
    // refuse anything else as a report.
    let len = std::fs::metadata(file).map_or(0, |m| m.len());
    if len <= MAX_COMPARISON_BYTES as u64 {
        let text = if len > MAX_REPORT_BYTES as u64 {
            std::fs::read_to_string(file).map_err(|e| bad(e.to_string()))?
        } else {
            std::fs::read_to_string(file).unwrap_or_default()
        };
        if Comparison::is_one(&text) {
            let c = Comparison::from_json(&text).map_err(|e| bad(e.to_string()))?;
            return Ok(Saved::Comparison(c));
        }
    }
    Ok(Saved::Report(Box::new(read_report(file, "")?.0)))
}
