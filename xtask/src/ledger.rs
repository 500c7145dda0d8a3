//! What the test command did: each step's seconds (the table it prints at its end), and
//! every crate cargo compiled for it, read from cargo's JSON messages, so that a crate
//! compiled twice for the same target and profile fails the run.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Instant;

/// One step: its name, its seconds, and whether it passed.
struct Step {
    name: String,
    seconds: f64,
    ok: bool,
}

/// One compilation of one crate's target (cargo's `compiler-artifact` that was not fresh).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The package and its target: `ticklab-native@0.1.0 lib ticklab_native`.
    pub crate_target: String,
    /// The platform it was compiled for: a triple, or "host" for build scripts and
    /// procedural macros (and everything of a build without `--target`).
    pub triple: String,
    /// The profile's settings as cargo reports them (a test harness is its own).
    pub profile: String,
    pub features: Vec<String>,
    /// The artifact's identity: cargo's metadata hash in its file name (one for each set of
    /// its own and its dependencies' features, flags and profile), or its features when its
    /// files carry none.
    pub artifact: String,
    /// The step that compiled it.
    pub step: String,
}

/// The test command's steps and compilations.
pub struct Ledger {
    steps: Mutex<Vec<Step>>,
    units: Mutex<Vec<Unit>>,
}

pub static LEDGER: Ledger = Ledger {
    steps: Mutex::new(Vec::new()),
    units: Mutex::new(Vec::new()),
};

impl Ledger {
    /// Runs `f` as the step `name`, its seconds kept for the table.
    pub fn timed<T>(&self, name: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
        let t = Instant::now();
        let out = f();
        self.steps
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Step {
                name: name.to_string(),
                seconds: t.elapsed().as_secs_f64(),
                ok: out.is_ok(),
            });
        out
    }

    /// The steps' seconds and the crates each compiled, a line each, in the order they
    /// ended (steps run side by side overlap: their sum can exceed the total); below, the
    /// crates compiled by a step that compiled a few (a step that runs tests from the
    /// builds should compile none).
    pub fn table(&self, total: f64) -> String {
        let steps = self.steps.lock().unwrap_or_else(|e| e.into_inner());
        let units = self.units.lock().unwrap_or_else(|e| e.into_inner());
        let width = steps.iter().map(|s| s.name.len()).max().unwrap_or(4).max(5) + 9;
        let mut out = format!(
            "\n| {:<width$} | seconds | compiled |\n|{}|---------|----------|\n",
            "step",
            "-".repeat(width + 2)
        );
        let mut few = Vec::new();
        for s in steps.iter() {
            let mark = if s.ok { "" } else { " (failed)" };
            let by: Vec<&Unit> = units.iter().filter(|u| u.step == s.name).collect();
            if (1..=5).contains(&by.len()) {
                let names: Vec<String> = by
                    .iter()
                    .map(|u| format!("{} ({})", u.crate_target, u.profile))
                    .collect();
                few.push(format!("{}: {}", s.name, names.join("; ")));
            }
            out.push_str(&format!(
                "| {:<width$} | {:>7.0} | {:>8} |\n",
                format!("{}{mark}", s.name),
                s.seconds,
                by.len()
            ));
        }
        out.push_str(&format!(
            "| {:<width$} | {total:>7.0} | {:>8} |\n",
            "total",
            units.len()
        ));
        for f in few {
            out.push_str(&format!("{f}\n"));
        }
        out
    }

    fn compiled(&self, unit: Unit) {
        self.units
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(unit);
    }

    /// How many crates' targets were compiled and how many of them in more than one variant
    /// for one platform and profile; an error naming each compiled twice into one artifact.
    pub fn once_each(&self) -> Result<(usize, usize), String> {
        let units = self.units.lock().unwrap_or_else(|e| e.into_inner());
        twice(&units).map(|variants| (units.len(), variants))
    }
}

/// Fails naming every crate target compiled more than once for one platform and profile:
/// into the same artifact (work done twice), or into two (two feature sets for one
/// platform). Two exceptions, counted as variants: what runs on the machine that builds
/// (build scripts, procedural macros), whose own or whose dependencies' features cargo
/// resolves apart in each platform's build (the host's with the hub, a Mac's without), each
/// variant once; and the page's two wasm modules, built apart on purpose (web.rs).
fn twice(units: &[Unit]) -> Result<usize, String> {
    let mut by: BTreeMap<(&str, &str, &str), Vec<&Unit>> = BTreeMap::new();
    for u in units {
        by.entry((&u.crate_target, &u.triple, &u.profile))
            .or_default()
            .push(u);
    }
    let (mut found, mut variants) = (Vec::new(), 0);
    for ((target, triple, profile), us) in by {
        let mut artifacts: BTreeMap<&str, Vec<&Unit>> = BTreeMap::new();
        for u in &us {
            artifacts.entry(&u.artifact).or_default().push(u);
        }
        // Each compilation by its step and features, for the message.
        let named = |units: &[&Unit], how: String| {
            let steps: Vec<String> = units
                .iter()
                .map(|u| format!("{} [{}]", u.step, u.features.join(",")))
                .collect();
            format!(
                "{target} for {triple} ({profile}) compiled {how}: {}",
                steps.join("; ")
            )
        };
        let page = triple == crate::WASM && profile.contains("opt z") && artifacts.len() == 2;
        if artifacts.len() > 1 && (triple == "host" || page) {
            variants += 1;
        } else if artifacts.len() > 1 {
            found.push(named(&us, format!("{} ways", artifacts.len())));
        }
        for same in artifacts.values().filter(|same| same.len() > 1) {
            found.push(named(same, format!("{} times", same.len())));
        }
    }
    if found.is_empty() {
        Ok(variants)
    } else {
        Err(format!(
            "{} crates compiled twice for the same target and profile:\n  {}",
            found.len(),
            found.join("\n  ")
        ))
    }
}

/// Cargo's metadata hash in one of a unit's file names (`libserde-0123456789abcdef.rlib`,
/// `build/serde-…/build_script_build-0123456789abcdef`), if any carries one.
fn artifact_of(files: &[&str]) -> Option<String> {
    files.iter().find_map(|f| {
        let name = Path::new(f).file_name()?.to_str()?;
        let stem = name.split('.').next()?;
        let (_, hash) = stem.rsplit_once('-')?;
        (hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())).then(|| hash.into())
    })
}

/// BENCHMARKS.md's section on the test command's own times, as `path` holds it (empty
/// when it has none): measured by the test command, not by `cargo xtask bench`, which keeps
/// it as it is when it writes the rest.
pub fn section_in(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.find("## 11. The test command")
        .map(|at| text[at..].to_string())
        .unwrap_or_default()
}

/// What a cargo run gave: the test executables it built, and the tests its test binaries
/// passed and failed.
#[derive(Default)]
pub struct Outcome {
    pub executables: Vec<Executable>,
    pub passed: u64,
    pub failed: u64,
}

/// A test executable cargo built.
#[derive(Clone, Debug)]
pub struct Executable {
    /// Its target's name ("cli", or a library's name for its unit tests).
    pub name: String,
    pub path: PathBuf,
    /// Its package's folder, where cargo runs it.
    pub dir: PathBuf,
}

impl Outcome {
    /// A line of a test binary's output, echoed, its `test result:` counted.
    fn echo(&mut self, line: &str) {
        println!("{line}");
        if let Some(rest) = line.strip_prefix("test result: ") {
            self.passed += count(rest, " passed");
            self.failed += count(rest, " failed");
        }
    }

    /// The one test executable of target `name`.
    pub fn executable(&self, name: &str) -> Result<&Executable, String> {
        match self
            .executables
            .iter()
            .filter(|e| e.name == name)
            .collect::<Vec<_>>()[..]
        {
            [one] => Ok(one),
            [] => Err(format!("cargo built no test executable named {name}")),
            _ => Err(format!(
                "cargo built more than one test executable named {name}"
            )),
        }
    }
}

/// Runs the built test executable `exe` (`runner` first, for another platform's) as cargo
/// test would, without cargo (whose lock a build beside may hold for minutes): from its
/// package's folder, with `env`, its output echoed and its `test result:` line counted.
pub fn run_tests(
    what: &str,
    runner: Option<&Path>,
    exe: &Executable,
    env: &[(&str, String)],
) -> Result<Outcome, String> {
    LEDGER.timed(what, || run(what, runner, exe, env, false))
}

/// [`run_tests`] for each of `runs` (step, executable) at once, each with `env`: their
/// output held and echoed whole as each ends, so the lines of one stay together.
pub fn run_tests_at_once(
    runs: &[(String, &Executable)],
    env: &[(&str, String)],
) -> Result<Outcome, String> {
    let results: Vec<Result<Outcome, String>> = std::thread::scope(|s| {
        let running: Vec<_> = runs
            .iter()
            .map(|(what, exe)| {
                s.spawn(move || LEDGER.timed(what, || run(what, None, exe, env, true)))
            })
            .collect();
        running
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a test runner panicked".into()))
            })
            .collect()
    });
    let mut all = Outcome::default();
    for r in results {
        let o = r?;
        all.passed += o.passed;
        all.failed += o.failed;
    }
    Ok(all)
}

fn run(
    what: &str,
    runner: Option<&Path>,
    exe: &Executable,
    env: &[(&str, String)],
    held: bool,
) -> Result<Outcome, String> {
    let mut command = match runner {
        Some(r) => {
            let mut c = Command::new(r);
            c.arg(&exe.path);
            c
        }
        None => Command::new(&exe.path),
    };
    command
        .current_dir(&exe.dir)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdout(Stdio::piped());
    eprintln!(
        "\n== [{}] {what}: {}{}",
        crate::at(),
        runner.map_or(String::new(), |r| format!("{} ", r.display())),
        exe.path.display()
    );
    let mut child = command
        .spawn()
        .map_err(|e| format!("{what}: cannot start {}: {e}", exe.path.display()))?;
    let mut lines = Vec::new();
    let mut out = Outcome::default();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line.map_err(|e| format!("{what}: {e}"))?;
            if held {
                lines.push(line);
            } else {
                out.echo(&line);
            }
        }
    }
    let status = child.wait();
    if held {
        // One print: the held lines of tests ending together do not interleave.
        let _lock = std::io::stdout().lock();
        println!("\n-- [{}] {what}, its output:", crate::at());
        for line in &lines {
            out.echo(line);
        }
    }
    let status = status.map_err(|e| format!("{what}: {e}"))?;
    if !status.success() || out.passed + out.failed == 0 {
        println!("tests: {} passed, {} failed", out.passed, out.failed);
        return Err(format!("{what} failed ({status}, {} passed)", out.passed));
    }
    Ok(out)
}

/// Runs `command` (cargo's, or cargo-zigbuild's) with cargo's JSON messages, as the step
/// `what`: diagnostics rendered by cargo, every compilation into the ledger, every other
/// line of its output (the tests') echoed and its `test result:` lines added up.
pub fn cargo(what: &str, command: Command) -> Result<Outcome, String> {
    cargo_then(what, command, || {})
}

/// [`cargo`], calling `built` once cargo has built what it runs (its `build-finished`
/// message, or its end): cargo holds the target directory's lock until then, and a build
/// started before waits for it.
pub fn cargo_then(
    what: &str,
    mut command: Command,
    built: impl FnOnce(),
) -> Result<Outcome, String> {
    let mut built = Some(built);
    LEDGER.timed(what, || {
        let shown: Vec<String> = std::iter::once(command.get_program())
            .chain(command.get_args())
            .map(|a| a.to_string_lossy().to_string())
            .collect();
        eprintln!("\n== [{}] {what}: {}", crate::at(), shown.join(" "));
        let mut child = command
            .arg("--message-format=json-render-diagnostics")
            // Each crate is compiled once a run: incremental state (GBs on a clean clone)
            // would serve only the next run's edits, at the cost of the disk this one needs.
            .env("CARGO_INCREMENTAL", "0")
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("{what}: cannot start {}: {e}", shown[0]))?;
        let target_dir = crate::target_root();
        let mut out = Outcome::default();
        if let Some(stdout) = child.stdout.take() {
            for line in BufReader::new(stdout).lines() {
                let line = line.map_err(|e| format!("{what}: {e}"))?;
                if line.starts_with("{\"reason\":") {
                    if line.starts_with("{\"reason\":\"build-finished\"") {
                        if let Some(f) = built.take() {
                            f();
                        }
                    }
                    read_message(&line, what, &target_dir, &mut out);
                    continue;
                }
                out.echo(&line);
            }
        }
        let status = child.wait().map_err(|e| format!("{what}: {e}"));
        if let Some(f) = built.take() {
            f();
        }
        let status = status?;
        if !status.success() {
            println!("tests: {} passed, {} failed", out.passed, out.failed);
            return Err(format!("{what} failed ({status})"));
        }
        Ok(out)
    })
}

/// `cargo ARGS` from the workspace's root, for [`cargo`].
pub fn command(args: &[&str]) -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.args(args).current_dir(crate::workspace_root());
    c
}

/// The number before `word` in a `test result:` line's parts.
fn count(rest: &str, word: &str) -> u64 {
    rest.split(';')
        .find_map(|part| part.trim().strip_suffix(word))
        .and_then(|n| n.trim().rsplit(' ').next()?.parse::<u64>().ok())
        .unwrap_or(0)
}

/// One JSON message of cargo's: a compiled unit into the ledger, a test executable into
/// `out`.
fn read_message(line: &str, step: &str, target_dir: &Path, out: &mut Outcome) {
    let Ok(m) = serde_json::from_str::<serde_json::Value>(line) else {
        return;
    };
    if m["reason"] != "compiler-artifact" {
        return;
    }
    let name = m["target"]["name"].as_str().unwrap_or("?").to_string();
    if m["profile"]["test"] == true {
        if let Some(exe) = m["executable"].as_str() {
            let manifest = Path::new(m["manifest_path"].as_str().unwrap_or(""));
            out.executables.push(Executable {
                name: name.clone(),
                path: PathBuf::from(exe),
                dir: manifest.parent().unwrap_or(Path::new("")).to_path_buf(),
            });
        }
    }
    if m["fresh"] == true {
        return;
    }
    let kinds: Vec<&str> = m["target"]["kind"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|k| k.as_str())
        .collect();
    let package = m["package_id"].as_str().unwrap_or("?");
    // "path+file:///…/crate#ticklab@0.1.0" or "registry+…#serde@1.0.228": the name and version.
    let package = package.rsplit('#').next().unwrap_or(package);
    let p = &m["profile"];
    let files: Vec<&str> = m["filenames"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f.as_str())
        .collect();
    let file = files.first().copied().unwrap_or("");
    let features: Vec<String> = m["features"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f.as_str().map(String::from))
        .collect();
    LEDGER.compiled(Unit {
        crate_target: format!("{package} {} {name}", kinds.join(",")),
        triple: triple_of(Path::new(file), target_dir),
        profile: format!(
            "opt {} debuginfo {} assertions {} overflow {} test {}",
            p["opt_level"].as_str().unwrap_or("?"),
            p["debuginfo"],
            p["debug_assertions"],
            p["overflow_checks"],
            p["test"]
        ),
        artifact: artifact_of(&files).unwrap_or_else(|| features.join(",")),
        features,
        step: step.to_string(),
    });
}

/// The platform a file under `target_dir` was built for: the folder named after a triple
/// (`target/wasm32-unknown-unknown/wasm/…`), or "host" (`target/debug/build/…`).
fn triple_of(file: &Path, target_dir: &Path) -> String {
    file.strip_prefix(target_dir)
        .ok()
        .and_then(|rest| rest.components().next())
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .filter(|first| first.matches('-').count() >= 2)
        .unwrap_or_else(|| "host".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(target: &str, triple: &str, profile: &str, features: &[&str], step: &str) -> Unit {
        Unit {
            crate_target: target.into(),
            triple: triple.into(),
            profile: profile.into(),
            features: features.iter().map(|f| f.to_string()).collect(),
            artifact: features.join(","),
            step: step.into(),
        }
    }

    #[test]
    fn a_crate_compiled_twice_into_one_artifact_is_named() {
        let dev = "opt 0 debuginfo 2 assertions true overflow true test false";
        let units = [
            unit("serde@1 lib serde", "host", dev, &["std"], "a"),
            unit(
                "serde@1 lib serde",
                "aarch64-unknown-linux-gnu",
                dev,
                &["std"],
                "b",
            ),
            unit("clap@4 lib clap", "host", dev, &["std"], "a"),
        ];
        assert_eq!(twice(&units), Ok(0));
        let mut again = units.to_vec();
        again.push(unit("clap@4 lib clap", "host", dev, &["std"], "c"));
        let e = twice(&again).unwrap_err();
        assert!(
            e.contains("clap@4 lib clap for host") && e.contains("a [std]; c [std]"),
            "{e}"
        );
        assert!(!e.contains("serde"), "{e}");
        // For a platform, one feature set: another is a second compilation.
        let arm = "aarch64-unknown-linux-gnu";
        let mut other = units.to_vec();
        other.push(unit("serde@1 lib serde", arm, dev, &["std", "rc"], "c"));
        let e = twice(&other).unwrap_err();
        assert!(e.contains(&format!("serde@1 lib serde for {arm}")), "{e}");
    }

    #[test]
    fn another_artifact_of_a_crate_is_a_variant_not_work_done_twice() {
        // A procedural macro whose dependency cargo resolved with other features in a Mac's
        // build than in the host's: the same features of its own, another hash.
        let dev = "opt 0 debuginfo 2 assertions true overflow true test false";
        let mut host = unit(
            "displaydoc@0.2 proc-macro displaydoc",
            "host",
            dev,
            &[],
            "a",
        );
        let mut mac = host.clone();
        (host.artifact, mac.artifact, mac.step) = (
            "0123456789abcdef".into(),
            "fedcba9876543210".into(),
            "mac".into(),
        );
        assert_eq!(twice(&[host.clone(), mac]), Ok(1));
        assert!(twice(&[host.clone(), host]).is_err());
        // The page's two modules: the core crate with two feature sets.
        let page = "opt z debuginfo 0 assertions false overflow false test false";
        let w = |f: &[&str]| unit("ticklab@0.1.0 lib ticklab", crate::WASM, page, f, "www");
        assert_eq!(twice(&[w(&["recorded"]), w(&[])]), Ok(1));
    }

    #[test]
    fn an_artifact_is_named_by_cargo_s_hash_in_its_file_names() {
        let hash = "0123456789abcdef";
        for files in [
            vec!["/t/debug/deps/libserde-0123456789abcdef.rlib"],
            vec!["/t/debug/build/serde-0123456789abcdef/build_script_build-0123456789abcdef"],
            vec![
                "/t/w/deps/ticklab_www.wasm",
                "/t/w/deps/libticklab_www-0123456789abcdef.rlib",
            ],
        ] {
            assert_eq!(artifact_of(&files).as_deref(), Some(hash), "{files:?}");
        }
        assert_eq!(
            artifact_of(&["/t/w/ticklab_www.wasm", "/t/x/my-tool"]),
            None
        );
    }

    #[test]
    fn a_file_s_platform_is_its_folder_under_the_target_dir() {
        let t = Path::new("/w/target");
        assert_eq!(
            triple_of(Path::new("/w/target/wasm32-unknown-unknown/wasm/x.wasm"), t),
            "wasm32-unknown-unknown"
        );
        assert_eq!(
            triple_of(Path::new("/w/target/debug/build/x/out"), t),
            "host"
        );
        assert_eq!(triple_of(Path::new("/elsewhere/x"), t), "host");
    }

    #[test]
    fn a_test_result_line_is_counted() {
        let rest = "ok. 12 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out";
        assert_eq!((count(rest, " passed"), count(rest, " failed")), (12, 1));
    }
}
