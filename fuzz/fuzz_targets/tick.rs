//! The tick estimators on any intervals: the bytes as numbers in text and as 8-byte words
//! (every bit pattern of u64 and f64).
//! What holds is tests/fuzz/invariants.rs, which the proptest fuzzing asserts too.
#![no_main]

use libfuzzer_sys::fuzz_target;

// One target uses one of the shared invariants.
#[allow(dead_code)]
#[path = "../../tests/fuzz/invariants.rs"]
mod invariants;

fuzz_target!(|bytes: &[u8]| {
    if let Err(why) = invariants::intervals(bytes) {
        panic!("{why}");
    }
});
