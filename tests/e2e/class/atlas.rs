//! The atlas from the page: Chromium, Firefox and WebKit each run the lab on hub instance A,
//! isolated (by 127.0.0.1, a secure context) and not (by a name that is not localhost), see
//! exactly what would be sent, and add it with the click; instance B's atlas then shows
//! their six cells, the visitor's own marked, and passes axe-core at desktop and 390 px.

use super::*;

/// The name the pages that are not secure contexts reach instance A by.
const NAME: &str = "atlas.test";

/// One visit: the run, the offer, the click; the body that was shown and the answer's words.
async fn opt_in(
    browser: Browser,
    driver: &Path,
    url: &str,
    named: Option<u16>,
) -> Result<(String, String, String), String> {
    let s = match named {
        Some(port) => {
            ticklab_browser::open_named(browser, driver, (1280, 1400), NAME, port).await?
        }
        None => ticklab_browser::open(browser, driver, (1280, 1400)).await?,
    };
    let c = &s.client;
    let out = async {
        c.goto(&format!("{url}?run")).await.map_err(|e| e.to_string())?;
        let state = wait_done(c, Duration::from_secs(240)).await?;
        if state != "done" {
            return Err(format!("the run ended '{state}'"));
        }
        wait_for(c, "return !document.getElementById('atlas-offer').hidden", Duration::from_secs(20)).await?;
        // Nothing went before the click.
        let before = js(c, "return document.body.dataset.atlas || ''").await?;
        if before != "" {
            return Err(format!("sent before the click: {before}"));
        }
        let body = js(c, "return document.getElementById('atlas-body').textContent").await?;
        js(c, "document.getElementById('atlas-add').click(); return 0").await?;
        wait_for(c, "return ['counted', 'not-counted', 'failed'].includes(document.body.dataset.atlas)", Duration::from_secs(20)).await?;
        js(c, "document.getElementById('atlas-offer').scrollIntoView(); return 0").await?;
        let shot = target().join("e2e").join(format!("atlas-offer-{browser:?}-{}.png", if named.is_some() { "plain" } else { "isolated" }));
        std::fs::create_dir_all(shot.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&shot, c.screenshot().await.map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
        let v = js(c, "return [document.body.dataset.atlas, document.getElementById('atlas-status').textContent, self.crossOriginIsolated, self.ticklabErrors]").await?;
        if v[0] != "counted" || v[3] != serde_json::json!([]) {
            return Err(format!("{v}"));
        }
        Ok((
            body.as_str().unwrap_or_default().to_string(),
            v[1].as_str().unwrap_or_default().to_string(),
            v[2].to_string(),
        ))
    }
    .await;
    let _ = c.clone().close().await;
    out
}

#[test]
fn three_engines_opt_in_on_one_instance_and_the_other_shows_their_cells() {
    let _alone = one_browser_at_a_time();
    let site = built_site();
    let pg = ticklab_browser::postgres::Cluster::start().unwrap();
    let args = ["--root", site.to_str().unwrap(), "--atlas-k", "1"];
    let a = ticklab_browser::start_hub(Path::new(BIN), &pg.url(), 0, &args);
    let b = ticklab_browser::start_hub(Path::new(BIN), &pg.url(), 0, &args);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut said = String::new();
    let mut cells = Vec::new();
    rt.block_on(async {
        for (browser, drv) in engines() {
            for named in [None, Some(a.port)] {
                let url = match named {
                    Some(port) => format!("http://{NAME}:{port}/"),
                    None => a.url(),
                };
                let (body, status, isolated) = opt_in(browser, &drv, &url, named)
                    .await
                    .unwrap_or_else(|e| panic!("{browser:?} at {url}: {e}"));
                // What was shown is what a page's digest holds: no user agent, no screen.
                for never in ["Mozilla", "screen", "nickname"] {
                    assert!(!body.contains(never), "{browser:?}: {never} in {body}");
                }
                assert!(
                    body.starts_with("{\"digest\":") && body.contains("\"who\":["),
                    "{body}"
                );
                assert!(status.starts_with("Added to the atlas: "), "{status}");
                let cell = status
                    .trim_start_matches("Added to the atlas: ")
                    .split(". See")
                    .next()
                    .unwrap()
                    .to_string();
                assert_eq!(
                    isolated == "true",
                    named.is_none(),
                    "{browser:?} {url}: isolated {isolated}"
                );
                said.push_str(&format!("{browser:?} {url}: {cell}\n"));
                cells.push(cell);
            }
        }
    });
    // Six cells: three engines, isolated and not, each named as the page's answer said.
    let mut shown = Vec::new();
    let end = std::time::Instant::now() + Duration::from_secs(10);
    while shown.len() < 6 && std::time::Instant::now() < end {
        let (s, body) = common::http::request(
            std::net::Ipv4Addr::LOCALHOST,
            b.port,
            "GET",
            "/atlas/cells.json",
            &[],
            b"",
        );
        assert_eq!(s, 200);
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        shown = v["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect();
        std::thread::sleep(Duration::from_millis(300));
    }
    for c in &cells {
        assert!(shown.contains(c), "{c} not on B: {shown:?}\n{said}");
    }
    assert_eq!(shown.len(), 6, "{shown:?}");
    // B's page, as a visitor of A who followed the answer's link would see it, in Chromium:
    // the visitor's cell marked, axe-core clean, at desktop and at 390 px.
    let chromium = driver("CHROMEDRIVER", "chromedriver");
    rt.block_on(async {
        for size in [(1280, 1600), (390, 844)] {
            let t = if size.0 < 500 {
                ticklab_browser::open_phone(&chromium, size).await.unwrap()
            } else {
                open(Browser::Chromium, &chromium, size).await.unwrap()
            };
            let c = &t.client;
            c.goto(&format!("{}atlas?engine=Chromium", b.url()))
                .await
                .unwrap();
            wait_for(
                c,
                "return document.body.dataset.state === 'atlas'",
                Duration::from_secs(20),
            )
            .await
            .unwrap();
            let rows = js(
                c,
                "return document.querySelectorAll('#atlas-cells tbody tr').length",
            )
            .await
            .unwrap();
            assert_eq!(rows, 2, "Chromium's two cells");
            let figures = js(
                c,
                "return document.querySelectorAll('figure.atlas-plot figcaption').length",
            )
            .await
            .unwrap();
            assert!(figures.as_u64().unwrap_or(0) >= 1, "a plot with its words");
            let v = crate::access::violations_of(c, &format!("the atlas at {} px", size.0)).await;
            assert!(v.is_empty(), "{v:?}");
            let wide = js(c, WIDEST).await.unwrap();
            assert!(
                wide[0].as_f64().unwrap_or(0.0) <= wide[1].as_f64().unwrap_or(0.0) + 1.0
                    || size.0 > 500,
                "the atlas wider than the phone: {wide}"
            );
            let shot = target().join("e2e").join(format!("atlas-{}.png", size.0));
            std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
            std::fs::write(&shot, c.screenshot().await.unwrap()).unwrap();
            let _ = c.clone().close().await;
        }
    });
    eprintln!("{said}on B: {shown:?}");
    drop((a, b, pg));
}
