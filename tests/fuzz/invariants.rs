//! What every fuzzer asserts, once: the proptest fuzzing of `cargo xtask test` (tests/fuzz.rs)
//! and the coverage-guided targets of `cargo xtask fuzz` (fuzz/fuzz_targets/) include this
//! file, so the two cannot drift apart. Each check takes any bytes, reads them every way its
//! target does (numbers in text, raw 8-byte words as u64 and f64), and says what is wrong, or
//! nothing; the callers turn that into a failed case or a crash.

use std::io::Cursor;

use ticklab::fit::{least_values, ols, step_fit};
use ticklab::tick::{estimate_counts, estimate_values, EstimatorOptions, Method};
use ticklab::Report;
use ticklab_native::analyze::examine;

/// Fails with `msg` unless `ok`.
fn check(ok: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(msg())
    }
}

/// Whitespace- or comma-separated tokens; what is empty is left out.
fn tokens(bytes: &[u8]) -> Vec<&str> {
    std::str::from_utf8(bytes)
        .unwrap_or("")
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect()
}

/// The bytes as 8-byte little-endian words: every bit pattern of u64 (and, as bits, f64).
fn words(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

/// `ticklab analyze` on the bytes, read as lines, as a CSV column by index or by name, as
/// the tools' JSON: a sound analysis (finite values, a finite positive tick and precision,
/// shares that are shares, an answer in words) or a bad-input error; never a panic.
pub fn analyze(bytes: &[u8]) -> Result<(), String> {
    use ticklab::analyze::Kind;
    let forms = [
        (None, None),
        (Some("1"), None),
        (Some("2"), None),
        (Some("ms"), None),
        (None, Some(Kind::Readings)),
        (None, Some(Kind::Durations)),
    ];
    for (column, forced) in forms {
        match examine(
            Box::new(Cursor::new(bytes.to_vec())),
            column,
            "input",
            forced,
        ) {
            Ok(a) => {
                // Every series (every column of a table), not the headline alone.
                for m in a.series.iter().chain(a.combined.as_ref()) {
                    let values_sound = m.series.values.iter().all(|v| v.is_finite() && *v >= 0.0)
                        && m.analysed()
                            .iter()
                            .all(|v| v.is_finite() && *v > 0.0 || m.readings.is_none());
                    let estimate_sound = m.estimate.as_ref().is_none_or(|e| {
                        e.tick.is_finite()
                            && e.tick > 0.0
                            && e.uncertainty.is_finite()
                            && (0.0..=1.0).contains(&e.share_explained)
                    });
                    let precision = m.series.quantum.step();
                    let words = ticklab::present::analysis::answer(m);
                    let row = ticklab::present::analysis::column_row(m);
                    check(
                        values_sound
                            && estimate_sound
                            && precision.is_finite()
                            && precision > 0.0
                            && !words.is_empty()
                            && row.len() == ticklab::present::analysis::COLUMNS_COLUMNS.len(),
                        || format!("unsound analysis: {:?}, answer {words}", m.estimate),
                    )?;
                }
            }
            // Bad input, said in words: the exit code 2 a command ends with.
            Err(e) if e.exit_code() == 2 && !e.to_string().is_empty() => {}
            Err(e) => return Err(format!("not a bad-input error: {e:?}")),
        }
    }
    Ok(())
}

/// The tick estimators on the bytes as numbers in text, as counts, and as raw words (u64 and
/// f64): a tick finite and positive, shares that are shares, every interval counted, a
/// reliable tick from ten intervals or more, an exact GCD that divides every interval.
pub fn intervals(bytes: &[u8]) -> Result<(), String> {
    let toks = tokens(bytes);
    let values: Vec<f64> = toks.iter().filter_map(|t| t.parse().ok()).collect();
    let counts: Vec<u64> = toks
        .iter()
        .filter_map(|t| {
            t.parse::<u64>()
                .ok()
                .or_else(|| t.parse::<f64>().ok().map(|v| v as u64))
        })
        .collect();
    let words = words(bytes);
    let floats: Vec<f64> = words.iter().map(|&w| f64::from_bits(w)).collect();
    let opts = EstimatorOptions::default();
    for v in [&values, &floats] {
        if let Ok(e) = estimate_values(v, &opts) {
            check(e.tick.is_finite() && e.tick > 0.0, || {
                format!("tick {}", e.tick)
            })?;
            check((0.0..=1.0).contains(&e.share_explained), || {
                format!("share {}", e.share_explained)
            })?;
            check(e.intervals + e.zeros + e.rejected == v.len() as u64, || {
                format!(
                    "{} + {} + {} intervals of {}",
                    e.intervals,
                    e.zeros,
                    e.rejected,
                    v.len()
                )
            })?;
            check(!e.reliable || e.intervals >= 10, || {
                format!("reliable from {} intervals", e.intervals)
            })?;
        }
    }
    for c in [&counts, &words] {
        if let Ok(e) = estimate_counts(c, &opts) {
            check(e.tick.is_finite() && e.tick > 0.0, || {
                format!("tick {}", e.tick)
            })?;
            check((0.0..=1.0).contains(&e.share_explained), || {
                format!("share {}", e.share_explained)
            })?;
            // An exact GCD above 2^53 counts has no exact f64.
            if e.method == Method::ExactGcd && e.tick < 2f64.powi(53) {
                let t = e.tick as u64;
                check(c.iter().all(|&d| d % t == 0), || {
                    format!("exact GCD {t} must divide every interval")
                })?;
            }
        }
    }
    Ok(())
}

/// Least squares, the least-values fit and the step fit on the bytes as pairs of numbers in
/// text and as pairs of raw f64: where no sum can overflow, lines are finite, r² ≤ 1, no
/// point lies under the least-values line and its excess is not negative; never a panic.
pub fn fits(bytes: &[u8]) -> Result<(), String> {
    let text: Vec<f64> = tokens(bytes)
        .iter()
        .filter_map(|t| t.parse().ok())
        .collect();
    let raw: Vec<f64> = words(bytes).iter().map(|&w| f64::from_bits(w)).collect();
    for v in [&text, &raw] {
        fit_points(v)?;
    }
    Ok(())
}

fn fit_points(v: &[f64]) -> Result<(), String> {
    let (x, y): (Vec<f64>, Vec<f64>) = v.chunks_exact(2).map(|p| (p[0], p[1])).unzip();
    // Sound arithmetic is only promised where no sum can overflow.
    let moderate = x.iter().chain(&y).all(|a| a.is_finite() && a.abs() <= 1e12);
    if let Ok(o) = ols(&x, &y) {
        if moderate {
            check(
                o.line.slope.is_finite() && o.line.intercept.is_finite(),
                || format!("least squares {:?}", o.line),
            )?;
            check(o.r2 <= 1.0 + 1e-9, || format!("r2 {}", o.r2))?;
        }
    }
    if let Ok(l) = least_values(&x, &y) {
        if moderate {
            let scale = y.iter().fold(1.0f64, |m, a| m.max(a.abs()))
                + l.line.slope.abs() * x.iter().fold(1.0f64, |m, a| m.max(a.abs()));
            for (a, b) in x.iter().zip(&y) {
                check(b - l.line.at(*a) >= -1e-9 * scale, || {
                    format!("point ({a}, {b}) under the least-values line {:?}", l.line)
                })?;
            }
            check(l.total_excess >= -1e-9 * scale * x.len() as f64, || {
                format!("total excess {}", l.total_excess)
            })?;
        }
        let tick = v.first().copied().unwrap_or(1.0).abs();
        if let Ok(s) = step_fit(&x, &y, l.line.slope, tick) {
            check(s.on_steps <= x.len() as u64, || {
                format!("{} of {} points on steps", s.on_steps, x.len())
            })?;
        }
    }
    Ok(())
}

/// Report import on the bytes as text: a report that exports and reads back the same, and
/// the tables the command and the page make of it; anything else a report error.
pub fn report(bytes: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(bytes);
    match Report::from_json(&text) {
        Ok(r) => {
            let json = r
                .to_json()
                .map_err(|e| format!("an imported report does not export: {e}"))?;
            let again = Report::from_json(&json)
                .map_err(|e| format!("an exported report does not import: {e}"))?;
            check(again == r, || "a report read back differs".into())?;
            let _ = ticklab::export::summary(&r);
            let _ = ticklab::export::tables(&r);
            Ok(())
        }
        Err(ticklab::Error::Report(m)) if !m.is_empty() => Ok(()),
        Err(e) => Err(format!("not a report error: {e}")),
    }
}
