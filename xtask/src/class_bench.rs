//! The figures of a class (`ticklab class`, on loopback): runs stored a second, each
//! acknowledged only once on disk; the time from a student's send to the teacher's screen
//! (the teacher's view in headless Chromium, which notes when each run was drawn); and the
//! server's memory holding a class of 500.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use ticklab::report::Figure;
use ticklab_browser::{open, start_class, Browser, ClassServer};

/// The section of BENCHMARKS.md these figures are in.
pub const SECTION: u8 = 8;

/// A page's digest of `clocks` clocks, the size a real run sends.
pub fn digest(clocks: usize) -> Value {
    let clock = |i: usize| {
        json!({
            "cells": [format!("clock {i}"), "100.000 µs, edges jittered", "64.26 ns", "matches the claim"],
            "tick_ns": 100_000.0 + i as f64,
            "read_ns": 64.26,
        })
    };
    json!({
        "from": "a shared result",
        "place": "browser",
        "who": ["Chromium 156", "Linux", "not isolated", "2 logical CPUs"],
        "clocks": (0..clocks).map(clock).collect::<Vec<_>>(),
    })
}

/// POSTs a run and returns the status.
fn post(port: u16, body: &str) -> Result<u16, String> {
    request(Ipv4Addr::LOCALHOST, port, "POST", "/class/runs", body).map(|(s, _)| s)
}

/// One request from `from` (any loopback address) to `port`: the status and the body.
pub fn request(
    from: Ipv4Addr,
    port: u16,
    method: &str,
    path: &str,
    body: &str,
) -> Result<(u16, String), String> {
    let s = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)
        .map_err(|e| e.to_string())?;
    s.bind(&SocketAddr::new(from.into(), 0).into())
        .map_err(|e| e.to_string())?;
    s.connect(&SocketAddr::new(Ipv4Addr::LOCALHOST.into(), port).into())
        .map_err(|e| e.to_string())?;
    let mut s: TcpStream = s.into();
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    write!(
        s,
        "{method} {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .map_err(|e| e.to_string())?;
    let mut out = String::new();
    s.read_to_string(&mut out).map_err(|e| e.to_string())?;
    let status = out
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("no status in {out:?}"))?;
    Ok((
        status,
        out.split_once("\r\n\r\n")
            .map_or("", |(_, b)| b)
            .to_string(),
    ))
}

fn run_body(class: &ClassServer, student: usize, d: &Value) -> String {
    json!({ "code": class.code, "student": format!("bench-student-{student:05}"), "digest": d })
        .to_string()
}

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1e3)
}

/// The value at fraction `q` of sorted `v`.
/// `runs` posts (`post(i)`, its status) from `clients` threads at once, each taking every
/// `clients`th: the rate of those answered 201 and the seconds, or the first failures.
pub fn rate_of(
    runs: usize,
    clients: usize,
    post: impl Fn(usize) -> Result<u16, String> + Sync,
) -> Result<(f64, f64), String> {
    let t = Instant::now();
    let failed: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..clients)
            .map(|w| {
                let post = &post;
                s.spawn(move || {
                    (w..runs)
                        .step_by(clients)
                        .filter_map(|i| match post(i) {
                            Ok(201) => None,
                            other => Some(format!("run {i}: {other:?}")),
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    let secs = t.elapsed().as_secs_f64();
    if !failed.is_empty() {
        return Err(format!(
            "{} runs not stored, as {:?}",
            failed.len(),
            &failed[..failed.len().min(3)]
        ));
    }
    Ok((runs as f64 / secs, secs))
}

pub fn quantile(v: &[f64], q: f64) -> f64 {
    let i = ((v.len() - 1) as f64 * q).round() as usize;
    v[i]
}

/// Every figure of a class, with `bin` (a release `ticklab`) and the teacher's view in
/// Chromium through `chromedriver`; files in `dir`.
pub async fn figures(bin: &Path, chromedriver: &Path, dir: &Path) -> Vec<Figure> {
    let mut out = Vec::new();
    match to_screen(bin, chromedriver, dir).await {
        Ok((median, p95, n)) => {
            out.push(Figure::new(
                SECTION,
                format!("a student's send to the teacher's screen, median of {n}"),
                "≤ 200 ms",
                format!("{median:.0} ms"),
                Some(median <= 200.0),
            ));
            out.push(Figure::new(
                SECTION,
                format!("a student's send to the teacher's screen, 95th percentile of {n}"),
                "(reported)",
                format!("{p95:.0} ms"),
                None,
            ));
        }
        Err(e) => out.push(Figure::new(
            SECTION,
            "a student's send to the teacher's screen",
            "≤ 200 ms",
            format!("not measured: {e}"),
            Some(false),
        )),
    }
    match stored(bin, dir) {
        Ok((rate, ms, rss, (alone, busy))) => {
            out.push(Figure::new(
                SECTION,
                "60 students' posts beside a teacher's 500-row rows.json asked in a loop: \
                 their 99th percentile against the posts alone",
                "≤ 2×",
                format!("{:.2}× ({busy:.1} ms against {alone:.1} ms)", busy / alone),
                Some(busy <= 2.0 * alone),
            ));
            out.push(Figure::new(
                SECTION,
                "runs stored a second, each on disk before its answer (500 students, 20 at a time)",
                "≥ 500 a second",
                format!("{rate:.0} a second (500 in {ms:.0} ms)"),
                Some(rate >= 500.0),
            ));
            out.push(Figure::new(
                SECTION,
                "the class server's resident memory holding a class of 500",
                "(reported)",
                rss.map_or("not on this system".into(), |kb| {
                    format!("{:.1} MB", kb as f64 / 1e3)
                }),
                None,
            ));
        }
        Err(e) => out.push(Figure::new(
            SECTION,
            "runs stored a second",
            "≥ 500 a second",
            format!("not measured: {e}"),
            Some(false),
        )),
    }
    out
}

/// Sixty students send, 100 ms apart; the teacher's page notes when each was drawn.
async fn to_screen(
    bin: &Path,
    chromedriver: &Path,
    dir: &Path,
) -> Result<(f64, f64, usize), String> {
    const N: usize = 60;
    let db = dir.join("class-screen.sqlite");
    let _ = std::fs::remove_file(&db);
    let class = start_class(bin, &db, 0, &["--no-qr", "--new"]);
    let d = digest(20);
    let view = format!(
        "http://127.0.0.1:{}/class.html#key={}",
        class.port, class.key
    );
    let lags = lags_to_screen(
        chromedriver,
        &view,
        N,
        Duration::from_millis(100),
        |i| match post(class.port, &run_body(&class, i, &d))? {
            201 => Ok(format!("bench-student-{i:05}")),
            status => Err(format!("a post got {status}")),
        },
    )
    .await?;
    Ok((quantile(&lags, 0.5), quantile(&lags, 0.95), N))
}

/// The teacher's view at `view` in Chromium; `n` runs sent by `send` (which names the
/// student it sent), `gap` apart; the time from each send to its row on the screen (the
/// page notes when it drew each), in ms, sorted.
pub async fn lags_to_screen(
    chromedriver: &Path,
    view: &str,
    n: usize,
    gap: Duration,
    mut send: impl FnMut(usize) -> Result<String, String>,
) -> Result<Vec<f64>, String> {
    let s = open(Browser::Chromium, chromedriver, (1280, 1000)).await?;
    let c = &s.client;
    let result = async {
        c.goto(view).await.map_err(|e| e.to_string())?;
        let t = Instant::now();
        while c
            .execute("return document.body.dataset.live === 'yes'", vec![])
            .await
            .map_err(|e| e.to_string())?
            != json!(true)
        {
            if t.elapsed() > Duration::from_secs(60) {
                return Err("the teacher's view never went live".into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut sent = Vec::new();
        for i in 0..n {
            let at = now_ms();
            sent.push((send(i)?, at));
            tokio::time::sleep(gap).await;
        }
        let t = Instant::now();
        let shown = loop {
            let v = c
                .execute("return self.ticklabShown", vec![])
                .await
                .map_err(|e| e.to_string())?;
            if v.as_object().is_some_and(|m| m.len() >= n) || t.elapsed() > Duration::from_secs(10)
            {
                break v;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let mut lags: Vec<f64> = sent
            .iter()
            .filter_map(|(id, at)| shown[id].as_f64().map(|s| s - at))
            .collect();
        if lags.len() < n {
            return Err(format!(
                "{} of {n} runs reached the screen in 10 s",
                lags.len()
            ));
        }
        lags.sort_by(f64::total_cmp);
        Ok(lags)
    }
    .await;
    let _ = c.clone().close().await;
    result
}

/// 500 students, 20 posting at once: the rate stored, and the server's resident memory
/// (kB, Linux) after.
/// Runs stored a second, the memory, and the posts' p99 alone and beside reads.
type Stored = (f64, f64, Option<u64>, (f64, f64));

fn stored(bin: &Path, dir: &Path) -> Result<Stored, String> {
    let db = dir.join("class-load.sqlite");
    let _ = std::fs::remove_file(&db);
    let class = start_class(bin, &db, 0, &["--no-qr", "--new"]);
    let d = digest(20);
    let bodies: Vec<String> = (0..500).map(|i| run_body(&class, i, &d)).collect();
    let t = Instant::now();
    let results: Vec<Result<u16, String>> = std::thread::scope(|s| {
        let workers: Vec<_> = bodies
            .chunks(25)
            .map(|chunk| {
                let port = class.port;
                s.spawn(move || chunk.iter().map(|b| post(port, b)).collect::<Vec<_>>())
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    let secs = t.elapsed().as_secs_f64();
    let ok = results.iter().filter(|r| matches!(r, Ok(201))).count();
    if ok != 500 {
        let other: Vec<_> = results
            .iter()
            .filter(|r| !matches!(r, Ok(201)))
            .take(3)
            .collect();
        return Err(format!("{ok} of 500 stored; others {other:?}"));
    }
    let rss = std::fs::read_to_string(format!("/proc/{}/status", class.child.id()))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        });
    let busy = posts_beside_rows(&class, &d);
    Ok((500.0 / secs, secs * 1e3, rss, busy?))
}

/// The 99th percentile of 60 students' posts (resends, 4 at a time) alone, then while a
/// teacher's 500-row `rows.json` is asked in a loop: the store reads off the runtime, so
/// the second is within 2× of the first.
fn posts_beside_rows(class: &ClassServer, d: &Value) -> Result<(f64, f64), String> {
    let port = class.port;
    let p99 = |round: usize| -> Result<f64, String> {
        let mut ms: Vec<f64> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..4)
                .map(|w| {
                    s.spawn(move || {
                        (w..60)
                            .step_by(4)
                            .map(|i| {
                                let body = json!({
                                    "code": class.code,
                                    "student": format!("bench-student-{i:05}"),
                                    "nickname": format!("round {round}"),
                                    "digest": d,
                                })
                                .to_string();
                                // Each round from an address of its own: the 500 stored
                                // before spent most of loopback's share of posts.
                                let from = Ipv4Addr::new(127, 0, 0, 1 + round as u8);
                                let t = Instant::now();
                                match request(from, port, "POST", "/class/runs", &body) {
                                    Ok((201, _)) => Ok(t.elapsed().as_secs_f64() * 1e3),
                                    other => Err(format!("a post: {other:?}")),
                                }
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().unwrap_or_default())
                .collect::<Result<Vec<f64>, String>>()
        })?;
        ms.sort_by(f64::total_cmp);
        Ok(quantile(&ms, 0.99))
    };
    let alone = p99(1)?;
    let reading = std::sync::atomic::AtomicBool::new(true);
    let auth = format!("Bearer {}", class.key);
    let busy = std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let mut n = 0;
            while reading.load(std::sync::atomic::Ordering::Relaxed) {
                if get(port, "/class/rows.json", &auth).is_ok() {
                    n += 1;
                }
            }
            n
        });
        let busy = p99(2);
        reading.store(false, std::sync::atomic::Ordering::Relaxed);
        let reads = reader.join().unwrap_or(0);
        busy.and_then(|b| match reads {
            0 => Err("no rows.json was read meanwhile".to_string()),
            _ => Ok(b),
        })
    })?;
    Ok((alone, busy))
}

/// A GET of `path` with `Authorization: auth`: its status (the body read whole).
fn get(port: u16, path: &str, auth: &str) -> Result<u16, String> {
    let mut s = TcpStream::connect(SocketAddr::new(Ipv4Addr::LOCALHOST.into(), port))
        .map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    write!(
        s,
        "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nAuthorization: {auth}\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out);
    text.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| "no status".to_string())
}
