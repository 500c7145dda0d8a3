//! `cargo xtask screenshot`: the page after a full run in headless Chromium, for the README.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder};
use serde_json::json;

/// Where the README's picture lives.
pub const SCREENSHOT: &str = "docs/screenshot.png";

/// Chromium's flags for a headless run as any user, root included, on a closed network.
pub const CHROMIUM_ARGS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--autoplay-policy=no-user-gesture-required",
];

/// A child process killed when dropped, so no server outlives the command.
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `ticklab serve` on a free port and returns it with the URL it printed.
pub fn serve(
    bin: &Path,
    site: &Path,
    report: &Path,
    extra: &[&str],
) -> Result<(Guard, String), String> {
    let mut child = Command::new(bin)
        .arg("serve")
        .arg("--root")
        .arg(site)
        .arg("--report")
        .arg(report)
        .args(["--port", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let out = child.stdout.take().ok_or("no stdout from ticklab serve")?;
    let guard = Guard(child);
    let mut line = String::new();
    BufReader::new(out)
        .read_line(&mut line)
        .map_err(|e| format!("ticklab serve: {e}"))?;
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .ok_or_else(|| format!("ticklab serve printed no URL: {line:?}"))?
        .to_string();
    Ok((guard, url))
}

/// A port nothing listens on just now.
pub fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// Connects to a WebDriver server that may still be starting.
pub async fn connect(port: u16, caps: serde_json::Value) -> Result<Client, String> {
    let caps = match caps {
        serde_json::Value::Object(m) => m,
        _ => return Err("capabilities must be an object".into()),
    };
    let started = Instant::now();
    loop {
        let c = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await;
        match c {
            Ok(c) => return Ok(c),
            Err(e) if started.elapsed() > Duration::from_secs(30) => {
                return Err(format!("no WebDriver session on port {port}: {e}"))
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// Waits, up to `limit`, for the page's `data-state` to leave "loading" and "running".
pub async fn wait_done(c: &Client, limit: Duration) -> Result<String, String> {
    let started = Instant::now();
    loop {
        let v = c
            .execute("return document.body.dataset.state", vec![])
            .await
            .map_err(|e| format!("reading the page's state: {e}"))?;
        let s = v.as_str().unwrap_or("").to_string();
        if !matches!(s.as_str(), "" | "loading" | "ready" | "running") {
            return Ok(s);
        }
        if started.elapsed() > limit {
            return Err(format!(
                "the page was still '{s}' after {} s",
                limit.as_secs()
            ));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

pub fn run() -> Result<(), String> {
    crate::web::build()?;
    let (bin, report) = crate::lab::measure()?;
    let drivers = crate::browsers::ensure()?;
    let root = crate::workspace_root();
    let site = crate::web::target_dir(&root).join("site");
    let (_server, url) = serve(&bin, &site, &report, &[])?;
    let port = free_port()?;
    let _driver = Guard(
        Command::new(&drivers.chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start chromedriver: {e}"))?,
    );
    let chromium = crate::browsers::which("chromium")
        .or_else(|| crate::browsers::which("chromium-browser"))
        .ok_or("no chromium on PATH")?;
    let profile = std::env::temp_dir().join(format!("ticklab-shot-{}", std::process::id()));
    let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|s| s.to_string()).collect();
    args.push("--window-size=1280,3900".into());
    args.push(format!("--user-data-dir={}", profile.display()));
    let caps = json!({
        "browserName": "chrome",
        "goog:chromeOptions": { "binary": chromium, "args": args },
    });
    let out = root.join(SCREENSHOT);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let result = rt.block_on(async {
        let c = connect(port, caps).await?;
        let shot = async {
            c.goto(&format!("{url}?run"))
                .await
                .map_err(|e| format!("opening {url}: {e}"))?;
            let state = wait_done(&c, Duration::from_secs(180)).await?;
            if state != "done" {
                return Err(format!("the run ended '{state}'"));
            }
            c.screenshot().await.map_err(|e| format!("screenshot: {e}"))
        }
        .await;
        let _ = c.close().await;
        shot
    });
    let _ = std::fs::remove_dir_all(&profile);
    let png = result?;
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    std::fs::write(&out, &png).map_err(|e| format!("{}: {e}", out.display()))?;
    println!(
        "screenshot: {} ({} bytes), from {url}",
        out.display(),
        png.len()
    );
    Ok(())
}
