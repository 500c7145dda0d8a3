//! Project tasks, `cargo xtask <task>`: test, lab, install, screenshot, dist, web, guide,
//! fuzz and bench, each a clap subcommand ([`Task`]) whose help is its doc comment.

mod atlas_bench;
mod bench;
mod browsers;
mod class_bench;
mod cli;
mod cross;
mod dist;
mod guide;
mod hub_bench;
mod install;
mod lab;
mod ledger;
mod load;
mod load_bench;
mod shot;
mod suite;
mod tools;
mod web;

use std::process::{Command, ExitCode};

use clap::Parser;
use cli::{BenchPart, Engine, Shot, Task, Xtask, FUZZ_TARGETS};

fn main() -> ExitCode {
    at();
    let result = match Xtask::parse().task {
        Task::Test { beside } => suite::run(beside.unwrap_or(0) as usize),
        Task::Lab { serve } => lab::run(&serve),
        Task::Install { cargo } => install::run(&cargo),
        Task::Screenshot {
            what,
            path,
            engine,
            url,
        } => match (what, path) {
            (None, None) => shot::run(
                1280,
                shot::SCREENSHOT.as_ref(),
                shot::Browser::Chromium,
                None,
            ),
            (Some(Shot::Docs), None) => shot::docs(),
            (Some(Shot::Width(w)), Some(path)) => {
                shot::run(w, &path, engine.unwrap_or(Engine::Chromium).into(), url)
            }
            _ => {
                use clap::CommandFactory;
                Xtask::command()
                    .error(
                        clap::error::ErrorKind::MissingRequiredArgument,
                        "screenshot takes nothing, `docs`, or WIDTH PATH [ENGINE] [URL]",
                    )
                    .exit()
            }
        },
        Task::Dist {
            targets,
            all,
            dev,
            site,
            tag,
        } => dist::run(targets, all, dev, site, tag),
        Task::Web => web::build().map(|_| ()),
        Task::Guide => guide::build().map(|_| ()),
        Task::Fuzz { seconds, target } => fuzz(seconds, target.as_deref()),
        Task::Bench { part: None } => bench::run(),
        Task::Bench {
            part: Some(BenchPart::Hub),
        } => bench::alone("hub"),
        Task::Bench {
            part: Some(BenchPart::Class),
        } => bench::alone("class"),
        Task::Bench {
            part: Some(BenchPart::Load),
        } => bench::alone("load"),
        Task::Bench {
            part: Some(BenchPart::Atlas),
        } => bench::alone("atlas"),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Each cargo-fuzz target (or `only`) for `seconds`, one after another, each on a core.
/// libFuzzer's instrumentation is set with unstable rustc options and this repository pins
/// a stable toolchain (a fresh machine can fetch no other), so cargo-fuzz runs with
/// RUSTC_BOOTSTRAP=1, and without a sanitizer (`-s none`: the code fuzzed is safe Rust; a
/// panic, an abort, a 10 s input or 2 GB are what is found).
fn fuzz(s: u32, only: Option<&str>) -> Result<(), String> {
    let targets: Vec<(&str, &str)> = FUZZ_TARGETS
        .iter()
        .copied()
        .filter(|(t, _)| only.is_none_or(|o| o == *t))
        .collect();
    if targets.is_empty() {
        let names: Vec<&str> = FUZZ_TARGETS.iter().map(|(t, _)| *t).collect();
        return Err(format!(
            "fuzz: no target '{}'; the targets are {}",
            only.unwrap_or(""),
            names.join(", ")
        ));
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let has_fuzz = Command::new(&cargo)
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_fuzz {
        step(
            "install cargo-fuzz",
            &cargo,
            &["install", "cargo-fuzz", "--locked"],
        )?;
    }
    let root = workspace_root();
    let fuzz_dir = root.join("fuzz");
    let mut summary = Vec::new();
    for (target, seeds) in targets {
        let corpus = fuzz_dir.join("corpus").join(target);
        std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
        let seeds = root.join("tests/fuzz/corpus").join(seeds);
        let time = format!("-max_total_time={s}");
        let corpus_arg = corpus.to_string_lossy().into_owned();
        let seeds_arg = seeds.to_string_lossy().into_owned();
        let args = [
            "fuzz",
            "run",
            "-s",
            "none",
            target,
            &corpus_arg,
            &seeds_arg,
            "--",
            &time,
            "-rss_limit_mb=2048",
            "-timeout=10",
        ];
        eprintln!(
            "\n== [{}] fuzz {target}: {cargo} {}",
            crate::at(),
            args.join(" ")
        );
        let out = Command::new(&cargo)
            .args(args)
            .current_dir(&fuzz_dir)
            .env("RUSTC_BOOTSTRAP", "1")
            .stdout(std::process::Stdio::inherit())
            .stderr(std::process::Stdio::piped())
            .output()
            .map_err(|e| format!("fuzz {target}: cannot start {cargo}: {e}"))?;
        let log = String::from_utf8_lossy(&out.stderr);
        eprint!("{log}");
        // libFuzzer's last status line: "#RUNS DONE cov: EDGES ft: FEATURES corp: N/SIZE ...".
        let last = log
            .lines()
            .rev()
            .find(|l| l.starts_with('#') && l.contains("cov:"))
            .unwrap_or("no status line")
            .to_string();
        if !out.status.success() {
            return Err(format!(
                "fuzz {target} found a failure ({}); the input is in fuzz/artifacts/{target}/: \
                 make it a regression test",
                out.status
            ));
        }
        summary.push(format!("{target:<8} {last}"));
    }
    eprintln!("\nfuzzed {s} s each, no failure:\n{}", summary.join("\n"));
    Ok(())
}

/// When this task started, for [`at`].
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Seconds since this task started ("312 s"), heading each step, so a log says where the
/// time of the test command goes.
pub fn at() -> String {
    format!(
        "{:.0} s",
        STARTED
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_secs_f64()
    )
}

/// Runs a command from the workspace root, failing with its name when it fails.
pub fn step(what: &str, program: &str, args: &[&str]) -> Result<(), String> {
    eprintln!(
        "\n== [{}] {what}: {program} {}",
        crate::at(),
        args.join(" ")
    );
    let status = Command::new(program)
        .args(args)
        .current_dir(workspace_root())
        .status()
        .map_err(|e| format!("{what}: cannot start {program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

pub fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// The workspace's target directory (`CARGO_TARGET_DIR`, or target/).
pub fn target_root() -> std::path::PathBuf {
    web::target_dir(&workspace_root())
}

pub const WASM: &str = "wasm32-unknown-unknown";

/// Installs the wasm32 target and every target the release ships when missing, in one
/// rustup run.
pub fn ensure_targets() -> Result<(), String> {
    let out = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .current_dir(workspace_root())
        .output()
        .map_err(|e| {
            format!("cannot run rustup ({e}); install rustup, then `rustup target add {WASM}`")
        })?;
    let installed = String::from_utf8_lossy(&out.stdout).to_string();
    let missing: Vec<&str> = std::iter::once(WASM)
        .chain(dist::TARGETS)
        .filter(|t| !installed.lines().any(|l| l.trim() == *t))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let mut args = vec!["target", "add"];
    args.extend(missing);
    step("install the targets", "rustup", &args)
}
