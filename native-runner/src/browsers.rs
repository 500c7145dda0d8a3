//! `ticklab browsers`: this machine's native clocks and every installed browser's, cross-origin
//! isolated and not, in one table. The page this binary carries is served on loopback twice
//! (with and without isolation); each engine's WebDriver server opens it headless and runs
//! the full lab; the reports become one comparison (`ticklab::comparison`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ticklab::comparison::{page_clock_starved, Comparison, EngineRun};
use ticklab::report::Report;
use ticklab_driver::{Browser, Client, CmdError, DriverError, Os, Session};

use crate::cli::{BrowsersArgs, Output};
use crate::error::CliError;
use crate::serve::{self, Site};
use crate::{machine, output, progress, saved};

/// The window the page runs in: a desktop's.
const WINDOW: (u32, u32) = (1280, 900);

/// The longest a page's run may be given.
const MOST_TIMEOUT_S: f64 = 600.0;

pub fn browsers(a: BrowsersArgs) -> Result<(), CliError> {
    if !(a.timeout.is_finite() && a.timeout >= 1.0 && a.timeout <= MOST_TIMEOUT_S) {
        return Err(CliError::Usage(format!(
            "--timeout {}: give seconds from 1 to {MOST_TIMEOUT_S}",
            a.timeout
        )));
    }
    let engines = engines(&a.engines);
    if engines.iter().all(|(_, found)| found.is_err()) {
        return Err(none_found(&engines));
    }
    let contexts: Vec<bool> = match (a.only_plain, a.only_isolated) {
        (true, _) => vec![false],
        (_, true) => vec![true],
        _ => vec![true, false],
    };
    // Served from the page this binary carries: without one nothing can run.
    let (site, _) = Site::new(None, None)?;
    progress::catch_interrupt();
    let mut runs = Vec::new();
    if !a.no_native {
        eprintln!("native: this machine's clocks, as `ticklab run` measures them");
        let t0 = Instant::now();
        let report = machine::machine_report()?;
        runs.push(EngineRun {
            engine: "native".into(),
            version: None,
            isolated: None,
            seconds: Some(t0.elapsed().as_secs_f64()),
            report: Some(report),
            failure: None,
            hint: None,
            attempts: None,
        });
    }
    let timeout = Duration::from_secs_f64(a.timeout);
    let rt = serve::runtime()?;
    rt.block_on(async {
        let mut pages = Vec::new();
        for &isolated in &contexts {
            let (listener, local) = serve::listen([127, 0, 0, 1].into(), 0).await?;
            // Plain axum: the pages' own server stops with the command, not on Ctrl-C, so
            // that a run Ctrl-C cuts short ends cleanly.
            let app = serve::app(site.clone(), isolated, None);
            tokio::spawn(async move { axum::serve(listener, app).await });
            pages.push((isolated, format!("http://{local}/?run")));
        }
        let opened = start_all(&engines).await;
        for ((browser, found), opened) in engines.iter().zip(opened) {
            if progress::interrupted() {
                runs.extend(
                    contexts
                        .iter()
                        .map(|&i| failed(*browser, None, i, "interrupted (Ctrl-C) before it ran")),
                );
                continue;
            }
            match (found, opened) {
                (Ok(driver), Some(opened)) => {
                    runs.extend(engine_runs(*browser, driver, opened, &pages, timeout).await)
                }
                (Err(why), _) => runs.extend(contexts.iter().map(|&i| EngineRun {
                    hint: Some(browser.install_hint().into()),
                    ..failed(*browser, None, i, &format!("not found: {why}"))
                })),
                (Ok(_), None) => unreachable!("start_all starts every browser found"),
            }
        }
        Ok::<_, CliError>(())
    })?;
    let comparison = Comparison::new(runs);
    if let Some(path) = &a.save {
        saved::write_atomically(path, &comparison.to_json()?)?;
    }
    let shown = Output {
        json: a.json,
        csv: a.csv,
        plot: None,
    };
    output::emit_comparison(&comparison, &shown, a.cell)?;
    if let Some(hub) = &a.share {
        share(hub, &comparison)?;
    }
    let browsers: Vec<&EngineRun> = comparison
        .runs
        .iter()
        .filter(|r| r.isolated.is_some())
        .collect();
    let measured = browsers.iter().filter(|r| r.report.is_some()).count();
    if progress::interrupted() {
        return Err(CliError::Interrupted(format!(
            "interrupted (Ctrl-C): {measured} of {} browser runs measured; {}",
            browsers.len(),
            match &a.save {
                Some(p) => format!("saved to {}", p.display()),
                None => "nothing saved (no --save)".into(),
            }
        )));
    }
    if measured == 0 {
        return Err(CliError::Measurement(
            "no browser run ended with a report (the reasons are above)".into(),
        ));
    }
    Ok(())
}

/// Why no engine can run here: each one's reason and where to get it.
fn none_found(engines: &[Found]) -> CliError {
    let why: Vec<String> = engines
        .iter()
        .map(|(b, found)| {
            let why = found.as_ref().err().map(ToString::to_string);
            format!(
                "{}: {}; {}",
                b.name(),
                why.unwrap_or_default(),
                b.install_hint()
            )
        })
        .collect();
    CliError::Usage(format!(
        "no browser engine to run here:\n  {}",
        why.join("\n  ")
    ))
}

/// Each run of `comparison` that measured, added to `hub`'s atlas.
fn share(hub: &str, comparison: &Comparison) -> Result<(), CliError> {
    let runs: Vec<(String, &Report)> = comparison
        .runs
        .iter()
        .filter_map(|r| Some((r.heading(), r.report.as_ref()?)))
        .collect();
    let named: Vec<(&str, &Report)> = runs.iter().map(|(h, r)| (h.as_str(), *r)).collect();
    crate::share::share(hub, &named)
}

/// Every engine's browser found here started at once, before any page runs (a start
/// measures nothing, and one after another they were 6 s of the command's 35): each
/// engine's session, or why not, with the time its start took; None where it was not found.
async fn start_all(engines: &[Found]) -> Vec<Option<(Result<Session, DriverError>, Duration)>> {
    futures_util::future::join_all(engines.iter().map(|(browser, found)| {
        let browser = *browser;
        async move {
            let driver = found.as_ref().ok()?;
            eprintln!("{}: starting {}", browser.name(), driver.display());
            let t0 = Instant::now();
            let session = ticklab_driver::open(browser, driver, WINDOW).await;
            Some((session, t0.elapsed()))
        }
    }))
    .await
}

/// An engine with its WebDriver server, or what this machine lacks for it.
type Found = (Browser, Result<PathBuf, DriverError>);

/// The engines asked for (every one when none is named, each once), each as found.
fn engines(named: &[Browser]) -> Vec<Found> {
    let mut asked: Vec<Browser> = Vec::new();
    for &b in if named.is_empty() {
        &Browser::ALL[..]
    } else {
        named
    } {
        if !asked.contains(&b) {
            asked.push(b);
        }
    }
    // Unasked for, a missing engine is news only where it is the usual one: Chromium and
    // Firefox anywhere, WebKitGTK on Linux, Edge on Windows, Safari on macOS; elsewhere
    // they are run where they are found.
    asked
        .into_iter()
        .map(|b| (b, b.find()))
        .filter(|(b, f)| !named.is_empty() || f.is_ok() || expected_here(*b))
        .collect()
}

/// Whether a machine of this system is expected to have `b`, so its absence is reported.
fn expected_here(b: Browser) -> bool {
    match b {
        Browser::Chromium | Browser::Firefox => true,
        Browser::WebKit => Os::THIS == Os::Linux,
        // Each comes with its system.
        Browser::Edge => Os::THIS == Os::Windows,
        Browser::Safari => Os::THIS == Os::MacOs,
    }
}

/// A run of `browser` that ended without a report, and why.
fn failed(browser: Browser, version: Option<String>, isolated: bool, why: &str) -> EngineRun {
    EngineRun {
        engine: browser.name().into(),
        version,
        isolated: Some(isolated),
        seconds: None,
        report: None,
        failure: Some(why.into()),
        hint: None,
        attempts: None,
    }
}

/// What isolation means in a progress line.
fn context(isolated: bool) -> &'static str {
    if isolated {
        "isolated"
    } else {
        "not isolated"
    }
}

/// One engine's runs, one per page, in the session of its browser `opened` (with the time
/// its start took), each page run in turn (one at a time: two labs on a shared machine
/// starve each other).
async fn engine_runs(
    browser: Browser,
    driver: &Path,
    (opened, start): (Result<Session, DriverError>, Duration),
    pages: &[(bool, String)],
    timeout: Duration,
) -> Vec<EngineRun> {
    let mut session = match opened {
        Ok(s) => s,
        Err(why) => {
            eprintln!("{}: could not start: {why}", browser.name());
            return pages
                .iter()
                .map(|(i, _)| failed(browser, None, *i, &format!("could not start: {why}")))
                .collect();
        }
    };
    let version = session
        .client
        .capabilities()
        .and_then(|c| c.get("browserVersion"))
        .and_then(|v| v.as_str())
        .map(str::to_string);
    let mut out = Vec::new();
    for (n, (isolated, url)) in pages.iter().enumerate() {
        let label = format!("{} {}", browser.name(), context(*isolated));
        if progress::interrupted() {
            out.push(failed(
                browser,
                version.clone(),
                *isolated,
                "interrupted (Ctrl-C) before it ran",
            ));
            continue;
        }
        // The first run's time includes the browser's start.
        let (started, extra) = (Instant::now(), if n == 0 { start } else { Duration::ZERO });
        eprintln!("{label}: running the full lab");
        // `attempts` counts the runs made because the browser starved the lab's worker (the
        // saved run says so); a run whose session the browser lost is made again in a new
        // session, said here only: its report, when it comes, is whole.
        let (mut attempts, mut tries) = (1, 1);
        let mut result = checked_run(&session.client, url, timeout, *isolated).await;
        while tries < MOST_ATTEMPTS && !progress::interrupted() {
            match &result {
                Ok(report) if page_clock_starved(report) => {
                    attempts += 1;
                    eprintln!(
                        "{label}: the browser starved the lab's worker (performance.now too \
                         busy to tell, or too few edges): running it again ({attempts} of \
                         {MOST_ATTEMPTS})"
                    );
                }
                Err(f) if f.session_lost => {
                    eprintln!(
                        "{label}: the browser lost its session ({}): running it again in a \
                         new one",
                        f.why
                    );
                    match ticklab_driver::open(browser, driver, WINDOW).await {
                        Ok(s) => session = s,
                        Err(why) => {
                            result = Err(format!("{}; a new session: {why}", f.why).into());
                            break;
                        }
                    }
                }
                _ => break,
            }
            tries += 1;
            result = checked_run(&session.client, url, timeout, *isolated).await;
        }
        let attempts = (attempts > 1).then_some(attempts);
        let seconds = (started.elapsed() + extra).as_secs_f64();
        out.push(match result {
            Ok(report) => {
                eprintln!("{label}: done in {seconds:.1} s");
                EngineRun {
                    engine: browser.name().into(),
                    version: version.clone(),
                    isolated: Some(*isolated),
                    seconds: Some(seconds),
                    report: Some(report),
                    failure: None,
                    hint: None,
                    attempts,
                }
            }
            Err(RunFailed { why, .. }) => {
                eprintln!("{label}: failed: {why}");
                EngineRun {
                    seconds: Some(seconds),
                    attempts,
                    ..failed(browser, version.clone(), *isolated, &why)
                }
            }
        });
    }
    let _ = session.client.clone().close().await;
    out
}

/// The most runs of one page for a column: the first and two more when the browser starved
/// the lab's worker or lost its session.
const MOST_ATTEMPTS: u32 = 3;

/// [`page_run`], and the report's isolation checked against what was asked.
async fn checked_run(
    c: &Client,
    url: &str,
    timeout: Duration,
    isolated: bool,
) -> Result<Report, RunFailed> {
    let r = page_run(c, url, timeout).await?;
    match r.environment.cross_origin_isolated {
        Some(got) if got == isolated => Ok(r),
        got => Err(RunFailed::from(format!(
            "the page was to be {} but reported {}",
            context(isolated),
            match got {
                Some(g) => context(g),
                None => "nothing of its isolation",
            }
        ))),
    }
}

/// Why a page's run gave no report, and whether the browser's session went with it.
struct RunFailed {
    why: String,
    session_lost: bool,
}

impl From<String> for RunFailed {
    fn from(why: String) -> Self {
        Self {
            why,
            session_lost: false,
        }
    }
}

impl From<&str> for RunFailed {
    fn from(why: &str) -> Self {
        why.to_string().into()
    }
}

/// A failed command of the session, said as `what`.
fn command_failed(what: String) -> impl FnOnce(CmdError) -> RunFailed {
    move |e| RunFailed {
        session_lost: ticklab_driver::session_lost(&e),
        why: format!("{what}: {e}"),
    }
}

/// Opens `url` (which runs the full lab) and waits, up to `timeout`, for the run to end;
/// the page's report.
async fn page_run(c: &Client, url: &str, timeout: Duration) -> Result<Report, RunFailed> {
    c.goto(url)
        .await
        .map_err(command_failed(format!("opening {url}")))?;
    let state = ticklab_driver::wait_done_or(c, timeout, progress::interrupted)
        .await
        .map_err(|e| RunFailed {
            session_lost: e.session_lost(),
            why: match e {
                DriverError::Stopped { .. } => "interrupted (Ctrl-C) while it ran".to_string(),
                DriverError::Timeout { state, secs } => {
                    format!("the page's run did not end within {secs} s (it was '{state}')")
                }
                e => e.to_string(),
            },
        })?;
    if state != "done" {
        let said = c
            .execute(
                "const e = document.getElementById('error'); return e ? e.textContent : '';",
                vec![],
            )
            .await
            .map_err(command_failed("reading the page's error".into()))?;
        return Err(format!(
            "the page's run {state}: {}",
            said.as_str()
                .filter(|s| !s.is_empty())
                .unwrap_or("(it said nothing)")
        )
        .into());
    }
    let v = c
        .execute("return self.ticklabExportJson()", vec![])
        .await
        .map_err(command_failed("reading the page's report".into()))?;
    let text = v.as_str().ok_or("the page gave no report")?;
    Report::from_json(text).map_err(|e| format!("the page's report: {e}").into())
}
