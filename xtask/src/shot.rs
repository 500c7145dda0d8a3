//! `cargo xtask screenshot`: the page after a full run in headless Chromium, for the README.

use std::path::Path;
use std::time::Duration;

pub use ticklab_browser::Browser;
use ticklab_browser::{open, open_phone, serve, wait_done, Client, Locator};

/// Where the README's picture lives.
pub const SCREENSHOT: &str = "docs/screenshot.png";

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
    let driver = drivers.of(browser)?;
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

/// What a visitor sees, for docs/: the page at a desktop's width (Chromium and WebKit) and on
/// a phone, and every plot of performance.now at 5 µs (Chromium, isolated), 100 µs
/// (Chromium), 1 ms (Firefox and WebKit) and 20 µs (WebKit, isolated), and the playground;
/// each a full run against `ticklab serve`.
pub fn docs() -> Result<(), String> {
    let drivers = crate::browsers::ensure()?;
    let root = crate::workspace_root();
    crate::web::build()?;
    let (bin, report) = crate::lab::measure()?;
    let site = crate::web::target_dir(&root).join("site");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let save = |name: &str, png: Vec<u8>| -> Result<(), String> {
        let out = root.join("docs").join(name);
        std::fs::write(&out, &png).map_err(|e| format!("{}: {e}", out.display()))?;
        println!("screenshot: {} ({} bytes)", out.display(), png.len());
        Ok(())
    };
    for (browser, isolated, name) in [
        (Browser::Chromium, true, "views-5us.png"),
        (Browser::Chromium, false, "views-100us.png"),
        (Browser::Firefox, false, "views-1ms.png"),
        (Browser::WebKit, true, "views-webkit-20us.png"),
        (Browser::WebKit, false, "views-webkit-1ms.png"),
    ] {
        let extra: &[&str] = if isolated { &[] } else { &["--no-isolation"] };
        let (_server, url) = serve(&bin, &site, &report, extra)?;
        let driver = drivers.of(browser)?;
        let png = rt.block_on(views(browser, driver, &url, isolated))?;
        save(name, png.0)?;
        if let Some(d) = png.1 {
            let desktop = match browser {
                Browser::WebKit => "desktop-webkit.png",
                _ => "desktop.png",
            };
            save(desktop, d)?;
        }
        if browser == Browser::Chromium && isolated {
            save("playground.png", png.2)?;
        }
    }
    let (_server, url) = serve(&bin, &site, &report, &["--no-isolation"])?;
    let png = rt.block_on(phone(&drivers.chromedriver, &url))?;
    save("phone.png", png.0)?;
    save("phone-results.png", png.1)
}

async fn run_lab(c: &Client, url: &str) -> Result<(), String> {
    c.goto(&format!("{url}?run"))
        .await
        .map_err(|e| format!("opening {url}: {e}"))?;
    let state = wait_done(c, Duration::from_secs(240)).await?;
    if state != "done" {
        return Err(format!("the run ended '{state}'"));
    }
    Ok(())
}
async fn element(c: &Client, id: &str) -> Result<Vec<u8>, String> {
    let e = c
        .find(Locator::Id(id))
        .await
        .map_err(|e| format!("#{id}: {e}"))?;
    e.screenshot().await.map_err(|e| format!("#{id}: {e}"))
}
/// One engine's full run: the views of performance.now, the desktop (when isolated) and the
/// playground, as pictures.
async fn views(
    browser: Browser,
    driver: &std::path::Path,
    url: &str,
    isolated: bool,
) -> Result<(Vec<u8>, Option<Vec<u8>>, Vec<u8>), String> {
    // Tall enough that each section is whole on the screen.
    // (Chromium's headless window stops at its screen's height; Firefox counts its
    // own frame in the window.)
    let tall = if browser == Browser::Firefox {
        4200
    } else {
        3200
    };
    let s = open(browser, driver, (1280, tall)).await?;
    let c = &s.client;
    let out = async {
        run_lab(c, url).await?;
        c.execute(
            "const s = document.getElementById('detail-clock');
             s.value = 'performance.now'; s.dispatchEvent(new Event('change')); return 0",
            vec![],
        )
        .await
        .map_err(|e| e.to_string())?;
        // WebKit's driver shoots an element from the page's top: scrolled to it, the
        // window (taller than the section) is the picture.
        let details = if browser == Browser::WebKit {
            c.execute(
                "document.getElementById('details').scrollIntoView(); return 0",
                vec![],
            )
            .await
            .map_err(|e| e.to_string())?;
            tokio::time::sleep(Duration::from_millis(300)).await;
            c.screenshot().await.map_err(|e| e.to_string())?
        } else {
            element(c, "details").await?
        };
        let desktop = if isolated {
            c.set_window_size(1280, 1000)
                .await
                .map_err(|e| e.to_string())?;
            c.execute("scrollTo(0, 0); return 0", vec![])
                .await
                .map_err(|e| e.to_string())?;
            tokio::time::sleep(Duration::from_millis(300)).await;
            let d = c.screenshot().await.map_err(|e| e.to_string())?;
            c.set_window_size(1280, 4200)
                .await
                .map_err(|e| e.to_string())?;
            Some(d)
        } else {
            None
        };
        c.execute(
            "document.getElementById('playground').scrollIntoView();
             document.querySelectorAll('#steps button')[3].click(); return 0",
            vec![],
        )
        .await
        .map_err(|e| e.to_string())?;
        tokio::time::sleep(Duration::from_secs(2)).await;
        let play = element(c, "playground").await?;
        Ok::<_, String>((details, desktop, play))
    }
    .await;
    let _ = c.clone().close().await;
    out
}

/// A phone's first screen, and its results after a full run.
async fn phone(chromedriver: &std::path::Path, url: &str) -> Result<(Vec<u8>, Vec<u8>), String> {
    let s = open_phone(chromedriver, (390, 844)).await?;
    let c = &s.client;
    let out = async {
        c.goto(url).await.map_err(|e| e.to_string())?;
        tokio::time::sleep(Duration::from_secs(3)).await;
        let first = c.screenshot().await.map_err(|e| e.to_string())?;
        run_lab(c, url).await?;
        c.execute(
            "document.getElementById('results').scrollIntoView(); return 0",
            vec![],
        )
        .await
        .map_err(|e| e.to_string())?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let results = c.screenshot().await.map_err(|e| e.to_string())?;
        Ok::<_, String>((first, results))
    }
    .await;
    let _ = c.clone().close().await;
    out
}
