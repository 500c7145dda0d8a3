//! The estimator's own cases: exact GCDs, chance, and recorded values' rules.

use super::*;

#[test]
fn exact_gcd_ignores_zeros() {
    assert_eq!(exact_gcd(&[0, 12, 18, 0, 30]), 6);
    assert_eq!(exact_gcd(&[0, 0]), 0);
}

#[test]
fn chance_on_a_grid_counts_grid_points() {
    let s = Space {
        grid: true,
        q_tol: 1.0 - 1e-6,
        rel: 0.0,
        unit: 1.0,
    };
    let spread: Vec<f64> = (1..4000).map(f64::from).collect();
    // A whole tick of 3 steps explains a third of the integers, exactly.
    assert!((s.chance(3.0, s.q_tol, &spread) - 1.0 / 3.0).abs() < 1e-3);
    // 2.5 steps: every other multiple is a whole number.
    assert!((s.chance(2.5, s.q_tol, &spread) - 0.6).abs() < 1e-2);
    // 10.015 steps: two grid points near almost every multiple.
    assert!((s.chance(10.015, s.q_tol, &spread) - 2.0 / 10.015).abs() < 2e-3);
    // A hair off 2 steps: far out, both neighbours of every multiple.
    let far: Vec<f64> = (50_000..60_000).map(f64::from).collect();
    assert!(s.chance(2.000_000_001, s.q_tol, &far) > 0.95);
    let f = Space { grid: false, ..s };
    assert!((f.chance(100.0, 1.0, &spread) - 0.02).abs() < 1e-12);
    // Values all multiples of 4 steps: 4 against the steps, 8 and 12 against the 4s.
    let fours: Vec<f64> = (1..4000).map(|k| f64::from(4 * k)).collect();
    let g = Space { unit: 4.0, ..s };
    assert!((g.chance(4.0, g.q_tol, &fours) - 0.25).abs() < 1e-3);
    assert!((g.chance(8.0, g.q_tol, &fours) - 0.5).abs() < 1e-3);
    assert!((g.chance(12.0, g.q_tol, &fours) - 1.0 / 3.0).abs() < 1e-3);
}

#[test]
fn radix_sort_sorts() {
    let mut rng = crate::rng::SplitMix64::new(3);
    let mut v: Vec<u64> = (0..10_000)
        .map(|i| match i % 3 {
            0 => (1.0 + rng.unit() * 1e6).to_bits(),
            1 => rng.next_u64(),
            _ => 42,
        })
        .collect();
    let mut want = v.clone();
    want.sort_unstable();
    radix_sort(&mut v);
    assert_eq!(v, want);
}

#[test]
fn tail_bound() {
    assert_eq!(ln_tail(100.0, 0.5, 0.5), 0.0);
    assert!((ln_tail(10.0, 1.0, 0.1) - 10.0 * 0.1f64.ln()).abs() < 1e-9);
    assert!(ln_tail(1000.0, 0.99, 0.98) > -20.0);
}

#[test]
fn bad_options_are_refused() {
    let o = EstimatorOptions {
        min_share: 0.0,
        ..Default::default()
    };
    assert!(estimate_values(&[1.0], &o).is_err());
    assert!(estimate_values(&[f64::NAN, -1.0, 0.0], &EstimatorOptions::default()).is_err());
}

#[cfg(feature = "recorded")]
fn recorded() -> EstimatorOptions {
    EstimatorOptions {
        rel_tolerance: 0.0,
        recorded: true,
        ..Default::default()
    }
}

/// The estimate of a file's values written to `places` decimals.
#[cfg(feature = "recorded")]
fn from_file(values: &[f64], places: i32) -> TickEstimate {
    estimate_with_finer(
        values,
        Quantum::Decimals { places },
        None,
        None,
        &recorded(),
    )
    .unwrap()
}

/// A 10.015 ns counter read in whole ns, near a millisecond apart: intervals a hundred
/// thousand ticks long, one multiple's two roundings a nanosecond apart (999 707 and
/// 999 708). No search reaches the tick there; "at most 1 ns" would be false, and the
/// bound is what the values' closest gap proves.
#[cfg(feature = "recorded")]
#[test]
fn a_bound_is_no_finer_than_the_closest_values() {
    let tick = 10.015;
    let mut rng = crate::rng::SplitMix64::new(7);
    let mut count = 0u64;
    let read = |c: u64| (c as f64 * tick).round();
    let mut last = read(count);
    let mut v = Vec::new();
    for _ in 0..300 {
        count += 99_800 + rng.below(40);
        let now = read(count);
        v.push(now - last);
        last = now;
    }
    let e = from_file(&v, 0);
    assert!(
        e.tick >= tick * 0.98 && !(e.reliable && (e.tick - tick).abs() > 0.02 * tick),
        "{e:?}"
    );
}

/// Sparse values of a fine clock: 60 intervals of a 100 ms timer jittered by 1 ms, read
/// by a 0.1 µs clock and written in ms to 4 places, no two closer than a few steps. No
/// tick from 1.6 steps to their closest gap fits all 60, so the bound is the precision;
/// the same intervals of a 10.015 ns counter read in whole ns fit one tick, its own.
#[cfg(feature = "recorded")]
#[test]
fn every_tick_up_to_the_closest_gap_is_tried_on_every_level() {
    let mut rng = crate::rng::SplitMix64::new(11);
    let mut fine = Vec::new();
    let mut counts = Vec::new();
    for _ in 0..60 {
        let steps = 1_000_000 - 10_000 + rng.below(20_000);
        fine.push(steps as f64 / 10_000.0);
        counts.push(steps);
    }
    let e = from_file(&fine, 4);
    assert!(
        e.method == Method::Precision && (e.tick - 1e-4).abs() < 1e-12,
        "{e:?}"
    );
    let tick = 10.015;
    let whole: Vec<f64> = counts
        .iter()
        .map(|&c| ((c / 10) as f64 * tick).round())
        .collect();
    let e = from_file(&whole, 0);
    assert!(e.reliable && (e.tick - tick).abs() < 1e-3 * tick, "{e:?}");
}

/// Sixty intervals near a second of a clock printed to its own tick (1e8 steps each): too
/// long for every tick to be tried level by level, and a tick of 2.00000003 steps fits
/// them all when each may be off a half step and doubles' noise besides (ties at every
/// level). Their distances narrow the ticks first, and values rounded once are fitted
/// exactly: the precision stands. The same seconds of a 10.015 ns counter read in whole
/// ns fit ticks a beat apart (one multiple fewer or more over 1e8); the one whose
/// multiples fit them best is the counter's, within its stated uncertainty.
#[cfg(feature = "recorded")]
#[test]
fn seconds_of_a_fine_clock_are_tried_on_every_level() {
    let mut rng = crate::rng::SplitMix64::new(13);
    let mut fine = Vec::new();
    let mut whole = Vec::new();
    let mut count = 0u64;
    let read = |c: u64| (c as f64 * 10.015).round();
    let mut last = read(count);
    for _ in 0..60 {
        let steps = 100_000_000 - 150_000 + rng.below(300_000);
        fine.push(steps as f64 / 1e5);
        count += steps / 10;
        let now = read(count);
        whole.push(now - last);
        last = now;
    }
    let e = from_file(&fine, 5);
    assert!(
        e.method == Method::Precision && (e.tick - 1e-5).abs() < 1e-15,
        "{e:?}"
    );
    let e = from_file(&whole, 0);
    assert!(
        e.reliable && (e.tick - 10.015).abs() < 2.0 * e.uncertainty,
        "{e:?}"
    );
}

/// A 41.667 ns counter's 16.667 ms frames in whole ns (16 666 666 and 16 666 667, its
/// 400 000 ticks), halves and doubles, and twenty odd intervals: the half period explains
/// 99 % of the values on too few levels, "ambiguous" with the precision; the odd
/// intervals, every level tried, fit the counter's tick alone.
#[cfg(feature = "recorded")]
#[test]
fn a_period_named_beside_the_precision_is_decided_by_every_level() {
    let tick = 1e3 / 24.0;
    let read = |c: u64| (c as f64 * tick).round();
    let mut rng = crate::rng::SplitMix64::new(17);
    let mut v = Vec::new();
    let mut count = 1_000_000u64;
    let mut push = |ticks: u64, v: &mut Vec<f64>| {
        let last = read(count);
        count += ticks;
        v.push(read(count) - last);
    };
    for i in 0..2000 {
        push(400_000, &mut v);
        if i % 200 == 0 {
            push(200_000, &mut v);
            push(800_000, &mut v);
        }
        if i % 100 == 0 {
            push(30_000 + rng.below(1_700_000), &mut v);
        }
    }
    let e = from_file(&v, 0);
    assert!(e.reliable && (e.tick - tick).abs() < 1e-4 * tick, "{e:?}");
}

/// A 10.015 ns counter's seconds as doubles since its program began, written in full
/// (1 000 034 404.9000244): no step of their own, and too long for the search of steps;
/// each level lies within the doubles' noise of a multiple, and every level tried shows
/// the tick.
#[cfg(feature = "recorded")]
#[test]
fn full_doubles_are_tried_within_their_noise() {
    let tick = 10.015;
    let mut rng = crate::rng::SplitMix64::new(19);
    let mut t = 4.5e8;
    let mut v = Vec::new();
    for _ in 0..60 {
        let next = t + ((1e9 + rng.below(2_600_000) as f64) / tick).floor() * tick;
        v.push(next - t);
        t = next;
    }
    assert!(v.iter().any(|x| x.fract() != 0.0));
    // As a file's text reads them: doubles at full precision, their noise a share of them.
    let noise = v.iter().fold(0.0, |m: f64, &x| m.max(x)) * 1e-9;
    let e =
        estimate_with_finer(&v, Quantum::Float { step: noise }, None, None, &recorded()).unwrap();
    assert!(e.reliable && (e.tick - tick).abs() < 1e-3 * tick, "{e:?}");
}

/// A 4 ms clock's 100 ms frames, 96 and 104 beside 100, halves and doubles among the
/// outliers: every value is a multiple of 4 ms. 100/23 ms holds most of what 100 ms
/// misses (96 and 104 are within half a step of it) but not the rest; the grid under the
/// misses is the coarsest that stands on all the values.
#[cfg(feature = "recorded")]
#[test]
fn the_grid_under_a_timers_misses_is_one_that_stands() {
    let mut v = vec![100.0; 3534];
    for (x, n) in [
        (4.0, 1),
        (8.0, 3),
        (12.0, 1),
        (20.0, 1),
        (28.0, 1),
        (40.0, 2),
        (48.0, 8),
        (52.0, 11),
        (96.0, 33),
        (104.0, 30),
        (140.0, 1),
        (196.0, 1),
        (200.0, 50),
        (204.0, 3),
        (240.0, 1),
        (268.0, 1),
        (300.0, 1),
        (400.0, 1),
        (452.0, 1),
    ] {
        v.extend(std::iter::repeat_n(x, n));
    }
    let e = from_file(&v, 0);
    assert!(e.reliable && (e.tick - 4.0).abs() < 0.01, "{e:?}");
}

/// Chromium's 100 µs clamp under 60 Hz frames, written to 0.1 ms: 16.5, 16.6, 16.7 and
/// 16.8 ms in one pile. No tick of more than a few steps holds four values a step apart,
/// so 16.667/34 ms, which piles them, is no rival to the precision.
#[cfg(feature = "recorded")]
#[test]
fn four_values_a_step_apart_are_the_precision() {
    let mut v = Vec::new();
    for (x, n) in [
        (8.3, 15),
        (8.4, 5),
        (16.5, 26),
        (16.6, 1641),
        (16.7, 2572),
        (16.8, 208),
        (33.3, 39),
        (33.4, 31),
    ] {
        v.extend(std::iter::repeat_n(x, n));
    }
    let e = from_file(&v, 1);
    assert!(
        e.method == Method::Precision && (e.tick - 0.1).abs() < 1e-12,
        "{e:?}"
    );
}

/// A 10 ms clock's timer of 1000 ms with two outliers, 520 and 2000 ms: 40 ms explains
/// every value, but a clock of half of it (or a quarter) would put 520 on its grid as
/// often as not, and one stray is no proof.
#[cfg(feature = "recorded")]
#[test]
fn a_stray_beside_a_pile_is_no_proof_of_a_coarser_tick() {
    let mut v = vec![1000.0; 71];
    v.extend([520.0, 2000.0]);
    let e = from_file(&v, 1);
    assert!(!e.reliable, "{e:?}");
}

/// A 41.667 ns counter's values are multiples of 1/3 ns too, and a few outliers beside a
/// pile of 4 ms frames prove no tick of 1/3 ns (frames as the sweep made them, read as
/// differences of doubles: it once called 1/3 ns reliable).
#[cfg(feature = "recorded")]
#[test]
fn a_divisor_of_the_tick_is_not_called_the_tick() {
    let tick = 125.0 / 3.0;
    let mut v: Vec<f64> = [
        312958.33333301544,
        764583.3333333433,
        1907125.0,
        2044666.6666667461,
        2852166.666666746,
        2862708.3333334923,
        3999999.9999997616,
        3999999.99999997,
        4000000.0000002384,
        4196750.0,
        7999999.999999999,
        9430333.333333254,
        10119166.666666627,
        17371125.0,
    ]
    .to_vec();
    v.extend([2000000.0; 7]);
    v.extend([4000000.0; 901]);
    v.extend([8000000.0; 16]);
    let e = from_file(&v, 3);
    assert!(!e.reliable || (e.tick - tick).abs() <= 0.02 * tick, "{e:?}");
}

/// An Intel TSC's back-to-back deltas (34 to 48 counts, all even): the exact GCD, 2
/// counts, with no caveat of the robust search's (a beat near 1.95 that "fits as well"
/// would contradict an exact tick of uncertainty 0).
#[test]
fn an_exact_gcd_keeps_no_caveat_of_another_tick() {
    let mut rng = crate::rng::SplitMix64::new(4);
    let d: Vec<u64> = (0..20_000).map(|_| 34 + 2 * rng.below(8)).collect();
    let e = estimate_counts(&d, &EstimatorOptions::default()).unwrap();
    assert_eq!(
        (e.tick, e.uncertainty, e.method),
        (2.0, 0.0, Method::ExactGcd)
    );
    assert!(e.caveats.is_empty(), "{:?}", e.caveats);
}

/// Counts that are all multiples of 4, twelve of thirteen multiples of 8 (a draw of 1 in
/// 600 from a tick of 4): half of them are multiples of 8 by chance, so 8 is no tick and the
/// GCD is. A hundred intervals of which one is off the 8s show it far beyond chance: 8, with
/// the GCD named as spoiled. Written as a file's whole numbers, the same.
#[test]
fn a_tick_coarser_than_the_values_grid_stands_out_against_that_grid() {
    let ks = [21u64, 20, 134, 20, 188, 156, 288, 32, 86, 72, 50, 20, 56];
    let d: Vec<u64> = ks.iter().map(|k| 4 * k).collect();
    let e = estimate_counts(&d, &EstimatorOptions::default()).unwrap();
    assert_eq!(
        (e.tick, e.share_explained, e.method),
        (4.0, 1.0, Method::ExactGcd)
    );
    let v: Vec<f64> = d.iter().map(|&x| x as f64).collect();
    let e = estimate_values(&v, &EstimatorOptions::default()).unwrap();
    assert_eq!((e.tick, e.share_explained), (4.0, 1.0), "{e:?}");

    let mut d: Vec<u64> = (0..100u64).map(|i| 8 * (1 + (i * 7919) % 300)).collect();
    d[5] = 84;
    let e = estimate_counts(&d, &EstimatorOptions::default()).unwrap();
    assert_eq!((e.tick, e.method), (8.0, Method::Robust));
    assert!(
        e.reliable && e.caveats.contains(&Caveat::GcdSpoiled { gcd: 4 }),
        "{e:?}"
    );
}
