//! `cargo xtask screenshot`: the page after a full run in headless Chromium, for the README.

use std::path::Path;
use std::time::Duration;

use ticklab_browser::{open, serve, wait_done, Browser};

/// Where the README's picture lives.
pub const SCREENSHOT: &str = "docs/screenshot.png";

/// A full run at `width` pixels, saved to `out` (relative to the workspace's root).
pub fn run(width: u32, out: &Path) -> Result<(), String> {
    crate::web::build()?;
    let (bin, report) = crate::lab::measure()?;
    let drivers = crate::browsers::ensure()?;
    let root = crate::workspace_root();
    let site = crate::web::target_dir(&root).join("site");
    let (_server, url) = serve(&bin, &site, &report, &[])?;
    let out = root.join(out);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let png = rt.block_on(async {
        let s = open(Browser::Chromium, &drivers.chromedriver, (width, 3900)).await?;
        let c = &s.client;
        let shot = async {
            c.goto(&format!("{url}?run"))
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
