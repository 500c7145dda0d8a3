//! The broken-clock table (`ticklab::broken`) natively: every degenerate clock ends inside
//! its budget with the right tick, a tick flagged unreliable, or a typed error.

use ticklab::broken::{cases, run};

#[test]
fn every_broken_clock_ends_in_budget_with_a_right_tick_or_an_error() {
    let mut failures = Vec::new();
    for case in cases() {
        let o = run(&case);
        eprintln!(
            "{:<55} {:>7.3} s of {:>7.3} s  {}",
            o.name,
            o.spent_s,
            o.allowed_s,
            o.summary()
        );
        for f in &o.failures {
            failures.push(format!("{}: {f} (got {})", o.name, o.summary()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
