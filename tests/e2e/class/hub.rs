//! A class on a hub: two instances of `ticklab hub` on a throwaway PostgreSQL cluster; a
//! teacher starts a class from the page in Chromium on instance A; students in Chromium,
//! Firefox and WebKit join through instance B, run and send; the teacher's view shows
//! their three rows without a reload; closed, the class goes to the atlas in one click.

use super::live::a_student;
use super::*;

#[test]
fn a_class_started_on_a_hub_takes_three_engines_through_the_other_instance() {
    let _alone = one_browser_at_a_time();
    let site = built_site();
    let pg = ticklab_browser::postgres::Cluster::start().unwrap();
    let root = ["--root", site.to_str().unwrap()];
    let a = ticklab_browser::start_hub(Path::new(BIN), &pg.url(), 0, &root);
    let b = ticklab_browser::start_hub(Path::new(BIN), &pg.url(), 0, &root);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let chromium = driver("CHROMEDRIVER", "chromedriver");
    rt.block_on(async {
        let t = open(Browser::Chromium, &chromium, (1280, 2400)).await.unwrap();
        let c = &t.client;
        c.goto(&a.url()).await.unwrap();
        wait_for(c, "return document.body.dataset.hub === 'yes'", Duration::from_secs(30))
            .await
            .unwrap_or_else(|e| panic!("the page on a hub offers no class: {e}"));
        js(c, "document.getElementById('hub').scrollIntoView(); return 0").await.unwrap();
        let shot = target().join("e2e").join("hub-start.png");
        std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
        std::fs::write(&shot, c.screenshot().await.unwrap()).unwrap();
        let terms = js(c, "return document.getElementById('hub-terms').textContent").await.unwrap();
        assert!(terms.as_str().unwrap().contains("deleted 30 days after it closes"), "{terms}");
        js(c, "document.getElementById('hub-start').click(); return 0").await.unwrap();
        wait_for(
            c,
            "return location.pathname.endsWith('/class.html') && document.body.dataset.live === 'yes'",
            Duration::from_secs(30),
        )
        .await
        .unwrap_or_else(|e| panic!("the teacher's view of the new class: {e}"));
        let v = js(
            c,
            "return [document.getElementById('join-url').textContent,
                     JSON.parse(localStorage.getItem('ticklab-hub-classes'))[0].code,
                     location.hash, document.getElementById('hub-note').textContent]",
        )
        .await
        .unwrap();
        let join = v[0].as_str().unwrap().to_string();
        let code = v[1].as_str().unwrap().to_string();
        assert_eq!(join, format!("http://127.0.0.1:{}/?class={code}", a.port));
        assert!(v[2].as_str().unwrap().starts_with(&format!("#class={code}&key=")), "{v}");
        assert!(v[3].as_str().unwrap().contains("24 hours"), "{v}");
        // Through the other instance: the load balancer may send a student anywhere.
        let through_b = format!("{}?class={code}", b.url());
        let mut summary = String::new();
        for (i, (browser, drv, isolated, _)) in documented().into_iter().enumerate() {
            let s = a_student(browser, &drv, None, &through_b, &format!("{browser:?}"))
                .await
                .unwrap_or_else(|e| panic!("{browser:?} student: {e}"));
            summary.push_str(&format!("{browser:?}: {}\n", s.sent));
            assert!(s.sent.starts_with("sent: Arrived"), "{browser:?}: {}", s.sent);
            // Reached at a secure origin, a hub's page is cross-origin isolated: the finer
            // figures.
            assert!(s.secure && s.isolated, "{browser:?}: secure {} isolated {}", s.secure, s.isolated);
            assert!(s.errors.is_empty(), "{browser:?}: {:?}", s.errors);
            let d: serde_json::Value = serde_json::from_str(&s.report).unwrap();
            let now = d["clocks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|k| k["info"]["name"] == ticklab::digest::PAGE_NOW)
                .and_then(|k| k["tick"]["tick_ns"].as_f64());
            summary.push_str(&format!("  performance.now {now:?} ns (documented {isolated})\n"));
            wait_for(c, &format!("return document.body.dataset.rows === '{}'", i + 1), Duration::from_secs(10))
                .await
                .unwrap_or_else(|e| panic!("the teacher's view after {browser:?}: {e}"));
        }
        wait_for(c, "return document.body.dataset.plotted === '3'", Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("the class's plot: {e}"));
        // Closed, the class goes to the atlas with one click, each run for its own sender
        // (all three came from this machine's one address: one counted a cell a day).
        let offered = js(c, "return [document.getElementById('atlas-class').hidden, document.getElementById('atlas-class').disabled]").await.unwrap();
        assert_eq!(offered, serde_json::json!([false, true]), "offered on a hub, once closed");
        js(c, "document.getElementById('close-class').click(); return 0").await.unwrap();
        wait_for(c, "return !document.getElementById('atlas-class').disabled", Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("the class closed: {e}"));
        js(c, "document.getElementById('atlas-class').click(); return 0").await.unwrap();
        wait_for(c, "return document.body.dataset.atlas === 'added'", Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("the class added to the atlas: {e}"));
        let added = js(c, "return document.getElementById('atlas-class-status').textContent").await.unwrap();
        summary.push_str(&format!("{}\n", added.as_str().unwrap_or_default()));
        assert!(added.as_str().unwrap_or_default().starts_with("Added to the atlas: 3 runs counted, 0 not"), "{added}");
        let errors = js(c, "return self.ticklabErrors").await.unwrap();
        assert_eq!(errors, serde_json::json!([]), "the teacher's page");
        let png = c.screenshot().await.unwrap();
        let shot = target().join("e2e").join("hub-teacher.png");
        std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
        std::fs::write(&shot, png).unwrap();
        eprintln!("{summary}teacher on A, students through B; screenshot {}", shot.display());
        let _ = c.clone().close().await;
    });
    drop((a, b, pg));
}

/// A TCP proxy in front of `port` that can stop forwarding without closing anything (a
/// proxy or a network that goes silent), and go on.
struct Silencer {
    port: u16,
    silent: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Silencer {
    fn start(to: u16) -> Self {
        use std::io::{Read, Write};
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let silent = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let quiet = silent.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                let Ok(server) = std::net::TcpStream::connect(("127.0.0.1", to)) else {
                    continue;
                };
                for (mut from, mut to) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ] {
                    let quiet = quiet.clone();
                    std::thread::spawn(move || {
                        let mut buf = [0u8; 16384];
                        while let Ok(n) = from.read(&mut buf) {
                            if n == 0 {
                                break;
                            }
                            // Held, not dropped, while silent: it flows again after.
                            while quiet.load(Ordering::Relaxed) {
                                std::thread::sleep(Duration::from_millis(50));
                            }
                            if to.write_all(&buf[..n]).is_err() {
                                break;
                            }
                        }
                        let _ = to.shutdown(std::net::Shutdown::Write);
                    });
                }
            }
        });
        Silencer { port, silent }
    }

    fn silence(&self, on: bool) {
        self.silent.store(on, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The teacher's view keyed on the student's id: 500 students without nicknames (whose
/// names, "a student · " and four characters of their id, often match) are 500 rows; a
/// proxy that stops forwarding without closing is seen ("reconnecting") within 35 s, and
/// the view catches up (a resend under a new nickname replaces its own row) when it
/// forwards again.
#[test]
fn five_hundred_without_nicknames_are_five_hundred_rows_and_a_silent_stream_is_seen() {
    let _alone = one_browser_at_a_time();
    let site = built_site();
    let pg = ticklab_browser::postgres::Cluster::start().unwrap();
    let a = ticklab_browser::start_hub(
        Path::new(BIN),
        &pg.url(),
        0,
        &["--root", site.to_str().unwrap()],
    );
    let here = std::net::Ipv4Addr::LOCALHOST;
    let json = [("Content-Type", "application/json")];
    let (s, made) = common::http::request(here, a.port, "POST", "/hub/classes", &json, b"{}");
    assert_eq!(s, 201, "{made}");
    let made: serde_json::Value = serde_json::from_str(&made).unwrap();
    let code = made["code"].as_str().unwrap().to_string();
    let proxy = Silencer::start(a.port);
    let d = common::http::digest("Chromium 156", "isolated", 5_000.0);
    let post = |i: usize, nickname: &str| {
        let body = serde_json::json!({
            "code": code, "student": common::http::student(i), "nickname": nickname, "digest": d,
        });
        common::http::request(
            here,
            a.port,
            "POST",
            "/class/runs",
            &json,
            body.to_string().as_bytes(),
        )
        .0
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let chromium = driver("CHROMEDRIVER", "chromedriver");
    rt.block_on(async {
        let t = open(Browser::Chromium, &chromium, (1280, 1600)).await.unwrap();
        let c = &t.client;
        c.goto(&format!("http://127.0.0.1:{}/{}", proxy.port, made["teacher"].as_str().unwrap()))
            .await
            .unwrap();
        wait_for(c, "return document.body.dataset.live === 'yes'", Duration::from_secs(30))
            .await
            .unwrap_or_else(|e| panic!("the teacher's view: {e}"));
        let statuses: Vec<u16> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|k| s.spawn(move || (k..500).step_by(4).map(|i| post(i, "")).collect::<Vec<_>>()))
                .collect();
            hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        assert!(statuses.iter().all(|&s| s == 201), "{statuses:?}");
        wait_for(c, "return document.body.dataset.rows === '500'", Duration::from_secs(60))
            .await
            .unwrap_or_else(|e| panic!("500 rows on the teacher's screen: {e}"));
        let shown = js(
            c,
            &format!(
                "const b = document.querySelector('tbody[data-clock=\"{}\"]');
                 const more = b.querySelector('button'); if (more) more.click();
                 const again = document.querySelector('tbody[data-clock=\"{}\"]');
                 const names = [...again.querySelectorAll('tr[data-where]')].map((r) => r.cells[0].textContent);
                 return [names.length, new Set(names).size]",
                ticklab::digest::PAGE_NOW,
                ticklab::digest::PAGE_NOW
            ),
        )
        .await
        .unwrap();
        assert_eq!(shown, serde_json::json!([500, 500]), "rows in the matrix, and distinct names");
        // Silence: the view says so within twice the keep-alive and a little.
        proxy.silence(true);
        let silenced = std::time::Instant::now();
        assert_eq!(post(7, "Resent"), 201);
        wait_for(c, "return document.body.dataset.live === 'reconnecting'", Duration::from_secs(35))
            .await
            .unwrap_or_else(|e| panic!("a silent stream not seen within 35 s: {e}"));
        let seen = silenced.elapsed();
        proxy.silence(false);
        wait_for(
            c,
            "return document.body.dataset.live === 'yes' && document.body.dataset.rows === '500'
               && [...document.querySelectorAll('#who-list .name')].some((n) => n.textContent.startsWith('Resent'))",
            Duration::from_secs(30),
        )
        .await
        .unwrap_or_else(|e| panic!("the view did not catch up: {e}"));
        eprintln!("500 rows, 500 names; silence seen after {:.1} s, caught up", seen.as_secs_f64());
        let errors = js(c, "return self.ticklabErrors").await.unwrap();
        assert_eq!(errors, serde_json::json!([]), "the teacher's page");
        let _ = c.clone().close().await;
    });
    drop((a, pg));
}
