//! Every synthetic clock's tick is recovered by the tick experiment, within its budget.

use ticklab::caveat::{Cadence, Caveat};
use ticklab::clock::{Clock, Ratio};
use ticklab::run::{quiet, Budget, Run, Stop};
use ticklab::synthetic::*;
use ticklab::tick::{
    self, estimate_counts, EstimatorOptions, Method, TickOptions, TickResult, Verdict,
};
use ticklab::Error;

const BUDGET_S: f64 = 0.5;

fn measure(clock: &mut dyn Clock, tl: &Timeline) -> Result<TickResult, Error> {
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let budget = Budget::new(BUDGET_S, 20_000).unwrap();
    let mut run = Run::new(&mut sw, &mut q);
    tick::measure(clock, &mut run, &TickOptions::new(budget))
}

fn sim(tl: &Timeline, cost_ps: u64, jitter_ps: u64) -> SimTime {
    SimTime::new(tl, cost_ps, jitter_ps, 3)
}

#[test]
fn chromium_jittered_clamp_100us() {
    let tl = Timeline::new(1_234_567_000);
    let mut c = Clamp::new(sim(&tl, 25_000, 10_000), ClampStyle::Chromium, 100_000, 11).unwrap();
    let r = measure(&mut c, &tl).unwrap();
    assert_eq!(r.tick_ns, Some(100_000.0));
    assert_eq!(r.estimate.method, Method::ExactGcd);
    assert_eq!(r.verdict, Verdict::Matches);
    assert!(r.estimate.reliable);
}

#[test]
fn chromium_isolated_5us_and_firefox_1ms_with_and_without_jitter() {
    for (style, res) in [
        (ClampStyle::Chromium, 5_000),
        (ClampStyle::FirefoxJitter, 1_000_000),
        (ClampStyle::Firefox, 1_000_000),
        (ClampStyle::FirefoxJitter, 20_000),
    ] {
        let tl = Timeline::new(0);
        let mut c = Clamp::new(sim(&tl, 30_000, 5_000), style, res, 5).unwrap();
        let r = measure(&mut c, &tl).unwrap();
        assert_eq!(r.tick_ns, Some(res as f64), "{style:?} {res}");
        assert_eq!(r.verdict, Verdict::Matches);
    }
}

/// The clamps' edges: Chromium's and Firefox's jittered ones switch each interval at their
/// own point, Firefox's plain floor (isolated, or without jitter) on a fixed grid; a clock
/// that changes at nearly every read gives no answer.
#[test]
fn the_clamp_is_told_apart_from_its_jitter() {
    for (style, res, jittered) in [
        (ClampStyle::Chromium, 100_000, true),
        (ClampStyle::Chromium, 5_000, true),
        (ClampStyle::FirefoxJitter, 1_000_000, true),
        (ClampStyle::Firefox, 1_000_000, false),
        (ClampStyle::Firefox, 20_000, false),
    ] {
        let tl = Timeline::new(0);
        let mut c = Clamp::new(sim(&tl, 30_000, 5_000), style, res, 5).unwrap();
        let r = measure(&mut c, &tl).unwrap();
        let g = r
            .edge_grid
            .unwrap_or_else(|| panic!("{style:?} {res}: no grid, {:?}", r.reads_per_change));
        let want = if jittered {
            ticklab::tick::Grid::Jittered
        } else {
            ticklab::tick::Grid::NotSeen
        };
        assert_eq!(g.grid, want, "{style:?} {res}: {g:?}");
        if jittered {
            assert!(g.correlation < -0.35, "{style:?} {res}: {g:?}");
        } else {
            assert!(g.correlation > -0.12, "{style:?} {res}: {g:?}");
        }
    }
    let tl = Timeline::new(0);
    let mut c = Counter::new(sim(&tl, 20_000, 3_000), Ratio::integer(1).unwrap(), 1, 64).unwrap();
    assert_eq!(measure(&mut c, &tl).unwrap().edge_grid, None);
}

#[test]
fn fine_counter_read_slower_than_its_tick() {
    // 1 ns counter read every ~20 ns: each read sees a new value; dithering finds 1 ns.
    let tl = Timeline::new(0);
    let mut c = Counter::new(sim(&tl, 20_000, 3_000), Ratio::integer(1).unwrap(), 1, 64).unwrap();
    let r = measure(&mut c, &tl).unwrap();
    assert_eq!(r.estimate.tick, 1.0);
    assert!(r.caveats.iter().any(|c| matches!(
        c,
        Caveat::ChangesEveryRead | Caveat::ChangesEveryReadDithered
    )));
}

#[test]
fn perfectly_regular_reads_are_only_an_upper_bound() {
    // Every read costs exactly 24 ns on a 1 ns clock and nothing else moves simulated time:
    // every interval is a multiple of 24. The result must not claim more than it knows.
    let tl = Timeline::new(0);
    let mut c = Counter::new(sim(&tl, 24_000, 0), Ratio::integer(1).unwrap(), 1, 64).unwrap();
    let r = measure(&mut c, &tl).unwrap();
    assert_eq!(r.estimate.tick, 24.0);
    assert!(!r.estimate.reliable);
    assert!(r.caveats.contains(&Caveat::BoundByCadence {
        cadence: Cadence::Reading
    }));
}

#[test]
fn counter_with_steps_of_eight() {
    let tl = Timeline::new(0);
    let mut c = Counter::new(sim(&tl, 2_000, 500), Ratio::integer(1).unwrap(), 8, 64).unwrap();
    let r = measure(&mut c, &tl).unwrap();
    assert_eq!(r.estimate.tick, 8.0);
}

#[test]
fn ten_bit_counter_wraps() {
    let tl = Timeline::new(0);
    // 10-bit counter, 1 µs per count, read every 300 ns: wraps every ~1 ms.
    let mut c = Counter::new(
        sim(&tl, 300_000, 50_000),
        Ratio::integer(1000).unwrap(),
        1,
        10,
    )
    .unwrap();
    let r = measure(&mut c, &tl).unwrap();
    assert_eq!(r.estimate.tick, 1.0);
    assert_eq!(r.tick_ns, Some(1000.0));
    assert_eq!(r.backwards_steps, 0);
}

#[test]
fn jiffy_4ms_with_update_jitter() {
    let tl = Timeline::new(0);
    let mut c = Jiffy::new(sim(&tl, 7_000, 0), 4_000_000, 20, 9).unwrap();
    // 7 ns reads, 4 ms ticks: ~570 000 reads per change; the budget bounds it by time.
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    let budget = Budget::new(0.2, 1_000_000).unwrap();
    let mut run = Run::new(&mut sw, &mut q);
    let r = tick::measure(&mut c, &mut run, &TickOptions::new(budget)).unwrap();
    let t = r.tick_ns.unwrap();
    assert!((t - 4e6).abs() < 100.0, "{t}");
    assert_eq!(r.estimate.method, Method::Robust);
    assert_eq!(r.verdict, Verdict::Matches);
    assert_eq!(r.stop, Stop::Time);
    assert!(r.elapsed_s < 0.25);
}

#[test]
fn frozen_clock_errors_within_budget() {
    let tl = Timeline::new(0);
    let mut c = Frozen::new(sim(&tl, 10_000, 0), 42);
    let e = measure(&mut c, &tl).unwrap_err();
    match e {
        Error::Frozen { elapsed_s, .. } => {
            assert!((BUDGET_S..BUDGET_S * 1.1).contains(&elapsed_s))
        }
        other => panic!("{other}"),
    }
}

#[test]
fn backwards_clock_is_reported_and_tick_still_found() {
    let tl = Timeline::new(0);
    let mut c = Backwards::new(sim(&tl, 50_000, 10_000), 1_000, 3_000_000, 20_000_000).unwrap();
    let r = measure(&mut c, &tl).unwrap();
    assert!(r.backwards_steps > 0);
    assert!(r
        .caveats
        .iter()
        .any(|c| matches!(c, Caveat::Backwards { differences } if *differences > 0)));
    assert_eq!(r.tick_ns, Some(1_000.0));
}

#[test]
fn float_ms_clock_maps_to_exact_nanoseconds() {
    let tl = Timeline::new(0);
    let mut c = FloatMs::new(sim(&tl, 40_000, 20_000), 100_000, 1_700_000.123)
        .unwrap()
        .into_clock();
    let r = measure(&mut c, &tl).unwrap();
    assert_eq!(r.tick_ns, Some(100_000.0));
    assert_eq!(r.estimate.method, Method::ExactGcd);
}

#[test]
fn counter_24mhz_in_rounded_ns_gives_41_67() {
    let tl = Timeline::new(0);
    let mut c = RoundedNs::mhz24(sim(&tl, 20_000, 4_000));
    let r = measure(&mut c, &tl).unwrap();
    let t = r.tick_ns.unwrap();
    assert!((t - 125.0 / 3.0).abs() < 0.02, "{t}");
    assert_eq!(r.exact_gcd, 1);
    assert_eq!(r.estimate.method, Method::Robust);
    assert!(r.estimate.share_explained > 0.99);
    assert_eq!(r.verdict, Verdict::Matches);
}

#[test]
fn clamp_over_a_real_clock() {
    // A 100 µs clamp over a fine base clock (here itself simulated) through ClockTime.
    let tl = Timeline::new(0);
    let base = Counter::new(sim(&tl, 20_000, 5_000), Ratio::integer(1).unwrap(), 1, 64).unwrap();
    let mut c = Clamp::new(
        ClockTime::new(base).unwrap(),
        ClampStyle::Chromium,
        100_000,
        1,
    )
    .unwrap();
    let r = measure(&mut c, &tl).unwrap();
    assert_eq!(r.tick_ns, Some(100_000.0));
}

#[test]
fn a_few_outliers_do_not_spoil_the_robust_estimate() {
    let mut v: Vec<u64> = (0..1000).map(|i| 1000 * (1 + i % 7)).collect();
    v.extend([1234, 777, 5]);
    let e = estimate_counts(&v, &EstimatorOptions::default()).unwrap();
    assert_eq!(e.tick, 1000.0);
    assert_eq!(e.method, Method::Robust);
    assert!(e.share_explained > 0.99 && e.share_explained < 1.0);
    assert!(e.caveats.contains(&Caveat::GcdSpoiled { gcd: 1 }));
}

#[test]
fn cancel_stops_a_wait_on_a_frozen_clock_early() {
    let tl = Timeline::new(0);
    let mut c = Frozen::new(sim(&tl, 10_000, 0), 1);
    let mut sw = tl.stopwatch();
    let mut reports = 0;
    let mut cancel_second = |_: &ticklab::run::Progress<'_>| {
        reports += 1;
        if reports >= 2 {
            ticklab::run::Flow::Cancel
        } else {
            ticklab::run::Flow::Continue
        }
    };
    let budget = Budget::new(10.0, 1000).unwrap();
    let mut run = Run::new(&mut sw, &mut cancel_second);
    let e = tick::measure(&mut c, &mut run, &TickOptions::new(budget)).unwrap_err();
    assert_eq!(e, Error::Cancelled);
    // Progress comes every 20 ms of the budget's clock, so Cancel lands well within 100 ms.
    assert!(tl.now_ps() < 100_000_000_000, "{} ps", tl.now_ps());
}

/// Values a page samples: durations sorted and judged as a set (all alike is one value, too
/// few is too few input events), values that are no count left out and said, and a
/// count's rate calibrated past its warm-up.
#[test]
fn sampled_values_durations_and_counts() {
    use ticklab::calibrate::count_rate;
    use ticklab::caveat::Caveat;
    use ticklab::clock::{ClockInfo, ClockKind, CountPeriod};
    use ticklab::run::{Budget, Stop};
    use ticklab::tick::{from_values, TickOptions, Values};
    use ticklab::Error;
    let info = ClockInfo::new("t", ClockKind::Monotonic, CountPeriod::NANOSECOND);
    let opts = TickOptions::new(Budget::new(1.0, 1_000_000).unwrap());
    let run = |v: &[f64], kind| from_values(&info, v, 1e6, kind, 1.0, Stop::Time, &opts);
    // Durations on an 8 ms grid, in any order: the step of their rounding.
    let durations: Vec<f64> = (0..200).map(|i| ((i * 37) % 25 + 1) as f64 * 8.0).collect();
    let t = run(&durations, Values::Durations).unwrap();
    assert!((t.estimate.tick - 8e6).abs() < 1.0, "{}", t.estimate.tick);
    assert!(matches!(
        run(&[16.0; 50], Values::Durations),
        Err(Error::NoData(Caveat::OneValue { .. }))
    ));
    assert!(matches!(
        run(&[16.0, 24.0], Values::Durations),
        Err(Error::NoData(Caveat::FewInputEvents { events: 2 }))
    ));
    // Readings at 1 ms, two of them no time at all.
    let mut readings: Vec<f64> = (0..500).map(|i| (i / 3) as f64).collect();
    readings.extend([f64::NAN, -5.0]);
    let t = run(&readings, Values::Readings).unwrap();
    assert!((t.estimate.tick - 1e6).abs() < 1.0, "{}", t.estimate.tick);
    assert!(t
        .caveats
        .iter()
        .any(|c| matches!(c, Caveat::BadReadings { readings: 2 })));
    // A count of 2 a ms over 100 ms, its first tenth slower (a warm-up), left out.
    let times: Vec<f64> = (0..=100).map(f64::from).collect();
    let counts: Vec<f64> = times
        .iter()
        .map(|&t| {
            if t <= 10.0 {
                t
            } else {
                10.0 + 2.0 * (t - 10.0)
            }
        })
        .collect();
    let (ns, span) = count_rate(&times, &counts).unwrap();
    assert!(
        (ns - 5e5).abs() < 1e-6 && (span - 90.0).abs() < 1e-9,
        "{ns} {span}"
    );
    assert_eq!(count_rate(&[1.0], &[1.0]), None);
    assert_eq!(count_rate(&[0.0, 5.0], &[3.0, 3.0]), None);
}
