//! A hub among strangers: thousands of senders served, one IPv6 /64 counted as one, floods
//! of made-up codes that leave readiness and a real class alone, bodies trickled a byte a
//! second closed in time, SIGTERM that refuses or answers 503 but never hangs, and what a
//! hub keeps and says (no key in the database, no host in /readyz, a code drawn again
//! after its class was deleted).

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::common::http::{digest, request, student, HERE};
use super::common::BIN;
use super::{class, ready_within, send, teach, view};
use ticklab_browser::postgres::Cluster;
use ticklab_browser::start_hub;

/// A post of `d` to `code` on `port` as the proxy in front says `client` sent it.
fn forwarded(port: u16, client: &str, code: &str, who: &str, d: &Value) -> u16 {
    let body = json!({ "code": code, "student": who, "digest": d }).to_string();
    request(
        HERE,
        port,
        "POST",
        "/class/runs",
        &[
            ("Content-Type", "application/json"),
            ("X-Forwarded-For", client),
        ],
        body.as_bytes(),
    )
    .0
}

/// Runs `n` jobs on 8 threads; each job's status, in order.
fn on_threads(n: usize, job: impl Fn(usize) -> u16 + Sync) -> Vec<u16> {
    let next = AtomicUsize::new(0);
    let mut out = vec![0; n];
    let parts: Vec<Vec<(usize, u16)>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    let mut got = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break got;
                        }
                        got.push((i, job(i)));
                    }
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (i, s) in parts.into_iter().flatten() {
        out[i] = s;
    }
    out
}

#[test]
fn thousands_of_senders_are_served_and_one_64_is_one_sender() {
    let pg = Cluster::start().unwrap();
    let hub = start_hub(std::path::Path::new(BIN), &pg.url(), 0, &["--trust-proxy"]);
    let classes: Vec<String> = (0..16)
        .map(|_| class(hub.port, HERE)["code"].as_str().unwrap().to_string())
        .collect();
    let d = digest("Chromium 156", "isolated", 5_000.0);
    // 5 000 addresses (students on phone networks), each posting once, within a minute.
    let t0 = Instant::now();
    let got = on_threads(5_000, |i| {
        let client = format!("10.{}.{}.{}", i / 62_500, i / 250 % 250, i % 250 + 1);
        forwarded(hub.port, &client, &classes[i % 16], &student(i), &d)
    });
    let took = t0.elapsed();
    let served = got.iter().filter(|&&s| s == 201).count();
    eprintln!(
        "5 000 senders: {served} served in {:.1} s",
        took.as_secs_f64()
    );
    assert_eq!(served, 5_000, "{:?}", got.iter().find(|&&s| s != 201));
    assert!(took < Duration::from_secs(60), "{took:?}");
    // 10 000 addresses of one /64: one sender, its burst and its refill, no more.
    let t0 = Instant::now();
    let got = on_threads(10_000, |i| {
        let client = format!("2001:db8:1:2:{:x}:{:x}::1", i / 65_536 + 1, i % 65_536);
        forwarded(
            hub.port,
            &client,
            &classes[i % 16],
            &student(10_000 + i),
            &d,
        )
    });
    let took = t0.elapsed().as_secs_f64();
    let served = got.iter().filter(|&&s| s == 201).count();
    let refused = got.iter().filter(|&&s| s == 429).count();
    eprintln!("10 000 addresses of one /64: {served} served, {refused} refused in {took:.1} s");
    // 600 at once, then one every 100 ms.
    assert!(served >= 600, "{served}");
    assert!(
        served as f64 <= 600.0 + took * 10.0 + 1.0,
        "{served} in {took:.1} s"
    );
    assert_eq!(served + refused, 10_000);
    // Another /64 and a new IPv4 address are served meanwhile.
    assert_eq!(
        forwarded(
            hub.port,
            "2001:db8:1:3::1",
            &classes[0],
            &student(90_001),
            &d
        ),
        201
    );
    assert_eq!(
        forwarded(hub.port, "192.0.2.1", &classes[1], &student(90_002), &d),
        201
    );
}

#[test]
fn made_up_codes_and_trickled_bodies_cost_only_their_senders() {
    let pg = Cluster::start().unwrap();
    let bin = std::path::Path::new(BIN);
    let a = start_hub(bin, &pg.url(), 0, &["--trust-proxy"]);
    let b = start_hub(bin, &pg.url(), 0, &[]);
    let c = class(a.port, HERE);
    let code = c["code"].as_str().unwrap().to_string();
    let mut live = view(b.port, &c, None);
    assert_eq!(
        live.recv_timeout(Duration::from_secs(10)).unwrap().kind,
        "class"
    );
    // The last event id the view had, and how often its stream ended: the hub ends a view
    // that may have missed a change, and the page then asks again from that id.
    let (mut last, mut ended) = (0, 0);
    // Readiness asked on both instances all along.
    let flooding = Arc::new(AtomicBool::new(true));
    let unready = Arc::new(AtomicUsize::new(0));
    let watch = {
        let (flooding, unready, ports) = (flooding.clone(), unready.clone(), [a.port, b.port]);
        std::thread::spawn(move || {
            while flooding.load(Ordering::Relaxed) {
                for p in ports {
                    if request(HERE, p, "GET", "/readyz", &[], b"").0 != 200 {
                        unready.fetch_add(1, Ordering::Relaxed);
                    }
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    // 2 000 teachers' streams asked with made-up codes, from one address and from 500.
    let alphabet = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
    let made_up = |i: usize| -> String {
        (0..6)
            .map(|k| alphabet[(i * 7 + k * 13 + i / 31) % 31] as char)
            .collect()
    };
    let flood = std::thread::spawn(move || {
        on_threads(4_000, |i| {
            let client = match i < 2_000 {
                true => "198.51.100.1".to_string(),
                false => format!("198.51.{}.{}", 101 + i % 500 / 250, i % 250 + 1),
            };
            let code = made_up(i);
            request(
                HERE,
                a.port,
                "GET",
                "/class/events",
                &[
                    ("Authorization", "Bearer nothing"),
                    ("X-Ticklab-Class", &code),
                    ("X-Forwarded-For", &client),
                ],
                b"",
            )
            .0
        })
    });
    // Meanwhile the real class's runs reach its teacher's screen on the other instance.
    let d = digest("Chromium 156", "isolated", 5_000.0);
    let mut delays = Vec::new();
    for i in 0..40 {
        let sent = Instant::now();
        let (s, body) = send(a.port, Ipv4Addr::new(127, 0, 0, 9), &code, &student(i), &d);
        assert_eq!(s, 201, "{body}");
        loop {
            let e = match live.recv_timeout(Duration::from_secs(5)) {
                Ok(e) => e,
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) if ended < 3 => {
                    ended += 1;
                    live = view(b.port, &c, Some(last));
                    continue;
                }
                Err(e) => {
                    panic!("a run did not reach the screen: {e} (the stream ended {ended} times)")
                }
            };
            last = e.id.unwrap_or(last);
            if e.kind == "put" {
                delays.push(e.at.duration_since(sent));
                break;
            }
        }
    }
    let statuses = flood.join().unwrap();
    flooding.store(false, Ordering::Relaxed);
    watch.join().unwrap();
    delays.sort();
    let p99 = delays[delays.len() * 99 / 100 - 1];
    let refused = statuses.iter().filter(|&&s| s == 403 || s == 429).count();
    eprintln!(
        "4 000 made-up codes: {refused} refused (403 or 429), readiness failed {} times, \
         send-to-screen p99 {:.0} ms, the view's stream ended {ended} times",
        unready.load(Ordering::Relaxed),
        p99.as_secs_f64() * 1e3
    );
    assert_eq!(
        refused,
        4_000,
        "{:?}",
        statuses.iter().find(|&&s| s != 403 && s != 429)
    );
    assert_eq!(
        unready.load(Ordering::Relaxed),
        0,
        "readiness failed in the flood"
    );
    assert!(p99 <= Duration::from_millis(500), "p99 {p99:?}");

    // 1 000 connections trickling a post's body a byte a second.
    let timeout = Duration::from_secs(30);
    let mut slow: Vec<Option<TcpStream>> = (0..1_000)
        .map(|i| {
            let mut s =
                TcpStream::connect(SocketAddr::from((Ipv4Addr::LOCALHOST, a.port))).unwrap();
            s.set_nonblocking(true).unwrap();
            let head = format!(
                "POST /class/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                 X-Forwarded-For: 203.0.113.{}\r\nContent-Length: 60000\r\n\r\n{{",
                i % 250 + 1
            );
            s.write_all(head.as_bytes()).unwrap();
            Some(s)
        })
        .collect();
    let t0 = Instant::now();
    let mut closed_at = vec![None; slow.len()];
    while closed_at.iter().any(Option::is_none) && t0.elapsed() < timeout + Duration::from_secs(10)
    {
        std::thread::sleep(Duration::from_secs(1));
        for (i, s) in slow.iter_mut().enumerate() {
            let Some(conn) = s else { continue };
            let _ = conn.write_all(b" ");
            let mut buf = [0u8; 512];
            match conn.read(&mut buf) {
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                _ => {
                    closed_at[i] = Some(t0.elapsed());
                    *s = None;
                }
            }
        }
        // The page and a real post are served meanwhile.
        if t0.elapsed() < Duration::from_secs(3) {
            assert_eq!(request(HERE, a.port, "GET", "/", &[], b"").0, 200);
            let (s, body) = send(a.port, Ipv4Addr::new(127, 0, 0, 9), &code, &student(77), &d);
            assert_eq!(s, 201, "{body}");
        }
    }
    let last = closed_at.iter().flatten().max().copied();
    eprintln!("1 000 trickled bodies: the last closed after {last:?}");
    assert!(
        closed_at.iter().all(Option::is_some),
        "a trickled body was never closed"
    );
    assert!(
        last.unwrap() <= timeout + Duration::from_secs(3),
        "{last:?}"
    );
}

#[test]
fn sigterm_refuses_or_answers_503_and_never_hangs() {
    let pg = Cluster::start().unwrap();
    let hub = start_hub(std::path::Path::new(BIN), &pg.url(), 0, &[]);
    assert!(ready_within(hub.port, Duration::from_secs(10)));
    let c = class(hub.port, HERE);
    let code = c["code"].as_str().unwrap().to_string();
    let d = digest("Chromium 156", "isolated", 5_000.0);
    let post = |who: usize| {
        let body = json!({ "code": code, "student": student(who), "digest": d }).to_string();
        format!(
            "POST /class/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    // Connections held alive after one answer each.
    let mut held: Vec<TcpStream> = (0..20)
        .map(|i| {
            let mut s =
                TcpStream::connect(SocketAddr::from((Ipv4Addr::LOCALHOST, hub.port))).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            s.write_all(post(i).as_bytes()).unwrap();
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap();
            assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 201"));
            s
        })
        .collect();
    hub.terminate();
    let t0 = Instant::now();
    let mut answers = Vec::new();
    for (i, s) in held.iter_mut().enumerate() {
        std::thread::sleep(Duration::from_millis(10));
        let _ = s.write_all(post(100 + i).as_bytes());
        let mut buf = [0u8; 4096];
        let said = match s.read(&mut buf) {
            Ok(n) => String::from_utf8_lossy(&buf[..n])
                .lines()
                .next()
                .unwrap_or("")
                .to_string(),
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                "hang".into()
            }
            Err(e) => format!("reset: {e}"),
        };
        answers.push(format!("held: {said}"));
        // A new connection: refused, or answered.
        let said = match TcpStream::connect(SocketAddr::from((Ipv4Addr::LOCALHOST, hub.port))) {
            Err(_) => "refused".to_string(),
            Ok(mut n) => {
                n.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                let _ = n.write_all(post(200 + i).as_bytes());
                let mut buf = [0u8; 4096];
                match n.read(&mut buf) {
                    Ok(0) => "closed unanswered".into(),
                    Ok(k) => String::from_utf8_lossy(&buf[..k])
                        .lines()
                        .next()
                        .unwrap_or("")
                        .to_string(),
                    Err(e) => format!("hang or reset: {e}"),
                }
            }
        };
        answers.push(format!("new: {said}"));
    }
    eprintln!(
        "{:.0} ms after SIGTERM: {answers:#?}",
        t0.elapsed().as_secs_f64() * 1e3
    );
    // A post that reached the server before it saw the signal is taken (201); after it,
    // each gets a 503 or a refused connection, never a hang or a reset.
    for a in &answers {
        assert!(
            a.ends_with("HTTP/1.1 503 Service Unavailable")
                || a.ends_with("HTTP/1.1 201 Created")
                || a == "new: refused",
            "{a}"
        );
    }
    assert!(
        answers
            .iter()
            .any(|a| a == "held: HTTP/1.1 503 Service Unavailable"),
        "no held connection was answered 503: {answers:#?}"
    );
}

#[test]
fn a_hub_keeps_no_key_says_no_host_and_forgets_a_deleted_class() {
    let pg = Cluster::start().unwrap();
    let bin = std::path::Path::new(BIN);
    let a = start_hub(bin, &pg.url(), 0, &[]);
    let b = start_hub(bin, &pg.url(), 0, &[]);
    let c = class(a.port, HERE);
    let (code, key) = (c["code"].as_str().unwrap(), c["key"].as_str().unwrap());
    assert_eq!(teach(b.port, &c, "GET", "/class/rows.json", b"").0, 200);
    // Five sends of one student leave one event of theirs: the log holds what the class
    // holds.
    let d = digest("Chromium 156", "isolated", 5_000.0);
    for _ in 0..5 {
        assert_eq!(send(a.port, HERE, code, &student(1), &d).0, 201);
    }
    let events = pg
        .psql(&format!(
            "SELECT count(*) FROM event e JOIN class c ON c.id = e.class \
             WHERE c.code = '{code}' AND e.student = '{}'",
            student(1)
        ))
        .unwrap();
    assert_eq!(events.trim(), "1", "events of one student");
    let found = pg
        .psql(&format!(
            "SELECT count(*) FROM class WHERE position('{key}' in key) > 0"
        ))
        .unwrap();
    assert_eq!(found.trim(), "0", "the key is in the database");
    // /readyz names nothing of the database, ready or not.
    let (s, body) = request(HERE, b.port, "GET", "/readyz", &[], b"");
    assert_eq!((s, body.trim()), (200, "{\"ready\":true}"));
    pg.crash().unwrap();
    let (s, body) = request(HERE, b.port, "GET", "/readyz", &[], b"");
    assert_eq!((s, body.trim()), (503, "{\"ready\":false}"));
    pg.up().unwrap();
    assert!(ready_within(b.port, Duration::from_secs(30)));
    // The class is deleted and its code drawn again for a new teacher: B, which
    // remembers the old class, lets the new teacher in.
    let new_key = "a-new-teacher-s-key-000000000000";
    pg.psql(&format!(
        "DELETE FROM class WHERE code = '{code}'; \
         INSERT INTO class (code, key) VALUES ('{code}', \
         encode(sha256(convert_to('{new_key}', 'UTF8')), 'hex'))"
    ))
    .unwrap();
    let mut again = c.clone();
    again["key"] = new_key.into();
    let (s, body) = teach(b.port, &again, "GET", "/class/rows.json", b"");
    assert_eq!(s, 200, "{body}");
    assert_eq!(
        teach(b.port, &c, "GET", "/class/rows.json", b"").0,
        403,
        "the old key"
    );
}
