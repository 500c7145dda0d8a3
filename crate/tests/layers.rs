//! The core's files import in one direction: no file imports one that, directly or through
//! others, imports it back. Each layer (units and errors, caveats, clocks, experiments,
//! words) can then be read, tested and changed with what is under it alone.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file: `tick/estimate/mod.rs` → ["tick", "estimate"].
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) || parts == ["main"] {
        parts.pop();
    }
    parts
}

/// The file of the longest prefix of `path` that is a module.
fn file_of(modules: &BTreeMap<Vec<String>, PathBuf>, path: &[String]) -> Option<PathBuf> {
    (0..=path.len())
        .rev()
        .find_map(|n| modules.get(&path[..n]).cloned())
}

/// The code of a file without its comments and strings (which name paths in words), and
/// without its unit tests (the last thing in a file here), which use it from above.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = String::new();
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut quoted = false;
        for c in line.chars() {
            if c == '"' {
                quoted = !quoted;
            } else if !quoted {
                out.push(c);
            }
        }
        out.push('\n');
    }
    out
}

/// The paths a file's code names from `crate::` or `super::`, braces expanded:
/// `use crate::tick::{grid, Verdict}` gives `crate::tick::grid` and `crate::tick::Verdict`.
fn paths(code: &str) -> Vec<Vec<String>> {
    let bytes: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let rest: String = bytes[i..bytes.len().min(i + 7)].iter().collect();
        let starts = (rest.starts_with("crate::") || rest.starts_with("super::"))
            && (i == 0 || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_'));
        if !starts {
            i += 1;
            continue;
        }
        // The path up to its end, with one level of braces.
        let mut j = i;
        let mut depth = 0;
        while j < bytes.len() {
            let c = bytes[j];
            if c == '{' {
                depth += 1;
            } else if c == '}' {
                if depth == 0 {
                    break;
                }
                depth -= 1;
                if depth == 0 {
                    j += 1;
                    break;
                }
            } else if depth == 0 && !(c.is_alphanumeric() || c == '_' || c == ':') {
                break;
            }
            j += 1;
        }
        let text: String = bytes[i..j].iter().filter(|c| !c.is_whitespace()).collect();
        expand(&text, &mut out);
        i = j.max(i + 1);
    }
    out
}

fn expand(text: &str, out: &mut Vec<Vec<String>>) {
    match text.find('{') {
        None => out.push(
            text.split("::")
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect(),
        ),
        Some(open) => {
            let head = &text[..open];
            let inner = text[open + 1..].trim_end_matches('}');
            for part in split_top(inner) {
                expand(&format!("{head}{part}"), out);
            }
        }
    }
}

/// `a, b::{c, d}, e` split at its top-level commas.
fn split_top(s: &str) -> Vec<String> {
    let (mut parts, mut cur, mut depth) = (Vec::new(), String::new(), 0);
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    parts.push(cur);
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

/// The files each file of `src` imports.
fn imports(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files
        .iter()
        .map(|f| (module_of(src, f), f.clone()))
        .collect();
    let mut graph = BTreeMap::new();
    for f in &files {
        let me = module_of(src, f);
        let text = code(&std::fs::read_to_string(f).unwrap());
        let mut to = BTreeSet::new();
        for p in paths(&text) {
            let absolute: Vec<String> = match p.first().map(String::as_str) {
                Some("crate") => p[1..].to_vec(),
                Some("super") => {
                    // `super` of module a::b (a/b.rs or a/b/mod.rs alike) is a.
                    let ups = p.iter().take_while(|s| *s == "super").count();
                    me[..me.len().saturating_sub(ups)]
                        .iter()
                        .cloned()
                        .chain(p[ups..].iter().cloned())
                        .collect()
                }
                _ => continue,
            };
            if let Some(target) = file_of(&modules, &absolute) {
                // A module and what it declares within: no import.
                let within = module_of(src, &target).starts_with(&me);
                if target != *f && !within {
                    to.insert(target);
                }
            }
        }
        graph.insert(f.clone(), to);
    }
    graph
}

/// A circle through `start`, when there is one.
fn circle(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>, start: &Path) -> Option<Vec<PathBuf>> {
    fn walk(
        g: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        at: &Path,
        start: &Path,
        trail: &mut Vec<PathBuf>,
        seen: &mut BTreeSet<PathBuf>,
    ) -> bool {
        for next in g.get(at).into_iter().flatten() {
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) {
                trail.push(next.clone());
                if walk(g, next, start, trail, seen) {
                    return true;
                }
                trail.pop();
            }
        }
        false
    }
    let mut trail = vec![start.to_path_buf()];
    let mut seen = BTreeSet::new();
    walk(graph, start, start, &mut trail, &mut seen).then_some(trail)
}

#[test]
fn no_file_of_the_core_imports_one_that_imports_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = imports(&src);
    // The reader sees what it must: the tick experiment imports its parent, the estimator
    // the quantum.
    let tick = src.join("tick/experiment.rs");
    assert!(graph[&tick].contains(&src.join("tick/mod.rs")), "{graph:?}");
    assert!(graph[&src.join("tick/estimate/mod.rs")].contains(&src.join("tick/quantum.rs")));
    for f in graph.keys() {
        if let Some(c) = circle(&graph, f) {
            let names: Vec<String> = c
                .iter()
                .map(|p| p.strip_prefix(&src).unwrap().display().to_string())
                .collect();
            panic!("a circle of imports: {}", names.join(" -> "));
        }
    }
}

/// The first circle of imports among the files of `src`, named from it.
fn first_circle(src: &Path) -> Option<String> {
    let graph = imports(src);
    graph.keys().find_map(|f| {
        circle(&graph, f).map(|c| {
            c.iter()
                .map(|p| p.strip_prefix(src).unwrap().display().to_string())
                .collect::<Vec<_>>()
                .join(" -> ")
        })
    })
}

/// The other crates of the workspace import in one direction too.
#[test]
fn no_other_crate_has_a_circle_of_imports() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut circles = Vec::new();
    for krate in [
        "native-runner",
        "plot",
        "www",
        "www/first",
        "driver",
        "xtask",
        "tests/support",
    ] {
        let src = root.join(krate).join("src");
        assert!(src.is_dir(), "{} is no crate's sources", src.display());
        if let Some(c) = first_circle(&src) {
            circles.push(format!("{krate}: {c}"));
        }
    }
    assert!(
        circles.is_empty(),
        "circles of imports:\n{}",
        circles.join("\n")
    );
}

/// The test's reader finds a circle where there is one.
#[test]
fn a_circle_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod a; pub mod b;").unwrap();
    std::fs::write(src.join("a/mod.rs"), "use crate::b::{Thing, other};").unwrap();
    std::fs::write(src.join("b.rs"), "fn f() -> crate::a::X { todo!() }").unwrap();
    let g = imports(src);
    assert!(circle(&g, &src.join("b.rs")).is_some(), "{g:?}");
    std::fs::write(src.join("b.rs"), "// crate::a::X in words only").unwrap();
    let g = imports(src);
    assert!(circle(&g, &src.join("b.rs")).is_none(), "{g:?}");
}

/// Most lines of a source file, and of a function outside the tests.
const MOST_FILE_LINES: usize = 800;
const MOST_FN_LINES: usize = 120;

/// The functions of `text` longer than `most` lines, before its unit tests: each `fn` line
/// (not a declaration ending in `;`) to the `}` at its own indentation, as rustfmt writes it.
fn long_functions(text: &str, most: usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text
        .split("\n#[cfg(test)]")
        .next()
        .unwrap_or("")
        .lines()
        .collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let is_fn = code.split("fn ").next().is_some_and(|before| {
            before
                .split_whitespace()
                .all(|w| w.starts_with("pub") || ["async", "const", "unsafe"].contains(&w))
        }) && code.contains("fn ")
            && !code.starts_with("//")
            && !line.trim_end().ends_with(';');
        if !is_fn {
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = lines[i + 1..].iter().position(|l| *l == close) {
            if end + 2 > most {
                let name = code
                    .split("fn ")
                    .nth(1)
                    .unwrap_or("")
                    .split(['(', '<'])
                    .next();
                out.push((name.unwrap_or("").to_string(), end + 2));
            }
        }
    }
    out
}

/// No source file of the workspace is over 800 lines, and no function outside the tests
/// over 120: a long unit is split by stage, a long file by subject.
#[test]
fn no_unit_is_too_long() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut too_long = Vec::new();
    for dir in [
        "crate",
        "native-runner",
        "plot",
        "www",
        "driver",
        "xtask",
        "tests",
        "fuzz",
    ] {
        let mut files = Vec::new();
        sources(&root.join(dir), &mut files);
        for f in files {
            let rel = f.strip_prefix(&root).unwrap().display().to_string();
            if rel.contains("/target/") || rel.contains("/pkg/") {
                continue;
            }
            let text = std::fs::read_to_string(&f).unwrap();
            let lines = text.lines().count();
            if lines > MOST_FILE_LINES {
                too_long.push(format!("{rel}: {lines} lines"));
            }
            // Tests and benchmarks are exempt: a scenario reads best whole.
            let tests = rel.starts_with("tests/") && !rel.starts_with("tests/support/")
                || rel.contains("/tests/")
                || rel.contains("/benches/");
            if !tests {
                for (name, n) in long_functions(&text, MOST_FN_LINES) {
                    too_long.push(format!("{rel}: fn {name}, {n} lines"));
                }
            }
        }
    }
    assert!(too_long.is_empty(), "too long:\n{}", too_long.join("\n"));
}

/// The reader finds a long function, and not a short one or a declaration.
#[test]
fn a_long_function_is_found() {
    let body = "    x += 1;\n".repeat(130);
    let text = format!(
        "fn short() {{\n}}\n\npub(crate) async fn long(a: u8) -> u8 {{\n{body}}}\n\nfn decl();\n"
    );
    let found = long_functions(&text, MOST_FN_LINES);
    assert_eq!(found, [("long".to_string(), 132)]);
}
