//! `ticklab analyze` on any bytes, in every way of reading them (lines, a CSV column by index
//! or by name, the tools' JSON): a sound analysis or a bad-input error, never a panic.
//! What holds is tests/fuzz/invariants.rs, which the proptest fuzzing asserts too.
#![no_main]

use libfuzzer_sys::fuzz_target;

// One target uses one of the shared invariants.
#[allow(dead_code)]
#[path = "../../tests/fuzz/invariants.rs"]
mod invariants;

fuzz_target!(|bytes: &[u8]| {
    if let Err(why) = invariants::analyze(bytes) {
        panic!("{why}");
    }
});
