//! The `ticklab` command end to end: every subcommand, every output format, and a catalogue of
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
    assert_eq!(
        coarse.verdict,
        ticklab::tick::Verdict::Matches,
        "{:?} vs {:?}",
        coarse.tick_ns,
        coarse.claimed_ns
    );
}

#[test]
fn tick_table_shows_seed_001_answers() {
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
fn analyze_seed_001_examples() {
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
    assert!(t.contains("0.25 s") && t.contains("diff(sort())"), "{t}");
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
    let binary = file_with(d, "not-utf8.dat", &[0xff, 0xfe, 0x00, 0x81, b'\n']);
    let long_line = file_with(d, "one-100000-byte-line.txt", &vec![b'1'; 100_000]);
    let csv = file_with(d, "columns-a-b.csv", b"a,b\n1,2\n3,4\n");
    let ragged = file_with(d, "row-2-short.csv", b"1,2\n3\n");
    let too_many = {
        let p = d.join("10000001-values.txt");
        let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        for _ in 0..10_000_001u32 {
            f.write_all(b"1\n").unwrap();
        }
        f.flush().unwrap();
        p.to_string_lossy().into_owned()
    };
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
        (vec!["analyze", &dir_path], "is a directory"),
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
        rows.push(ticklab_browser::catalogue_row(
            "cli",
            &format!("`ticklab {}`", words.join(" ")),
            &format!("exit 2, \"{hint}\""),
        ));
    }
    ticklab_browser::assert_catalogued("cli", &rows);
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
