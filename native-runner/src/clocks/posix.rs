//! POSIX clocks: the clock_gettime family with clock_getres's claims, gettimeofday, time(),
//! clock() and getrusage.

use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod, Ratio};

use super::{unavailable, Entry, NativeClock};

/// clock_gettime with one clock id, in ns. `CACHED`: the seconds' multiply done once a
/// second, for the ids whose reads the vDSO fences (it reads the counter); the coarse ids
/// read no counter and are not fenced, and there the cache's state, loaded anew after
/// every call, costs more than the multiply (3.8 against 3.5 ns on an Intel guest).
pub struct Gettime<const CACHED: bool> {
    info: ClockInfo,
    id: libc::clockid_t,
    seconds: Seconds,
}

/// A reading's whole seconds in counts, multiplied once a second rather than at every read.
/// The vDSO fences its counter read (lfence; rdtsc), so work that follows one read delays the
/// next: the multiply made clock_gettime's reads 1 ns dearer than a loop that discards them
/// (28.0 against 27.0 ns), gettimeofday's 1.5 ns; with it cached, none.
struct Seconds {
    last: u64,
    counts: u64,
}

impl Seconds {
    fn new() -> Self {
        Self { last: 0, counts: 0 }
    }

    /// `sec` seconds and `sub` counts, at `per_sec` counts a second, wrapping.
    #[inline(always)]
    fn counts(&mut self, sec: u64, sub: u64, per_sec: u64) -> u64 {
        if sec != self.last {
            self.last = sec;
            self.counts = sec.wrapping_mul(per_sec);
        }
        self.counts.wrapping_add(sub)
    }
}

fn timespec_ns(ts: &libc::timespec) -> u64 {
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

impl<const CACHED: bool> Clock for Gettime<CACHED> {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    #[inline]
    fn read(&mut self) -> u64 {
        let mut ts = std::mem::MaybeUninit::<libc::timespec>::uninit();
        // Safe: a valid id (checked when listed) and a valid out-pointer, which the call
        // fills, as it does for every such id.
        let ts = unsafe {
            libc::clock_gettime(self.id, ts.as_mut_ptr());
            ts.assume_init()
        };
        if CACHED {
            self.seconds
                .counts(ts.tv_sec as u64, ts.tv_nsec as u64, 1_000_000_000)
        } else {
            timespec_ns(&ts)
        }
    }
}

/// The clock_gettime ids this platform has, with the kind of time each keeps.
fn gettime_ids() -> Vec<(
    &'static str,
    Option<libc::clockid_t>,
    ClockKind,
    &'static str,
)> {
    vec![
        (
            "CLOCK_REALTIME",
            Some(libc::CLOCK_REALTIME),
            ClockKind::Wall,
            "time of day",
        ),
        (
            "CLOCK_MONOTONIC",
            Some(libc::CLOCK_MONOTONIC),
            ClockKind::Monotonic,
            "elapsed time, slewed by NTP",
        ),
        #[cfg(any(target_os = "linux", target_os = "macos"))]
        (
            "CLOCK_MONOTONIC_RAW",
            Some(libc::CLOCK_MONOTONIC_RAW),
            ClockKind::Monotonic,
            "elapsed time, not slewed",
        ),
        #[cfg(target_os = "linux")]
        (
            "CLOCK_REALTIME_COARSE",
            Some(libc::CLOCK_REALTIME_COARSE),
            ClockKind::Wall,
            "time of day at the last timer tick",
        ),
        #[cfg(target_os = "linux")]
        (
            "CLOCK_MONOTONIC_COARSE",
            Some(libc::CLOCK_MONOTONIC_COARSE),
            ClockKind::Monotonic,
            "elapsed time at the last timer tick",
        ),
        #[cfg(target_os = "linux")]
        (
            "CLOCK_BOOTTIME",
            Some(libc::CLOCK_BOOTTIME),
            ClockKind::Monotonic,
            "elapsed time including suspend",
        ),
        #[cfg(not(target_os = "linux"))]
        (
            "CLOCK_REALTIME_COARSE",
            None,
            ClockKind::Wall,
            "time of day at the last timer tick",
        ),
        #[cfg(not(target_os = "linux"))]
        (
            "CLOCK_MONOTONIC_COARSE",
            None,
            ClockKind::Monotonic,
            "elapsed time at the last timer tick",
        ),
        #[cfg(not(target_os = "linux"))]
        (
            "CLOCK_BOOTTIME",
            None,
            ClockKind::Monotonic,
            "elapsed time including suspend",
        ),
        (
            "CLOCK_PROCESS_CPUTIME_ID",
            Some(libc::CLOCK_PROCESS_CPUTIME_ID),
            ClockKind::ProcessCpu,
            "CPU time of the process",
        ),
        (
            "CLOCK_THREAD_CPUTIME_ID",
            Some(libc::CLOCK_THREAD_CPUTIME_ID),
            ClockKind::ThreadCpu,
            "CPU time of the thread",
        ),
    ]
}

extern "C" {
    /// C's clock(); the libc crate does not bind it.
    fn clock() -> libc::clock_t;
}

/// XSI requires CLOCKS_PER_SEC to be one million on every POSIX system.
const CLOCKS_PER_SEC: u64 = 1_000_000;

/// gettimeofday, a type of its own: behind the other clocks' branch on their kind its reads
/// measured 7% dearer than a bare loop's (29.0 against 26.9 ns).
pub struct Gettimeofday {
    info: ClockInfo,
    seconds: Seconds,
}

impl Clock for Gettimeofday {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    #[inline]
    fn read(&mut self) -> u64 {
        let mut tv = libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        };
        // Safe: a valid out-pointer and a null timezone, which the call allows.
        unsafe { libc::gettimeofday(&mut tv, std::ptr::null_mut()) };
        self.seconds
            .counts(tv.tv_sec as u64, tv.tv_usec as u64, 1_000_000)
    }
}

/// The other POSIX clocks; one type, so they share monomorphised experiment code. The
/// branch on `kind` is the same at every read; it costs little beside a system call or
/// a whole second's tick.
pub struct PosixClock {
    info: ClockInfo,
    kind: Kind,
}

#[derive(Clone, Copy)]
enum Kind {
    Time,
    ClockFn,
    RusageUser,
    RusageSystem,
}

fn timeval_us(tv: &libc::timeval) -> u64 {
    (tv.tv_sec as u64)
        .wrapping_mul(1_000_000)
        .wrapping_add(tv.tv_usec as u64)
}

impl Clock for PosixClock {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    #[inline]
    fn read(&mut self) -> u64 {
        // Safe throughout: valid out-pointers, null where the call allows it.
        match self.kind {
            Kind::Time => unsafe { libc::time(std::ptr::null_mut()) as u64 },
            Kind::ClockFn => unsafe { clock() as u64 },
            Kind::RusageUser | Kind::RusageSystem => {
                let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
                unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
                if matches!(self.kind, Kind::RusageUser) {
                    timeval_us(&ru.ru_utime)
                } else {
                    timeval_us(&ru.ru_stime)
                }
            }
        }
    }
}

/// What getrusage's user or system time is, and on Linux why over short spans it moves
/// with either kind of work.
macro_rules! rusage_words {
    ($what:literal) => {
        if cfg!(target_os = "linux") {
            concat!(
                $what,
                " CPU time of the process (Linux shares the process's run time out between \
                 user and system by sampled ticks, so over short spans it moves with either \
                 kind of work)"
            )
        } else {
            concat!($what, " CPU time of the process")
        }
    };
}

pub fn add(out: &mut Vec<Entry>) {
    for (name, id, kind, what) in gettime_ids() {
        let Some(id) = id else {
            out.push(unavailable(name, kind, "Linux only"));
            continue;
        };
        let mut info = ClockInfo::new(name, kind, CountPeriod::NANOSECOND)
            .with_description(format!("clock_gettime: {what}"));
        if kind == ClockKind::Wall {
            info = info.non_monotonic();
        }
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // Safe: valid out-pointer; an unknown id only makes the call fail.
        if unsafe { libc::clock_gettime(id, &mut ts) } != 0 {
            let e = std::io::Error::last_os_error();
            out.push(Entry {
                info,
                clock: Err(format!("clock_gettime failed: {e}")),
            });
            continue;
        }
        if unsafe { libc::clock_getres(id, &mut ts) } == 0 {
            info = info.with_claim(timespec_ns(&ts) as f64, "clock_getres");
        }
        let coarse = name.ends_with("_COARSE");
        let clock = if coarse {
            NativeClock::GettimeCoarse(Gettime {
                info: info.clone(),
                id,
                seconds: Seconds::new(),
            })
        } else {
            NativeClock::Gettime(Gettime {
                info: info.clone(),
                id,
                seconds: Seconds::new(),
            })
        };
        out.push(Entry::ready(info, clock));
    }
    let us = CountPeriod::Exact {
        ns: Ratio { num: 1000, den: 1 },
    };
    let clocks_per_sec = CLOCKS_PER_SEC;
    let clock_period = Ratio::new(1_000_000_000, clocks_per_sec.max(1))
        .map_or(CountPeriod::Unknown, |ns| CountPeriod::Exact { ns });
    let info = ClockInfo::new("gettimeofday", ClockKind::Wall, us.clone())
        .with_description("time of day in µs")
        .with_claim(1000.0, "the microsecond unit of struct timeval")
        .non_monotonic();
    out.push(Entry::ready(
        info.clone(),
        NativeClock::Gettimeofday(Gettimeofday {
            info,
            seconds: Seconds::new(),
        }),
    ));
    let list = [
        (
            "time",
            Kind::Time,
            ClockKind::Wall,
            CountPeriod::Exact {
                ns: Ratio {
                    num: 1_000_000_000,
                    den: 1,
                },
            },
            1e9,
            "time() counts whole seconds",
            "time of day in whole seconds",
        ),
        (
            "clock",
            Kind::ClockFn,
            ClockKind::ProcessCpu,
            clock_period,
            1e9 / clocks_per_sec.max(1) as f64,
            "CLOCKS_PER_SEC",
            "C's clock(): processor time of the process",
        ),
        (
            "getrusage user",
            Kind::RusageUser,
            ClockKind::ProcessCpu,
            us.clone(),
            1000.0,
            "the microsecond unit of struct timeval",
            rusage_words!("user"),
        ),
        (
            "getrusage system",
            Kind::RusageSystem,
            ClockKind::ProcessCpu,
            us,
            1000.0,
            "the microsecond unit of struct timeval",
            rusage_words!("system"),
        ),
    ];
    for (name, kind, ck, period, claim, source, what) in list {
        let mut info = ClockInfo::new(name, ck, period)
            .with_description(what)
            .with_claim(claim, source);
        if ck == ClockKind::Wall {
            info = info.non_monotonic();
        }
        out.push(Entry::ready(
            info.clone(),
            NativeClock::Posix(PosixClock { info, kind }),
        ));
    }
}
