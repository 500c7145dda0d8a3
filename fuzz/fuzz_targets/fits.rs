//! Least squares, the least-values fit and the step fit on any points: the bytes as pairs of
//! numbers in text and of raw f64.
//! What holds is tests/fuzz/invariants.rs, which the proptest fuzzing asserts too.
#![no_main]

use libfuzzer_sys::fuzz_target;

// One target uses one of the shared invariants.
#[allow(dead_code)]
#[path = "../../tests/fuzz/invariants.rs"]
mod invariants;

fuzz_target!(|bytes: &[u8]| {
    if let Err(why) = invariants::fits(bytes) {
        panic!("{why}");
    }
});
