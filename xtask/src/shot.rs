//! `cargo xtask screenshot`: the page after a full run in headless Chromium, for the README.

use std::path::Path;
use std::time::Duration;

pub use ticklab_browser::Browser;
use ticklab_browser::{open, serve, wait_done};

/// Where the README's picture lives.
pub const SCREENSHOT: &str = "docs/screenshot.png";

/// `WIDTH PATH [chromium|firefox] [URL]`, read and run.
pub fn parse_and_run(args: &[String]) -> Result<(), String> {
    let width = match args[0].parse() {
        Ok(w) if (200..=4000).contains(&w) => w,
        _ => {
            return Err(format!(
                "screenshot: a width of 200 to 4000 pixels, not '{}'",
                args[0]
            ))
        }
    };
    let mut browser = Browser::Chromium;
    let mut url = None;
    for a in &args[2..] {
        match a.as_str() {
            "chromium" => browser = Browser::Chromium,
            "firefox" => browser = Browser::Firefox,
            u if u.starts_with("http://") || u.starts_with("https://") => url = Some(u.to_string()),
            other => {
                return Err(format!(
                    "screenshot: '{other}' is neither chromium, firefox nor a URL"
                ))
            }
        }
    }
    run(width, args[1].as_ref(), browser, url)
}

/// A full run at `width` pixels in `browser`, saved to `out` (relative to the workspace's
/// root): of the page at `url`, or of the lab served by `ticklab serve` with this machine's
/// report.
pub fn run(width: u32, out: &Path, browser: Browser, url: Option<String>) -> Result<(), String> {
    let drivers = crate::browsers::ensure()?;
    let root = crate::workspace_root();
    let (_server, url) = match url {
        Some(u) => (None, u),
        None => {
            crate::web::build()?;
            let (bin, report) = crate::lab::measure()?;
            let site = crate::web::target_dir(&root).join("site");
            let (server, url) = serve(&bin, &site, &report, &[])?;
            (Some(server), url)
        }
    };
    let driver = match browser {
        Browser::Chromium => &drivers.chromedriver,
        Browser::Firefox => &drivers.geckodriver,
    };
    let out = root.join(out);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let png = rt.block_on(async {
        let s = open(browser, driver, (width, 3900)).await?;
        let c = &s.client;
        let shot = async {
            c.goto(&format!("{}?run", url.trim_end_matches('?')))
                .await
                .map_err(|e| format!("opening {url}: {e}"))?;
            let state = wait_done(c, Duration::from_secs(180)).await?;
            if state != "done" {
                return Err(format!("the run ended '{state}'"));
            }
            c.screenshot().await.map_err(|e| format!("screenshot: {e}"))
        }
        .await;
        let _ = c.clone().close().await;
        shot
    })?;
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
