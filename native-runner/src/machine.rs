//! This machine's clocks through the core's plan: which clocks, how long each may take of a
//! run, and the report they make. `ticklab run`, `tick`, `overhead`, `fit` and `browsers`
//! measure through here.

use ticklab::characterise::{characterise_kept, Plan};
use ticklab::clock::Clock;
use ticklab::fit::FitOptions;
use ticklab::overhead::OverheadOptions;
use ticklab::report::{ClockReport, CounterFrequency, Environment, Platform, Report};
use ticklab::run::Budget;
use ticklab::tick::TickOptions;
use ticklab::workload::WorkloadKind;

use crate::clocks::{self, Entry, Visitor};
use crate::error::CliError;
use crate::progress::{self, Bars};

/// Canonical form of a clock name for matching: lower case, punctuation and spaces as
/// dashes, CLOCK_ prefix dropped ("getrusage-user", "lfence-rdtsc", "monotonic-raw").
fn canon(name: &str) -> String {
    let s = ticklab::export::slug(name);
    s.strip_prefix("clock-").map(str::to_string).unwrap_or(s)
}

/// The catalogue, or the named clocks of it in the order named. Nothing is opened (or
/// calibrated) here.
pub fn select(names: &[String]) -> Result<Vec<Entry>, CliError> {
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
    let cpu = crate::clocks::cpu_name();
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
pub fn measure(entries: Vec<Entry>, plan: &Plan, deadline: Option<f64>) -> Report {
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

/// A budget of `time` seconds and `samples` (each its default when not given), refused as
/// bad usage.
pub fn budget(
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

/// The time `ticklab run` gives all its clocks together.
pub const RUN_CLOCKS_S: f64 = 1.9;

/// The plan of `ticklab run`: its budgets, or `--time`'s; a fit of `workload` unless none.
pub fn run_plan(time: Option<f64>, workload: Option<WorkloadKind>) -> Result<Plan, CliError> {
    // Sample budgets end the experiments on fine clocks within milliseconds (and on slow
    // reads, CPU-time clocks and getrusage, within tens: 15 000 intervals pin a 1 µs or a
    // 10 ns tick), leaving the time budgets, and so the whole run (≤ 2 s), to the coarse
    // clocks that need them: 60 ms finds a 4 ms tick (15 edges); their overhead blocks cannot
    // meet the Rule of 100 in any budget a run can give (400 ms for a 4 ms clock), so 20 ms is
    // spent on them; their fits, too coarse for runs of many ticks, are timed through
    // interpolation in 0.15 s.
    let t = time;
    let mut fit = FitOptions::new(budget(t, None, 0.15, 1_000_000)?);
    fit.points = 12;
    fit.runs = 10;
    Ok(Plan {
        tick: TickOptions::new(budget(t, None, 0.06, 15_000)?),
        overhead: Some(OverheadOptions::new(budget(t, None, 0.02, 500)?)),
        fits: workload.map(|w| (w, fit)).into_iter().collect(),
    })
}

/// Every clock of this machine, as `ticklab run` measures them.
pub fn machine_report() -> Result<Report, CliError> {
    let plan = run_plan(None, Some(WorkloadKind::Count))?;
    Ok(measure(select(&[])?, &plan, Some(RUN_CLOCKS_S)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_loosely() {
        assert_eq!(canon("CLOCK_MONOTONIC"), canon("monotonic"));
        assert!(select(&["nope".into()]).is_err());
    }
}
