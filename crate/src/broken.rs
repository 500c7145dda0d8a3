//! Degenerate clocks and what each must give. Every case runs on simulated time through the
//! tick, overhead and fit experiments, natively (`crate/tests/broken_clocks.rs`) and in
//! browsers (`www/tests/web.rs`), and must end inside its budget with the right tick, a tick
//! flagged unreliable, or a typed error: never a confident wrong tick.

use crate::characterise::{characterise_with, Plan};
use crate::clock::{Clock, ClockInfo, ClockKind, CountPeriod, FloatClock, Ratio};
use crate::error::ErrorKind;
use crate::fit::FitOptions;
use crate::overhead::OverheadOptions;
use crate::report::ClockReport;
use crate::run::{quiet, Budget};
use crate::synthetic::{Backwards, Counter, Frozen, SimTime, TimeSource, Timeline};
use crate::tick::TickOptions;
use crate::workload::{SimWork, WorkloadKind};

/// Seconds of simulated time each experiment may spend.
pub const BUDGET_S: f64 = 0.5;
/// Cost of one unit of the simulated workload, in ps: the slope a fit should find.
const UNIT_PS: f64 = 1000.0;

/// What a clock must give.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Expect {
    /// This tick in ns, or an estimate flagged unreliable.
    Tick(f64),
    /// Any of these ticks in ns (the clock changed its tick), or unreliable.
    OneOf(&'static [f64]),
    /// An error of this kind recorded in the report.
    Error(ErrorKind),
}

/// One degenerate clock.
pub struct Case {
    /// What is wrong with it.
    pub name: &'static str,
    /// Simulated cost of one read, in ps.
    pub read_ps: u64,
    /// Where the simulated time starts, in ps.
    pub start_ps: u64,
    /// What the tick experiment must give.
    pub expect: Expect,
    /// The fit's slope in ns per unit, when the clock is sound while the fit runs.
    pub slope_ns: Option<f64>,
    make: fn(SimTime) -> Box<dyn Clock>,
}

/// A ns clock whose value is a function of true time in ns.
struct Shaped {
    src: SimTime,
    info: ClockInfo,
    f: fn(u64) -> u64,
}

impl Clock for Shaped {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    fn read(&mut self) -> u64 {
        (self.f)(self.src.now_ps() / 1000)
    }
}

fn shaped(src: SimTime, name: &str, f: fn(u64) -> u64) -> Box<dyn Clock> {
    Box::new(Shaped {
        src,
        info: ClockInfo::new(name, ClockKind::Monotonic, CountPeriod::NANOSECOND),
        f,
    })
}

/// A float-ms clock of true time in 1 µs steps that returns `bad` at every `every`th read.
fn float_with(mut src: SimTime, bad: f64, every: u64) -> Box<dyn Clock> {
    let mut n = 0u64;
    Box::new(FloatClock::milliseconds(
        "float clock",
        ClockKind::Monotonic,
        move || {
            n += 1;
            // Read the time either way: a bad read costs as much as a good one.
            let ms = (src.now_ps() / 1_000_000) as f64 / 1e3;
            if n % every == 0 {
                bad
            } else {
                ms
            }
        },
    ))
}

fn us_tick(t: u64) -> u64 {
    t / 1000 * 1000
}

fn micros(src: SimTime) -> Box<dyn Clock> {
    shaped(src, "1 µs tick", us_tick)
}

fn counter(src: SimTime, bits: u32) -> Box<dyn Clock> {
    let period = Ratio::integer(1000).expect("1000 ns is a valid period");
    Box::new(Counter::new(src, period, 1, bits).expect("1 to 64 bits are valid"))
}

const US: f64 = 1_000.0;

/// A case whose simulated time starts at 0.
const fn case(
    name: &'static str,
    read_ps: u64,
    expect: Expect,
    slope_ns: Option<f64>,
    make: fn(SimTime) -> Box<dyn Clock>,
) -> Case {
    Case {
        name,
        read_ps,
        start_ps: 0,
        expect,
        slope_ns,
        make,
    }
}

/// The table.
pub const CASES: &[Case] = &[
    case(
        "sound: 1 µs tick (the control)",
        25_000,
        Expect::Tick(US),
        Some(1.0),
        micros,
    ),
    case(
        "frozen",
        250_000,
        Expect::Error(ErrorKind::Frozen),
        None,
        |s| Box::new(Frozen::new(s, 42)),
    ),
    case(
        "tick of 1 s, longer than the budget",
        250_000,
        Expect::Error(ErrorKind::Frozen),
        None,
        |s| shaped(s, "1 s tick", |t| t / 1_000_000_000 * 1_000_000_000),
    ),
    case(
        "backwards jumps of 50 µs every 1 ms",
        25_000,
        Expect::Tick(US),
        Some(1.0),
        |s| Box::new(Backwards::new(s, 1_000, 50_000, 1_000_000).expect("valid shape")),
    ),
    case(
        "10-bit counter of 1 µs counts (wraps every 1.024 ms)",
        300_000,
        Expect::Tick(US),
        Some(1.0),
        |s| counter(s, 10),
    ),
    Case {
        start_ps: ((1u64 << 32) - 200) * 1_000_000,
        ..case(
            "32-bit counter of 1 µs counts, wraps 200 µs in",
            25_000,
            Expect::Tick(US),
            Some(1.0),
            |s| counter(s, 32),
        )
    },
    case(
        "64-bit ns clock, 1 µs tick, wraps 100 µs in",
        25_000,
        Expect::Tick(US),
        Some(1.0),
        |s| shaped(s, "wraps", |t| us_tick(t).wrapping_add(u64::MAX - 99_999)),
    ),
    case(
        "1 µs tick, jumps 2^62 ns ahead after 100 ms",
        25_000,
        Expect::Tick(US),
        Some(1.0),
        |s| {
            shaped(s, "jumps ahead", |t| {
                us_tick(t) + if t > 100_000_000 { 1 << 62 } else { 0 }
            })
        },
    ),
    case(
        "1 µs tick, jumps 2^62 ns back after 100 ms",
        25_000,
        Expect::Tick(US),
        Some(1.0),
        |s| {
            shaped(s, "jumps back", |t| {
                (us_tick(t) + (1 << 62)) - if t > 100_000_000 { 1 << 62 } else { 0 }
            })
        },
    ),
    case(
        "tick of 1 µs, then 1 ms after 100 ms",
        25_000,
        Expect::OneOf(&[US, 1_000_000.0]),
        None,
        |s| {
            shaped(s, "tick changes", |t| {
                if t < 100_000_000 {
                    us_tick(t)
                } else {
                    t / 1_000_000 * 1_000_000
                }
            })
        },
    ),
    case(
        "float clock: NaN at every read",
        25_000,
        Expect::Error(ErrorKind::Fault),
        None,
        |s| float_with(s, f64::NAN, 1),
    ),
    case(
        "float clock: +inf at every 1000th read",
        25_000,
        Expect::Error(ErrorKind::Fault),
        None,
        |s| float_with(s, f64::INFINITY, 1000),
    ),
    case(
        "float clock: -inf at every 1000th read",
        25_000,
        Expect::Error(ErrorKind::Fault),
        None,
        |s| float_with(s, f64::NEG_INFINITY, 1000),
    ),
    case(
        "float clock: -1 ms at every 1000th read",
        25_000,
        Expect::Error(ErrorKind::Fault),
        None,
        |s| float_with(s, -1.0, 1000),
    ),
    case(
        "reads of 5 ms (100 fit in the budget)",
        5_000_000_000,
        Expect::Tick(US),
        None,
        micros,
    ),
    case(
        "reads of 2 s (longer than the budget)",
        2_000_000_000_000,
        Expect::Error(ErrorKind::TooSlow),
        None,
        micros,
    ),
];

/// How a case went.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The case's name.
    pub name: &'static str,
    /// The report.
    pub report: ClockReport,
    /// Simulated seconds the three experiments took.
    pub spent_s: f64,
    /// The most they may take: each its budget, plus the reads in flight when a check found
    /// it spent (a read cannot be interrupted) and one timed block or run.
    pub allowed_s: f64,
    /// Why the case failed; empty when it held.
    pub failures: Vec<String>,
}

impl Outcome {
    /// The tick in ns and whether it was called reliable, or the first error.
    pub fn summary(&self) -> String {
        match &self.report.tick {
            Some(t) => format!(
                "tick {} ns, {}{}",
                t.tick_ns.map_or("?".into(), |v| format!("{v:.0}")),
                if t.estimate.reliable {
                    "reliable"
                } else {
                    "flagged unreliable"
                },
                self.report
                    .errors
                    .first()
                    .map_or(String::new(), |e| format!(
                        "; {}: {}",
                        e.experiment,
                        crate::present::caveat(&e.cause)
                    ))
            ),
            None => self
                .report
                .errors
                .first()
                .map_or("no tick, no error".into(), |e| {
                    format!("{}: {}", e.experiment, crate::present::caveat(&e.cause))
                }),
        }
    }
}

fn plan() -> Plan {
    let budget = Budget::new(BUDGET_S, 50_000).expect("a valid budget");
    let fit_budget = Budget::new(BUDGET_S, 16 * 30).expect("a valid budget");
    Plan {
        tick: TickOptions::new(budget),
        overhead: Some(OverheadOptions::new(budget)),
        fits: vec![(WorkloadKind::Sqrt, FitOptions::new(fit_budget))],
    }
}

/// Runs one case through every experiment and judges it.
pub fn run(case: &Case) -> Outcome {
    let tl = Timeline::new(case.start_ps);
    let mut clock = (case.make)(SimTime::new(&tl, case.read_ps, 0, 7));
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let t0 = tl.now_ps();
    let work = tl.clone();
    let report = characterise_with(clock.as_mut(), &mut sw, &mut q, &plan(), &mut |_| {
        Box::new(SimWork::new(&work, 0.0, UNIT_PS, 0, 3))
    });
    let spent_s = (tl.now_ps() - t0) as f64 * 1e-12;
    let read_s = case.read_ps as f64 * 1e-12;
    let allowed_s = 3.0 * BUDGET_S * 1.2 + 8.0 * read_s;
    let mut failures = Vec::new();
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            failures.push(format!("characterise failed: {e}"));
            let info = clock.info().clone();
            ClockReport::new(info)
        }
    };
    if spent_s > allowed_s {
        failures.push(format!("took {spent_s:.3} s, allowed {allowed_s:.3} s"));
    }
    let confident = report
        .tick
        .as_ref()
        .and_then(|t| t.estimate.reliable.then_some(t.tick_ns.unwrap_or(f64::NAN)));
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-6 * b;
    let tick_ok = match case.expect {
        Expect::Tick(ns) => report.tick.is_some() && confident.is_none_or(|t| near(t, ns)),
        Expect::OneOf(ns) => {
            report.tick.is_some() && confident.is_none_or(|t| ns.iter().any(|&n| near(t, n)))
        }
        Expect::Error(k) => report.errors.iter().any(|e| e.kind == k),
    };
    if !tick_ok {
        failures.push(format!("expected {:?}", case.expect));
    }
    if let Some(want) = case.slope_ns {
        match report.fits.first().and_then(|f| f.slope_ns) {
            Some(got) if (got - want).abs() <= 0.05 * want => {}
            got => failures.push(format!("fit slope {got:?} ns per unit, expected {want}")),
        }
    }
    for f in &report.fits {
        if !f.slope_ns.is_none_or(f64::is_finite) {
            failures.push(format!("fit slope {:?} is not finite", f.slope_ns));
        }
    }
    Outcome {
        name: case.name,
        report,
        spent_s,
        allowed_s,
        failures,
    }
}

/// Runs every case, handing each outcome to `log`; returns the failures, one line each.
pub fn run_all(log: &mut dyn FnMut(&Outcome)) -> Vec<String> {
    let mut failures = Vec::new();
    for case in CASES {
        let o = run(case);
        log(&o);
        for f in &o.failures {
            failures.push(format!("{}: {f} (got {})", o.name, o.summary()));
        }
    }
    failures
}
