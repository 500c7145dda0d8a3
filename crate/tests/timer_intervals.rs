//! A timer's intervals, as a page or a program records them: the time between firings of a
//! `setTimeout` chain, a `setInterval`, a frame loop, read through a clock of some tick and
//! differenced in doubles, then printed as Python and JavaScript print doubles. Nearly every
//! value sits near one level (the period), a few near others: the tick is the clock's, never
//! a divisor of the period. Each case is generated as it comes about, seeded.

use ticklab::analyze::{examine, Kind, SeriesAnalysis, Unit};
use ticklab::caveat::Caveat;
use ticklab::rng::SplitMix64;
use ticklab::tick::Method;

/// A normal deviate (Box–Muller).
fn normal(rng: &mut SplitMix64, mean: f64, sd: f64) -> f64 {
    let u1 = rng.unit().max(1e-300);
    let u2 = rng.unit();
    mean + sd * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// How a clock turns true time (ms) into a reading (ms, a double).
#[derive(Clone, Copy)]
enum Clock {
    /// Truncated to a grid of `res` ms: `floor(t / res) * res`.
    Clamp(f64),
    /// Chromium's jittered clamp: truncated to `res`, then moved up a step once `t` passes
    /// a threshold drawn for each step (uniform over the step, from a hash of it).
    Jittered(f64),
}

impl Clock {
    fn read(self, t: f64) -> f64 {
        match self {
            Clock::Clamp(res) => (t / res).floor() * res,
            Clock::Jittered(res) => {
                let k = (t / res).floor();
                let threshold = SplitMix64::new(k as u64 ^ 0x5eed).unit() * res;
                if t - k * res >= threshold {
                    (k + 1.0) * res
                } else {
                    k * res
                }
            }
        }
    }
}

/// A double as Python's `print` writes it: the shortest form that reads back, with `.0` on
/// whole numbers (`100.05999999999995`, `101.0`).
fn py(x: f64) -> String {
    let s = format!("{x}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// The intervals between consecutive readings of `clock` at the true firing times `fires`,
/// differenced in doubles and printed one a line.
fn intervals_text(clock: Clock, fires: &[f64]) -> String {
    let r: Vec<f64> = fires.iter().map(|&t| clock.read(t)).collect();
    r.windows(2).map(|w| py(w[1] - w[0]) + "\n").collect()
}

/// A `setTimeout(period)` chain: each firing `late()` after the one before plus the period,
/// and a share `off` of the intervals off by `off_range` more (a tab in the background, a
/// collection).
fn timeout_chain(
    rng: &mut SplitMix64,
    n: usize,
    period: f64,
    late: &dyn Fn(&mut SplitMix64) -> f64,
    off: f64,
    off_range: (f64, f64),
) -> Vec<f64> {
    let mut t = 1_234.567_891 + rng.unit() * 1000.0;
    let mut fires = vec![t];
    for _ in 0..n {
        let mut d = period + late(rng);
        if rng.unit() < off {
            d += off_range.0 + rng.unit() * (off_range.1 - off_range.0);
        }
        t += d.max(0.001);
        fires.push(t);
    }
    fires
}

/// Frames of a `period`-ms display: each frame's time is its vsync, a few dropped.
fn frames(rng: &mut SplitMix64, n: usize, period: f64) -> Vec<f64> {
    let start = 5000.0 + rng.unit() * 1000.0;
    let mut k = 0u64;
    (0..=n)
        .map(|_| {
            k += if rng.unit() < 0.02 { 2 } else { 1 };
            start + k as f64 * period + normal(rng, 0.0, 0.002)
        })
        .collect()
}

fn analyse(text: &str) -> SeriesAnalysis {
    let no_json = |_: &[u8]| -> Result<_, String> { Err("no JSON here".into()) };
    let mut a = examine(
        text.as_bytes(),
        None,
        "intervals.txt",
        Some(Unit::Ms),
        &no_json,
        None,
    )
    .unwrap();
    assert_eq!(a.series.len(), 1);
    a.series.remove(0)
}

fn describe(a: &SeriesAnalysis) -> String {
    let e = a.estimate.as_ref().unwrap();
    let mut d: Vec<f64> = a.analysed().to_vec();
    d.sort_by(f64::total_cmp);
    d.dedup();
    format!(
        "{:?} tick {} ± {} ms, reliable {}, explains {:.4} (chance {:.4}), {:?}; quantum {:?}, {} distinct: {:?}",
        e.method, e.tick, e.uncertainty, e.reliable, e.share_explained, e.chance, e.caveats, e.quantum, d.len(), &d[..d.len().min(12)]
    )
}

/// The clock's tick, found and called reliable, to within its uncertainty.
fn tick_is(a: &SeriesAnalysis, want_ms: f64) {
    eprintln!("{}", describe(a));
    let e = a.estimate.as_ref().unwrap();
    assert!(
        e.found()
            && e.reliable
            && (e.tick - want_ms).abs() <= 1e-6 * want_ms + 3.0 * e.uncertainty
            && e.uncertainty <= 0.02 * want_ms,
        "want {want_ms} ms: {}",
        describe(a)
    );
}

/// The clock's tick, or no tick with the ambiguity named among ticks that include it:
/// never a wrong tick called reliable.
fn tick_or_ambiguous(a: &SeriesAnalysis, want_ms: f64) {
    let e = a.estimate.as_ref().unwrap();
    if e.method != Method::Ambiguous {
        return tick_is(a, want_ms);
    }
    eprintln!("{}", describe(a));
    let named = e.caveats.iter().any(|c| match c {
        Caveat::Ambiguous { ticks } => ticks.iter().any(|t| (t - want_ms).abs() < 1e-6 * want_ms),
        _ => false,
    });
    assert!(
        !e.reliable && !e.found() && named,
        "want {want_ms} ms: {}",
        describe(a)
    );
    assert!(a.rule_of_100().is_none());
}

#[test]
fn a_100_ms_timeout_read_on_20_us_is_20_us_not_20_ms() {
    // performance.now in an isolated Firefox or Safari: 20 µs. Firings late by N(0.1, 0.15)
    // ms, 1% off by −60 to +140 ms.
    let mut rng = SplitMix64::new(45_020);
    let fires = timeout_chain(
        &mut rng,
        1000,
        100.0,
        &|r| normal(r, 0.1, 0.15),
        0.01,
        (-60.0, 140.0),
    );
    let text = intervals_text(Clock::Clamp(0.02), &fires);
    assert!(
        text.lines().any(|l| l.len() > 12),
        "doubles' noise is printed"
    );
    let a = analyse(&text);
    assert_eq!(a.recognised.unwrap().kind, Kind::Durations);
    tick_is(&a, 0.02);
}

#[test]
fn a_100_ms_timeout_read_on_1_ms_is_1_ms_or_ambiguous() {
    // Firefox not isolated: 1 ms. Firings late by |N(0.2, 0.4)| ms: 100.0 and 101.0.
    let mut rng = SplitMix64::new(45_001);
    let fires = timeout_chain(
        &mut rng,
        1000,
        100.0,
        &|r| normal(r, 0.2, 0.4).abs(),
        0.0,
        (0.0, 0.0),
    );
    let a = analyse(&intervals_text(Clock::Clamp(1.0), &fires));
    tick_or_ambiguous(&a, 1.0);
}

#[test]
fn a_100_ms_timeout_on_100_us_5_us_and_jittered_100_us() {
    for (seed, clock, tick) in [
        (1, Clock::Clamp(0.1), 0.1),
        (2, Clock::Clamp(0.005), 0.005),
        (3, Clock::Jittered(0.1), 0.1),
    ] {
        let mut rng = SplitMix64::new(45_100 + seed);
        let fires = timeout_chain(
            &mut rng,
            1000,
            100.0,
            &|r| normal(r, 0.1, 0.15),
            0.01,
            (-60.0, 140.0),
        );
        tick_is(&analyse(&intervals_text(clock, &fires)), tick);
    }
}

#[test]
fn a_10_ms_interval_and_a_1_s_timer_on_1_ms() {
    for (seed, period) in [(10, 10.0), (1000, 1000.0)] {
        let mut rng = SplitMix64::new(45_200 + seed);
        let fires = timeout_chain(
            &mut rng,
            1000,
            period,
            &|r| normal(r, 0.3, 0.4).abs(),
            0.01,
            (0.0, 20.0),
        );
        tick_or_ambiguous(&analyse(&intervals_text(Clock::Clamp(1.0), &fires)), 1.0);
    }
}

#[test]
fn frames_at_60_hz_on_1_ms_100_us_jittered_and_20_us() {
    for (seed, clock, tick) in [
        (1, Clock::Clamp(1.0), 1.0),
        (2, Clock::Jittered(0.1), 0.1),
        (3, Clock::Clamp(0.02), 0.02),
    ] {
        let mut rng = SplitMix64::new(45_300 + seed);
        let f = frames(&mut rng, 1000, 1000.0 / 60.0);
        tick_or_ambiguous(&analyse(&intervals_text(clock, &f)), tick);
    }
}

/// Readings printed with more digits than their doubles hold: `(performance.timeOrigin +
/// performance.now()).toFixed(4)` under a 5 µs clamp. Near 1.7e12 ms doubles are 244 ns
/// apart, so the fourth decimal is noise: the tick is 5 µs, known to 244 ns.
#[test]
fn epoch_readings_printed_past_their_doubles_are_known_to_the_spacing() {
    let mut rng = SplitMix64::new(45_400);
    let origin = 1_732_550_000_000.0 + 123.456;
    let mut t = 1.234;
    let text: String = (0..2000)
        .map(|_| {
            t += 0.05 + rng.unit() * 2.95;
            let now = (t / 0.005).floor() * 0.005;
            format!("{:.4}\n", origin + now)
        })
        .collect();
    assert!(text.starts_with("17325500001"), "{}", &text[..40]);
    let a = analyse(&text);
    assert!(a.is_readings());
    let storage = a.readings.as_ref().unwrap().storage;
    assert_eq!(storage, Some(2f64.powi(-12)), "{}", describe(&a));
    tick_is(&a, 0.005);
}

#[test]
fn one_column_with_a_header_is_a_csv() {
    let mut rng = SplitMix64::new(45_500);
    let fires = timeout_chain(
        &mut rng,
        300,
        16.0,
        &|r| normal(r, 0.2, 0.1).abs(),
        0.0,
        (0.0, 0.0),
    );
    let text = format!("interval\n{}", intervals_text(Clock::Clamp(0.1), &fires));
    let a = analyse(&text);
    assert_eq!(a.series.name, "interval");
    assert_eq!(a.series.values.len(), 300);
    tick_is(&a, 0.1);
}
