//! `cargo xtask lab`: this machine's std clock, and browser-style clamps over it, through
//! every experiment of the core; a table on stdout and the JSON report on disk.

use std::time::Instant;

use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod};
use ticklab::fit::FitOptions;
use ticklab::lab::{characterise, Plan};
use ticklab::overhead::OverheadOptions;
use ticklab::report::{ClockReport, Environment, Platform, Report};
use ticklab::run::{Budget, Flow, Progress};
use ticklab::synthetic::{Clamp, ClampStyle, ClockTime};
use ticklab::tick::TickOptions;
use ticklab::workload::WorkloadKind;

/// `std::time::Instant` as nanoseconds since the clock was made.
struct InstantClock {
    info: ClockInfo,
    start: Instant,
}

impl InstantClock {
    fn new() -> Self {
        Self {
            info: ClockInfo::new(
                "std::time::Instant",
                ClockKind::Monotonic,
                CountPeriod::NANOSECOND,
            )
            .with_description("Rust's monotonic clock (CLOCK_MONOTONIC on Linux)"),
            start: Instant::now(),
        }
    }
}

impl Clock for InstantClock {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    #[inline]
    fn read(&mut self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }
}

fn plan() -> Result<Plan, ticklab::Error> {
    let tick = Budget::new(0.3, 200_000)?;
    let overhead = Budget::new(0.3, 2_000)?;
    let mut fit = FitOptions::new(Budget::new(2.0, 100_000)?);
    // The same sizes on every clock (runs up to 20 ms: 20 ticks of the 1 ms clamp), so the
    // slopes can be set side by side.
    fit.target_ns = Some(20e6);
    fit.points = 24;
    fit.runs = 25;
    Ok(Plan {
        tick: TickOptions::new(tick),
        overhead: Some(OverheadOptions::new(overhead)),
        fits: vec![(WorkloadKind::Count, fit)],
    })
}

pub fn run() -> Result<(), String> {
    let plan = plan().map_err(|e| e.to_string())?;
    let origin = Instant::now();
    let mut stopwatch = move || origin.elapsed().as_secs_f64();
    let mut observer = |_: &Progress<'_>| Flow::Continue;
    let mut report = Report::new(Environment {
        platform: Some(Platform::Native),
        os: Some(std::env::consts::OS.into()),
        arch: Some(std::env::consts::ARCH.into()),
        cpus: std::thread::available_parallelism()
            .ok()
            .map(|n| n.get() as u32),
        created_unix_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_millis() as u64),
        ..Default::default()
    });
    let mut measure = |clock: &mut dyn Clock| -> Result<ClockReport, String> {
        eprintln!("measuring {} ...", clock.info().name);
        characterise(clock, &mut stopwatch, &mut observer, &plan).map_err(|e| e.to_string())
    };
    report.clocks.push(measure(&mut InstantClock::new())?);
    for (style, res) in [
        (ClampStyle::Chromium, 100_000),
        (ClampStyle::FirefoxJitter, 1_000_000),
    ] {
        let base = ClockTime::new(InstantClock::new()).map_err(|e| e.to_string())?;
        let mut clamp = Clamp::new(base, style, res, 0x5eed).map_err(|e| e.to_string())?;
        let mut r = measure(&mut clamp)?;
        r.info.description = format!("{} over std::time::Instant", r.info.description);
        report.clocks.push(r);
    }
    print_table(&report);
    let dir = super::workspace_root().join("target/ticklab");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join("report.json");
    let json = report.to_json().map_err(|e| e.to_string())?;
    std::fs::write(&path, json).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("\nreport: {}", path.display());
    Ok(())
}

fn ns(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(x) if x >= 1e6 => format!("{:.3} ms", x / 1e6),
        Some(x) if x >= 1e3 => format!("{:.3} µs", x / 1e3),
        Some(x) => format!("{x:.2} ns"),
    }
}

fn print_table(report: &Report) {
    println!(
        "\n{:<42} {:>11} {:>11} {:>22} {:>7} {:>10} {:>11} {:>14} {:>14}",
        "clock", "claimed", "tick", "verdict", "share", "read", "min block", "count slope", "(OLS)"
    );
    for c in &report.clocks {
        let t = c.tick.as_ref();
        let o = c.overhead.as_ref();
        let f = c.fits.first();
        println!(
            "{:<42} {:>11} {:>11} {:>22} {:>6.1}% {:>10} {:>11} {:>14} {:>14}",
            c.info.name,
            ns(c.info.claimed.as_ref().map(|c| c.ns)),
            ns(t.and_then(|t| t.tick_ns)),
            t.map_or("-".into(), |t| format!("{:?}", t.verdict)),
            t.map_or(0.0, |t| t.estimate.share_explained * 100.0),
            ns(o.and_then(|o| o.per_read_ns)),
            ns(o.and_then(|o| o.min_block_ns)),
            f.and_then(|f| f.slope_ns)
                .map_or("-".into(), |s| format!("{s:.4} ns/it")),
            f.and_then(|f| f.ols_slope_ns)
                .map_or("-".into(), |s| format!("{s:.4} ns/it")),
        );
        for e in &c.errors {
            println!("    {} failed: {}", e.experiment, e.message);
        }
        for note in t
            .iter()
            .flat_map(|t| t.caveats.iter().chain(&t.estimate.caveats))
        {
            println!("    note: {note}");
        }
    }
}
