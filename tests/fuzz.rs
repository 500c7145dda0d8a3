//! Fuzzing at scale with proptest, in a time budget: the `analyze` input parser, the tick
//! estimators, the fits and the JSON report import. Each target first replays its corpus
//! (`tests/fuzz/corpus/<target>/`), then runs mutations of it (byte flips, insertions,
//! deletions, splices, hostile tokens) and freshly generated inputs until its time is up
//! (TICKLAB_FUZZ_S seconds, 5 by default); `cargo xtask fuzz` runs the coverage-guided
//! targets of fuzz/ (cargo-fuzz) from the same corpus.
//! A failing input is shrunk and its seed saved in `tests/fuzz/regressions/<target>.txt`,
//! which every later run replays first.
//!
//! What each target asserts: no panic, no hang, errors only of the kinds that mean bad input,
//! and results that are what they claim (finite ticks, shares between 0 and 1, a
//! least-values line under every point, reports that round-trip).

use std::cell::Cell;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{
    Config, FileFailurePersistence, RngAlgorithm, TestCaseError, TestRng, TestRunner,
};

// The invariants, one file shared with the coverage-guided targets of fuzz/.
#[path = "fuzz/invariants.rs"]
mod invariants;

/// An invariant as a proptest check.
fn held(check: fn(&[u8]) -> Result<(), String>) -> impl Fn(&[u8]) -> Result<(), TestCaseError> {
    move |bytes| check(bytes).map_err(TestCaseError::fail)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fuzz")
}

fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = root().join("corpus").join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let p = e.expect("a corpus entry").path();
            let name = p.file_name().unwrap_or_default().to_string_lossy().into();
            (name, std::fs::read(&p).expect("a readable corpus file"))
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "empty corpus {}", dir.display());
    out
}

fn budget() -> Duration {
    let s: f64 = std::env::var("TICKLAB_FUZZ_S")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5.0);
    Duration::from_secs_f64(s.clamp(0.0, 86_400.0))
}

/// Tokens that break parsers of numbers and JSON.
const HOSTILE: &[&str] = &[
    "-1",
    "-0",
    "0",
    "NaN",
    "inf",
    "-inf",
    "1e309",
    "1e-320",
    "4.9e-324",
    "18446744073709551615",
    "18446744073709551616",
    "9007199254740993",
    "0x10",
    "1_000",
    "٣",
    "\u{feff}",
    "\0",
    "\r\n",
    "\n\n",
    ",",
    ",,",
    "\"",
    "\\",
    "{",
    "}",
    "[",
    "]",
    "null",
    "true",
    "\"schema_version\":",
    "<script>alert(1)</script>",
    "\u{202e}",
    "𝟙",
];

/// One edit of a corpus entry.
fn mutate(mut s: Vec<u8>, edits: &[(u8, usize, u8, &str, Vec<u8>)]) -> Vec<u8> {
    for (op, at, byte, token, other) in edits {
        let i = if s.is_empty() { 0 } else { at % (s.len() + 1) };
        match op % 6 {
            0 if i < s.len() => s[i] ^= 1 << (byte % 8),
            1 => s.insert(i, *byte),
            2 if i < s.len() => {
                let end = (i + 1 + *byte as usize % 16).min(s.len());
                s.drain(i..end);
            }
            3 => {
                s.splice(i..i, token.bytes());
            }
            4 if i < s.len() => {
                // Repeat a chunk: long numbers, long lines, deep nesting.
                let end = (i + 1 + *byte as usize % 32).min(s.len());
                let chunk = s[i..end].to_vec();
                for _ in 0..(byte % 8 + 1) {
                    s.splice(i..i, chunk.iter().copied());
                }
            }
            _ => {
                // Splice in part of another entry.
                let j = if other.is_empty() {
                    0
                } else {
                    at % other.len()
                };
                s.splice(i..i, other[j..].iter().take(64).copied());
            }
        }
    }
    s
}

fn inputs(
    corpus: &[(String, Vec<u8>)],
    generated: BoxedStrategy<Vec<u8>>,
) -> BoxedStrategy<Vec<u8>> {
    let seeds: Vec<Vec<u8>> = corpus.iter().map(|c| c.1.clone()).collect();
    let edit = (
        any::<u8>(),
        any::<usize>(),
        any::<u8>(),
        prop::sample::select(HOSTILE),
        prop::sample::select(seeds.clone()),
    );
    let mutated = (
        prop::sample::select(seeds),
        prop::collection::vec(edit, 1..12),
    )
        .prop_map(|(s, e)| mutate(s, &e));
    prop_oneof![
        6 => mutated,
        3 => generated,
        1 => prop::collection::vec(any::<u8>(), 0..512),
    ]
    .boxed()
}

/// Replays the corpus, then fuzzes until the budget is spent; returns the inputs tried.
fn fuzz(
    target: &'static str,
    generated: BoxedStrategy<Vec<u8>>,
    check: impl Fn(&[u8]) -> Result<(), TestCaseError>,
) -> u64 {
    let corpus = corpus(target);
    for (name, bytes) in &corpus {
        if let Err(e) = check(bytes) {
            panic!("{target}: corpus entry {name}: {e}");
        }
    }
    let strategy = inputs(&corpus, generated);
    let regressions: &'static str = Box::leak(
        root()
            .join("regressions")
            .join(format!("{target}.txt"))
            .to_string_lossy()
            .into_owned()
            .into_boxed_str(),
    );
    let execs = Cell::new(corpus.len() as u64);
    let start = Instant::now();
    let budget = budget();
    let mut batch = 0u64;
    loop {
        let config = Config {
            cases: 64,
            failure_persistence: Some(Box::new(FileFailurePersistence::Direct(regressions))),
            source_file: Some(file!()),
            max_shrink_time: 60_000,
            ..Config::default()
        };
        // A fresh seed per batch, from the clock unless PROPTEST_RNG_SEED pins it.
        let seed = std::env::var("PROPTEST_RNG_SEED")
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as u64)
            })
            .wrapping_add(batch);
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
        let mut runner = TestRunner::new_with_rng(config, rng);
        let result = runner.run(&strategy, |input| {
            execs.set(execs.get() + 1);
            check(&input).map_err(|e| {
                let text = String::from_utf8_lossy(&input);
                TestCaseError::fail(format!("{e}\ninput as text: {text:?}"))
            })
        });
        if let Err(e) = result {
            panic!("{target}: {e}");
        }
        batch += 1;
        if start.elapsed() >= budget {
            break;
        }
    }
    let n = execs.get();
    eprintln!(
        "fuzz {target}: {n} inputs in {:.1} s ({} corpus entries)",
        start.elapsed().as_secs_f64(),
        corpus.len()
    );
    n
}

/// Numbers as text: the shapes durations come in.
fn number_text() -> BoxedStrategy<String> {
    prop_oneof![
        any::<u32>().prop_map(|v| v.to_string()),
        (1u64..1_000_000, 0u64..10_000).prop_map(|(t, k)| (t * k).to_string()),
        (0.0f64..1e3).prop_map(|v| format!("{v}")),
        (0.0f64..1e3, 0usize..12).prop_map(|(v, d)| format!("{v:.d$}")),
        (0.0f64..1e3).prop_map(|v| format!("{v:e}")),
        any::<f64>().prop_map(|v| v.to_string()),
        prop::sample::select(HOSTILE).prop_map(String::from),
    ]
    .boxed()
}

fn lines_of_numbers() -> BoxedStrategy<Vec<u8>> {
    (
        prop::collection::vec(number_text(), 0..200),
        prop::sample::select(vec!["\n", "\r\n", ",", " ", "\t"]),
    )
        .prop_map(|(v, sep)| v.join(sep).into_bytes())
        .boxed()
}

fn csv_text() -> BoxedStrategy<Vec<u8>> {
    (
        prop::collection::vec(prop::collection::vec(number_text(), 1..4), 0..100),
        any::<bool>(),
    )
        .prop_map(|(rows, header)| {
            let mut s = if header {
                "run,ms,note\n".to_string()
            } else {
                String::new()
            };
            for r in rows {
                s.push_str(&r.join(","));
                s.push('\n');
            }
            s.into_bytes()
        })
        .boxed()
}

#[test]
fn fuzz_analyze_input() {
    let generated = prop_oneof![lines_of_numbers(), csv_text()].boxed();
    fuzz("analyze", generated, held(invariants::analyze));
}

#[test]
fn fuzz_tick_estimators() {
    let multiples = (
        1u64..1_000_000_000,
        prop::collection::vec(0u64..5000, 0..300),
    )
        .prop_map(|(t, ks)| {
            ks.iter()
                .map(|k| (t * k).to_string())
                .collect::<Vec<_>>()
                .join("\n")
                .into_bytes()
        })
        .boxed();
    let generated = prop_oneof![multiples, lines_of_numbers()].boxed();
    fuzz("intervals", generated, held(invariants::intervals));
}

#[test]
fn fuzz_fits() {
    let lines = (
        -1e3f64..1e3,
        -1e6f64..1e6,
        0.0f64..100.0,
        prop::collection::vec((0u32..100_000, 0.0f64..1.0), 0..300),
    )
        .prop_map(|(slope, icpt, noise, pts)| {
            pts.iter()
                .map(|(x, u)| {
                    let x = *x as f64;
                    format!("{x} {}", slope * x + icpt + noise * u)
                })
                .collect::<Vec<_>>()
                .join("\n")
                .into_bytes()
        })
        .boxed();
    let generated = prop_oneof![lines, lines_of_numbers()].boxed();
    fuzz("fits", generated, held(invariants::fits));
}

/// Replaces the `k`th leaf (or empty container) of `v` with `with`.
fn replace_leaf(v: &mut serde_json::Value, k: &mut usize, with: &serde_json::Value) -> bool {
    use serde_json::Value;
    let children: Vec<&mut Value> = match v {
        Value::Array(a) if !a.is_empty() => a.iter_mut().collect(),
        Value::Object(o) if !o.is_empty() => o.values_mut().collect(),
        _ => {
            if *k == 0 {
                *v = with.clone();
                return true;
            }
            *k -= 1;
            return false;
        }
    };
    for c in children {
        if replace_leaf(c, k, with) {
            return true;
        }
    }
    false
}

#[test]
fn fuzz_report_import() {
    use serde_json::{json, Value};
    // Real reports with hostile values put in their fields.
    let reports: Vec<Value> = corpus("report")
        .iter()
        .filter_map(|(_, b)| serde_json::from_slice(b).ok())
        .filter(|v: &Value| v.get("clocks").is_some())
        .collect();
    assert!(
        !reports.is_empty(),
        "the report corpus holds no real report"
    );
    let hostile = vec![
        Value::Null,
        json!(-1),
        json!(u64::MAX),
        json!(-1e300),
        json!(1e300),
        json!(""),
        json!("<img src=x onerror=alert(1)>"),
        json!("</script><script>alert(1)</script>"),
        json!("x".repeat(10_000)),
        json!([]),
        json!({}),
        json!(true),
        json!([[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]),
    ];
    let generated = (
        prop::sample::select(reports),
        prop::collection::vec((any::<usize>(), prop::sample::select(hostile)), 1..4),
    )
        .prop_map(|(mut r, edits)| {
            for (k, with) in edits {
                let mut k = k % 4096;
                replace_leaf(&mut r, &mut k, &with);
            }
            serde_json::to_vec(&r).expect("a Value serializes")
        })
        .boxed();
    fuzz("report", generated, held(invariants::report));
}
