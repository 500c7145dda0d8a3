//! The class comparison's imports on any text: a report reduced to its digest, or a result
//! link's digest read as it is, checked, and set side by side in the Compare matrix (every
//! sort) and its CSV; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ticklab::Report;
use ticklab_www::class::{matrix, matrix_csv, Column, Digest};

fuzz_target!(|bytes: &[u8]| {
    let text = String::from_utf8_lossy(bytes);
    let mut digests = Vec::new();
    if let Ok(r) = Report::from_json(&text) {
        digests.extend(Digest::of(&r, "a file").check().ok());
    }
    if let Ok(d) = serde_json::from_str::<Digest>(&text) {
        digests.extend(d.check().ok());
    }
    let all: Vec<&Digest> = digests.iter().collect();
    for sort in Column::ALL {
        for descending in [false, true] {
            let groups = matrix(&all, sort, descending);
            let _ = matrix_csv(&groups);
        }
    }
});
