//! The lab against an independent probe: a plain loop of reads, through libc and `_rdtsc`
//! rather than the lab, whose step the lab's tick must match on whatever machine runs the
//! suite (a TSC that steps by 1, 2 or 24.5 counts, CLOCK_MONOTONIC in 1 ns or 10.015 ns
//! steps). The probe is tested on simulated counters of each kind first, and the lab's
//! tick experiment on the same kinds of counter, so a disagreement on a real machine says
//! which of the two is wrong.

use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod};
use ticklab::rng::SplitMix64;
use ticklab::run::{quiet, Budget, Run};
use ticklab::synthetic::{SimTime, TimeSource, Timeline};
use ticklab::tick::{self, TickOptions};

/// What the probe saw: the step in units, and the commonest back-to-back deltas.
struct Probed {
    step: f64,
    common: Histogram,
}

/// Deltas and how many times each was seen.
type Histogram = Vec<(u64, usize)>;

/// Intervals of `read` that span many steps: `read` twice around a spin of 0 to 63 turns
/// (back-to-back reads alone cannot tell a constant read cost from a step), and the
/// back-to-back deltas beside them.
fn intervals(mut read: impl FnMut() -> u64) -> (Histogram, Histogram) {
    use std::collections::BTreeMap;
    let mut back_to_back = BTreeMap::<u64, usize>::new();
    let mut spanned = BTreeMap::<u64, usize>::new();
    for i in 0..200_000u64 {
        let (a, b) = (read(), read());
        if b != a {
            *back_to_back.entry(b.wrapping_sub(a)).or_default() += 1;
        }
        let a = read();
        let mut x = 0u64;
        for j in 0..(i % 64) {
            x = std::hint::black_box(x + j);
        }
        std::hint::black_box(x);
        *spanned.entry(read().wrapping_sub(a)).or_default() += 1;
    }
    let mut common: Vec<(u64, usize)> = back_to_back.into_iter().collect();
    common.sort_by_key(|c| std::cmp::Reverse(c.1));
    common.truncate(8);
    (spanned.into_iter().collect(), common)
}

/// Share of the intervals that must sit on the step.
const HOLD: f64 = 0.95;

/// The step of a clock from intervals spanning many steps, in the clock's units.
///
/// Readings are truncated or rounded to a unit, so an interval over whole steps of s lies
/// strictly within one unit of a multiple of s. That window is as wide as a step of 2, so
/// it cannot tell a 2-unit counter from a 1-unit one: below 4 units the probe tries exact
/// fractions p/q (q ≤ 4) with the strict bound, in integers (a 1-unit counter puts only
/// 2/s of its intervals near multiples of a fractional s, at most 89 % for s ≥ 2.25, and
/// one in s on an integer s). From 4 units up, steps need not be fractions (10.015 ns)
/// and a read that catches a counter mid-step lands near 0 or a whole step, so the probe
/// takes the largest s on a grid 0.05 % apart with 95 % of the intervals within one unit,
/// inclusive, of a multiple, and the middle of the run of such s that holds it. The
/// largest step that holds wins; none: the clock steps by one unit.
fn step_of(spanned: &[(u64, usize)]) -> f64 {
    let total = spanned.iter().map(|(_, c)| c).sum::<usize>() as f64;
    let holds = |near: &dyn Fn(u64) -> bool| {
        let n: usize = spanned
            .iter()
            .filter(|(d, _)| near(*d))
            .map(|(_, c)| c)
            .sum();
        n as f64 >= HOLD * total
    };
    // |d − m·p/q| < 1  ⟺  |q·d − m·p| < q, with m the nearest multiple.
    let fraction = |p: u64, q: u64| {
        holds(&|d| {
            let (qd, p) = (q as u128 * d as u128, p as u128);
            let below = qd / p * p;
            (qd - below).min(below + p - qd) < q as u128
        })
    };
    let grid = |i: i32| 4.0 * 1.0005f64.powi(i);
    let fits = |s: f64| {
        holds(&|d| {
            let d = d as f64;
            // One unit, plus the grid's half step (2.5e-4 s) over the d/s multiples, capped
            // so that no window reaches two units (a counter of one unit would then fit a
            // step of four).
            (d - (d / s).round() * s).abs() <= 1.0 + (2.5e-4 * d).min(0.45)
        })
    };
    let last = (0..).find(|&i| grid(i) > 200.0).unwrap();
    if let Some(top) = (0..last).rev().find(|&i| fits(grid(i))) {
        let low = (0..top).rev().take_while(|&i| fits(grid(i))).last();
        return (grid(top) + grid(low.unwrap_or(top))) / 2.0;
    }
    let mut small: Vec<(u64, u64)> = (1..=4u64)
        .flat_map(|q| (2 * q..4 * q).map(move |p| (p, q)))
        .filter(|&(p, q)| q == 1 || 4 * p >= 9 * q)
        .collect();
    small.sort_by(|a, b| (b.0 * a.1).cmp(&(a.0 * b.1)));
    small
        .into_iter()
        .find(|&(p, q)| fraction(p, q))
        .map_or(1.0, |(p, q)| p as f64 / q as f64)
}

fn probe(read: impl FnMut() -> u64) -> Probed {
    let (spanned, common) = intervals(read);
    Probed {
        step: step_of(&spanned),
        common,
    }
}

/// A counter that moves by `step` units at a time (a fraction when the step is not whole:
/// 24.5 moves 24 and 25 in turn), its readings truncated to whole units, over true time
/// in units that each read moves on by `cost` plus up to `spread`.
fn simulated(step: f64, cost: f64, spread: u64, seed: u64) -> impl FnMut() -> u64 {
    let mut rng = SplitMix64::new(seed);
    let mut t = 1e6 * rng.unit();
    move || {
        t += cost + rng.below(spread + 1) as f64 + rng.unit();
        ((t / step).floor() * step).floor() as u64
    }
}

/// The machines the suite has met and should expect: (what, step in units, read cost in
/// units). An Intel TSC of 2 counts, an AMD guest's of 24.5, another's of 26; a
/// CLOCK_MONOTONIC of 1 ns, and of 10.015 ns written in whole ns; and a 3-count step.
const MACHINES: [(&str, f64, f64); 7] = [
    ("a counter of one count", 1.0, 40.0),
    ("an Intel TSC of 2 counts", 2.0, 40.0),
    ("a counter of 3 counts", 3.0, 40.0),
    ("an AMD guest's TSC of 24.5 counts", 24.5, 60.0),
    ("a TSC of 26 counts", 26.0, 60.0),
    ("CLOCK_MONOTONIC in 1 ns steps", 1.0, 25.0),
    ("CLOCK_MONOTONIC in 10.015 ns steps", 10.015, 25.0),
];

#[test]
fn the_probe_finds_every_step_it_will_meet() {
    for (seed, (what, step, cost)) in MACHINES.into_iter().enumerate() {
        // Intervals from a read's cost to that plus 150 units, as the spin spreads them.
        for spread in [150, 3000] {
            let p = probe(simulated(step, cost, spread, seed as u64));
            assert!(
                (p.step - step).abs() <= 0.002 * step,
                "{what}, spread {spread}: the probe says {}",
                p.step
            );
        }
    }
    // Reads that catch a 26-count counter mid-step now and then (1 + 25 = 26): still 26.
    let mut inner = simulated(26.0, 60.0, 150, 9);
    let mut rng = SplitMix64::new(3);
    let p = probe(move || inner() + u64::from(rng.below(100) == 0));
    assert!((p.step - 26.0).abs() <= 0.05, "{}", p.step);
}

/// A counter of `step` counts (fractional or whole, readings truncated to whole counts)
/// over simulated time, for the lab: `period_ns` of a count when known.
struct Stepped {
    info: ClockInfo,
    src: SimTime,
    counts_per_ps: f64,
    step: f64,
}

impl Stepped {
    fn new(tl: &Timeline, step: f64, count_ps: f64, ns: bool, seed: u64) -> Self {
        let period = if ns {
            CountPeriod::NANOSECOND
        } else {
            CountPeriod::Unknown
        };
        Self {
            info: ClockInfo::new(format!("step {step}"), ClockKind::Synthetic, period),
            src: SimTime::new(tl, 20_000, 12_000, seed),
            counts_per_ps: 1.0 / count_ps,
            step,
        }
    }
}

impl Clock for Stepped {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    fn read(&mut self) -> u64 {
        let t = self.src.now_ps() as f64 * self.counts_per_ps;
        ((t / self.step).floor() * self.step).floor() as u64
    }
}

/// The lab's tick experiment on the same machines, simulated: it must say what the probe
/// says (a TSC's step in counts, CLOCK_MONOTONIC's in ns).
#[test]
fn the_lab_finds_every_step_the_probe_does_on_simulated_machines() {
    // (what, step, length of a unit in ps, units are ns)
    let cases = [
        (
            "an Intel TSC of 2 counts at 2300 MHz",
            2.0,
            1e6 / 2300.0,
            false,
        ),
        (
            "an AMD guest's TSC of 24.5 counts at 2445 MHz",
            24.5,
            1e6 / 2445.0,
            false,
        ),
        ("a TSC of 26 counts at 2596 MHz", 26.0, 1e6 / 2596.0, false),
        ("CLOCK_MONOTONIC in 1 ns steps", 1.0, 1000.0, true),
        ("CLOCK_MONOTONIC in 10.015 ns steps", 10.015, 1000.0, true),
    ];
    for (seed, (what, step, unit_ps, ns)) in cases.into_iter().enumerate() {
        let tl = Timeline::new(1_000_000_000_000 + seed as u64 * 7_777_777);
        let mut clock = Stepped::new(&tl, step, unit_ps, ns, seed as u64 + 11);
        let mut sw = tl.stopwatch();
        let mut q = quiet;
        let mut run = Run::new(&mut sw, &mut q);
        let opts = TickOptions::new(Budget::new(0.05, 20_000).unwrap());
        let r = tick::measure(&mut clock, &mut run, &opts).unwrap();
        let lab = r.estimate.tick;
        // The probe over the same kind of counter, read as the lab reads it.
        let mut src = SimTime::new(&tl, 20_000, 12_000, seed as u64 + 29);
        let p = probe(|| {
            let t = src.now_ps() as f64 / unit_ps;
            ((t / step).floor() * step).floor() as u64
        });
        assert!(
            (lab - step).abs() <= 0.01 * step && (p.step - step).abs() <= 0.01 * step,
            "{what}: the lab says {lab}, the probe {} ({:?})",
            p.step,
            r.estimate
        );
        if ns {
            let t = r.tick_ns.unwrap();
            assert!((t - step).abs() <= 0.01 * step, "{what}: {t} ns");
        }
    }
}

fn ticklab_json(args: &[&str]) -> ticklab::Report {
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_ticklab"))
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    ticklab::Report::from_json(&String::from_utf8(out).unwrap()).unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn the_lab_finds_the_step_an_independent_loop_of_reads_shows() {
    // CLOCK_MONOTONIC read through libc, not through the lab.
    let p = probe(|| {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid clock id and a pointer to a timespec.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    });
    let r = ticklab_json(&["tick", "--clock", "CLOCK_MONOTONIC", "--json"]);
    let lab = r.clocks[0].tick.as_ref().unwrap().tick_ns.unwrap();
    eprintln!(
        "CLOCK_MONOTONIC back-to-back deltas (ns: count): {:?}",
        p.common
    );
    eprintln!("step by the loop {:.4} ns, by the lab {lab:.4} ns", p.step);
    assert!(
        (lab - p.step).abs() <= 0.01 * p.step,
        "lab {lab} ns, loop {} ns",
        p.step
    );

    // The TSC's step in counts, by the same loop; by the lab, three ways of reading it that
    // must agree.
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc has no preconditions on x86-64.
        let p = probe(|| unsafe { core::arch::x86_64::_rdtsc() });
        eprintln!("rdtsc back-to-back deltas (counts: count): {:?}", p.common);
        eprintln!("step by the loop {:.4} counts", p.step);
        let r = ticklab_json(&[
            "tick",
            "--clock",
            "rdtsc",
            "--clock",
            "rdtscp",
            "--clock",
            "lfence+rdtsc",
            "--json",
        ]);
        let ns: Vec<f64> = r
            .clocks
            .iter()
            .map(|c| {
                let t = c.tick.as_ref().unwrap();
                eprintln!(
                    "{}: {} counts, {:?} ns",
                    c.info.name, t.estimate.tick, t.tick_ns
                );
                assert!(
                    (t.estimate.tick - p.step).abs() <= 0.01 * p.step,
                    "{}: {} counts, the loop says {}",
                    c.info.name,
                    t.estimate.tick,
                    p.step
                );
                t.tick_ns.unwrap()
            })
            .collect();
        assert!(
            ns.iter().all(|v| (v - ns[0]).abs() <= 0.01 * ns[0]),
            "{ns:?}"
        );
    }
}
