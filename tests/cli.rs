//! The `ticklab` command end to end: every subcommand, every output format, and a table of
//! bad inputs that must each get exit code 2 and a message saying what to fix.

use std::io::Write;
use std::path::Path;

use assert_cmd::Command;
use predicates::str::contains;
use ticklab::Report;

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
    for (w, n) in [
        ("count", "1000..200000"),
        ("copy", "1000..100000"),
        ("sqrt", "1000..50000"),
        ("matmul", "8..40"),
    ] {
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
        let r = Report::from_json(&json).unwrap();
        let f = &r.clocks[0].fits[0];
        assert_eq!(f.workload, w);
        assert!(f.slope_ns.unwrap() > 0.0, "{w}: {:?}", f.slope_ns);
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

/// Bad input: exit 2 and a message that says what to fix.
#[test]
fn bad_inputs_get_exit_2_and_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let empty = file_with(d, "empty.txt", b"");
    let blank = file_with(d, "blank-lines.txt", b"\n  \n\n");
    let garbage = file_with(d, "abc-on-line-3.txt", b"1\n2\nabc\n");
    let negative = file_with(d, "minus-2-on-line-2.txt", b"1\n-2\n");
    let nan = file_with(d, "nan-on-line-2.txt", b"1\nNaN\n");
    let inf = file_with(d, "inf-on-line-2.txt", b"1\ninf\n");
    let overflow = file_with(d, "1e400-on-line-2.txt", b"1\n1e400\n");
    let binary = file_with(d, "not-utf8.dat", &[0x81, 0xff, 0x00, b'\n']);
    let utf16_cut = file_with(d, "utf16-odd-bytes.txt", &[0xff, 0xfe, b'1', 0, b'\n']);
    let comma = file_with(d, "decimal-comma-on-line-2.txt", b"1\n0,25\n");
    let thousands = file_with(d, "thousands-on-line-2.txt", b"1\n1,234,567\n");
    let long_line = file_with(d, "one-100000-byte-line.txt", &vec![b'1'; 100_000]);
    let csv = file_with(d, "columns-a-b.csv", b"a,b\n1,2\n3,4\n");
    let ragged = file_with(d, "row-2-short.csv", b"1,2\n3\n");
    let words = file_with(
        d,
        "words-only.csv",
        b"browser,os\nChrome,Linux\nFirefox,macOS\n",
    );
    let too_many = {
        let p = d.join("10000001-values.txt");
        let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        for _ in 0..10_000_001u32 {
            f.write_all(b"1\n").unwrap();
        }
        f.flush().unwrap();
        p.to_string_lossy().into_owned()
    };
    let unknown_json = file_with(d, "json-of-no-tool.json", br#"{"a": 1}"#);
    let broken_json = file_with(d, "broken.json", br#"{"times": [1,"#);
    let short_iters = file_with(
        d,
        "sample-3-times-2-iters.json",
        br#"{"iters": [1, 2], "times": [10, 20, 30]}"#,
    );
    let text_time = file_with(
        d,
        "hyperfine-text-time.json",
        br#"{"results": [{"command": "c", "times": [0.1, "x"]}]}"#,
    );
    let a_file = file_with(d, "a-file", b"x");
    let missing = d.join("missing.txt").to_string_lossy().into_owned();
    let dir_path = d.to_string_lossy().into_owned();
    let plot_into_file = format!("{a_file}/sub");
    let site = d.join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<!doctype html>").unwrap();
    let site = site.to_string_lossy().into_owned();
    let not_json = file_with(d, "not-json.json", b"{\"schema_version\": 1,");
    let future = file_with(d, "schema-999.json", b"{\"schema_version\": 999}");
    let comparison_2 = file_with(
        d,
        "comparison-2.json",
        br#"{"ticklab_comparison": 2, "runs": []}"#,
    );
    let comparison_999 = file_with(
        d,
        "comparison-of-schema-999.json",
        br#"{"ticklab_comparison": 1, "runs": [{"engine": "native", "report": {"schema_version": 999}}]}"#,
    );
    let oversized = {
        let p = d.join("33-mib.json");
        std::fs::write(&p, vec![b' '; 33 << 20]).unwrap();
        p.to_string_lossy().into_owned()
    };

    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["tick", "--clock", "nosuchclock"], "unknown clock"),
        (vec!["tick", "--clock", ""], "needs a name"),
        (vec!["tick", "--time", "0"], "time budget"),
        (vec!["tick", "--time", "-1"], "--time"),
        (vec!["tick", "--time", "abc"], "invalid value"),
        (vec!["tick", "--time", "1e9"], "time budget"),
        (vec!["tick", "--time", "NaN"], "time budget"),
        (vec!["tick", "--samples", "0"], "sample budget"),
        (
            vec!["overhead", "--samples", "999999999999"],
            "sample budget",
        ),
        (vec!["fit", "--n", "5..5"], "bad --n"),
        (vec!["fit", "--n", "abc"], "bad --n"),
        (vec!["fit", "--n", "0..10"], "bad --n"),
        (vec!["fit", "--n", "20..10"], "bad --n"),
        (vec!["fit", "--runs", "0"], "--runs 0"),
        (vec!["fit", "--points", "1"], "--points 1"),
        (vec!["fit", "--workload", "fft"], "invalid value"),
        (
            vec!["fit", "--workload", "matmul", "--n", "1..99999999"],
            "largest size",
        ),
        (vec!["run", "--time", "-0.5"], "--time"),
        (vec!["run", "--clock"], "--clock"),
        (vec!["run", "--json", "--csv"], "cannot be used with"),
        (vec!["frobnicate"], "unrecognized subcommand"),
        (vec!["analyze"], "FILE"),
        (vec!["analyze", &missing], "cannot open"),
        (vec!["analyze", &dir_path], "holds no timings ticklab reads"),
        (
            vec!["analyze", &dir_path, "--column", "2"],
            "--column reads one CSV file",
        ),
        (vec!["analyze", &unknown_json], "not a kind ticklab reads"),
        (vec!["analyze", &broken_json], "is not valid JSON"),
        (
            vec!["analyze", &short_iters],
            "3 times but 2 iteration counts",
        ),
        (
            vec!["analyze", &text_time],
            "times[1] is \"x\", not a finite non-negative number",
        ),
        (vec!["analyze", &empty], "no numbers"),
        (vec!["analyze", &blank], "no numbers"),
        (vec!["analyze", &garbage], "line 3: 'abc' is not a number"),
        (vec!["analyze", &negative], "line 2: -2 is negative"),
        (
            vec!["analyze", &nan],
            "line 2: 'NaN' is not a finite number",
        ),
        (
            vec!["analyze", &inf],
            "line 2: 'inf' is not a finite number",
        ),
        (
            vec!["analyze", &overflow],
            "line 2: '1e400' is not a finite number",
        ),
        (vec!["analyze", &binary], "line 1 is not text"),
        (
            vec!["analyze", &utf16_cut],
            "UTF-16 text (little-endian) with an odd number of bytes",
        ),
        (
            vec!["analyze", &comma],
            "line 2: '0,25' is not a number: it has a decimal comma",
        ),
        (
            vec!["analyze", &thousands],
            "separator between groups of thousands",
        ),
        (vec!["analyze", &long_line], "longer than"),
        (vec!["analyze", &too_many], "more than 10000000 values"),
        (
            vec!["analyze", &csv, "--column", "zz"],
            "no column named 'zz'",
        ),
        (vec!["analyze", &csv, "--column", "0"], "count from 1"),
        (vec!["analyze", &csv, "--column", "9"], "no column 9"),
        (vec!["analyze", &ragged, "--column", "2"], "line 2"),
        (
            vec!["analyze", &csv, "--unit", "fortnights"],
            "invalid value",
        ),
        (
            vec!["analyze", &words],
            "holds no column of numbers: line 2: 'Chrome' is not a number",
        ),
        (
            vec!["analyze", &csv, "--readings", "--durations"],
            "cannot be used with",
        ),
        (
            vec!["analyze", &garbage, "--plot", &plot_into_file],
            "line 3",
        ),
        (
            vec![
                "run",
                "--clock",
                "monotonic",
                "--time",
                "0.05",
                "--plot",
                &plot_into_file,
            ],
            "cannot create",
        ),
        (vec!["cpu-vs-wall", "--n", "0"], "bad --n"),
        (vec!["cpu-vs-wall", "--n", "ten"], "bad --n"),
        (vec!["cpu-vs-wall", "--n", "99999"], "bad --n"),
        (vec!["cpu-vs-wall", "--runs", "0"], "--runs 0"),
        (vec!["cpu-vs-wall", "--cold-mib", "0"], "--cold-mib 0"),
        (vec!["serve", "--root", &missing], "--root"),
        (vec!["serve", "--root", &dir_path], "no index.html"),
        (
            vec!["serve", "--root", &site, "--report", &not_json],
            "not JSON",
        ),
        (
            vec!["serve", "--root", &site, "--report", &future],
            "schema version 999",
        ),
        (
            vec!["serve", "--root", &site, "--report", &oversized],
            "a report is at most",
        ),
        (
            vec!["serve", "--root", &site, "--report", &missing],
            "--report",
        ),
        (vec!["show"], "FILE"),
        (vec!["show", &missing], "missing.txt"),
        (vec!["show", &dir_path], "Is a directory"),
        (vec!["show", &not_json], "not JSON"),
        (vec!["show", &future], "schema version 999"),
        (vec!["show", &oversized], "a report is at most"),
        (vec!["show", &unknown_json], "no schema_version"),
        (vec!["show", &comparison_2], "a comparison of format 2"),
        (vec!["show", &comparison_999], "schema version 999"),
        (
            vec!["show", &not_json, &future],
            "side by side with --matrix",
        ),
        (vec!["show", "--matrix", &not_json], "not JSON"),
        (
            vec!["show", "--matrix", "--csv", &future],
            "cannot be used with",
        ),
        (vec!["browsers", "--engine", "netscape"], "the engines are"),
        (vec!["browsers", "--timeout", "0"], "--timeout 0"),
        (
            vec!["browsers", "--only-plain", "--only-isolated"],
            "cannot be used with",
        ),
        (vec!["class", "--db", &not_json], "file is not a database"),
        (vec!["class", "--db", &dir_path], "unable to open"),
        (vec!["class", "--port", "70000"], "invalid value"),
        (vec!["serve", "--port", "70000"], "invalid value"),
        (vec!["serve", "--bind", "999.1.1.1"], "invalid value"),
        (vec!["serve", "--bind", "localhost"], "invalid value"),
    ];
    assert!(cases.len() >= 20);
    let shown = |a: &str| {
        a.replace(&format!("{}/", d.display()), "")
            .replace(&dir_path, "A-DIRECTORY")
    };
    let mut rows = Vec::new();
    for (args, hint) in &cases {
        ticklab()
            .args(args)
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(2)
            .stderr(contains(*hint));
        let words: Vec<String> = args.iter().map(|a| shown(a)).collect();
        rows.push(ticklab_browser::bad_input_row(
            "cli",
            &format!("`ticklab {}`", words.join(" ")),
            &format!("exit 2, \"{hint}\""),
        ));
    }
    ticklab_browser::assert_bad_inputs_listed("cli", &rows);
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

/// Values of a counter of `period` ns read at `start_ns` and `start_ns + dur_ns`, in whole ns
/// as a ns API gives them, differenced: what a benchmark tool stores as a sample's time.
fn timed(start_ns: f64, dur_ns: f64, period: f64) -> f64 {
    let read = |t: f64| ((t / period).floor() * period).floor();
    read(start_ns + dur_ns) - read(start_ns)
}

/// A column of timings saved by a spreadsheet three ways: "CSV UTF-8" (a byte-order mark,
/// CRLF, a blank last line), "Unicode text" (UTF-16 little-endian with its mark) and plain
/// UTF-8: the same answer from each.
#[test]
fn analyze_reads_files_as_spreadsheets_save_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rng = ticklab::rng::SplitMix64::new(11);
    let mut text = String::from("ms\r\n");
    for _ in 0..500 {
        text.push_str(&format!("{:.1}\r\n", (1 + rng.below(40)) as f64 * 0.1));
    }
    text.push_str("\r\n");
    let plain = file_with(d, "plain.csv", text.as_bytes());
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(text.as_bytes());
    let bom = file_with(d, "csv-utf8.csv", &bom);
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    let utf16 = file_with(d, "unicode-text.txt", &utf16);
    let answer = |f: &str| {
        let out = ticklab()
            .args(["analyze", f, "--column", "ms", "--unit", "ms"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        // The file's name is in the output; the rest must agree.
        String::from_utf8(out).unwrap().replace(f, "FILE")
    };
    let want = answer(&plain);
    assert!(want.contains("500 values") && want.contains("µs"), "{want}");
    assert_eq!(answer(&bom), want);
    assert_eq!(answer(&utf16), want);
}

#[test]
fn analyze_reads_what_benchmark_tools_write() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rng = ticklab::rng::SplitMix64::new(7);
    // Criterion on a 24 MHz counter: 100 samples of 1 ms to 100 ms, a tree as under
    // target/criterion, with the run before last in base/ (to be passed over).
    let tree = d.join("criterion").join("parse").join("small");
    std::fs::create_dir_all(tree.join("new")).unwrap();
    std::fs::create_dir_all(tree.join("base")).unwrap();
    let iters: Vec<f64> = (1..=100).map(|i| (i * 238_663) as f64).collect();
    let times: Vec<f64> = iters
        .iter()
        .map(|n| {
            timed(
                1e10 * rng.unit(),
                n * 4.19 * (1.0 + 0.01 * rng.unit()),
                125.0 / 3.0,
            )
        })
        .collect();
    let sample = serde_json::json!({"sampling_mode": "Linear", "iters": iters, "times": times});
    std::fs::write(tree.join("new/sample.json"), sample.to_string()).unwrap();
    std::fs::write(
        tree.join("base/sample.json"),
        r#"{"iters":[1],"times":[7]}"#,
    )
    .unwrap();
    std::fs::write(
        tree.join("new/benchmark.json"),
        r#"{"group_id":"parse","function_id":"small","full_id":"parse/small"}"#,
    )
    .unwrap();
    std::fs::write(
        tree.join("new/estimates.json"),
        r#"{"mean":{"point_estimate":4.19}}"#,
    )
    .unwrap();
    let crit = d.join("criterion").to_string_lossy().into_owned();
    let t = stdout_of(&["analyze", &crit]);
    assert!(t.contains("parse/small") && t.contains("= 125/3 ns"), "{t}");
    assert!(
        t.contains("these samples were timed by a clock of 41.67 ns: a sample shorter than 4.167 µs carries more than 1% quantisation error"),
        "{t}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(&["analyze", &crit, "--json"])).unwrap();
    assert_eq!(v["values"], 100, "base/ is passed over: {v}");
    assert_eq!(v["estimate"]["exact"]["den"], 3);
    // Criterion's averages are recognised as averages.
    let est = tree
        .join("new/estimates.json")
        .to_string_lossy()
        .into_owned();
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(&["analyze", &est, "--json"])).unwrap();
    assert_eq!(v["kind"], "averages");
    assert!(v["tick"].is_null(), "{v}");

    // hyperfine: runs in seconds, from whole ns of a 10 ns step, two commands.
    let runs = |ms: f64, rng: &mut ticklab::rng::SplitMix64| -> Vec<f64> {
        (0..40)
            .map(|_| {
                timed(
                    1e12 * rng.unit(),
                    ms * 1e6 * (1.0 + 0.05 * rng.unit()),
                    10.0148,
                ) * 1e-9
            })
            .collect()
    };
    let hf = serde_json::json!({"results": [
        {"command": "sleep 0.002", "times": runs(2.9, &mut rng)},
        {"command": "true", "times": runs(0.6, &mut rng)},
    ]});
    let hf = file_with(d, "hyperfine.json", hf.to_string().as_bytes());
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(&["analyze", &hf, "--json"])).unwrap();
    assert_eq!(v["series"].as_array().unwrap().len(), 2);
    let tick = v["combined"]["tick_ns"].as_f64().unwrap();
    assert!((tick - 10.0148).abs() < 0.01, "{v}");
    assert!(v["combined"]["answer"]
        .as_str()
        .unwrap()
        .starts_with("these runs were timed"));

    // hyperfine through a shell: the shell's mean start-up time (here 2 812 342.76 ns, a third of a tick off its multiple) is
    // taken off every run and runs that come out negative are 0, so the times share an
    // offset; most runs of `true` are zeros, those of `sleep 0.001` last 2 to 10 ms.
    let offset = 2_812_342.76;
    let shell = |ms: f64, spread: f64, rng: &mut ticklab::rng::SplitMix64| -> Vec<f64> {
        (0..300)
            .map(|_| {
                let run = timed(
                    1e12 * rng.unit(),
                    ms * 1e6 * (1.0 + spread * rng.unit()),
                    10.0148,
                );
                (run - offset).max(0.0) * 1e-9
            })
            .collect()
    };
    let hf = serde_json::json!({"results": [
        {"command": "true", "times": shell(2.5, 0.2, &mut rng)},
        {"command": "sleep 0.001", "times": shell(4.8, 1.7, &mut rng)},
    ]});
    let hf = file_with(d, "hyperfine-shell.json", hf.to_string().as_bytes());
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(&["analyze", &hf, "--json"])).unwrap();
    for s in v["series"]
        .as_array()
        .unwrap()
        .iter()
        .chain([&v["combined"]])
    {
        let tick = s["tick_ns"].as_f64().unwrap_or(0.0);
        assert!((tick - 10.0148).abs() < 0.01, "{s}");
        assert!(s["estimate"]["zeros"].as_u64().is_some(), "{s}");
    }
    let c = &v["combined"];
    assert_eq!(c["offset"], true, "{c}");
    assert!(
        c["answer"]
            .as_str()
            .unwrap()
            .ends_with("so they do not say how long the runs lasted"),
        "{c}"
    );

    // pytest-benchmark: rounds of 100 iterations, each datum the round over 100.
    let data: Vec<f64> = (0..500)
        .map(|_| {
            timed(
                1e12 * rng.unit(),
                6000.0 + 3000.0 * rng.unit().powi(3),
                10.0148,
            ) * 1e-9
                / 100.0
        })
        .collect();
    let pb = serde_json::json!({"benchmarks": [
        {"name": "test_tiny", "fullname": "t.py::test_tiny",
         "stats": {"iterations": 100, "rounds": 500, "data": data}}]});
    let pb = file_with(d, "pytest.json", pb.to_string().as_bytes());
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(&["analyze", &pb, "--json"])).unwrap();
    assert!(
        (v["tick_ns"].as_f64().unwrap() - 10.0148).abs() < 0.01,
        "{v}"
    );

    // JMH: average time is an average; sample mode holds timings.
    let jmh = serde_json::json!([
        {"benchmark": "a.B.avg", "mode": "avgt",
         "primaryMetric": {"score": 4.19, "scoreUnit": "ns/op", "rawData": [[4.19, 4.2]]}},
        {"benchmark": "a.B.sample", "mode": "sample", "primaryMetric": {"scoreUnit": "us/op",
         "rawDataHistogram": [[[[0.1, 40], [0.2, 30], [0.3, 20], [0.5, 10]]]]}}]);
    let jmh = file_with(d, "jmh.json", jmh.to_string().as_bytes());
    let t = stdout_of(&["analyze", &jmh]);
    assert!(
        t.contains("none (averages)") && t.contains("a.B.sample (sample)"),
        "{t}"
    );
    // Multiples of 0.1 µs written to 0.1 µs: the data's own precision is all they show.
    assert!(t.contains("at most 100.00 ns"), "{t}");

    // Criterion's raw.csv.
    let mut raw = String::from(
        "group,function,value,throughput_num,throughput_type,sample_measured_value,unit,iteration_count\n",
    );
    for (n, t) in iters.iter().zip(&times) {
        raw.push_str(&format!("parse,small,,,,{t},ns,{n}\n"));
    }
    let raw = file_with(d, "raw.csv", raw.as_bytes());
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(&["analyze", &raw, "--json"])).unwrap();
    assert_eq!(v["source"], "parse/small");
    assert_eq!(v["estimate"]["exact"]["num"], 125);
}

#[test]
fn analyze_says_what_whole_milliseconds_and_averages_can_tell() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = ticklab::rng::SplitMix64::new(3);
    let ms: String = (0..300)
        .map(|_| format!("{}\n", (1.0 + 206.0 * rng.unit().powi(3)).round()))
        .chain(std::iter::once("0\n".to_string()))
        .collect();
    let f = file_with(dir.path(), "ms.txt", ms.as_bytes());
    let t = stdout_of(&["analyze", &f, "--unit", "ms"]);
    assert!(
        t.contains("at most 1.000 ms: the data's own precision; nothing coarser fits"),
        "{t}"
    );
    // Date.now() around a loop of a third of a millisecond in a browser: mostly 0 and 1,
    // a few longer runs (a collection, a frame). Their differences must not be searched for
    // a tick as if they shared an offset: they sit on whole milliseconds.
    let short: String = (0..3000)
        .map(|_| {
            let start = 1e6 * rng.unit();
            let mut run = 0.33 * (1.0 + rng.unit());
            if rng.below(100) == 0 {
                run += 2.0 + 16.0 * rng.unit();
            }
            format!("{}\n", (start + run).floor() - start.floor())
        })
        .collect();
    let f = file_with(dir.path(), "date.txt", short.as_bytes());
    let t = stdout_of(&["analyze", &f, "--unit", "ms"]);
    assert!(
        t.contains("at most 1.000 ms: the data's own precision; nothing coarser fits"),
        "{t}"
    );
    // Totals over their iteration counts, as Criterion's per-iteration values are.
    let means: String = (1..=100u64)
        .map(|i| {
            let iters = i * 238_663;
            let total = (iters as f64 * 4.19 * (1.0 + 0.02 * rng.unit())).round();
            format!("{}\n", total / iters as f64)
        })
        .collect();
    let f = file_with(dir.path(), "means.txt", means.as_bytes());
    let t = stdout_of(&["analyze", &f, "--unit", "ns"]);
    assert!(t.contains("no tick found"), "{t}");
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(&["analyze", &f, "--unit", "ns", "--json"])).unwrap();
    assert!(
        v["tick"].is_null() && v["estimate"]["reliable"] == false,
        "{v}"
    );
    // Means printed to four significant digits, as benchmark tools print ns/op: 0.8903,
    // 5.679, 79.33, 487.3, 3.101e+04. Each one is a multiple of 0.0001 only because of its
    // printing, which changes with its size: no tick, and no bound from the finest print.
    let printed: String = (0..300)
        .map(|_| {
            let v = 10f64.powf(-0.3 + 5.0 * rng.unit());
            let digits = 3 - v.log10().floor() as i32;
            let places = digits.max(0) as usize;
            format!("{:.*}\n", places, v)
        })
        .collect();
    let f = file_with(dir.path(), "printed.txt", printed.as_bytes());
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(&["analyze", &f, "--unit", "ns", "--json"])).unwrap();
    assert!(
        v["tick"].is_null() && v["estimate"]["reliable"] == false,
        "{v}"
    );
    let t = stdout_of(&["analyze", &f, "--unit", "ns"]);
    assert!(t.contains("printed to 4 significant digits"), "{t}");
}

/// The largest tick that explains the values wins: performance.now of a cross-origin
/// isolated Firefox (20 µs, no jitter) is not read as half of it, whether the values are
/// differences of doubles with their float noise or few levels of it; a Firefox that is
/// not isolated gives whole milliseconds. The files were collected from headless Firefox
/// ESR 153 (tests/data/README.md says how).
#[test]
fn analyze_finds_the_largest_tick_of_a_real_firefox() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data");
    let iso = data.join("firefox-isolated-performance-now.txt");
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "analyze",
        iso.to_str().unwrap(),
        "--unit",
        "ms",
        "--json",
    ]))
    .unwrap();
    assert_eq!(
        (
            &v["estimate"]["exact"]["num"],
            &v["estimate"]["exact"]["den"]
        ),
        (&serde_json::json!(1), &serde_json::json!(50)),
        "{v}"
    );
    assert!(
        (v["tick_ns"].as_f64().unwrap() - 20_000.0).abs() < 1e-6,
        "{v}"
    );
    assert!(
        v["estimate"]["caveats"].as_array().unwrap().is_empty(),
        "{v}"
    );
    // Its five shortest levels alone (20 to 100 µs), as a short loop gives them.
    let text = std::fs::read_to_string(&iso).unwrap();
    let five: String = text
        .lines()
        .filter(|l| (0.01..0.11).contains(&l.parse::<f64>().unwrap()))
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let f = file_with(dir.path(), "five.txt", five.as_bytes());
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(&["analyze", &f, "--unit", "ms", "--json"])).unwrap();
    assert!(
        (v["tick_ns"].as_f64().unwrap() - 20_000.0).abs() < 1e-6,
        "{v}"
    );
    // Synthetic: readings on a 20 µs grid as doubles in ms, durations of 1 to 5 ticks.
    let mut rng = ticklab::rng::SplitMix64::new(11);
    let synthetic: String = (0..2000)
        .map(|_| {
            let a = (1e3 + 6e4 * rng.unit()) * 50.0;
            let a = a.floor() / 50.0;
            let b = ((a + (1 + rng.below(5)) as f64 * 0.02) * 50.0).round() / 50.0;
            format!("{}\n", b - a)
        })
        .collect();
    let f = file_with(dir.path(), "synthetic.txt", synthetic.as_bytes());
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(&["analyze", &f, "--unit", "ms", "--json"])).unwrap();
    assert!(
        (v["tick_ns"].as_f64().unwrap() - 20_000.0).abs() < 1e-6,
        "{v}"
    );
    // Not isolated: whole milliseconds, all the data can show.
    let plain = data.join("firefox-performance-now.txt");
    let t = stdout_of(&["analyze", plain.to_str().unwrap(), "--unit", "ms"]);
    assert!(t.contains("at most 1.000 ms"), "{t}");
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

/// `ticklab analyze --json` of `args`: one series' report, or each of a table's columns.
fn analyzed(args: &[&str]) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_str(&stdout_of(args)).unwrap();
    match v {
        serde_json::Value::Array(a) => a,
        one => vec![one],
    }
}

fn near(v: &serde_json::Value, key: &str, want: f64, within: f64) -> bool {
    v[key]
        .as_f64()
        .is_some_and(|x| (x - want).abs() <= within * want)
}

/// Readings of a clock, as logs hold them, made the way each is made: the tick from the
/// intervals between them, the double's own spacing where storage sets the finest step,
/// the epoch unit their size says, and every sentence of readings and intervals.
#[test]
fn analyze_reads_a_clocks_readings_as_readings() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = ticklab::rng::SplitMix64::new(7);
    let lines = |f: &mut dyn FnMut() -> String| -> String {
        (0..2000).map(|_| format!("{}\n", f())).collect()
    };
    // Date.now() in a log: epoch milliseconds as whole numbers.
    let mut t = 1_732_550_000_000u64;
    let epoch_ms = lines(&mut || {
        t += rng.below(21);
        t.to_string()
    });
    // performance.timeOrigin + performance.now() under a 5 µs clamp, as a page writes it
    // (the sum taken in doubles, printed in its shortest form).
    let origin = 1_732_550_000_123.456_7f64;
    let mut k = 0u64;
    let fraction = lines(&mut || {
        k += 1 + rng.below(400);
        format!("{}", origin + k as f64 * 0.005)
    });
    // Python's time.time(): a ns clock's readings held in doubles of epoch seconds.
    let mut ns = 1_732_550_000_002_583_500u64;
    let seconds = lines(&mut || {
        ns += 37 * (50 + rng.below(4950));
        format!("{}", ns as f64 / 1e9)
    });
    // performance.now() from 1000 ms on, clamped to 100 µs in doubles.
    let mut ms = 1000.0f64;
    let clamped = lines(&mut || {
        ms += 0.9 * rng.unit();
        format!("{}", (ms / 0.1).floor() * 0.1)
    });
    // Epoch nanoseconds as whole numbers, past the 2^53 a double holds: a 10 ns clock.
    let mut e = 1_732_550_000_000_000_000u64;
    let epoch_ns = lines(&mut || {
        e += 10 * (1 + rng.below(100_000));
        e.to_string()
    });
    for (name, text, unit, tick_ns, at_most, storage) in [
        ("epoch-ms.txt", &epoch_ms, "ms", 1e6, true, None),
        (
            "epoch-ms-fraction.txt",
            &fraction,
            "ms",
            5_000.0,
            false,
            // The doubles' spacing near the readings, in their unit: 2^-12 ms, 2^-22 s.
            Some(2f64.powi(-12)),
        ),
        (
            "time-time.txt",
            &seconds,
            "s",
            238.418_579_1,
            true,
            Some(2f64.powi(-22)),
        ),
        ("epoch-ns.txt", &epoch_ns, "ns", 10.0, false, None),
    ] {
        let f = file_with(dir.path(), name, text.as_bytes());
        let v = &analyzed(&["analyze", &f, "--json"])[0];
        assert_eq!(v["kind"], "readings", "{name}: {v}");
        assert_eq!(v["unit"], unit, "{name}: the epoch unit of their size");
        assert!(near(v, "tick_ns", tick_ns, 1e-3), "{name}: {v}");
        assert_eq!(v["at_most"], at_most, "{name}: {v}");
        match storage {
            Some(s) => assert!(near(v, "storage", s, 1e-6), "{name}: {v}"),
            None => assert!(v["storage"].is_null(), "{name}: {v}"),
        }
        let answer = v["answer"].as_str().unwrap();
        assert!(
            !answer.contains("timing") && !answer.contains("lasted"),
            "{answer}"
        );
    }
    let f = file_with(dir.path(), "clamped.txt", clamped.as_bytes());
    let t = stdout_of(&["analyze", &f, "--unit", "ms"]);
    assert!(
        t.contains("these readings come from a clock of 100.000 µs: an interval between two"),
        "{t}"
    );
    assert!(!t.contains("lasted") && !t.contains("timings"), "{t}");
    let f = file_with(dir.path(), "time-time.txt", seconds.as_bytes());
    let t = stdout_of(&["analyze", &f]);
    assert!(t.contains("finer than this file can show"), "{t}");
    // Asked for, either reading holds: readings read as durations are durations.
    let v = &analyzed(&["analyze", &f, "--durations", "--json"])[0];
    assert_eq!(v["kind"], "durations");
    assert_eq!(v["recognised"]["forced"], true);
    // Intervals computed as differences of doubles on a 20 µs grid, with their float
    // noise, from 0.4 ms to 400 ms: durations on a grid, no "averages".
    let noisy: String = (0..2000)
        .map(|_| {
            let a = (5_000_000 + rng.below(45_000_000)) as f64 * 0.02;
            let k = (20.0 * 1000f64.powf(rng.unit())).round();
            format!("{}\n", (a + k * 0.02) - a)
        })
        .collect();
    let f = file_with(dir.path(), "noisy.txt", noisy.as_bytes());
    let v = &analyzed(&["analyze", &f, "--unit", "ms", "--json"])[0];
    assert_eq!(v["kind"], "durations", "{v}");
    assert!(near(v, "tick_ns", 20_000.0, 1e-6), "{v}");
    let readings = analyzed(&["analyze", &f, "--unit", "ms", "--readings", "--json"]);
    assert_eq!(readings[0]["kind"], "readings");
}

/// A table with a header: every column analysed, one row each in one table (a column of
/// words named and skipped, columns all alike or zero with their reasons), `--json` a
/// list; `--column` still picks one; a TSV alike.
#[test]
fn analyze_reads_every_column_of_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = ticklab::rng::SplitMix64::new(11);
    let mut text = String::from(
        "browser,chrome_ms,firefox_ms,firefox_iso_ms,chrome_iso_ms,date_now,perf_now,\
         epoch_ns,constant,zeros,run,mean_ms\n",
    );
    let (mut date, mut perf, mut ns) = (
        1_732_550_000_000u64,
        5000.0f64,
        1_732_550_000_000_000_000u64,
    );
    for i in 0..1000u64 {
        date += rng.below(31);
        perf += 2.0 * rng.unit();
        ns += 10 * (1 + rng.below(100_000));
        text.push_str(&format!(
            "{},{},{},{},{},{date},{},{ns},5.0,0,{},{:.4}\n",
            ["Chrome", "Firefox", "Safari"][(i % 3) as usize],
            (1 + rng.below(50)) as f64 / 10.0,
            rng.below(21),
            (1 + rng.below(1000)) as f64 * 0.02,
            (1 + rng.below(400)) as f64 * 0.005,
            (perf / 0.1).floor() * 0.1,
            i + 1,
            1.0 + 2.0 * rng.unit(),
        ));
    }
    let f = file_with(dir.path(), "twelve.csv", text.as_bytes());
    let cols = analyzed(&["analyze", &f, "--json"]);
    assert_eq!(cols.len(), 12, "{cols:?}");
    let col = |name: &str| cols.iter().find(|c| c["source"] == name).unwrap().clone();
    assert_eq!(col("browser")["kind"], "skipped");
    assert!(col("browser")["failure"]
        .as_str()
        .unwrap()
        .contains("'Chrome'"));
    assert_eq!(col("constant")["verdict"], "all alike: no step");
    assert_eq!(col("zeros")["verdict"], "no step: all alike or zero");
    assert!(near(&col("firefox_iso_ms"), "tick", 0.02, 1e-9));
    assert!(near(&col("chrome_iso_ms"), "tick", 0.005, 1e-9));
    assert_eq!(col("date_now")["kind"], "readings");
    assert_eq!(col("date_now")["unit"], "ms");
    assert_eq!(col("epoch_ns")["kind"], "readings");
    assert!(near(&col("epoch_ns"), "tick_ns", 10.0, 1e-9));
    assert!(near(&col("perf_now"), "tick", 0.1, 1e-9));
    let t = stdout_of(&["analyze", &f]);
    let rows = t.lines().take_while(|l| !l.is_empty()).count();
    assert_eq!(rows, 13, "a header and 12 rows:\n{t}");
    for name in ["browser", "mean_ms", "zeros"] {
        assert!(t.lines().any(|l| l.starts_with(name)), "{name}:\n{t}");
    }
    let one = analyzed(&["analyze", &f, "--column", "firefox_iso_ms", "--json"]);
    assert_eq!(one.len(), 1);
    assert!(near(&one[0], "tick", 0.02, 1e-9));
    let tsv = file_with(dir.path(), "two.tsv", text.replace(',', "\t").as_bytes());
    assert_eq!(analyzed(&["analyze", &tsv, "--json"]).len(), 12);
}

/// Recordings other programs made (tests/data/README.md says how), each with its tick known
/// without the lab: the doubles' spacing, a format's decimals, a browser's documented
/// clamp, the recording machine's clock step (26 counts of its 2596.1 MHz TSC).
#[test]
fn analyze_finds_the_known_ticks_of_recordings_other_programs_made() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data");
    // (file, column, the tick in ns, whether only a bound, unit given)
    let cases: [(&str, &str, f64, bool, Option<&str>); 12] = [
        ("date-ns.txt", "", 10.015, false, None),
        ("python-time.txt", "", 238.418_579_1, true, None),
        ("python-time-ns.txt", "", 10.015, false, None),
        (
            "python-clocks.tsv",
            "monotonic_ns",
            10.015,
            false,
            Some("ns"),
        ),
        (
            "python-clocks.tsv",
            "perf_counter_ns",
            10.015,
            false,
            Some("ns"),
        ),
        (
            "python-clocks.tsv",
            "process_time_ns",
            10.015,
            false,
            Some("ns"),
        ),
        (
            "chromium-clocks.csv",
            "performance_now_ms",
            100_000.0,
            false,
            Some("ms"),
        ),
        (
            "chromium-clocks.csv",
            "time_origin_plus_now_ms",
            100_000.0,
            false,
            Some("ms"),
        ),
        ("chromium-clocks.csv", "date_now_ms", 1e6, true, Some("ms")),
        (
            "chromium-clocks.csv",
            "event_time_stamp_ms",
            100_000.0,
            false,
            Some("ms"),
        ),
        ("node-date-now.txt", "", 1e6, true, None),
        ("uptime.txt", "", 1e7, true, Some("s")),
    ];
    for (file, column, tick_ns, at_most, unit) in cases {
        let path = data.join(file);
        let mut args = vec!["analyze", path.to_str().unwrap(), "--json"];
        if let Some(u) = unit {
            args.extend(["--unit", u]);
        }
        let all = analyzed(&args);
        let v = all
            .iter()
            .find(|c| column.is_empty() || c["source"] == column)
            .unwrap();
        assert_eq!(v["kind"], "readings", "{file} {column}: {v}");
        assert!(near(v, "tick_ns", tick_ns, 1e-3), "{file} {column}: {v}");
        assert_eq!(v["at_most"], at_most, "{file} {column}: {v}");
    }
    // The kernel's log, printed to microseconds (a line or two out of order).
    let v = &analyzed(&[
        "analyze",
        data.join("dmesg.txt").to_str().unwrap(),
        "--unit",
        "s",
        "--json",
    ])[0];
    assert_eq!(
        (v["kind"].as_str(), v["at_most"].as_bool()),
        (Some("readings"), Some(true))
    );
    assert!(near(v, "tick_ns", 1000.0, 1e-9), "{v}");
    // A timer's intervals, one column under a header: Node's setTimeout(10) chain, its
    // firings 9.2 to 10.9 ms apart, read by performance.now (nanoseconds as milliseconds).
    // The tick is the clock's, not a divisor of the period.
    let v = &analyzed(&[
        "analyze",
        data.join("node-settimeout-10ms.csv").to_str().unwrap(),
        "--unit",
        "ms",
        "--json",
    ])[0];
    assert_eq!(
        (
            v["source"].as_str(),
            v["kind"].as_str(),
            v["at_most"].as_bool()
        ),
        (Some("interval"), Some("durations"), Some(false)),
        "{v}"
    );
    assert!(near(v, "tick_ns", 10.015, 1e-3), "{v}");
}
