//! Recordings of timers, frame loops and intervals as they come about, made apart from the
//! estimator: nothing here imports the lab, so what the sweep holds the estimator to is
//! not shaped by it. Each recording is drawn from a seed: events at true times, read by a
//! clock, differenced in doubles, printed as programs print, laid out as a file.

mod pipeline;
pub use pipeline::*;

/// SplitMix64, written again here so the recordings share no code with the lab.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        hash(self.0)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    pub fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len())]
    }

    /// A normal deviate (Box–Muller).
    pub fn normal(&mut self, sd: f64) -> f64 {
        let u1 = self.unit().max(1e-300);
        let u2 = self.unit();
        sd * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// Log-uniform in [lo, hi].
    pub fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp()
    }
}

/// The SplitMix64 finaliser: the keyed hash a browser draws its clamp's thresholds from.
pub fn hash(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What fires: a `setTimeout` chain (each firing waits the period after the last), a
/// `setInterval` (firings due at whole periods from the start, each a little late) or a
/// frame loop (vsyncs, a few frames dropped).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Events {
    Timeout,
    Interval,
    Frames,
}

/// How a clock turns true time into a reading, all in the recording's unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Clock {
    /// Truncated to a grid: `floor(t / step) · step`.
    Exact { step: f64 },
    /// Blink's time clamper: seconds truncated to the resolution, moved up a step once the
    /// time passes a threshold drawn for that step from a keyed hash, then in ms.
    Chromium { step: f64 },
    /// Gecko's reduced precision with jitter: whole microseconds truncated to the
    /// resolution, moved up a step past a midpoint drawn for that step, then in ms.
    Firefox { step: f64 },
    /// A counter whose step is no whole number of the unit it is printed in (26 counts of
    /// a 2.5961 GHz TSC, 10.015 ns): whole nanoseconds, `floor(k · step)`, or `k · step`
    /// as a double.
    Counter { step: f64, whole: bool },
}

impl Clock {
    /// The clock's tick, the truth the estimator is held to.
    pub fn tick(self) -> f64 {
        match self {
            Clock::Exact { step }
            | Clock::Chromium { step }
            | Clock::Firefox { step }
            | Clock::Counter { step, .. } => step,
        }
    }

    pub fn style(self) -> &'static str {
        match self {
            Clock::Exact { .. } => "exact",
            Clock::Chromium { .. } => "Chromium's jittered clamp",
            Clock::Firefox { .. } => "Firefox's jittered clamp",
            Clock::Counter { whole: true, .. } => "counter in whole ns",
            Clock::Counter { whole: false, .. } => "counter in ns",
        }
    }

    /// The reading at true time `t`, with `key` the browser's secret for its thresholds.
    fn read(self, t: f64, key: u64, ms_per_unit: f64) -> f64 {
        match self {
            Clock::Exact { step } => (t / step).floor() * step,
            Clock::Chromium { step } => {
                // Blink works in seconds: the clamp's float noise is part of what a page sees.
                let s = t * ms_per_unit / 1e3;
                let res = step * ms_per_unit / 1e3;
                let mut c = (s / res).floor() * res;
                let threshold = unit_of(hash(key ^ c.to_bits())) * res;
                if s - c >= threshold {
                    c += res;
                }
                c * 1e3 / ms_per_unit
            }
            Clock::Firefox { step } => {
                let us = (t * ms_per_unit * 1e3).floor() as i64;
                let res = (step * ms_per_unit * 1e3).round() as i64;
                let mut c = us.div_euclid(res) * res;
                let midpoint = (hash(key ^ c as u64) % res as u64) as i64;
                if us >= c + midpoint {
                    c += res;
                }
                c as f64 / 1e3 / ms_per_unit
            }
            Clock::Counter { step, whole } => {
                let r = (t / step).floor() * step;
                if whole {
                    r.floor()
                } else {
                    r
                }
            }
        }
    }
}

fn unit_of(bits: u64) -> f64 {
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// How a program prints a double.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Print {
    /// The shortest text that reads back (JavaScript's `String`, Python's `repr`):
    /// `100.05999999999995`, `101` or `101.0`.
    Shortest { python: bool },
    /// A fixed number of decimals (`toFixed`, `%.3f`): trailing zeros kept.
    Fixed { places: usize },
    /// Rounded to so many decimals and printed shortest (Python's `round(x, 3)`): trailing
    /// zeros dropped.
    Rounded { places: usize },
}

impl Print {
    pub fn text(self, x: f64) -> String {
        match self {
            Print::Shortest { python } => {
                let s = format!("{x}");
                if python && !s.contains('.') && !s.contains('e') {
                    s + ".0"
                } else {
                    s
                }
            }
            Print::Fixed { places } => format!("{x:.places$}"),
            Print::Rounded { places } => {
                let p = 10f64.powi(places as i32);
                format!("{}", (x * p).round() / p)
            }
        }
    }
}

/// How the values are laid out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Layout {
    Lines,
    /// One CSV column under a header.
    Column,
    /// Several CSV columns, one recording each, read by the same clock.
    Columns,
}

/// What happened, before any clock read it: the true intervals of one column.
#[derive(Clone, Copy, Debug)]
pub struct Source {
    pub events: Events,
    /// The period in ms.
    pub period_ms: f64,
    /// The standard deviation of a firing's lateness (or a frame's jitter), as a share of
    /// the period.
    pub jitter: f64,
    /// The share of intervals that are outliers: doubled, halved or anywhere.
    pub outliers: f64,
    /// How late every firing of a timeout is besides, in ms (a browser's timers fire a
    /// little after they are due, every time).
    pub delay_ms: f64,
}

/// One recording: the file's text, its unit, and the truth of each of its columns.
pub struct Recording {
    pub seed: u64,
    pub text: String,
    /// "ms" or "ns".
    pub unit: &'static str,
    pub clock: Clock,
    pub print: Print,
    pub layout: Layout,
    pub sources: Vec<Source>,
    /// The values of each column, as printed and read back.
    pub columns: Vec<Vec<f64>>,
}

impl Recording {
    /// The clock's tick in the values' unit.
    pub fn truth(&self) -> f64 {
        self.clock.tick()
    }

    /// Distinct multiples of the truth that a column's positive values lie at.
    pub fn levels(&self, column: usize) -> usize {
        let t = self.truth();
        let mut k: Vec<i64> = self.columns[column]
            .iter()
            .filter(|&&v| v > 0.0)
            .map(|&v| (v / t).round() as i64)
            .collect();
        k.sort_unstable();
        k.dedup();
        k.len()
    }

    /// Whether a column's values step by the tick inside a pile of nearby values (16.6,
    /// 16.7 and 16.8 ms of a 100 µs clock): values piled on one multiple of it each (100
    /// and 200 ms of a 100 ms clock) are what a finer clock reading events of that period
    /// gives too, and a pile on two neighbouring multiples (16 and 17 ms) what a coarser
    /// clock gives through the printing's rounding (a rounded reading moves by one step):
    /// no reader can tell them apart. A pile shows the tick when it holds three multiples
    /// or more whose differences have no common divisor (996, 1000 and 1004 ms of a 1 ms
    /// clock show 4 ms).
    pub fn steps_in_a_pile(&self, column: usize) -> bool {
        let t = self.truth();
        let mut v: Vec<f64> = self.columns[column]
            .iter()
            .copied()
            .filter(|&x| x > 0.0)
            .collect();
        v.sort_by(f64::total_cmp);
        fn gcd(a: i64, b: i64) -> i64 {
            if b == 0 {
                a
            } else {
                gcd(b, a % b)
            }
        }
        let mut last = f64::NAN;
        // The pile's multiples so far: how many, and their differences' divisor.
        let (mut first_k, mut last_k, mut count, mut divisor) = (0i64, 0i64, 0usize, 0i64);
        for x in v {
            let k = (x / t).round() as i64;
            // Within 5% of the value before: the same pile.
            if x <= last * 1.05 {
                if k != last_k {
                    count += 1;
                    divisor = gcd(divisor, k - first_k);
                    last_k = k;
                    if count >= 3 && divisor == 1 {
                        return true;
                    }
                }
            } else {
                (first_k, last_k, count, divisor) = (k, k, 1, 0);
            }
            last = x;
        }
        false
    }

    /// Whether the printing hides the tick: it is finer than the finest step the file's
    /// text shows (the most decimals any of its numbers has), so the best a reader can say
    /// is "at most" that step.
    pub fn hidden(&self) -> bool {
        let places = self
            .text
            .split([',', '\n'])
            .filter_map(|t| t.split_once('.').map(|(_, f)| f.len()))
            .max()
            .unwrap_or(0);
        self.truth() < 10f64.powi(-(places as i32)) * 0.98
    }

    pub fn describe(&self) -> String {
        let s: Vec<String> = self
            .sources
            .iter()
            .map(|s| {
                format!(
                    "{:?} {} ms (late {:.3} ms), jitter {:.2} %, outliers {:.1} %",
                    s.events,
                    s.period_ms,
                    s.delay_ms,
                    s.jitter * 100.0,
                    s.outliers * 100.0
                )
            })
            .collect();
        format!(
            "seed {}: {} {} {} printed {:?} as {:?}, {} values: {}",
            self.seed,
            self.clock.style(),
            self.truth(),
            self.unit,
            self.print,
            self.layout,
            self.columns[0].len(),
            s.join("; ")
        )
    }
}

/// The periods of timers and frame loops people record, in ms.
pub const PERIODS_MS: [f64; 7] = [1.0, 4.0, 10.0, 1000.0 / 60.0, 100.0 / 3.0, 100.0, 1000.0];

/// True intervals in ms of `n` firings of `s`.
fn true_intervals(rng: &mut Rng, s: &Source, n: usize) -> Vec<f64> {
    let p = s.period_ms;
    let sd = s.jitter * p;
    let late = |rng: &mut Rng| rng.normal(sd).abs();
    let mut out = Vec::with_capacity(n);
    let mut prev_late = late(rng);
    for _ in 0..n {
        let d = match s.events {
            Events::Timeout => p + s.delay_ms + late(rng),
            Events::Interval => {
                let l = late(rng);
                let d = p + l - prev_late;
                prev_late = l;
                d
            }
            Events::Frames => {
                // A dropped frame now and then, and the vsync's own small jitter.
                let frames = if rng.unit() < 0.01 { 2.0 } else { 1.0 };
                frames * p + rng.normal(sd)
            }
        };
        let d = if rng.unit() < s.outliers {
            match rng.below(3) {
                0 => 2.0 * d,
                1 => 0.5 * d,
                _ => p * rng.log_uniform(0.05, 5.0),
            }
        } else {
            d
        };
        out.push(d.max(p * 1e-3));
    }
    out
}

/// The clocks a recording is read by, in ms unless a counter's.
fn draw_clock(rng: &mut Rng) -> Clock {
    match rng.below(10) {
        0..=4 => {
            // Exact clocks from 1 ns to 100 ms, the usual steps and a few that are not.
            let step = rng.pick(&[
                1e-6, 1e-5, 1e-4, 1e-3, 5e-3, 0.01, 0.02, 0.1, 1.0, 4.0, 10.0, 15.625, 100.0,
            ]);
            Clock::Exact { step }
        }
        5 | 6 => Clock::Chromium {
            step: rng.pick(&[0.005, 0.1]),
        },
        7 | 8 => Clock::Firefox {
            step: rng.pick(&[0.02, 1.0, 100.0, 1000.0 / 60.0]),
        },
        _ => Clock::Counter {
            step: rng.pick(&[10.015, 41.666_666_666_666_664, 52.083_333_333_333_336]),
            whole: rng.below(2) == 0,
        },
    }
}

fn draw_print(rng: &mut Rng) -> Print {
    match rng.below(3) {
        0 => Print::Shortest {
            python: rng.below(2) == 0,
        },
        1 => Print::Fixed {
            places: 2 + rng.below(5),
        },
        _ => Print::Rounded {
            places: 2 + rng.below(5),
        },
    }
}

fn draw_source(rng: &mut Rng) -> Source {
    let events = rng.pick(&[Events::Timeout, Events::Interval, Events::Frames]);
    let period_ms = rng.pick(&PERIODS_MS);
    let jitter = match rng.below(5) {
        0 => 0.0,
        _ => rng.log_uniform(1e-4, 0.1),
    };
    let outliers = match rng.below(3) {
        0 => 0.0,
        _ => rng.unit() * 0.02,
    };
    let delay_ms = match (events, rng.below(2)) {
        (Events::Timeout, 0) => rng.log_uniform(0.01, 1.0),
        _ => 0.0,
    };
    Source {
        events,
        period_ms,
        jitter,
        outliers,
        delay_ms,
    }
}

/// What a recording is made of, before any value is drawn.
#[derive(Clone, Debug)]
pub struct Plan {
    pub clock: Clock,
    pub print: Print,
    pub layout: Layout,
    pub sources: Vec<Source>,
    pub values: usize,
}

/// The plan of seed `seed`: every choice drawn.
pub fn plan(seed: u64) -> Plan {
    let mut rng = Rng::new(hash(seed ^ 0x5eed_7ec1));
    let clock = draw_clock(&mut rng);
    // Whole nanoseconds are printed whole; a counter's doubles and milliseconds as
    // programs print doubles.
    let print = if matches!(clock, Clock::Counter { whole: true, .. }) {
        Print::Fixed { places: 0 }
    } else {
        draw_print(&mut rng)
    };
    let layout = rng.pick(&[Layout::Lines, Layout::Column, Layout::Columns]);
    let width = if layout == Layout::Columns {
        2 + rng.below(3)
    } else {
        1
    };
    let values = rng.log_uniform(30.0, 5000.0).round() as usize;
    let sources = (0..width).map(|_| draw_source(&mut rng)).collect();
    Plan {
        clock,
        print,
        layout,
        sources,
        values,
    }
}

/// The recording of seed `seed`.
pub fn recording(seed: u64) -> Recording {
    make(seed, plan(seed))
}

/// The recording of `plan`, its values drawn from `seed`.
pub fn make(seed: u64, plan: Plan) -> Recording {
    let mut rng = Rng::new(hash(seed ^ 0x7ec1_ab00));
    let Plan {
        clock,
        print,
        layout,
        sources,
        values: n,
    } = plan;
    let counter = matches!(clock, Clock::Counter { .. });
    let (unit, per_ms) = if counter { ("ns", 1e6) } else { ("ms", 1.0) };
    let key = rng.next_u64();
    // performance.now from some time after the page's start (up to three hours: its
    // doubles stay far finer than a nanosecond), or a counter's nanoseconds since boot or,
    // as doubles, since the program began (doubles of days of nanoseconds are a
    // thousandth of one apart: that grid, not the counter's, would be the file's).
    let origin = if matches!(clock, Clock::Counter { whole: true, .. }) {
        rng.log_uniform(1e9, 1e15).floor()
    } else if counter {
        rng.log_uniform(1e3, 5e8)
    } else {
        rng.log_uniform(50.0, 1e7)
    };
    let mut columns = Vec::new();
    for s in &sources {
        let d = true_intervals(&mut rng, s, n);
        let mut t = origin;
        let mut last = clock.read(t, key, 1.0 / per_ms);
        let mut col = Vec::with_capacity(n);
        for di in d {
            t += di * per_ms;
            let r = clock.read(t, key, 1.0 / per_ms);
            col.push(r - last);
            last = r;
        }
        columns.push(col);
    }
    let text = lay_out(layout, print, &columns, unit);
    let columns = columns
        .iter()
        .map(|c| c.iter().map(|&x| print.text(x).parse().unwrap()).collect())
        .collect();
    Recording {
        seed,
        text,
        unit,
        clock,
        print,
        layout,
        sources,
        columns,
    }
}

fn lay_out(layout: Layout, print: Print, columns: &[Vec<f64>], unit: &str) -> String {
    let mut text = String::new();
    match layout {
        Layout::Lines => {}
        Layout::Column => text.push_str(&format!("interval_{unit}\n")),
        Layout::Columns => {
            let names: Vec<String> = (0..columns.len()).map(|i| format!("timer{i}")).collect();
            text.push_str(&names.join(","));
            text.push('\n');
        }
    }
    for i in 0..columns[0].len() {
        let row: Vec<String> = columns.iter().map(|c| print.text(c[i])).collect();
        text.push_str(&row.join(","));
        text.push('\n');
    }
    text
}
