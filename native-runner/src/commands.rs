//! list, run, tick, overhead, fit and show: select clocks, run the core's plan, print.

use ticklab::characterise::Plan;
use ticklab::digest::{self, Digest};
use ticklab::fit::FitOptions;
use ticklab::overhead::OverheadOptions;
use ticklab::present;
use ticklab::report::{ClockReport, Report};
use ticklab::tick::TickOptions;

use crate::cli::{ExperimentArgs, FitArgs, ListArgs, RunArgs, ShowArgs};
use crate::clocks;
use crate::error::CliError;
use crate::machine::{budget, environment, measure, run_plan, select, RUN_CLOCKS_S};
use crate::output::{self, TextTable};
use crate::saved::{read_saved, save, Saved};

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
    let mut t = TextTable::new(&present::LIST_COLUMNS);
    for e in &entries {
        t.row(present::list_row(
            &e.info,
            e.clock.as_ref().map(|_| ()).map_err(String::as_str),
        ));
    }
    let mut text = t.render();
    for f in &freqs {
        text.push_str(&output::frequency_line(f));
    }
    output::print(&text)
}

pub fn run(a: RunArgs) -> Result<(), CliError> {
    let plan = run_plan(a.select.time, (!a.no_fit).then_some(a.workload))?;
    let explicit = !a.select.clocks.is_empty();
    // The default run ends within 2 s however busy the machine: its clocks share 1.9 s (the
    // rest is the command's start and its report). Budgets given with --time are kept.
    let deadline = a.select.time.is_none().then_some(RUN_CLOCKS_S);
    let report = measure(select(&a.select.clocks)?, &plan, deadline);
    save(&report, a.select.save.as_deref())?;
    output::emit(&report, &a.output, output::Printed::Summary)?;
    interrupted(&report, a.select.save.as_deref())?;
    if let Some(hub) = &a.share {
        crate::share::share(hub, &[("this machine's run", &report)])?;
    }
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
        Saved::Comparison(c) => output::emit_comparison(&c, &a.output, digest::Figure::Tick),
        Saved::Report(r) => output::emit(&r, &a.output, output::Printed::Summary),
    }
}

pub fn fit(a: FitArgs) -> Result<(), CliError> {
    let mut fit = FitOptions::new(budget(a.select.time, a.samples, 3.0, 10_000_000)?);
    fit.points = a.points;
    fit.runs = a.runs;
    if let Some((lo, hi)) = a.n {
        let max = a.workload.build().max_n();
        if hi > max {
            return Err(CliError::Usage(format!(
                "--n {lo}..{hi}: the largest size for {} is {max}",
                a.workload.name()
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
        fits: vec![(a.workload, fit)],
    };
    let report = measure(select(&a.select.clocks)?, &plan, None);
    save(&report, a.select.save.as_deref())?;
    output::emit(&report, &a.output, output::Printed::Fit)?;
    interrupted(&report, a.select.save.as_deref())?;
    failures(&report)
}
