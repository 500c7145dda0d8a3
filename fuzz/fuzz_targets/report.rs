//! Report import on any text: a report that reads exports and reads back the same, and the
//! tables the command and page make of it are made; anything else is a report error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ticklab::Report;

fuzz_target!(|bytes: &[u8]| {
    let text = String::from_utf8_lossy(bytes);
    match Report::from_json(&text) {
        Ok(r) => {
            let json = r.to_json().expect("an imported report exports");
            assert_eq!(Report::from_json(&json).expect("and reads back"), r);
            let _ = ticklab::export::summary(&r);
            let _ = ticklab::export::tables(&r);
        }
        Err(ticklab::Error::Report(m)) => assert!(!m.is_empty()),
        Err(e) => panic!("not a report error: {e}"),
    }
});
