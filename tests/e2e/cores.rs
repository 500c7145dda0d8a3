//! Where cores are to spare, the fitted clock beside the other real clocks; on two, not.

use super::*;

/// The clocks of these runs: the fitted one, two real ones and a simulated one.
const CLOCKS: [&str; 4] = [
    "performance.now",
    "Date.now",
    "timeOrigin+now",
    "sim-chromium",
];

/// One run on `cores` logical CPUs (the page's test hook, `self.ticklabCores`), with short
/// budgets but the fit's: whether performance.now (with its fit) and Date.now were measured at the same
/// time, and a line to show.
async fn run_on(c: &Client, cores: u32) -> Result<(bool, String), String> {
    c.execute(
        "const [ids, cores] = arguments;
         self.ticklabCores = cores;
         self.ticklabTimes = {};
         const set = (name, v) => { document.querySelector(`#settings [name=${name}]`).value = v; };
         set('tick_s', '0.1'); set('overhead_s', '0.05');
         document.querySelectorAll('[data-run]').forEach(b => b.checked = ids.includes(b.dataset.run));
         document.querySelectorAll('[data-fit]').forEach(b => b.checked = b.dataset.fit === ids[0]);
         document.getElementById('run').click();",
        vec![serde_json::json!(CLOCKS), serde_json::json!(cores)],
    )
    .await
    .map_err(|e| e.to_string())?;
    let state = wait_done(c, Duration::from_secs(120)).await?;
    let v = js(
        c,
        "return [[...document.querySelectorAll('#summary tbody tr')]
                   .map(r => [r.dataset.clock, r.dataset.tickNs !== undefined]),
                 self.ticklabTimes, self.ticklabExportJson(), self.ticklabErrors]",
    )
    .await?;
    let rows: Vec<(String, bool)> = serde_json::from_value(v[0].clone()).unwrap_or_default();
    let report = ticklab::Report::from_json(v[2].as_str().unwrap_or(""))
        .map_err(|e| format!("Export: {e}"))?;
    let fitted = report
        .clocks
        .iter()
        .find(|c| c.info.name == "performance.now (worker)")
        .map(|c| {
            (
                !c.fits.is_empty(),
                c.errors
                    .iter()
                    .map(|e| ticklab::present::caveat(&e.cause))
                    .collect::<Vec<_>>(),
            )
        });
    let fitted = match fitted {
        Some((true, _)) => true,
        other => {
            return Err(format!(
                "{cores} cores: performance.now has no fit: {other:?}"
            ));
        }
    };
    if state != "done"
        || rows.len() != CLOCKS.len()
        || rows.iter().any(|(_, ticked)| !ticked)
        || !fitted
        || v[3] != serde_json::json!([])
    {
        return Err(format!(
            "{cores} cores: the run ended '{state}' with rows {rows:?}, a fit {fitted}, errors {}",
            v[3]
        ));
    }
    // Each clock's start and length on the page's clock, in ms.
    let span = |id: &str| -> Result<(f64, f64), String> {
        let t = &v[1];
        match (t["from"][id].as_f64(), t["clocks"][id].as_f64()) {
            (Some(a), Some(d)) => Ok((a, a + d)),
            _ => Err(format!("{cores} cores: no times for {id}: {t}")),
        }
    };
    let (fit, other) = (span(CLOCKS[0])?, span(CLOCKS[1])?);
    let beside = fit.0 < other.1 && other.0 < fit.1;
    Ok((
        beside,
        format!(
            "{cores} cores: performance.now {:.0}-{:.0} ms, Date.now {:.0}-{:.0} ms",
            fit.0, fit.1, other.0, other.1
        ),
    ))
}

async fn both(browser: Browser, driver: &Path, url: &str) -> Result<String, String> {
    let s = open(browser, driver, (1280, 1400)).await?;
    let c = &s.client;
    let out = async {
        c.goto(url).await.map_err(|e| e.to_string())?;
        wait_ready(c).await?;
        let (two, a) = run_on(c, 2).await?;
        let (eight, b) = run_on(c, 8).await?;
        if two || !eight {
            return Err(format!(
                "beside on two cores {two}, on eight {eight}: {a}; {b}"
            ));
        }
        Ok(format!("{browser:?}: {a}; {b}"))
    }
    .await;
    let _ = c.clone().close().await;
    out
}

#[test]
fn the_fitted_clock_runs_beside_the_others_only_where_cores_are_to_spare() {
    let _alone = one_browser_at_a_time();
    let lines = in_each_engine_statically(&built_site(), |browser, drv, url| async move {
        both(browser, &drv, &url).await
    });
    eprintln!("{}", lines.join("\n"));
}
