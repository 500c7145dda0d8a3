//! End to end in real browsers: the page, driven over WebDriver in headless Chromium and
//! Firefox, isolated and not, against `ticklab serve` and a static host: it measures the
//! documented ticks, answers first, fits a phone, refuses bad input (tables of hostile
//! fields, files and links), serves a class, survives a worker's death and shows this
//! machine's native clocks. Needs the built site (`cargo xtask web`) and the browsers and
//! drivers that `cargo xtask test` installs; without them these tests fail, saying what is
//! missing. The server's own hardening is tests/server.rs.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ticklab_browser::{
    assert_bad_inputs_listed, bad_input_row, open, open_phone, serve, wait_done, which, Browser,
    Client, Guard, Locator, StaticHost,
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

struct Run {
    isolated: bool,
    ticks: Vec<(String, Option<f64>)>,
    /// Each clock's grid of edges ("jittered", "fixed"), or null when not told.
    grids: serde_json::Value,
    native_rows: u64,
    /// The tick lesson's example from the machine serving the page.
    lesson_here: String,
    errors: Vec<String>,
    /// Each clock's name and the notes the page shows for it.
    notes: Vec<(String, Vec<String>)>,
    /// What had crossed the wasm boundary when the run was done, and after an export.
    crossed: serde_json::Value,
    crossed_after_export: serde_json::Value,
    /// The page's report, exported.
    json: String,
    /// Each implicit clock's answer: `{tick}` in ns, `{reason}`, or `{missing}`.
    implicit: serde_json::Value,
    /// The line ranking the clocks.
    ranking: String,
}

/// The clocks a page builds from APIs never meant as clocks.
const IMPLICIT: &str = "['timeline.currentTime', 'css-animation', 'audio-worklet.currentFrame',
    'message-channel', 'setTimeout-chain', 'event-timing']";

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
                &format!("return {{
                  implicit: Object.fromEntries({IMPLICIT}.map(id => {{
                    const r = document.querySelector(`#summary tbody tr[data-clock='${{id}}']`);
                    if (r && r.dataset.tickNs) return [id, {{ tick: Number(r.dataset.tickNs) }}];
                    if (r) return [id, {{ reason: [...r.querySelectorAll('li')].map(li => li.textContent).join('; ') }}];
                    const box = document.querySelector(`#clock-choice input[data-run='${{id}}']`);
                    const why = box && box.disabled && box.closest('tr').querySelector('small');
                    return [id, why ? {{ reason: why.textContent }} : {{ missing: true }}];
                  }})),
                  ranking: document.getElementById('ranking').textContent,
                  isolated: self.crossOriginIsolated,
                  ticks: [...document.querySelectorAll('#summary tbody tr')]
                    .map(r => [r.dataset.clock, r.dataset.tickNs ? Number(r.dataset.tickNs) : null]),
                  grids: Object.fromEntries([...document.querySelectorAll('#summary tbody tr')]
                    .map(r => [r.dataset.clock, r.dataset.grid || null])),
                  native: document.querySelectorAll('#compare-table tr[data-where=native]').length,
                  lesson: document.getElementById('lesson-here').textContent,
                  errors: self.ticklabErrors || ['no error log'],
                  notes: [...document.querySelectorAll('#summary tbody tr')]
                    .map(r => [r.querySelector('th').textContent,
                               [...r.querySelectorAll('li')].map(li => li.textContent)]),
                  crossed: self.ticklabCrossings(),
                  seed: document.documentElement.textContent.toLowerCase().includes('seed'),
                }}"),
                vec![],
            )
            .await
            .map_err(|e| e.to_string())?;
        // The page names its sources by author and title, never by the repository's files.
        if v["seed"] != serde_json::Value::Bool(false) {
            return Err(format!("the page says 'seed' (or could not be read): {}", v["seed"]));
        }
        let json = c
            .execute("return self.ticklabExportJson()", vec![])
            .await
            .map_err(|e| e.to_string())?
            .as_str()
            .unwrap_or_default()
            .to_string();
        let crossed_after_export = c
            .execute("return self.ticklabCrossings()", vec![])
            .await
            .map_err(|e| e.to_string())?;
        let notes = v["notes"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|r| {
                        let list = r[1].as_array().map_or(Vec::new(), |l| {
                            l.iter().map(|n| n.as_str().unwrap_or("").to_string()).collect()
                        });
                        (r[0].as_str().unwrap_or("").to_string(), list)
                    })
                    .collect()
            })
            .unwrap_or_default();
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
            grids: v["grids"].clone(),
            native_rows: v["native"].as_u64().unwrap_or(0),
            lesson_here: v["lesson"].as_str().unwrap_or_default().to_string(),
            errors: v["errors"]
                .as_array()
                .map(|a| a.iter().map(|e| e.to_string()).collect())
                .unwrap_or_default(),
            notes,
            crossed: v["crossed"].clone(),
            crossed_after_export,
            json,
            implicit: v["implicit"].clone(),
            ranking: v["ranking"].as_str().unwrap_or_default().to_string(),
        })
    }
    .await;
    let _ = c.clone().close().await;
    run
}

/// Each clock's notes as `ticklab show` prints them for a saved report.
fn notes_of_show(dir: &Path, json: &str) -> Vec<(String, Vec<String>)> {
    let file = dir.join("page-report.json");
    std::fs::write(&file, json).unwrap();
    let out = std::process::Command::new(BIN)
        .arg("show")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // After the tables, each clock with notes: "name:" then "  - note" lines.
    let mut notes: Vec<(String, Vec<String>)> = Vec::new();
    let mut blank = false;
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("  - ") {
            if let Some(last) = notes.last_mut() {
                last.1.push(n.to_string());
            }
        } else if blank && line.ends_with(':') {
            notes.push((line.trim_end_matches(':').to_string(), Vec::new()));
        }
        blank = line.is_empty();
    }
    notes
}

/// The page's notes of every clock equal the command's for the same results, and at least
/// one clock has some (so the comparison says something).
fn same_notes(what: &str, page: &[(String, Vec<String>)], command: &[(String, Vec<String>)]) {
    let mut compared = 0;
    for (clock, notes) in page {
        let shown = command
            .iter()
            .find(|(c, _)| c == clock)
            .map_or(&[][..], |(_, n)| n.as_slice());
        assert_eq!(notes.as_slice(), shown, "{what}: notes of {clock}");
        compared += notes.len();
    }
    assert!(
        compared > 0,
        "{what}: no clock had a note to compare: {page:?}"
    );
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

#[test]
fn browsers_measure_the_documented_ticks() {
    let _alone = one_browser_at_a_time();
    let site = built_site();
    let drivers = documented();
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
            // A worker the browser starved for most of its tick budget (WebKit's, on two
            // shared cores, once read performance.now 8 times in 0.2 s, stalled 44 to 87 ms
            // at a time) has too few edges to tell, and says so: only then is the run made
            // again, twice at most, and said.
            let mut r = rt
                .block_on(full_run(browser, &drv, &url, &shot))
                .unwrap_or_else(|e| panic!("{browser:?} {mode}: {e}"));
            for again in 1..=2 {
                if !worker_too_starved(&r.json) {
                    break;
                }
                summary.push_str(&format!(
                    "{browser:?} {mode}: the worker was starved (too few edges, or too busy \
                     to tell): run again ({again})\n"
                ));
                r = rt
                    .block_on(full_run(browser, &drv, &url, &shot))
                    .unwrap_or_else(|e| panic!("{browser:?} {mode}: {e}"));
            }
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
                "{browser:?} {mode}: performance.now {now} ns, grids {}, Date.now {date} ns, {} notes \
                 alike on the page and from `ticklab show`, crossings {} then {} after the \
                 export, screenshot {}\n  implicit {}\n  {}\n",
                r.grids,
                r.notes.iter().map(|n| n.1.len()).sum::<usize>(),
                r.crossed,
                r.crossed_after_export,
                shot.display(),
                r.implicit,
                r.ranking
            ));
            assert_eq!(r.isolated, isolated, "{browser:?} {mode}");
            assert_eq!(
                now,
                if isolated { isolated_ns } else { plain_ns },
                "{browser:?} {mode}"
            );
            assert_eq!(date, 1e6, "{browser:?} {mode}");
            // The count-down fit through performance.now has a slope in every engine: a
            // worker that stalls (WebKit's, for milliseconds now and then) costs a run,
            // not the calibration of the sizes.
            let report: serde_json::Value = serde_json::from_str(&r.json)
                .unwrap_or_else(|e| panic!("{browser:?} {mode}: the export is no JSON: {e}"));
            let worker = report["clocks"]
                .as_array()
                .and_then(|c| {
                    c.iter()
                        .find(|c| c["info"]["name"] == "performance.now (worker)")
                })
                .unwrap_or_else(|| panic!("{browser:?} {mode}: no performance.now (worker)"));
            let slope = worker["fits"][0]["slope_ns"].as_f64();
            assert!(
                slope.is_some_and(|s| s > 0.0),
                "{browser:?} {mode}: the fit through performance.now gave no slope: {}",
                worker["fits"]
            );
            summary.push_str(&format!(
                "  performance.now's count-down slope {:.3} ns, gaps {}\n",
                slope.unwrap_or(f64::NAN),
                worker["tick"]["gaps"]
            ));
            // Every clock the page builds answers: a tick, or the reason it has none.
            for (id, answer) in r.implicit.as_object().expect("the implicit clocks") {
                let ok = answer["tick"].as_f64().is_some_and(|t| t > 0.0)
                    || answer["reason"].as_str().is_some_and(|w| w.len() > 10);
                assert!(ok, "{browser:?} {mode}: {id} answered {answer}");
            }
            assert!(
                r.ranking.starts_with("Finest clock this page built: ")
                    && r.ranking.contains("performance.now (worker)")
                    && r.ranking.contains("MessageChannel"),
                "{browser:?} {mode}: the ranking says {:?}",
                r.ranking
            );
            // Chromium jitters its clamps, isolated and not, each interval at a uniform
            // point: the lab sees it (consecutive counts correlate −0.37 to −0.47). Firefox
            // isolated and WebKit round down on a fixed grid: no jitter may be reported (a
            // WebKit worker stalls every few ticks, and may leave too few consecutive edges
            // to say anything). Firefox's 1 ms clamp moves a few edges in a hundred in one
            // session and almost none in the next (a plain JavaScript loop of 1500 edges: 3.3
            // to 4.1 % of pairs a moved edge, correlation −0.31 to −0.35; then 0.1 to 0.4 %,
            // −0.18 and +0.52): any answer is honest there, but one there is.
            let grid = r.grids["performance.now"]
                .as_str()
                .unwrap_or("none")
                .to_string();
            // A worker that was not running through whole ticks too often (a busy machine)
            // cannot tell jitter from its own interruptions, and says so: unclear.
            let skipped = worker["tick"]["edge_grid"]["skipped_share"]
                .as_f64()
                .unwrap_or(0.0);
            let interrupted = grid == "unclear" && skipped > ticklab::tick::grid::SKIPPED_SHARE;
            let ok = match (browser, isolated) {
                (Browser::Chromium, _) => grid == "jittered" || interrupted,
                (Browser::Firefox, false) => grid != "none",
                _ => grid != "jittered",
            };
            assert!(
                ok,
                "{browser:?} {mode}: performance.now's edges {grid}: {}; {:?}",
                r.grids,
                r.notes
                    .iter()
                    .filter(|n| n.0.starts_with("performance.now"))
                    .collect::<Vec<_>>()
            );
            assert!(
                r.native_rows > 0,
                "{browser:?} {mode}: Compare shows no native clock"
            );
            // The lesson quotes this machine's own CLOCK_MONOTONIC, named as the server's.
            assert!(
                r.lesson_here
                    .starts_with("On the machine serving this page")
                    && r.lesson_here.contains("CLOCK_MONOTONIC's tick at"),
                "{browser:?} {mode}: {:?}",
                r.lesson_here
            );
            assert!(
                r.errors.is_empty(),
                "{browser:?} {mode}: page errors {:?}",
                r.errors
            );
            // The run kept its results in wasm memory: each worker clock's report crossed
            // in once, and no whole report crossed until the export.
            assert_eq!(
                r.crossed["reports_out"], 0,
                "{browser:?} {mode}: {}",
                r.crossed
            );
            assert!(
                r.crossed["clocks_in"].as_u64() >= Some(3),
                "{browser:?} {mode}: {}",
                r.crossed
            );
            assert_eq!(
                r.crossed_after_export["reports_out"], 1,
                "{browser:?} {mode}: {}",
                r.crossed_after_export
            );
            let shown = notes_of_show(dir.path(), &r.json);
            same_notes(&format!("{browser:?} {mode}"), &r.notes, &shown);
        }
    }
    // Printed for the record; the harness shows it with --nocapture.
    eprintln!("{summary}");
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

/// Bad form fields, hostile imports, Cancel and a hidden tab, in one browser; returns the
/// bad-input rows tried and a line of figures.
async fn hostile_page(
    browser: Browser,
    driver: &Path,
    url: &str,
    files: &Path,
) -> Result<(Vec<String>, String), String> {
    let s = open(browser, driver, (1280, 1600)).await?;
    let c = &s.client;
    c.goto(url).await.map_err(|e| e.to_string())?;
    wait_ready(c).await?;
    wait_for(
        c,
        "return document.getElementById('compare-status').textContent.includes('the server')",
        Duration::from_secs(20),
    )
    .await?;
    let mut rows = refused_fields(c).await?;
    rows.extend(refused_imports(c, files).await?);
    rows.extend(refused_pastes(c).await?);
    rows.extend(refused_links(c, url).await?);
    let cancels = cancels(c).await?;
    hidden_run(c).await?;
    let _ = c.clone().close().await;
    Ok((
        rows,
        format!(
            "{browser:?}: cancel took {}; a hidden run was flagged",
            cancels.join(", ")
        ),
    ))
}

/// Form fields: an error, and no run; each a row of docs/bad-inputs.md.
async fn refused_fields(c: &Client) -> Result<Vec<String>, String> {
    let mut rows = Vec::new();
    let fields: [(&str, &str, &str, &str); 10] = [
        (
            "Tick",
            "tick_s",
            "abc",
            "tick time: 'abc' is not a number of seconds",
        ),
        (
            "Tick",
            "tick_s",
            "-1",
            "tick time: -1 s; give more than 0 seconds",
        ),
        (
            "Tick",
            "tick_s",
            "0",
            "tick time: 0 s; give more than 0 seconds",
        ),
        ("Tick", "tick_s", "121", "tick time: 121 s; at most 120 s"),
        (
            "Tick",
            "tick_s",
            "0x10",
            "tick time: '0x10' is not a number of seconds",
        ),
        (
            "Tick",
            "tick_s",
            "<img src=x onerror=self.pwned=1>",
            "is not a number of seconds",
        ),
        (
            "Overhead",
            "overhead_s",
            "NaN",
            "overhead time: NaN s; give more than 0 seconds",
        ),
        (
            "Fit",
            "fit_s",
            "Infinity",
            "fit time: Infinity s; give more than 0 seconds",
        ),
        (
            "Sampling",
            "sample_s",
            "1e400",
            "sampling time: 1e400 s; give more than 0 seconds",
        ),
        ("Workload", "workload", "fft", "invalid workload: 'fft'"),
    ];
    for (label, name, value, want) in fields {
        let v = serde_json::json!(value);
        let script = format!(
            "const f = document.querySelector('[name={name}]');
             const old = f.value;
             if (f.tagName === 'SELECT') f.add(new Option({v}, {v}));
             f.value = {v};
             document.getElementById('run').click();
             const out = [document.getElementById('error').textContent, document.body.dataset.state,
                          document.querySelectorAll('#error *').length];
             if (f.tagName === 'SELECT') f.remove(f.options.length - 1);
             f.value = old;
             return out;"
        );
        let out = js(c, &script).await?;
        let (msg, state, elements) = (
            out[0].as_str().unwrap_or(""),
            out[1].as_str().unwrap_or(""),
            out[2].as_u64(),
        );
        if !msg.contains(want) || state != "ready" || elements != Some(0) {
            return Err(format!(
                "{label} = {value}: error {msg:?}, state {state}, {elements:?} elements"
            ));
        }
        rows.push(bad_input_row(
            "page field",
            &format!("{label} = `{value}`"),
            &format!("error shown, \"{want}\"; no run starts"),
        ));
    }
    let out = js(
        c,
        "const boxes = [...document.querySelectorAll('[data-run]')];
         const was = boxes.map(b => b.checked);
         boxes.forEach(b => b.checked = false);
         document.getElementById('run').click();
         const out = [document.getElementById('error').textContent, document.body.dataset.state];
         boxes.forEach((b, i) => b.checked = was[i]);
         return out;",
    )
    .await?;
    let want = "Choose at least one clock to run.";
    if out[0].as_str() != Some(want) || out[1].as_str() != Some("ready") {
        return Err(format!("no clock chosen: {out}"));
    }
    rows.push(bad_input_row(
        "page field",
        "no clock chosen",
        &format!("error shown, \"{want}\"; no run starts"),
    ));
    js(
        c,
        "document.getElementById('error').textContent = ''; return 0",
    )
    .await?;
    Ok(rows)
}

/// Imports: an error in the status line, and nothing else changes.
async fn refused_imports(c: &Client, files: &Path) -> Result<Vec<String>, String> {
    let mut rows = Vec::new();
    let before = js(c, SNAPSHOT).await?;
    let input = c
        .find(Locator::Id("native-file"))
        .await
        .map_err(|e| e.to_string())?;
    let imports: [(&str, &str, &str); 11] = [
        (
            "100-mib.json",
            "a file of 100 MiB",
            "Could not read 100-mib.json: report: 104857600 bytes is larger than the 32 MiB a report may be",
        ),
        (
            "not-json.json",
            "text that is not JSON",
            "Could not read not-json.json: report: not JSON",
        ),
        (
            "empty.json",
            "an empty file",
            "Could not read empty.json: report: not JSON",
        ),
        (
            "no-version.json",
            "`{}`",
            "no schema_version: this is not a ticklab report",
        ),
        (
            "schema-999.json",
            "schema version 999",
            "schema version 999; this ticklab reads versions 1 to 7",
        ),
        (
            "wrong-shape.json",
            "`clocks` a string",
            "Could not read wrong-shape.json: report: malformed report: invalid type: expected a sequence",
        ),
        (
            "no-generator.json",
            "`{\"schema_version\": 3}`",
            "Could not read no-generator.json: report: malformed report: missing field `generator`",
        ),
        (
            "deep.json",
            "arrays nested 100 000 deep",
            "Could not read deep.json: report: not JSON",
        ),
        (
            "comparison-2.json",
            "a comparison of format 2",
            "Could not read comparison-2.json: report: a comparison of format 2; this ticklab reads format 1",
        ),
        (
            "comparison-of-999.json",
            "a comparison holding a report of schema 999",
            "Could not read comparison-of-999.json: report: schema version 999; this ticklab reads versions 1 to 7",
        ),
        (
            "comparison-unmeasured.json",
            "a comparison whose one run has no report",
            "Could not read comparison-unmeasured.json: report: this comparison holds no run that measured",
        ),
    ];
    for (name, what, want) in imports {
        js(
            c,
            "document.getElementById('compare-status').textContent = ''; return 0",
        )
        .await?;
        input
            .send_keys(&files.join(name).to_string_lossy())
            .await
            .map_err(|e| format!("{name}: {e}"))?;
        wait_for(
            c,
            "return document.getElementById('compare-status').textContent !== ''",
            Duration::from_secs(60),
        )
        .await?;
        let status = js(
            c,
            "return document.getElementById('compare-status').textContent",
        )
        .await?;
        if !status.as_str().unwrap_or("").contains(want) {
            return Err(format!("{name}: {status}"));
        }
        if js(c, SNAPSHOT).await? != before {
            return Err(format!("{name}: the page changed beyond its status line"));
        }
        rows.push(bad_input_row(
            "import",
            &format!("{what} (`{name}`)"),
            &format!("\"{want}\"; nothing else changes"),
        ));
    }
    input
        .send_keys(&files.join("html.json").to_string_lossy())
        .await
        .map_err(|e| e.to_string())?;
    wait_for(
        c,
        "return document.getElementById('compare-status').textContent.includes('html.json')",
        Duration::from_secs(20),
    )
    .await?;
    let out = js(
        c,
        "return [document.querySelectorAll('#compare img, #compare script, #context img').length,
                 self.pwned === undefined,
                 document.getElementById('compare-table').textContent.includes('<img src=x onerror=\"self.pwned=1\">'),
                 document.getElementById('compare-status').textContent.includes('<script>self.pwned=2</script>')]",
    )
    .await?;
    if out != serde_json::json!([0, true, true, true]) {
        return Err(format!(
            "HTML in an imported report: [elements, not run, name as text, cpu as text] = {out}"
        ));
    }
    rows.push(bad_input_row(
        "import",
        "a report whose clock name is `<img src=x onerror=\"self.pwned=1\">` and CPU `<script>self.pwned=2</script>`",
        "shown as text; no element made, no script run",
    ));
    Ok(rows)
}

/// Timings pasted for analysis: the error in the answer's place, no plot, no figure.
async fn refused_pastes(c: &Client) -> Result<Vec<String>, String> {
    let mut rows = Vec::new();
    let pastes: [(&str, &str, &str); 7] = [
        (
            "",
            "nothing pasted and no file",
            "Choose a file or paste timings first.",
        ),
        ("abc", "`abc`", "line 1: 'abc' is not a number"),
        (
            "1\n-2",
            "a negative duration",
            "line 2: -2 is negative; durations cannot be",
        ),
        (
            "[1, \"x\"]",
            "JSON of no tool's kind",
            "is JSON, but not a kind ticklab reads",
        ),
        (
            "<img src=x onerror=self.pwned=3>",
            "`<img src=x onerror=self.pwned=3>`",
            "line 1: '<img src=x onerror=self.pwned=3>' is not a number",
        ),
        (
            "0.5\r\n0,25\r\n",
            "decimal commas, CRLF (`0.5`, `0,25`)",
            "line 2: '0,25' is not a number: it has a decimal comma",
        ),
        (
            "1,234,567\n",
            "thousands separated (`1,234,567`)",
            "it has a separator between groups of thousands",
        ),
    ];
    for (text, what, want) in pastes {
        let got = c
            .execute(
                "const [t] = arguments;
                 document.getElementById('analyze-text').value = t;
                 delete document.getElementById('analysis').dataset.state;
                 document.getElementById('analyze-run').click();
                 return 0",
                vec![serde_json::json!(text)],
            )
            .await
            .map_err(|e| e.to_string())?;
        let _ = got;
        wait_for(
            c,
            "return !!document.getElementById('analysis').dataset.state",
            Duration::from_secs(10),
        )
        .await?;
        let out = js(
            c,
            "const b = document.getElementById('analysis');
             return [b.dataset.state, document.getElementById('analysis-answer').textContent,
                     b.dataset.tickNs === undefined,
                     [...b.querySelectorAll('canvas')].every(c => c.hidden),
                     self.pwned === undefined, b.querySelectorAll('img').length]",
        )
        .await?;
        if out[0] != "failed"
            || !out[1].as_str().unwrap_or("").contains(want)
            || out[2] != true
            || out[3] != true
            || out[4] != true
            || out[5] != 0
        {
            return Err(format!("pasting {what}: {out}"));
        }
        rows.push(bad_input_row(
            "page analysis",
            &format!("pasted: {what}"),
            &format!("\"{want}\" where the answer goes; no figure, no plot"),
        ));
    }
    Ok(rows)
}

/// Result links that hold no result: a message in the shared box, nothing else shown.
async fn refused_links(c: &Client, url: &str) -> Result<Vec<String>, String> {
    let mut rows = Vec::new();
    let deflated = |text: &str| {
        format!(
            "const done = arguments[arguments.length - 1];
             new Response(new Blob([{text}]).stream().pipeThrough(new CompressionStream('deflate-raw')))
               .arrayBuffer().then(b => done(btoa(String.fromCharCode(...new Uint8Array(b)))
                 .replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '')));"
        )
    };
    let packed = |script: String| async move {
        c.execute_async(&script, vec![])
            .await
            .map_err(|e| e.to_string())
            .map(|v| v.as_str().unwrap_or("").to_string())
    };
    let wrong_shape = packed(deflated(
        "'{\"from\":\"x\",\"place\":\"browser\",\"who\":[],\"clocks\":[]}'",
    ))
    .await?;
    let bomb = packed(deflated("' '.repeat(1 << 20)")).await?;
    let links: [(String, &str, &str); 4] = [
        (
            "%%%".into(),
            "not base64 (`#result=%%%`)",
            "This link holds no result this page can read",
        ),
        (
            "AAAA".into(),
            "base64 that is not deflated JSON",
            "This link holds no result this page can read",
        ),
        (
            wrong_shape,
            "a result with no `who` fields",
            "a result has the wrong number of fields",
        ),
        (
            bomb,
            "a megabyte of spaces, deflated to a few bytes",
            "the link unpacks to more than a result holds",
        ),
    ];
    for (packed, what, want) in links {
        c.goto("about:blank").await.map_err(|e| e.to_string())?;
        c.goto(&format!("{url}#result={packed}"))
            .await
            .map_err(|e| e.to_string())?;
        wait_ready(c).await?;
        let out = js(
            c,
            "return [document.getElementById('shared').dataset.state,
                     document.getElementById('shared-line').textContent,
                     document.querySelectorAll('#shared-table tbody tr').length]",
        )
        .await?;
        if out[0] != "failed" || !out[1].as_str().unwrap_or("").contains(want) || out[2] != 0 {
            return Err(format!("link {what}: {out}"));
        }
        rows.push(bad_input_row(
            "result link",
            what,
            &format!("\"{want}\"; no result shown"),
        ));
    }
    c.goto(url).await.map_err(|e| e.to_string())?;
    wait_ready(c).await?;
    Ok(rows)
}

/// Cancel at several points of a full run: the time from the click to the stopped run.
async fn cancels(c: &Client) -> Result<Vec<String>, String> {
    let mut cancels = Vec::new();
    for delay_ms in [100u64, 700, 1500, 2500] {
        js(c, "self.longest = 0;
               try { if (!PerformanceObserver.supportedEntryTypes.includes('longtask')) throw 0;
                 new PerformanceObserver(l => { for (const e of l.getEntries()) self.longest = Math.max(self.longest, e.duration); })
                 .observe({ entryTypes: ['longtask'] }); } catch { self.longest = null; }
               document.getElementById('run').click(); return 0").await?;
        wait_for(
            c,
            "return document.body.dataset.state === 'running'",
            Duration::from_secs(10),
        )
        .await?;
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        let wall = std::time::Instant::now();
        let out = c
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 if (document.body.dataset.state !== 'running') { done(null); return; }
                 const longest = self.longest;
                 const o = new MutationObserver(() => {
                   if (document.body.dataset.state !== 'running') {
                     o.disconnect();
                     done([self.ticklabTimes.stoppedAt - self.ticklabTimes.cancelAt, longest]);
                   }
                 });
                 o.observe(document.body, { attributes: true });
                 document.getElementById('cancel').click();
                 setTimeout(() => done(null), 5000);",
                vec![],
            )
            .await
            .map_err(|e| e.to_string())?;
        let wall_ms = wall.elapsed().as_secs_f64() * 1e3;
        let state = js(c, "return document.body.dataset.state").await?;
        let ms = out[0].as_f64().unwrap_or(f64::NAN);
        if !(0.0..=100.0).contains(&ms) || state != "cancelled" {
            return Err(format!("cancel {delay_ms} ms in: {out} ms, state {state}"));
        }
        // Tasks of the run before the click: what could delay a click being seen.
        let longest = out[1].as_f64();
        if longest.is_some_and(|l| l > 100.0) {
            return Err(format!(
                "cancel {delay_ms} ms in: the run held the page for {longest:?} ms at a stretch"
            ));
        }
        cancels.push(format!(
            "{ms:.1} ms (wall {wall_ms:.0} ms, longest task {longest:?} ms)"
        ));
    }
    Ok(cancels)
}

/// A run during which the tab is hidden is flagged, and the page met no error.
async fn hidden_run(c: &Client) -> Result<(), String> {
    js(c, "document.querySelectorAll('[data-run]').forEach(b => b.checked = b.dataset.run === 'Date.now');
           document.getElementById('run').click();
           Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
           document.dispatchEvent(new Event('visibilitychange'));
           delete document.visibilityState;
           return 0").await?;
    let state = wait_done(c, Duration::from_secs(60)).await?;
    let flagged = js(c, "return document.getElementById('context-list').textContent.includes('was hidden during the run')").await?;
    if state != "done" || flagged != serde_json::json!(true) {
        return Err(format!("hidden run: state {state}, flagged {flagged}"));
    }
    let errors = js(c, "return self.ticklabErrors").await?;
    if errors != serde_json::json!([]) {
        return Err(format!("page errors: {errors}"));
    }
    Ok(())
}

#[test]
fn the_page_refuses_bad_input_and_imports_and_cancels_within_100_ms() {
    let _alone = one_browser_at_a_time();
    let site = built_site();
    let dir = tempfile::tempdir().unwrap();
    let report = native_report(dir.path());
    let files = dir.path().join("imports");
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(files.join("100-mib.json"), vec![b' '; 100 << 20]).unwrap();
    std::fs::write(files.join("not-json.json"), "this is not { json").unwrap();
    std::fs::write(files.join("empty.json"), "").unwrap();
    std::fs::write(files.join("no-version.json"), "{}").unwrap();
    std::fs::write(files.join("schema-999.json"), r#"{"schema_version": 999}"#).unwrap();
    std::fs::write(
        files.join("wrong-shape.json"),
        r#"{"schema_version": 1, "clocks": "x"}"#,
    )
    .unwrap();
    std::fs::write(files.join("deep.json"), "[".repeat(100_000)).unwrap();
    std::fs::write(files.join("no-generator.json"), r#"{"schema_version": 3}"#).unwrap();
    std::fs::write(
        files.join("comparison-2.json"),
        r#"{"ticklab_comparison": 2, "runs": []}"#,
    )
    .unwrap();
    std::fs::write(
        files.join("comparison-of-999.json"),
        r#"{"ticklab_comparison": 1, "runs": [{"engine": "WebKit", "isolated": true, "report": {"schema_version": 999}}]}"#,
    )
    .unwrap();
    std::fs::write(
        files.join("comparison-unmeasured.json"),
        r#"{"ticklab_comparison": 1, "runs": [{"engine": "Safari", "failure": "not found"}]}"#,
    )
    .unwrap();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    v["clocks"][0]["info"]["name"] = "<img src=x onerror=\"self.pwned=1\">".into();
    v["environment"]["cpu"] = "<script>self.pwned=2</script>".into();
    std::fs::write(files.join("html.json"), v.to_string()).unwrap();

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut figures = Vec::new();
    for (browser, drv) in engines() {
        let (_server, url) = serve(Path::new(BIN), &site, &report, &[]).unwrap();
        let (rows, line) = rt
            .block_on(hostile_page(browser, &drv, &url, &files))
            .unwrap_or_else(|e| panic!("{browser:?}: {e}"));
        assert_bad_inputs_listed(
            "page field",
            &rows
                .iter()
                .filter(|r| r.starts_with("| page field"))
                .cloned()
                .collect::<Vec<_>>(),
        );
        for area in ["import", "page analysis", "result link"] {
            assert_bad_inputs_listed(
                area,
                &rows
                    .iter()
                    .filter(|r| r.starts_with(&format!("| {area} |")))
                    .cloned()
                    .collect::<Vec<_>>(),
            );
        }
        figures.push(line);
    }
    eprintln!("{}", figures.join("\n"));
}

/// Three loads of the page with no click: each shows performance.now's tick in `#headline`
/// on its own. Returns the ticks, when each appeared (ms from navigation start) and the
/// verdict beside it.
async fn headlines(
    browser: Browser,
    driver: &Path,
    url: &str,
) -> Result<Vec<(f64, f64, String)>, String> {
    let s = open(browser, driver, (1280, 1000)).await?;
    let c = &s.client;
    let out = async {
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
    .await;
    let _ = c.clone().close().await;
    out
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
        // ticklab serve isolated and not, and a plain static host (a class's GitHub Pages).
        for (isolated, mode) in [
            (true, "isolated"),
            (false, "not-isolated"),
            (false, "static host"),
        ] {
            let extra: &[&str] = if isolated { &[] } else { &["--no-isolation"] };
            let host = (mode == "static host").then(|| StaticHost::start(&site).unwrap());
            let served = match &host {
                Some(_) => None,
                None => Some(serve(Path::new(BIN), &site, &report, extra).unwrap()),
            };
            let url = host
                .as_ref()
                .map_or_else(|| served.as_ref().unwrap().1.clone(), |h| h.url.clone());
            let loads = rt
                .block_on(headlines(browser, &drv, &url))
                .unwrap_or_else(|e| panic!("{browser:?} {mode}: {e}"));
            drop::<Option<(Guard, String)>>(served);
            drop(host);
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
            let s = open_phone(&drv, (390, 844)).await?;
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
            let _ = c.clone().close().await;
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

/// What a class does with the page on a static host, in one browser: the playground, timings
/// from elsewhere, many reports side by side, a result link, the isolation switch and a
/// reload with the host down. Returns a line of figures.
async fn a_class(
    browser: Browser,
    driver: &Path,
    host: &mut StaticHost,
    files: &Path,
    ticks: (f64, f64),
) -> Result<String, String> {
    use ticklab_browser::Locator;
    let s = open(browser, driver, (1280, 1000)).await?;
    let c = &s.client;
    let out = async {
        let url = host.url.clone();
        // A run, for a report of this browser's own.
        c.goto(&format!("{url}?run")).await.map_err(|e| e.to_string())?;
        let state = wait_done(c, Duration::from_secs(240)).await?;
        if state != "done" {
            return Err(format!("the run ended '{state}'"));
        }
        let own = js(c, "return self.ticklabExportJson()").await?;
        let own = own.as_str().ok_or("no export")?.to_string();
        std::fs::write(files.join("ann.json"), &own).map_err(|e| e.to_string())?;
        std::fs::write(files.join("bob.json"), &own).map_err(|e| e.to_string())?;

        // The playground: the first look when scrolled to, then each lesson's knobs.
        js(c, "document.getElementById('playground').scrollIntoView(); return 0").await?;
        wait_for(c, "return (self.ticklabTimes.play || []).length >= 1", Duration::from_secs(30)).await?;
        for i in 0..5 {
            let n = js(c, "return self.ticklabTimes.play.length").await?;
            js(c, &format!("document.querySelectorAll('#steps button')[{i}].click(); return 0")).await?;
            wait_for(c, &format!("return self.ticklabTimes.play.length > {n}"), Duration::from_secs(30)).await?;
        }
        let play = js(
            c,
            "return [self.ticklabTimes.play.slice(1),
                     [...document.querySelectorAll('#playground canvas')].filter(c => !c.hidden).length,
                     document.getElementById('play-text').textContent]",
        )
        .await?;
        if play[1].as_u64() != Some(4) || !play[2].as_str().unwrap_or("").contains("Tick ") {
            return Err(format!("the playground drew: {play}"));
        }
        let mut redraws: Vec<f64> = play[0]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_f64()).collect())
            .unwrap_or_default();
        redraws.sort_by(f64::total_cmp);

        // Timings measured elsewhere: a 0.1 ms tick written in ms, float noise and all, in a
        // file saved as UTF-16.
        c.find(Locator::Id("analyze-file"))
            .await
            .map_err(|e| e.to_string())?
            .send_keys(&files.join("tick-0.1ms-utf16.txt").to_string_lossy())
            .await
            .map_err(|e| e.to_string())?;
        js(c, "document.getElementById('analyze-run').click(); return 0").await?;
        wait_for(c, "return !!document.getElementById('analysis').dataset.state", Duration::from_secs(20)).await?;
        let an = js(
            c,
            "const b = document.getElementById('analysis');
             return [b.dataset.state, Number(b.dataset.tickNs), document.getElementById('analysis-detail').textContent]",
        )
        .await?;
        if an[0] != "done" || an[1].as_f64() != Some(100_000.0) {
            return Err(format!("analysed the 0.1 ms file as: {an}"));
        }
        // A table of four clocks' readings, which headless Chromium wrote (tests/data): a row
        // a column, in the command's words, read as readings.
        let table = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/data/chromium-clocks.csv")
            .canonicalize()
            .map_err(|e| e.to_string())?;
        c.find(Locator::Id("analyze-file"))
            .await
            .map_err(|e| e.to_string())?
            .send_keys(&table.to_string_lossy())
            .await
            .map_err(|e| e.to_string())?;
        js(c, "delete document.getElementById('analysis').dataset.state; document.getElementById('analyze-run').click(); return 0").await?;
        wait_for(c, "return !!document.getElementById('analysis').dataset.state", Duration::from_secs(20)).await?;
        let rows = js(
            c,
            "return [...document.querySelectorAll('#analysis-overview tbody tr')]
                .map(r => [...r.children].map(c => c.textContent))",
        )
        .await?;
        let rows = rows.as_array().cloned().unwrap_or_default();
        let now = rows.iter().find(|r| r[0] == "performance_now_ms");
        if rows.len() != 4
            || now.is_none_or(|r| r[2] != "readings" || !r[3].as_str().unwrap_or("").starts_with("100.000 µs"))
        {
            return Err(format!("the table of four clocks gave: {rows:?}"));
        }

        // Compare: three reports and a broken fourth, at once.
        js(c, "document.getElementById('compare-status').replaceChildren(); return 0").await?;
        let paths: Vec<String> = ["ann.json", "bob.json", "native.json", "broken.json"]
            .iter()
            .map(|f| files.join(f).to_string_lossy().into_owned())
            .collect();
        c.find(Locator::Id("native-file"))
            .await
            .map_err(|e| e.to_string())?
            .send_keys(&paths.join("\n"))
            .await
            .map_err(|e| e.to_string())?;
        wait_for(c, "return document.querySelectorAll('#compare-status li').length === 4", Duration::from_secs(30)).await?;
        let cmp = js(
            c,
            "return [[...document.querySelectorAll('#compare-status li')].map(l => [l.textContent, l.className]),
                     [...new Set([...document.querySelectorAll('#compare-table tbody tr:not(.group) td:first-child')].map(t => t.textContent))].sort(),
                     self.ticklabMatrixCsv().trim().split('\\r\\n').length,
                     document.querySelectorAll('#compare-table tbody tr:not(.group)').length]",
        )
        .await?;
        let lines = cmp[0].as_array().cloned().unwrap_or_default();
        let fine = lines.iter().filter(|l| l[1] != "error").count();
        let broken = lines
            .iter()
            .find(|l| l[1] == "error")
            .and_then(|l| l[0].as_str())
            .unwrap_or("");
        if fine != 3 || !broken.contains("broken.json") || !broken.contains("malformed report: invalid type: expected a sequence") {
            return Err(format!("Compare said: {}", cmp[0]));
        }
        if cmp[1] != serde_json::json!(["ann.json", "bob.json", "native.json", "this page"]) {
            return Err(format!("Compare's reports: {}", cmp[1]));
        }
        if cmp[2].as_u64() != cmp[3].as_u64().map(|n| n + 1) {
            return Err(format!("the CSV has {} lines for {} rows", cmp[2], cmp[3]));
        }

        // A result link: made, at most 2 KB, and opened read-only beside the visitor's own.
        js(c, "document.getElementById('share').click(); return 0").await?;
        wait_for(c, "return document.getElementById('share-link').value !== ''", Duration::from_secs(10)).await?;
        let link = js(c, "return document.getElementById('share-link').value").await?;
        let link = link.as_str().unwrap_or("").to_string();
        let fragment = link.split_once('#').map_or(0, |(_, f)| f.len() + 1);
        if !(1..=2000).contains(&fragment) {
            return Err(format!("a link with a fragment of {fragment} characters"));
        }
        let own_clocks = js(c, "return document.querySelectorAll('#summary tbody tr').length").await?;
        c.goto(&link).await.map_err(|e| e.to_string())?;
        wait_ready(c).await?;
        wait_for(c, "return !!document.getElementById('shared').dataset.state", Duration::from_secs(10)).await?;
        let shared = js(
            c,
            "return [document.getElementById('shared').dataset.state,
                     document.querySelectorAll('#shared-table tbody tr').length,
                     document.getElementById('shared').hidden]",
        )
        .await?;
        if shared != serde_json::json!(["shown", own_clocks, false]) {
            return Err(format!("the link opened as {shared}, the run had {own_clocks} clocks"));
        }

        // The service worker's isolation, on a host that sends no COOP or COEP.
        c.goto(&format!("{url}?isolate=1")).await.map_err(|e| e.to_string())?;
        wait_for(c, "return !!document.querySelector('#headline[data-tick-ns]')", Duration::from_secs(30)).await?;
        let iso = js(c, "return [self.crossOriginIsolated, Number(document.getElementById('headline').dataset.tickNs)]").await?;
        if iso[0] != true || iso[1].as_f64() != Some(ticks.0) {
            return Err(format!("?isolate on the static host: [isolated, tick] = {iso}"));
        }

        // Offline: the host goes down and the page still loads and measures.
        host.stop();
        c.goto(&url).await.map_err(|e| e.to_string())?;
        wait_for(c, "return !!document.querySelector('#headline[data-tick-ns]')", Duration::from_secs(30)).await?;
        let off = js(c, "return [Number(document.getElementById('headline').dataset.tickNs), self.ticklabErrors]").await?;
        if off[1] != serde_json::json!([]) || off[0].as_f64() != Some(ticks.1) {
            return Err(format!("offline: [tick, errors] = {off}"));
        }
        Ok(format!(
            "{browser:?}: playground redraws {:?} ms (median {:.0}), the 0.1 ms file analysed as {} ns, \
             Compare of 3 reports + 1 broken ({broken}), {} matrix rows, a link of {} characters \
             ({fragment} in its fragment), isolated via the service worker at {} ns, offline at {} ns",
            redraws.iter().map(|r| r.round()).collect::<Vec<_>>(),
            redraws.get(redraws.len() / 2).copied().unwrap_or(f64::NAN),
            an[1],
            cmp[3],
            link.len(),
            iso[1],
            off[0],
        ))
    }
    .await;
    let _ = c.clone().close().await;
    out
}

#[test]
fn a_class_uses_the_page_on_a_static_host() {
    let _alone = one_browser_at_a_time();
    let site = built_site();
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path();
    native_report(files);
    std::fs::write(
        files.join("broken.json"),
        r#"{"schema_version": 3, "clocks": "x"}"#,
    )
    .unwrap();
    // A tick of 0.1 ms, written in ms as a page's differences come out: 0.30000000000000004.
    let text: String = (0..3000)
        .map(|i| format!("{}\n", ((i * 7919) % 53 + 1) as f64 * 0.1))
        .collect();
    assert!(text.contains("0.30000000000000004"));
    // Saved as a spreadsheet's "Unicode text": UTF-16, little-endian, its mark first, CRLF.
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(
        text.replace('\n', "\r\n")
            .encode_utf16()
            .flat_map(u16::to_le_bytes),
    );
    std::fs::write(files.join("tick-0.1ms-utf16.txt"), utf16).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut summary = String::new();
    for (browser, drv, isolated_ns, plain_ns) in documented() {
        let mut host = StaticHost::start(&site).unwrap();
        let line = rt
            .block_on(a_class(
                browser,
                &drv,
                &mut host,
                files,
                (isolated_ns, plain_ns),
            ))
            .unwrap_or_else(|e| panic!("{browser:?}: {e}"));
        summary.push_str(&line);
        summary.push('\n');
    }
    eprintln!("{summary}");
}

/// Clocks the worker-death run measures, in the page's order, and what befalls each.
const DEATH_RUN: [(&str, Option<&str>); 5] = [
    ("performance.now", None),
    (
        "Date.now",
        Some("the worker failed: Uncaught RuntimeError: killed mid-run"),
    ),
    ("timeOrigin+now", None),
    (
        "sim-chromium",
        Some("the worker gave no sign of life for 20 s"),
    ),
    ("sim-jiffy", None),
];

/// A run whose worker dies twice mid-clock: once loudly (the error event a worker whose
/// script fails sends, then the end) during Date.now, once silently (terminated and nothing
/// said, as when the browser kills it) during sim-chromium. What was measured stays on
/// screen and in Export, each death is named on its clock, and the clocks after it run in a
/// new worker.
async fn a_worker_dies(browser: Browser, driver: &Path, url: &str) -> Result<String, String> {
    let s = open(browser, driver, (1280, 1400)).await?;
    let c = &s.client;
    let out = async {
        c.goto(url).await.map_err(|e| e.to_string())?;
        wait_ready(c).await?;
        let plan: Vec<(&str, bool)> = DEATH_RUN.iter().map(|(id, f)| (*id, f.is_some())).collect();
        c.execute(
            "const [plan] = arguments;
             const Real = self.Worker;
             self.ticklabKills = [];
             self.Worker = class extends Real {
               constructor(url, opts) {
                 super(url, opts);
                 this.addEventListener('message', (ev) => {
                   const m = ev.data || {};
                   const loud = m.id === plan[1][0], silent = m.id === plan[3][0];
                   // Its first message, progress or (on a busy machine, before any) its result.
                   if (!(loud || silent) || self.ticklabKills.includes(m.id)) return;
                   self.ticklabKills.push(m.id);
                   ev.stopImmediatePropagation();
                   // A crash's error reaches the Worker while it is still alive (WebKit
                   // delivers none to a terminated one); a silent death is only the end.
                   if (loud) this.dispatchEvent(new ErrorEvent('error',
                     { message: 'Uncaught RuntimeError: killed mid-run', cancelable: true }));
                   this.terminate();
                 });
               }
             };
             const ids = plan.map(p => p[0]);
             document.querySelectorAll('[data-run]').forEach(b => b.checked = ids.includes(b.dataset.run));
             document.getElementById('run').click();
             return 0",
            vec![serde_json::json!(plan)],
        )
        .await
        .map_err(|e| e.to_string())?;
        let t = std::time::Instant::now();
        let state = wait_done(c, Duration::from_secs(120)).await?;
        let secs = t.elapsed().as_secs_f64();
        let v = js(
            c,
            "return [[...document.querySelectorAll('#summary tbody tr')]
                       .map(r => [r.dataset.clock, r.dataset.tickNs !== undefined, r.textContent]),
                     self.ticklabKills, self.ticklabExportJson(), self.ticklabErrors,
                     document.getElementById('status').textContent,
                     document.getElementById('export-json').disabled]",
        )
        .await?;
        if state != "done" || v[1] != serde_json::json!(["Date.now", "sim-chromium"]) {
            return Err(format!("the run ended '{state}' with the kills {}", v[1]));
        }
        let rows = v[0].as_array().cloned().unwrap_or_default();
        let report = ticklab::Report::from_json(v[2].as_str().unwrap_or(""))
            .map_err(|e| format!("Export: {e}"))?;
        if rows.len() != DEATH_RUN.len() || report.clocks.len() != DEATH_RUN.len() {
            return Err(format!("{} rows and {} exported clocks: {}", rows.len(), report.clocks.len(), v[0]));
        }
        for ((id, death), (row, clock)) in DEATH_RUN.iter().zip(rows.iter().zip(&report.clocks)) {
            let (shown, ticked, text) = (row[0].as_str(), row[1] == true, row[2].as_str().unwrap_or(""));
            let errors: Vec<String> = clock.errors.iter().map(|e| ticklab::present::caveat(&e.cause)).collect();
            let ok = shown == Some(*id)
                && match death {
                    None => ticked && clock.tick.is_some() && errors.is_empty(),
                    Some(why) => !ticked && text.contains(why) && clock.tick.is_none() && errors == [*why],
                };
            if !ok {
                return Err(format!("{id}: shown as {row}; exported with errors {errors:?}"));
            }
        }
        if v[3] != serde_json::json!([]) || v[5] != false {
            return Err(format!("page errors {}, Export disabled {}", v[3], v[5]));
        }
        Ok(format!("{browser:?}: {} in {secs:.1} s, three clocks measured, two deaths named", v[4]))
    }
    .await;
    let _ = c.clone().close().await;
    out
}

#[test]
fn a_worker_that_dies_mid_run_leaves_the_results_so_far_and_names_its_death() {
    let _alone = one_browser_at_a_time();
    let site = built_site();
    let mut lines = Vec::new();
    for (browser, drv) in engines() {
        let host = StaticHost::start(&site).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        lines.push(
            rt.block_on(a_worker_dies(browser, &drv, &host.url))
                .unwrap_or_else(|e| panic!("{browser:?}: {e}")),
        );
    }
    eprintln!("{}", lines.join("\n"));
    let outcome = |why: &str| {
        format!("that clock failed, \"{why}\", in the summary and Export; the clocks before it kept, the clocks after it measured in a new worker")
    };
    assert_bad_inputs_listed(
        "page run",
        &[
            bad_input_row(
                "page run",
                "the lab's worker terminated mid-clock, then the error event of a worker whose script failed",
                &outcome(DEATH_RUN[1].1.unwrap_or("")),
            ),
            bad_input_row(
                "page run",
                "the lab's worker terminated mid-clock with nothing said (as when the browser kills it)",
                &outcome(DEATH_RUN[3].1.unwrap_or("")),
            ),
        ],
    );
}

/// Texts a hostile report puts in its fields: markup, script, entities, template syntax,
/// bidirectional and zero-width characters, controls, and more than a field may show.
const HOSTILE: [&str; 12] = [
    "<img src=x onerror=\"self.pwned=1\">",
    "</td></tr></table><script>self.pwned=2</script>",
    "\"><svg/onload=self.pwned=3>",
    "javascript:self.pwned=4",
    "<iframe srcdoc=\"<script>parent.pwned=5</script>\"></iframe>",
    "&lt;b&gt;not bold&amp;",
    "${self.pwned=6}{{constructor.constructor('self.pwned=7')()}}",
    "\u{202e}txt.exe\u{200b}\u{feff}",
    "tab\tnew\nline\r\u{1b}[2J\u{7}",
    "😀 ☃ 𝕏",
    "<b onmouseover=self.pwned=8>bold</b>",
    "",
];

/// A report of every clock, all of whose free-text fields hold [`HOSTILE`] texts (a field
/// is free text when the report still reads with it changed); its clock names, OS and CPU,
/// the fields Compare shows, get the markup and one of 5 000 characters. Returns the JSON,
/// the texts the page must show as they are (each clipped to the 300 characters a field
/// shows), and how many of the report's strings were changed.
fn hostile_report(real: &str) -> (String, Vec<String>, usize, usize) {
    fn strings(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(_) => out.push(at),
            serde_json::Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    strings(x, format!("{at}/{i}"), out);
                }
            }
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    strings(
                        x,
                        format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                        out,
                    );
                }
            }
            _ => {}
        }
    }
    let mut v: serde_json::Value = serde_json::from_str(real).unwrap();
    let mut at = Vec::new();
    strings(&v, String::new(), &mut at);
    let mut changed = 0;
    for p in &at {
        let text = HOSTILE[changed % HOSTILE.len()];
        let old = std::mem::replace(v.pointer_mut(p).unwrap(), text.into());
        if ticklab::Report::from_json(&v.to_string()).is_ok() {
            changed += 1;
        } else {
            *v.pointer_mut(p).unwrap() = old;
        }
    }
    let long = "<b>x</b>".repeat(625);
    let mut shown = vec![HOSTILE[0].to_string(), HOSTILE[1].to_string()];
    v["environment"]["os"] = HOSTILE[0].into();
    v["environment"]["cpu"] = HOSTILE[1].into();
    let names = [
        HOSTILE[2],
        HOSTILE[4],
        HOSTILE[6],
        HOSTILE[7],
        HOSTILE[10],
        &long,
    ];
    for (i, c) in v["clocks"].as_array_mut().unwrap().iter_mut().enumerate() {
        let name = format!("{}{i}", names[i % names.len()]);
        shown.push(name.chars().take(300).collect());
        c["info"]["name"] = name.into();
    }
    let text = v.to_string();
    assert!(ticklab::Report::from_json(&text).is_ok());
    (text, shown, changed, at.len())
}

/// A class's worth of Compare: a hostile report (every field, and its file's name) shown as
/// text only, and one refused for markup where a word belongs, then 60 reports of at least 2 MB at once, with no task of the page's thread
/// over 200 ms, measured in the page: the longest gap between the beats of a timer, and the
/// Long Tasks API's longest where the browser has it.
async fn a_class_loads(
    browser: Browser,
    driver: &Path,
    url: &str,
    files: &Path,
    hostile: (&str, &[String]),
    refused: &str,
    class: &[String],
) -> Result<String, String> {
    use ticklab_browser::Locator;
    let s = open(browser, driver, (1280, 1000)).await?;
    let c = &s.client;
    let out = async {
        c.goto(url).await.map_err(|e| e.to_string())?;
        wait_ready(c).await?;
        let input = c.find(Locator::Id("native-file")).await.map_err(|e| e.to_string())?;
        let tags = "return [...new Set([...document.querySelectorAll('#compare *')].map(e => e.tagName))].sort()";
        let before = js(c, tags).await?;
        input
            .send_keys(&files.join(hostile.0).to_string_lossy())
            .await
            .map_err(|e| e.to_string())?;
        wait_for(c, "return document.querySelectorAll('#compare-status li').length === 1", Duration::from_secs(60)).await?;
        let v = c
            .execute(
                "const [shown] = arguments;
                 const table = document.getElementById('compare-table').textContent;
                 const li = document.querySelector('#compare-status li');
                 return [shown.filter(s => !table.includes(s)), li.textContent, li.className,
                         self.pwned === undefined, self.ticklabErrors]",
                vec![serde_json::json!(hostile.1)],
            )
            .await
            .map_err(|e| e.to_string())?;
        let after = js(c, tags).await?;
        if v[0] != serde_json::json!([])
            || !v[1].as_str().unwrap_or("").starts_with(hostile.0)
            || v[2] != ""
            || v[3] != true
            || v[4] != serde_json::json!([])
            || after.as_array().is_none_or(|a| {
                a.iter().any(|t| {
                    !before.as_array().is_some_and(|b| b.contains(t))
                        && !["LI", "TBODY", "TD"].contains(&t.as_str().unwrap_or(""))
                })
            })
        {
            return Err(format!(
                "the hostile report: [not shown as text, status, its class, nothing ran, page errors] = {v}; \
                 elements in Compare {before} before, {after} after (rows: TBODY, TD, LI)"
            ));
        }

        // Markup where the report allows only a word: refused, the message quoting it as text.
        js(c, "document.getElementById('native-file').value = ''; return 0").await?;
        input
            .send_keys(&files.join(refused).to_string_lossy())
            .await
            .map_err(|e| e.to_string())?;
        wait_for(c, &format!("return document.querySelector('#compare-status li').textContent.startsWith({})",
                             serde_json::json!(format!("Could not read {refused}"))), Duration::from_secs(60)).await?;
        let v = js(c, "const li = document.querySelector('#compare-status li');
                       return [li.textContent, li.className, li.children.length, self.pwned === undefined]").await?;
        if !v[0].as_str().unwrap_or("").contains(HOSTILE[1]) || v[1] != "error" || v[2] != 0 || v[3] != true {
            return Err(format!("a platform of markup: [status, class, elements in it, nothing ran] = {v}"));
        }

        // Loaded three times at most where the browser does not time its own tasks: the beat
        // also counts the time a busy machine does not run the browser, which only lengthens
        // it, so the smallest of the loads is the page's (the minimum of timings). (Beside
        // two busy loops WebKit's beat once went 491 ms twice running, 13 ms when quiet: the
        // page's workers reading 60 reports take the cores the busy loops leave.)
        let mut attempt = 0;
        let (secs, v, groups, beat, quiet, max, longtask, held) = loop {
            // The class: every file chosen at once, the page's thread watched meanwhile.
            // ChromeDriver adds files to a multiple input's earlier choice: emptied first.
            js(c, "document.getElementById('clear-compare').click();
                   document.getElementById('native-file').value = '';
                   self.beat = { max: 0, n: 0, longtask: null, stop: false };
                   let last = performance.now();
                   const tick = () => {
                     const t = performance.now();
                     self.beat.max = Math.max(self.beat.max, t - last);
                     self.beat.n += 1;
                     last = t;
                     if (!self.beat.stop) setTimeout(tick, 0);
                   };
                   setTimeout(tick, 0);
                   try {
                     if (!PerformanceObserver.supportedEntryTypes.includes('longtask')) throw 0;
                     new PerformanceObserver((l) => { for (const e of l.getEntries())
                       self.beat.longtask = Math.max(self.beat.longtask || 0, e.duration); })
                       .observe({ entryTypes: ['longtask'] });
                     self.beat.timed = true;
                   } catch {}
                   return 0").await?;
            // The same beat over two quiet seconds first: what this machine's scheduler alone does
            // to it (beside busy processes a browser is not run for 100 ms and more), which the
            // page's own holding is then measured beyond.
            let quiet = c
                .execute_async(
                    "const done = arguments[arguments.length - 1];
                     setTimeout(() => { const b = self.beat.max; self.beat.max = 0; self.beat.longtask = self.beat.timed ? 0 : null; done(b); }, 2000);",
                    vec![],
                )
                .await
                .map_err(|e| e.to_string())?
                .as_f64()
                .unwrap_or(f64::NAN);
            let t = std::time::Instant::now();
            let paths: Vec<String> = class.iter().map(|f| files.join(f).to_string_lossy().into_owned()).collect();
            input.send_keys(&paths.join("\n")).await.map_err(|e| e.to_string())?;
            wait_for(
                c,
                &format!("return document.querySelectorAll('#compare-status li').length === {}", class.len()),
                Duration::from_secs(300),
            )
            .await?;
            let secs = t.elapsed().as_secs_f64();
            // Every clock shows its first 10 reports and a button for the rest; one is pressed.
            let frames = "const done = arguments[arguments.length - 1];
                 requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(0), 100)));";
            c.execute_async(frames, vec![]).await.map_err(|e| e.to_string())?;
            let v = js(
                c,
                "const csv = self.ticklabMatrixCsv().trim().split('\\r\\n').slice(1);
                 return [[...document.querySelectorAll('#compare-status li')].filter(l => l.className === 'error').map(l => l.textContent),
                         new Set(csv.map(l => l.split(',')[1])).size, csv.length,
                         document.querySelectorAll('#compare-table tbody').length,
                         document.querySelectorAll('#compare-table tbody tr:not(.group)').length,
                         [...new Set([...document.querySelectorAll('#compare-table tr.group button')].map(b => b.textContent))],
                         self.ticklabErrors]",
            )
            .await?;
            let groups = v[3].as_u64().unwrap_or(0);
            let want = serde_json::json!([[], class.len(), groups * class.len() as u64, groups, groups * 10,
                                          [format!("Show all {} reports", class.len())], []]);
            if groups == 0 || v != want {
                return Err(format!(
                    "the class: [refused, reports in the CSV, its rows, clocks, rows shown, buttons, page errors] = {v}, not {want}"
                ));
            }
            js(c, "document.querySelector('#compare-table tr.group button').click(); return 0").await?;
            c.execute_async(frames, vec![]).await.map_err(|e| e.to_string())?;
            let beat = js(c, "self.beat.stop = true; return self.beat").await?;
            let opened = js(c, "return [document.querySelector('#compare-table tbody').querySelectorAll('tr:not(.group)').length,
                                        document.querySelectorAll('#compare-table tr.group button').length]").await?;
            if opened != serde_json::json!([class.len(), groups - 1]) {
                return Err(format!("after Show all: [rows of that clock, clocks still cut] = {opened}"));
            }
            // For a look: the first clock opened, the second cut to 10 with its button.
            js(c, "document.querySelectorAll('#compare-table tbody')[1].scrollIntoView(); scrollBy(0, -600); return 0").await?;
            let shot = target().join("e2e").join(format!("compare-60-{browser:?}.png").to_lowercase());
            let png = c.screenshot().await.map_err(|e| e.to_string())?;
            std::fs::create_dir_all(shot.parent().unwrap_or(Path::new("."))).map_err(|e| e.to_string())?;
            std::fs::write(&shot, png).map_err(|e| e.to_string())?;
            let (max, longtask) = (beat["max"].as_f64().unwrap_or(f64::NAN), beat["longtask"].as_f64());
            // The page's own tasks, where the browser times them (Chromium's Long Tasks); else
            // the beat, 200 ms beyond the longest gap the quiet page showed just before. The beat
            // also counts the time a busy machine does not run the browser at all, and the
            // page's workers competing with it for the cores.
            let held = match longtask {
                Some(l) => l > 200.0,
                None => max.is_nan() || quiet.is_nan() || max > 200.0 + quiet,
            };

            attempt += 1;
            if !held || longtask.is_some() || attempt == 3 {
                break (secs, v, groups, beat, quiet, max, longtask, held);
            }
        };
        if held {
            return Err(format!(
                "the page's thread was held {max:.0} ms at a stretch (long tasks: {longtask:?} ms; \
                 {quiet:.0} ms when quiet) while {} reports loaded",
                class.len()
            ));
        }
        Ok(format!(
            "{browser:?}: {} reports in {secs:.1} s, {} matrix rows ({groups} clocks, 10 rows each \
             shown, then one clock's all); longest gap between beats {max:.0} ms ({} beats; {quiet:.0} ms when quiet), \
             longest task {longtask:?} ms; the hostile report as text",
            class.len(),
            v[2],
            beat["n"],
        ))
    }
    .await;
    let _ = c.clone().close().await;
    out
}

#[test]
fn a_class_of_60_big_reports_keeps_the_page_responsive_and_hostile_text_stays_text() {
    let _alone = one_browser_at_a_time();
    let site = built_site();
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path();
    // Every clock of this machine: a full run's report, as each student would bring.
    let full = files.join("full.json");
    let ok = Command::new(BIN)
        .args(["run", "--save"])
        .arg(&full)
        .output()
        .expect("ticklab runs")
        .status
        .success();
    assert!(ok, "ticklab run --save failed");
    let text = std::fs::read_to_string(&full).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    // A machine with fewer clocks makes a smaller report: its clocks again, renamed.
    let clocks = v["clocks"].as_array().unwrap().clone();
    let mut round = 1;
    let pretty = |v: &serde_json::Value| serde_json::to_string_pretty(v).unwrap();
    while pretty(&v).len() < 2_000_000 && v["clocks"].as_array().unwrap().len() + clocks.len() <= 64
    {
        for mut c in clocks.clone() {
            let name = format!("{} ({round})", c["info"]["name"].as_str().unwrap());
            c["info"]["name"] = name.into();
            v["clocks"].as_array_mut().unwrap().push(c);
        }
        round += 1;
    }
    let class: Vec<String> = (1..=60).map(|i| format!("student-{i:02}.json")).collect();
    let mut sizes = Vec::new();
    for (i, name) in class.iter().enumerate() {
        v["environment"]["cpu"] = format!("student {}'s machine", i + 1).into();
        let t = pretty(&v);
        sizes.push(t.len());
        std::fs::write(files.join(name), t).unwrap();
    }
    assert!(
        sizes.iter().all(|&n| n >= 2_000_000),
        "report sizes {sizes:?}"
    );

    let small = files.join("small.json");
    let ok = Command::new(BIN)
        .args([
            "run",
            "--clock",
            "CLOCK_MONOTONIC",
            "CLOCK_REALTIME_COARSE",
            "Instant",
            "--time",
            "0.05",
            "--save",
        ])
        .arg(&small)
        .output()
        .expect("ticklab runs")
        .status;
    // On a busy machine a coarse clock may fail an experiment in 50 ms (exit 1, the report
    // saved with the reason): any saved report serves.
    assert!(
        matches!(ok.code(), Some(0 | 1)) && small.is_file(),
        "ticklab run --save failed: {ok}"
    );
    let (json, shown, changed, strings) = hostile_report(&std::fs::read_to_string(&small).unwrap());
    let name = "<img src=x onerror=self.pwned=9>.json";
    std::fs::write(files.join(name), json).unwrap();
    let mut shown = shown;
    shown.push(name.to_string());
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&small).unwrap()).unwrap();
    v["environment"]["platform"] = HOSTILE[1].into();
    std::fs::write(files.join("markup-platform.json"), v.to_string()).unwrap();

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut lines = vec![format!(
        "60 reports of {}–{} bytes; the hostile report's free text: {changed} of its {strings} strings",
        sizes.iter().min().unwrap(),
        sizes.iter().max().unwrap()
    )];
    for (browser, drv) in engines() {
        let host = StaticHost::start(&site).unwrap();
        lines.push(
            rt.block_on(a_class_loads(
                browser,
                &drv,
                &host.url,
                files,
                (name, &shown),
                "markup-platform.json",
                &class,
            ))
            .unwrap_or_else(|e| panic!("{browser:?}: {e}")),
        );
    }
    // On a phone: the hostile report's long names and the class wrap; nothing scrolls sideways.
    let host = StaticHost::start(&site).unwrap();
    let drv = driver("CHROMEDRIVER", "chromedriver");
    let mut chosen = vec![name.to_string()];
    chosen.extend(class.iter().cloned());
    let wide = rt
        .block_on(async {
            let s = open_phone(&drv, (390, 844)).await?;
            let c = &s.client;
            let out = async {
                c.goto(&host.url).await.map_err(|e| e.to_string())?;
                wait_ready(c).await?;
                let paths: Vec<String> = chosen
                    .iter()
                    .map(|f| files.join(f).to_string_lossy().into_owned())
                    .collect();
                c.find(ticklab_browser::Locator::Id("native-file"))
                    .await
                    .map_err(|e| e.to_string())?
                    .send_keys(&paths.join("\n"))
                    .await
                    .map_err(|e| e.to_string())?;
                wait_for(
                    c,
                    &format!(
                        "return document.querySelectorAll('#compare-status li').length === {}",
                        chosen.len()
                    ),
                    Duration::from_secs(300),
                )
                .await?;
                js(
                    c,
                    "document.querySelector('#compare-table tbody').scrollIntoView(); return 0",
                )
                .await?;
                tokio::time::sleep(Duration::from_millis(300)).await;
                let png = c.screenshot().await.map_err(|e| e.to_string())?;
                std::fs::write(target().join("e2e").join("compare-60-phone-390.png"), png)
                    .map_err(|e| e.to_string())?;
                js(c, WIDEST).await
            }
            .await;
            let _ = c.clone().close().await;
            out
        })
        .unwrap_or_else(|e: String| panic!("phone: {e}"));
    assert!(
        wide[0].as_f64() <= wide[1].as_f64() && wide[1] == 390,
        "Compare with a class scrolls sideways at 390 px: {wide}"
    );
    lines.push(format!(
        "a 390 px phone: {} reports, nothing wider than the screen",
        chosen.len()
    ));
    eprintln!("{}", lines.join("\n"));
    assert_bad_inputs_listed(
        "compare",
        &[
            bad_input_row(
                "compare",
                &format!("a report whose every free-text field holds markup, script, entities, template syntax, bidirectional, zero-width or control characters (`{}`, `{}`...), one clock name of 5 000 characters, in a file named `{name}`", HOSTILE[0], HOSTILE[1]),
                "shown as text, each field clipped to 300 characters; no element made, no script run",
            ),
            bad_input_row(
                "compare",
                &format!("a report whose platform is `{}` (`markup-platform.json`)", HOSTILE[1]),
                "refused, \"Could not read markup-platform.json: ...\", the markup quoted as text",
            ),
            bad_input_row(
                "compare",
                "60 reports of 2 MB or more (a whole `ticklab run --save` each), chosen at once",
                "read in a worker; each clock shows its first 10 reports and \"Show all 60 reports\"; no task of the page's thread over 200 ms",
            ),
        ],
    );
}

/// What a student's page said over plain http: its context, the headline's and the
/// AudioWorklet's reasons, the send, and its report.
struct Student {
    secure: bool,
    isolated: bool,
    headline: String,
    worklet: String,
    sent: String,
    errors: Vec<String>,
    /// The page's report, exported after the send.
    report: String,
}

/// `GET path` from the class server on loopback as its teacher: the head and the body.
fn get(port: u16, path: &str, key: &str) -> (String, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.0\r\nAuthorization: Bearer {key}\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let (h, b) = out.split_once("\r\n\r\n").unwrap();
    (h.to_string(), b.to_string())
}

/// The Compare matrix's CSV rows without the report's name (which says where a row came
/// from, not what it holds), sorted.
fn matrix_rows(csv: &str) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    assert_eq!(
        r.headers().unwrap().iter().collect::<Vec<_>>(),
        [
            "clock",
            "report",
            "browser",
            "OS",
            "isolation",
            "CPU",
            "tick",
            "read cost",
            "verdict"
        ]
    );
    let mut rows: Vec<Vec<String>> = r
        .records()
        .map(|row| {
            let row = row.unwrap();
            row.iter()
                .enumerate()
                .filter(|(i, _)| *i != 1)
                .map(|(_, c)| c.to_string())
                .collect()
        })
        .collect();
    rows.sort();
    rows
}

/// One student: the join URL by a name that is not localhost, a run, and its send.
async fn a_student(
    browser: Browser,
    driver: &Path,
    name: &str,
    port: u16,
    join: &str,
    nickname: &str,
) -> Result<Student, String> {
    let s = ticklab_browser::open_named(browser, driver, (1280, 1000), name, port).await?;
    let c = &s.client;
    let out = async {
        c.goto(join).await.map_err(|e| e.to_string())?;
        wait_ready(c).await?;
        // A worker starved of its tick budget says so in its own report: run again (the
        // send replaces the row), twice at most.
        let mut report = String::new();
        for _ in 0..3 {
            js(
                c,
                &format!(
                    "document.getElementById('class-nickname').value = {};
                     delete document.body.dataset.class;
                     document.getElementById('run').click(); return 0",
                    serde_json::json!(nickname)
                ),
            )
            .await?;
            let state = wait_done(c, Duration::from_secs(240)).await?;
            if state != "done" {
                return Err(format!("the run ended '{state}'"));
            }
            wait_for(
                c,
                "return ['sent', 'refused', 'failed'].includes(document.body.dataset.class)",
                Duration::from_secs(30),
            )
            .await?;
            let json = js(c, "return self.ticklabExportJson()").await?;
            report = json.as_str().unwrap_or_default().to_string();
            if !worker_too_starved(&report) {
                break;
            }
        }
        let v = js(
            c,
            "const w = document.querySelector(\"#clock-choice input[data-run='audio-worklet.currentFrame']\");
             return [self.isSecureContext, self.crossOriginIsolated,
                     document.getElementById('headline-isolation').textContent,
                     w ? w.closest('tr').textContent : 'no AudioWorklet row',
                     document.body.dataset.class + ': ' + document.getElementById('class-status').textContent,
                     self.ticklabErrors]",
        )
        .await?;
        Ok(Student {
            secure: v[0].as_bool().unwrap_or(true),
            isolated: v[1].as_bool().unwrap_or(true),
            headline: v[2].as_str().unwrap_or_default().to_string(),
            worklet: v[3].as_str().unwrap_or_default().to_string(),
            sent: v[4].as_str().unwrap_or_default().to_string(),
            errors: v[5]
                .as_array()
                .map(|a| a.iter().map(|e| e.to_string()).collect())
                .unwrap_or_default(),
            report,
        })
    }
    .await;
    let _ = c.clone().close().await;
    out
}

/// A class, live: students in Chromium, Firefox and WebKit reach `ticklab class` by a name
/// that is not localhost, so their page is no secure context (never isolated, no
/// AudioWorklet, and it says why), run and send; the teacher's view, open in Chromium on
/// localhost all along, shows their three rows with the plain-http ticks (100 µs, 1 ms,
/// 1 ms) without a reload, a hostile nickname as text.
#[test]
fn a_class_live_from_three_engines_over_plain_http() {
    let _alone = one_browser_at_a_time();
    let site = built_site();
    let dir = tempfile::tempdir().unwrap();
    let mut class = ticklab_browser::start_class(
        Path::new(BIN),
        &dir.path().join("class.sqlite"),
        0,
        &["--no-qr", "--root", site.to_str().unwrap()],
    );
    const NAME: &str = "ticklab-class.test";
    let join = format!("http://{NAME}:{}/?class={}", class.port, class.code);
    // Made HTML, it would raise an alert, which every later WebDriver call would fail on.
    let hostile = "<img src=x onerror=alert(1)>";
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let chromium = driver("CHROMEDRIVER", "chromedriver");
    rt.block_on(async {
        // A projector's width; tall enough that the screenshot holds the whole view.
        let t = open(Browser::Chromium, &chromium, (1280, 2400)).await.unwrap();
        let c = &t.client;
        c.goto(&format!("http://127.0.0.1:{}/class.html#key={}", class.port, class.key))
            .await
            .unwrap();
        wait_for(c, "return document.body.dataset.live === 'yes'", Duration::from_secs(60))
            .await
            .unwrap_or_else(|e| panic!("the teacher's view: {e}"));
        let mut summary = String::new();
        let mut exported = Vec::new();
        for (i, (browser, drv, _, _)) in documented().into_iter().enumerate() {
            let nickname = if browser == Browser::WebKit { hostile.to_string() } else { format!("{browser:?}") };
            let s = a_student(browser, &drv, NAME, class.port, &join, &nickname)
                .await
                .unwrap_or_else(|e| panic!("{browser:?} student: {e}"));
            summary.push_str(&format!("{browser:?}: {}\n  {}\n  {}\n", s.sent, s.headline, s.worklet));
            assert!(!s.secure && !s.isolated, "{browser:?}: secure {} isolated {}", s.secure, s.isolated);
            assert!(s.sent.starts_with("sent: Arrived"), "{browser:?}: {}", s.sent);
            assert!(s.headline.contains("not a secure context"), "{browser:?}: {}", s.headline);
            assert!(
                s.worklet.contains("secure context") && !s.worklet.contains("has no AudioWorklet"),
                "{browser:?}: {}",
                s.worklet
            );
            assert!(s.errors.is_empty(), "{browser:?}: {:?}", s.errors);
            let file = dir.path().join(format!("{browser:?}.json"));
            std::fs::write(&file, &s.report).unwrap();
            exported.push(file);
            // The teacher's view has the row without a reload.
            wait_for(c, &format!("return document.body.dataset.rows === '{}'", i + 1), Duration::from_secs(10))
                .await
                .unwrap_or_else(|e| panic!("the teacher's view after {browser:?}: {e}"));
        }
        // The rows, as the teacher's page shows them: the page's performance.now, one row
        // a student, at each engine's plain-http tick.
        wait_for(
            c,
            "return document.querySelectorAll(\"#compare-table tbody[data-clock='performance.now (worker)'] tr:not(.group)\").length === 3",
            Duration::from_secs(10),
        )
        .await
        .unwrap();
        let v = js(
            c,
            "return [[...document.querySelectorAll(\"#compare-table tbody[data-clock='performance.now (worker)'] tr:not(.group)\")]
                       .map(r => [...r.children].map(td => td.textContent)),
                     document.querySelectorAll('#who-list img, #compare-table img').length,
                     document.getElementById('who-list').textContent,
                     document.title, self.ticklabErrors, document.getElementById('class-summary').textContent]",
        )
        .await
        .unwrap();
        let (_, json) = get(class.port, "/class/rows.json", &class.key);
        let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
        // The page's digests, as the class server keeps and exports them, give the rows the
        // command reads from the same reports exported: every cell but the report's name.
        let (_, csv) = get(class.port, "/class/rows.csv", &class.key);
        let shown = Command::new(BIN).args(["show", "--matrix"]).args(&exported).output().unwrap();
        assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
        let (teacher, command) = (matrix_rows(&csv), matrix_rows(&String::from_utf8_lossy(&shown.stdout)));
        assert_eq!(teacher.len(), command.len(), "{csv}");
        assert!(teacher.iter().any(|r| r[0] == ticklab::digest::PAGE_NOW), "{csv}");
        assert_eq!(teacher, command, "the teacher's rows, then the command's");
        wait_for(c, "return document.body.dataset.plotted === '3'", Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("the class's plot: {e}"));
        let png = c.screenshot().await.unwrap();
        let shot = target().join("e2e").join("class-teacher.png");
        std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
        std::fs::write(&shot, png).unwrap();
        eprintln!("{summary}teacher: {} {}\n  screenshot {}", v[5], v[0], shot.display());
        for (browser, _, _, plain) in documented() {
            let engine = match browser {
                Browser::Chromium => "Chromium",
                Browser::Firefox => "Firefox",
                Browser::WebKit | Browser::Safari => "Safari",
                Browser::Edge => "Edge",
            };
            let row = rows["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["digest"]["who"][0].as_str().unwrap_or("").starts_with(engine))
                .unwrap_or_else(|| panic!("no row of {engine}: {rows}"));
            let tick = row["digest"]["clocks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|k| k["cells"][0] == ticklab::digest::PAGE_NOW)
                .and_then(|k| k["tick_ns"].as_f64());
            assert_eq!(tick, Some(plain), "{engine}: {row}");
            assert_eq!(row["digest"]["who"][2], "not isolated", "{engine}");
            // On the teacher's page: the same row, its tick in the lab's words.
            let shown = v[0]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r[1].as_str().unwrap_or("").starts_with(engine))
                .unwrap_or_else(|| panic!("the teacher's page has no {engine} row: {}", v[0]));
            let cells = row["digest"]["clocks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|k| k["cells"][0] == ticklab::digest::PAGE_NOW)
                .unwrap()["cells"]
                .clone();
            assert_eq!(shown[5], cells[1], "{engine}: the tick on the teacher's page");
        }
        // A hostile nickname stays text, on the list and in the matrix.
        assert_eq!(v[1], 0, "an element made of a nickname");
        assert!(v[2].as_str().unwrap().contains(hostile), "{}", v[2]);
        assert_eq!(v[4], serde_json::json!([]), "the teacher's page: {}", v[4]);

        // The server killed (SIGKILL) and started again on the same file and port: the
        // teacher's page, never reloaded, reconnects and catches up on a run posted while
        // it was away, whose browser and clock are hostile text.
        class.child.kill().unwrap();
        let _ = class.child.wait();
        let again = ticklab_browser::start_class(
            Path::new(BIN),
            &dir.path().join("class.sqlite"),
            class.port,
            &["--no-qr", "--root", site.to_str().unwrap()],
        );
        assert_eq!((&again.code, &again.key), (&class.code, &class.key));
        let evil = "<img src=x onerror=alert(2)>";
        let d = serde_json::json!({
            "from": "x", "place": "browser",
            "who": [evil, evil, "not isolated", evil],
            "clocks": [{ "cells": [evil, "1.000 ms", "1 ns", evil], "tick_ns": 1e6, "read_ns": 1.0 }],
        });
        let body = serde_json::json!({ "code": again.code, "student": "a-student-from-a-script", "nickname": "", "digest": d })
            .to_string();
        let status = {
            use std::io::{Read, Write};
            let mut s = std::net::TcpStream::connect(("127.0.0.1", again.port)).unwrap();
            write!(
                s,
                "POST /class/runs HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
            let mut out = String::new();
            s.read_to_string(&mut out).unwrap();
            out
        };
        assert!(status.starts_with("HTTP/1.0 201"), "{status}");
        wait_for(c, "return document.body.dataset.rows === '4' && document.body.dataset.live === 'yes'", Duration::from_secs(20))
            .await
            .unwrap_or_else(|e| panic!("the teacher's view after the server came back: {e}"));
        let v = js(
            c,
            "return [document.querySelectorAll('img:not(#join-qr):not(#class-plot)').length,
                     document.getElementById('compare-table').textContent.includes('<img src=x onerror=alert(2)>'),
                     self.ticklabErrors]",
        )
        .await
        .unwrap();
        assert_eq!(v[0], 0, "an element made of a posted digest");
        assert_eq!(v[1], true, "the hostile digest's text on the teacher's page");
        assert_eq!(v[2], serde_json::json!([]), "the teacher's page: {}", v[2]);
        drop(again);
        let _ = c.clone().close().await;
    });
}

/// The comparison at `saved` loaded into the page's Compare (Chromium, the built page on a
/// static host): the rows of performance.now (worker), each its cells.
fn compare_loads(saved: &Path) -> Result<Vec<Vec<String>>, String> {
    let mut host = StaticHost::start(&built_site()).map_err(|e| e.to_string())?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let rows = rt.block_on(async {
        let s = open(Browser::Chromium, &engines()[0].1, (1280, 1000)).await?;
        let c = &s.client;
        let out = async {
            c.goto(&host.url).await.map_err(|e| e.to_string())?;
            wait_ready(c).await?;
            c.find(Locator::Id("native-file"))
                .await
                .map_err(|e| e.to_string())?
                .send_keys(&saved.to_string_lossy())
                .await
                .map_err(|e| e.to_string())?;
            wait_for(
                c,
                "return document.querySelectorAll('#compare-status li').length >= 6",
                Duration::from_secs(30),
            )
            .await?;
            js(
                c,
                "return [[...document.querySelectorAll('#compare-status li.error')].map(l => l.textContent),
                         [...document.querySelectorAll('#compare-table tbody[data-clock=\"performance.now (worker)\"] tr:not(.group)')]
                           .map(tr => [...tr.children].map(td => td.textContent))]",
            )
            .await
        }
        .await;
        let _ = c.clone().close().await;
        out
    })?;
    if rows[0].as_array().is_none_or(|e| !e.is_empty()) {
        return Err(format!("refused: {}", rows[0]));
    }
    host.stop();
    serde_json::from_value(rows[1].clone()).map_err(|e| e.to_string())
}

/// `ticklab browsers`, as a user runs it from an empty directory with the drivers on PATH:
/// this machine's clocks and the three engines here, isolated and not, in one table; each
/// column's performance.now the tick its engine documents for that context (the ticks the
/// page shows opened by hand, `browsers_measure_the_documented_ticks`); `ticklab show`
/// prints the saved comparison as the command did; and with no engine found, exit 2 and
/// what to install.
#[test]
fn one_command_runs_every_engine_isolated_and_not() {
    use ticklab::comparison::Comparison;
    use ticklab::digest::{Digest, PAGE_NOW};
    let _one = one_browser_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("engines.json");
    let engines = documented();
    // The drivers the test command found, where a user's PATH would have them.
    let path = std::env::join_paths(
        engines
            .iter()
            .filter_map(|(_, d, _, _)| d.parent().map(Path::to_path_buf))
            .chain(std::env::split_paths(
                &std::env::var_os("PATH").unwrap_or_default(),
            )),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let out = Command::new(BIN)
        .args(["browsers", "--engine", "chromium,firefox,webkit", "--save"])
        .arg(&saved)
        .current_dir(dir.path())
        .env("PATH", &path)
        .output()
        .unwrap();
    let took = started.elapsed().as_secs_f64();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let c = Comparison::from_json(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(c.runs.len(), 7, "{stdout}");
    let native = c.runs[0].report.as_ref().expect("the native run");
    assert!(
        native.clocks.iter().any(|k| k.tick.is_some()),
        "no native tick: {stdout}"
    );
    let row = stdout
        .lines()
        .find(|l| l.starts_with(PAGE_NOW))
        .unwrap_or_else(|| panic!("no {PAGE_NOW} row: {stdout}"));
    for (browser, _, isolated_ns, plain_ns) in &engines {
        for (isolated, want) in [(true, *isolated_ns), (false, *plain_ns)] {
            let run = c
                .runs
                .iter()
                .find(|r| r.engine == browser.name() && r.isolated == Some(isolated))
                .unwrap_or_else(|| panic!("no {browser:?} run, isolated {isolated}: {stdout}"));
            let report = run
                .report
                .as_ref()
                .unwrap_or_else(|| panic!("{}: {:?}\n{stderr}", run.heading(), run.failure));
            assert!(run.version.is_some(), "{}: no version", run.heading());
            assert_eq!(
                report.environment.cross_origin_isolated,
                Some(isolated),
                "{}",
                run.heading()
            );
            assert!(run.attempts.is_none_or(|n| (2..=3).contains(&n)));
            // A worker the browser starved even when run again says so in its own report
            // (too busy to tell, or too few edges), and the command's line says it was
            // run again: that is the answer then, not the documented tick.
            if ticklab::comparison::page_clock_starved(report) {
                assert_eq!(run.attempts, Some(3), "{}", run.heading());
                let line = format!("{}: ", run.heading());
                assert!(
                    stdout
                        .lines()
                        .any(|l| l.starts_with(&line) && l.contains("starved")),
                    "{stdout}"
                );
                eprintln!("{}: starved in all three runs, and said so", run.heading());
                continue;
            }
            let tick = Digest::of(report, "")
                .clock(PAGE_NOW)
                .and_then(|k| k.tick_ns)
                .unwrap_or_else(|| panic!("{}: no tick of {PAGE_NOW}", run.heading()));
            assert!(
                (tick - want).abs() <= want * 0.01,
                "{}: {PAGE_NOW} {tick} ns, documented {want} ns",
                run.heading()
            );
            let shown = ticklab::present::duration(want);
            assert!(
                row.contains(&shown),
                "{shown} not in the table's row: {row}"
            );
        }
    }
    // The saved comparison, shown again: the same table, the same words.
    let shown = Command::new(BIN).arg("show").arg(&saved).output().unwrap();
    assert!(shown.status.success());
    assert_eq!(String::from_utf8_lossy(&shown.stdout), stdout);
    let csv = Command::new(BIN)
        .args(["show", "--csv"])
        .arg(&saved)
        .output()
        .unwrap();
    let csv = String::from_utf8_lossy(&csv.stdout).to_string();
    assert_eq!(
        csv.lines().next(),
        Some(
            "clock,native,Chromium isolated,Chromium not isolated,Firefox isolated,\
             Firefox not isolated,WebKit isolated,WebKit not isolated"
        ),
        "{csv}"
    );
    // Read costs like with like: each engine's performance.now read from the page's own
    // JavaScript beside the lab's through wasm, both measured; a native clock has no side.
    for run in &c.runs {
        let Some(report) = &run.report else { continue };
        let o = report
            .clocks
            .iter()
            .find(|k| k.info.name == PAGE_NOW)
            .and_then(|k| k.overhead.as_ref());
        match (run.isolated, o) {
            (None, _) => assert!(report.clocks.iter().all(|k| k
                .overhead
                .as_ref()
                .is_none_or(|o| o.own_per_read_ns.is_none()))),
            // A starved worker's blocks say little of either cost (a run said so above).
            _ if ticklab::comparison::page_clock_starved(report) => {}
            (Some(_), Some(o)) if o.unusable.is_none() => {
                let (wasm, js) = (o.per_read_ns.unwrap(), o.own_per_read_ns.unwrap());
                // The crossing adds to a read (26 to 43 % here); the least of a few blocks
                // of each, taken in turn, cannot turn that round beyond noise.
                assert!(
                    js > 0.0 && js <= wasm * 1.1,
                    "{}: {js} ns from JS, {wasm} ns via wasm",
                    run.heading()
                );
            }
            (Some(_), _) => panic!("{}: no read cost of {PAGE_NOW}", run.heading()),
        }
    }
    // The page's Compare takes the saved comparison: a row per run, named by the file and
    // the run's heading, each with the tick the command showed.
    let page = compare_loads(&saved).unwrap_or_else(|e| panic!("Compare: {e}"));
    for (run, digest) in c.measured() {
        let from = format!("engines.json: {}", run.heading());
        let want = digest.clock(PAGE_NOW).map(|k| k.figures.tick.clone());
        let Some(want) = want else { continue };
        assert!(
            page.iter().any(|r| r[0] == from && r[5] == want),
            "no row {from} with {want} in Compare: {page:?}"
        );
    }
    // Nothing to drive: refused, saying what to install.
    let none = Command::new(BIN)
        .arg("browsers")
        .current_dir(dir.path())
        .env("PATH", dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&none.stderr);
    assert_eq!(none.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no browser engine") && err.contains("apt-get install chromium"),
        "{err}"
    );
    // Ctrl-C after the first column: exit 130, what finished kept and saved.
    let cut = dir.path().join("cut.json");
    let mut child = Command::new(BIN)
        .args(["browsers", "--engine", "chromium", "--no-native", "--save"])
        .arg(&cut)
        .current_dir(dir.path())
        .env("PATH", &path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut progress = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    let waited = std::time::Instant::now();
    loop {
        let mut line = String::new();
        let n = std::io::BufRead::read_line(&mut progress, &mut line).unwrap();
        said.push_str(&line);
        if n == 0 || line.contains("isolated: done") || waited.elapsed().as_secs() > 60 {
            break;
        }
    }
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut progress, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{said}{rest}");
    let kept = Comparison::from_json(&std::fs::read_to_string(&cut).unwrap()).unwrap();
    assert_eq!(kept.runs.len(), 2, "{said}{rest}");
    assert!(kept.runs[0].report.is_some(), "{said}{rest}");
    assert!(
        kept.runs[1].report.is_none()
            && kept.runs[1]
                .failure
                .as_deref()
                .is_some_and(|f| f.contains("Ctrl-C")),
        "{:?}",
        kept.runs[1].failure
    );
    eprintln!("ticklab browsers: native and six columns in {took:.1} s\n{stdout}");
}
