//! Clocks as the experiments see them: raw integer counts plus what is known about them.
//!
//! A platform turns each of its clocks into a [`Clock`]; the experiments know nothing else.
//! Counts are never converted to seconds until a result is reported, so a tick of 125/3 ns
//! or a counter that wraps at 10 bits is handled exactly.

use serde::{Deserialize, Serialize};
use std::fmt;

pub use crate::error::ClockFault;
use crate::error::{invalid, Error, Result};

/// An exact positive rational, used for the length of one count in nanoseconds
/// (125/3 ns for a 24 MHz counter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Ratio {
    /// Numerator.
    pub num: u64,
    /// Denominator, never zero.
    pub den: u64,
}

impl Ratio {
    /// `num/den` reduced to lowest terms; both must be non-zero.
    pub fn new(num: u64, den: u64) -> Result<Self> {
        if num == 0 || den == 0 {
            return Err(invalid(
                "ratio",
                format!("{num}/{den}: both parts must be positive"),
            ));
        }
        let g = gcd(num, den);
        Ok(Self {
            num: num / g,
            den: den / g,
        })
    }

    /// A whole number.
    pub fn integer(n: u64) -> Result<Self> {
        Self::new(n, 1)
    }

    /// The value as a float.
    pub fn as_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

/// Greatest common divisor (Euclid); `gcd(0, x) == x`.
pub fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// How long one count lasts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CountPeriod {
    /// Known exactly: nanoseconds per count (1 for clock_gettime, 125/3 for a 24 MHz counter).
    Exact {
        /// Nanoseconds per count.
        ns: Ratio,
    },
    /// Measured against another clock (a TSC against CLOCK_MONOTONIC_RAW).
    Calibrated {
        /// Nanoseconds per count.
        ns: f64,
        /// The reference clock it was measured against.
        against: String,
    },
    /// Not known: results stay in counts.
    Unknown,
}

impl CountPeriod {
    /// One count is one nanosecond.
    pub const NANOSECOND: CountPeriod = CountPeriod::Exact {
        ns: Ratio { num: 1, den: 1 },
    };

    /// Nanoseconds per count, when known.
    pub fn ns_per_count(&self) -> Option<f64> {
        match self {
            CountPeriod::Exact { ns } => Some(ns.as_f64()),
            CountPeriod::Calibrated { ns, .. } if ns.is_finite() && *ns > 0.0 => Some(*ns),
            _ => None,
        }
    }
}

/// What sort of time a clock keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockKind {
    /// Time of day; may be stepped by NTP or the user.
    Wall,
    /// Elapsed time that never goes backwards.
    Monotonic,
    /// CPU time of the process.
    ProcessCpu,
    /// CPU time of the thread.
    ThreadCpu,
    /// A hardware counter (rdtsc, cntvct_el0).
    Counter,
    /// A clock simulated by this crate, possibly over a real one.
    Synthetic,
}

/// A resolution the platform claims for a clock, and who claims it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// The claimed resolution in nanoseconds.
    pub ns: f64,
    /// Where the claim comes from ("clock_getres", "documented clamp, Chromium, not isolated").
    pub source: String,
    /// Whether the claim is a floor, not a resolution: the interval is at least this long
    /// (HTML's 4 ms for nested timeouts), so a longer one keeps the promise.
    #[serde(default, skip_serializing_if = "is_false")]
    pub minimum: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Everything known about a clock before measuring it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockInfo {
    /// Short name, unique within a report ("CLOCK_MONOTONIC", "performance.now").
    pub name: String,
    /// One line saying what it is.
    pub description: String,
    /// What sort of time it keeps.
    pub kind: ClockKind,
    /// Length of one count.
    pub period: CountPeriod,
    /// Width of the counter: differences are taken modulo 2^bits (1..=64).
    pub bits: u32,
    /// The resolution the platform claims, if it claims one.
    pub claimed: Option<Claim>,
    /// Whether the platform promises it never goes backwards.
    pub monotonic: bool,
    /// How the platform's raw values become counts, where that is not the identity.
    pub mapping: Option<String>,
    /// How far apart readings can be, in counts, when more than one count (a float clock's
    /// spacing: epoch milliseconds as doubles are 244 ns apart): no tick finer than this
    /// can be seen.
    #[serde(default)]
    pub quantum: Option<f64>,
    /// The clock this one reads underneath (a clamp over Instant): no read of it can cost
    /// less than a read of that one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub built_on: Option<String>,
}

impl ClockInfo {
    /// A 64-bit monotonic clock with no claim; adjust with the `with_*` methods.
    pub fn new(name: impl Into<String>, kind: ClockKind, period: CountPeriod) -> Self {
        Self {
            name: name.into(),
            description: String::new(),
            kind,
            period,
            bits: 64,
            claimed: None,
            monotonic: kind != ClockKind::Wall,
            mapping: None,
            quantum: None,
            built_on: None,
        }
    }

    /// Sets the description.
    pub fn with_description(mut self, d: impl Into<String>) -> Self {
        self.description = d.into();
        self
    }

    /// Sets the counter width; `bits` must be in 1..=64.
    pub fn with_bits(mut self, bits: u32) -> Result<Self> {
        if !(1..=64).contains(&bits) {
            return Err(invalid(
                "counter width",
                format!("{bits} bits; expected 1 to 64"),
            ));
        }
        self.bits = bits;
        Ok(self)
    }

    /// Sets the claimed resolution.
    pub fn with_claim(mut self, ns: f64, source: impl Into<String>) -> Self {
        self.claimed = (ns.is_finite() && ns > 0.0).then(|| Claim {
            ns,
            source: source.into(),
            minimum: false,
        });
        self
    }

    /// Sets a claimed floor: the clock's interval is at least `ns` long, as `source` says.
    pub fn with_minimum(mut self, ns: f64, source: impl Into<String>) -> Self {
        self = self.with_claim(ns, source);
        if let Some(c) = &mut self.claimed {
            c.minimum = true;
        }
        self
    }

    /// Marks the clock as one that may go backwards.
    pub fn non_monotonic(mut self) -> Self {
        self.monotonic = false;
        self
    }

    /// Sets the spacing of readings in counts, when coarser than one count.
    pub fn with_quantum(mut self, counts: f64) -> Self {
        self.quantum = (counts.is_finite() && counts > 1.0).then_some(counts);
        self
    }

    /// Names the clock this one reads underneath.
    pub fn with_base(mut self, base: impl Into<String>) -> Self {
        self.built_on = Some(base.into());
        self
    }

    /// Says how raw values become counts.
    pub fn with_mapping(mut self, m: impl Into<String>) -> Self {
        self.mapping = Some(m.into());
        self
    }

    /// The mask of the counter's bits.
    #[inline]
    pub fn mask(&self) -> u64 {
        if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    /// `later - earlier` modulo 2^bits: 3 − 1022 = 5 on a 10-bit counter.
    #[inline]
    pub fn diff(&self, earlier: u64, later: u64) -> u64 {
        later.wrapping_sub(earlier) & self.mask()
    }

    /// Whether a wrapped difference is more likely a step backwards than a step forwards:
    /// it covers more than half the counter's range.
    #[inline]
    pub fn looks_backwards(&self, d: u64) -> bool {
        d > self.mask() / 2
    }

    /// Converts counts to nanoseconds when the period is known.
    pub fn counts_to_ns(&self, counts: f64) -> Option<f64> {
        self.period.ns_per_count().map(|p| counts * p)
    }

    /// Converts nanoseconds to counts when the period is known.
    pub fn ns_to_counts(&self, ns: f64) -> Option<f64> {
        self.period.ns_per_count().map(|p| ns / p)
    }
}

/// A clock: raw integer counts, plus what is known about it.
///
/// `read` is the hot path and cannot fail; a clock that can return garbage (a float clock)
/// keeps the fault and hands it over through [`Clock::take_fault`], which the experiments
/// call between blocks.
pub trait Clock {
    /// What is known about the clock.
    fn info(&self) -> &ClockInfo;
    /// The current count.
    fn read(&mut self) -> u64;
    /// The count at the start of a timed run: a read, unless the clock times single shots
    /// better by starting them its own way (an interpolated clock waits for an edge).
    fn begin(&mut self) -> u64 {
        self.read()
    }
    /// The count at the end of a timed run that began with [`Clock::begin`].
    fn end(&mut self) -> u64 {
        self.read()
    }
    /// The first fault since the last call, if any.
    fn take_fault(&mut self) -> Option<ClockFault> {
        None
    }
    /// Makes `n` reads back to back from the clock's own side, with no crossing into this
    /// code per read (a page's JavaScript loop over performance.now), when the clock has
    /// such a side: what a caller there pays a read, beside what this code pays through
    /// the crossing. False, reading nothing, when it has none (every native clock).
    fn read_many(&mut self, n: u64) -> bool {
        let _ = n;
        false
    }
    /// The first fault since the last check, as the error every experiment returns for it:
    /// a reading that cannot be a time spoils the whole experiment.
    fn check_fault(&mut self) -> Result<()> {
        match self.take_fault() {
            None => Ok(()),
            Some(fault) => Err(Error::Fault {
                clock: self.info().name.clone(),
                fault,
            }),
        }
    }
}

impl<C: Clock + ?Sized> Clock for &mut C {
    fn info(&self) -> &ClockInfo {
        (**self).info()
    }
    #[inline]
    fn read(&mut self) -> u64 {
        (**self).read()
    }
    fn begin(&mut self) -> u64 {
        (**self).begin()
    }
    fn end(&mut self) -> u64 {
        (**self).end()
    }
    fn take_fault(&mut self) -> Option<ClockFault> {
        (**self).take_fault()
    }
    fn read_many(&mut self, n: u64) -> bool {
        (**self).read_many(n)
    }
}

impl<C: Clock + ?Sized> Clock for Box<C> {
    fn info(&self) -> &ClockInfo {
        (**self).info()
    }
    #[inline]
    fn read(&mut self) -> u64 {
        (**self).read()
    }
    fn begin(&mut self) -> u64 {
        (**self).begin()
    }
    fn end(&mut self) -> u64 {
        (**self).end()
    }
    fn take_fault(&mut self) -> Option<ClockFault> {
        (**self).take_fault()
    }
    fn read_many(&mut self, n: u64) -> bool {
        (**self).read_many(n)
    }
}

/// A source of float readings (performance.now in ms, a float-ms synthetic clock).
pub trait FloatSource {
    /// The current reading in the source's unit.
    fn read_f64(&mut self) -> f64;
}

impl<F: FnMut() -> f64> FloatSource for F {
    fn read_f64(&mut self) -> f64 {
        self()
    }
}

/// A float clock seen as integer counts: `count = round(value × counts_per_unit)`.
///
/// For milliseconds ([`FloatClock::milliseconds`]) one count is 1 ns. Rounding to the
/// nearest nanosecond removes float noise (a 0.1 ms step stored as 0.30000000004656613 ms
/// becomes exactly 300 000 counts) and keeps every tick that is a whole number of
/// nanoseconds exact while readings stay below 2^52 ns (about 52 days). A reading that is
/// NaN, infinite or negative is a [`ClockFault`]; the previous count is returned in its place.
pub struct FloatClock<S> {
    info: ClockInfo,
    source: S,
    counts_per_unit: f64,
    last: u64,
    fault: Option<ClockFault>,
}

impl<S: FloatSource> FloatClock<S> {
    /// A clock whose source gives milliseconds; counts are nanoseconds.
    pub fn milliseconds(name: impl Into<String>, kind: ClockKind, source: S) -> Self {
        let info = ClockInfo::new(name, kind, CountPeriod::NANOSECOND).with_mapping(
            "count = round(ms × 1e6): one count is 1 ns; exact for whole-ns ticks below 2^52 ns",
        );
        Self::with_scale(info, source, 1e6).unwrap_or_else(|_| unreachable!("1e6 is a valid scale"))
    }

    /// A clock with a chosen scale; `info.period` must describe one count.
    pub fn with_scale(info: ClockInfo, source: S, counts_per_unit: f64) -> Result<Self> {
        if !(counts_per_unit.is_finite() && counts_per_unit > 0.0) {
            return Err(invalid(
                "counts per unit",
                format!("{counts_per_unit}: must be finite and positive"),
            ));
        }
        Ok(Self {
            info,
            source,
            counts_per_unit,
            last: 0,
            fault: None,
        })
    }

    /// Replaces the description, claim and so on.
    pub fn info_mut(&mut self) -> &mut ClockInfo {
        &mut self.info
    }
}

impl<S: FloatSource> Clock for FloatClock<S> {
    fn info(&self) -> &ClockInfo {
        &self.info
    }

    #[inline]
    fn read(&mut self) -> u64 {
        let v = self.source.read_f64();
        if !(v.is_finite() && v >= 0.0) {
            self.fault.get_or_insert(ClockFault::NotATime { value: v });
            return self.last;
        }
        let c = (v * self.counts_per_unit).round();
        // 2^64 as f64; anything at or above it does not fit.
        if c >= 18_446_744_073_709_551_616.0 {
            self.fault.get_or_insert(ClockFault::Overflow { value: v });
            return self.last;
        }
        self.last = c as u64;
        self.last
    }

    fn take_fault(&mut self) -> Option<ClockFault> {
        self.fault.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_bit_counter_wraps_like_krutar() {
        let info = ClockInfo::new("c", ClockKind::Counter, CountPeriod::Unknown)
            .with_bits(10)
            .unwrap();
        assert_eq!(info.diff(1022, 3), 5);
        assert!(!info.looks_backwards(5));
        assert!(info.looks_backwards(info.diff(3, 1)));
    }

    #[test]
    fn width_out_of_range_is_refused() {
        let c = ClockInfo::new("c", ClockKind::Counter, CountPeriod::Unknown);
        assert!(c.clone().with_bits(0).is_err());
        assert!(c.with_bits(65).is_err());
    }

    #[test]
    fn ratio_reduces() {
        let r = Ratio::new(250, 6).unwrap();
        assert_eq!((r.num, r.den), (125, 3));
        assert!(Ratio::new(0, 3).is_err());
        assert_eq!(r.to_string(), "125/3");
    }

    #[test]
    fn float_clock_rounds_noise_away_and_reports_nan() {
        let mut values = vec![0.1, 0.30000000004656613, f64::NAN].into_iter();
        let mut c = FloatClock::milliseconds("f", ClockKind::Monotonic, move || {
            values.next().unwrap_or(0.0)
        });
        assert_eq!(c.read(), 100_000);
        assert_eq!(c.read(), 300_000);
        assert!(c.take_fault().is_none());
        assert_eq!(c.read(), 300_000);
        assert!(matches!(c.take_fault(), Some(ClockFault::NotATime { .. })));
    }
}
