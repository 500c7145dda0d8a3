//! A worker that dies mid-run: the results so far stay, each death named on its clock.

use super::*;

/// How long the page waits on a silent worker in this test (the page's own wait is 20 s,
/// [`PAGE_SILENCE`]; three engines' waits of 20 s were most of this test's time).
const SILENCE_MS: u32 = 5000;

/// What the page says of a silent worker with its own wait, as docs/bad-inputs.md lists it.
const PAGE_SILENCE: &str = "the worker gave no sign of life for 20 s";

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
        Some("the worker gave no sign of life for 5 s"),
    ),
    ("sim-jiffy", None),
];

/// A run whose worker dies twice mid-clock: once loudly (the error event a worker whose
/// script fails sends, then the end) during Date.now, once silently (terminated and nothing
/// said, as when the browser kills it) during sim-chromium. What was measured stays on
/// screen and in Export, each death is named on its clock, and the clocks after it run in a
/// new worker.
async fn a_worker_dies(browser: Browser, driver: &Path, url: &str) -> Result<String, String> {
    let s = pool::session(browser, driver, (1280, 1400)).await?;
    let c = &s.client;
    let out = async {
        c.goto(url).await.map_err(|e| e.to_string())?;
        wait_ready(c).await?;
        let plan: Vec<(&str, bool)> = DEATH_RUN.iter().map(|(id, f)| (*id, f.is_some())).collect();
        c.execute(
            "const [plan] = arguments;
             self.ticklabWorkerSilenceMs = arguments[1];
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
            vec![serde_json::json!(plan), serde_json::json!(SILENCE_MS)],
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
        // The simulated clocks run beside the others, in a worker of their own: either
        // death may come first.
        let mut kills: Vec<String> = serde_json::from_value(v[1].clone()).unwrap_or_default();
        kills.sort();
        if state != "done" || kills != ["Date.now", "sim-chromium"] {
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
    // The page's own wait, which the docs' row names, held to the page's script.
    let script = std::fs::read_to_string(site.join("www/lab.js")).unwrap();
    assert!(
        script.contains("const WORKER_SILENCE_MS = 20000;") && PAGE_SILENCE.ends_with(" 20 s"),
        "the page's wait on a silent worker is no longer the 20 s docs/bad-inputs.md names"
    );
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
                &outcome(PAGE_SILENCE),
            ),
        ],
    );
}
