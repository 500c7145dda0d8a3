//! The page for everyone: axe-core (npm's, pinned; `cargo xtask test` installs it) run on
//! every state a visitor meets, in Chromium and Firefox, with the WCAG 2.1 A and AA rules:
//! the page before and after a full run, the playground, an analysis, Compare with reports
//! loaded, a student's class page and the teacher's view. No violation is allowed. Also:
//! every plot says what it shows, and the dark theme and reduced motion are honoured.

use super::*;

/// axe-core's script: `TICKLAB_AXE`, or where `cargo xtask test` installs it.
fn axe() -> String {
    let path = std::env::var_os("TICKLAB_AXE")
        .map(PathBuf::from)
        .unwrap_or_else(|| target().join("axe/node_modules/axe-core/axe.min.js"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "no axe-core at {} ({e}): `cargo xtask test` installs it (npm install axe-core)",
            path.display()
        )
    })
}

/// The WCAG 2.1 A and AA violations axe-core finds on the page as it stands, each with
/// where: none is the answer wanted.
async fn violations(c: &Client, axe: &str, state: &str) -> Vec<String> {
    // The script runs in the page through WebDriver, as a tester's extension would.
    if js(c, "return typeof axe").await.ok() != Some(serde_json::json!("object")) {
        js(c, &format!("{axe}\n;return 0"))
            .await
            .expect("axe-core loads");
    }
    let found = js(
        c,
        "return axe.run(document, { runOnly: { type: 'tag',
             values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
           .then(r => r.violations.map(v => v.id + ' (' + v.impact + '): ' + v.help + ' at '
             + v.nodes.slice(0, 4).map(n => n.target.join(' ')).join(', ')))",
    )
    .await
    .unwrap_or_else(|e| panic!("{state}: axe-core did not run: {e}"));
    found
        .as_array()
        .map(|a| {
            a.iter()
                .map(|v| format!("{state}: {}", v.as_str().unwrap_or("?")))
                .collect()
        })
        .unwrap_or_default()
}

/// The WCAG 2.1 A and AA violations on the page `c` shows, with axe-core loaded here.
#[cfg(feature = "hub")]
pub(crate) async fn violations_of(c: &Client, state: &str) -> Vec<String> {
    violations(c, &axe(), state).await
}

/// Every control a visitor can use (visible, enabled, in the tab order), as the keyboard
/// walk names them.
const CONTROLS: &str = "const name = (e) => e.id || (e.tagName + ':' + (e.getAttribute('aria-label') || e.textContent || e.name || '').trim().slice(0, 40));
    self.ticklabControlName = name;
    return [...document.querySelectorAll('button, input, select, textarea, a[href], [tabindex]')]
      .filter(e => !e.disabled && e.tabIndex >= 0 && e.type !== 'hidden'
        && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden')
      .map(name)";

/// The keyboard alone: Tab from the top reaches every control, and each shows where the
/// focus is (an outline at least 2 px wide, or a shadow), judged where the browser matches
/// :focus at all (`must_judge`: Chromium does, headless).
async fn keyboard(c: &Client, state: &str, must_judge: bool) -> Result<Vec<String>, String> {
    use std::collections::HashSet;
    use ticklab_browser::actions::{InputSource, KeyAction, KeyActions};
    use ticklab_browser::key::Key;
    let want: Vec<String> =
        serde_json::from_value(js(c, CONTROLS).await?).map_err(|e| e.to_string())?;
    js(
        c,
        "document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); return 0",
    )
    .await?;
    let (mut reached, mut found, mut judged) = (HashSet::new(), Vec::new(), 0);
    for _ in 0..want.len() + 20 {
        let tab = KeyActions::new("keyboard".into())
            .then(KeyAction::Down {
                value: Key::Tab.into(),
            })
            .then(KeyAction::Up {
                value: Key::Tab.into(),
            });
        c.perform_actions(tab).await.map_err(|e| e.to_string())?;
        let v = js(
            c,
            "const e = document.activeElement, s = getComputedStyle(e);
             return [e === document.body ? '' : self.ticklabControlName(e),
                     (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== 'none',
                     e.matches(':focus')]",
        )
        .await?;
        let name = v[0].as_str().unwrap_or("").to_string();
        if name.is_empty() {
            continue;
        }
        // A headless window the system has not focused matches no :focus (headless
        // Firefox): the focus's look is judged where the browser shows it at all.
        if v[2] == true {
            judged += 1;
            if v[1] != true {
                found.push(format!(
                    "{state}: {name} takes the focus with nothing to show it"
                ));
            }
        }
        reached.insert(name);
    }
    if must_judge && judged == 0 {
        found.push(format!(
            "{state}: no control matched :focus under the keyboard"
        ));
    }
    let missed: Vec<&String> = want.iter().filter(|w| !reached.contains(*w)).collect();
    if !missed.is_empty() {
        found.push(format!("{state}: Tab never reaches {missed:?}"));
    }
    Ok(found)
}

/// The full lab at `url` (`?run`), waited for (240 s at most) until it is done.
async fn run_to_the_end(c: &Client, url: &str) -> Result<(), String> {
    c.goto(&format!("{url}?run"))
        .await
        .map_err(|e| e.to_string())?;
    match wait_done(c, Duration::from_secs(240)).await? {
        state if state == "done" => Ok(()),
        state => Err(format!("the run ended '{state}'")),
    }
}

/// Runs `action`, waits (30 s at most) until `done` holds, and gives axe-core's violations
/// of the page then, as `state`.
async fn after(
    c: &Client,
    axe: &str,
    action: &str,
    done: &str,
    state: &str,
) -> Result<Vec<String>, String> {
    js(c, action).await?;
    wait_for(c, done, Duration::from_secs(30)).await?;
    Ok(violations(c, axe, state).await)
}

/// The page's states in one browser: each state's violations.
async fn page_states(
    c: &Client,
    browser: Browser,
    url: &str,
    files: &Path,
    axe: &str,
) -> Result<Vec<String>, String> {
    let mut found = Vec::new();
    c.goto(url).await.map_err(|e| e.to_string())?;
    wait_ready(c).await?;
    found.extend(violations(c, axe, "the page, before a run").await);
    found.extend(keyboard(c, "the page, before a run", browser == Browser::Chromium).await?);
    run_to_the_end(c, url).await?;
    found.extend(violations(c, axe, "the page, after a full run").await);
    let said = js(
        c,
        "return [...document.querySelectorAll('canvas[aria-label]')].map(k => k.id + ': ' + k.getAttribute('aria-label'))",
    )
    .await?;
    let said: Vec<String> = said
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    if !said
        .iter()
        .any(|s| s.starts_with("plot-raw: ") && s.contains("bands at multiples of the tick"))
    {
        found.push(format!(
            "the raw plot's words do not name its bands: {said:?}"
        ));
    }
    // The playground, drawn.
    found.extend(
        after(
            c,
            axe,
            "document.getElementById('playground').scrollIntoView(); return 0",
            "return (self.ticklabTimes.play || []).length >= 1",
            "the playground",
        )
        .await?,
    );
    // An analysis of a paste.
    found.extend(
        after(
            c,
            axe,
            "document.getElementById('analyze-text').value = Array.from({length: 300}, (_, i) => ((i % 7 + 1) * 0.1).toFixed(1)).join('\\n');
             document.getElementById('analyze-run').click(); return 0",
            "return document.getElementById('analysis').dataset.state === 'done'",
            "an analysis",
        )
        .await?,
    );
    // Compare with two reports loaded.
    let own = js(c, "return self.ticklabExportJson()").await?;
    let own = own.as_str().ok_or("no export")?.to_string();
    let a = files.join(format!("{browser:?}-a.json"));
    let b = files.join(format!("{browser:?}-b.json"));
    std::fs::write(&a, &own).map_err(|e| e.to_string())?;
    std::fs::write(&b, &own).map_err(|e| e.to_string())?;
    let input = c
        .find(Locator::Id("native-file"))
        .await
        .map_err(|e| e.to_string())?;
    input
        .send_keys(&format!("{}\n{}", a.display(), b.display()))
        .await
        .map_err(|e| e.to_string())?;
    wait_for(
        c,
        "return document.querySelectorAll('#compare-table tbody tr').length > 4",
        Duration::from_secs(30),
    )
    .await?;
    found.extend(violations(c, axe, "Compare with reports loaded").await);
    // Every plot on screen says what it shows.
    let unsaid = js(
        c,
        "return [...document.querySelectorAll('canvas')]
           .filter(k => k.offsetParent !== null && !(k.getAttribute('aria-label') || '').length)
           .map(k => k.id)",
    )
    .await?;
    if unsaid.as_array().is_some_and(|a| !a.is_empty()) {
        found.push(format!(
            "plots on screen with no text alternative: {unsaid}"
        ));
    }
    Ok(found)
}

/// A class: a student's page (joined, run, sent) and the teacher's view with the run.
async fn class_states(
    c: &Client,
    class: &ticklab_browser::ClassServer,
    axe: &str,
) -> Result<Vec<String>, String> {
    let mut found = Vec::new();
    c.goto(&format!(
        "http://127.0.0.1:{}/?class={}&run",
        class.port, class.code
    ))
    .await
    .map_err(|e| e.to_string())?;
    wait_done(c, Duration::from_secs(240)).await?;
    wait_for(
        c,
        "return ['sent', 'refused', 'failed'].includes(document.body.dataset.class)",
        Duration::from_secs(30),
    )
    .await?;
    found.extend(violations(c, axe, "a student's class page").await);
    c.goto(&format!(
        "http://127.0.0.1:{}/class.html#key={}",
        class.port, class.key
    ))
    .await
    .map_err(|e| e.to_string())?;
    wait_for(c, "return document.body.dataset.live === 'yes' && Number(document.body.dataset.rows) >= 1 && document.body.dataset.plotted !== undefined", Duration::from_secs(30)).await?;
    found.extend(violations(c, axe, "the teacher's view").await);
    let alt = js(c, "return document.getElementById('class-plot').alt").await?;
    if !alt.as_str().unwrap_or("").contains("one point per student") {
        found.push(format!("the class's plot is not said in words: {alt}"));
    }
    Ok(found)
}

/// Chromium told the system prefers a dark theme and less motion: the page turns dark (and
/// axe-core's contrast rules still pass), its plots stay on white, and nothing on it moves
/// but the CSS clock no one sees. Screenshots land in target/e2e/dark.png and
/// dark-plots.png.
async fn dark_and_still(s: &Session, url: &str, axe: &str) -> Result<Vec<String>, String> {
    let c = &s.client;
    // The whole page and its first plots in one screenshot.
    c.set_window_rect(0, 0, 1280, 2000)
        .await
        .map_err(|e| e.to_string())?;
    let media = serde_json::json!({ "cmd": "Emulation.setEmulatedMedia", "params": { "features": [
        { "name": "prefers-color-scheme", "value": "dark" },
        { "name": "prefers-reduced-motion", "value": "reduce" },
    ]}});
    s.command("goog/cdp/execute", media)
        .await
        .map_err(|e| e.to_string())?;
    run_to_the_end(c, url).await?;
    let mut found = violations(c, axe, "the dark theme, after a full run").await;
    let v = js(
        c,
        "return [getComputedStyle(document.body).backgroundColor,
                 getComputedStyle(document.getElementById('plot-raw')).backgroundColor,
                 document.getAnimations().filter(a => !(a.effect && a.effect.target
                   && a.effect.target.classList.contains('css-clock'))).length]",
    )
    .await?;
    if v[0] != "rgb(18, 20, 23)" || v[1] != "rgb(255, 255, 255)" {
        found.push(format!("the dark theme: page {}, plots {}", v[0], v[1]));
    }
    if v[2] != 0 {
        found.push(format!(
            "{} animations run with reduced motion asked for",
            v[2]
        ));
    }
    let dir = target().join("e2e");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let png = c.screenshot().await.map_err(|e| e.to_string())?;
    std::fs::write(dir.join("dark.png"), png).map_err(|e| e.to_string())?;
    // And its plots, on their white panels.
    js(
        c,
        "document.getElementById('plot-raw').scrollIntoView(); return 0",
    )
    .await?;
    let png = c.screenshot().await.map_err(|e| e.to_string())?;
    std::fs::write(dir.join("dark-plots.png"), png).map_err(|e| e.to_string())?;
    // The emulation stays with the session, which the next test borrows (pool.rs).
    let plain =
        serde_json::json!({ "cmd": "Emulation.setEmulatedMedia", "params": { "features": [] } });
    s.command("goog/cdp/execute", plain)
        .await
        .map_err(|e| e.to_string())?;
    Ok(found)
}

#[test]
fn every_state_of_the_page_has_no_axe_violation_in_chromium_and_firefox() {
    let _alone = one_browser_at_a_time();
    let site = built_site();
    let axe = axe();
    let dir = tempfile::tempdir().unwrap();
    let report = native_report(dir.path());
    let (_server, url) = serve(Path::new(BIN), &site, &report, &[]).unwrap();
    let class = ticklab_browser::start_class(
        Path::new(BIN),
        &dir.path().join("class.sqlite"),
        0,
        &["--no-qr", "--root", site.to_str().unwrap()],
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut found = Vec::new();
    // One session an engine, the binary's (pool.rs): the page, the class, and in Chromium
    // the dark theme last (its emulation is set back after).
    for (browser, drv) in engines().into_iter().filter(|(b, _)| *b != Browser::WebKit) {
        let s = rt
            .block_on(pool::session(browser, &drv, (1280, 1000)))
            .unwrap_or_else(|e| panic!("{browser:?}: {e}"));
        let page = rt
            .block_on(page_states(&s.client, browser, &url, dir.path(), &axe))
            .unwrap_or_else(|e| panic!("{browser:?}: {e}"));
        found.extend(page.into_iter().map(|v| format!("{browser:?}, {v}")));
        let cls = rt
            .block_on(class_states(&s.client, &class, &axe))
            .unwrap_or_else(|e| panic!("{browser:?} class: {e}"));
        found.extend(cls.into_iter().map(|v| format!("{browser:?}, {v}")));
        if browser == Browser::Chromium {
            found.extend(
                rt.block_on(dark_and_still(&s, &url, &axe))
                    .unwrap_or_else(|e| panic!("the dark theme: {e}")),
            );
        }
    }
    assert!(
        found.is_empty(),
        "axe-core (WCAG 2.1 A and AA):\n{}",
        found.join("\n")
    );
}
