//! Bad input of every kind: exit 2 and a message that says what is wrong.

use super::*;

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
        (
            vec!["run", "--share", "ftp://hub.example.org"],
            "not a hub's URL",
        ),
        (
            vec!["run", "--share", "https://hub example"],
            "not a URL like",
        ),
        (
            vec!["browsers", "--share", "hub.example.org"],
            "not a hub's URL",
        ),
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
