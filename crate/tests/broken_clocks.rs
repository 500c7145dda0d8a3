//! Degenerate clocks through the tick and overhead experiments, on simulated time: each ends
//! inside its budget with the right tick, a tick flagged unreliable, or a typed error in
//! the report; none reports a confident wrong tick.

use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod, FloatClock, Ratio};
use ticklab::lab::{characterise, Plan};
use ticklab::overhead::OverheadOptions;
use ticklab::report::ClockReport;
use ticklab::run::{quiet, Budget};
use ticklab::synthetic::{Backwards, Counter, Frozen, SimTime, TimeSource, Timeline};
use ticklab::tick::TickOptions;

const BUDGET_S: f64 = 0.5;

/// A ns clock whose value is `f` of true time in ns; each read costs 25 ns.
struct Shaped<F> {
    src: SimTime,
    info: ClockInfo,
    f: F,
}

impl<F: FnMut(u64) -> u64> Clock for Shaped<F> {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    fn read(&mut self) -> u64 {
        let t = self.src.now_ps() / 1000;
        (self.f)(t)
    }
}

fn sim(tl: &Timeline, cost_ps: u64) -> SimTime {
    SimTime::new(tl, cost_ps, 0, 7)
}

fn shaped(tl: &Timeline, name: &str, f: impl FnMut(u64) -> u64 + 'static) -> Box<dyn Clock> {
    Box::new(Shaped {
        src: sim(tl, 25_000),
        info: ClockInfo::new(name, ClockKind::Monotonic, CountPeriod::NANOSECOND),
        f,
    })
}

/// A float-ms clock of true time that returns `bad` every `every`th read (every read when 1).
fn float_with(tl: &Timeline, bad: f64, every: u64) -> Box<dyn Clock> {
    let mut src = sim(tl, 25_000);
    let mut n = 0u64;
    Box::new(FloatClock::milliseconds(
        "float clock",
        ClockKind::Monotonic,
        move || {
            n += 1;
            let ms = (src.now_ps() / 1_000_000) as f64 / 1e3; // 1 µs steps
            if n % every == 0 {
                bad
            } else {
                ms
            }
        },
    ))
}

/// What a clock must give.
#[derive(Debug)]
enum Expect {
    /// This tick in ns, or an estimate flagged unreliable.
    Tick(f64),
    /// Any of these ticks (the clock changed its tick), or unreliable.
    OneOf(&'static [f64]),
    /// A recorded error whose message contains this.
    Error(&'static str),
}

fn plan() -> Plan {
    let budget = Budget::new(BUDGET_S, 50_000).unwrap();
    Plan {
        tick: TickOptions::new(budget),
        overhead: Some(OverheadOptions::new(budget)),
        fits: vec![],
    }
}

fn run(tl: &Timeline, clock: &mut dyn Clock) -> ClockReport {
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    characterise(clock, &mut sw, &mut q, &plan()).expect("only cancellation is an Err")
}

fn table() -> Vec<(&'static str, Timeline, Box<dyn Clock>, Expect)> {
    let mut rows: Vec<(&'static str, Timeline, Box<dyn Clock>, Expect)> = Vec::new();
    let mut add = |name, start_ps: u64, make: &dyn Fn(&Timeline) -> Box<dyn Clock>, e| {
        let tl = Timeline::new(start_ps);
        let c = make(&tl);
        rows.push((name, tl, c, e));
    };
    add(
        "frozen",
        0,
        &|tl| Box::new(Frozen::new(sim(tl, 25_000), 42)),
        Expect::Error("did not advance"),
    );
    add(
        "backwards jumps of 50 µs every 1 ms",
        0,
        &|tl| Box::new(Backwards::new(sim(tl, 25_000), 1_000, 50_000, 1_000_000).unwrap()),
        Expect::Tick(1_000.0),
    );
    add(
        "10-bit counter, 1 µs counts",
        0,
        &|tl| {
            Box::new(Counter::new(sim(tl, 300_000), Ratio::integer(1000).unwrap(), 1, 10).unwrap())
        },
        Expect::Tick(1_000.0),
    );
    add(
        "32-bit counter, 1 µs counts, wraps 200 µs in",
        ((1u64 << 32) - 200) * 1_000_000,
        &|tl| {
            Box::new(Counter::new(sim(tl, 25_000), Ratio::integer(1000).unwrap(), 1, 32).unwrap())
        },
        Expect::Tick(1_000.0),
    );
    add(
        "64-bit ns clock, 1 µs tick, wraps 100 µs in",
        0,
        &|tl| {
            shaped(tl, "wrap64", |t| {
                (t / 1000 * 1000).wrapping_add(u64::MAX - 99_999)
            })
        },
        Expect::Tick(1_000.0),
    );
    add(
        "1 µs tick, jumps 2^62 ns ahead after 100 ms",
        0,
        &|tl| {
            shaped(tl, "huge jump", |t| {
                t / 1000 * 1000 + if t > 100_000_000 { 1 << 62 } else { 0 }
            })
        },
        Expect::Tick(1_000.0),
    );
    add(
        "tick of 1 µs, then 1 ms after 100 ms",
        0,
        &|tl| {
            shaped(tl, "tick change", |t| {
                if t < 100_000_000 {
                    t / 1000 * 1000
                } else {
                    t / 1_000_000 * 1_000_000
                }
            })
        },
        Expect::OneOf(&[1_000.0, 1_000_000.0]),
    );
    add(
        "float clock: NaN always",
        0,
        &|tl| float_with(tl, f64::NAN, 1),
        Expect::Error(""),
    );
    add(
        "float clock: +inf every 1000th read",
        0,
        &|tl| float_with(tl, f64::INFINITY, 1000),
        Expect::Error(""),
    );
    add(
        "float clock: -inf every 1000th read",
        0,
        &|tl| float_with(tl, f64::NEG_INFINITY, 1000),
        Expect::Error(""),
    );
    rows
}

#[test]
fn every_broken_clock_ends_in_budget_with_a_right_tick_or_an_error() {
    let mut failures = Vec::new();
    for (name, tl, mut clock, expect) in table() {
        let r = run(&tl, clock.as_mut());
        let errors: Vec<String> = r.errors.iter().map(|e| e.message.clone()).collect();
        // Budgets are in simulated seconds: a run may pass its budget by the reads it makes
        // between checks, never by more than a budget again.
        let mut spent = r.tick.as_ref().map_or(0.0, |t| t.elapsed_s);
        if let Some(o) = &r.overhead {
            spent = spent.max(o.elapsed_s);
        }
        if spent > 2.0 * BUDGET_S {
            failures.push(format!("{name}: {spent} s for a {BUDGET_S} s budget"));
        }
        let tick = r
            .tick
            .as_ref()
            .and_then(|t| t.estimate.reliable.then_some(t.tick_ns.unwrap_or(f64::NAN)));
        let ok = match &expect {
            Expect::Tick(ns) => r.tick.is_some() && tick.is_none_or(|t| (t - ns).abs() < 1e-6 * ns),
            Expect::OneOf(ns) => {
                r.tick.is_some() && tick.is_none_or(|t| ns.iter().any(|n| (t - n).abs() < 1e-6 * n))
            }
            Expect::Error(s) => {
                r.tick.is_none() && errors.iter().any(|m| m.contains(s))
                    || r.tick.is_some() && !errors.is_empty() && s.is_empty()
            }
        };
        if !ok {
            failures.push(format!(
                "{name}: expected {expect:?}, got tick {:?} (reliable {:?}), errors {errors:?}",
                r.tick.as_ref().and_then(|t| t.tick_ns),
                r.tick.as_ref().map(|t| t.estimate.reliable),
            ));
        }
        eprintln!(
            "{name}: tick {:?} reliable {:?}; errors {errors:?}",
            r.tick.as_ref().and_then(|t| t.tick_ns),
            r.tick.as_ref().map(|t| t.estimate.reliable)
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
