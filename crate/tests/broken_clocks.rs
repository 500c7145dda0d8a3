//! The broken-clock table (`ticklab::broken`) natively: every degenerate clock ends inside
//! its budget with the right tick, a tick flagged unreliable, or a typed error.

#[test]
fn every_broken_clock_ends_in_budget_with_a_right_tick_or_an_error() {
    let failures = ticklab::broken::run_all(&mut |o| {
        eprintln!(
            "{:<55} {:>7.3} s of {:>7.3} s  {}",
            o.name,
            o.spent_s,
            o.allowed_s,
            o.summary()
        )
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
