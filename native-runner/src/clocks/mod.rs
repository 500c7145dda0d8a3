//! This machine's clocks, each behind the core's `Clock` trait, one file per platform.
//!
//! Every clock the lab knows is listed on every machine; those that cannot run here carry
//! the reason. Experiments reach a clock through [`Visitor`], so each clock type gets its own
//! monomorphised experiment code and no dynamic call sits in the read loop.

use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod};
use ticklab::report::CounterFrequency;

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_os = "macos")]
mod macos;
#[cfg(unix)]
mod posix;
pub mod std_clock;
#[cfg(windows)]
mod windows;
#[cfg(target_arch = "x86_64")]
mod x86_64;

/// Code to run on a clock of any concrete type.
pub trait Visitor {
    /// What the visit returns.
    type Output;
    /// Runs on the clock.
    fn visit<C: Clock>(self, clock: &mut C) -> Self::Output;
}

/// A clock that runs here.
pub enum NativeClock {
    /// `std::time::Instant`.
    Instant(std_clock::InstantClock),
    /// A browser-style clamp over Instant (boxed, as the next: both are large, and the box
    /// is opened once per experiment, not per read).
    Clamp(Box<std_clock::ClampOverInstant>),
    /// A plain clamp over Instant, interpolated (boxed: its calibration makes it large).
    Interpolated(Box<std_clock::InterpolatedClamp>),
    /// clock_gettime with one clock id whose reads read a counter.
    #[cfg(unix)]
    Gettime(posix::Gettime<true>),
    /// clock_gettime with a coarse id (the time at the last timer tick).
    #[cfg(unix)]
    GettimeCoarse(posix::Gettime<false>),
    /// gettimeofday.
    #[cfg(unix)]
    Gettimeofday(posix::Gettimeofday),
    /// time(), clock() or getrusage.
    #[cfg(unix)]
    Posix(posix::PosixClock),
    /// rdtsc.
    #[cfg(target_arch = "x86_64")]
    Rdtsc(x86_64::Tsc<0>),
    /// rdtscp.
    #[cfg(target_arch = "x86_64")]
    Rdtscp(x86_64::Tsc<1>),
    /// lfence; rdtsc.
    #[cfg(target_arch = "x86_64")]
    LfenceRdtsc(x86_64::Tsc<2>),
    /// cntvct_el0.
    #[cfg(target_arch = "aarch64")]
    Cntvct(aarch64::Cntvct),
    /// mach_absolute_time or clock_gettime_nsec_np.
    #[cfg(target_os = "macos")]
    Mach(macos::MachClock),
    /// QueryPerformanceCounter, the FILETIME clocks, the tick counts, the interrupt times,
    /// the CPU times and a thread's cycles.
    #[cfg(windows)]
    Windows(windows::WinClock),
}

/// Runs `$body` with `$c` bound to the concrete clock inside `$self`; a boxed clock is
/// opened (`&mut **b`), or handed over as its box with `@owned`.
macro_rules! each {
    ($self:expr, $c:ident => $body:expr) => {
        each!(@ $self, $c => $body, |b| &mut **b)
    };
    (@owned $self:expr, $c:ident => $body:expr) => {
        each!(@ $self, $c => $body, |b| b)
    };
    (@ $self:expr, $c:ident => $body:expr, |$b:ident| $open:expr) => {
        match $self {
            NativeClock::Instant($c) => $body,
            NativeClock::Clamp($b) => {
                let $c = $open;
                $body
            }
            NativeClock::Interpolated($b) => {
                let $c = $open;
                $body
            }
            #[cfg(unix)]
            NativeClock::Gettime($c) => $body,
            #[cfg(unix)]
            NativeClock::GettimeCoarse($c) => $body,
            #[cfg(unix)]
            NativeClock::Gettimeofday($c) => $body,
            #[cfg(unix)]
            NativeClock::Posix($c) => $body,
            #[cfg(target_arch = "x86_64")]
            NativeClock::Rdtsc($c) => $body,
            #[cfg(target_arch = "x86_64")]
            NativeClock::Rdtscp($c) => $body,
            #[cfg(target_arch = "x86_64")]
            NativeClock::LfenceRdtsc($c) => $body,
            #[cfg(target_arch = "aarch64")]
            NativeClock::Cntvct($c) => $body,
            #[cfg(target_os = "macos")]
            NativeClock::Mach($c) => $body,
            #[cfg(windows)]
            NativeClock::Windows($c) => $body,
        }
    };
}

impl NativeClock {
    /// Runs `v` on the clock.
    pub fn visit<V: Visitor>(&mut self, v: V) -> V::Output {
        each!(self, c => v.visit(c))
    }

    /// The clock as the core's trait object, for an experiment that takes any clock.
    pub fn boxed(self) -> Box<dyn Clock> {
        each!(@owned self, c => Box::new(c))
    }
}

/// Makes a clock when it is first used: calibrations (the TSC's frequency, an interpolated
/// clock's reads per tick) cost time that `list` and other clocks should not pay.
pub type Opener = Box<dyn FnOnce() -> Result<NativeClock, String>>;

/// A clock of the catalogue: runnable here, or the reason it is not.
pub struct Entry {
    /// What is known about it before it is opened (for an unavailable clock, what would
    /// be); a calibrated clock knows its count's length only once opened.
    pub info: ClockInfo,
    /// How to open the clock, or why it cannot run here.
    pub clock: Result<Opener, String>,
}

impl Entry {
    /// A clock made already (making it cost nothing worth deferring).
    pub fn ready(info: ClockInfo, clock: NativeClock) -> Self {
        Self::lazy(info, move || Ok(clock))
    }

    /// A clock made by `open` when it is used.
    pub fn lazy(
        info: ClockInfo,
        open: impl FnOnce() -> Result<NativeClock, String> + 'static,
    ) -> Self {
        Self {
            info,
            clock: Ok(Box::new(open)),
        }
    }

    /// The clock, made now, or why it cannot run here.
    pub fn open(self) -> (ClockInfo, Result<NativeClock, String>) {
        let clock = self.clock.and_then(|open| open());
        (self.info, clock)
    }
}

/// Every clock the lab knows, in a fixed order. Nothing is calibrated until a clock is
/// opened.
pub fn catalogue() -> Vec<Entry> {
    let mut out = Vec::new();
    #[cfg(unix)]
    posix::add(&mut out);
    #[cfg(windows)]
    windows::add(&mut out);
    out.push(std_clock::entry());
    #[cfg(target_arch = "x86_64")]
    x86_64::add(&mut out);
    #[cfg(not(target_arch = "x86_64"))]
    for name in ["rdtsc", "rdtscp", "lfence+rdtsc"] {
        out.push(unavailable(name, ClockKind::Counter, "not an x86-64 CPU"));
    }
    #[cfg(target_arch = "aarch64")]
    aarch64::add(&mut out);
    #[cfg(not(target_arch = "aarch64"))]
    out.push(unavailable(
        "cntvct_el0",
        ClockKind::Counter,
        "not an aarch64 CPU",
    ));
    #[cfg(target_os = "macos")]
    macos::add(&mut out);
    #[cfg(not(target_os = "macos"))]
    for name in ["mach_absolute_time", "clock_gettime_nsec_np"] {
        out.push(unavailable(name, ClockKind::Monotonic, "macOS only"));
    }
    out.extend(std_clock::clamps());
    out.push(std_clock::interpolated());
    out
}

/// What is known of the hardware counters' frequencies: claims always, a measurement once a
/// clock of the counter has been opened.
pub fn frequencies() -> Vec<CounterFrequency> {
    #[cfg(target_arch = "x86_64")]
    return vec![x86_64::frequency()];
    #[cfg(target_arch = "aarch64")]
    return vec![aarch64::frequency_facts()];
    #[allow(unreachable_code)]
    Vec::new()
}

/// The CPU's name: Linux's /proc/cpuinfo, else what an x86-64 CPU says of itself.
pub fn cpu_name() -> Option<String> {
    #[cfg(target_os = "linux")]
    if let Ok(text) = std::fs::read_to_string("/proc/cpuinfo") {
        let model = text
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split(':').nth(1))
            .map(|s| s.trim().to_string());
        if model.is_some() {
            return model;
        }
    }
    #[cfg(target_arch = "x86_64")]
    return x86_64::brand();
    #[allow(unreachable_code)]
    None
}

/// A catalogue entry for a clock that cannot run here.
pub fn unavailable(name: &str, kind: ClockKind, why: &str) -> Entry {
    Entry {
        info: ClockInfo::new(name, kind, CountPeriod::Unknown),
        clock: Err(why.to_string()),
    }
}
