//! Recordings made the whole way programs make them, each a case the estimator once
//! answered wrongly, made by the generator (not copied from anywhere).

use super::recordings::{make_pipeline, Arith, Clock, Layout, Print, Recording};
use super::{answers, answers_of, Answer};

/// The draws of [`recordings_made_as_programs_make_them_get_their_tick`] still answered
/// with a bound finer than their tick: two levels a tick apart whose values err by two
/// printed steps (the doubles' error, hidden by the print, is not yet read off their
/// residuals), and readings of the epoch in seconds whose 25 levels do not stand out against
/// every fractional tick tried at an error of a whole 238 ns. The test fails when one of
/// them is answered right, so the list stays true.
const STILL_WRONG: [(&str, u64); 2] = [
    ("15 and 16 ticks of 100000 ns step to 3 decimals", 1),
    ("the epoch in seconds of a 1 µs clock", 2),
];

/// Recordings made the whole way programs make them that earlier rounds answered wrongly,
/// each made by the generator: durations in doubles of seconds read hours after boot and
/// printed in full (an ACPI PM timer, a 24 and a 19.2 MHz counter, an HPET, 1 ns); the same
/// printed to three decimals, of 15 and 16 ticks of a 100 µs and a 4 ms clock; a 24 MHz
/// counter's readings in ms to nine decimals, an ACPI PM timer's in µs to one; the epoch in
/// seconds of a 1 µs clock; and a counter of 250 with 3 % of outliers anywhere. Each is
/// answered with its tick, or "ambiguous" naming it where the values cannot tell.
#[test]
fn recordings_made_as_programs_make_them_get_their_tick() {
    use super::recordings::{Held, Pipeline, Platform, Rng, Work};
    let made = |platform, held, arith, out_s, print, median_s: f64, spread| Pipeline {
        platform,
        held,
        arith,
        out_s,
        print,
        layout: Layout::Lines,
        sources: vec![Work::Loop { median_s, spread }],
        values: 1000,
    };
    let boot = Held::Seconds { since: 1.0e4 };
    let shortest = Print::Shortest { python: false };
    let mut cases: Vec<(String, Pipeline)> = Vec::new();
    for hz in [3_579_545.0, 24e6, 19.2e6, 14_318_180.0, 1e9] {
        let p = Platform::Counter { hz };
        cases.push((
            format!("{} in full", p.name()),
            made(p, boot, Arith::Difference, 1e-9, shortest, 20e-6, 0.5),
        ));
    }
    for step in [1e-4, 4e-3] {
        let p = Platform::Step { step };
        cases.push((
            format!("15 and 16 ticks of {} to 3 decimals", p.name()),
            made(
                p,
                boot,
                Arith::Difference,
                1e-9,
                Print::Fixed { places: 3 },
                15.5 * step,
                0.01,
            ),
        ));
    }
    cases.push((
        "a 24 MHz counter's readings in ms to 9 decimals".into(),
        made(
            Platform::Counter { hz: 24e6 },
            Held::Millis { since: 2_531_315.0 },
            Arith::Readings,
            1e-3,
            Print::Fixed { places: 9 },
            2e-7,
            0.5,
        ),
    ));
    cases.push((
        "an ACPI PM timer's readings in µs to 0.1".into(),
        made(
            Platform::Counter { hz: 3_579_545.0 },
            boot,
            Arith::Readings,
            1e-6,
            Print::Fixed { places: 1 },
            1e-6,
            0.5,
        ),
    ));
    cases.push((
        "the epoch in seconds of a 1 µs clock".into(),
        made(
            Platform::Step { step: 1e-6 },
            Held::Seconds { since: 1.77e9 },
            Arith::Readings,
            1.0,
            shortest,
            3e-6,
            0.5,
        ),
    ));
    let mut bad = Vec::new();
    for (what, p) in &cases {
        for seed in 0..3 {
            let (r, truth) = make_pipeline(seed, p);
            let (a, said) = answers_of(&r, truth).remove(0);
            println!("{what} (seed {seed}): {a:?}: {said}");
            let open = STILL_WRONG.contains(&(what.as_str(), seed));
            let good = a.gives_tick() || a == Answer::AmbiguousNamed;
            if good == open {
                bad.push(format!(
                    "{what} (seed {seed}): {a:?}{}: {said}",
                    if open { ", listed as still wrong" } else { "" }
                ));
            }
        }
    }
    // 4 000 counts of a counter of 250, each multiple from 250 to 10 000 holding about a
    // hundred, and 3 % of them anywhere at all.
    let mut rng = Rng::new(250);
    let text: String = (0..4000)
        .map(|_| {
            let v = if rng.unit() < 0.03 {
                1 + rng.below(10_000)
            } else {
                250 * (1 + rng.below(40))
            };
            format!("{v}\n")
        })
        .collect();
    let counts = Recording {
        seed: 250,
        columns: vec![text.lines().map(|l| l.parse().unwrap()).collect()],
        text,
        unit: "ns",
        clock: Clock::Exact { step: 250.0 },
        print: Print::Fixed { places: 0 },
        layout: Layout::Lines,
        sources: Vec::new(),
    };
    let (a, said) = answers(&counts).remove(0);
    println!("a counter of 250 with 3 % of outliers: {a:?}: {said}");
    if !a.gives_tick() {
        bad.push(format!(
            "a counter of 250 with 3 % of outliers: {a:?}: {said}"
        ));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Counters converted to whole nanoseconds by the kernel, their readings held as doubles of
/// seconds, differenced and printed finer than a nanosecond: every value lies on whole ns
/// (to within the doubles), so at the finer print the nanosecond fits them better than the
/// counter's tick, whatever the clock. The nanosecond is their rounding, never a clock
/// called reliable: a 3.58 MHz counter's 1.58 µs of work on three levels (1397, 1676,
/// 1955 ns) to 0.1 ns, a 24 MHz counter's 235 ns in µs to 5 decimals, a 99.85 MHz
/// counter's 33 ms frames to 8 decimals. The 24 MHz counter's two or three levels (208,
/// 209, 250 ns) still get 1 ns: its tick explains them against a chance of 5 % a value,
/// the nanosecond at the print against 1 % (listed in [`WHOLE_NS_STILL_WRONG`]; the test
/// fails when one of them is answered otherwise).
#[test]
fn whole_nanoseconds_of_a_counter_are_its_rounding_not_its_tick() {
    use super::recordings::{Held, Pipeline, Platform, Work};
    let cases = [
        (3_579_545.0, 1e-9, 1, 1.583e-6, 0.003, 4035.4),
        (24e6, 1e-6, 5, 0.235e-6, 0.04, 3500.7),
        (99.85e6, 1e-9, 8, 33.3e-3, 0.017, 76.2),
    ];
    let mut bad = Vec::new();
    for (hz, out_s, places, median_s, spread, since) in cases {
        let p = Pipeline {
            platform: Platform::WholeNs { hz },
            held: Held::Seconds { since },
            arith: Arith::Difference,
            out_s,
            print: Print::Fixed { places },
            layout: Layout::Lines,
            sources: vec![Work::Loop { median_s, spread }],
            values: 300,
        };
        for seed in 0..3 {
            let (r, truth) = make_pipeline(seed, &p);
            let (a, said) = answers_of(&r, truth).remove(0);
            println!("{hz} Hz in whole ns (seed {seed}): {a:?}: {said}");
            let open = WHOLE_NS_STILL_WRONG.contains(&(hz, seed));
            if (a == Answer::Wrong) != open {
                bad.push(format!(
                    "{hz} Hz in whole ns (seed {seed}): {a:?}{}: {said}",
                    if open { ", listed as still wrong" } else { "" }
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The draws of [`whole_nanoseconds_of_a_counter_are_its_rounding_not_its_tick`] still
/// answered with 1 ns called reliable: (the counter's frequency, the seed).
const WHOLE_NS_STILL_WRONG: [(f64, u64); 3] = [(24e6, 0), (24e6, 1), (24e6, 2)];
