//! `cargo xtask test`: every check of the project, each crate compiled once a platform.
//!
//! A build is its own lint: clippy's driver compiles the workspace's crates (cargo clippy's
//! own way, `RUSTC_WORKSPACE_WRAPPER`), warnings denied, so no platform is checked apart
//! and then built. The host is built with its triple named, as every other platform is, so
//! build scripts and procedural macros compile alike for all of them and are shared. The
//! tools install beside the builds; the page is built before the command that carries it;
//! the other systems build one after another, at idle priority beside the host's tests (which
//! leave much of two cores idle), and the tests that run those builds come last; the tests
//! run from the builds, and the busy re-run and the install check reuse them. At the end:
//! the steps' seconds, and a check that no crate was compiled twice for one platform and
//! profile (ledger.rs), read from cargo's JSON messages.

use std::path::{Path, PathBuf};
use std::sync::mpsc;

use crate::dist::{self, Profile, AARCH64, WINDOWS};
use crate::ledger::{self, LEDGER};
use crate::{browsers, cross, guide, install, step, tools, web, workspace_root, WASM};

/// The test command: its checks, then the table of their seconds and the check of what
/// was compiled.
pub fn run(beside: usize) -> Result<(), String> {
    let started = std::time::Instant::now();
    let result = all(beside);
    let total = started.elapsed().as_secs_f64();
    eprintln!("{}", LEDGER.table(total));
    let (passed, failed) = result?;
    let (units, variants) = LEDGER.once_each()?;
    eprintln!(
        "{units} crate targets compiled, none twice for one platform and profile \
         ({variants} of the build machine's build scripts and macros, and the page's \
         modules, in a variant for each platform's features)"
    );
    eprintln!("\nall checks passed in {total:.0} s");
    // One closing line for the whole suite, after the many lines of cargo's test binaries.
    println!("tests: {passed} passed, {failed} failed");
    Ok(())
}

/// The tools the checks need, installed where missing, one after another on a thread of
/// their own beside the builds: zig and actionlint first (the Macs' builds come long after),
/// then wasm-bindgen, sent on `bindgen` as soon as it is there (the page waits on it), then
/// the browsers' drivers, mdBook and axe-core's script, which only later steps need.
fn install_tools(bindgen: mpsc::Sender<PathBuf>) -> Result<(browsers::Drivers, PathBuf), String> {
    tools::zigbuild()?;
    tools::actionlint()?;
    let _ = bindgen.send(web::ensure_wasm_bindgen()?);
    let drivers = browsers::ensure()?;
    guide::ensure_mdbook()?;
    Ok((drivers, tools::axe()?))
}

/// The environment that makes a build its own lint: clippy's driver compiles the
/// workspace's crates, every warning an error (the crates.io ones are compiled by rustc);
/// and no incremental state.
fn linted() -> Result<Vec<(&'static str, String)>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let beside = Path::new(&cargo).with_file_name("clippy-driver");
    let driver = if beside.is_file() {
        beside
    } else {
        let out = std::process::Command::new("rustup")
            .args(["which", "clippy-driver"])
            .current_dir(workspace_root())
            .output()
            .map_err(|e| format!("cannot find clippy's driver: {e}"))?;
        PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
    };
    if !driver.is_file() {
        return Err("clippy-driver is missing: `rustup component add clippy`".into());
    }
    Ok(vec![
        (
            "RUSTC_WORKSPACE_WRAPPER",
            driver.to_string_lossy().to_string(),
        ),
        // cargo clippy's own way of handing the driver its arguments (`--no-deps -- -D
        // warnings`): the packages a build names (`-p`, `--workspace`) are linted, and
        // the others it compiles are left to the builds that name them. One value for
        // every build: the driver's arguments are part of what cargo remembers of a
        // crate, and a build script the host shares with the others would be compiled
        // again for each.
        (
            "CLIPPY_ARGS",
            "--no-deps__CLIPPY_HACKERY__-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__".into(),
        ),
        // Each crate is compiled once here: the state kept for rebuilding it after an edit
        // cost 15 % more CPU (the command and its crates of this workspace: 52 CPU-s with
        // it, 43 without).
        ("CARGO_INCREMENTAL", "0".into()),
    ])
}

/// The builds and tests of the host (the workspace), with the host's triple named.
struct Host {
    triple: String,
    lint: Vec<(&'static str, String)>,
}

impl Host {
    /// `cargo test --workspace --target HOST ARGS`, linted, with `env`.
    fn cargo(&self, args: &[&str], env: &[(&str, String)]) -> std::process::Command {
        let mut c = ledger::command(&["test", "--workspace", "--target", &self.triple]);
        c.args(args);
        c.envs(self.lint.iter().map(|(k, v)| (*k, v.as_str())));
        c.envs(env.iter().map(|(k, v)| (*k, v.as_str())));
        c
    }

    fn ticklab(&self) -> PathBuf {
        web::target_dir(&workspace_root())
            .join(&self.triple)
            .join("debug")
            .join("ticklab")
    }
}

/// The page's crates in wasm32 with the benchmark's figures, as built to lint them and to
/// run the page's clocks' tests (`ARGS` after the common part), linted.
fn wasm_cargo(lint: &[(&'static str, String)], args: &[&str]) -> std::process::Command {
    // The first answer's crate named too: its code for wasm32 is linted here. And the
    // macros' parsers' features of every other build (hack/Cargo.toml), named here rather
    // than made a dependency of the page, whose modules it would move by a few hundred bytes.
    let mut c = ledger::command(&[
        "test",
        "-p",
        "ticklab-www",
        "-p",
        "ticklab-first",
        "-p",
        "workspace-hack",
        "--features",
        "bench",
        "--target",
        WASM,
        // The core at opt-level 1, not 3: the page's clocks' tests time the browser's
        // clocks, not the core's loops, and it compiles in half the time (24 CPU-s at 3).
        "--config",
        "profile.dev.package.ticklab.opt-level=1",
    ]);
    c.args(args);
    c.envs(lint.iter().map(|(k, v)| (*k, v.as_str())));
    c
}

/// `command` at the idle scheduling class (`chrt --idle 0`): its processes run only on a
/// core nothing else wants. The other systems build beside the host's tests, which leave
/// 40% of two cores idle (waiting on browsers, servers and timeouts), and never take a
/// core from a test that measures a clock.
fn at_idle(command: std::process::Command) -> std::process::Command {
    let mut c = std::process::Command::new("chrt");
    c.args(["--idle", "0"])
        .arg(command.get_program())
        .args(command.get_args());
    for (k, v) in command.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        c.current_dir(dir);
    }
    c
}

/// The other systems' builds, linted as they build: Windows with its command-line tests
/// (what a Windows runner runs), aarch64 Linux, then the two Macs. Every target's
/// `ticklab`, by triple.
///
/// Only the packages named with `-p` are linted there ([`linted`]): the command, and on
/// Windows the driver (`cfg(unix)`). The core and the plots have no code for one system
/// and not another, so the host's lint of them is theirs on every 64-bit system (clippy's
/// driver had spent 113 CPU-seconds on the core for these four; rustc alone takes less).
fn other_systems(
    lint: &[(&'static str, String)],
    idle: bool,
    done: mpsc::Sender<(&'static str, PathBuf)>,
) -> Result<Vec<(&'static str, PathBuf)>, String> {
    // util-linux's chrt is on every Debian; a machine without it, or that refuses the idle
    // class, builds at normal priority.
    let idle = idle
        && std::process::Command::new("chrt")
            .args(["--idle", "0", "true"])
            .status()
            .is_ok_and(|s| s.success());
    let build = |target: &'static str, units: &[&str]| -> Result<(&'static str, PathBuf), String> {
        let (mut command, exe) = dist::build_command(target, Profile::Dev, None, units)?;
        command.envs(lint.iter().map(|(k, v)| (*k, v.as_str())));
        // Beside the tests, whose output cargo's progress would break up: kept, shown if
        // the build fails.
        let log = crate::target_root().join(format!("build-{target}.log"));
        let file = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        // Beside busy loops (`--beside`), which never leave a core idle, at their priority.
        let mut command = if idle { at_idle(command) } else { command };
        command.stderr(file);
        ledger::cargo(&format!("ticklab for {target}, linted"), command)
            .inspect_err(|_| eprintln!("{}", std::fs::read_to_string(&log).unwrap_or_default()))?;
        // Its tests may start before the builds after it are done.
        let _ = done.send((target, exe.clone()));
        Ok((target, exe))
    };
    // One after another: cargo's lock on the build directory takes them one at a time
    // anyway (two threads only had each wait for the other's). Windows and aarch64 Linux
    // first: their tests run while the Macs, which are only packed, still build.
    Ok(vec![
        build(
            WINDOWS,
            &[
                "--no-run",
                "--lib",
                "--bins",
                "--test",
                "cli",
                "-p",
                "ticklab-driver",
            ],
        )?,
        build(AARCH64, &["--bin", "ticklab"])?,
        build("x86_64-apple-darwin", &["--bin", "ticklab"])?,
        build("aarch64-apple-darwin", &["--bin", "ticklab"])?,
    ])
}

fn all(beside: usize) -> Result<(u64, u64), String> {
    let _load = (beside > 0).then(|| Busy::start(beside));
    LEDGER.timed("targets and Debian packages", || {
        crate::ensure_targets()?;
        tools::ensure_packages()
    })?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    LEDGER.timed("format", || {
        step("format", &cargo, &["fmt", "--all", "--", "--check"])
    })?;
    let lint = linted()?;
    let host = Host {
        triple: dist::host()?,
        lint: lint.clone(),
    };
    std::thread::scope(|s| {
        let (tx, ready) = mpsc::channel();
        let tools =
            s.spawn(move || LEDGER.timed("tools (beside the builds)", || install_tools(tx)));
        let wasm = ledger::cargo(
            "the page's crates in wasm32, linted",
            wasm_cargo(&lint, &["--all-targets", "--no-run"]),
        );
        // The page before the command: the command carries it (its build script reads the
        // built site), so a page built after would build the command again.
        let page = wasm.and_then(|wasm| {
            // The channel closes without it only on a failure, which the tools' thread tells.
            let bindgen = || {
                ready
                    .recv()
                    .map_err(|_| "the tools' thread ended before wasm-bindgen".to_string())
            };
            web::build_page(&[], &bindgen).map(|_| wasm)
        });
        let built = page.and_then(|wasm| {
            let host = ledger::cargo(
                "the workspace for this machine, linted",
                host.cargo(&["--all-targets", "--no-run"], &[]),
            )?;
            Ok(Built { wasm, host })
        });
        let tools = tools
            .join()
            .map_err(|_| "the tools' thread panicked".to_string())?;
        let built = built?;
        // The other systems build beside the host's tests, at idle priority, once the tests'
        // cargo has its builds (a build holds the target directory's lock: at idle priority,
        // it kept the tests waiting 80 s).
        let (go, tests_built) = mpsc::channel::<()>();
        let (done, each) = mpsc::channel();
        let lint_others = &lint;
        let others = s.spawn(move || {
            tests_built
                .recv()
                .map_err(|_| "the host's tests never started".to_string())?;
            other_systems(lint_others, beside == 0, done)
        });
        let (drivers, axe) = tools?;
        let others = move || {
            others
                .join()
                .map_err(|_| "the other systems' builds panicked".to_string())?
        };
        checks(&host, &built, (go, each, others), &drivers, &axe, beside)
    })
}

/// What the builds gave: the test executables of the page's crates in wasm32 and of the
/// workspace, which the steps after the host's tests run without cargo.
struct Built {
    wasm: ledger::Outcome,
    host: ledger::Outcome,
}

/// The host's test targets that run the other systems' builds, after the rest
/// ([`tests_of_others`]): those of aarch64 Linux and Windows as soon as those are built...
const OF_EARLY: [&str; 2] = ["aarch64", "windows"];
/// ...and that of the archives once every build is.
const OF_ALL: &str = "dist";

/// Everything after the host's build: the guide, the workflows, the installed command and
/// the host's tests, while `others` builds the other systems (at idle priority); then,
/// from those builds, the archives and the tests that run them.
fn checks(
    host: &Host,
    built: &Built,
    (go, each, others): (
        mpsc::Sender<()>,
        mpsc::Receiver<(&'static str, PathBuf)>,
        impl FnOnce() -> Result<Vec<(&'static str, PathBuf)>, String>,
    ),
    drivers: &browsers::Drivers,
    axe: &Path,
    beside: usize,
) -> Result<(u64, u64), String> {
    LEDGER.timed("the guide (mdBook, its links)", || {
        guide::build().map(|_| ())
    })?;
    LEDGER.timed("the workflows and the installer", workflows)?;
    if host.triple != dist::TARGETS[0] {
        return Err(format!(
            "the test command runs on {}, not {}",
            host.triple,
            dist::TARGETS[0]
        ));
    }
    LEDGER.timed("the installed command serves its page", || {
        install::check(&host.ticklab())
    })?;
    let mut tests = host_tests(host, built, go, drivers, axe, beside)?;
    let o = tests_of_others(host, &built.host, each, others)?;
    tests.passed += o.passed;
    tests.failed += o.failed;
    if tests.passed == 0 {
        return Err("cargo ran no test".into());
    }
    Ok((tests.passed, tests.failed))
}

/// This machine's tests, every target `cargo test` runs but those of the other systems'
/// builds; the page's clocks in two engines; the busy re-run.
fn host_tests(
    host: &Host,
    built: &Built,
    go: mpsc::Sender<()>,
    drivers: &browsers::Drivers,
    axe: &Path,
    beside: usize,
) -> Result<ledger::Outcome, String> {
    let site = web::target_dir(&workspace_root()).join("site");
    let s = |p: &Path| p.to_string_lossy().to_string();
    let env = [
        ("TICKLAB_SITE", s(&site)),
        ("CHROMEDRIVER", s(&drivers.chromedriver)),
        ("GECKODRIVER", s(&drivers.geckodriver)),
        ("WEBKITDRIVER", s(&drivers.webkitdriver)),
        ("TICKLAB_AXE", s(axe)),
    ];
    // Every target `cargo test` runs, less those of the other systems' builds.
    let mut args = vec!["--lib".to_string(), "--bins".into(), "--examples".into()];
    for t in test_targets()? {
        if !(OF_EARLY.contains(&t.as_str()) || t == OF_ALL) {
            args.extend(["--test".to_string(), t]);
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // The doc tests first: cargo compiles them, and once the other systems build, a cargo
    // waits for each build's lock.
    let docs = ledger::cargo("the workspace's doc tests", host.cargo(&["--doc"], &[]))?;
    // The other systems' builds start once this cargo has its own (`go`).
    let mut tests = ledger::cargo_then("the workspace's tests", host.cargo(&args, &env), || {
        let _ = go.send(());
    })?;
    let mut add = |o: ledger::Outcome| {
        tests.passed += o.passed;
        tests.failed += o.failed;
    };
    add(docs);
    // From here on the tests run from the builds, without cargo.
    // wasm-bindgen's test runner sits beside wasm-bindgen.
    let runner = web::ensure_wasm_bindgen()?.with_file_name("wasm-bindgen-test-runner");
    let page = built.wasm.executable("web")?;
    for (browser, var, driver) in [
        ("Chromium", "CHROMEDRIVER", &drivers.chromedriver),
        ("Firefox", "GECKODRIVER", &drivers.geckodriver),
    ] {
        let env = [
            (var, s(driver)),
            // The documented clamps under test are those of a page without isolation.
            ("WASM_BINDGEN_TEST_NO_ORIGIN_ISOLATION", "1".into()),
        ];
        add(ledger::run_tests(
            &format!("the page's clocks in headless {browser}"),
            Some(&runner),
            page,
            &env,
        )?);
    }
    if beside == 0 {
        // The tests that measure this machine's clocks through the command and against an
        // independent loop of reads, and the starved clocks of the core, again beside two
        // busy loops: the lab must say "too busy to tell" or the truth on a shared machine,
        // never a multiple of the tick. From the builds above.
        let _load = Busy::start(2);
        for name in ["cli", "probe", "starved"] {
            add(ledger::run_tests(
                &format!("{name}, again beside two busy loops"),
                None,
                built.host.executable(name)?,
                &[],
            )?);
        }
    }
    Ok(tests)
}

/// The other systems' builds, waited for, packed, and run (qemu, Wine, the archives): the
/// tests of Windows and aarch64 Linux as soon as those two are built (the Macs, at idle
/// priority, build on beside them), the archives' once all are.
fn tests_of_others(
    host: &Host,
    built: &ledger::Outcome,
    each: mpsc::Receiver<(&'static str, PathBuf)>,
    others: impl FnOnce() -> Result<Vec<(&'static str, PathBuf)>, String>,
) -> Result<ledger::Outcome, String> {
    let s = |p: &Path| p.to_string_lossy().to_string();
    // The channel closes early only when a build failed, which joining the builds tells.
    let mut early: Vec<(&'static str, PathBuf)> = Vec::new();
    let arrived = LEDGER.timed("Windows and aarch64 Linux, waited for", || {
        while ![WINDOWS, AARCH64]
            .iter()
            .all(|t| early.iter().any(|(e, _)| e == t))
        {
            match each.recv() {
                Ok(b) => early.push(b),
                Err(_) => return Ok(false),
            }
        }
        Ok(true)
    })?;
    if !arrived {
        others()?;
        return Err("the other systems' builds ended before Windows and aarch64 Linux".into());
    }
    let binary = |t: &str| -> Result<PathBuf, String> {
        early
            .iter()
            .find(|(target, _)| *target == t)
            .map(|(_, b)| b.clone())
            .ok_or_else(|| format!("no build for {t}"))
    };
    let emulated = cross::emulated(binary(AARCH64)?)?;
    let windows = LEDGER.timed("the Windows folder, with Wine's shim", || {
        cross::windows(&binary(WINDOWS)?)
    })?;
    let env = [
        ("TICKLAB_AARCH64", s(&emulated.binary)),
        ("QEMU_AARCH64", s(&emulated.qemu)),
        ("AARCH64_SYSROOT", s(&emulated.sysroot)),
        ("TICKLAB_WINDOWS", s(&windows.dir)),
        ("WINE64", s(&windows.wine64)),
    ];
    let run = |t: &str| -> Result<(String, &ledger::Executable), String> {
        Ok((
            format!("{t}, of the other systems' builds"),
            built.executable(t)?,
        ))
    };
    let first = OF_EARLY
        .iter()
        .map(|t| run(t))
        .collect::<Result<Vec<_>, String>>()?;
    let last = [run(OF_ALL)?];
    let (early, late) = std::thread::scope(|scope| {
        // At once: Wine and qemu wait on their own start-up (45 s one after another, as
        // long as the Windows tests take alone).
        let early = scope.spawn(|| ledger::run_tests_at_once(&first, &env));
        let late = (|| {
            let others = LEDGER.timed("the Macs' builds, waited for", others)?;
            let mut binaries: Vec<(&str, PathBuf)> =
                others.iter().map(|(t, b)| (*t, b.clone())).collect();
            binaries.push((dist::TARGETS[0], host.ticklab()));
            let archives = LEDGER.timed("the archives packed", || dist::dev_archives(&binaries))?;
            ledger::run_tests_at_once(&last, &[("TICKLAB_DIST", s(&archives))])
        })();
        let early = early
            .join()
            .unwrap_or_else(|_| Err("the tests of Windows and aarch64 panicked".into()));
        (early, late)
    });
    let (mut all, late) = (early?, late?);
    all.passed += late.passed;
    all.failed += late.failed;
    Ok(all)
}

/// The names of the workspace's integration tests (`cargo metadata`).
fn test_targets() -> Result<Vec<String>, String> {
    let out = ledger::command(&["metadata", "--no-deps", "--format-version", "1"])
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let m: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    let mut names: Vec<String> = m["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|p| p["targets"].as_array().into_iter().flatten())
        .filter(|t| {
            t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "test"))
        })
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
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
