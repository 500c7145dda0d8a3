//! list, run, tick, overhead and fit: select clocks, run the core's plan, print.

use ticklab::characterise::{characterise_kept, Plan};
use ticklab::clock::Clock;
use ticklab::digest::{self, Digest};
use ticklab::fit::FitOptions;
use ticklab::overhead::OverheadOptions;
use ticklab::present;
use ticklab::report::{ClockReport, CounterFrequency, Environment, Platform, Report};
use ticklab::run::Budget;
use ticklab::tick::TickOptions;
use ticklab::workload::WorkloadKind;

use crate::cli::{ExperimentArgs, FitArgs, ListArgs, RunArgs, ShowArgs, WorkloadArg};
use crate::clocks::{self, Entry, Visitor};
use crate::output::{self, Table};
use crate::progress::{self, Bars};
use crate::CliError;

/// Canonical form of a clock name for matching: lower case, punctuation and spaces as
/// dashes, CLOCK_ prefix dropped ("getrusage-user", "lfence-rdtsc", "monotonic-raw").
fn canon(name: &str) -> String {
    let s = ticklab::export::slug(name);
    s.strip_prefix("clock-").map(str::to_string).unwrap_or(s)
}

/// The catalogue, or the named clocks of it in the order named. Nothing is opened (or
/// calibrated) here.
fn select(names: &[String]) -> Result<Vec<Entry>, CliError> {
    let all = clocks::catalogue();
    if names.is_empty() {
        return Ok(all);
    }
    let known: Vec<String> = all.iter().map(|e| e.info.name.clone()).collect();
    let mut pool: Vec<Option<Entry>> = all.into_iter().map(Some).collect();
    let mut out = Vec::new();
    for n in names {
        let want = canon(n);
        if want.is_empty() {
            return Err(CliError::Usage(
                "--clock needs a name; see `ticklab list`".into(),
            ));
        }
        let found = pool
            .iter()
            .position(|e| e.as_ref().is_some_and(|e| canon(&e.info.name) == want));
        match found {
            Some(i) => out.extend(pool[i].take()),
            None if out.iter().any(|e: &Entry| canon(&e.info.name) == want) => {}
            None => {
                return Err(CliError::Usage(format!(
                    "unknown clock '{n}'; the clocks are: {}",
                    known.join(", ")
                )));
            }
        }
    }
    Ok(out)
}

/// What is known of this machine.
pub fn environment(counters: Vec<CounterFrequency>) -> Environment {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|t| {
        t.lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split(':').nth(1))
            .map(|s| s.trim().to_string())
    });
    Environment {
        platform: Some(Platform::Native),
        os: Some(std::env::consts::OS.into()),
        arch: Some(std::env::consts::ARCH.into()),
        cpu,
        cpus: std::thread::available_parallelism()
            .ok()
            .map(|n| n.get() as u32),
        created_unix_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_millis() as u64),
        counters,
        ..Default::default()
    }
}

struct Characterise<'a> {
    plan: &'a Plan,
    bars: &'a Bars,
}

impl Visitor for Characterise<'_> {
    /// The clock's report and whether Ctrl-C cut it short.
    type Output = (ClockReport, bool);
    fn visit<C: Clock>(self, clock: &mut C) -> Self::Output {
        self.bars.start(&clock.info().name);
        let mut sw = progress::stopwatch();
        let mut obs = self.bars.observer();
        characterise_kept(clock, &mut sw, &mut obs, self.plan)
    }
}

/// What a clock of this kind is expected to take of a run's time, for its share of a
/// deadline: a coarse or synthetic clock spends its time budgets (edges come every tick),
/// a clock whose tick no run can see (time()'s second) only its tick's, a CPU-time clock
/// (charged at the scheduler's tick, or a system call a read) about a tenth of a second,
/// and a fine one ends on its sample budgets within milliseconds.
fn expected_s(info: &ticklab::ClockInfo, plan: &Plan) -> f64 {
    use ticklab::clock::ClockKind;
    let claim = info.claimed.as_ref().map(|c| c.ns);
    if claim.is_some_and(|ns| ns >= 1e8) {
        plan.tick.budget.time_s
    } else if info.kind == ClockKind::Synthetic || claim.is_some_and(|ns| ns >= 50_000.0) {
        plan.seconds()
    } else if matches!(info.kind, ClockKind::ProcessCpu | ClockKind::ThreadCpu) {
        CPU_CLOCK_S.min(plan.seconds())
    } else {
        FINE_CLOCK_S.min(plan.seconds())
    }
}

/// A fine clock's usual share of a run, and a CPU-time clock's.
const FINE_CLOCK_S: f64 = 0.01;
const CPU_CLOCK_S: f64 = 0.15;

/// Opens each entry in turn and runs the plan on it; unavailable clocks are listed with
/// their reason. The counters' frequencies are those learnt by the clocks opened. With a
/// `deadline` (seconds for all clocks), each clock's budgets are cut to its share of the
/// time left, in proportion to what its kind is expected to take: a busy machine makes
/// the clocks' experiments shorter, not the run longer.
fn measure(entries: Vec<Entry>, plan: &Plan, deadline: Option<f64>) -> Report {
    progress::catch_interrupt();
    let bars = Bars::new();
    let total = entries.len();
    let started = std::time::Instant::now();
    let expected: Vec<f64> = entries
        .iter()
        .map(|e| match e.clock {
            Ok(_) => expected_s(&e.info, plan),
            Err(_) => 0.0,
        })
        .collect();
    let mut clocks_run = Vec::new();
    let mut interrupted = None;
    for (i, e) in entries.into_iter().enumerate() {
        if progress::interrupted() {
            interrupted = Some((e.info.name.clone(), false));
            break;
        }
        let name = e.info.name.clone();
        let this = match deadline {
            Some(d) => {
                let left = (d - started.elapsed().as_secs_f64()).max(0.0);
                let share = left * expected[i] / expected[i..].iter().sum::<f64>().max(1e-9);
                plan.within(share)
            }
            None => plan.clone(),
        };
        let (r, cut) = match e.open() {
            (_, Ok(mut c)) => c.visit(Characterise {
                plan: &this,
                bars: &bars,
            }),
            (info, Err(why)) => (ClockReport::unavailable(info, why), false),
        };
        clocks_run.push(r);
        if cut {
            interrupted = Some((name, true));
            break;
        }
    }
    bars.finish();
    let mut report = Report::new(environment(clocks::frequencies()));
    report.interruption = interrupted.map(|(clock, during)| ticklab::report::Interruption {
        clock,
        during,
        measured: clocks_run.len() as u64,
        total: total as u64,
    });
    ticklab::characterise::check_bases(&mut clocks_run.iter_mut().collect::<Vec<_>>());
    report.clocks = clocks_run;
    report
}

/// Writes `text` to `path` whole or not at all: into a temporary file beside it, then
/// renamed over it, so a crash or Ctrl-C never leaves half a report (nor spoils the old one).
pub fn write_atomically(path: &std::path::Path, text: &str) -> Result<(), CliError> {
    use std::io::Write;
    let fail = |e: &dyn std::fmt::Display| {
        CliError::Output(format!("cannot write {}: {e}", path.display()))
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".ticklab-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| fail(&e))?;
    tmp.write_all(text.as_bytes()).map_err(|e| fail(&e))?;
    tmp.as_file().sync_all().map_err(|e| fail(&e))?;
    tmp.persist(path).map_err(|e| fail(&e.error))?;
    Ok(())
}

/// Saves the report, whole or not at all, when asked.
fn save(report: &Report, to: Option<&std::path::Path>) -> Result<(), CliError> {
    if let Some(path) = to {
        write_atomically(path, &report.to_json()?)?;
    }
    Ok(())
}

/// Exit 130 with what Ctrl-C left, when it was pressed.
fn interrupted(report: &Report, saved: Option<&std::path::Path>) -> Result<(), CliError> {
    match present::interrupted(report) {
        None => Ok(()),
        Some(why) => Err(CliError::Interrupted(match saved {
            Some(p) => format!("{why}; saved to {}, marked interrupted", p.display()),
            None => format!("{why}; nothing saved (no --save)"),
        })),
    }
}

fn budget(
    time: Option<f64>,
    samples: Option<u64>,
    default_time: f64,
    default_samples: u64,
) -> Result<Budget, CliError> {
    Budget::new(
        time.unwrap_or(default_time),
        samples.unwrap_or(default_samples),
    )
    .map_err(|e| CliError::Usage(format!("{e} (--time takes seconds, --samples a count)")))
}

fn kind(w: WorkloadArg) -> WorkloadKind {
    match w {
        WorkloadArg::Count => WorkloadKind::Count,
        WorkloadArg::Copy => WorkloadKind::Copy,
        WorkloadArg::Sqrt => WorkloadKind::Sqrt,
        WorkloadArg::Matmul => WorkloadKind::Matmul,
    }
}

/// Fails with the reasons when any selected clock could not run or an experiment failed.
fn failures(report: &Report) -> Result<(), CliError> {
    let why: Vec<String> = report
        .clocks
        .iter()
        .flat_map(|c| {
            present::failures_for(c, present::Front::Command)
                .into_iter()
                .map(move |f| format!("{}: {f}", c.info.name))
        })
        .collect();
    if why.is_empty() {
        Ok(())
    } else {
        Err(CliError::Measurement(why.join("\n  ")))
    }
}

pub fn list(a: ListArgs) -> Result<(), CliError> {
    let entries = clocks::catalogue();
    let freqs = clocks::frequencies();
    if a.json {
        let v: Vec<ClockReport> = entries
            .into_iter()
            .map(|e| match e.clock {
                Ok(_) => ClockReport::new(e.info),
                Err(why) => ClockReport::unavailable(e.info, why),
            })
            .collect();
        let mut report = Report::new(environment(freqs));
        report.clocks = v;
        return output::print(&report.to_json()?);
    }
    let mut t = Table::of("clock|kind|one count|bits|claimed|claimed by|here");
    for e in &entries {
        let i = &e.info;
        t.row(vec![
            i.name.clone(),
            present::kind_label(i.kind).into(),
            match i.period.ns_per_count() {
                Some(ns) => present::duration(ns),
                None if e.clock.is_ok() => "measured when run".into(),
                None => "unknown".into(),
            },
            i.bits.to_string(),
            present::opt_duration(i.claimed.as_ref().map(|c| c.ns)),
            i.claimed.as_ref().map_or("-".into(), |c| c.source.clone()),
            match &e.clock {
                Ok(_) => "yes".into(),
                Err(w) => format!("no: {w}"),
            },
        ]);
    }
    let mut text = t.render();
    for f in &freqs {
        text.push_str(&output::frequency_line(f));
    }
    output::print(&text)
}

/// The time `ticklab run` gives all its clocks together.
const RUN_CLOCKS_S: f64 = 1.9;

/// The plan of `ticklab run`: its budgets, or `--time`'s.
fn run_plan(a: &RunArgs) -> Result<Plan, CliError> {
    // Sample budgets end the experiments on fine clocks within milliseconds (and on slow
    // reads, CPU-time clocks and getrusage, within tens: 15 000 intervals pin a 1 µs or a
    // 10 ns tick), leaving the time budgets, and so the whole run (≤ 2 s), to the coarse
    // clocks that need them: 60 ms finds a 4 ms tick (15 edges); their overhead blocks cannot
    // meet the Rule of 100 in any budget a run can give (400 ms for a 4 ms clock), so 20 ms is
    // spent on them; their fits, too coarse for runs of many ticks, are timed through
    // interpolation in 0.15 s.
    let t = a.select.time;
    let mut fit = FitOptions::new(budget(t, None, 0.15, 1_000_000)?);
    fit.points = 12;
    fit.runs = 10;
    Ok(Plan {
        tick: TickOptions::new(budget(t, None, 0.06, 15_000)?),
        overhead: Some(OverheadOptions::new(budget(t, None, 0.02, 500)?)),
        fits: if a.no_fit {
            vec![]
        } else {
            vec![(kind(a.workload), fit)]
        },
    })
}

/// Every clock of this machine, as `ticklab run` measures them.
pub fn machine_report() -> Result<Report, CliError> {
    let plan = run_plan(&RunArgs::default())?;
    Ok(measure(select(&[])?, &plan, Some(RUN_CLOCKS_S)))
}

pub fn run(a: RunArgs) -> Result<(), CliError> {
    let plan = run_plan(&a)?;
    let explicit = !a.select.clocks.is_empty();
    // The default run ends within 2 s however busy the machine: its clocks share 1.9 s (the
    // rest is the command's start and its report). Budgets given with --time are kept.
    let deadline = a.select.time.is_none().then_some(RUN_CLOCKS_S);
    let report = measure(select(&a.select.clocks)?, &plan, deadline);
    save(&report, a.select.save.as_deref())?;
    output::emit(&report, &a.output, output::Printed::Summary)?;
    interrupted(&report, a.select.save.as_deref())?;
    let measured = report.clocks.iter().filter(|c| c.tick.is_some()).count();
    if explicit {
        failures(&report)
    } else if measured == 0 {
        Err(CliError::Measurement("no clock could be measured".into()))
    } else {
        Ok(())
    }
}

pub fn tick(a: ExperimentArgs) -> Result<(), CliError> {
    let plan = Plan {
        tick: TickOptions::new(budget(a.select.time, a.samples, 1.0, 1_000_000)?),
        overhead: None,
        fits: vec![],
    };
    let report = measure(select(&a.select.clocks)?, &plan, None);
    save(&report, a.select.save.as_deref())?;
    output::emit(&report, &a.output, output::Printed::Tick)?;
    interrupted(&report, a.select.save.as_deref())?;
    failures(&report)
}

pub fn overhead(a: ExperimentArgs) -> Result<(), CliError> {
    let plan = Plan {
        tick: TickOptions::new(budget(None, None, 0.2, 1_000_000)?),
        overhead: Some(OverheadOptions::new(budget(
            a.select.time,
            a.samples,
            0.5,
            100_000,
        )?)),
        fits: vec![],
    };
    let report = measure(select(&a.select.clocks)?, &plan, None);
    save(&report, a.select.save.as_deref())?;
    output::emit(&report, &a.output, output::Printed::Overhead)?;
    interrupted(&report, a.select.save.as_deref())?;
    failures(&report)
}

/// A saved report and its text, refused with a message (after `flag`) when it cannot be
/// read, is too large, or is no report of a version this ticklab reads.
pub fn read_report(p: &std::path::Path, flag: &str) -> Result<(Report, String), CliError> {
    let bad = |why: String| CliError::Usage(format!("{flag}{}: {why}", p.display()));
    let meta = std::fs::metadata(p).map_err(|e| bad(e.to_string()))?;
    if meta.len() > ticklab::report::MAX_REPORT_BYTES as u64 {
        return Err(bad(format!(
            "{} bytes; a report is at most {} bytes",
            meta.len(),
            ticklab::report::MAX_REPORT_BYTES
        )));
    }
    let text = std::fs::read_to_string(p).map_err(|e| bad(e.to_string()))?;
    let report = Report::from_json(&text).map_err(|e| bad(e.to_string()))?;
    Ok((report, text))
}

/// Prints a saved report as `run` prints its own, or a saved comparison (`ticklab browsers
/// --save`) as `browsers` prints its own.
pub fn show(a: ShowArgs) -> Result<(), CliError> {
    if a.matrix {
        let mut digests = Vec::new();
        for f in &a.files {
            let from = f.file_name().map_or_else(
                || f.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            match read_saved(f)? {
                Saved::Report(r) => digests.push(Digest::of(&r, &from)),
                Saved::Comparison(c) => digests.extend(c.runs.iter().filter_map(|r| {
                    Some(Digest::of(
                        r.report.as_ref()?,
                        &format!("{from}: {}", r.heading()),
                    ))
                })),
            }
        }
        let refs: Vec<&Digest> = digests.iter().collect();
        return output::print(&digest::matrix_csv(&digest::matrix(
            &refs,
            digest::Column::Tick,
            false,
        )));
    }
    let [file] = a.files.as_slice() else {
        return Err(CliError::Usage(
            "show takes one file; several are shown side by side with --matrix".into(),
        ));
    };
    match read_saved(file)? {
        Saved::Comparison(c) => crate::browsers::emit(&c, &a.output, digest::Cell::Tick),
        Saved::Report(r) => output::emit(&r, &a.output, output::Printed::Summary),
    }
}

/// What `ticklab show` reads: a report, or a comparison `ticklab browsers` saved.
enum Saved {
    Report(Box<Report>),
    Comparison(ticklab::comparison::Comparison),
}

fn read_saved(file: &std::path::Path) -> Result<Saved, CliError> {
    use ticklab::comparison::{Comparison, MAX_COMPARISON_BYTES};
    let bad = |why: String| CliError::Usage(format!("{}: {why}", file.display()));
    // A comparison may be larger than a report: read it when it names itself one, and
    // refuse anything else as a report.
    let len = std::fs::metadata(file).map_or(0, |m| m.len());
    if len <= MAX_COMPARISON_BYTES as u64 {
        let text = if len > ticklab::report::MAX_REPORT_BYTES as u64 {
            std::fs::read_to_string(file).map_err(|e| bad(e.to_string()))?
        } else {
            std::fs::read_to_string(file).unwrap_or_default()
        };
        if Comparison::is_one(&text) {
            let c = Comparison::from_json(&text).map_err(|e| bad(e.to_string()))?;
            return Ok(Saved::Comparison(c));
        }
    }
    Ok(Saved::Report(Box::new(read_report(file, "")?.0)))
}

/// Parses `LO..HI` (also `LO:HI`, `LO-HI`).
fn parse_range(s: &str) -> Result<(u64, u64), CliError> {
    let bad = || {
        CliError::Usage(format!(
            "bad --n '{s}': expected LO..HI with whole numbers 1 ≤ LO < HI, e.g. 1000..50000"
        ))
    };
    let (lo, hi) = s
        .split_once("..")
        .or_else(|| s.split_once(':'))
        .or_else(|| s.split_once('-'))
        .ok_or_else(bad)?;
    let lo: u64 = lo.trim().replace('_', "").parse().map_err(|_| bad())?;
    let hi: u64 = hi.trim().replace('_', "").parse().map_err(|_| bad())?;
    if lo == 0 || hi <= lo {
        return Err(bad());
    }
    Ok((lo, hi))
}

pub fn fit(a: FitArgs) -> Result<(), CliError> {
    let mut fit = FitOptions::new(budget(a.select.time, a.samples, 3.0, 10_000_000)?);
    fit.points = a.points;
    fit.runs = a.runs;
    if let Some(n) = &a.n {
        let (lo, hi) = parse_range(n)?;
        let max = kind(a.workload).build().max_n();
        if hi > max {
            return Err(CliError::Usage(format!(
                "--n {n}: the largest size for {} is {max}",
                kind(a.workload).name()
            )));
        }
        fit.n_range = Some((lo, hi));
    }
    if !(2..=10_000).contains(&a.points) {
        return Err(CliError::Usage(format!(
            "--points {}: expected 2 to 10000",
            a.points
        )));
    }
    if !(1..=1_000_000).contains(&a.runs) {
        return Err(CliError::Usage(format!(
            "--runs {}: expected 1 to 1000000",
            a.runs
        )));
    }
    let plan = Plan {
        tick: TickOptions::new(budget(None, None, 0.2, 1_000_000)?),
        overhead: Some(OverheadOptions::new(budget(None, None, 0.1, 100_000)?)),
        fits: vec![(kind(a.workload), fit)],
    };
    let report = measure(select(&a.select.clocks)?, &plan, None);
    save(&report, a.select.save.as_deref())?;
    output::emit(&report, &a.output, output::Printed::Fit)?;
    interrupted(&report, a.select.save.as_deref())?;
    failures(&report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_and_bad_ones_are_refused() {
        assert_eq!(parse_range("10..20").unwrap(), (10, 20));
        assert_eq!(parse_range("1_000:2_000").unwrap(), (1000, 2000));
        for bad in ["", "5", "0..3", "5..5", "9..3", "a..b", "-3..4", "1..1e3"] {
            assert!(parse_range(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_match_loosely() {
        assert_eq!(canon("CLOCK_MONOTONIC"), canon("monotonic"));
        assert!(select(&["nope".into()]).is_err());
    }
}
