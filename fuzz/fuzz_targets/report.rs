//! Report import on any text: a report that reads exports and reads back the same, and the
//! tables the command and page make of it are made; anything else is a report error.
//! What holds is tests/fuzz/invariants.rs, which the proptest fuzzing asserts too.
#![no_main]

use libfuzzer_sys::fuzz_target;

// One target uses one of the shared invariants.
#[allow(dead_code)]
#[path = "../../tests/fuzz/invariants.rs"]
mod invariants;

fuzz_target!(|bytes: &[u8]| {
    if let Err(why) = invariants::report(bytes) {
        panic!("{why}");
    }
});
