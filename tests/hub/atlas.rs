//! The atlas on two hub instances and one throwaway PostgreSQL cluster: runs added on A
//! are cells on B once k senders are in them (a cell below k is in neither the page, the
//! CSV nor the JSON); one address sending 1 000 runs moves its cell by one; a closed
//! class counts each of its senders once; the hostile table; `ticklab run --share`; and
//! neither a SIGKILL of an instance nor a stop of PostgreSQL mid-burst loses an
//! acknowledged run.

use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::common::http::{digest, request, student, HERE};
use super::common::BIN;
use super::{class, send, teach, two};
use ticklab_browser::postgres::Cluster;
use ticklab_browser::{assert_bad_inputs_listed, bad_input_row, start_hub};

const JSON: &[(&str, &str)] = &[("Content-Type", "application/json")];

/// A run of digest `d` added from `from` to the atlas on `port`: status and answer.
fn add(port: u16, from: Ipv4Addr, d: &Value) -> (u16, Value) {
    let body = json!({ "digest": d }).to_string();
    let (s, b) = request(from, port, "POST", "/atlas/runs", JSON, body.as_bytes());
    (s, serde_json::from_str(&b).unwrap_or(Value::Null))
}

/// The `i`th sender of a test's own range of loopback addresses.
fn sender(range: u8, i: usize) -> Ipv4Addr {
    Ipv4Addr::new(127, range, (i / 250) as u8, (i % 250 + 1) as u8)
}

/// The cells `port` publishes as JSON, waiting up to 10 s for `until` to hold (an instance
/// reuses what it read for 2 s).
fn cells_until(port: u16, until: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let (s, b) = request(HERE, port, "GET", "/atlas/cells.json", &[], b"");
        assert_eq!(s, 200, "{b}");
        let v: Value = serde_json::from_str(&b).unwrap();
        assert_eq!(v["licence"], "CC0-1.0");
        let cells = v["cells"].as_array().unwrap().clone();
        if until(&cells) || Instant::now() > end {
            return cells;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Waits, up to 10 s, for every run counted to be in its cell's figures (the instances
/// roll the queue into them every 250 ms).
fn rolled(pg: &Cluster) {
    let end = Instant::now() + Duration::from_secs(10);
    while pg.psql("SELECT count(*) FROM atlas_new").unwrap() != "0" {
        assert!(
            Instant::now() < end,
            "the queue was not rolled into the cells in 10 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn named<'a>(cells: &'a [Value], name: &str) -> Option<&'a Value> {
    cells.iter().find(|c| c["name"] == name)
}

/// Three hubs' worth of checks on one pair: k, one address's flood, a class, the pages.
#[test]
fn cells_show_from_k_senders_and_one_address_moves_its_cell_by_one() {
    let pg = Cluster::start().unwrap();
    let bin = std::path::Path::new(BIN);
    let k = ["--atlas-k", "3"];
    let (a, b) = (
        start_hub(bin, &pg.url(), 0, &k),
        start_hub(bin, &pg.url(), 0, &k),
    );
    let chromium = digest("Chromium 156", "not isolated", 100_000.0);
    let firefox = digest("Firefox 153", "isolated", 20_000.0);
    for i in 0..3 {
        let (s, v) = add(a.port, sender(3, i), &chromium);
        assert_eq!(s, 201, "{v}");
        assert_eq!(v["counted"], true);
        assert_eq!(v["cell"], "Chromium 156 on Linux, not isolated");
        // What is kept: the listed fields, the CPUs in a bucket, nothing of the digest's words.
        assert_eq!(v["kept"]["cpus"], "5-8", "{v}");
        assert!(!v.to_string().contains("a shared result"), "{v}");
    }
    for i in 0..2 {
        assert_eq!(add(a.port, sender(3, 10 + i), &firefox).0, 201);
    }
    // One address sends 1 000 runs to a cell already shown: past its rate it waits (429
    // with Retry-After), and what reaches the database counts once.
    let flooder = sender(3, 0);
    let mut statuses = std::collections::BTreeMap::new();
    for _ in 0..1000 {
        *statuses
            .entry(add(a.port, flooder, &chromium).0)
            .or_insert(0) += 1;
    }
    assert_eq!(statuses.get(&201), None, "{statuses:?}");
    assert!(statuses.get(&200).is_some_and(|n| *n >= 50), "{statuses:?}");
    assert!(
        statuses.get(&429).is_some_and(|n| *n >= 800),
        "{statuses:?}"
    );
    let (s, v) = add(a.port, flooder, &chromium);
    assert_eq!(s, 429, "{v}");
    // A new sender's cell: 1 000 runs from one address move it by one.
    let safari = digest("Safari 17", "not isolated", 1_000_000.0);
    let lone = sender(3, 20);
    let firsts: Vec<u16> = (0..1000).map(|_| add(b.port, lone, &safari).0).collect();
    assert_eq!(
        firsts.iter().filter(|s| **s == 201).count(),
        1,
        "{:?}",
        &firsts[..5]
    );
    let count = |s: u16| firsts.iter().filter(|x| **x == s).count();
    eprintln!(
        "one address, 1 000 runs to a new cell: {} counted (201), {} not (200), {} waited (429); \
         to a cell it had counted in: {statuses:?}",
        count(201),
        count(200),
        count(429)
    );
    rolled(&pg);
    let runs = pg
        .psql("SELECT engine || ':' || runs || ':' || senders FROM atlas_cell ORDER BY engine")
        .unwrap();
    assert_eq!(
        runs.split_whitespace().collect::<Vec<_>>(),
        ["Chromium:3:3", "Firefox:2:2", "Safari:1:1"],
        "{runs}"
    );
    // On B: the Chromium cell, and neither of the cells below k, in the JSON, CSV and page.
    let cells = cells_until(b.port, |c| !c.is_empty());
    assert_eq!(cells.len(), 1, "{cells:?}");
    let c = named(&cells, "Chromium 156 on Linux, not isolated").expect("the cell of three");
    assert_eq!(
        (c["senders"].as_i64(), c["runs"].as_i64()),
        (Some(3), Some(3))
    );
    assert_eq!(c["claim_ns"], 100_000.0);
    assert_eq!(c["flag"], Value::Null, "100 µs measured, 100 µs documented");
    let now = c["clocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["clock"] == "performance.now (worker)")
        .unwrap();
    assert_eq!(now["modes_text"], "100 µs 100 %");
    assert_eq!(now["read_median_ns"], 40.0);
    let (s, csv) = request(HERE, b.port, "GET", "/atlas/cells.csv", &[], b"");
    assert_eq!(s, 200);
    assert!(
        csv.starts_with("engine,version,os,isolated,cpu_family,senders,runs,clock"),
        "{csv}"
    );
    assert!(
        csv.contains("Chromium,156,Linux,false,,3,3,performance.now (worker),3,100000,1.0000"),
        "{csv}"
    );
    assert!(!csv.contains("Firefox") && !csv.contains("Safari"), "{csv}");
    let (s, page) = request(HERE, b.port, "GET", "/atlas", &[], b"");
    assert_eq!(s, 200);
    assert!(
        page.contains("Chromium 156 on Linux, not isolated"),
        "the page lacks the cell"
    );
    assert!(
        !page.contains("Firefox 153") && !page.contains("Safari 17"),
        "a cell below k shown"
    );
    // The visitor's own cell, from the link an added run answers with.
    let (_, v) = add(b.port, sender(3, 30), &chromium);
    let link = format!("/{}", v["atlas"].as_str().unwrap());
    let (_, mine) = request(HERE, b.port, "GET", &link, &[], b"");
    assert!(
        mine.contains("like 100 % of Chromium 156 on Linux, not isolated"),
        "{link}"
    );
    assert!(mine.contains("class=\"mine\""), "{link}");
    // A tick no clock has is not said as a figure.
    for tick in ["NaN", "inf", "-5", "0.1"] {
        let odd = link.replace("tick=100000", &format!("tick={tick}"));
        let (s, page) = request(HERE, b.port, "GET", &odd, &[], b"");
        assert_eq!(s, 200, "{odd}");
        assert!(!page.contains("ticked"), "{odd}");
    }
    let (_, v) = add(
        b.port,
        sender(3, 31),
        &digest("Firefox 152", "isolated", 20_000.0),
    );
    let (_, theirs) = request(
        HERE,
        b.port,
        "GET",
        &format!("/{}", v["atlas"].as_str().unwrap()),
        &[],
        b"",
    );
    assert!(
        theirs.contains("not shown yet"),
        "a cell below k said something"
    );
    // Now three Firefox senders: the cell appears on A, flagged for a person when its mode
    // is not the documented figure.
    let odd = digest("Firefox 153", "isolated", 100_000.0);
    assert_eq!(add(a.port, sender(3, 40), &odd).0, 201);
    let cells = cells_until(a.port, |c| c.len() == 2);
    let ff = named(&cells, "Firefox 153 on Linux, isolated").expect("three senders now");
    assert_eq!(ff["senders"], 3);
    assert_eq!(ff["flag"], Value::Null, "20 µs is 67 %");
    for i in 0..6 {
        assert_eq!(add(a.port, sender(3, 50 + i), &odd).0, 201);
    }
    let cells = cells_until(a.port, |c| {
        named(c, "Firefox 153 on Linux, isolated").is_some_and(|f| f["senders"] == 9)
    });
    let ff = named(&cells, "Firefox 153 on Linux, isolated").unwrap();
    assert!(
        ff["flag"]
            .as_str()
            .unwrap()
            .contains("100 µs (78 %), is not the 20 µs documented"),
        "{ff}"
    );
    let (_, page) = request(HERE, a.port, "GET", "/atlas?engine=Firefox", &[], b"");
    assert!(
        page.contains("is not the 20 µs documented") && !page.contains("Chromium 156 on"),
        "filtered page"
    );
    assert!(
        page.contains("<figure class=\"atlas-plot\">")
            && page.contains("Version 153: 100 µs 78 %, 20 µs 22 %."),
        "the plot and its words"
    );
}

/// A closed class's rows, once: each counted for the sender who sent it.
#[test]
fn a_closed_class_adds_each_sender_once() {
    let t = two();
    let c = class(t.a.port, HERE);
    let code = c["code"].as_str().unwrap().to_string();
    let d = digest("Chromium 156", "isolated", 5_000.0);
    // Four students from four addresses, three more behind one router.
    for i in 0..7 {
        let from = sender(4, i.min(4));
        assert_eq!(send(t.b.port, from, &code, &student(i), &d).0, 201);
    }
    let (s, b) = teach(t.a.port, &c, "POST", "/class/atlas", b"");
    assert_eq!(s, 409, "an open class: {b}");
    assert!(b.contains("once it is closed"), "{b}");
    assert_eq!(teach(t.a.port, &c, "POST", "/class/close", b"").0, 200);
    let (s, b) = teach(t.b.port, &c, "POST", "/class/atlas", b"");
    assert_eq!(s, 200, "{b}");
    let v: Value = serde_json::from_str(&b).unwrap();
    assert_eq!(
        (v["counted"].as_i64(), v["not_counted"].as_i64()),
        (Some(5), Some(2)),
        "{v}"
    );
    let (s, b) = teach(t.a.port, &c, "POST", "/class/atlas", b"");
    assert_eq!(s, 409, "{b}");
    assert!(b.contains("already"), "{b}");
    // Another class's key does not add this one.
    let other = class(t.b.port, HERE);
    let mut crossed = c.clone();
    crossed["code"] = other["code"].clone();
    assert_eq!(
        teach(t.a.port, &crossed, "POST", "/class/atlas", b"").0,
        403
    );
    rolled(&t.pg);
    let cells =
        t.pg.psql("SELECT runs || ':' || senders FROM atlas_cell")
            .unwrap();
    assert_eq!(cells.trim(), "5:5");
    // The rows' senders are digests, never addresses.
    let kept =
        t.pg.psql("SELECT string_agg(DISTINCT sender, ' ') FROM run")
            .unwrap();
    assert!(
        !kept.contains("127.") && kept.split_whitespace().all(|s| s.len() == 64),
        "{kept}"
    );
}

/// What the atlas refuses, and with what.
#[test]
fn the_atlas_refuses_what_no_run_sends() {
    let pg = Cluster::start().unwrap();
    let a = start_hub(std::path::Path::new(BIN), &pg.url(), 0, &[]);
    let good = json!({
        "engine": "Firefox", "version": 153, "os": "Linux", "isolated": true, "cpus": "5-8",
        "cpu_family": null,
        "clocks": [{ "clock": "performance.now (worker)", "tick_ns": 20000.0, "read_ns": 30.0,
                     "verdict": "matches the claim" }],
    });
    let with = |f: &dyn Fn(&mut Value)| {
        let mut v = good.clone();
        f(&mut v);
        json!({ "run": v }).to_string()
    };
    let table: Vec<(&str, String, u16, &str)> = vec![
        ("a body of 70 000 bytes", "x".repeat(70_000), 413, "at most"),
        (
            "a body that is not JSON",
            "{\"run\":".into(),
            400,
            "not a run for the atlas",
        ),
        (
            "a field no run has (a user agent)",
            with(&|v| v["ua"] = json!("Mozilla/5.0")),
            400,
            "unknown field",
        ),
        (
            "a tick given as text",
            with(&|v| v["clocks"][0]["tick_ns"] = json!("fast")),
            400,
            "invalid type",
        ),
        (
            "a tick of 0.5 ns",
            with(&|v| v["clocks"][0]["tick_ns"] = json!(0.5)),
            400,
            "1 ns to 10 s",
        ),
        (
            "a tick of 20 s",
            with(&|v| v["clocks"][0]["tick_ns"] = json!(2e10)),
            400,
            "1 ns to 10 s",
        ),
        (
            "a read cost below 0",
            with(&|v| v["clocks"][0]["read_ns"] = json!(-1.0)),
            400,
            "read cost",
        ),
        (
            "an engine no run names",
            with(&|v| v["engine"] = json!("Netscape")),
            400,
            "the engine",
        ),
        (
            "an exact count of CPUs",
            with(&|v| v["cpus"] = json!("12")),
            400,
            "bucket",
        ),
        (
            "a verdict no run gives",
            with(&|v| v["clocks"][0]["verdict"] = json!("<script>")),
            400,
            "the verdict",
        ),
        (
            "a browser's run with a CPU family",
            with(&|v| v["cpu_family"] = json!("AMD EPYC")),
            400,
            "CPU family",
        ),
        (
            "a digest and a run at once",
            format!(
                "{{\"digest\":{},\"run\":{good}}}",
                digest("Firefox 153", "isolated", 2e4)
            ),
            400,
            "either",
        ),
        (
            "a digest whose tick is negative",
            json!({ "digest": digest("Firefox 153", "isolated", -5.0) }).to_string(),
            400,
            "not a finite time",
        ),
    ];
    let mut rows = Vec::new();
    for (what, body, want, why) in table {
        let (s, answer) = request(HERE, a.port, "POST", "/atlas/runs", JSON, body.as_bytes());
        assert_eq!(s, want, "{what}: {answer}");
        assert!(answer.contains(why), "{what}: {answer}");
        rows.push(bad_input_row("atlas", what, &format!("{want}, the reason")));
    }
    // Another site's page making its visitors' browsers add runs: a form's body, or a
    // JSON request its browser says is cross-site.
    let body = json!({ "run": good }).to_string();
    for (what, headers) in [
        (
            "a run from another site's form (text/plain)",
            vec![("Content-Type", "text/plain")],
        ),
        (
            "a run with `Sec-Fetch-Site: cross-site`",
            vec![
                ("Content-Type", "application/json"),
                ("Sec-Fetch-Site", "cross-site"),
            ],
        ),
    ] {
        let (s, answer) = request(
            HERE,
            a.port,
            "POST",
            "/atlas/runs",
            &headers,
            body.as_bytes(),
        );
        assert_eq!(s, 403, "{what}: {answer}");
        assert!(answer.contains("hub's own page"), "{what}: {answer}");
        rows.push(bad_input_row("atlas", what, "403, the reason"));
    }
    let (s, answer) = request(HERE, a.port, "GET", "/atlas?isolated=perhaps", &[], b"");
    assert_eq!(s, 400, "{answer}");
    rows.push(bad_input_row(
        "atlas",
        "a filter that is not a value",
        "400, the reason",
    ));
    // Nothing refused reached the database; the good run does.
    assert_eq!(
        pg.psql("SELECT count(*) FROM atlas_run").unwrap().trim(),
        "0"
    );
    let (s, answer) = request(
        HERE,
        a.port,
        "POST",
        "/atlas/runs",
        JSON,
        json!({ "run": good }).to_string().as_bytes(),
    );
    assert_eq!(s, 201, "{answer}");
    assert_eq!(
        pg.psql("SELECT count(*) FROM atlas_run").unwrap().trim(),
        "1"
    );
    assert_bad_inputs_listed("atlas", &rows);
}

/// `ticklab run --share`: what it sends printed first, counted on the hub; HTTPS spoken.
#[test]
fn ticklab_run_share_prints_what_it_sends_and_is_counted() {
    let pg = Cluster::start().unwrap();
    let a = start_hub(std::path::Path::new(BIN), &pg.url(), 0, &["--atlas-k", "1"]);
    let hub = format!("http://127.0.0.1:{}", a.port);
    let out = std::process::Command::new(BIN)
        .args([
            "run",
            "--clock",
            "CLOCK_MONOTONIC",
            "--no-fit",
            "--share",
            &hub,
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    for said in [
        "engine: native",
        "OS: Linux",
        "logical CPUs: ",
        "CPU family: ",
        "CLOCK_MONOTONIC: tick ",
    ] {
        assert!(err.contains(said), "{said}: {err}");
    }
    assert!(err.contains("atlas: counted in native on Linux"), "{err}");
    let cells = cells_until(a.port, |c| !c.is_empty());
    assert_eq!(cells[0]["engine"], "native");
    assert_eq!(cells[0]["clocks"][0]["clock"], "CLOCK_MONOTONIC");
    // The database's median read cost is the core's, over runs of varied read costs.
    let reads = [12.0, 20.4, 19.6, 35.0, 51.0, 70.0, 900.0, 27.0];
    for (i, r) in reads.iter().enumerate() {
        let mut d = digest("Firefox 150", "isolated", 20_000.0);
        d["clocks"][0]["read_ns"] = json!(r);
        assert_eq!(add(a.port, sender(6, i), &d).0, 201);
    }
    let want = ticklab::atlas::median(
        &reads
            .iter()
            .map(|r| (ticklab::atlas::read_bucket(*r), 1))
            .collect(),
    );
    let cells = cells_until(a.port, |c| {
        named(c, "Firefox 150 on Linux, isolated").is_some_and(|f| f["runs"] == 8)
    });
    let ff = named(&cells, "Firefox 150 on Linux, isolated").unwrap();
    let now = ff["clocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["clock"] == "performance.now (worker)")
        .unwrap();
    assert_eq!(now["read_median_ns"].as_f64(), want, "{ff}");
    assert_eq!(want, Some(27.0));
    // HTTPS is spoken: the hub here speaks plain http, so the handshake fails, said (1).
    let out = std::process::Command::new(BIN)
        .args([
            "run",
            "--clock",
            "CLOCK_MONOTONIC",
            "--no-fit",
            "--share",
            &format!("https://127.0.0.1:{}", a.port),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // rustls's words for an answer that is no TLS record.
    assert!(
        err.contains("cannot reach it") && err.contains("corrupt message"),
        "{err}"
    );
    // URLs that are no hub's: the command's bad-input table (tests/cli/bad_inputs.rs).
}

/// 600 senders (of `range`) add a run each across the instances at `ports`, 8 at a time,
/// each asked again elsewhere when its instance is gone and later when it answers 503:
/// each run's index once acknowledged (201, or 200 for one already counted), and the 503s
/// each poster met.
fn burst_of_runs(
    ports: [u16; 2],
    range: u8,
) -> (
    std::sync::mpsc::Receiver<usize>,
    Vec<std::thread::JoinHandle<usize>>,
) {
    let d = digest("Chromium 156", "isolated", 5_000.0);
    let (tx, rx) = std::sync::mpsc::channel();
    let posters = (0..8)
        .map(|w| {
            let (tx, d) = (tx.clone(), d.clone());
            std::thread::spawn(move || {
                let end = Instant::now() + Duration::from_secs(120);
                let mut unavailable = 0;
                for i in (w..600).step_by(8) {
                    let mut port = ports[i % 2];
                    loop {
                        assert!(Instant::now() < end, "run {i} not acknowledged in time");
                        match add(port, sender(range, i), &d) {
                            (201 | 200, _) => break,
                            (0, _) => port = ports[1],
                            (503, v) => {
                                assert!(v.to_string().contains("ask again"), "{v}");
                                unavailable += 1;
                                std::thread::sleep(Duration::from_millis(200));
                            }
                            (s, v) => panic!("{i}: {s} {v}"),
                        }
                    }
                    let _ = tx.send(i);
                }
                unavailable
            })
        })
        .collect();
    (rx, posters)
}

/// Every run of `acked` (from `range`) is in the database, and once rolled, in its cell.
fn assert_kept(pg: &Cluster, acked: &[usize], range: u8) {
    assert_eq!(acked.len(), 600);
    let list: Vec<String> = acked
        .iter()
        .map(|i| format!("'{}'", sender(range, *i)))
        .collect();
    let lost = pg
        .psql(&format!(
            "SELECT count(*) FROM unnest(ARRAY[{}]::inet[]) a \
             WHERE ticklab_sender(a) NOT IN (SELECT sender FROM atlas_sender)",
            list.join(",")
        ))
        .unwrap();
    assert_eq!(lost.trim(), "0", "acknowledged runs lost");
    rolled(pg);
    assert_eq!(
        pg.psql("SELECT runs FROM atlas_cell").unwrap().trim(),
        "600"
    );
    assert_eq!(
        pg.psql("SELECT count(*) FROM atlas_run").unwrap().trim(),
        "600"
    );
}

/// 600 senders add a run each across both instances; A is killed after 200 are
/// acknowledged; every run acknowledged is in the database.
#[test]
fn a_sigkill_mid_burst_loses_no_acknowledged_run() {
    let t = two();
    let (acks, posters) = burst_of_runs([t.a.port, t.b.port], 5);
    let mut a = t.a;
    let mut acked = Vec::new();
    for i in acks.iter() {
        acked.push(i);
        if acked.len() == 200 {
            a.child.kill().unwrap();
        }
    }
    for p in posters {
        p.join().unwrap();
    }
    let _ = a.child.wait();
    assert_kept(&t.pg, &acked, 5);
}

/// PostgreSQL stopped at once after 100 of 600 runs are acknowledged, started again 2 s
/// later: runs meanwhile are answered 503 with "ask again", none acknowledged is lost, and
/// the queue is rolled into the cells once it is back.
#[test]
fn postgres_stopped_mid_burst_answers_503_and_loses_no_acknowledged_run() {
    let t = two();
    let (acks, posters) = burst_of_runs([t.a.port, t.b.port], 7);
    let mut acked: Vec<usize> = acks.iter().take(100).collect();
    t.pg.crash().unwrap();
    std::thread::sleep(Duration::from_secs(2));
    t.pg.up().unwrap();
    acked.extend(acks.iter());
    let unavailable: usize = posters.into_iter().map(|p| p.join().unwrap()).sum();
    assert!(
        unavailable > 0,
        "no run was answered 503 while the database was down"
    );
    assert_kept(&t.pg, &acked, 7);
    eprintln!("{unavailable} runs answered 503 while PostgreSQL was down; all 600 kept");
}
