//! Synthetic clocks: deterministic, seeded clocks with known answers, for tests and for
//! showing a class what coarsening does.
//!
//! Each synthetic clock reads "true time" from a [`TimeSource`]: either a simulated
//! [`Timeline`] ([`SimTime`], where every read costs simulated time) or a real clock
//! ([`ClockTime`]), so a 100 µs clamp can sit over a fine clock and time the same workload.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::clock::{Clock, ClockInfo, ClockKind, CountPeriod, FloatClock, FloatSource, Ratio};
use crate::error::{invalid, Result};
use crate::rng::{mix, SplitMix64};

/// True time in picoseconds, as seen by a synthetic clock.
pub trait TimeSource {
    /// Picoseconds since an arbitrary origin; never decreases.
    fn now_ps(&mut self) -> u64;
}

/// Simulated time shared by simulated clocks, workloads and the stopwatch of a test.
#[derive(Clone, Debug, Default)]
pub struct Timeline(Arc<AtomicU64>);

impl Timeline {
    /// A timeline at `start_ps`.
    pub fn new(start_ps: u64) -> Self {
        Self(Arc::new(AtomicU64::new(start_ps)))
    }
    /// The current simulated time.
    pub fn now_ps(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
    /// Moves simulated time on.
    pub fn advance(&self, ps: u64) {
        self.0.fetch_add(ps, Ordering::Relaxed);
    }
    /// A stopwatch on this timeline, in seconds, for experiment budgets.
    pub fn stopwatch(&self) -> impl FnMut() -> f64 + 'static {
        let t = self.clone();
        move || t.now_ps() as f64 * 1e-12
    }
}

/// Simulated reads: each read returns the timeline's time and then costs
/// `read_cost_ps` plus up to `jitter_ps` of seeded jitter, and now and then a hiccup
/// (an interrupt) of `hiccup_ps`.
#[derive(Clone, Debug)]
pub struct SimTime {
    timeline: Timeline,
    read_cost_ps: u64,
    jitter_ps: u64,
    hiccup_per_million: u64,
    hiccup_ps: u64,
    starve: Option<Starve>,
    rng: SplitMix64,
}

/// A reader put to sleep at the moments a clock updates, as a scheduler whose tick is the
/// clock's (CONFIG_HZ) hands a shared core to another task.
#[derive(Clone, Debug)]
struct Starve {
    every_ps: u64,
    per_million: u64,
    most: u64,
    last: u64,
    /// Sleeps replayed in order, one at each update, instead of drawn at random, and how
    /// many were replayed.
    schedule: Option<(Vec<u64>, usize)>,
}

impl SimTime {
    /// Reads that cost `read_cost_ps` each, plus up to `jitter_ps`.
    pub fn new(timeline: &Timeline, read_cost_ps: u64, jitter_ps: u64, seed: u64) -> Self {
        Self {
            timeline: timeline.clone(),
            read_cost_ps,
            jitter_ps,
            hiccup_per_million: 0,
            hiccup_ps: 0,
            starve: None,
            rng: SplitMix64::new(seed),
        }
    }

    /// Starves the reader: at the first read past each multiple of `every_ps`, with a chance
    /// of `per_million` in a million, it sleeps 1 to `most` whole periods (at random) before
    /// the read returns. With `every_ps` a coarse clock's tick and every crossing starved
    /// for one period, the reader sees every other update only: steps of two ticks.
    pub fn with_starvation(mut self, every_ps: u64, per_million: u64, most: u64) -> Self {
        self.starve = Some(Starve {
            every_ps: every_ps.max(1),
            per_million,
            most: most.max(1),
            last: self.timeline.now_ps() / every_ps.max(1),
            schedule: None,
        });
        self
    }

    /// Starves the reader as a recording shows: at the first read past each multiple of
    /// `every_ps` it sleeps the next of `periods` whole periods (0 for none), until they
    /// run out. A recording's edges of m ticks are sleeps of m − 1 at the updates.
    pub fn with_recorded_sleeps(self, every_ps: u64, periods: &[u64]) -> Self {
        let mut s = self.with_starvation(every_ps, 0, 1);
        if let Some(st) = &mut s.starve {
            st.schedule = Some((periods.to_vec(), 0));
        }
        s
    }

    /// Adds interrupts: `per_million` reads in a million are followed by `ps` of lost time.
    pub fn with_hiccups(mut self, per_million: u64, ps: u64) -> Self {
        self.hiccup_per_million = per_million;
        self.hiccup_ps = ps;
        self
    }
}

impl TimeSource for SimTime {
    fn now_ps(&mut self) -> u64 {
        let mut t = self.timeline.now_ps();
        if let Some(s) = &mut self.starve {
            let k = t / s.every_ps;
            if k > s.last {
                if let Some((q, at)) = s.schedule.as_mut() {
                    let next = q.get(*at).copied().unwrap_or(0);
                    *at += 1;
                    self.timeline.advance(next * s.every_ps);
                    t = self.timeline.now_ps();
                } else if self.rng.below(1_000_000) < s.per_million {
                    let j = 1 + self.rng.below(s.most);
                    self.timeline.advance(j * s.every_ps);
                    t = self.timeline.now_ps();
                }
                s.last = t / s.every_ps;
            }
        }
        let mut cost = self.read_cost_ps + self.rng.below(self.jitter_ps + 1);
        if self.hiccup_per_million > 0 && self.rng.below(1_000_000) < self.hiccup_per_million {
            cost += self.hiccup_ps;
        }
        self.timeline.advance(cost);
        t
    }
}

/// A real clock as a time source: counts converted to picoseconds, wraps unwrapped.
pub struct ClockTime<C> {
    clock: C,
    last: u64,
    acc: Acc,
}

/// Picoseconds so far and per count: whole for a whole-ns period (the common case, kept in
/// integers so a clamp over a fast clock adds little to its read), else floats.
#[derive(Clone, Copy)]
enum Acc {
    Whole { per: u64, ps: u64 },
    Float { per: f64, ps: f64 },
}

impl<C: Clock> ClockTime<C> {
    /// Fails when the clock's period is unknown.
    pub fn new(mut clock: C) -> Result<Self> {
        let ns = clock.info().period.ns_per_count().ok_or_else(|| {
            invalid(
                "base clock",
                format!(
                    "'{}' has no known period; a synthetic clock needs one",
                    clock.info().name
                ),
            )
        })?;
        let acc = match clock.info().period {
            CountPeriod::Exact { ns: r } if r.den == 1 && r.num <= u64::MAX / 1000 => Acc::Whole {
                per: r.num * 1000,
                ps: 0,
            },
            _ => Acc::Float {
                per: ns * 1000.0,
                ps: 0.0,
            },
        };
        let last = clock.read();
        Ok(Self { clock, last, acc })
    }
}

impl<C: Clock> TimeSource for ClockTime<C> {
    #[inline]
    fn now_ps(&mut self) -> u64 {
        let r = self.clock.read();
        let d = self.clock.info().diff(self.last, r);
        // A base clock that steps back must not make true time run backwards.
        if !self.clock.info().looks_backwards(d) {
            self.last = r;
            match &mut self.acc {
                Acc::Whole { per, ps } => *ps = ps.wrapping_add(d.wrapping_mul(*per)),
                Acc::Float { per, ps } => *ps += d as f64 * *per,
            }
        }
        match self.acc {
            Acc::Whole { ps, .. } => ps,
            Acc::Float { ps, .. } => ps as u64,
        }
    }
}

fn ns_info(name: String, description: String) -> ClockInfo {
    ClockInfo::new(name, ClockKind::Synthetic, CountPeriod::NANOSECOND)
        .with_description(description)
}

/// An ideal counter: advances by `step` counts every `step` periods of `period` ns, and wraps
/// at `bits` bits. Its tick is `step` counts.
pub struct Counter<S> {
    src: S,
    info: ClockInfo,
    period: Ratio,
    step: u64,
}

impl<S: TimeSource> Counter<S> {
    /// A counter of `period` ns per count advancing `step` counts at a time, `bits` wide.
    pub fn new(src: S, period: Ratio, step: u64, bits: u32) -> Result<Self> {
        if step == 0 {
            return Err(invalid("step", "0: a counter must advance"));
        }
        let info = ClockInfo::new(
            format!("counter {period} ns x{step}, {bits} bits"),
            ClockKind::Synthetic,
            CountPeriod::Exact { ns: period },
        )
        .with_description("ideal counter: exact, wraps at its width")
        .with_bits(bits)?
        .with_claim(period.as_f64() * step as f64, "synthetic: its construction");
        Ok(Self {
            src,
            info,
            period,
            step,
        })
    }
}

impl<S: TimeSource> Clock for Counter<S> {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    fn read(&mut self) -> u64 {
        let ps = self.src.now_ps() as u128;
        let counts = ps * self.period.den as u128 / (self.period.num as u128 * 1000);
        let stepped = counts / self.step as u128 * self.step as u128;
        (stepped as u64) & self.info.mask()
    }
}

/// Which browser's clamp a [`Clamp`] imitates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClampStyle {
    /// Chromium: floor to the resolution, then step up past a per-interval keyed threshold.
    Chromium,
    /// Firefox with jitter: the same shape with its own per-interval midpoint.
    FirefoxJitter,
    /// Firefox without jitter (privacy.resistFingerprinting off): plain floor.
    Firefox,
}

/// A browser-style clamp to `resolution_ns` over a time source; outputs are always
/// multiples of the resolution, in ns.
pub struct Clamp<S> {
    src: S,
    info: ClockInfo,
    res: u64,
    key: u64,
    style: ClampStyle,
    // The interval [lo, hi) of the last read and the value of reads at or past `step`: reads
    // come far faster than the resolution, so most need no division (which would cost a
    // fast clock a third of its read). Starts empty (lo > hi).
    lo: u64,
    hi: u64,
    step: u64,
}

impl<S: TimeSource> Clamp<S> {
    /// A clamp of `resolution_ns` (≥ 1) in the given style, keyed by `seed`.
    pub fn new(src: S, style: ClampStyle, resolution_ns: u64, seed: u64) -> Result<Self> {
        if resolution_ns == 0 {
            return Err(invalid("resolution", "0 ns: a clamp needs at least 1 ns"));
        }
        let what = match style {
            ClampStyle::Chromium => "Chromium-style jittered clamp",
            ClampStyle::FirefoxJitter => "Firefox-style jittered clamp",
            ClampStyle::Firefox => "Firefox-style clamp",
        };
        let info = ns_info(
            format!("{what} {}", fmt_ns(resolution_ns)),
            format!("{what} to {}", fmt_ns(resolution_ns)),
        )
        .with_claim(resolution_ns as f64, "synthetic: its clamp");
        Ok(Self {
            src,
            info,
            res: resolution_ns,
            key: mix(seed ^ style as u64),
            style,
            lo: 1,
            hi: 0,
            step: 0,
        })
    }

    /// Moves the cached interval to the one holding `t`.
    #[cold]
    fn enter(&mut self, t: u64) {
        let k = t / self.res;
        self.lo = k * self.res;
        self.hi = self.lo.saturating_add(self.res);
        self.step = match self.style {
            ClampStyle::Firefox => u64::MAX,
            _ => self.lo + mix(self.key ^ k) % self.res,
        };
    }

    /// The clock's description and claim, to say what it sits over.
    pub fn info_mut(&mut self) -> &mut ClockInfo {
        &mut self.info
    }
}

/// Clamps `t_ns` to `res`, stepping up once past a keyed threshold within each interval.
#[inline]
pub fn jittered_clamp(t_ns: u64, res: u64, key: u64) -> u64 {
    let k = t_ns / res;
    let threshold = mix(key ^ k) % res;
    if t_ns % res >= threshold {
        (k + 1) * res
    } else {
        k * res
    }
}

impl<S: TimeSource> Clock for Clamp<S> {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    #[inline]
    fn read(&mut self) -> u64 {
        let t = self.src.now_ps() / 1000;
        if !(self.lo..self.hi).contains(&t) {
            self.enter(t);
        }
        // Same values as `jittered_clamp` (a test holds them equal).
        if t >= self.step {
            self.hi
        } else {
            self.lo
        }
    }
}

/// A coarse "jiffy" clock in ns: updated once per `tick_ns`, each update off by up to
/// `jitter_ns` (as CLOCK_MONOTONIC_COARSE is, by timekeeping adjustments).
pub struct Jiffy<S> {
    src: S,
    info: ClockInfo,
    tick: u64,
    jitter: u64,
    key: u64,
}

impl<S: TimeSource> Jiffy<S> {
    /// Ticks of `tick_ns` (≥ 1), jitter below a quarter of the tick.
    pub fn new(src: S, tick_ns: u64, jitter_ns: u64, seed: u64) -> Result<Self> {
        if tick_ns == 0 || jitter_ns > tick_ns / 4 {
            return Err(invalid(
                "jiffy",
                format!(
                    "tick {tick_ns} ns, jitter {jitter_ns} ns: need tick ≥ 1 and jitter ≤ tick/4"
                ),
            ));
        }
        let info = ns_info(
            format!("jiffy clock {}", fmt_ns(tick_ns)),
            format!("coarse clock updated every {}", fmt_ns(tick_ns)),
        )
        .with_claim(tick_ns as f64, "synthetic: its update period");
        Ok(Self {
            src,
            info,
            tick: tick_ns,
            jitter: jitter_ns,
            key: mix(seed),
        })
    }
}

impl<S: TimeSource> Clock for Jiffy<S> {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    fn read(&mut self) -> u64 {
        let k = self.src.now_ps() / 1000 / self.tick;
        let j = if self.jitter == 0 {
            0
        } else {
            mix(self.key ^ k) % (2 * self.jitter + 1)
        };
        // Offset by the jitter so the value never goes below zero.
        (k * self.tick + j).saturating_add(self.jitter)
    }
}

/// A clock that never changes: its reads cost time, its value stays.
pub struct Frozen<S> {
    src: S,
    info: ClockInfo,
    value: u64,
}

impl<S: TimeSource> Frozen<S> {
    /// Always returns `value`.
    pub fn new(src: S, value: u64) -> Self {
        let info = ns_info("frozen clock".into(), "never advances".into())
            .with_claim(1.0, "synthetic: a false claim");
        Self { src, info, value }
    }
}

impl<S: TimeSource> Clock for Frozen<S> {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    fn read(&mut self) -> u64 {
        self.src.now_ps();
        self.value
    }
}

/// A ns clock with tick `tick_ns` that is stepped back by `jump_ns` every `every_ns` of true
/// time, as a wall clock corrected by NTP is.
pub struct Backwards<S> {
    src: S,
    info: ClockInfo,
    tick: u64,
    jump: u64,
    every: u64,
}

impl<S: TimeSource> Backwards<S> {
    /// Needs `tick_ns ≥ 1`, `every_ns > jump_ns`.
    pub fn new(src: S, tick_ns: u64, jump_ns: u64, every_ns: u64) -> Result<Self> {
        if tick_ns == 0 || every_ns <= jump_ns {
            return Err(invalid(
                "backwards clock",
                "need tick ≥ 1 ns and a period longer than the jump",
            ));
        }
        let info = ns_info(
            format!("backwards-jumping clock {}", fmt_ns(tick_ns)),
            format!("steps back {} every {}", fmt_ns(jump_ns), fmt_ns(every_ns)),
        )
        .with_claim(tick_ns as f64, "synthetic: its tick")
        .non_monotonic();
        Ok(Self {
            src,
            info,
            tick: tick_ns,
            jump: jump_ns,
            every: every_ns,
        })
    }
}

impl<S: TimeSource> Clock for Backwards<S> {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    fn read(&mut self) -> u64 {
        let t = self.src.now_ps() / 1000;
        let stepped = t - self.jump * (t / self.every);
        stepped / self.tick * self.tick
    }
}

/// A float clock in milliseconds, like performance.now: clamped to `resolution_ns` and
/// offset by `origin_ms`, so the stored doubles carry rounding noise
/// (1234.5 − 1234.2 = 0.2999999999999545 ms).
pub struct FloatMs<S> {
    src: S,
    res: u64,
    origin_ms: f64,
}

impl<S: TimeSource> FloatMs<S> {
    /// A float-ms source; wrap it with [`FloatMs::into_clock`] to read counts.
    pub fn new(src: S, resolution_ns: u64, origin_ms: f64) -> Result<Self> {
        if resolution_ns == 0 || !(origin_ms.is_finite() && origin_ms >= 0.0) {
            return Err(invalid(
                "float clock",
                "need resolution ≥ 1 ns and a finite non-negative origin",
            ));
        }
        Ok(Self {
            src,
            res: resolution_ns,
            origin_ms,
        })
    }

    /// The clock seen through [`FloatClock::milliseconds`].
    pub fn into_clock(self) -> FloatClock<Self> {
        let res = self.res;
        let mut c = FloatClock::milliseconds(
            format!("float-ms clock {}", fmt_ns(res)),
            ClockKind::Synthetic,
            self,
        );
        let info = c.info_mut();
        info.description = "milliseconds as f64 with rounding noise".into();
        *info = info.clone().with_claim(res as f64, "synthetic: its clamp");
        c
    }
}

impl<S: TimeSource> FloatSource for FloatMs<S> {
    fn read_f64(&mut self) -> f64 {
        let t = self.src.now_ps() / 1000 / self.res * self.res;
        self.origin_ms + t as f64 / 1e6
    }
}

/// A counter of `period` ns reported in rounded nanoseconds, as a 24 MHz counter
/// (125/3 ns) shown through a ns API: every difference is 41 or 42, the tick is 41.67 ns.
pub struct RoundedNs<S> {
    src: S,
    info: ClockInfo,
    period: Ratio,
}

impl<S: TimeSource> RoundedNs<S> {
    /// Counts of `period` ns, reported rounded to the nearest ns.
    pub fn new(src: S, period: Ratio) -> Self {
        let info = ns_info(
            format!("{:.2} MHz counter in rounded ns", 1e3 / period.as_f64()),
            format!("counter of {period} ns per count, reported in rounded ns"),
        )
        .with_claim(period.as_f64(), "synthetic: its counter frequency");
        Self { src, info, period }
    }

    /// The 24 MHz counter of many ARM boards: 125/3 ns per count.
    pub fn mhz24(src: S) -> Self {
        Self::new(src, Ratio { num: 125, den: 3 })
    }
}

impl<S: TimeSource> Clock for RoundedNs<S> {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    fn read(&mut self) -> u64 {
        let ps = self.src.now_ps() as u128;
        let (num, den) = (self.period.num as u128, self.period.den as u128);
        let counts = ps * den / (num * 1000);
        // round(counts × num / den) in integers.
        ((2 * counts * num + den) / (2 * den)) as u64
    }
}

/// The fit benchmark's data: `n` points of the staircase of Krutar's "Tuning a Timer" (359 ns per unit seen
/// through a 500 ns tick) with up to two ticks of noise, x in runs of ten equal values,
/// shuffled or sorted by x. The same numbers natively and in wasm, so both time one task.
pub fn staircase_points(n: usize, shuffled: bool) -> (Vec<f64>, Vec<f64>) {
    let mut rng = SplitMix64::new(42);
    let mut x: Vec<f64> = (0..n).map(|i| (i / 10) as f64).collect();
    if shuffled {
        for i in (1..n).rev() {
            x.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }
    let y = x
        .iter()
        .map(|&a| 500.0 * ((40.0 + 0.359 * a) / 500.0).floor() + 500.0 * rng.below(3) as f64)
        .collect();
    (x, y)
}

/// "100 µs", "4 ms", "41 ns": a short label for names.
fn fmt_ns(ns: u64) -> String {
    if ns >= 1_000_000 && ns % 1_000_000 == 0 {
        format!("{} ms", ns / 1_000_000)
    } else if ns >= 1000 && ns % 1000 == 0 {
        format!("{} µs", ns / 1000)
    } else {
        format!("{ns} ns")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(cost_ps: u64) -> (Timeline, SimTime) {
        let tl = Timeline::new(0);
        let s = SimTime::new(&tl, cost_ps, 0, 1);
        (tl, s)
    }

    #[test]
    fn chromium_clamp_outputs_multiples_and_never_decreases() {
        let (_, s) = sim(7_000_000);
        let mut c = Clamp::new(s, ClampStyle::Chromium, 100_000, 9).unwrap();
        let mut prev = 0;
        for _ in 0..10_000 {
            let r = c.read();
            assert_eq!(r % 100_000, 0);
            assert!(r >= prev);
            prev = r;
        }
    }

    /// Times handed out in a given order, to drive a clamp anywhere.
    struct Script(std::vec::IntoIter<u64>);
    impl TimeSource for Script {
        fn now_ps(&mut self) -> u64 {
            self.0.next().unwrap_or(0)
        }
    }

    proptest::proptest! {
        // The cached interval must give exactly what the division does, whatever the order
        // of reads (a base clock may step back) and wherever they fall.
        #[test]
        fn cached_clamp_matches_the_division(
            ts in proptest::collection::vec(0u64..u64::MAX / 1000, 1..200),
            near in proptest::collection::vec(0u64..300_000, 1..200),
            res in 1u64..2_000_000,
            seed: u64,
        ) {
            for style in [ClampStyle::Chromium, ClampStyle::FirefoxJitter, ClampStyle::Firefox] {
                let base = ts[0];
                let all: Vec<u64> = ts.iter().copied()
                    .chain(near.iter().map(|d| base.saturating_add(*d)))
                    .collect();
                let mut c = Clamp::new(Script(
                    all.iter().map(|t| t * 1000).collect::<Vec<_>>().into_iter()),
                    style, res, seed).unwrap();
                for &t in &all {
                    let want = match style {
                        ClampStyle::Firefox => t / res * res,
                        _ => jittered_clamp(t, res, mix(seed ^ style as u64)),
                    };
                    proptest::prop_assert_eq!(c.read(), want, "t {} res {}", t, res);
                }
            }
        }
    }

    #[test]
    fn rounded_24mhz_steps_are_41_or_42() {
        let (_, s) = sim(1_000);
        let mut c = RoundedNs::mhz24(s);
        let mut prev = c.read();
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..10_000 {
            let r = c.read();
            if r != prev {
                seen.insert(r - prev);
            }
            prev = r;
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![41, 42]);
    }

    #[test]
    fn counter_wraps_at_width() {
        let (_, s) = sim(1_000_000);
        let mut c = Counter::new(s, Ratio::integer(1).unwrap(), 1, 10).unwrap();
        assert!((0..5000).map(|_| c.read()).all(|r| r < 1024));
    }

    #[test]
    fn clock_time_follows_a_base_clock() {
        let (_, s) = sim(1_000);
        let base = Counter::new(s, Ratio::integer(1).unwrap(), 1, 64).unwrap();
        let mut ct = ClockTime::new(base).unwrap();
        let a = ct.now_ps();
        let b = ct.now_ps();
        assert_eq!(b - a, 1_000);
    }
}
