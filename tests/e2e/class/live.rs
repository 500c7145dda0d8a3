//! A class live over plain http: a teacher's server, students in three engines, the
//! teacher's view and the command reading the same rows.

use super::*;

/// What a student's page said over plain http: its context, the headline's and the
/// AudioWorklet's reasons, the send, and its report.
pub(super) struct Student {
    pub secure: bool,
    pub isolated: bool,
    pub headline: String,
    pub worklet: String,
    pub sent: String,
    pub errors: Vec<String>,
    /// The page's report, exported after the send.
    pub report: String,
}

/// `GET path` from the class server on loopback as its teacher: the head and the body.
fn get(port: u16, path: &str, key: &str) -> (String, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.0\r\nAuthorization: Bearer {key}\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let (h, b) = out.split_once("\r\n\r\n").unwrap();
    (h.to_string(), b.to_string())
}

/// The Compare matrix's CSV rows without the report's name (which says where a row came
/// from, not what it holds), sorted.
fn matrix_rows(csv: &str) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let heads: Vec<&str> = ["clock"]
        .into_iter()
        .chain(ticklab::digest::MATRIX_COLUMNS)
        .collect();
    assert_eq!(r.headers().unwrap().iter().collect::<Vec<_>>(), heads);
    let mut rows: Vec<Vec<String>> = r
        .records()
        .map(|row| {
            let row = row.unwrap();
            row.iter()
                .enumerate()
                .filter(|(i, _)| *i != 1)
                .map(|(_, c)| c.to_string())
                .collect()
        })
        .collect();
    rows.sort();
    rows
}

/// One student: the join URL (by `name` mapped to 127.0.0.1:`port`, which is not
/// localhost, when given), a run, and its send.
pub(super) async fn a_student(
    browser: Browser,
    driver: &Path,
    name: Option<(&str, u16)>,
    join: &str,
    nickname: &str,
) -> Result<Student, String> {
    let s = match name {
        Some((name, port)) => {
            ticklab_browser::open_named(browser, driver, (1280, 1000), name, port).await?
        }
        None => ticklab_browser::open(browser, driver, (1280, 1000)).await?,
    };
    let c = &s.client;
    let out = async {
        c.goto(join).await.map_err(|e| e.to_string())?;
        wait_ready(c).await?;
        // A worker starved of its tick budget says so in its own report: run again (the
        // send replaces the row), twice at most.
        let mut report = String::new();
        for _ in 0..3 {
            js(
                c,
                &format!(
                    "document.getElementById('class-nickname').value = {};
                     delete document.body.dataset.class;
                     document.getElementById('run').click(); return 0",
                    serde_json::json!(nickname)
                ),
            )
            .await?;
            let state = wait_done(c, Duration::from_secs(240)).await?;
            if state != "done" {
                return Err(format!("the run ended '{state}'"));
            }
            wait_for(
                c,
                "return ['sent', 'refused', 'failed'].includes(document.body.dataset.class)",
                Duration::from_secs(30),
            )
            .await?;
            let json = js(c, "return self.ticklabExportJson()").await?;
            report = json.as_str().unwrap_or_default().to_string();
            if !worker_too_starved(&report) {
                break;
            }
        }
        let v = js(
            c,
            "const w = document.querySelector(\"#clock-choice input[data-run='audio-worklet.currentFrame']\");
             return [self.isSecureContext, self.crossOriginIsolated,
                     document.getElementById('headline-isolation').textContent,
                     w ? w.closest('tr').textContent : 'no AudioWorklet row',
                     document.body.dataset.class + ': ' + document.getElementById('class-status').textContent,
                     self.ticklabErrors]",
        )
        .await?;
        Ok(Student {
            secure: v[0].as_bool().unwrap_or(true),
            isolated: v[1].as_bool().unwrap_or(true),
            headline: v[2].as_str().unwrap_or_default().to_string(),
            worklet: v[3].as_str().unwrap_or_default().to_string(),
            sent: v[4].as_str().unwrap_or_default().to_string(),
            errors: v[5]
                .as_array()
                .map(|a| a.iter().map(|e| e.to_string()).collect())
                .unwrap_or_default(),
            report,
        })
    }
    .await;
    let _ = c.clone().close().await;
    out
}

/// A class, live: students in Chromium, Firefox and WebKit reach `ticklab class` by a name
/// that is not localhost, so their page is no secure context (never isolated, no
/// AudioWorklet, and it says why), run and send; the teacher's view, open in Chromium on
/// localhost all along, shows their three rows with the plain-http ticks (100 µs, 1 ms,
/// 1 ms) without a reload, a hostile nickname as text.
#[test]
fn a_class_live_from_three_engines_over_plain_http() {
    let _alone = one_browser_at_a_time();
    let site = built_site();
    let dir = tempfile::tempdir().unwrap();
    let mut class = ticklab_browser::start_class(
        Path::new(BIN),
        &dir.path().join("class.sqlite"),
        0,
        &["--no-qr", "--root", site.to_str().unwrap()],
    );
    const NAME: &str = "ticklab-class.test";
    let join = format!("http://{NAME}:{}/?class={}", class.port, class.code);
    // Made HTML, it would raise an alert, which every later WebDriver call would fail on.
    let hostile = "<img src=x onerror=alert(1)>";
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let chromium = driver("CHROMEDRIVER", "chromedriver");
    rt.block_on(async {
        // A projector's width; tall enough that the screenshot holds the whole view.
        let t = open(Browser::Chromium, &chromium, (1280, 2400)).await.unwrap();
        let c = &t.client;
        c.goto(&format!("http://127.0.0.1:{}/class.html#key={}", class.port, class.key))
            .await
            .unwrap();
        wait_for(c, "return document.body.dataset.live === 'yes'", Duration::from_secs(60))
            .await
            .unwrap_or_else(|e| panic!("the teacher's view: {e}"));
        let mut summary = String::new();
        let mut exported = Vec::new();
        for (i, (browser, drv, _, _)) in documented().into_iter().enumerate() {
            let nickname = if browser == Browser::WebKit { hostile.to_string() } else { format!("{browser:?}") };
            let s = a_student(browser, &drv, Some((NAME, class.port)), &join, &nickname)
                .await
                .unwrap_or_else(|e| panic!("{browser:?} student: {e}"));
            summary.push_str(&format!("{browser:?}: {}\n  {}\n  {}\n", s.sent, s.headline, s.worklet));
            assert!(!s.secure && !s.isolated, "{browser:?}: secure {} isolated {}", s.secure, s.isolated);
            assert!(s.sent.starts_with("sent: Arrived"), "{browser:?}: {}", s.sent);
            assert!(s.headline.contains("not a secure context"), "{browser:?}: {}", s.headline);
            assert!(
                s.worklet.contains("secure context") && !s.worklet.contains("has no AudioWorklet"),
                "{browser:?}: {}",
                s.worklet
            );
            assert!(s.errors.is_empty(), "{browser:?}: {:?}", s.errors);
            let file = dir.path().join(format!("{browser:?}.json"));
            std::fs::write(&file, &s.report).unwrap();
            exported.push(file);
            // The teacher's view has the row without a reload.
            wait_for(c, &format!("return document.body.dataset.rows === '{}'", i + 1), Duration::from_secs(10))
                .await
                .unwrap_or_else(|e| panic!("the teacher's view after {browser:?}: {e}"));
        }
        // The rows, as the teacher's page shows them: the page's performance.now, one row
        // a student, at each engine's plain-http tick.
        wait_for(
            c,
            "return document.querySelectorAll(\"#compare-table tbody[data-clock='performance.now (worker)'] tr:not(.group)\").length === 3",
            Duration::from_secs(10),
        )
        .await
        .unwrap();
        let v = js(
            c,
            "return [[...document.querySelectorAll(\"#compare-table tbody[data-clock='performance.now (worker)'] tr:not(.group)\")]
                       .map(r => [...r.children].map(td => td.textContent)),
                     document.querySelectorAll('#who-list img, #compare-table img').length,
                     document.getElementById('who-list').textContent,
                     document.title, self.ticklabErrors, document.getElementById('class-summary').textContent]",
        )
        .await
        .unwrap();
        let (_, json) = get(class.port, "/class/rows.json", &class.key);
        let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
        // The page's digests, as the class server keeps and exports them, give the rows the
        // command reads from the same reports exported: every cell but the report's name.
        let (_, csv) = get(class.port, "/class/rows.csv", &class.key);
        let shown = Command::new(BIN).args(["show", "--matrix"]).args(&exported).output().unwrap();
        assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
        let (teacher, command) = (matrix_rows(&csv), matrix_rows(&String::from_utf8_lossy(&shown.stdout)));
        assert_eq!(teacher.len(), command.len(), "{csv}");
        assert!(teacher.iter().any(|r| r[0] == ticklab::digest::PAGE_NOW), "{csv}");
        assert_eq!(teacher, command, "the teacher's rows, then the command's");
        wait_for(c, "return document.body.dataset.plotted === '3'", Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("the class's plot: {e}"));
        let png = c.screenshot().await.unwrap();
        let shot = target().join("e2e").join("class-teacher.png");
        std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
        std::fs::write(&shot, png).unwrap();
        eprintln!("{summary}teacher: {} {}\n  screenshot {}", v[5], v[0], shot.display());
        for (browser, _, _, plain) in documented() {
            let engine = match browser {
                Browser::Chromium => "Chromium",
                Browser::Firefox => "Firefox",
                Browser::WebKit | Browser::Safari => "Safari",
                Browser::Edge => "Edge",
            };
            let row = rows["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["digest"]["who"][0].as_str().unwrap_or("").starts_with(engine))
                .unwrap_or_else(|| panic!("no row of {engine}: {rows}"));
            let tick = row["digest"]["clocks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|k| k["cells"][0] == ticklab::digest::PAGE_NOW)
                .and_then(|k| k["tick_ns"].as_f64());
            assert_eq!(tick, Some(plain), "{engine}: {row}");
            assert_eq!(row["digest"]["who"][2], "not isolated", "{engine}");
            // On the teacher's page: the same row, its tick in the lab's words.
            let shown = v[0]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r[1].as_str().unwrap_or("").starts_with(engine))
                .unwrap_or_else(|| panic!("the teacher's page has no {engine} row: {}", v[0]));
            let cells = row["digest"]["clocks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|k| k["cells"][0] == ticklab::digest::PAGE_NOW)
                .unwrap()["cells"]
                .clone();
            assert_eq!(shown[5], cells[1], "{engine}: the tick on the teacher's page");
        }
        // A hostile nickname stays text, on the list and in the matrix.
        assert_eq!(v[1], 0, "an element made of a nickname");
        assert!(v[2].as_str().unwrap().contains(hostile), "{}", v[2]);
        assert_eq!(v[4], serde_json::json!([]), "the teacher's page: {}", v[4]);

        // The server killed (SIGKILL) and started again on the same file and port: the
        // teacher's page, never reloaded, reconnects and catches up on a run posted while
        // it was away, whose browser and clock are hostile text.
        class.child.kill().unwrap();
        let _ = class.child.wait();
        let again = ticklab_browser::start_class(
            Path::new(BIN),
            &dir.path().join("class.sqlite"),
            class.port,
            &["--no-qr", "--root", site.to_str().unwrap()],
        );
        assert_eq!((&again.code, &again.key), (&class.code, &class.key));
        let evil = "<img src=x onerror=alert(2)>";
        let d = serde_json::json!({
            "from": "x", "place": "browser",
            "who": [evil, evil, "not isolated", evil],
            "clocks": [{ "cells": [evil, "1.000 ms", "1 ns", evil], "tick_ns": 1e6, "read_ns": 1.0 }],
        });
        let body = serde_json::json!({ "code": again.code, "student": "a-student-from-a-script", "nickname": "", "digest": d })
            .to_string();
        let status = {
            use std::io::{Read, Write};
            let mut s = std::net::TcpStream::connect(("127.0.0.1", again.port)).unwrap();
            write!(
                s,
                "POST /class/runs HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
            let mut out = String::new();
            s.read_to_string(&mut out).unwrap();
            out
        };
        assert!(status.starts_with("HTTP/1.0 201"), "{status}");
        wait_for(c, "return document.body.dataset.rows === '4' && document.body.dataset.live === 'yes'", Duration::from_secs(20))
            .await
            .unwrap_or_else(|e| panic!("the teacher's view after the server came back: {e}"));
        let v = js(
            c,
            "return [document.querySelectorAll('img:not(#join-qr):not(#class-plot)').length,
                     document.getElementById('compare-table').textContent.includes('<img src=x onerror=alert(2)>'),
                     self.ticklabErrors]",
        )
        .await
        .unwrap();
        assert_eq!(v[0], 0, "an element made of a posted digest");
        assert_eq!(v[1], true, "the hostile digest's text on the teacher's page");
        assert_eq!(v[2], serde_json::json!([]), "the teacher's page: {}", v[2]);
        drop(again);
        let _ = c.clone().close().await;
    });
}
