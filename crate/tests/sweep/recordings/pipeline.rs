//! Recordings made the whole way a program makes one: a platform's clock, its readings
//! held as doubles at the magnitudes programs meet, the program's arithmetic, its print and
//! the layout. Like the rest of the generator, nothing here imports the lab.

use super::{
    draw_source, hash, lay_out, true_intervals, Clock, Layout, Print, Recording, Rng, Source,
};

/// How a program holds its readings before it does any arithmetic: as doubles of seconds
/// or milliseconds at some distance from their zero (a `perf_counter` of hours since
/// boot, a page's `performance.now`, the epoch), so the doubles' own spacing is part of
/// every value it prints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Held {
    /// Seconds, `since` seconds after the clock's zero.
    Seconds { since: f64 },
    /// Milliseconds, `since` ms after the clock's zero.
    Millis { since: f64 },
}

impl Held {
    /// Seconds per unit the readings are held in.
    fn unit_s(self) -> f64 {
        match self {
            Held::Seconds { .. } => 1.0,
            Held::Millis { .. } => 1e-3,
        }
    }

    fn since_s(self) -> f64 {
        match self {
            Held::Seconds { since } => since,
            Held::Millis { since } => since * 1e-3,
        }
    }
}

/// What the program computes from two readings and prints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arith {
    /// The difference, scaled to the printed unit (`(b - a) * 1e9`).
    Difference,
    /// The difference over a fixed count of runs timed together: the tick over that count.
    Mean { count: u32 },
    /// The difference over a count drawn anew for each value: no lattice at all.
    MeanVaried,
    /// The readings themselves, scaled to the printed unit: a series, not durations.
    Readings,
}

/// A clock of the platforms, in seconds: the tick and how its readings come about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Platform {
    /// A counter of `hz` read as `count / hz` in doubles (`QueryPerformanceCounter`,
    /// `mach_absolute_time` scaled, `CNTVCT_EL0`).
    Counter { hz: f64 },
    /// A counter of `hz` converted to whole nanoseconds by the kernel, then held as
    /// doubles (`clock_gettime` over an ACPI PM timer, `time.perf_counter_ns() / 1e9`).
    WholeNs { hz: f64 },
    /// Truncated to `step` seconds (gettimeofday's microsecond, a 15.625 ms timer).
    Step { step: f64 },
    /// A browser's jittered clamp of `step` seconds (Chromium's or Firefox's).
    Jittered { step: f64, chromium: bool },
}

impl Platform {
    pub fn tick_s(self) -> f64 {
        match self {
            Platform::Counter { hz } | Platform::WholeNs { hz } => 1.0 / hz,
            Platform::Step { step } | Platform::Jittered { step, .. } => step,
        }
    }

    /// The reading at `t` seconds after the clock's zero, held in the unit of `held`.
    fn read(self, t: f64, key: u64, held: Held) -> f64 {
        let per = held.unit_s();
        match self {
            Platform::Counter { hz } => (t * hz).floor() / hz / per,
            Platform::WholeNs { hz } => {
                let ns = ((t * hz).floor() * (1e9 / hz)).floor();
                ns * 1e-9 / per
            }
            Platform::Step { step } => (t / step).floor() * step / per,
            Platform::Jittered { step, chromium } => {
                let ms = t * 1e3;
                let clock = if chromium {
                    Clock::Chromium { step: step * 1e3 }
                } else {
                    Clock::Firefox { step: step * 1e3 }
                };
                clock.read(ms, key, 1.0) * 1e-3 / per
            }
        }
    }

    pub fn name(self) -> String {
        let t = self.tick_s() * 1e9;
        match self {
            Platform::Counter { hz } => format!("{:.3} MHz counter ({t:.3} ns)", hz / 1e6),
            Platform::WholeNs { hz } => {
                format!("{:.3} MHz counter in whole ns ({t:.3} ns)", hz / 1e6)
            }
            Platform::Step { .. } => format!("{t:.0} ns step"),
            Platform::Jittered { chromium: true, .. } => format!("Chromium's {t:.0} ns clamp"),
            Platform::Jittered { .. } => format!("Firefox's {t:.0} ns clamp"),
        }
    }
}

/// The clocks programs meet: the ACPI PM timer, a 24 MHz and a 19.2 MHz counter, an
/// HPET, a 10 MHz QPC, a TSC of 26 counts a tick, 1 ns, 1 µs, a 15.625 ms timer, and the
/// browsers' clamps.
pub const PLATFORMS: [Platform; 14] = [
    Platform::Counter { hz: 3_579_545.0 },
    Platform::WholeNs { hz: 3_579_545.0 },
    Platform::Counter { hz: 24e6 },
    Platform::WholeNs { hz: 24e6 },
    Platform::Counter { hz: 19.2e6 },
    Platform::Counter { hz: 14_318_180.0 },
    Platform::Counter { hz: 10e6 },
    Platform::WholeNs {
        hz: 2.596_1e9 / 26.0,
    },
    Platform::Step { step: 1e-9 },
    Platform::Step { step: 1e-6 },
    Platform::Step { step: 15.625e-3 },
    Platform::Jittered {
        step: 1e-4,
        chromium: true,
    },
    Platform::Jittered {
        step: 5e-6,
        chromium: true,
    },
    Platform::Jittered {
        step: 1e-3,
        chromium: false,
    },
];

/// A recording made the whole way a program makes one: what happened, the clock, the
/// doubles that held its readings, the program's arithmetic, its print and the layout.
#[derive(Clone, Debug)]
pub struct Pipeline {
    pub platform: Platform,
    pub held: Held,
    pub arith: Arith,
    /// The printed unit, in seconds (1e-9 for ns, 1e-3 for ms).
    pub out_s: f64,
    pub print: Print,
    pub layout: Layout,
    /// What is timed: timers and frames, or work timed many times.
    pub sources: Vec<Work>,
    pub values: usize,
}

/// What one column times.
#[derive(Clone, Copy, Debug)]
pub enum Work {
    /// Timers and frames, as [`Source`].
    Events(Source),
    /// A piece of work of `median_s` seconds timed again and again, its length spread by
    /// `spread` (a log-normal share), now and then interrupted.
    Loop { median_s: f64, spread: f64 },
}

/// Where a program's readings start: seconds since boot from minutes to weeks, a page's
/// milliseconds, the epoch in seconds and in milliseconds.
fn draw_held(rng: &mut Rng, platform: Platform) -> Held {
    let browser = matches!(platform, Platform::Jittered { .. });
    match rng.below(if browser { 2 } else { 4 }) {
        0 if browser => Held::Millis {
            since: rng.log_uniform(50.0, 1e7),
        },
        0 => Held::Seconds {
            since: rng.log_uniform(60.0, 1.2e6),
        },
        1 => {
            let page = rng.log_uniform(1e3, 1e9);
            Held::Millis {
                since: rng.pick(&[1.77e12, page]),
            }
        }
        2 => Held::Seconds { since: 1.77e9 },
        _ => Held::Seconds {
            since: rng.log_uniform(1e3, 1e5),
        },
    }
}

/// The plan of a recording made the whole way (for the seeds [`recording`] gives it).
pub fn pipeline_plan(seed: u64) -> Pipeline {
    let mut rng = Rng::new(hash(seed ^ 0x919e_11e5));
    let platform = rng.pick(&PLATFORMS);
    let held = draw_held(&mut rng, platform);
    let arith = match rng.below(10) {
        0..=5 => Arith::Difference,
        6 => Arith::Mean {
            count: rng.pick(&[10, 100, 1000]),
        },
        7 => Arith::MeanVaried,
        _ => Arith::Readings,
    };
    let out_s = rng.pick(&[1e-9, 1e-9, 1e-6, 1e-3, 1.0]);
    let print = match rng.below(4) {
        0 => Print::Shortest {
            python: rng.below(2) == 0,
        },
        1 => Print::Fixed {
            places: rng.below(10),
        },
        2 => Print::Rounded {
            places: rng.below(10),
        },
        _ => Print::Fixed { places: 0 },
    };
    let layout = rng.pick(&[Layout::Lines, Layout::Column, Layout::Columns]);
    let width = if layout == Layout::Columns {
        2 + rng.below(2)
    } else {
        1
    };
    let values = rng.log_uniform(30.0, 4000.0).round() as usize;
    let sources = (0..width)
        .map(|_| match rng.below(2) {
            0 => Work::Events(draw_source(&mut rng)),
            _ => Work::Loop {
                median_s: rng.log_uniform(2e-7, 2e-2),
                spread: rng.log_uniform(1e-3, 0.3),
            },
        })
        .collect();
    Pipeline {
        platform,
        held,
        arith,
        out_s,
        print,
        layout,
        sources,
        values,
    }
}

/// True lengths in seconds of `n` runs of `work`.
fn lengths(rng: &mut Rng, work: &Work, n: usize) -> Vec<f64> {
    match work {
        Work::Events(s) => true_intervals(rng, s, n)
            .into_iter()
            .map(|ms| ms * 1e-3)
            .collect(),
        Work::Loop { median_s, spread } => (0..n)
            .map(|_| {
                let d = median_s * rng.normal(*spread).exp();
                // Now and then the run is interrupted: a few hundred µs more.
                if rng.unit() < 0.01 {
                    d + rng.log_uniform(1e-5, 1e-3)
                } else {
                    d
                }
            })
            .collect(),
    }
}

/// What a pipeline recording's values are in truth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Truth {
    /// A tick of this many printed units.
    Tick(f64),
    /// No lattice at all (means over varied counts).
    None,
}

/// The recording of a pipeline, its values drawn from `seed`.
pub fn make_pipeline(seed: u64, p: &Pipeline) -> (Recording, Truth) {
    let mut rng = Rng::new(hash(seed ^ 0x7ec1_ab01));
    let key = rng.next_u64();
    let scale = p.held.unit_s() / p.out_s;
    let mut columns = Vec::new();
    let mut counts_varied = false;
    for w in &p.sources {
        let d = lengths(&mut rng, w, p.values);
        let mut t = p.held.since_s() * (1.0 + 0.01 * rng.unit());
        let mut col = Vec::with_capacity(p.values);
        for di in d {
            let a = p.platform.read(t, key, p.held);
            match p.arith {
                Arith::Readings => {
                    col.push(a * scale);
                    t += di;
                }
                Arith::Difference => {
                    t += di;
                    col.push((p.platform.read(t, key, p.held) - a) * scale);
                }
                Arith::Mean { count } => {
                    t += di * f64::from(count);
                    col.push((p.platform.read(t, key, p.held) - a) * scale / f64::from(count));
                }
                Arith::MeanVaried => {
                    counts_varied = true;
                    let count = 3 + rng.below(998) as u32;
                    t += di * f64::from(count);
                    col.push((p.platform.read(t, key, p.held) - a) * scale / f64::from(count));
                }
            }
            // The runs are some time apart.
            t += rng.unit() * 1e-3;
        }
        columns.push(col);
    }
    let unit = if p.out_s == 1e-9 {
        "ns"
    } else if p.out_s == 1e-6 {
        "us"
    } else if p.out_s == 1e-3 {
        "ms"
    } else {
        "s"
    };
    let text = lay_out(p.layout, p.print, &columns, unit);
    let read: Vec<Vec<f64>> = columns
        .iter()
        .map(|c| {
            c.iter()
                .map(|&x| p.print.text(x).parse().unwrap())
                .collect()
        })
        .collect();
    let tick = p.platform.tick_s() / p.out_s;
    let truth = match p.arith {
        Arith::MeanVaried if counts_varied => Truth::None,
        Arith::Mean { count } => Truth::Tick(tick / f64::from(count)),
        _ => Truth::Tick(tick),
    };
    let r = Recording {
        seed,
        text,
        unit,
        clock: Clock::Exact {
            step: match truth {
                Truth::Tick(t) => t,
                Truth::None => tick,
            },
        },
        print: p.print,
        layout: p.layout,
        sources: Vec::new(),
        columns: read,
    };
    (r, truth)
}

/// The spacing of doubles near `x`.
pub fn spacing(x: f64) -> f64 {
    let x = x.abs();
    f64::from_bits(x.to_bits() + 1) - x
}

impl Pipeline {
    /// Whether the doubles holding the readings are coarser than the tick, in the printed
    /// unit: the values can show no finer than their storage.
    pub fn storage_hides(&self) -> bool {
        let top = self.held.since_s() * 1.02 / self.held.unit_s();
        spacing(top) * self.held.unit_s() > 0.98 * self.platform.tick_s()
    }

    pub fn describe(&self) -> String {
        let work: Vec<String> = self
            .sources
            .iter()
            .map(|w| match w {
                Work::Events(s) => format!(
                    "{:?} {} ms, jitter {:.2} %, outliers {:.1} %",
                    s.events,
                    s.period_ms,
                    s.jitter * 100.0,
                    s.outliers * 100.0
                ),
                Work::Loop { median_s, spread } => {
                    format!(
                        "work of {:.3} µs spread {:.1} %",
                        median_s * 1e6,
                        spread * 100.0
                    )
                }
            })
            .collect();
        format!(
            "{}, held as {:?}, {:?}, printed in {} s units {:?} as {:?}, {} values: {}",
            self.platform.name(),
            self.held,
            self.arith,
            self.out_s,
            self.print,
            self.layout,
            self.values,
            work.join("; ")
        )
    }
}
