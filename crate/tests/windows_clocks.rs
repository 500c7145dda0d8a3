//! Windows' clocks as their readings look, on simulated time: a value in 100 ns units that
//! moves at each interrupt of a 15.625 ms timer (GetSystemTimeAsFileTime), milliseconds
//! that move with it (GetTickCount64: 15 or 16 at a time), QueryPerformanceCounter at
//! 10 MHz, and a timer another program sets to 1 ms (timeBeginPeriod(1)) halfway through a
//! run. Each gives the tick Windows documents, and the verdict against the claim the
//! command makes for it: the unit is not the tick.

use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod, Ratio};
use ticklab::run::{quiet, Budget, Run};
use ticklab::synthetic::{SimTime, TimeSource, Timeline};
use ticklab::tick::{self, TickOptions, TickResult, Verdict};

/// The default system timer's interval: 64 interrupts a second.
const TIMER_PS: u64 = 15_625_000_000;
/// The timer after timeBeginPeriod(1): 1024 interrupts a second.
const FAST_TIMER_PS: u64 = 976_562_500;

/// A clock whose value is `units(interrupt time in ps)`, read on simulated time: the
/// system's time as of its last timer interrupt, the timer's interval `timer(ps)` at each
/// moment (another program may change it).
struct Windowsish {
    info: ClockInfo,
    src: SimTime,
    timer: fn(u64) -> u64,
    units: fn(u64) -> u64,
}

impl Clock for Windowsish {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    fn read(&mut self) -> u64 {
        let now = self.src.now_ps();
        let every = (self.timer)(now);
        (self.units)(now / every * every)
    }
}

fn period(ns: u64) -> CountPeriod {
    CountPeriod::Exact {
        ns: Ratio::integer(ns).unwrap(),
    }
}

fn tick_of(clock: &mut dyn Clock, tl: &Timeline, budget_s: f64) -> TickResult {
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let mut run = Run::new(&mut sw, &mut q);
    let opts = TickOptions::new(Budget::new(budget_s, 1_000_000).unwrap());
    tick::measure(clock, &mut run, &opts).unwrap()
}

fn windowsish(
    name: &str,
    unit_ns: u64,
    claim_ns: f64,
    seed: u64,
    timer: fn(u64) -> u64,
    units: fn(u64) -> u64,
) -> (Windowsish, Timeline) {
    let tl = Timeline::new(1_000_000_000_000_000 + seed * 7_654_321);
    let info = ClockInfo::new(name, ClockKind::Monotonic, period(unit_ns))
        .with_claim(claim_ns, "the timer's interval when listed");
    let src = SimTime::new(&tl, 30_000, 5_000, seed);
    (
        Windowsish {
            info,
            src,
            timer,
            units,
        },
        tl,
    )
}

/// GetSystemTimeAsFileTime: 100 ns units, moved every 15.625 ms (156 250 units).
#[test]
fn a_filetime_of_the_default_timer_ticks_15_625_ms() {
    for seed in 0..3 {
        let (mut c, tl) = windowsish(
            "GetSystemTimeAsFileTime",
            100,
            15_625_000.0,
            seed,
            |_| TIMER_PS,
            |ps| ps / 100_000,
        );
        let r = tick_of(&mut c, &tl, 0.5);
        let ns = r.tick_ns.unwrap();
        assert!(
            (ns - 15_625_000.0).abs() < 1_000.0,
            "seed {seed}: {ns} ns, {r:?}"
        );
        assert_eq!(r.verdict, Verdict::Matches, "seed {seed}");
    }
}

/// GetTickCount64: milliseconds that move at each 15.625 ms interrupt, by 15 or 16: the
/// timer's interval (to within a fraction of the millisecond the values are written in),
/// never the unit.
#[test]
fn milliseconds_of_the_default_timer_tick_15_625_ms_not_1_ms() {
    for seed in 0..3 {
        let (mut c, tl) = windowsish(
            "GetTickCount64",
            1_000_000,
            15_625_000.0,
            seed,
            |_| TIMER_PS,
            |ps| ps / 1_000_000_000,
        );
        let r = tick_of(&mut c, &tl, 0.5);
        let ns = r.tick_ns.unwrap();
        assert!(
            (ns - 15_625_000.0).abs() < 100_000.0,
            "seed {seed}: {ns} ns, {r:?}"
        );
        assert_ne!(r.verdict, Verdict::FinerThanClaimed, "seed {seed}");
    }
}

/// QueryPerformanceCounter at 10 MHz: every count is a tick of 100 ns.
#[test]
fn the_performance_counter_at_10_mhz_ticks_100_ns() {
    for seed in 0..3 {
        let tl = Timeline::new(1_000_000_000_000 + seed * 1_234_567);
        let src = SimTime::new(&tl, 30_000, 5_000, seed);
        let info = ClockInfo::new("QueryPerformanceCounter", ClockKind::Monotonic, period(100))
            .with_claim(100.0, "QueryPerformanceFrequency: one count");
        let mut c = Windowsish {
            info,
            src,
            // No timer: the counter moves every 100 ns.
            timer: |_| 100_000,
            units: |ps| ps / 100_000,
        };
        let r = tick_of(&mut c, &tl, 0.2);
        let ns = r.tick_ns.unwrap();
        assert!((ns - 100.0).abs() < 1.0, "seed {seed}: {ns} ns, {r:?}");
        assert_eq!(r.verdict, Verdict::Matches, "seed {seed}");
    }
}

/// Another program's timeBeginPeriod(1) halfway through: the time moves every 0.977 ms from
/// then on, and the claim (15.625 ms, the interval when the clock was listed) is found
/// pessimistic: what one program asks of the timer changes what another measures.
#[test]
fn a_timer_set_to_1_ms_mid_run_is_finer_than_the_claim_made_before() {
    for seed in 0..3 {
        let (mut c, tl) = windowsish(
            "GetSystemTimeAsFileTime",
            100,
            15_625_000.0,
            seed,
            // The switch half a second into simulated time's run (it starts at 1e15 ps).
            |ps| {
                if ps % 1_000_000_000_000 < 250_000_000_000 {
                    TIMER_PS
                } else {
                    FAST_TIMER_PS
                }
            },
            |ps| ps / 100_000,
        );
        let r = tick_of(&mut c, &tl, 0.5);
        let ns = r.tick_ns.unwrap();
        // The 1024 Hz timer's 976.5625 µs, not the 15.625 ms claimed, nor 1 ms.
        assert!(
            (ns - 976_562.5).abs() < 1_000.0,
            "seed {seed}: {ns} ns, {r:?}"
        );
        assert_eq!(r.verdict, Verdict::FinerThanClaimed, "seed {seed}");
    }
}
