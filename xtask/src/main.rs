//! Project tasks, `cargo xtask <task>`: test, lab, install, screenshot, dist, web, guide,
//! fuzz and bench, each a clap subcommand ([`Task`]) whose help is its doc comment.

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
mod load;
mod shot;
mod tools;
mod web;

use std::process::{Command, ExitCode};

use clap::Parser;
use cli::{BenchPart, Engine, Shot, Task, Xtask, FUZZ_TARGETS};

fn main() -> ExitCode {
    at();
    let result = match Xtask::parse().task {
        Task::Test { beside } => test(beside.unwrap_or(0) as usize),
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

pub const WASM: &str = "wasm32-unknown-unknown";
/// Targets the native runner is checked for but cannot run on here.
const CROSS: [&str; 3] = [
    "aarch64-unknown-linux-gnu",
    "aarch64-apple-darwin",
    "x86_64-pc-windows-gnu",
];

/// Installs the wasm32 and cross-check targets when missing.
pub fn ensure_targets() -> Result<(), String> {
    let out = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .current_dir(workspace_root())
        .output()
        .map_err(|e| {
            format!("cannot run rustup ({e}); install rustup, then `rustup target add {WASM}`")
        })?;
    let installed = String::from_utf8_lossy(&out.stdout).to_string();
    for t in std::iter::once(WASM).chain(CROSS).chain(dist::TARGETS) {
        if !installed.lines().any(|l| l.trim() == t) {
            step("install a target", "rustup", &["target", "add", t])?;
        }
    }
    Ok(())
}

/// Busy loops beside the tests, as on a shared machine (`while :; do :; done`): threads
/// that spin until the guard is dropped.
struct Busy {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Busy {
    fn start(n: usize) -> Self {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let threads = (0..n)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_add(1));
                    }
                })
            })
            .collect();
        eprintln!("\n== [{}] {n} busy loops beside what follows", crate::at());
        Self { stop, threads }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// The tests that measure this machine's clocks through the command and against an
/// independent loop of reads, and the starved clocks of the core, run again beside two busy
/// loops: the lab must say "too busy to tell" or the truth on a shared machine, never a
/// multiple of the tick. (The whole workspace is named so the build is the one the tests
/// above made.)
const BESIDE_LOAD: [&str; 8] = [
    "test",
    "--workspace",
    "--test",
    "cli",
    "--test",
    "probe",
    "--test",
    "starved",
];

fn test(beside: usize) -> Result<(), String> {
    let started = std::time::Instant::now();
    let _load = (beside > 0).then(|| Busy::start(beside));
    ensure_targets()?;
    tools::ensure_packages()?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    lint(&cargo)?;
    let (drivers, mut passed, mut failed) = workspace_tests(&cargo)?;
    install::check()?;
    let (p, f) = page_tests(&cargo, &drivers)?;
    passed += p;
    failed += f;
    if beside == 0 {
        let _load = Busy::start(2);
        let (p, f) = tests(&cargo, &BESIDE_LOAD, &[])?;
        passed += p;
        failed += f;
    }
    eprintln!(
        "\nall checks passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    // One closing line for the whole suite, after the many lines of cargo's test binaries.
    println!("tests: {passed} passed, {failed} failed");
    Ok(())
}

/// The format and clippy's lints: the host, the core and the page in wasm32, and the
/// command for the other platforms.
fn lint(cargo: &str) -> Result<(), String> {
    step("format", cargo, &["fmt", "--all", "--", "--check"])?;
    step(
        "clippy (host)",
        cargo,
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    for t in CROSS {
        let mut args = vec!["clippy", "-p", "ticklab-native"];
        if t == dist::WINDOWS {
            // What the CI workflow runs on Windows runners, where Unix's calls are not (the
            // other systems are Unix, as here): the units and the command-line tests.
            args.extend(["--lib", "--bins", "--test", "cli", "--profile", "test"]);
        }
        // Without SQLite's C, which needs the target's C compiler (installed only for the
        // builds below); with the hub, which is Rust only.
        args.extend([
            "--no-default-features",
            "--features",
            "hub",
            "--target",
            t,
            "--",
            "-D",
            "warnings",
        ]);
        step("check the native runner for another platform", cargo, &args)?;
    }
    workflows()?;
    guide::build()?;
    step(
        // The core too: clippy lints every workspace crate the page builds.
        "clippy (wasm32 page and core, with the benchmark's figures)",
        cargo,
        &[
            "clippy",
            "-p",
            "ticklab-www",
            "--all-targets",
            "--features",
            "bench",
            "--target",
            WASM,
            "--",
            "-D",
            "warnings",
        ],
    )?;
    Ok(())
}

/// Every GitHub workflow checked by actionlint (with shellcheck on their scripts), and the
/// shell installer by shellcheck: none of them can run here.
fn workflows() -> Result<(), String> {
    if browsers::which("shellcheck").is_none() {
        browsers::install("the workflows' scripts' check", &["shellcheck"])?;
    }
    let actionlint = tools::actionlint()?;
    let dir = workspace_root().join(".github").join("workflows");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .map(|p| p.to_string_lossy().to_string())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no workflow in {}", dir.display()));
    }
    let mut args = vec!["-shellcheck", "shellcheck"];
    args.extend(files.iter().map(String::as_str));
    step(
        "the workflows (actionlint)",
        &actionlint.to_string_lossy(),
        &args,
    )?;
    step(
        "the shell installer (shellcheck)",
        "shellcheck",
        &["dist/install.sh"],
    )
}

/// The workspace's tests, with the built page, the browsers and drivers, and the command
/// built for aarch64; the drivers, and the tests passed and failed.
fn workspace_tests(cargo: &str) -> Result<(browsers::Drivers, u64, u64), String> {
    // The end-to-end tests need the built page and the browsers before the workspace runs.
    web::build()?;
    let drivers = browsers::ensure()?;
    let site = web::target_dir(&workspace_root()).join("site");
    let emulated = cross::build()?;
    let windows = cross::windows()?;
    let archives = dist::dev_archives()?.to_string_lossy().to_string();
    let axe = tools::axe()?.to_string_lossy().to_string();
    let (windows_dir, wine64) = (
        windows.dir.to_string_lossy().to_string(),
        windows.wine64.to_string_lossy().to_string(),
    );
    let (site, chromedriver, geckodriver, webkitdriver) = (
        site.to_string_lossy().to_string(),
        drivers.chromedriver.to_string_lossy().to_string(),
        drivers.geckodriver.to_string_lossy().to_string(),
        drivers.webkitdriver.to_string_lossy().to_string(),
    );
    let (aarch64, qemu, sysroot) = (
        emulated.binary.to_string_lossy().to_string(),
        emulated.qemu.to_string_lossy().to_string(),
        emulated.sysroot.to_string_lossy().to_string(),
    );
    let (passed, failed) = tests(
        cargo,
        &["test", "--workspace"],
        &[
            ("TICKLAB_SITE", site.as_str()),
            ("CHROMEDRIVER", chromedriver.as_str()),
            ("GECKODRIVER", geckodriver.as_str()),
            ("WEBKITDRIVER", webkitdriver.as_str()),
            ("TICKLAB_AARCH64", aarch64.as_str()),
            ("QEMU_AARCH64", qemu.as_str()),
            ("AARCH64_SYSROOT", sysroot.as_str()),
            ("TICKLAB_WINDOWS", windows_dir.as_str()),
            ("WINE64", wine64.as_str()),
            ("TICKLAB_DIST", archives.as_str()),
            ("TICKLAB_AXE", axe.as_str()),
        ],
    )?;
    Ok((drivers, passed, failed))
}

/// The page's clocks in headless Chromium and Firefox (wasm-bindgen's test runner); the
/// tests passed and failed.
fn page_tests(cargo: &str, drivers: &browsers::Drivers) -> Result<(u64, u64), String> {
    let (mut passed, mut failed) = (0, 0);
    let bindgen_dir = web::ensure_wasm_bindgen()?
        .parent()
        .map(|p| p.to_path_buf())
        .unwrap_or_default();
    let path = format!(
        "{}:{}",
        bindgen_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (browser, var, driver) in [
        ("Chromium", "CHROMEDRIVER", &drivers.chromedriver),
        ("Firefox", "GECKODRIVER", &drivers.geckodriver),
    ] {
        eprintln!(
            "\n== [{}] the page's clocks in headless {browser}",
            crate::at()
        );
        let driver = driver.to_string_lossy().to_string();
        let (p, f) = tests(
            cargo,
            &[
                "test",
                "-p",
                "ticklab-www",
                "--target",
                WASM,
                "--test",
                "web",
            ],
            &[
                (
                    "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
                    "wasm-bindgen-test-runner",
                ),
                (var, driver.as_str()),
                // The documented clamps under test are those of a page without isolation.
                ("WASM_BINDGEN_TEST_NO_ORIGIN_ISOLATION", "1"),
                ("PATH", path.as_str()),
            ],
        )?;
        passed += p;
        failed += f;
    }
    Ok((passed, failed))
}

/// Runs `cargo <args>` with `env`, echoing its output, and adds up its test result lines.
fn tests(cargo: &str, args: &[&str], env: &[(&str, &str)]) -> Result<(u64, u64), String> {
    use std::io::{BufRead, BufReader};
    eprintln!("\n== [{}] tests: {cargo} {}", crate::at(), args.join(" "));
    let mut child = Command::new(cargo)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(workspace_root())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("tests: cannot start cargo: {e}"))?;
    let (mut passed, mut failed) = (0u64, 0u64);
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines() {
            let line = line.map_err(|e| format!("tests: {e}"))?;
            println!("{line}");
            if let Some(rest) = line.strip_prefix("test result: ") {
                let count = |word: &str| {
                    rest.split(';')
                        .find_map(|part| part.trim().strip_suffix(word))
                        .and_then(|n| n.trim().rsplit(' ').next()?.parse::<u64>().ok())
                        .unwrap_or(0)
                };
                passed += count(" passed");
                failed += count(" failed");
            }
        }
    }
    let status = child.wait().map_err(|e| format!("tests: {e}"))?;
    if !status.success() {
        println!("tests: {passed} passed, {failed} failed");
        return Err(format!("tests failed ({status})"));
    }
    if passed == 0 {
        return Err("tests: cargo ran no test".into());
    }
    Ok((passed, failed))
}
