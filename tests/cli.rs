//! The `ticklab` command end to end: every subcommand, every output format, and a table of
//! bad inputs that must each get exit code 2 and a message saying what to fix.

use std::io::Write;
use std::path::Path;

use assert_cmd::Command;
use predicates::str::contains;
use ticklab::Report;

#[path = "cli/analyze.rs"]
mod analyze;
#[path = "cli/bad_inputs.rs"]
mod bad_inputs;

fn ticklab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ticklab"))
}

fn stdout_of(args: &[&str]) -> String {
    let out = ticklab()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).expect("utf-8 output")
}

fn file_with(dir: &Path, name: &str, text: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::File::create(&p).unwrap().write_all(text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn list_shows_every_clock_and_unavailable_ones_with_a_reason() {
    let t = stdout_of(&["list"]);
    for name in [
        "CLOCK_MONOTONIC",
        "gettimeofday",
        "Instant",
        "rdtsc",
        "cntvct_el0",
        "mach_absolute_time",
    ] {
        assert!(t.contains(name), "{name} missing from\n{t}");
    }
    assert!(
        t.contains("no: "),
        "unavailable clocks carry a reason:\n{t}"
    );
    let r = Report::from_json(&stdout_of(&["list", "--json"])).unwrap();
    assert!(r
        .clocks
        .iter()
        .any(|c| !c.available && c.unavailable_reason.is_some()));
}

/// The TSC's measured frequency in a report, when it has one.
#[cfg(target_arch = "x86_64")]
fn tsc_hz(r: &Report) -> Option<f64> {
    r.environment
        .counters
        .iter()
        .find(|f| f.clock == "TSC")
        .and_then(|f| f.measured_hz)
}

#[test]
#[cfg(target_arch = "x86_64")]
fn only_the_clocks_used_are_calibrated() {
    // Listing calibrates nothing, and neither does measuring another clock; a TSC clock
    // measures the frequency it is converted with, and says against what.
    let r = Report::from_json(&stdout_of(&["list", "--json"])).unwrap();
    assert_eq!(tsc_hz(&r), None, "{:?}", r.environment.counters);
    let t = stdout_of(&["list"]);
    assert!(t.contains("measured when run"), "{t}");
    let r = Report::from_json(&stdout_of(&[
        "tick",
        "--clock",
        "CLOCK_MONOTONIC",
        "--time",
        "0.05",
        "--json",
    ]))
    .unwrap();
    assert!(r.clocks[0].tick.is_some());
    assert_eq!(tsc_hz(&r), None);
    let r = Report::from_json(&stdout_of(&[
        "tick", "--clock", "rdtsc", "--time", "0.05", "--json",
    ]))
    .unwrap();
    let hz = tsc_hz(&r).expect("the TSC was calibrated to measure rdtsc");
    let period = r.clocks[0].info.period.ns_per_count().unwrap();
    assert!(
        (period * hz * 1e-9 - 1.0).abs() < 1e-9,
        "{period} ns at {hz} Hz"
    );
}

#[test]
fn no_help_or_output_names_the_sources_by_file() {
    // Users read methods by what they are and sources by author and title; "seed" means
    // nothing outside the repository.
    let dir = tempfile::tempdir().unwrap();
    let lines = file_with(
        dir.path(),
        "t.txt",
        b"0.25\n0.5\n0.75\n0.25\n1.0\n0.5\n0.25\n",
    );
    let mut texts = vec![stdout_of(&["--help"])];
    for sub in [
        "list",
        "run",
        "tick",
        "overhead",
        "fit",
        "analyze",
        "cpu-vs-wall",
        "serve",
        "class",
        "browsers",
    ] {
        texts.push(stdout_of(&[sub, "--help"]));
    }
    texts.push(stdout_of(&["list"]));
    texts.push(stdout_of(&[
        "run",
        "--clock",
        "CLOCK_MONOTONIC_COARSE",
        "gettimeofday",
        "--time",
        "0.05",
        "--no-fit",
    ]));
    texts.push(stdout_of(&["analyze", &lines]));
    texts.push(stdout_of(&["analyze", &lines, "--csv"]));
    for t in &texts {
        assert!(!t.to_lowercase().contains("seed"), "{t}");
    }
}

#[test]
fn run_prints_a_summary_and_json_round_trips() {
    let t = stdout_of(&[
        "run",
        "--clock",
        "CLOCK_MONOTONIC",
        "Instant",
        "--time",
        "0.05",
    ]);
    assert!(
        t.contains("read cost") && t.contains("CLOCK_MONOTONIC"),
        "{t}"
    );
    // The machine's clocks ranked against Instant, as the page ranks its own against
    // performance.now: both measured, the finest named first.
    let ranking = t
        .lines()
        .find(|l| l.starts_with("Finest clock this machine has: "))
        .unwrap_or_else(|| panic!("no ranking line: {t}"));
    let all = ranking.split("All, finest first: ").nth(1).unwrap_or("");
    assert!(
        all.contains("Instant ")
            && all.contains("CLOCK_MONOTONIC ")
            && !ranking.contains("not measured"),
        "{ranking}"
    );
    let json = stdout_of(&["run", "--clock", "monotonic", "--time", "0.05", "--json"]);
    let r = Report::from_json(&json).unwrap();
    assert_eq!(r.clocks.len(), 1);
    let c = &r.clocks[0];
    assert!(
        c.tick.is_some() && c.overhead.is_some() && c.fits.len() == 1,
        "{:?}",
        c.errors
    );
    assert_eq!(Report::from_json(&r.to_json().unwrap()).unwrap(), r);
    // A saved report shows in the words of the command that measured it.
    let dir = tempfile::tempdir().unwrap();
    let saved = file_with(dir.path(), "r.json", json.as_bytes());
    let shown = stdout_of(&["show", &saved]);
    let row = ticklab::present::SummaryRow::new(c, &r.environment.counters);
    assert!(
        shown.contains(row.cell("tick")) && shown.contains(row.cell("read cost")),
        "{shown}"
    );
    let csv = stdout_of(&[
        "run",
        "--clock",
        "monotonic",
        "--time",
        "0.05",
        "--csv",
        "--no-fit",
    ]);
    assert!(
        csv.starts_with("clock,available,claimed_ns,tick_ns"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 2);
}

/// What a terminal would obey: C0 and C1 controls but line ends, DEL, bidirectional controls.
fn obeyed(text: &str) -> Vec<char> {
    let t = text.replace("\r\n", "\n");
    t.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n')
                || matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

#[test]
fn a_hostile_report_is_shown_as_text_never_as_terminal_controls() {
    let json = stdout_of(&[
        "run",
        "--clock",
        "monotonic",
        "--time",
        "0.05",
        "--no-fit",
        "--json",
    ]);
    let mut r = Report::from_json(&json).unwrap();
    let clear = "\u{1b}[2J\u{1b}]0;retitled\u{7}\u{9b}31mCLK\u{7f}\r";
    r.clocks[0].info.name = clear.into();
    r.environment.cpu = Some("\u{202e}evil\u{2066}\tcpu".into());
    if let Some(t) = r.clocks[0].tick.as_mut() {
        t.caveats.push(ticklab::caveat::Caveat::Text {
            text: "a note\u{1b}[1A\u{1b}[2K over the line above".into(),
        });
    }
    let dir = tempfile::tempdir().unwrap();
    let saved = file_with(dir.path(), "hostile.json", r.to_json().unwrap().as_bytes());
    for view in [&[][..], &["--csv"], &["--json"]] {
        let args: Vec<&str> = ["show", saved.as_str()]
            .iter()
            .chain(view)
            .copied()
            .collect();
        let out = stdout_of(&args);
        assert_eq!(obeyed(&out), Vec::<char>::new(), "{view:?}: {out:?}");
        if view.is_empty() {
            assert!(
                out.contains("\\u001b[2J\\u001b]0;retitled\\u0007\\u009b31mCLK\\u007f\\u000d"),
                "{out}"
            );
            assert!(out.contains("a note\\u001b[1A"), "{out}");
        }
        if view == ["--json"] {
            assert!(out.contains("\\u202eevil\\u2066\\tcpu"), "{out}");
            // JSON's own escapes: the report read back is the report saved.
            assert_eq!(Report::from_json(&out).unwrap(), r);
        }
    }
    // An error quoting a line of the input quotes it as text too.
    let bad = file_with(dir.path(), "bad.txt", b"\x1b]0;retitled\x07\n");
    let err = ticklab()
        .args(["analyze", &bad])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(err).unwrap();
    assert!(
        err.contains("\\u001b]0;retitled\\u0007") && obeyed(&err).is_empty(),
        "{err:?}"
    );
    let row =
        |input: &str, outcome: &str| ticklab_browser::bad_input_row("cli output", input, outcome);
    ticklab_browser::assert_bad_inputs_listed(
        "cli output",
        &[
            row(
                "`ticklab show hostile.json`, `--csv`, `--json`: a report whose clock name clears the screen and retitles the terminal (ESC, OSC, BEL, C1 CSI, DEL, a bare CR), whose CPU holds bidirectional controls and a tab, and a note that moves the cursor",
                "each written out as `\\u001b`, `\\u202e`...; nothing a terminal obeys is printed; the JSON read back is the report saved",
            ),
            row(
                "`ticklab analyze bad.txt` whose line retitles the terminal",
                "exit 2, the line quoted with `\\u001b` and `\\u0007` written out",
            ),
        ],
    );
}

#[test]
fn monotonic_ticks_in_nanoseconds_and_coarse_matches_its_claim() {
    let json = stdout_of(&[
        "tick",
        "--clock",
        "CLOCK_MONOTONIC",
        "CLOCK_MONOTONIC_COARSE",
        "--time",
        "0.3",
        "--json",
    ]);
    let r = Report::from_json(&json).unwrap();
    let fine = r.clocks[0].tick.as_ref().unwrap();
    // A high-resolution clock: at most a microsecond, however slow this machine is.
    assert!(fine.tick_ns.unwrap() <= 1000.0, "{:?}", fine.tick_ns);
    let coarse = r.clocks[1].tick.as_ref().unwrap();
    // Its claim, or on a machine too busy to run the reader through every update (the
    // scheduler's tick is the clock's), "too busy to tell" with the gaps that made it so:
    // never a multiple of the tick.
    match coarse.verdict {
        ticklab::tick::Verdict::Matches => {}
        ticklab::tick::Verdict::TooBusy => assert!(coarse.gaps.count > 0, "{:?}", coarse.gaps),
        v => panic!(
            "{v:?}: {:?} vs {:?}, gaps {:?}",
            coarse.tick_ns, coarse.claimed_ns, coarse.gaps
        ),
    }
}

#[test]
fn tick_table_shows_the_smallest_difference_and_the_sorted_step() {
    let t = stdout_of(&["tick", "--clock", "gettimeofday", "--time", "0.1"]);
    assert!(t.contains("diff(sort)") && t.contains("smallest"), "{t}");
}

#[test]
fn overhead_reports_a_read_cost_and_a_minimum_block() {
    let json = stdout_of(&[
        "overhead",
        "--clock",
        "monotonic",
        "--time",
        "0.1",
        "--json",
    ]);
    let r = Report::from_json(&json).unwrap();
    let o = r.clocks[0].overhead.as_ref().unwrap();
    let ns = o.per_read_ns.unwrap();
    assert!(ns > 0.0 && ns < 100_000.0, "{ns}");
    assert!(o.min_block_ns.unwrap() >= 100.0 * ns);
    let t = stdout_of(&["overhead", "--clock", "monotonic", "--time", "0.05"]);
    assert!(t.contains("rule of 100"), "{t}");
}

#[test]
fn fit_every_workload() {
    let fit = |w: &str, n: &str| {
        let json = stdout_of(&[
            "fit",
            "--clock",
            "monotonic",
            "--workload",
            w,
            "--n",
            n,
            "--points",
            "6",
            "--runs",
            "5",
            "--time",
            "1",
            "--json",
        ]);
        Report::from_json(&json).unwrap().clocks[0].fits[0].clone()
    };
    for (w, n) in [
        ("count", "1000..200000"),
        ("copy", "1000..100000"),
        ("sqrt", "1000..50000"),
        ("matmul", "8..40"),
    ] {
        let mut f = fit(w, n);
        // The copies take a tenth of a millisecond in all (their pace 0.63 on an idle
        // machine): one preemption between two blocks is most of that, and the clock is
        // then said not to see the work (a pace under a quarter). Said, and run again.
        if matches!(
            f.unusable,
            Some(ticklab::caveat::Caveat::WorkNotSeen { .. })
        ) {
            eprintln!("{w}: {:?} in {:.6} s: again", f.unusable, f.elapsed_s);
            f = fit(w, n);
        }
        assert_eq!(f.workload, w);
        assert!(
            f.slope_ns.is_some_and(|s| s > 0.0),
            "{w}: {:?}, {:?}, unusable {:?}, pace {:?}",
            f.slope_ns,
            f.caveats,
            f.unusable,
            f.pace
        );
    }
    let t = stdout_of(&[
        "fit",
        "--clock",
        "monotonic",
        "--n",
        "1000..100000",
        "--points",
        "4",
        "--runs",
        "3",
    ]);
    assert!(t.contains("least-values slope"), "{t}");
}

#[test]
fn plots_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("plots");
    ticklab()
        .args(["run", "--clock", "monotonic", "--time", "0.05", "--plot"])
        .arg(&d)
        .assert()
        .success();
    for f in [
        "raw",
        "sorted",
        "diffsort",
        "histogram",
        "fit-count",
        "excess-count",
    ] {
        let p = d.join(format!("clock-monotonic.{f}.svg"));
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(text.contains("<svg"), "{}", p.display());
    }
}

#[test]
fn analyze_the_worked_examples_of_finding_timer_resolution() {
    let dir = tempfile::tempdir().unwrap();
    let f = file_with(
        dir.path(),
        "t.txt",
        b"0.00\n2.00\n\n1.25\n0.50\n1.25\n3.25\n",
    );
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(&["analyze", &f, "--unit", "s", "--json"])).unwrap();
    assert_eq!(v["tick"], 0.25);
    assert_eq!(v["estimate"]["smallest_diff_sort"], 0.5);
    let t = stdout_of(&["analyze", &f, "--unit", "s"]);
    assert!(
        t.contains("250.000 ms = 1/4 s") && t.contains("diff(sort())"),
        "{t}"
    );
    let csv = stdout_of(&["analyze", &f, "--csv"]);
    assert!(csv.lines().nth(1).unwrap().starts_with("0.25,"), "{csv}");
    // From standard input, and from a CSV column by name and by index.
    let out = ticklab()
        .args(["analyze", "-", "--json"])
        .write_stdin("0\n1.953125e-3\n1.953125e-3\n3.906250e-3\n4.8828125e-3\n0\n0\n0\n")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["tick"], 9.765625e-4);
    let c = file_with(
        dir.path(),
        "t.csv",
        b"run,ms\n1,0.1\n2,0.30000000004656613\n3,0.2\n4,0.7\n",
    );
    for col in ["ms", "2"] {
        let v: serde_json::Value = serde_json::from_str(&stdout_of(&[
            "analyze", &c, "--column", col, "--unit", "ms", "--json",
        ]))
        .unwrap();
        assert!((v["tick"].as_f64().unwrap() - 0.1).abs() < 1e-9, "{v}");
        assert!((v["tick_ns"].as_f64().unwrap() - 100_000.0).abs() < 1e-3);
    }
    let plots = dir.path().join("p");
    ticklab()
        .args(["analyze", &f, "--plot"])
        .arg(&plots)
        .assert()
        .success();
    assert!(plots.join("analyze.diffsort.svg").exists());
}

#[test]
fn cpu_vs_wall_reports_both_times_and_cold_memory() {
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "cpu-vs-wall",
        "--n",
        "16,48",
        "--runs",
        "2",
        "--cold-mib",
        "8",
        "--json",
    ]))
    .unwrap();
    assert_eq!(v["matmul"].as_array().unwrap().len(), 2);
    assert!(v["matmul"][1]["wall_s"].as_f64().unwrap() > 0.0);
    assert!(v["cold_vs_warm"]["cold_s"].as_f64().unwrap() > 0.0);
    let t = stdout_of(&["cpu-vs-wall", "--n", "16", "--runs", "1", "--cold-mib", "1"]);
    assert!(t.contains("MFLOPS") && t.contains("first pass"), "{t}");
    let csv = stdout_of(&[
        "cpu-vs-wall",
        "--n",
        "16",
        "--runs",
        "1",
        "--cold-mib",
        "1",
        "--csv",
    ]);
    assert!(csv.starts_with("n,wall_s"));
}

#[test]
fn an_unavailable_clock_asked_for_is_a_failed_measurement() {
    let name = if cfg!(target_arch = "aarch64") {
        "rdtsc"
    } else {
        "cntvct_el0"
    };
    ticklab()
        .args(["tick", "--clock", name, "--time", "0.05"])
        .assert()
        .code(1)
        .stderr(contains("not available here"));
}

#[test]
fn every_experiment_command_writes_csv_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    for cmd in ["tick", "overhead", "fit"] {
        let mut args = vec![cmd, "--clock", "monotonic", "--time", "0.1"];
        if cmd == "fit" {
            args.extend(["--n", "1000..50000", "--points", "4", "--runs", "3"]);
        }
        let mut csv_args = args.clone();
        csv_args.push("--csv");
        let csv = stdout_of(&csv_args);
        assert!(
            csv.starts_with("clock,available") && csv.contains("CLOCK_MONOTONIC,true"),
            "{cmd}: {csv}"
        );
        let d = dir.path().join(cmd);
        ticklab()
            .args(&args)
            .arg("--plot")
            .arg(&d)
            .assert()
            .success();
        let n = std::fs::read_dir(&d).unwrap().count();
        assert!(n >= 4, "{cmd}: {n} plots");
    }
}

/// Ctrl-C during a measurement with --save: exit 130, a message saying what was kept and
/// where, and the file holding the clocks measured until then, marked interrupted, written
/// whole (no temporary file left beside it); without Ctrl-C the same command saves a report
/// with no such mark.
#[cfg(unix)]
#[test]
fn ctrl_c_keeps_what_was_measured() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("partial.json");
    // Early (in the first clocks' tick, which overhead and fit measure first) and later;
    // under load the same moment lands in another experiment, so what is checked is that
    // the clock cut short keeps every experiment it finished and names the one it was in.
    for (cmd, after_ms) in [
        ("run", 1500),
        ("tick", 1500),
        ("overhead", 100),
        ("overhead", 1500),
        ("fit", 100),
        ("fit", 1500),
    ] {
        std::fs::write(&path, "the report of an earlier run").unwrap();
        // Three seconds an experiment on every clock: far longer than the time it is given.
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ticklab"))
            .args([cmd, "--time", "3", "--save"])
            .arg(&path)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(after_ms));
        // Safe: a signal to our own child, which is still running (its budget is a minute).
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
        let t0 = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "{cmd}: still running 10 s after Ctrl-C"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(status.code(), Some(130), "{cmd}: {stderr}");
        assert!(
            stderr.contains("interrupted (Ctrl-C)") && stderr.contains("saved to"),
            "{cmd}: {stderr}"
        );
        let report = Report::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let i = report.interruption.clone().expect("marked interrupted");
        assert!(i.measured <= i.total && i.measured >= 1, "{cmd}: {i:?}");
        let why = ticklab::present::interrupted(&report).unwrap();
        assert!(
            why.contains("clocks measured") && why.contains(&i.clock),
            "{cmd}: {why}"
        );
        // The last clock measured (an unavailable one has nothing to keep): the experiments
        // it finished, in the command's order, then at most the one cut short, recorded as
        // cancelled, and nothing after it.
        let last = report
            .clocks
            .iter()
            .rev()
            .find(|c| c.available)
            .expect("a clock measured");
        let order: &[&str] = match cmd {
            "tick" => &["tick"],
            "overhead" => &["tick", "overhead"],
            "fit" => &["tick", "overhead", "fit"],
            _ => &["tick", "overhead", "fit"],
        };
        let done = |e: &str| match e {
            "tick" => last.tick.is_some(),
            "overhead" => last.overhead.is_some(),
            _ => !last.fits.is_empty(),
        };
        let cut: Vec<&str> = last
            .errors
            .iter()
            .filter(|e| e.kind == ticklab::error::ErrorKind::Cancelled)
            .map(|e| e.experiment.as_str())
            .collect();
        // The first experiment not finished was cut short or failed for a reason of its
        // own (a coarse clock's fit); only it can be the one cancelled.
        let finished = order.iter().take_while(|e| done(e)).count();
        let ok = match order.get(finished) {
            None => cut.is_empty(),
            Some(next) => {
                last.errors.iter().any(|x| x.experiment == *next) && cut.iter().all(|c| c == next)
            }
        };
        assert!(ok, "{cmd} after {after_ms} ms ({why}): {last:?}");
        if why.contains("during") {
            assert!(why.contains(&last.info.name), "{cmd}: {why}");
        }
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    // Uninterrupted: the same file, replaced whole, with no mark.
    ticklab()
        .args([
            "tick",
            "--clock",
            "CLOCK_MONOTONIC",
            "--time",
            "0.05",
            "--save",
        ])
        .arg(&path)
        .assert()
        .success();
    let report = Report::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!((report.interruption, report.clocks.len()), (None, 1));
}

/// `ticklab` alone measures nothing: it says what to try first, each a command there is.
#[test]
fn ticklab_alone_says_what_to_try_first() {
    let said = stdout_of(&[]);
    assert!(said.contains("Try first"), "{said}");
    let help = stdout_of(&["help"]);
    let tried: Vec<&str> = said
        .lines()
        .filter_map(|l| l.strip_prefix("  ticklab "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(tried.len() >= 5, "{said}");
    for command in tried {
        if command != "help" {
            assert!(
                help.contains(&format!("  {command} ")),
                "`ticklab {command}` is no command:\n{help}"
            );
        }
    }
}
