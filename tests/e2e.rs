//! End to end: `ticklab serve` refuses hostile requests, and the page, driven over WebDriver
//! in headless Chromium and Firefox, isolated and not, measures the documented ticks and shows
//! this machine's native clocks. Needs the built site (`cargo xtask web`) and the browsers and
//! drivers that `cargo xtask test` installs; without them these tests fail, saying what is
//! missing.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ticklab_browser::{open, serve, wait_done, which, Browser, Guard};

const BIN: &str = env!("CARGO_BIN_EXE_ticklab");

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"))
}

/// A small native report, made by the command under test.
fn native_report(dir: &Path) -> PathBuf {
    let p = dir.join("native.json");
    let ok = Command::new(BIN)
        .args([
            "run",
            "--clock",
            "CLOCK_MONOTONIC",
            "--no-fit",
            "--time",
            "0.05",
            "--save",
        ])
        .arg(&p)
        .output()
        .expect("ticklab runs")
        .status
        .success();
    assert!(ok, "ticklab run --save failed");
    p
}

/// Sends `request` as is (no client normalises the path) and returns the status and head.
fn raw(url: &str, request: &str) -> (u16, String) {
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    let mut s = TcpStream::connect(addr).expect("server up");
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let head = text.split("\r\n\r\n").next().unwrap_or("").to_lowercase();
    (status, head)
}

fn get(url: &str, method: &str, path: &str) -> (u16, String) {
    raw(
        url,
        &format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"),
    )
}

#[test]
fn hostile_requests_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("www/pkg")).unwrap();
    std::fs::write(site.join("index.html"), "<!doctype html><title>t</title>").unwrap();
    std::fs::write(site.join("www/pkg/x.wasm"), b"\0asm\x01\0\0\0").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "secret").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path(), site.join("out")).unwrap();
    let report = native_report(dir.path());
    let (_server, url) = serve(Path::new(BIN), &site, &report, &[]).unwrap();

    // The control: the page, with the headers that isolate it and lock it to its origin.
    let (status, head) = get(&url, "GET", "/");
    assert_eq!(status, 200);
    for h in [
        "cross-origin-opener-policy: same-origin",
        "cross-origin-embedder-policy: require-corp",
        "content-security-policy: default-src 'self'",
        "x-content-type-options: nosniff",
    ] {
        assert!(head.contains(h), "missing {h} in {head}");
    }
    assert!(get(&url, "GET", "/www/pkg/x.wasm")
        .1
        .contains("content-type: application/wasm"));
    assert_eq!(get(&url, "HEAD", "/index.html").0, 200);
    let (status, head) = get(&url, "GET", "/native/report.json");
    assert_eq!(status, 200);
    assert!(head.contains("application/json"));

    let hostile: [(&str, &str, &[u16]); 14] = [
        ("GET", "/../secret.txt", &[400, 404]),
        ("GET", "/%2e%2e/secret.txt", &[400, 404]),
        ("GET", "/%2E%2E%2Fsecret.txt", &[400, 404]),
        ("GET", "/www/..%2f..%2fsecret.txt", &[400, 404]),
        ("GET", "/www/%2e%2e/%2e%2e/secret.txt", &[400, 404]),
        ("GET", "//etc/passwd", &[400, 404]),
        ("GET", "/%2fetc%2fpasswd", &[400, 404]),
        ("GET", "/..%5c..%5csecret.txt", &[400, 404]),
        ("GET", "/out/secret.txt", &[400, 404]),
        ("GET", "/index.html%00.js", &[400, 404]),
        ("POST", "/index.html", &[405]),
        ("PUT", "/evil.html", &[405]),
        ("DELETE", "/index.html", &[405]),
        ("OPTIONS", "/", &[405]),
    ];
    let mut table = String::from("method path -> status\n");
    for (method, path, want) in hostile {
        let (status, _) = get(&url, method, path);
        table.push_str(&format!("{method} {path} -> {status}\n"));
        assert!(
            want.contains(&status),
            "{method} {path}: {status}, want {want:?}"
        );
    }
    eprintln!("{table}");
    assert!(!site.join("evil.html").exists());

    // Without isolation the same page comes without COOP/COEP.
    let (_plain, url) = serve(Path::new(BIN), &site, &report, &["--no-isolation"]).unwrap();
    let (status, head) = get(&url, "GET", "/");
    assert_eq!(status, 200);
    assert!(!head.contains("cross-origin-opener-policy"), "{head}");
    assert!(head.contains("content-security-policy"));
}

fn driver(var: &str, name: &str) -> PathBuf {
    std::env::var_os(var)
        .map(PathBuf::from)
        .or_else(|| which(name))
        .or_else(|| {
            let home = std::env::var_os("CARGO_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
            Some(home.join("bin").join(name)).filter(|p| p.is_file())
        })
        .unwrap_or_else(|| panic!("{name} not found (set {var}); `cargo xtask test` installs it"))
}

struct Run {
    isolated: bool,
    ticks: Vec<(String, Option<f64>)>,
    native_rows: u64,
    errors: Vec<String>,
}

async fn full_run(browser: Browser, driver: &Path, url: &str, shot: &Path) -> Result<Run, String> {
    let s = open(browser, driver, (1280, 2000)).await?;
    let c = &s.client;
    let run = async {
        c.goto(&format!("{url}?run")).await.map_err(|e| e.to_string())?;
        let state = wait_done(c, Duration::from_secs(240)).await?;
        let png = c.screenshot().await.map_err(|e| e.to_string())?;
        std::fs::write(shot, png).map_err(|e| e.to_string())?;
        if state != "done" {
            return Err(format!("the run ended '{state}'"));
        }
        let v = c
            .execute(
                "return {
                  isolated: self.crossOriginIsolated,
                  ticks: [...document.querySelectorAll('#summary tbody tr')]
                    .map(r => [r.dataset.clock, r.dataset.tickNs ? Number(r.dataset.tickNs) : null]),
                  native: document.querySelectorAll('#compare-table tr[data-where=native]').length,
                  errors: self.ticklabErrors || ['no error log'],
                }",
                vec![],
            )
            .await
            .map_err(|e| e.to_string())?;
        let ticks = v["ticks"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|r| (r[0].as_str().unwrap_or("").to_string(), r[1].as_f64()))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Run {
            isolated: v["isolated"].as_bool().unwrap_or(false),
            ticks,
            native_rows: v["native"].as_u64().unwrap_or(0),
            errors: v["errors"]
                .as_array()
                .map(|a| a.iter().map(|e| e.to_string()).collect())
                .unwrap_or_default(),
        })
    }
    .await;
    let _ = c.clone().close().await;
    run
}

#[test]
fn browsers_measure_the_documented_ticks() {
    let site = std::env::var_os("TICKLAB_SITE")
        .map(PathBuf::from)
        .unwrap_or_else(|| target().join("site"));
    assert!(
        site.join("www/pkg/ticklab_www_bg.wasm").is_file(),
        "no built page in {}; run `cargo xtask web` (cargo xtask test does)",
        site.display()
    );
    let drivers = [
        (
            Browser::Chromium,
            driver("CHROMEDRIVER", "chromedriver"),
            5_000.0,
            100_000.0,
        ),
        (
            Browser::Firefox,
            driver("GECKODRIVER", "geckodriver"),
            20_000.0,
            1_000_000.0,
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let report = native_report(dir.path());
    let shots = target().join("e2e");
    std::fs::create_dir_all(&shots).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut summary = String::new();
    for (browser, drv, isolated_ns, plain_ns) in drivers {
        for isolated in [true, false] {
            let extra: &[&str] = if isolated { &[] } else { &["--no-isolation"] };
            let (server, url) = serve(Path::new(BIN), &site, &report, extra).unwrap();
            let mode = if isolated { "isolated" } else { "not-isolated" };
            let shot = shots.join(format!("{browser:?}-{mode}.png").to_lowercase());
            let r = rt
                .block_on(full_run(browser, &drv, &url, &shot))
                .unwrap_or_else(|e| panic!("{browser:?} {mode}: {e}"));
            drop::<Guard>(server);
            let tick = |id: &str| {
                r.ticks
                    .iter()
                    .find(|(c, _)| c == id)
                    .and_then(|t| t.1)
                    .unwrap_or_else(|| {
                        panic!("{browser:?} {mode}: no tick for {id}: {:?}", r.ticks)
                    })
            };
            let now = tick("performance.now");
            let date = tick("Date.now");
            summary.push_str(&format!(
                "{browser:?} {mode}: performance.now {now} ns, Date.now {date} ns, screenshot {}\n",
                shot.display()
            ));
            assert_eq!(r.isolated, isolated, "{browser:?} {mode}");
            assert_eq!(
                now,
                if isolated { isolated_ns } else { plain_ns },
                "{browser:?} {mode}"
            );
            assert_eq!(date, 1e6, "{browser:?} {mode}");
            assert!(
                r.native_rows > 0,
                "{browser:?} {mode}: Compare shows no native clock"
            );
            assert!(
                r.errors.is_empty(),
                "{browser:?} {mode}: page errors {:?}",
                r.errors
            );
        }
    }
    // Printed for the record; the harness shows it with --nocapture.
    eprintln!("{summary}");
}
