//! Intervals as real tools and clocks record them, each with the tick it must give and why.
//! The generators follow how each kind of data comes about (readings truncated or rounded
//! to the data's quantum, then differenced), not how the estimator works.

use ticklab::caveat::Caveat;
use ticklab::rng::SplitMix64;
use ticklab::tick::{
    estimate, estimate_counts, estimate_values, EstimatorOptions, Exact, Method, Quantum,
    TickEstimate,
};

fn opts() -> EstimatorOptions {
    EstimatorOptions::default()
}

/// A reading of a counter of `period` ns at true time `t_ns`, as an API in whole ns gives
/// it: whole counts, converted and truncated.
fn truncated_ns(t_ns: f64, period: f64) -> u64 {
    ((t_ns / period).floor() * period).floor() as u64
}

fn within(e: &TickEstimate, want: f64) {
    assert!(e.found(), "{e:?}");
    let reach = 5.0 * e.uncertainty + 1e-9 * want;
    assert!(
        (e.tick - want).abs() <= reach,
        "tick {} ± {} is not {want}",
        e.tick,
        e.uncertainty
    );
}

#[test]
fn criterion_sample_totals_of_a_24_mhz_counter_in_rounded_ns() {
    // Criterion's sample.json on an Apple M1: 100 samples of d, 2d, ... 100d iterations
    // timed by Instant (mach_absolute_time, 24 MHz, 125/3 ns a count, shown in whole ns);
    // totals from 1 ms to 100 ms. The tick is 125/3 ns, however large the totals.
    let mut rng = SplitMix64::new(24);
    let period = 125.0 / 3.0;
    let per_iter = 4.19;
    let d = 238_663.0;
    let times: Vec<f64> = (1..=100)
        .map(|i| {
            let start = 5e10 + rng.unit() * 1e9;
            let dur = i as f64 * d * per_iter * (1.0 + 0.01 * rng.unit());
            (truncated_ns(start + dur, period) - truncated_ns(start, period)) as f64
        })
        .collect();
    assert!(times[0] > 1e6 && times[99] < 1.1e8);
    let e = estimate_values(&times, &opts()).unwrap();
    assert_eq!(e.quantum, Quantum::Decimals { places: 0 });
    assert_eq!(e.exact, Exact::new(125, 3), "{e:?}");
    within(&e, period);
    assert!(e.reliable);
}

#[test]
fn qpc_at_10_mhz_is_100_ns() {
    // .NET's Stopwatch on Windows: QueryPerformanceCounter at 10 MHz, Elapsed in whole ns
    // (ticks × 100). Timings from 0.3 µs to 50 µs.
    let mut rng = SplitMix64::new(10);
    let v: Vec<f64> = (0..2000)
        .map(|_| {
            let start = rng.unit() * 1e9;
            let dur = 300.0 + rng.unit() * 50_000.0;
            (truncated_ns(start + dur, 100.0) - truncated_ns(start, 100.0)) as f64
        })
        .collect();
    let e = estimate_values(&v, &opts()).unwrap();
    assert_eq!(e.tick, 100.0, "{e:?}");
    assert_eq!(e.exact, Exact::new(100, 1));
    assert!(e.reliable);
}

#[test]
fn a_3_222557_mhz_counter_in_whole_ns_is_pinned_to_its_frequency() {
    // QueryPerformanceFrequency of 3 222 557 Hz (a TSC divided by 1024): 310.3126 ns a
    // count, converted to whole ns. The counter's frequency is a whole number of Hz.
    let period = 1e9 / 3_222_557.0;
    let mut rng = SplitMix64::new(3);
    let v: Vec<f64> = (0..3000)
        .map(|_| {
            let start = 1e9 + rng.unit() * 1e9;
            let dur = 300.0 + rng.unit() * 3e6;
            (truncated_ns(start + dur, period) - truncated_ns(start, period)) as f64
        })
        .collect();
    let e = estimate(&v, Quantum::Decimals { places: 0 }, Some(1e-9), &opts()).unwrap();
    within(&e, period);
    assert_eq!(e.exact, Exact::new(1_000_000_000, 3_222_557), "{e:?}");
}

#[test]
fn performance_now_at_5_us_in_float_ms_with_noise() {
    // Chromium's performance.now cross-origin isolated: a 5 µs clamp, in milliseconds as
    // doubles, differences carrying 1e-11 ms of float noise.
    let mut rng = SplitMix64::new(5);
    let v: Vec<f64> = (0..4000)
        .map(|_| {
            let steps = 1 + rng.below(400);
            steps as f64 * 0.005 + (rng.unit() - 0.5) * 2e-11
        })
        .collect();
    let e = estimate_values(&v, &opts()).unwrap();
    within(&e, 0.005);
    assert_eq!(e.exact, Exact::new(1, 200), "{e:?}");
    assert!(e.reliable);
}

#[test]
fn date_based_whole_milliseconds_are_their_own_precision() {
    // Test durations from Date.now(): whole ms, 0 to 207, most of them short. Nothing
    // coarser than 1 ms fits, and nothing finer can be seen: at most 1 ms.
    let mut rng = SplitMix64::new(207);
    let mut v: Vec<f64> = (0..300)
        .map(|_| {
            let u = rng.unit();
            (1.0 + 206.0 * u * u * u).round()
        })
        .collect();
    v.push(0.0);
    let e = estimate_values(&v, &opts()).unwrap();
    assert_eq!(e.method, Method::Precision, "{e:?}");
    assert_eq!(e.tick, 1.0);
    assert!(!e.reliable);
    assert!(
        matches!(e.caveats[0], Caveat::AtPrecision { precision } if precision == 1.0),
        "{:?}",
        e.caveats
    );
}

#[test]
fn whole_ns_from_a_1_ns_clock_near_a_millisecond() {
    let mut rng = SplitMix64::new(6);
    let v: Vec<f64> = (0..5000)
        .map(|_| (1_000_000 + rng.below(60_000)) as f64)
        .collect();
    let e = estimate_values(&v, &opts()).unwrap();
    assert_eq!(e.method, Method::Precision, "{e:?}");
    assert_eq!(e.tick, 1.0);
}

#[test]
fn integer_ns_with_a_250_ns_tick_and_3_percent_outliers_is_250() {
    let mut rng = SplitMix64::new(250);
    let v: Vec<u64> = (0..3000)
        .map(|i| {
            if i % 33 == 0 {
                1 + rng.below(100_000)
            } else {
                250 * (1 + rng.below(400))
            }
        })
        .collect();
    let e = estimate_counts(&v, &opts()).unwrap();
    assert_eq!(e.tick, 250.0, "{e:?}");
    assert_eq!(e.exact, Exact::new(250, 1));
    assert_eq!(e.method, Method::Robust);
    assert!(e.share_explained > 0.96 && e.share_explained < 0.975);
}

/// Back-to-back reads of CLOCK_MONOTONIC on a 2596 MHz TSC that moves 26 counts at a time:
/// a step of 26 / 2.596152 = 10.0148 ns, written in truncated whole ns. Reads cost 20 to
/// 30 ns, so successive values differ by 20, 21, 30, 31, 40, 41... and never by 10.
fn monotonic_deltas(n: usize, seed: u64) -> Vec<u64> {
    let tau = 26.0 / 2.596152;
    let mut rng = SplitMix64::new(seed);
    let mut t = 1e12 + rng.unit() * 1e9;
    let mut prev = truncated_ns(t, tau);
    let mut out = Vec::new();
    while out.len() < n {
        t += 20.2 + 9.5 * rng.unit() + if rng.below(500) == 0 { 1000.0 } else { 0.0 };
        let r = truncated_ns(t, tau);
        if r != prev {
            out.push(r - prev);
            prev = r;
        }
    }
    out
}

#[test]
fn a_10_015_ns_step_written_in_truncated_whole_ns() {
    let d = monotonic_deltas(20_000, 1);
    assert!(
        d.iter().all(|&x| x >= 20),
        "no delta of 10: the step is hidden"
    );
    let e = estimate_counts(&d, &opts()).unwrap();
    within(&e, 26.0 / 2.596152);
    assert_eq!(e.method, Method::Robust);
    assert!(e.reliable);
}

#[test]
fn a_counter_stepping_26_with_straddles() {
    // rdtsc where the counter moves 26 at a time and one read in nine catches it mid-step:
    // deltas of 26 (88%), pairs of 1 and 25 (11%), a few 52.
    let mut rng = SplitMix64::new(26);
    let mut d = Vec::new();
    while d.len() < 20_000 {
        match rng.below(100) {
            0..=87 => d.push(26),
            88..=93 => {
                d.push(1);
                d.push(25);
            }
            _ => d.push(52),
        }
    }
    let e = estimate_counts(&d, &opts()).unwrap();
    assert_eq!(e.tick, 26.0, "{e:?}");
    assert!(e.straddles > 0.08, "{e:?}");
    assert!(
        e.caveats
            .iter()
            .any(|c| ticklab::present::caveat(c).contains("1 + 25 = 26")),
        "{:?}",
        e.caveats
    );
}

#[test]
fn means_over_many_runs_have_no_tick() {
    // Per-iteration means (Criterion's sample totals over their iteration counts): doubles
    // at full precision with no step.
    let mut rng = SplitMix64::new(9);
    let v: Vec<f64> = (1..=100)
        .map(|i| {
            let iters = (i * 238_663) as f64;
            let total = (iters * 4.19 * (1.0 + 0.02 * rng.unit())).round();
            total / iters
        })
        .collect();
    let e = estimate_values(&v, &opts()).unwrap();
    assert_eq!(e.method, Method::NoTick, "{e:?}");
    assert!(!e.reliable && !e.found());
}

#[test]
fn a_counter_stepping_24_5_counts() {
    // rdtsc on a 2445 MHz AMD EPYC guest whose counter moves 24 or 25 at a time (24.5 on
    // average, the step of CLOCK_MONOTONIC there: 10.019 ns): back-to-back deltas of 24
    // and 25 (one step), 49 (two), 73 and 74 (three). No integer tick explains them.
    let mut rng = SplitMix64::new(245);
    let d: Vec<u64> = (0..20_000)
        .map(|_| {
            let k = rng.below(1 << 30);
            let m = [1, 1, 2, 2, 2, 3][rng.below(6) as usize];
            let at = |k: u64| (k as f64 * 24.5).floor() as u64;
            at(k + m) - at(k)
        })
        .collect();
    let e = estimate_counts(&d, &opts()).unwrap();
    within(&e, 24.5);
    assert_eq!(e.exact, Some(Exact { num: 49, den: 2 }), "{e:?}");
}

#[test]
fn short_and_long_runs_of_one_clock_together() {
    // hyperfine's runs of `true` (0.3 to 0.6 µs past the shell) and of `sleep 0.001`
    // (2 to 10 ms), timed by one clock stepping 10.0188 ns in truncated whole ns and
    // analysed together: a climb from the short runs alone cannot reach the long ones'
    // precision; the tick must come out all the same.
    let tau = 10.0188;
    let mut rng = SplitMix64::new(10);
    let mut run = |short: bool| {
        let k = if short {
            30 + rng.below(30)
        } else {
            200_000 + rng.below(800_000)
        };
        let s = rng.below(1 << 20) as f64;
        truncated_ns((s + k as f64) * tau, tau) - truncated_ns(s * tau, tau)
    };
    let d: Vec<u64> = (0..540).map(|i| run(i < 40)).collect();
    let e = estimate_counts(&d, &opts()).unwrap();
    within(&e, tau);
    assert!(e.reliable, "{e:?}");
}

#[test]
fn twenty_long_samples_give_a_bound_that_holds() {
    // Criterion's default of 20 samples when each takes ~30 ms (its 1e6-value benchmarks
    // here): totals of 3 million ticks of 10.0188 ns in whole ns. Too few and too long for
    // the tick to be found; whatever bound is given must hold.
    let tau = 10.0188;
    let mut rng = SplitMix64::new(20);
    for _ in 0..10 {
        let d: Vec<f64> = (1..=20)
            .map(|i| {
                let k = ((29e6 + 5e6 * rng.unit()) / tau) as u64 + i;
                let s = rng.below(1 << 20) as f64;
                (truncated_ns((s + k as f64) * tau, tau) - truncated_ns(s * tau, tau)) as f64
            })
            .collect();
        // As `analyze` reads them: whole numbers, written to 1 ns.
        let e = estimate(&d, Quantum::Decimals { places: 0 }, Some(1e-9), &opts()).unwrap();
        if e.found() {
            within(&e, tau);
        } else {
            assert_eq!(e.method, Method::Precision, "{e:?}");
            assert!(
                e.tick >= tau,
                "at most {} ns, but the tick is {tau} ns",
                e.tick
            );
            assert!(!e.reliable, "{e:?}");
        }
    }
}

#[test]
fn a_handful_of_whole_millisecond_levels_is_no_tick() {
    // 2 000 Date-based timings of a few steady tasks: eight distinct whole milliseconds
    // (2, 4, 5, 7, 9, 10, 12, 15), each seen hundreds of times. A tick of 2.4 ms comes within
    // a millisecond of every one of them, as ticks near 2.4 ms come near most integers: the
    // levels are eight pieces of evidence, not 2 000, and show no tick.
    let levels = [2.0, 2.0, 2.0, 4.0, 4.0, 5.0, 7.0, 9.0, 10.0, 12.0, 15.0];
    let mut rng = SplitMix64::new(8);
    let v: Vec<f64> = (0..2000)
        .map(|_| levels[rng.below(levels.len() as u64) as usize])
        .collect();
    let e = estimate(&v, Quantum::Decimals { places: 0 }, Some(1e-3), &opts()).unwrap();
    assert_eq!(e.method, Method::Precision, "{e:?}");
    assert_eq!(e.tick, 1.0);
    assert!(!e.reliable);
}
