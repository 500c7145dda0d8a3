//! `ticklab analyze`: files as spreadsheets save them, what benchmark tools write, readings,
//! tables, and recordings other programs made.

use super::*;

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
            // Two steps of the doubles' 2^-22 s: a difference of two readings errs by one.
            476.837_158_2,
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
        ("python-time.txt", "", 476.837_158_2, true, None),
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
