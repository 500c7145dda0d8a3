//! `cargo xtask bench`: every performance figure against its target, in one table printed
//! and written to BENCHMARKS.md. Native figures come from the `floors` benchmark of the
//! native runner, the page's from its `?bench` and `?run` in Chromium, Firefox and WebKit
//! against `ticklab serve`. Each figure is a ratio or a median taken in this one run.

use std::path::Path;
use std::time::Duration;

use ticklab::report::Figure;
use ticklab_browser::{open, serve, wait_done, Browser, Client, StaticHost};

const TITLES: [&str; 9] = [
    "Read-cost fidelity (native)",
    "Wasm boundary",
    "Sub-tick precision",
    "Interpolated clock",
    "Time to an answer",
    "Fit throughput",
    "Page weight and first result",
    "A class, live",
    "A hub, many instances",
];

/// Where the page's full run must end.
const PAGE_RUN_S: f64 = 3.0;
/// `ticklab browsers` over six columns and this machine's clocks: the most it should take.
const BROWSERS_S: f64 = 30.0;

pub fn run() -> Result<(), String> {
    let mut load = crate::load::Load::before();
    let root = crate::workspace_root();
    let gz = crate::web::build()?;
    let target = crate::web::target_dir(&root);
    let dir = target.join("bench");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // The page visitors get, for the first answer over a phone's network.
    let visitors = dir.join("site");
    copy_dir(&target.join("site"), &visitors)?;
    // The figures are measured on a build that has them; the size above is the page's.
    crate::web::build_with(&["bench"])?;
    let native_json = dir.join("native.json");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    crate::step(
        "native figures",
        &cargo,
        &[
            "bench",
            "-p",
            "ticklab-native",
            "--bench",
            "floors",
            "--",
            "--out",
            &native_json.to_string_lossy(),
        ],
    )?;
    let text = std::fs::read_to_string(&native_json)
        .map_err(|e| format!("{}: {e}", native_json.display()))?;
    let mut figures: Vec<Figure> =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", native_json.display()))?;

    let (bin, report) = crate::lab::measure()?;
    let native = std::fs::read_to_string(&report)
        .map_err(|e| format!("{}: {e}", report.display()))
        .and_then(|t| ticklab::Report::from_json(&t).map_err(|e| e.to_string()))?;
    load.gaps.push(format!(
        "`ticklab run`: {}",
        ticklab::present::gaps(&native.gaps())
    ));
    let drivers = crate::browsers::ensure()?;
    let site = target.join("site");
    let (server, url) = serve(&bin, &site, &report, &[])?;
    // The page's own figures (its headline, playground and full run) on the page visitors
    // get, not on the benchmark's build (28 KB more wasm, and the ?bench runner).
    let (page_server, page_url) = serve(&bin, &visitors, &report, &[])?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let mut agents = Vec::new();
    for (browser, label, driver) in [
        (Browser::Chromium, "Chromium", &drivers.chromedriver),
        (Browser::Firefox, "Firefox", &drivers.geckodriver),
        (Browser::WebKit, "WebKit", &drivers.webkitdriver),
    ] {
        eprintln!("\n== [{}] the page's figures in {label}", crate::at());
        let (rows, agent, gaps) = rt.block_on(page(browser, label, driver, &url, &page_url))?;
        figures.extend(rows);
        agents.push(agent);
        load.gaps.push(format!("{label}'s full run: {gaps}"));
    }

    eprintln!(
        "\n== [{}] a class: runs stored, the teacher's screen, the server's memory",
        crate::at()
    );
    figures.extend(rt.block_on(crate::class_bench::figures(
        &bin,
        &drivers.chromedriver,
        &dir,
    )));

    eprintln!(
        "\n== [{}] a hub: two instances on one PostgreSQL, 1 000 live views",
        crate::at()
    );
    figures.extend(rt.block_on(crate::hub_bench::figures(&bin, &drivers.chromedriver)));

    eprintln!(
        "\n== [{}] the atlas: a million runs, its answer, runs added, its page on Slow 4G",
        crate::at()
    );
    figures.extend(rt.block_on(crate::atlas_bench::figures(&bin, &drivers.chromedriver)));

    eprintln!(
        "\n== [{}] every engine from one command: ticklab browsers",
        crate::at()
    );
    figures.push(browsers_figure(&bin, &drivers, &dir));

    eprintln!(
        "\n== [{}] the first answer over Slow 4G, cold, in headless Chromium at 390 px",
        crate::at()
    );
    let host = StaticHost::start(&visitors)?;
    figures.extend(rt.block_on(crate::load_bench::cold_headline(
        &drivers.chromedriver,
        &host.url,
        gz.first,
    )));
    drop(host);

    figures.extend(derived(&figures, &gz));
    figures.sort_by_key(|f| f.figure);
    // The browsers and the server are gone by now: the second after is quiet too.
    drop(server);
    drop(page_server);
    load.after();

    let sweep = sweep(&cargo, &dir)?;
    write(&root, &figures, &agents, &load, &sweep)
}

/// The tick estimator's confusion table over the sweep of generated recordings
/// (crate/tests/sweep), as its test writes it: a section of its own, since its figures are
/// counts of answers, not timings.
fn sweep(cargo: &str, dir: &Path) -> Result<String, String> {
    let out = dir.join("sweep.md");
    std::env::set_var("TICKLAB_SWEEP_TABLE", &out);
    let ran = crate::step(
        "the estimator's sweep of recordings",
        cargo,
        &["test", "-p", "ticklab", "--test", "sweep"],
    );
    std::env::remove_var("TICKLAB_SWEEP_TABLE");
    ran?;
    let table = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(format!(
        "\n## {}. The tick estimator on a sweep of recordings\n\n{table}",
        TITLES.len() + 1
    ))
}

/// A class's, the hub's or the page's load figures alone (`which`), printed: a release
/// `ticklab` carrying the page (not for the load, from a static host), Chromium for the
/// teacher's view and the load.
pub fn alone(which: &str) -> Result<(), String> {
    let gz = crate::web::build()?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    if which != "load" {
        crate::step(
            "build the ticklab command",
            &cargo,
            &["build", "--release", "-p", "ticklab-native"],
        )?;
    }
    let target = crate::web::target_dir(&crate::workspace_root());
    let (bin, dir) = (target.join("release/ticklab"), target.join("bench"));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let chromedriver = crate::browsers::ensure()?.chromedriver;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let figures = rt.block_on(async {
        match which {
            "class" => crate::class_bench::figures(&bin, &chromedriver, &dir).await,
            "atlas" => crate::atlas_bench::figures(&bin, &chromedriver).await,
            "load" => match StaticHost::start(&target.join("site")) {
                Ok(host) => {
                    crate::load_bench::cold_headline(&chromedriver, &host.url, gz.first).await
                }
                Err(e) => vec![Figure::new(7, "a static host", "serves", e, Some(false))],
            },
            _ => crate::hub_bench::figures(&bin, &chromedriver).await,
        }
    });
    for f in &figures {
        println!(
            "{} | {} | {} | {:?} | {}",
            f.name, f.target, f.measured, f.ok, f.note
        );
    }
    if figures.iter().any(|f| f.ok == Some(false)) {
        return Err(format!("a {which} figure missed its target"));
    }
    Ok(())
}

/// The figures made of others: wasm against native from the medians just taken, and the
/// page's weight against its budgets.
fn derived(figures: &[Figure], gz: &crate::web::Weight) -> Vec<Figure> {
    let mut out = Vec::new();
    // Wasm against native, from the medians just taken.
    for order in ["sorted", "shuffled"] {
        let native = median_ms(figures, &format!("{order} points, native"));
        for label in ["Chromium", "Firefox", "WebKit"] {
            let wasm = median_ms(
                figures,
                &format!("{label}: least-values fit, 1 000 000 {order}"),
            );
            let (m, ok) = match (native, wasm) {
                (Some(n), Some(w)) => {
                    let r = w / n;
                    (format!("{r:.2} ({w:.1} / {n:.1} ms)"), Some(r <= 2.0))
                }
                _ => ("not measured".into(), Some(false)),
            };
            out.push(Figure::new(
                6,
                format!("{label}: least-values fit, {order}: wasm / native"),
                "≤ 2",
                m,
                ok,
            ));
        }
    }
    let mut first = Figure::new(
        7,
        "the first answer's module (wasm + JavaScript), gzipped",
        "≤ 80 KB",
        format!("{:.1} KB", gz.first as f64 / 1000.0),
        Some(gz.first <= crate::web::FIRST_BUDGET_GZ_BYTES),
    );
    first.note = "the build refuses more".into();
    out.push(first);
    let mut weight = Figure::new(
        7,
        "page wasm + JavaScript, gzipped (everything)",
        format!("≤ {} KB", crate::web::BUDGET_GZ_BYTES as f64 / 1000.0),
        format!("{:.1} KB", gz.total as f64 / 1000.0),
        Some(gz.total <= crate::web::BUDGET_GZ_BYTES),
    );
    weight.note = "the build's ceiling against growth: it refuses more; what counts for a \
                   visitor is the time to the full lab above"
        .into();
    out.push(weight);
    out
}

/// Writes BENCHMARKS.md and says which targets were missed.
fn write(
    root: &Path,
    figures: &[Figure],
    agents: &[String],
    load: &crate::load::Load,
    sweep: &str,
) -> Result<(), String> {
    let out = root.join("BENCHMARKS.md");
    let table = markdown(figures, agents, load) + sweep + &crate::ledger::section_in(&out);
    println!("\n{table}");
    std::fs::write(&out, &table).map_err(|e| format!("{}: {e}", out.display()))?;
    let missed: Vec<&Figure> = figures.iter().filter(|f| f.ok == Some(false)).collect();
    println!("written to {}", out.display());
    println!("load: {}", load.line());
    if missed.is_empty() {
        println!("every target met");
    } else {
        println!("targets missed: {}", missed.len());
        for f in missed {
            println!("  - {}: {} (target {})", f.name, f.measured, f.target);
        }
    }
    Ok(())
}

/// The median in ms of the first row whose name holds `key`: "7.4 ms" → 7.4.
fn median_ms(figures: &[Figure], key: &str) -> Option<f64> {
    figures
        .iter()
        .find(|f| f.name.contains(key))?
        .measured
        .strip_suffix(" ms")?
        .parse()
        .ok()
}

/// The `?bench` figures (from the benchmark's build at `url`) and the page's own: its
/// headline, playground and `?run` times (from the visitors' page at `page_url`), in one
/// browser, and its user agent.
async fn page(
    browser: Browser,
    label: &str,
    driver: &Path,
    url: &str,
    page_url: &str,
) -> Result<(Vec<Figure>, String, String), String> {
    let s = open(browser, driver, (1280, 2000)).await?;
    let c = &s.client;
    let result = async {
        let (mut rows, agent) = bench_figures(c, label, url).await?;
        rows.push(headline_figure(c, label, page_url).await?);
        rows.push(playground_figure(c, label).await?);
        let (run, gaps) = full_run_figures(c, label, page_url).await?;
        rows.extend(run);
        Ok((rows, agent, gaps))
    }
    .await;
    let _ = c.clone().close().await;
    result
}

/// The figures the page measures itself (`?bench`), and the browser's user agent.
async fn bench_figures(
    c: &Client,
    label: &str,
    url: &str,
) -> Result<(Vec<Figure>, String), String> {
    c.goto(&format!("{url}?bench"))
        .await
        .map_err(|e| format!("opening {url}: {e}"))?;
    let state = wait_done(c, Duration::from_secs(180)).await?;
    let got = c
        .execute(
            "return [document.body.dataset.bench || '', self.ticklabErrors, navigator.userAgent]",
            vec![],
        )
        .await
        .map_err(|e| format!("reading the figures: {e}"))?;
    if state != "done" {
        return Err(format!(
            "{label}: the benchmark page ended '{state}': {got}"
        ));
    }
    let text = got[0].as_str().unwrap_or("");
    let agent = got[2].as_str().unwrap_or("").to_string();
    let mut rows: Vec<Figure> =
        serde_json::from_str(text).map_err(|e| format!("{label}: the figures: {e}"))?;
    for r in &mut rows {
        r.name = format!("{label}: {}", r.name);
    }

    Ok((rows, agent))
}

/// The answer first: from navigation to performance.now's tick in the headline, with no
/// click, the median of three loads. A load that shows no tick in 20 s counts as longer than
/// any, so one such load leaves the median to the other two; what it showed is in the note.
async fn headline_figure(c: &Client, label: &str, url: &str) -> Result<Figure, String> {
    let mut shown = Vec::new();
    let mut missing = Vec::new();
    for _ in 0..3 {
        c.goto(url)
            .await
            .map_err(|e| format!("opening {url}: {e}"))?;
        let t0 = std::time::Instant::now();
        loop {
            let v = c
                .execute(
                    "return [self.ticklabTimes && self.ticklabTimes.headlineMs, \
                     (document.getElementById('headline') || {}).textContent, \
                     document.body && document.body.dataset.state, self.ticklabErrors]",
                    vec![],
                )
                .await
                .map_err(|e| format!("reading the headline's time: {e}"))?;
            if let Some(ms) = v[0].as_f64() {
                shown.push(ms);
                break;
            }
            if t0.elapsed() > Duration::from_secs(20) {
                let text = v[1].as_str().unwrap_or("").split_whitespace();
                missing.push(format!(
                    "a load showed no tick in 20 s (the headline: \"{}\"; the page {}; errors {})",
                    text.collect::<Vec<_>>().join(" "),
                    v[2].as_str().unwrap_or("without a state"),
                    v[3]
                ));
                shown.push(f64::INFINITY);
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    shown.sort_by(f64::total_cmp);
    let headline = shown[1];
    let mut f = Figure::new(
        7,
        format!("{label}: navigation to performance.now's tick in the headline, no click, median of 3 loads"),
        "≤ 1 s",
        if headline.is_finite() {
            format!("{headline:.0} ms")
        } else {
            "not shown in 20 s".into()
        },
        Some(headline <= 1000.0),
    );
    f.note = missing.join("; ");
    Ok(f)
}

/// The playground: from a change of its knobs to the redrawn plots, measured in the page;
/// the first run, which starts the worker, left out.
async fn playground_figure(c: &Client, label: &str) -> Result<Figure, String> {
    c.execute(
        "document.getElementById('playground').scrollIntoView(); return 0",
        vec![],
    )
    .await
    .map_err(|e| format!("the playground: {e}"))?;
    let mut redraws = Vec::new();
    for i in 0..6 {
        if i > 0 {
            c.execute(
                &format!(
                    "document.querySelectorAll('#steps button')[{}].click(); return 0",
                    (i - 1) % 5
                ),
                vec![],
            )
            .await
            .map_err(|e| format!("the playground: {e}"))?;
        }
        let t0 = std::time::Instant::now();
        loop {
            let n = c
                .execute("return (self.ticklabTimes.play || []).length", vec![])
                .await
                .map_err(|e| format!("the playground: {e}"))?;
            if n.as_u64() > Some(i) {
                break;
            }
            if t0.elapsed() > Duration::from_secs(20) {
                return Err(format!("{label}: the playground did not redraw in 20 s"));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let t = c
        .execute("return self.ticklabTimes.play.slice(1)", vec![])
        .await
        .map_err(|e| format!("the playground: {e}"))?;
    redraws.extend(
        t.as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_f64()),
    );
    redraws.sort_by(f64::total_cmp);
    let median = redraws.get(redraws.len() / 2).copied();
    let mut f = Figure::new(
        7,
        format!("{label}: a playground change to its four plots redrawn, median of 5 lessons"),
        "≤ 300 ms",
        median.map_or("not measured".into(), |m| format!("{m:.0} ms")),
        Some(median.is_some_and(|m| m <= 300.0)),
    );
    f.note = format!(
        "all: {}",
        redraws
            .iter()
            .map(|r| format!("{r:.0}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(f)
}

/// The page's full run (`?run`): its time, its slowest clocks, its first result; and the
/// gaps it saw.
async fn full_run_figures(
    c: &Client,
    label: &str,
    url: &str,
) -> Result<(Vec<Figure>, String), String> {
    let mut rows = Vec::new();
    c.goto(&format!("{url}?run"))
        .await
        .map_err(|e| format!("opening {url}: {e}"))?;
    let state = wait_done(c, Duration::from_secs(300)).await?;
    let t = c
        .execute("return self.ticklabTimes", vec![])
        .await
        .map_err(|e| format!("reading the run's times: {e}"))?;
    let exported = c
        .execute("return self.ticklabExportJson()", vec![])
        .await
        .map_err(|e| format!("exporting the run: {e}"))?;
    let gaps = ticklab::Report::from_json(exported.as_str().unwrap_or_default()).map_or_else(
        |e| format!("not read ({e})"),
        |r| ticklab::present::gaps(&r.gaps()),
    );
    let run_ms = t["runMs"].as_f64();
    let first_ms = t["firstResultMs"].as_f64();
    let run_s = run_ms.map(|m| m / 1000.0);
    let mut f = Figure::new(
        5,
        format!("{label}: the page's full run (every clock, default settings)"),
        format!("≤ {PAGE_RUN_S} s"),
        run_s.map_or("not measured".into(), |s| format!("{s:.1} s")),
        Some(state == "done" && run_s.is_some_and(|s| s <= PAGE_RUN_S)),
    );
    // The slowest clocks, to say what bounds the run.
    if let Some(m) = t["clocks"].as_object() {
        let mut v: Vec<(&String, f64)> = m
            .iter()
            .filter_map(|(k, v)| Some((k, v.as_f64()?)))
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        let slow: Vec<String> = v
            .iter()
            .take(4)
            .map(|(k, ms)| format!("{k} {:.1} s", ms / 1000.0))
            .collect();
        f.note = format!("slowest: {}", slow.join(", "));
    }
    if state != "done" {
        f.note = format!("the run ended '{state}'; {}", f.note);
    }
    rows.push(f);
    rows.push(Figure::new(
        7,
        format!("{label}: load to the first result on screen (?run)"),
        "(reported)",
        first_ms.map_or("not measured".into(), |m| format!("{:.2} s", m / 1000.0)),
        None,
    ));
    Ok((rows, gaps))
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!(
        "{cpu}, {cores} cores, {} {}",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

fn markdown(figures: &[Figure], agents: &[String], load: &crate::load::Load) -> String {
    let mut s = String::from(
        "# Benchmarks\n\nWritten by `cargo xtask bench`: every figure measured in one run on one \
         machine, each a ratio or a median. Targets are those of the lab's performance goals; \
         rows marked \"contrast\" have none and are there to compare.\n\n",
    );
    s.push_str(&format!("- Machine: {}\n", machine()));
    s.push_str(&format!("- Load: {}\n", load.line()));
    for a in agents {
        s.push_str(&format!("- Browser: {a}\n"));
    }
    let missed = figures.iter().filter(|f| f.ok == Some(false)).count();
    s.push_str(&format!(
        "- Targets met: {} of {}\n",
        figures.iter().filter(|f| f.ok == Some(true)).count(),
        figures.iter().filter(|f| f.ok.is_some()).count()
    ));
    if missed > 0 {
        s.push_str(&format!("- Targets missed: {missed} (marked **missed**)\n"));
    }
    for (i, title) in TITLES.iter().enumerate() {
        let rows: Vec<&Figure> = figures
            .iter()
            .filter(|f| f.figure as usize == i + 1)
            .collect();
        if rows.is_empty() {
            continue;
        }
        s.push_str(&format!(
            "\n## {}. {title}\n\n| figure | target | measured | met | note |\n|---|---|---|---|---|\n",
            i + 1
        ));
        for f in rows {
            let met = match f.ok {
                Some(true) => "yes",
                Some(false) => "**missed**",
                None => "-",
            };
            s.push_str(&format!(
                "| {} | {} | {} | {met} | {} |\n",
                f.name.replace('|', "\\|"),
                f.target,
                f.measured,
                f.note.replace('|', "\\|")
            ));
        }
    }
    s
}

/// `from`'s files and folders, copied into `to` (emptied first).
fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    if to.exists() {
        std::fs::remove_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    }
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for e in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let e = e.map_err(|e| e.to_string())?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| format!("{}: {e}", src.display()))?;
        }
    }
    Ok(())
}

/// `ticklab browsers` over the three engines here, isolated and not, with this machine's
/// clocks: the whole command, from its start to its table, as a user waits for it.
fn browsers_figure(bin: &Path, drivers: &crate::browsers::Drivers, dir: &Path) -> Figure {
    let name = "`ticklab browsers`: this machine's clocks and six columns (Chromium, Firefox, \
                WebKit; isolated and not), from the command's start to its table";
    let saved = dir.join("engines.json");
    let dirs = [
        &drivers.chromedriver,
        &drivers.geckodriver,
        &drivers.webkitdriver,
    ]
    .into_iter()
    .filter_map(|d| d.parent().map(Path::to_path_buf));
    let path = std::env::join_paths(dirs.chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap_or_default();
    let t0 = std::time::Instant::now();
    let out = std::process::Command::new(bin)
        .args(["browsers", "--engine", "chromium,firefox,webkit", "--save"])
        .arg(&saved)
        .env("PATH", path)
        .output();
    let s = t0.elapsed().as_secs_f64();
    let runs = std::fs::read_to_string(&saved)
        .ok()
        .and_then(|t| ticklab::comparison::Comparison::from_json(&t).ok())
        .map(|c| {
            c.runs
                .iter()
                .map(|r| match (r.seconds, &r.report) {
                    (Some(t), Some(_)) => format!("{} {t:.1} s", r.heading()),
                    _ => format!("{} failed", r.heading()),
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    let target = format!("≤ {BROWSERS_S} s");
    match out {
        Ok(o) if o.status.success() => {
            let mut f = Figure::new(5, name, target, format!("{s:.1} s"), Some(s <= BROWSERS_S));
            f.note = format!("each column (a browser's start in its first): {runs}");
            f
        }
        Ok(o) => {
            let mut f = Figure::new(5, name, target, "not measured".into(), Some(false));
            let err = String::from_utf8_lossy(&o.stderr);
            f.note = err.lines().last().unwrap_or("it failed").to_string();
            f
        }
        Err(e) => {
            let mut f = Figure::new(5, name, target, "not measured".into(), Some(false));
            f.note = format!("{}: {e}", bin.display());
            f
        }
    }
}
