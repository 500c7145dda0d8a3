//! `ticklab analyze` on any bytes, in every way of reading them (lines, a CSV column by index
//! or by name, the tools' JSON): a sound analysis or a bad-input error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ticklab_native::analyze::examine;
use ticklab_native::CliError;

fuzz_target!(|bytes: &[u8]| {
    for column in [None, Some("1"), Some("2"), Some("ms")] {
        match examine(
            Box::new(std::io::Cursor::new(bytes.to_vec())),
            column,
            "input",
        ) {
            Ok(a) => {
                let m = a.main();
                assert!(m.series.values.iter().all(|v| v.is_finite() && *v >= 0.0));
                if let Some(e) = &m.estimate {
                    assert!(e.tick.is_finite() && e.tick > 0.0, "tick {}", e.tick);
                    assert!((0.0..=1.0).contains(&e.share_explained));
                }
                let step = m.series.quantum.step();
                assert!(step.is_finite() && step > 0.0, "precision {step}");
                assert!(!m.answer().is_empty());
            }
            Err(CliError::Usage(m)) => assert!(!m.is_empty()),
            Err(e) => panic!("not a bad-input error: {e:?}"),
        }
    }
});
