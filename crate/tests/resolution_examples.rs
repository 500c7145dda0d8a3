//! The worked examples of "Finding Timer Resolution and Overhead": the tick is the largest value all timings are multiples of,
//! and diff(sort()) alone can miss it.

use ticklab::caveat::Caveat;
use ticklab::tick::{estimate_values, EstimatorOptions, Method};

fn est(v: &[f64]) -> ticklab::tick::TickEstimate {
    estimate_values(v, &EstimatorOptions::default()).unwrap()
}

#[test]
fn example_1_quarter_second() {
    let e = est(&[1.00, 2.00, 1.75, 0.50, 1.25, 3.25]);
    assert_eq!(e.tick, 0.25);
    assert_eq!(e.share_explained, 1.0);
    assert_eq!(e.smallest_nonzero, 0.5);
    // Six timings only: the estimate is an upper bound, and says so.
    assert!(!e.reliable);
    assert!(
        e.caveats.contains(&Caveat::FewIntervals { intervals: 6 }),
        "{:?}",
        e.caveats
    );
}

#[test]
fn example_2_old_hp_pc() {
    let e = est(&[
        0.0,
        1.953125e-3,
        1.953125e-3,
        3.906250e-3,
        4.8828125e-3,
        0.0,
        0.0,
        0.0,
    ]);
    assert_eq!(e.tick, 9.765625e-4);
    assert_eq!(e.zeros, 4);
    assert_eq!(e.smallest_diff_sort, Some(9.765625e-4));
}

#[test]
fn example_3_diff_sort_says_half_but_tick_is_quarter() {
    let e = est(&[0.00, 2.00, 1.25, 0.50, 1.25, 3.25]);
    assert_eq!(e.tick, 0.25);
    assert_eq!(e.smallest_diff_sort, Some(0.5));
    assert_eq!(e.smallest_nonzero, 0.5);
    assert_eq!(e.method, Method::Robust);
}

#[test]
fn float_noise_in_a_tenth_of_a_millisecond_clock() {
    // Differences of performance.now-like doubles: 0.1 ms steps with float noise.
    let base = [
        0.1,
        0.2,
        0.30000000004656613,
        0.4,
        0.19999999995343387,
        0.5,
        0.7000000000116415,
    ];
    let v: Vec<f64> = base.iter().cycle().take(70).copied().collect();
    let e = est(&v);
    assert!((e.tick - 0.1).abs() < 1e-9, "{}", e.tick);
    assert_eq!(e.share_explained, 1.0);
    assert!(e.reliable);
}
