//! Bad input on the page: form fields, imports, pastes and links, each refused with a
//! message and listed in docs/bad-inputs.md; Cancel within 100 ms; a hidden tab.

use super::*;

/// Bad form fields, hostile imports, Cancel and a hidden tab, in one browser; returns the
/// bad-input rows tried and a line of figures.
async fn hostile_page(
    browser: Browser,
    driver: &Path,
    url: &str,
    files: &Path,
) -> Result<(Vec<String>, String), String> {
    let s = pool::session(browser, driver, (1280, 1600)).await?;
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
            "schema version 999; this ticklab reads versions 1 to 8",
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
            "Could not read comparison-of-999.json: report: schema version 999; this ticklab reads versions 1 to 8",
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

/// Cancel at several points of a full run (the worker's clocks, then the page's thread, the
/// sampling and the counts: a run of the default budgets ended after 2.1 s at the soonest,
/// WebKit's): the time from the click to the stopped run. A run that ended before the
/// click (a quicker machine) is run again and cancelled at three quarters of its length.
async fn cancels(c: &Client) -> Result<Vec<String>, String> {
    let mut cancels = Vec::new();
    for point_ms in [100u64, 600, 1200, 1800] {
        let mut delay_ms = point_ms;
        let mut ended = None;
        let out = loop {
            match cancel_after(c, delay_ms).await? {
                Cancel::Stopped { said, ms, wall_ms } => break (said, ms, wall_ms),
                Cancel::Ended(run_ms) if ended.is_none() && run_ms > 400.0 => {
                    ended = Some(run_ms);
                    delay_ms = (0.75 * run_ms) as u64;
                }
                Cancel::Ended(run_ms) => {
                    return Err(format!(
                        "cancel {delay_ms} ms in: the run had ended, after {run_ms:.0} ms"
                    ))
                }
            }
        };
        let (said, ms, wall_ms) = out;
        if !(0.0..=100.0).contains(&ms) {
            return Err(format!("cancel {delay_ms} ms in: {said} ms"));
        }
        // Tasks of the run before the click: what could delay a click being seen.
        let longest = said[1].as_f64();
        if longest.is_some_and(|l| l > 100.0) {
            return Err(format!(
                "cancel {delay_ms} ms in: the run held the page for {longest:?} ms at a stretch"
            ));
        }
        let at = match ended {
            Some(run_ms) => {
                format!(" at {delay_ms} ms (a run ended in {run_ms:.0} ms, before {point_ms} ms)")
            }
            None => String::new(),
        };
        cancels.push(format!(
            "{ms:.1} ms{at} (wall {wall_ms:.0} ms, longest task {longest:?} ms)"
        ));
    }
    Ok(cancels)
}

/// What a click on Cancel met.
enum Cancel {
    /// The run stopped: what the page said ([latency, longest task]), the latency and the
    /// wall time of the command, in ms.
    Stopped {
        said: serde_json::Value,
        ms: f64,
        wall_ms: f64,
    },
    /// The run had ended before the click, after this many ms.
    Ended(f64),
}

/// Starts a full run and clicks Cancel `delay_ms` after the page says it is running.
async fn cancel_after(c: &Client, delay_ms: u64) -> Result<Cancel, String> {
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
    if out.is_null() && state == "done" {
        let run_ms = js(c, "return self.ticklabTimes.runMs").await?;
        return run_ms
            .as_f64()
            .map(Cancel::Ended)
            .ok_or_else(|| format!("cancel {delay_ms} ms in: the run had ended, in {run_ms} ms"));
    }
    if state != "cancelled" {
        return Err(format!("cancel {delay_ms} ms in: {out} ms, state {state}"));
    }
    let ms = out[0].as_f64().unwrap_or(f64::NAN);
    Ok(Cancel::Stopped {
        said: out,
        ms,
        wall_ms,
    })
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
