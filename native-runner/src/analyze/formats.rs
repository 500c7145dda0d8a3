//! Where `analyze` finds its input: a file, standard input, or every timing file under a
//! directory (Criterion's tree under `target/criterion`, tools' JSON). What the bytes say is
//! read by the core's [`ticklab::analyze::formats`].

use std::io::Read;
use std::path::Path;

use serde_json::Value;
use ticklab::analyze::formats::{json_series, read, MAX_INPUT, MAX_JSON};
use ticklab::analyze::{Series, Unit};

use crate::error::CliError;

/// Deepest directory walked, and most entries looked at.
const MAX_DEPTH: usize = 16;
const MAX_ENTRIES: usize = 100_000;

fn usage(m: impl Into<String>) -> CliError {
    CliError::Usage(m.into())
}

/// JSON through serde_json.
pub fn parse_json(b: &[u8]) -> Result<Value, String> {
    serde_json::from_slice(b).map_err(|e| e.to_string())
}

/// Every byte of `input`, at most [`MAX_INPUT`] of them.
pub fn read_all(input: impl Read, name: &str) -> Result<Vec<u8>, CliError> {
    let mut bytes = Vec::new();
    input
        .take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| usage(format!("cannot read '{name}': {e}")))?;
    if bytes.len() as u64 > MAX_INPUT {
        return Err(usage(format!(
            "'{name}' is larger than the {} MiB ticklab reads",
            MAX_INPUT >> 20
        )));
    }
    Ok(bytes)
}

/// Reads `path`: a file as [`read`] does, or every timing file under a directory
/// (Criterion's tree under `target/criterion`, tools' JSON).
pub fn read_path(
    path: &str,
    column: Option<&str>,
    unit: Option<Unit>,
) -> Result<Vec<Series>, CliError> {
    if path == "-" {
        let bytes = read_all(std::io::stdin(), "-")?;
        return Ok(read(&bytes, column, "-", unit, &parse_json)?);
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
    let bytes = read_all(f, path)?;
    Ok(read(&bytes, column, path, unit, &parse_json)?)
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
                let mut series = read(&bytes, None, &shown, None, &parse_json)?;
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
