//! Every engine from one command: `ticklab browsers`, its saved comparison shown again and
//! read by the page's Compare.

use super::*;

/// The comparison at `saved` loaded into the page's Compare (Chromium, the built page on a
/// static host): the rows of performance.now (worker), each its cells.
fn compare_loads(saved: &Path) -> Result<Vec<Vec<String>>, String> {
    let mut host = StaticHost::start(&built_site()).map_err(|e| e.to_string())?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let rows = rt.block_on(async {
        let s = pool::session(Browser::Chromium, &engines()[0].1, (1280, 1000)).await?;
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
                .unwrap_or_else(|| {
                    // What the report said of the clock instead, to tell why.
                    let clock = report.clocks.iter().find(|k| k.info.name == PAGE_NOW);
                    panic!(
                        "{}: no tick of {PAGE_NOW}: {}",
                        run.heading(),
                        clock.map_or("no such clock".into(), |k| format!(
                            "available {}, tick {:?}, errors {:?}",
                            k.available,
                            k.tick.as_ref().map(|t| (&t.verdict, &t.caveats, t.edges)),
                            k.errors
                        ))
                    )
                });
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
                let wasm = o.per_read_ns.unwrap();
                // The crossing adds to a read (26 to 43 % here): the page's own reads are
                // told only where they are not dearer, else a dash and why (an engine's
                // compiler starved on a busy machine: WebKit's 179 ns against 60.6 ns).
                match o.own_per_read_ns {
                    Some(js) => assert!(
                        js > 0.0 && js <= wasm * ticklab::overhead::OWN_MARGIN,
                        "{}: {js} ns from JS, {wasm} ns via wasm",
                        run.heading()
                    ),
                    None => {
                        let dearer = o
                            .caveats
                            .iter()
                            .any(|c| matches!(c, ticklab::caveat::Caveat::OwnDearer { .. }));
                        assert!(dearer, "{}: {:?}", run.heading(), o.caveats);
                        eprintln!(
                            "{}: the page's own reads were never at their best, and said so",
                            run.heading()
                        );
                    }
                }
            }
            (Some(_), o) => panic!(
                "{}: no read cost of {PAGE_NOW}: {:?}",
                run.heading(),
                // How the doubling went, to tell a sleep from a slow engine.
                o.map(|o| (&o.unusable, o.block_reads, o.elapsed_s, &o.doubling))
            ),
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
