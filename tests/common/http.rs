//! Plain HTTP to a class's server or a hub, as a browser's requests arrive: one request
//! from any loopback address, a student's post, a browser's digest, the teacher's stream
//! of events read as it comes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// One HTTP/1.0 request from `from` (any address of 127.0.0.0/8): the status and the body.
pub fn request(
    from: Ipv4Addr,
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String) {
    let s = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    s.bind(&SocketAddr::new(IpAddr::V4(from), 0).into())
        .unwrap();
    // A server that is gone (killed, in one test) answers nothing: status 0.
    if let Err(e) = s.connect(&SocketAddr::new(Ipv4Addr::LOCALHOST.into(), port).into()) {
        return (0, e.to_string());
    }
    let mut s: TcpStream = s.into();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    // The server may answer and close before an oversized body is all sent.
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(body);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (status, body)
}

pub const HERE: Ipv4Addr = Ipv4Addr::LOCALHOST;

/// A browser's digest: performance.now and Date.now at the tick given, as the page sends it.
pub fn digest(browser: &str, isolation: &str, tick_ns: f64) -> Value {
    json!({
        "from": "a shared result",
        "place": "browser",
        "who": [browser, "Linux", isolation, "8 logical CPUs"],
        "clocks": [
            { "cells": ["performance.now (worker)", format!("{} µs", tick_ns / 1e3), "40 ns", "matches the claim"],
              "tick_ns": tick_ns, "read_ns": 40.0 },
            { "cells": ["Date.now", "1.000 ms", "30 ns", "matches the claim"],
              "tick_ns": 1e6, "read_ns": 30.0 },
        ],
    })
}

pub fn post(
    from: Ipv4Addr,
    port: u16,
    code: &str,
    student: &str,
    nickname: &str,
    d: &Value,
) -> (u16, String) {
    let body = json!({ "code": code, "student": student, "nickname": nickname, "digest": d });
    request(
        from,
        port,
        "POST",
        "/class/runs",
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    )
}

/// One event of the teacher's stream and when it arrived.
#[derive(Debug)]
pub struct Event {
    pub id: Option<i64>,
    pub kind: String,
    pub data: Value,
    pub at: Instant,
}

/// A class's stream of events asked of `port` with `headers` (the teacher's key, and on a
/// hub the class), read on a thread of its own from `last` on; the events come on the
/// channel until the server closes it.
pub fn follow_with(
    port: u16,
    headers: &[(&str, &str)],
    last: Option<i64>,
) -> mpsc::Receiver<Event> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut head = format!("GET /class/events HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(id) = last {
        head.push_str(&format!("Last-Event-ID: {id}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(s);
        let mut line = String::new();
        // The head, up to its blank line.
        loop {
            line.clear();
            if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                break;
            }
        }
        let (mut id, mut kind, mut data) = (None, String::new(), String::new());
        loop {
            line.clear();
            if r.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let l = line.trim_end_matches('\n');
            if l.is_empty() {
                if !data.is_empty() {
                    let e = Event {
                        id,
                        kind: std::mem::take(&mut kind),
                        data: serde_json::from_str(&data).unwrap_or(Value::Null),
                        at: Instant::now(),
                    };
                    if tx.send(e).is_err() {
                        return;
                    }
                }
                (id, data) = (None, String::new());
            } else if let Some(v) = l.strip_prefix("id: ") {
                id = v.parse().ok();
            } else if let Some(v) = l.strip_prefix("event: ") {
                kind = v.to_string();
            } else if let Some(v) = l.strip_prefix("data: ") {
                data.push_str(v);
            }
        }
    });
    rx
}

/// The `put` events that arrive within `limit`, until `n` students are seen.
pub fn puts(rx: &mpsc::Receiver<Event>, n: usize, limit: Duration) -> Vec<Event> {
    let end = Instant::now() + limit;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    while seen.len() < n {
        let Some(left) = end.checked_duration_since(Instant::now()) else {
            break;
        };
        match rx.recv_timeout(left) {
            Ok(e) if e.kind == "put" => {
                seen.insert(e.data["student"].as_str().unwrap_or("").to_string());
                out.push(e);
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    out
}

pub fn student(i: usize) -> String {
    format!("student{i:04}abcdef")
}

/// The hostile posts every class server refuses (each a row of docs/bad-inputs.md): what
/// it is, the body, the status and a word of the reason; otherwise a valid post of
/// `student` to `code` with the digest `chromium`.
pub fn hostile_posts(
    code: &str,
    student: &str,
    chromium: &Value,
) -> Vec<(&'static str, String, u16, &'static str)> {
    let valid = json!({ "code": code, "student": student, "digest": chromium });
    let with = |k: &str, v: Value| {
        let mut b = valid.clone();
        b[k] = v;
        b.to_string()
    };
    let mut huge = chromium.clone();
    huge["who"][3] = json!("x".repeat(70_000));
    let mut wide = chromium.clone();
    wide["clocks"] = json!(vec![chromium["clocks"][0].clone(); 65]);
    let mut nan = chromium.clone();
    nan["clocks"][0]["tick_ns"] = json!(-1.0);
    vec![
        (
            "a body of 70 000 bytes",
            with("digest", huge),
            413,
            "at most 64 KB",
        ),
        (
            "a body that is not JSON",
            "{\"code\":".into(),
            400,
            "not a class post",
        ),
        (
            "a field no post has",
            with("extra", json!(1)),
            400,
            "unknown field",
        ),
        (
            "a wrong join code",
            with("code", json!("ZZZZZZ")),
            403,
            "no class has this code",
        ),
        (
            "a student id of 3 characters",
            with("student", json!("abc")),
            400,
            "8 to 64",
        ),
        (
            "a student id with a slash",
            with("student", json!("../../etc/passwd")),
            400,
            "8 to 64",
        ),
        (
            "a nickname of 41 characters",
            with("nickname", json!("n".repeat(41))),
            400,
            "at most 40",
        ),
        (
            "a nickname with a control character",
            with("nickname", json!("Ann\u{1b}[2J")),
            400,
            "controls",
        ),
        (
            "a digest of the wrong shape",
            with("digest", json!({ "from": 1 })),
            400,
            "not a digest",
        ),
        (
            "a digest of 65 clocks",
            with("digest", wide),
            400,
            "65 clocks",
        ),
        (
            "a digest with a negative tick",
            with("digest", nan),
            400,
            "not a finite time",
        ),
    ]
}
