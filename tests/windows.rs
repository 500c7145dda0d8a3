//! The command for Windows: `ticklab.exe` built with MinGW-w64 and run under Wine, as `cargo
//! xtask test` builds and finds it (TICKLAB_WINDOWS: the folder with the program and the
//! shim Wine needs; WINE64). Wine is not Windows: what is asserted of its clocks is what
//! Wine documents (its performance counter runs at 10 MHz, `TICKSPERSEC` in its ntdll),
//! and of the rest that each clock answers with a tick or a reason. A report saved under
//! Wine is read by this machine's `ticklab show`; `ticklab serve` answers on loopback.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ticklab::Report;

const BIN: &str = env!("CARGO_BIN_EXE_ticklab");

fn var(name: &str) -> PathBuf {
    std::env::var_os(name)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!("{name} is not set: `cargo xtask test` builds ticklab.exe and installs Wine")
        })
}

/// The Wine prefix every test here uses, in cargo's scratch folder for tests: Wine sets a
/// prefix up on its first start (5.5 s and 700 MB), once for all of them, and the next run
/// finds it ready (Wine updates a prefix an earlier Wine made). Tests run side by side in
/// it as programs do on one Windows.
struct Prefix<'a>(&'a Path);

impl Prefix<'static> {
    fn new() -> Self {
        static READY: OnceLock<PathBuf> = OnceLock::new();
        Prefix(READY.get_or_init(|| {
            let p = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wine-prefix");
            let dir = tempfile::tempdir().unwrap();
            // Set up before any test times anything in it.
            text(&Prefix(&p).run(&["--version"], dir.path(), Duration::from_secs(120)));
            p
        }))
    }
}

impl Prefix<'_> {
    /// `ticklab.exe args` under Wine, in folder `cwd`.
    fn command(&self, args: &[&str], cwd: &Path) -> Command {
        let exe = var("TICKLAB_WINDOWS").join("ticklab.exe");
        assert!(exe.is_file(), "no Windows build at {}", exe.display());
        let mut c = Command::new(var("WINE64"));
        c.arg(&exe)
            .args(args)
            .current_dir(cwd)
            .env("WINEPREFIX", self.0)
            .env("WINEDEBUG", "-all")
            // The shim beside the program before Wine's own bcryptprimitives.dll.
            .env("WINEDLLOVERRIDES", "bcryptprimitives=n,b")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    /// `ticklab.exe args` under Wine, within `limit`.
    fn run(&self, args: &[&str], cwd: &Path, limit: Duration) -> Output {
        let child = self.command(args, cwd).spawn().expect("wine64 starts");
        let t0 = Instant::now();
        let out = wait(child, limit, args);
        eprintln!(
            "ticklab.exe {args:?} under Wine: {:.1} s",
            t0.elapsed().as_secs_f64()
        );
        out
    }
}

/// The child's output, or a panic once `limit` has passed (the child killed).
fn wait(child: Child, limit: Duration, args: &[&str]) -> Output {
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    match rx.recv_timeout(limit) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            // Safe: a signal to our own child, still running.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("ticklab.exe {args:?} under Wine still running after {limit:?}");
        }
    }
}

fn text(o: &Output) -> String {
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Windows' clocks are listed, each runnable or with the reason; the performance counter at
/// Wine's documented 10 MHz ticks 100 ns and matches its claim; a whole run saved under
/// Wine is read back by this machine's command.
#[test]
fn the_windows_build_measures_its_clocks_under_wine() {
    let wine = Prefix::new();
    let dir = tempfile::tempdir().unwrap();
    let list = text(&wine.run(&["list"], dir.path(), Duration::from_secs(120)));
    for name in [
        "QueryPerformanceCounter",
        "GetSystemTimePreciseAsFileTime",
        "GetSystemTimeAsFileTime",
        "GetTickCount64",
        "timeGetTime",
        "QueryInterruptTime",
        "QueryInterruptTimePrecise",
        "QueryUnbiasedInterruptTime",
        "QueryUnbiasedInterruptTimePrecise",
        "GetProcessTimes",
        "GetThreadTimes",
        "QueryThreadCycleTime",
        "Instant",
    ] {
        let line = list
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} not listed:\n{list}"));
        assert!(
            line.ends_with(" yes") || line.contains(" no: "),
            "{name}: neither runnable nor said why: {line}"
        );
    }
    let json = text(&wine.run(
        &[
            "tick",
            "--clock",
            "QueryPerformanceCounter",
            "--time",
            "0.3",
            "--json",
        ],
        dir.path(),
        Duration::from_secs(120),
    ));
    let r = Report::from_json(&json).unwrap();
    let qpc = &r.clocks[0];
    assert_eq!(
        qpc.info.period.ns_per_count(),
        Some(100.0),
        "{:?}",
        qpc.info
    );
    let tick = qpc.tick.as_ref().expect("a tick");
    assert_eq!(tick.tick_ns, Some(100.0), "{tick:?}");
    assert_eq!(tick.claimed_ns, Some(100.0));
    assert_eq!(tick.verdict, ticklab::tick::Verdict::Matches);
    assert_eq!(r.environment.os.as_deref(), Some("windows"));

    let saved = dir.path().join("wine.json");
    let run = wine.run(
        &["run", "--save", "wine.json"],
        dir.path(),
        Duration::from_secs(180),
    );
    text(&run);
    let shown = Command::new(BIN).arg("show").arg(&saved).output().unwrap();
    let shown = text(&shown);
    assert!(shown.contains("QueryPerformanceCounter"), "{shown}");
    let r = Report::from_json(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    for c in &r.clocks {
        assert!(
            c.tick.is_some() || c.unavailable_reason.is_some() || !c.errors.is_empty(),
            "{}: no tick and no reason",
            c.info.name
        );
    }
}

/// `ticklab cpu-vs-wall` under Wine times the work by the process's and the thread's CPU
/// clocks too (GetProcessTimes, GetThreadTimes).
#[test]
fn the_windows_build_times_cpu_and_wall_under_wine() {
    let wine = Prefix::new();
    let dir = tempfile::tempdir().unwrap();
    let json = text(&wine.run(
        &[
            "cpu-vs-wall",
            "--n",
            "64",
            "--runs",
            "1",
            "--cold-mib",
            "1",
            "--json",
        ],
        dir.path(),
        Duration::from_secs(120),
    ));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let row = &v["matmul"][0];
    assert!(row["wall_s"].as_f64().is_some_and(|s| s > 0.0), "{v}");
    // Read, whatever the CPU clocks' coarse steps made of a short multiply.
    for key in ["process_cpu_s", "thread_cpu_s"] {
        assert!(row[key].as_f64().is_some_and(f64::is_finite), "{key}: {v}");
    }
}

/// `ticklab serve` under Wine serves the page it carries on loopback.
#[test]
fn the_windows_build_serves_the_page_under_wine() {
    let wine = Prefix::new();
    let dir = tempfile::tempdir().unwrap();
    let mut child = wine
        .command(&["serve", "--port", "0"], dir.path())
        .spawn()
        .expect("wine64 starts");
    let out = child.stdout.take().unwrap();
    // Its first line says where it listens.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(out).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(Duration::from_secs(120));
    let answer = line.as_ref().ok().and_then(|l| {
        let at = l.split("http://").nth(1)?.split('/').next()?.to_string();
        let mut s = std::net::TcpStream::connect(&at).ok()?;
        s.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
        s.write_all(b"GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            .ok()?;
        let mut text = String::new();
        s.read_to_string(&mut text).ok()?;
        Some(text)
    });
    let _ = child.kill();
    let _ = child.wait();
    let line = line.expect("ticklab.exe serve said where it listens within 120 s");
    assert!(line.contains("http://127.0.0.1:"), "{line}");
    let answer = answer.unwrap_or_default();
    assert_eq!(
        answer.split_whitespace().nth(1),
        Some("200"),
        "{line}{answer}"
    );
    assert!(answer.contains("<title>"), "{answer}");
}

/// Saving over a saved report (a rename onto an existing file, which Windows refuses unless
/// asked), plots and a CSV of it, `analyze` of a file, and a class kept in its SQLite file,
/// all under Wine with Windows' paths.
#[test]
fn the_windows_build_saves_plots_analyzes_and_keeps_a_class_under_wine() {
    let wine = Prefix::new();
    let dir = tempfile::tempdir().unwrap();
    let limit = Duration::from_secs(120);
    let tick = [
        "tick",
        "--clock",
        "QueryPerformanceCounter",
        "--time",
        "0.2",
        "--save",
        "qpc.json",
    ];
    text(&wine.run(&tick, dir.path(), limit));
    let first = std::fs::read(dir.path().join("qpc.json")).unwrap();
    text(&wine.run(&tick, dir.path(), limit));
    let second = std::fs::read(dir.path().join("qpc.json")).unwrap();
    assert_ne!(first, second, "the second save did not replace the first");
    Report::from_json(std::str::from_utf8(&second).unwrap()).unwrap();
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n != "qpc.json")
        .collect();
    assert!(leftovers.is_empty(), "left beside the save: {leftovers:?}");

    let csv = text(&wine.run(&["show", "qpc.json", "--csv"], dir.path(), limit));
    assert!(
        csv.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("QueryPerformanceCounter,")),
        "{csv}"
    );
    text(&wine.run(&["show", "qpc.json", "--plot", "plots"], dir.path(), limit));
    let svgs = std::fs::read_dir(dir.path().join("plots"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "svg"))
        .count();
    assert!(svgs >= 3, "{svgs} plots written");

    // Durations of whole 100 ns, as a 10 MHz counter gives them, in nanoseconds.
    let values: String = (0..300)
        .map(|i| format!("{}\n", 100 * (10 + (i * 37) % 390)))
        .collect();
    std::fs::write(dir.path().join("durations.txt"), values).unwrap();
    let json = text(&wine.run(
        &["analyze", "durations.txt", "--unit", "ns", "--json"],
        dir.path(),
        limit,
    ));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["tick_ns"].as_f64(), Some(100.0), "{v}");

    let mut command = wine.command(&[], dir.path());
    command.stderr(Stdio::inherit());
    let class = ticklab_browser::start_class_with(command, Path::new("class.sqlite"), 0, &[]);
    let digest = serde_json::json!({
        "from": "a shared result",
        "place": "browser",
        "who": ["Firefox", "Windows", "not isolated", "8 logical CPUs"],
        "clocks": [{ "cells": ["performance.now", "100 ns", "40 ns", "matches the claim"],
                     "tick_ns": 100.0, "read_ns": 40.0 }],
    });
    let body = serde_json::json!({
        "code": class.code, "student": "s-wine-1", "nickname": "wine", "digest": digest,
    })
    .to_string();
    let posted = http(
        class.port,
        &format!(
            "POST /class/runs HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    );
    assert!(
        posted.starts_with("HTTP/1.0 2") || posted.starts_with("HTTP/1.1 2"),
        "{posted}"
    );
    let rows = http(
        class.port,
        &format!(
            "GET /class/rows.csv HTTP/1.0\r\nAuthorization: Bearer {}\r\n\r\n",
            class.key
        ),
    );
    assert!(rows.contains("wine"), "the row is not in the class: {rows}");
    drop(class);
    let db = std::fs::read(dir.path().join("class.sqlite")).unwrap();
    assert!(
        db.starts_with(b"SQLite format 3\0"),
        "class.sqlite is no SQLite file"
    );
}

/// One HTTP/1.0 exchange with 127.0.0.1:`port`, the whole answer.
fn http(port: u16, request: &str) -> String {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer
}

/// Ctrl-C under Wine: Wine turns a SIGINT to a console program into CTRL_C_EVENT for its
/// console control handlers, which is what Windows sends at a Ctrl-C, so the command's
/// handler (tokio's, over SetConsoleCtrlHandler) is exercised as on Windows: exit 130, what
/// was measured kept in the file, marked interrupted.
#[cfg(unix)]
#[test]
fn ctrl_c_keeps_what_was_measured_under_wine() {
    let wine = Prefix::new();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("partial.json"), "an earlier run").unwrap();
    let child = wine
        .command(
            &["run", "--time", "3", "--save", "partial.json"],
            dir.path(),
        )
        .spawn()
        .expect("wine64 starts");
    // Well into the first clocks (each is given three seconds an experiment).
    std::thread::sleep(Duration::from_secs(4));
    // Safe: a signal to our own child, which is still running.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = wait(child, Duration::from_secs(60), &["run", "(Ctrl-C)"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted (Ctrl-C)"), "{stderr}");
    let saved = std::fs::read_to_string(dir.path().join("partial.json")).unwrap();
    let report = Report::from_json(&saved).unwrap();
    let cut = report.interruption.expect("marked interrupted");
    assert!(cut.measured >= 1 && cut.measured < cut.total, "{cut:?}");
}
