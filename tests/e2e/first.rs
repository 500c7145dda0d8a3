//! The answer first: performance.now's tick in the headline with no click, and on a phone.

use super::*;

/// Three loads of the page with no click: each shows performance.now's tick in `#headline`
/// on its own. Returns the ticks, when each appeared (ms from navigation start) and the
/// verdict beside it.
async fn headlines(c: &Client, url: &str) -> Result<Vec<(f64, f64, String)>, String> {
    let mut out = Vec::new();
    for _ in 0..3 {
        c.goto(url).await.map_err(|e| e.to_string())?;
        wait_for(
            c,
            "return !!document.querySelector('#headline[data-tick-ns]')",
            Duration::from_secs(20),
        )
        .await?;
        let v = js(
            c,
            "return [Number(document.getElementById('headline').dataset.tickNs),
                     self.ticklabTimes.headlineMs, self.ticklabErrors,
                     document.getElementById('headline-verdict').textContent]",
        )
        .await?;
        if v[2] != serde_json::json!([]) {
            return Err(format!("page errors: {}", v[2]));
        }
        out.push((
            v[0].as_f64().unwrap_or(f64::NAN),
            v[1].as_f64().unwrap_or(f64::NAN),
            v[3].as_str().unwrap_or_default().to_string(),
        ));
    }
    Ok(out)
}

#[test]
fn the_answer_comes_first_without_a_click() {
    let _alone = one_browser_at_a_time();
    let site = built_site();
    let dir = tempfile::tempdir().unwrap();
    let report = native_report(dir.path());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut summary = String::new();
    for (browser, drv, isolated_ns, plain_ns) in documented() {
        // The engine's session, shared by the binary's tests (pool.rs), for the three
        // places: each its own origin, on a port no server of this binary used before.
        let s = rt
            .block_on(pool::session(browser, &drv, (1280, 1000)))
            .unwrap_or_else(|e| panic!("{browser:?}: {e}"));
        let mut servers = Vec::new();
        // ticklab serve isolated and not, and a plain static host (a class's GitHub Pages).
        for (isolated, mode) in [
            (true, "isolated"),
            (false, "not-isolated"),
            (false, "static host"),
        ] {
            let extra: &[&str] = if isolated { &[] } else { &["--no-isolation"] };
            let url = if mode == "static host" {
                let host = StaticHost::start(&site).unwrap();
                let url = host.url.clone();
                servers.push((Some(host), None));
                url
            } else {
                let (server, url) = serve(Path::new(BIN), &site, &report, extra).unwrap();
                servers.push((None, Some(server)));
                url
            };
            let loads = rt
                .block_on(headlines(&s.client, &url))
                .unwrap_or_else(|e| panic!("{browser:?} {mode}: {e}"));
            let want = if isolated { isolated_ns } else { plain_ns };
            for (tick, _, verdict) in &loads {
                assert_eq!(*tick, want, "{browser:?} {mode}: {loads:?}");
                // Held against this browser's figure for this context, and matching it.
                assert!(
                    verdict.starts_with("matches the claim (")
                        && verdict.contains(if isolated {
                            ", cross-origin isolated, per"
                        } else {
                            ", not cross-origin isolated, per"
                        }),
                    "{browser:?} {mode}: {verdict}"
                );
            }
            // The time is a benchmark figure (`cargo xtask bench`), recorded here.
            summary.push_str(&format!(
                "{browser:?} {mode}: headline {want} ns at {:?} ms from navigation start\n",
                loads.iter().map(|l| l.1.round()).collect::<Vec<_>>()
            ));
        }
        drop::<Vec<(Option<StaticHost>, Option<Guard>)>>(servers);
    }
    eprintln!("{summary}");
}

#[test]
fn a_phone_shows_the_answer_first_and_never_scrolls_sideways() {
    let _alone = one_browser_at_a_time();
    let site = built_site();
    let dir = tempfile::tempdir().unwrap();
    let report = native_report(dir.path());
    let (_server, url) = serve(Path::new(BIN), &site, &report, &["--no-isolation"]).unwrap();
    let drv = driver("CHROMEDRIVER", "chromedriver");
    let shot = target().join("e2e").join("phone-390.png");
    std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let v = rt
        .block_on(async {
            let s = pool::phone(&drv).await?;
            let c = &s.client;
            let out = async {
                c.goto(&url).await.map_err(|e| e.to_string())?;
                wait_for(
                    c,
                    "return !!document.querySelector('#headline[data-tick-ns]')",
                    Duration::from_secs(20),
                )
                .await?;
                let first = js(
                    c,
                    "return [screen.width, document.getElementById('headline').getBoundingClientRect().bottom, screen.height]",
                )
                .await?;
                js(c, "document.getElementById('run').click(); return 0").await?;
                let state = wait_done(c, Duration::from_secs(240)).await?;
                if state != "done" {
                    return Err(format!("the run ended '{state}'"));
                }
                // Every part of the page laid out, the detail plots included.
                let wide = js(c, WIDEST).await?;
                let png = c.screenshot().await.map_err(|e| e.to_string())?;
                std::fs::write(&shot, png).map_err(|e| e.to_string())?;
                js(c, "document.getElementById('results').scrollIntoView(); return 0").await?;
                tokio::time::sleep(Duration::from_millis(300)).await;
                let png = c.screenshot().await.map_err(|e| e.to_string())?;
                std::fs::write(shot.with_file_name("phone-390-results.png"), png)
                    .map_err(|e| e.to_string())?;
                Ok((first, wide))
            }
            .await;
            out
        })
        .unwrap_or_else(|e: String| panic!("phone: {e}"));
    let (first, wide) = v;
    assert_eq!(first[0], 390, "the emulated phone is 390 px wide: {first}");
    assert!(
        first[1].as_f64() <= first[2].as_f64(),
        "the headline is below the first screen: {first}"
    );
    assert!(
        wide[0].as_f64() <= wide[1].as_f64(),
        "the page scrolls sideways at 390 px: {wide} (screenshot {})",
        shot.display()
    );
    eprintln!(
        "phone: headline bottom {} of {} px; page {} px wide of {}",
        first[1], first[2], wide[0], wide[1]
    );
}
