//! The figures of a hub (`ticklab hub`, release build): two instances on one throwaway
//! PostgreSQL cluster on loopback (its commits synced, as a deployment's are). Durable
//! submissions a second across both; a send on one instance to the teacher's screen on the
//! other (the view in headless Chromium); the memory an open live view costs, and 1 000
//! live views held by one instance, each hearing a run sent to the other.

use std::net::Ipv4Addr;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use ticklab::report::Figure;
use ticklab_browser::postgres::Cluster;
use ticklab_browser::{start_hub, HubServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::class_bench::{digest, lags_to_screen, quantile, rate_of, request};

/// The section of BENCHMARKS.md these figures are in.
pub const SECTION: u8 = 9;

/// Runs sent for the rate, classes they go to, and clients sending at once.
const RUNS: usize = 4000;
const CLASSES: usize = 200;
const CLIENTS: usize = 32;
/// Live views held by one instance.
const VIEWS: usize = 1000;

/// The loopback address a class's school posts from.
fn school(i: usize) -> Ipv4Addr {
    Ipv4Addr::new(127, 3, (i / 250) as u8, (i % 250 + 1) as u8)
}

/// `n` classes made on `port`, thirty an address (the hub's limit an hour).
fn classes(port: u16, n: usize, first_school: usize) -> Result<Vec<Value>, String> {
    (0..n)
        .map(|i| {
            let (s, b) = request(
                school(first_school + i / 30),
                port,
                "POST",
                "/hub/classes",
                "{}",
            )?;
            if s != 201 {
                return Err(format!("a class not made: {s} {b}"));
            }
            serde_json::from_str(&b).map_err(|e| e.to_string())
        })
        .collect()
}

fn post(port: u16, from: Ipv4Addr, code: &str, student: &str, d: &Value) -> Result<u16, String> {
    let body = json!({ "code": code, "student": student, "digest": d }).to_string();
    request(from, port, "POST", "/class/runs", &body).map(|(s, _)| s)
}

fn rss_kb(child: &std::process::Child) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{}/status", child.id()))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

fn figure(name: impl Into<String>, target: &str, measured: String, met: Option<bool>) -> Figure {
    Figure::new(SECTION, name, target, measured, met)
}

/// Every figure of a hub, with `bin` (a release `ticklab`) and the teacher's view in
/// Chromium through `chromedriver`.
pub async fn figures(bin: &Path, chromedriver: &Path) -> Vec<Figure> {
    let setup = || -> Result<(Cluster, HubServer, HubServer), String> {
        let pg = Cluster::start()?;
        let a = start_hub(bin, &pg.url(), 0, &["--pool", "32"]);
        let b = start_hub(bin, &pg.url(), 0, &["--pool", "32"]);
        Ok((pg, a, b))
    };
    let (pg, a, b) = match setup() {
        Ok(t) => t,
        Err(e) => {
            return vec![figure(
                "a hub",
                "",
                format!("not measured: {e}"),
                Some(false),
            )];
        }
    };
    let mut out = Vec::new();
    match rate(&a, &b) {
        Ok((per_s, secs)) => out.push(figure(
            format!("durable submissions a second, two instances on one PostgreSQL ({RUNS} runs to {CLASSES} classes, {CLIENTS} clients, each run committed before its answer)"),
            "≥ 1000 a second",
            format!("{per_s:.0} a second ({RUNS} in {secs:.2} s)"),
            Some(per_s >= 1000.0),
        )),
        Err(e) => out.push(figure("durable submissions a second", "≥ 1000 a second", format!("not measured: {e}"), Some(false))),
    }
    match screen(&a, &b, chromedriver).await {
        Ok(lags) => {
            let (median, p99) = (quantile(&lags, 0.5), quantile(&lags, 0.99));
            out.push(figure(
                format!(
                    "a send on one instance to the teacher's screen on the other, median of {}",
                    lags.len()
                ),
                "≤ 200 ms",
                format!("{median:.0} ms"),
                Some(median <= 200.0),
            ));
            out.push(figure(
                format!("a send on one instance to the teacher's screen on the other, 99th percentile of {}", lags.len()),
                "≤ 500 ms",
                format!("{p99:.0} ms"),
                Some(p99 <= 500.0),
            ));
        }
        Err(e) => out.push(figure(
            "a send on one instance to the teacher's screen on the other",
            "≤ 200 ms",
            format!("not measured: {e}"),
            Some(false),
        )),
    }
    drop(b);
    let c = start_hub(bin, &pg.url(), 0, &[]);
    match views(&a, &c).await {
        Ok(v) => {
            out.push(figure(
                "the memory an open live view costs its instance (resident, 1 000 views)",
                "(reported)",
                v.per_view_kb.map_or("not on this system".into(), |kb| {
                    format!("{kb:.1} KB a view")
                }),
                None,
            ));
            out.push(figure(
                format!(
                    "{VIEWS} open live views held by one instance, each sent a run on the other"
                ),
                &format!("all {VIEWS} hear it"),
                format!(
                    "{} heard it: median {:.0} ms, 99th percentile {:.0} ms after its answer",
                    v.heard, v.median, v.p99
                ),
                Some(v.heard == VIEWS),
            ));
        }
        Err(e) => out.push(figure(
            format!("{VIEWS} open live views held by one instance"),
            &format!("all {VIEWS} hear it"),
            format!("not measured: {e}"),
            Some(false),
        )),
    }
    drop((a, c, pg));
    out
}

/// RUNS runs, to CLASSES classes, from CLIENTS clients at once, each to the instances in
/// turn: the rate, and the seconds.
fn rate(a: &HubServer, b: &HubServer) -> Result<(f64, f64), String> {
    let made = classes(a.port, CLASSES, 0)?;
    let codes: Vec<String> = made
        .iter()
        .map(|c| c["code"].as_str().unwrap_or("").to_string())
        .collect();
    let d = digest(20);
    let ports = [a.port, b.port];
    rate_of(RUNS, CLIENTS, |i| {
        let class = i % CLASSES;
        let student = format!("bench-student-{i:05}");
        post(ports[i % 2], school(class), &codes[class], &student, &d)
    })
}

/// A class made on A, its teacher's view on B; 200 runs sent to A, 50 ms apart.
async fn screen(a: &HubServer, b: &HubServer, chromedriver: &Path) -> Result<Vec<f64>, String> {
    let c = classes(a.port, 1, 200)?.remove(0);
    let (code, key) = (
        c["code"].as_str().unwrap_or(""),
        c["key"].as_str().unwrap_or(""),
    );
    let view = format!(
        "http://127.0.0.1:{}/class.html#class={code}&key={key}",
        b.port
    );
    let d = digest(20);
    lags_to_screen(chromedriver, &view, 200, Duration::from_millis(50), |i| {
        let student = format!("bench-student-{i:05}");
        match post(a.port, school(200), code, &student, &d)? {
            201 => Ok(student),
            status => Err(format!("a post got {status}")),
        }
    })
    .await
}

struct Views {
    per_view_kb: Option<f64>,
    heard: usize,
    median: f64,
    p99: f64,
}

/// VIEWS classes, each with its live view open on `c`; the memory they cost it; then a run
/// sent to each class through `a`, and when each view heard it.
async fn views(a: &HubServer, c: &HubServer) -> Result<Views, String> {
    let made = classes(a.port, VIEWS, 300)?;
    // Settled before the count: the classes made, the instance idle.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = rss_kb(&c.child);
    let heard_from = open_views(c.port, &made).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = rss_kb(&c.child);
    let per_view_kb = before
        .zip(after)
        .map(|(b, a)| (a as f64 - b as f64) / VIEWS as f64);
    // Each view waits for its put, noting when it came.
    let listeners: Vec<_> = heard_from
        .into_iter()
        .map(|mut s| {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 65536];
                let mut got = String::new();
                loop {
                    match tokio::time::timeout(Duration::from_secs(30), s.read(&mut buf)).await {
                        Ok(Ok(n)) if n > 0 => {
                            got.push_str(&String::from_utf8_lossy(&buf[..n]));
                            if got.contains("event: put") {
                                return Some(Instant::now());
                            }
                        }
                        _ => return None,
                    }
                }
            })
        })
        .collect();
    let acked = send_each(a.port, &made).await?;
    let mut lags = Vec::new();
    for (i, l) in listeners.into_iter().enumerate() {
        if let (Ok(Some(heard)), Some(sent)) = (l.await, acked[i]) {
            lags.push(heard.saturating_duration_since(sent).as_secs_f64() * 1e3);
        }
    }
    if lags.is_empty() {
        return Err("no view heard its run".into());
    }
    lags.sort_by(f64::total_cmp);
    Ok(Views {
        per_view_kb,
        heard: lags.len(),
        median: quantile(&lags, 0.5),
        p99: quantile(&lags, 0.99),
    })
}

/// A live view of each class in `made` opened on `port`, each past its first event (where
/// the class stands).
async fn open_views(port: u16, made: &[Value]) -> Result<Vec<tokio::net::TcpStream>, String> {
    let mut streams = Vec::new();
    for m in made {
        let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .map_err(|e| e.to_string())?;
        let head = format!(
            "GET /class/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\nX-Ticklab-Class: {}\r\n\r\n",
            m["key"].as_str().unwrap_or(""),
            m["code"].as_str().unwrap_or("")
        );
        s.write_all(head.as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        streams.push(s);
    }
    // Each view has its first event (where the class stands) before the count.
    let mut heard_from = Vec::new();
    for mut s in streams {
        let mut buf = vec![0u8; 4096];
        let mut got = String::new();
        let t = Instant::now();
        while !got.contains("event: class") {
            if t.elapsed() > Duration::from_secs(20) {
                return Err("a view never opened".into());
            }
            let n = tokio::time::timeout(Duration::from_secs(20), s.read(&mut buf))
                .await
                .map_err(|_| "a view never opened".to_string())?
                .map_err(|e| e.to_string())?;
            if n == 0 {
                return Err(format!("a view was refused: {got}"));
            }
            got.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
        heard_from.push(s);
    }
    Ok(heard_from)
}

/// A run sent to each class in `made` through `port`, 16 at a time: when each was
/// acknowledged (none when it was not).
async fn send_each(port: u16, made: &[Value]) -> Result<Vec<Option<Instant>>, String> {
    let codes: Vec<String> = made
        .iter()
        .map(|m| m["code"].as_str().unwrap_or("").to_string())
        .collect();
    let acked: Vec<Option<Instant>> = tokio::task::spawn_blocking(move || {
        std::thread::scope(|s| {
            let workers: Vec<_> = (0..16)
                .map(|w| {
                    let codes = &codes;
                    s.spawn(move || {
                        let d = digest(20);
                        (w..VIEWS)
                            .step_by(16)
                            .map(|i| {
                                let ok = post(
                                    port,
                                    school(300 + i / 30),
                                    &codes[i],
                                    &format!("view-student-{i:05}"),
                                    &d,
                                );
                                (i, matches!(ok, Ok(201)).then(Instant::now))
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            let mut all = vec![None; VIEWS];
            for w in workers {
                for (i, at) in w.join().unwrap_or_default() {
                    all[i] = at;
                }
            }
            all
        })
    })
    .await
    .map_err(|e| e.to_string())?;
    Ok(acked)
}
