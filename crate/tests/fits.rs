//! Fits: the least-values fit against a brute-force optimum, and a slope recovered through a
//! coarse jittered clock far more precisely than its tick.

use ticklab::caveat::Caveat;
use ticklab::characterise::{characterise, Plan};
use ticklab::clock::{Clock, Ratio};
use ticklab::fit::{self, least_values, FitOptions};
use ticklab::overhead::{self, OverheadOptions};
use ticklab::report::{Environment, Platform, Report};
use ticklab::rng::SplitMix64;
use ticklab::run::{quiet, Budget, Run};
use ticklab::synthetic::*;
use ticklab::tick::TickOptions;
use ticklab::workload::{SimWork, WorkloadKind};
use ticklab::Error;

/// The best line under all points through two of them (an LP optimum is at a vertex).
fn brute_force(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len();
    let mut best = f64::INFINITY;
    for i in 0..n {
        for j in 0..n {
            if x[i] >= x[j] {
                continue;
            }
            let s = (y[j] - y[i]) / (x[j] - x[i]);
            let c = y[i] - s * x[i];
            let under = (0..n).all(|k| y[k] - (c + s * x[k]) >= -1e-9);
            if under {
                let excess: f64 = (0..n).map(|k| y[k] - (c + s * x[k])).sum();
                best = best.min(excess);
            }
        }
    }
    best
}

#[test]
fn least_values_equals_brute_force_on_random_sets() {
    let mut rng = SplitMix64::new(77);
    for case in 0..300 {
        let n = 2 + rng.below(12) as usize;
        let x: Vec<f64> = (0..n).map(|_| rng.below(20) as f64).collect();
        let y: Vec<f64> = x.iter().map(|&a| 3.0 * a + rng.below(50) as f64).collect();
        let distinct = x.iter().any(|&a| a != x[0]);
        match least_values(&x, &y) {
            Ok(f) => {
                assert!(distinct);
                let bf = brute_force(&x, &y);
                assert!(
                    (f.total_excess - bf).abs() <= 1e-6 * (1.0 + bf.abs()),
                    "case {case}: {} vs {bf} on {x:?} {y:?}",
                    f.total_excess
                );
                for (a, b) in x.iter().zip(&y) {
                    assert!(b - f.line.at(*a) >= -1e-9, "negative excess");
                }
            }
            Err(_) => assert!(!distinct),
        }
    }
}

fn sim_clock(tl: &Timeline) -> Clamp<SimTime> {
    Clamp::new(
        SimTime::new(tl, 25_000, 5_000, 5),
        ClampStyle::Chromium,
        100_000,
        13,
    )
    .unwrap()
}

#[test]
fn slope_through_a_100us_jittered_clamp_is_within_one_percent() {
    let tl = Timeline::new(0);
    let mut clock = sim_clock(&tl);
    // 359 ns per unit (Krutar, "Tuning a Timer"), 2 µs of fixed cost, small noise, rare 50 µs interrupts.
    let mut work =
        SimWork::new(&tl, 2e6, 359_000.0, 200_000, 8).with_interrupts(20_000, 50_000_000);
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let mut opts = FitOptions::new(Budget::new(30.0, 1_000_000).unwrap());
    opts.n_range = Some((1_000, 30_000));
    opts.points = 32;
    opts.runs = 40;
    let mut run = Run::new(&mut sw, &mut q);
    let r = fit::measure(&mut clock, &mut work, 100_000.0, 25.0, &mut run, &opts).unwrap();
    let slope = r.slope_ns.unwrap();
    assert!((slope / 359.0 - 1.0).abs() < 0.01, "slope {slope} ns/unit");
    // 359 ns per unit against a 100 000 ns tick: known 300 times finer than the tick per unit.
    // Against the staircase the minima sit on steps; against the line they saw-tooth.
    let on = r
        .points
        .iter()
        .filter(|p| (p.min - r.step.at(p.work)).abs() < 1.0)
        .count();
    assert!(
        on * 10 >= r.points.len() * 8,
        "{on} of {} on steps",
        r.points.len()
    );
    let spread = |f: &dyn Fn(&ticklab::fit::FitPoint) -> f64| {
        let v: Vec<f64> = r.points.iter().map(f).collect();
        v.iter().cloned().fold(f64::MIN, f64::max) - v.iter().cloned().fold(f64::MAX, f64::min)
    };
    let line_spread = spread(&|p| p.min - r.least_values.line.at(p.work));
    let step_spread = spread(&|p| p.min - r.step.at(p.work));
    assert!(line_spread > 20_000.0, "{line_spread}");
    assert!(step_spread <= line_spread);
    assert!(r.ols.r2 > 0.99);
}

#[test]
fn calibrated_fit_on_a_fine_clock() {
    let tl = Timeline::new(0);
    let mut clock = Counter::new(
        SimTime::new(&tl, 20_000, 2_000, 1),
        Ratio::integer(1).unwrap(),
        1,
        64,
    )
    .unwrap();
    let mut work = SimWork::new(&tl, 1e6, 1_500.0, 1_000, 2);
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let opts = FitOptions::new(Budget::new(2.0, 100_000).unwrap());
    let mut run = Run::new(&mut sw, &mut q);
    let r = fit::measure(&mut clock, &mut work, 1.0, 20.0, &mut run, &opts).unwrap();
    let cal = r.calibration.clone().unwrap();
    assert!(cal.reached);
    assert!(cal.block_counts as f64 >= cal.threshold_counts);
    assert!(
        (r.slope_ns.unwrap() / 1.5 - 1.0).abs() < 0.02,
        "{:?}",
        r.slope_ns
    );
}

#[test]
fn bad_fit_options_are_refused() {
    let tl = Timeline::new(0);
    let mut clock = sim_clock(&tl);
    let mut work = SimWork::new(&tl, 0.0, 1.0, 0, 1);
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    for f in [
        |o: &mut FitOptions| o.points = 1,
        |o: &mut FitOptions| o.runs = 0,
        |o: &mut FitOptions| o.n_range = Some((5, 5)),
        |o: &mut FitOptions| o.n_range = Some((0, 5)),
        |o: &mut FitOptions| o.target_ns = Some(f64::NAN),
    ] {
        let mut opts = FitOptions::new(Budget::new(1.0, 100).unwrap());
        f(&mut opts);
        let mut run = Run::new(&mut sw, &mut q);
        let e = fit::measure(&mut clock, &mut work, 1.0, 0.0, &mut run, &opts).unwrap_err();
        assert!(matches!(e, Error::Invalid { .. }), "{e}");
    }
}

#[test]
fn overhead_of_a_25ns_read() {
    let tl = Timeline::new(0);
    let mut clock = Counter::new(
        SimTime::new(&tl, 25_000, 0, 1),
        Ratio::integer(1).unwrap(),
        1,
        64,
    )
    .unwrap();
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let opts = OverheadOptions::new(Budget::new(0.2, 200).unwrap());
    let mut run = Run::new(&mut sw, &mut q);
    let r = overhead::measure(&mut clock, 1.0, &mut run, &opts).unwrap();
    assert!(
        (r.per_read_ns.unwrap() - 25.0).abs() < 0.1,
        "{:?}",
        r.per_read_ns
    );
    assert!(r.rule_met);
    assert!(r.block_reads as f64 * 25.0 >= 100.0 * 26.0);
    assert!((r.min_block_ns.unwrap() - 100.0 * 26.0).abs() < 10.0);
}

/// A clock read through a crossing (15 ns on top of its own 25 ns a read), which its own
/// side (a page's JavaScript) reads for 25 ns.
struct Crossing<C> {
    inner: C,
    tl: Timeline,
}

impl<C: Clock> Clock for Crossing<C> {
    fn info(&self) -> &ticklab::clock::ClockInfo {
        self.inner.info()
    }
    fn read(&mut self) -> u64 {
        self.tl.advance(15_000); // the crossing, on top of the read's own 25 ns
        self.inner.read()
    }
    fn read_many(&mut self, n: u64) -> bool {
        self.tl.advance(n * 25_000);
        true
    }
}

/// A 1 ms page clock read through the crossing, in the page's 0.1 s overhead budget: its
/// Rule-of-100 blocks last 100 ms, so the budget holds two of each caller; the experiment
/// goes on to CROSSING_BLOCKS of each, within CROSSING_LIMIT_S, and the crossing is told.
#[test]
fn a_coarse_page_clock_times_enough_blocks_to_tell_the_crossing() {
    let tl = Timeline::new(0);
    let inner = Clamp::new(
        SimTime::new(&tl, 25_000, 0, 1),
        ClampStyle::FirefoxJitter,
        1_000_000,
        7,
    )
    .unwrap();
    let mut clock = Crossing {
        inner,
        tl: tl.clone(),
    };
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let opts = OverheadOptions::new(Budget::new(0.1, 500).unwrap());
    let mut run = Run::new(&mut sw, &mut q);
    let r = overhead::measure(&mut clock, 1e6, &mut run, &opts).unwrap();
    assert!(r.blocks >= overhead::CROSSING_BLOCKS, "{} blocks", r.blocks);
    assert!(
        r.elapsed_s <= overhead::CROSSING_LIMIT_S + 0.5,
        "{} s",
        r.elapsed_s
    );
    let told = ticklab::present::crossing(&r).unwrap();
    assert!(told.starts_with("Crossing from JavaScript"), "{told}");
    let (wasm, own) = (r.per_read_ns.unwrap(), r.own_per_read_ns.unwrap());
    assert!(
        wasm > own && (wasm - own - 15.0).abs() < 3.0,
        "{wasm} {own}"
    );
}

/// A clock read through a crossing (40 ns a read) that its own side reads for 25 ns (a
/// page's JavaScript): both costs come back, each from blocks of the same length.
#[test]
fn a_clocks_own_side_is_timed_beside_the_crossing() {
    let tl = Timeline::new(0);
    let counter = Counter::new(
        SimTime::new(&tl, 25_000, 0, 1),
        Ratio::integer(1).unwrap(),
        1,
        64,
    )
    .unwrap();
    let mut clock = Crossing {
        inner: counter,
        tl: tl.clone(),
    };
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let opts = OverheadOptions::new(Budget::new(0.2, 200).unwrap());
    let mut run = Run::new(&mut sw, &mut q);
    let r = overhead::measure(&mut clock, 1.0, &mut run, &opts).unwrap();
    let (wasm, own) = (r.per_read_ns.unwrap(), r.own_per_read_ns.unwrap());
    assert!((wasm - 40.0).abs() < 0.2, "{wasm}");
    // The block's edges are read through the crossing: a few reads in its ~130 here (a
    // 1 ns tick), in thousands behind a page's microseconds.
    assert!(own > 25.0 && own < 25.0 * 1.03, "{own}");
    assert!(r.pace.is_some_and(|p| p > 0.95 && p <= 1.0), "{:?}", r.pace);
    assert!(
        r.gaps.watched_s > 0.0,
        "the blocks were watched for gaps: {:?}",
        r.gaps
    );
    assert_eq!(r.gaps.count, 0, "{:?}", r.gaps);

    // A clock with no side of its own has no such figure.
    let mut plain = Counter::new(
        SimTime::new(&tl, 25_000, 0, 1),
        Ratio::integer(1).unwrap(),
        1,
        64,
    )
    .unwrap();
    let mut sw = tl.stopwatch();
    let mut run = Run::new(&mut sw, &mut q);
    let r = overhead::measure(&mut plain, 1.0, &mut run, &opts).unwrap();
    assert_eq!(r.own_per_read_ns, None);
}

/// A 1 ms clamp read for 20 ms: blocks far shorter than the Rule of 100 asks, whose error
/// bound is many times the cost itself, give a dash with that reason, not a figure; and a
/// clamp measured cheaper than the clock it reads underneath gives a dash too.
#[test]
fn a_read_cost_that_cannot_be_right_is_a_dash() {
    let tl = Timeline::new(0);
    let mut clock = Clamp::new(
        SimTime::new(&tl, 25_000, 0, 1),
        ClampStyle::FirefoxJitter,
        1_000_000,
        3,
    )
    .unwrap();
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let opts = OverheadOptions::new(Budget::new(0.02, 500).unwrap());
    let mut run = Run::new(&mut sw, &mut q);
    let r = overhead::measure(&mut clock, 1e6, &mut run, &opts).unwrap();
    assert!(!r.rule_met && r.block_error_bound > 1.0, "{r:?}");
    assert!(r.per_read_ns.is_none() && r.min_block_ns.is_none(), "{r:?}");
    assert!(
        matches!(r.unusable, Some(Caveat::CostLostInTick { bound }) if bound > 1.0),
        "{r:?}"
    );

    // Reported beside its base: a clamp over "base" said to read in 18 ns, the base in 27 ns.
    let tl = Timeline::new(0);
    let plan = Plan {
        tick: TickOptions::new(Budget::new(0.05, 5_000).unwrap()),
        overhead: Some(OverheadOptions::new(Budget::new(0.05, 200).unwrap())),
        fits: Vec::new(),
    };
    let mut measured = Vec::new();
    for cost in [27_000, 18_000] {
        let mut c = Counter::new(
            SimTime::new(&tl, cost, 0, 1),
            Ratio::integer(1).unwrap(),
            1,
            64,
        )
        .unwrap();
        let mut sw = tl.stopwatch();
        let mut q = quiet;
        measured.push(characterise(&mut c, &mut sw, &mut q, &plan).unwrap());
    }
    measured[0].info.name = "base".into();
    measured[1].info.name = "over base".into();
    measured[1].info.built_on = Some("base".into());
    ticklab::characterise::check_bases(&mut measured.iter_mut().collect::<Vec<_>>());
    assert!(measured[0].overhead.as_ref().unwrap().per_read_ns.is_some());
    let o = measured[1].overhead.as_ref().unwrap();
    assert!(o.per_read_ns.is_none(), "{o:?}");
    assert!(
        matches!(&o.unusable, Some(Caveat::BelowBase { base, .. }) if base == "base")
            && ticklab::present::caveat(o.unusable.as_ref().unwrap()).contains("less than the 27"),
        "{o:?}"
    );
    assert_eq!(
        ticklab::present::read_cost(&measured[1]),
        ticklab::present::DASH
    );
}

#[test]
fn overhead_of_a_frozen_clock_ends_in_budget() {
    let tl = Timeline::new(0);
    let mut clock = Frozen::new(SimTime::new(&tl, 25_000, 0, 1), 5);
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let opts = OverheadOptions::new(Budget::new(0.1, 200).unwrap());
    let mut run = Run::new(&mut sw, &mut q);
    let e = overhead::measure(&mut clock, 1.0, &mut run, &opts).unwrap_err();
    assert!(matches!(e, Error::Frozen { .. }), "{e}");
    assert!(tl.now_ps() as f64 * 1e-12 < 0.25);
}

#[test]
fn a_lab_report_round_trips_through_json() {
    let tl = Timeline::new(0);
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let b = Budget::new(0.3, 10_000).unwrap();
    let mut fit_opts = FitOptions::new(Budget::new(1.0, 2_000).unwrap());
    fit_opts.n_range = Some((10, 200));
    let plan = Plan {
        tick: TickOptions::new(b),
        overhead: Some(OverheadOptions::new(b)),
        fits: vec![(WorkloadKind::Count, fit_opts)],
    };
    let mut report = Report::new(Environment {
        platform: Some(Platform::Simulation),
        ..Default::default()
    });
    let mut clamp = sim_clock(&tl);
    report
        .clocks
        .push(characterise(&mut clamp, &mut sw, &mut q, &plan).unwrap());
    let mut frozen = Frozen::new(SimTime::new(&tl, 25_000, 0, 1), 5);
    let frozen_report = characterise(&mut frozen, &mut sw, &mut q, &plan).unwrap();
    assert_eq!(frozen_report.errors.len(), 1);
    assert!(frozen_report.tick.is_none());
    report.clocks.push(frozen_report);
    let c = &report.clocks[0];
    assert!(
        c.tick.is_some() && c.overhead.is_some() && c.fits.len() == 1,
        "{:?}",
        c.errors
    );
    let json = report.to_json().unwrap();
    assert_eq!(Report::from_json(&json).unwrap(), report);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["schema_version"], ticklab::SCHEMA_VERSION);
    assert_eq!(v["clocks"][0]["info"]["name"], clamp.info().name.as_str());
}

#[test]
fn the_same_runs_timed_by_a_fine_reference_agree_with_the_clamp() {
    let tl = Timeline::new(0);
    let mut clock = sim_clock(&tl);
    let mut fine = Counter::new(
        SimTime::new(&tl, 20_000, 0, 2),
        Ratio::integer(1).unwrap(),
        1,
        64,
    )
    .unwrap();
    let mut work = SimWork::new(&tl, 2e6, 359_000.0, 200_000, 8);
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let mut opts = FitOptions::new(Budget::new(30.0, 1_000_000).unwrap());
    opts.n_range = Some((1_000, 30_000));
    opts.points = 32;
    opts.runs = 20;
    let mut run = Run::new(&mut sw, &mut q);
    let reference = fit::Reference {
        clock: &mut fine,
        tick_counts: 1.0,
    };
    let (coarse, r) = fit::measure_against(
        &mut clock, reference, &mut work, 100_000.0, 25.0, &mut run, &opts,
    )
    .unwrap();
    assert_eq!(coarse.points.len(), r.points.len());
    assert_eq!(coarse.points[0].runs_done, r.points[0].runs_done);
    let (a, b) = (coarse.slope_ns.unwrap(), r.slope_ns.unwrap());
    assert!((b / 359.0 - 1.0).abs() < 0.001, "reference {b}");
    assert!((a / b - 1.0).abs() < 0.01, "{a} against {b}");
    // The reference brackets the clamp's reads: its intercept is the larger.
    assert!(r.least_values.line.intercept > 0.0);
}

/// Found by `tests/fuzz.rs` (fits): two x a subnormal apart gave a least-values line of
/// infinite slope and intercept; both fits now refuse such points.
#[test]
fn points_a_subnormal_apart_are_refused_not_fitted_with_an_infinite_slope() {
    let x = [-6.65605070176703e-310, -0.0];
    let y = [0.0, 2.0];
    let e = ticklab::fit::least_values(&x, &y).unwrap_err();
    assert!(e.to_string().contains("too close"), "{e}");
    // Least squares squares the differences: they vanish, and it says so.
    let e = ticklab::fit::ols(&x, &y).unwrap_err();
    assert!(e.to_string().contains("distinct"), "{e}");
    let e = ticklab::fit::ols(&[0.0, 1e-150], &[0.0, 1e300]).unwrap_err();
    assert!(e.to_string().contains("too close"), "{e}");
}

/// A 4 ms plain clamp over simulated time whose reads cost 25 ns.
fn four_ms_clamp(tl: &Timeline) -> Clamp<SimTime> {
    Clamp::new(
        SimTime::new(tl, 25_000, 0, 5),
        ClampStyle::Firefox,
        4_000_000,
        1,
    )
    .unwrap()
}

#[test]
fn a_fit_that_cannot_fit_its_budget_says_so_without_spending_it() {
    // A 4 ms clock: a fit's runs last 20 ticks, 80 ms, and calibration and a run at each of
    // 16 sizes do not fit in 0.15 s.
    let tl = Timeline::new(0);
    let mut clock = four_ms_clamp(&tl);
    let mut work = SimWork::new(&tl, 0.0, 1_000.0, 0, 3);
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let opts = FitOptions::new(Budget::new(0.15, 1_000_000).unwrap());
    let mut run = Run::new(&mut sw, &mut q);
    let e = fit::measure(&mut clock, &mut work, 4_000_000.0, 0.0, &mut run, &opts).unwrap_err();
    assert!(e.to_string().contains("runs of 80.000 ms each"), "{e}");
    assert!(tl.now_ps() < 1_000_000_000, "spent {} ps", tl.now_ps());
}

#[test]
fn a_clock_too_coarse_for_its_budget_is_fitted_through_interpolation() {
    // The same 4 ms clock in a lab plan of 0.15 s: the runs of 20 ticks do not fit, so the
    // runs are made shorter than the tick and timed by counting reads between edges.
    let tl = Timeline::new(0);
    let mut clock = four_ms_clamp(&tl);
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let mut fit_opts = FitOptions::new(Budget::new(0.15, 1_000_000).unwrap());
    fit_opts.points = 12;
    let plan = Plan {
        tick: TickOptions::new(Budget::new(0.1, 15_000).unwrap()),
        overhead: None,
        fits: vec![(WorkloadKind::Count, fit_opts)],
    };
    let from = tl.now_ps();
    // 1.7 ns a unit of work, as the lab's own tests' simulated count-down.
    let r =
        ticklab::characterise::characterise_with(&mut clock, &mut sw, &mut q, &plan, &mut |_| {
            Box::new(SimWork::new(&tl, 40_000.0, 1_700.0, 0, 9))
        })
        .unwrap();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let f = &r.fits[0];
    let slope = f.slope_ns.unwrap();
    assert!((slope / 1.7 - 1.0).abs() < 0.001, "slope {slope} ns a unit");
    assert!(
        f.caveats.iter().any(
            |c| matches!(c, Caveat::Interpolated { reads_per_tick, .. } if *reads_per_tick > 1)
        ),
        "{:?}",
        f.caveats
    );
    // Every timed run is shorter than the tick, and the whole stayed in its budget.
    let longest = f.points.iter().map(|p| p.min).fold(0.0, f64::max);
    assert!(longest * f.ns_per_count.unwrap() < 4e6, "{longest}");
    assert!(f.elapsed_s <= 0.2, "{} s", f.elapsed_s);
    assert!((tl.now_ps() - from) as f64 * 1e-12 < 0.4);
}

#[test]
fn an_interpolated_fit_with_budget_to_spare_spreads_its_runs_over_several_ticks() {
    // A run's error is a share of one part-tick's pace, whatever its length: given time, the
    // runs span up to 4 ticks, so the sizes spread far wider than that error. 0.6 s holds
    // no plain fit of 12 sizes (runs of 20 ticks) but 36 runs of up to 4 ticks.
    let tl = Timeline::new(0);
    let mut clock = four_ms_clamp(&tl);
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let mut fit_opts = FitOptions::new(Budget::new(0.6, 1_000_000).unwrap());
    fit_opts.points = 12;
    let plan = Plan {
        tick: TickOptions::new(Budget::new(0.1, 15_000).unwrap()),
        overhead: None,
        fits: vec![(WorkloadKind::Count, fit_opts)],
    };
    let r =
        ticklab::characterise::characterise_with(&mut clock, &mut sw, &mut q, &plan, &mut |_| {
            Box::new(SimWork::new(&tl, 40_000.0, 1_700.0, 0, 9))
        })
        .unwrap();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let f = &r.fits[0];
    let slope = f.slope_ns.unwrap();
    assert!((slope / 1.7 - 1.0).abs() < 0.001, "slope {slope} ns a unit");
    let ns = f.ns_per_count.unwrap();
    let longest = f.points.iter().map(|p| p.min).fold(0.0, f64::max) * ns;
    let shortest = f.points.iter().map(|p| p.min).fold(f64::MAX, f64::min) * ns;
    assert!(longest > 12e6 && longest <= 16.5e6, "{longest} ns");
    assert!(shortest < 0.3 * longest, "{shortest} ns of {longest}");
    assert!(f.elapsed_s <= 0.65, "{} s", f.elapsed_s);
}

/// Work that an engine compiles again, optimised, after its first `slow` runs: twenty times
/// faster from then on, as WebKit's wasm ran the count-down.
struct TiersUp {
    timeline: Timeline,
    slow: u64,
    runs: u64,
}

impl ticklab::workload::Workload for TiersUp {
    fn name(&self) -> &str {
        "count"
    }
    fn unit(&self) -> &str {
        "iteration"
    }
    fn max_n(&self) -> u64 {
        1 << 40
    }
    fn work(&self, n: u64) -> f64 {
        n as f64
    }
    fn n_for_work(&self, work: f64) -> u64 {
        work.round().max(1.0) as u64
    }
    fn prepare(&mut self, _: u64) -> ticklab::Result<()> {
        Ok(())
    }
    fn run(&mut self, n: u64) {
        self.runs += 1;
        let ps_per_unit = if self.runs <= self.slow { 14_000 } else { 700 };
        self.timeline.advance(n * ps_per_unit);
    }
}

/// The sizes a fit calibrated on slow code are far too small once the code runs fast: the
/// fit chooses them again, and says so, instead of giving no slope.
#[test]
fn a_fit_recalibrates_when_the_work_tiers_up() {
    let tl = Timeline::new(1_000_000_000);
    // A 20 µs clamp (WebKit isolated) read at 60 ns.
    let mut c = Clamp::new(
        SimTime::new(&tl, 60_000, 0, 3),
        ClampStyle::Firefox,
        20_000,
        3,
    )
    .unwrap();
    let mut w = TiersUp {
        timeline: tl.clone(),
        slow: 120,
        runs: 0,
    };
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let mut run = Run::new(&mut sw, &mut q);
    let f = fit::measure(
        &mut c,
        &mut w,
        20_000.0,
        60.0,
        &mut run,
        &FitOptions::new(Budget::new(0.4, 100_000).unwrap()),
    )
    .unwrap();
    let slope = f.slope_ns.unwrap_or(f64::NAN);
    assert!((slope - 0.7).abs() < 0.05, "slope {slope}: {:?}", f.caveats);
    assert!(
        f.caveats
            .iter()
            .any(|c| matches!(c, Caveat::Recalibrated { before, after } if after > before)),
        "{:?}",
        f.caveats
    );
}
