//! End to end in real browsers: the page, driven over WebDriver in headless Chromium and
//! Firefox, isolated and not, against `ticklab serve` and a static host: it measures the
//! documented ticks, answers first, fits a phone, refuses bad input (tables of hostile
//! fields, files and links), serves a class, survives a worker's death and shows this
//! machine's native clocks. Needs the built site (`cargo xtask web`) and the browsers and
//! drivers that `cargo xtask test` installs; without them these tests fail, saying what is
//! missing. The server's own hardening is tests/server.rs.
//!
//! By subject: documented.rs (the documented ticks, a full run in each engine), hostile.rs
//! (bad fields, imports, pastes and links; Cancel), first.rs (the answer first, a phone),
//! class.rs (a class on a static host, sixty big reports, a class live over plain http),
//! death.rs (a worker's death mid-run), engines.rs (`ticklab browsers`). What they share is
//! here, and their browsers: pool.rs lends one session an engine to each test in turn.

#[path = "../common/mod.rs"]
mod common;

mod access;
mod class;
mod death;
mod documented;
mod engines;
mod first;
mod hostile;
mod pool;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ticklab_browser::{
    assert_bad_inputs_listed, bad_input_row, open, open_phone, serve, wait_done, which, Browser,
    Client, Guard, Locator, Session, StaticHost,
};

use common::{native_report, target, BIN};

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

/// The built page (`TICKLAB_SITE`, or target/site), which must be there.
fn built_site() -> PathBuf {
    let site = std::env::var_os("TICKLAB_SITE")
        .map(PathBuf::from)
        .unwrap_or_else(|| target().join("site"));
    assert!(
        site.join("www/pkg/ticklab_www_bg.wasm").is_file(),
        "no built page in {}; run `cargo xtask web` (cargo xtask test does)",
        site.display()
    );
    site
}

/// One browser test at a time: each measures clocks, and two at once share two cores with
/// their browsers' processes (a WebKit worker, starved, read performance.now once in
/// 0.2 s). Held for the whole test.
fn one_browser_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    // A test that failed while holding it leaves nothing to protect.
    ONE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The three engines the page is tested in, each with its driver.
fn engines() -> Vec<(Browser, PathBuf)> {
    vec![
        (Browser::Chromium, driver("CHROMEDRIVER", "chromedriver")),
        (Browser::Firefox, driver("GECKODRIVER", "geckodriver")),
        (Browser::WebKit, driver("WEBKITDRIVER", "WebKitWebDriver")),
    ]
}

/// Each engine, its driver, and the tick it documents for performance.now cross-origin
/// isolated and not.
fn documented() -> Vec<(Browser, PathBuf, f64, f64)> {
    engines()
        .into_iter()
        .map(|(b, d)| {
            let (isolated, plain) = match b {
                Browser::Chromium | Browser::Edge => (5_000.0, 100_000.0),
                Browser::Firefox | Browser::WebKit | Browser::Safari => (20_000.0, 1_000_000.0),
            };
            (b, d, isolated, plain)
        })
        .collect()
}

/// Whether the page's own report says its worker's performance.now had too little to tell:
/// too few edges within the budget, or too busy to tell.
fn worker_too_starved(json: &str) -> bool {
    let v: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
    v["clocks"].as_array().into_iter().flatten().any(|c| {
        c["info"]["name"] == "performance.now (worker)"
            && (c["tick"]["verdict"] == "too_busy"
                || c["tick"]["caveats"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|k| k["caveat"] == "few_edges" || k["caveat"] == "too_busy"))
    })
}

/// What the page shows outside its status lines: a bad import must leave it all as it was.
const SNAPSHOT: &str = "return ['summary', 'compare-table', 'context-list', 'detail-clock']
    .map(id => document.getElementById(id).innerHTML).join('\\n')";

async fn js(c: &ticklab_browser::Client, script: &str) -> Result<serde_json::Value, String> {
    c.execute(script, vec![])
        .await
        .map_err(|e| format!("{script}: {e}"))
}

async fn wait_for(
    c: &ticklab_browser::Client,
    script: &str,
    limit: Duration,
) -> Result<(), String> {
    let t = std::time::Instant::now();
    while !js(c, script).await?.as_bool().unwrap_or(false) {
        if t.elapsed() > limit {
            return Err(format!("still not true after {limit:?}: {script}"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

/// How wide the page is laid out, the screen's width, and the first elements reaching past it.
const WIDEST: &str =
    "return [Math.max(document.documentElement.scrollWidth, innerWidth), screen.width,
    [...document.querySelectorAll('body *')]
      .filter(e => e.getBoundingClientRect().right > screen.width + 1
        || (e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0
            && getComputedStyle(e).overflowX === 'visible'))
      .slice(0, 8).map(e => e.tagName + '#' + e.id + '.' + e.className)]";

/// Waits for the page to be ready for a visitor.
async fn wait_ready(c: &ticklab_browser::Client) -> Result<(), String> {
    wait_for(
        c,
        "return document.body.dataset.state === 'ready'",
        Duration::from_secs(60),
    )
    .await
}

/// A command only a driver has (chromedriver's network conditions, which the benchmark's
/// cold loads set) goes through the WebDriver client; one the driver lacks is refused as a
/// failed command, with the driver's reason.
#[test]
fn a_driver_s_own_command_is_sent_and_an_unknown_one_refused() {
    let _one = one_browser_at_a_time();
    let drv = driver("CHROMEDRIVER", "chromedriver");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let s = open_phone(&drv, (390, 844)).await.unwrap();
        let conditions = serde_json::json!({ "network_conditions": {
            "offline": false, "latency": 150, "download_throughput": 200_000,
            "upload_throughput": 100_000,
        }});
        let ok = s.command("chromium/network_conditions", conditions).await;
        let bad = s
            .command("chromium/no_such_command", serde_json::json!({}))
            .await;
        let _ = s.client.clone().close().await;
        assert!(ok.is_ok(), "{ok:?}");
        assert!(
            matches!(bad, Err(ticklab_browser::DriverError::Command { .. })),
            "{bad:?}"
        );
    });
}
