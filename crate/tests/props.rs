//! Properties: estimators, fits and statistics never panic on arbitrary input, and the
//! least-values line never lies above a point.

use proptest::prelude::*;
use ticklab::fit::{least_values, ols, step_fit};
use ticklab::stats::{bands, histogram, Summary};
use ticklab::tick::{estimate_counts, estimate_values, EstimatorOptions};

fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -1e6..1e12f64,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(0.0),
        1 => Just(f64::MAX),
        1 => Just(f64::MIN_POSITIVE),
        1 => any::<f64>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn tick_estimators_never_panic(v in prop::collection::vec(any_f64(), 0..200),
                                   c in prop::collection::vec(any::<u64>(), 0..200)) {
        let o = EstimatorOptions::default();
        if let Ok(e) = estimate_values(&v, &o) {
            prop_assert!(e.tick.is_finite() && e.tick > 0.0);
            prop_assert!((0.0..=1.0).contains(&e.share_explained));
        }
        if let Ok(e) = estimate_counts(&c, &o) {
            prop_assert!(e.tick >= 1.0);
        }
    }

    #[test]
    fn multiples_of_a_tick_give_that_tick_or_a_multiple_of_it(
        tick in 1u64..1_000_000, ks in prop::collection::vec(1u64..500, 12..100)) {
        let v: Vec<u64> = ks.iter().map(|k| k * tick).collect();
        let e = estimate_counts(&v, &EstimatorOptions::default()).unwrap();
        // The GCD of the multiples is a multiple of the tick (k's may share a factor).
        prop_assert_eq!(e.tick as u64 % tick, 0);
        prop_assert_eq!(e.share_explained, 1.0);
    }

    #[test]
    fn fits_never_panic(x in prop::collection::vec(any_f64(), 0..60),
                        y in prop::collection::vec(any_f64(), 0..60),
                        tick in any_f64(), slope in any_f64()) {
        let _ = ols(&x, &y);
        let _ = least_values(&x, &y);
        let _ = step_fit(&x, &y, slope, tick);
    }

    #[test]
    fn least_values_has_no_negative_excess(
        pts in prop::collection::vec((0u32..10_000, 0u32..1_000_000), 2..300)) {
        let x: Vec<f64> = pts.iter().map(|p| p.0 as f64).collect();
        let y: Vec<f64> = pts.iter().map(|p| p.1 as f64).collect();
        if let Ok(f) = least_values(&x, &y) {
            for (a, b) in x.iter().zip(&y) {
                prop_assert!(b - f.line.at(*a) >= -1e-6 * (1.0 + b.abs()), "{} {} {:?}", a, b, f);
            }
            prop_assert!(f.total_excess >= -1e-6 * y.iter().sum::<f64>().max(1.0));
        }
    }

    #[test]
    fn statistics_never_panic(v in prop::collection::vec(any_f64(), 0..200), bins in 0usize..50,
                              gap in any_f64()) {
        let _ = Summary::of(&v);
        let _ = histogram(&v, bins);
        let _ = bands(&v, gap, 16);
    }
}
