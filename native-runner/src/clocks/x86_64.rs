//! The x86-64 time-stamp counter: rdtsc, rdtscp, and lfence; rdtsc (the serialised read of
//! Intel's benchmarking guide), with its frequency measured against CLOCK_MONOTONIC_RAW and,
//! beside it, what /proc/cpuinfo and cpuid claim.

use std::arch::x86_64::{__cpuid, __rdtscp, _mm_lfence, _rdtsc};
use std::sync::OnceLock;
use std::time::Duration;

use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod};
use ticklab::report::{CounterFrequency, FrequencyClaim};

use super::{Entry, NativeClock};

/// How the counter is read: 0 rdtsc, 1 rdtscp, 2 lfence; rdtsc. A const parameter, so each
/// way gets its own read loop with no branch in it.
pub struct Tsc<const R: u8> {
    info: ClockInfo,
}

impl<const R: u8> Clock for Tsc<R> {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    #[inline]
    fn read(&mut self) -> u64 {
        // Safe: every x86-64 CPU has rdtsc; rdtscp is checked before this clock is listed.
        unsafe {
            match R {
                0 => _rdtsc(),
                1 => {
                    let mut aux = 0u32;
                    __rdtscp(&mut aux)
                }
                _ => {
                    _mm_lfence();
                    _rdtsc()
                }
            }
        }
    }
}

/// The reference for calibration, in ns.
#[cfg(unix)]
fn reference_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // Safe: valid id and out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_RAW, &mut ts) };
    (ts.tv_sec as u64) * 1_000_000_000 + ts.tv_nsec as u64
}

/// The reference for calibration, in ns: std's Instant, which is QueryPerformanceCounter on
/// Windows.
#[cfg(not(unix))]
fn reference_ns() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_nanos() as u64
}

const CALIBRATION: Duration = Duration::from_millis(25);

/// Measured counter frequency in Hz: counts per CLOCK_MONOTONIC_RAW ns across a sleep,
/// each end bracketed by the core.
fn measure_hz() -> Option<f64> {
    // Safe: rdtsc exists on every x86-64 CPU.
    let tsc = || unsafe { _rdtsc() };
    ticklab::calibrate::rate_across(tsc, reference_ns, || std::thread::sleep(CALIBRATION))
        .map(|per_ns| per_ns * 1e9)
}

/// The CPU's name as it gives it (cpuid leaves 0x80000002 to 0x80000004), for systems with
/// no /proc/cpuinfo.
pub fn brand() -> Option<String> {
    if cpuid(0x8000_0000).0 < 0x8000_0004 {
        return None;
    }
    let bytes: Vec<u8> = (0x8000_0002..=0x8000_0004)
        .flat_map(|leaf| {
            let (a, b, c, d) = cpuid(leaf);
            [a, b, c, d].into_iter().flat_map(u32::to_le_bytes)
        })
        .collect();
    let name = String::from_utf8_lossy(&bytes)
        .trim_matches(|c: char| c == '\0' || c.is_whitespace())
        .to_string();
    (!name.is_empty()).then_some(name)
}

fn cpuid(leaf: u32) -> (u32, u32, u32, u32) {
    // Safe: cpuid exists on every x86-64 CPU; leaves past the maximum return zeros or the
    // highest leaf, and callers check the maximum first.
    let r = __cpuid(leaf);
    (r.eax, r.ebx, r.ecx, r.edx)
}

fn claims() -> (Vec<FrequencyClaim>, Option<bool>, bool) {
    let mut claims = Vec::new();
    let max_basic = cpuid(0).0;
    let max_ext = cpuid(0x8000_0000).0;
    let invariant = (max_ext >= 0x8000_0007).then(|| cpuid(0x8000_0007).3 & (1 << 8) != 0);
    let rdtscp = max_ext >= 0x8000_0001 && cpuid(0x8000_0001).3 & (1 << 27) != 0;
    if max_basic >= 0x15 {
        let (den, num, crystal, _) = cpuid(0x15);
        if den != 0 && num != 0 && crystal != 0 {
            claims.push(FrequencyClaim {
                hz: crystal as f64 * num as f64 / den as f64,
                source: "cpuid leaf 0x15 (crystal × ratio)".into(),
            });
        }
    }
    if max_basic >= 0x16 {
        let base_mhz = cpuid(0x16).0 & 0xffff;
        if base_mhz != 0 {
            claims.push(FrequencyClaim {
                hz: base_mhz as f64 * 1e6,
                source: "cpuid leaf 0x16 (base frequency)".into(),
            });
        }
    }
    // Linux's file; a Windows program under Wine would read the host's through Wine's Z:
    // drive, which real Windows does not have.
    #[cfg(target_os = "linux")]
    if let Ok(text) = std::fs::read_to_string("/proc/cpuinfo") {
        if let Some(mhz) = text
            .lines()
            .find(|l| l.starts_with("cpu MHz"))
            .and_then(|l| l.split(':').nth(1))
            .and_then(|v| v.trim().parse::<f64>().ok())
        {
            claims.push(FrequencyClaim {
                hz: mhz * 1e6,
                source: "/proc/cpuinfo cpu MHz (the conversion of Cox's \"Measuring Time\")".into(),
            });
        }
    }
    (claims, invariant, rdtscp)
}

/// What the counter is, learnt once per process (quanta's calibrate-once): the claims and
/// rdtscp's presence at once, the measured frequency when a TSC clock is first opened.
struct Facts {
    claims: Vec<FrequencyClaim>,
    invariant: Option<bool>,
    has_rdtscp: bool,
}

fn facts() -> &'static Facts {
    static FACTS: OnceLock<Facts> = OnceLock::new();
    FACTS.get_or_init(|| {
        let (claims, invariant, has_rdtscp) = claims();
        Facts {
            claims,
            invariant,
            has_rdtscp,
        }
    })
}

static MEASURED: OnceLock<Option<f64>> = OnceLock::new();

fn against() -> String {
    let reference = if cfg!(unix) {
        "CLOCK_MONOTONIC_RAW"
    } else {
        "Instant (QueryPerformanceCounter)"
    };
    format!("{reference} over {} ms", CALIBRATION.as_millis())
}

/// The counter's frequency: the claims, and the measurement once one has been made.
pub fn frequency() -> CounterFrequency {
    let f = facts();
    let measured = MEASURED.get().copied().flatten();
    CounterFrequency {
        clock: "TSC".into(),
        measured_hz: measured,
        against: measured.map(|_| against()),
        claims: f.claims.clone(),
        invariant: f.invariant,
    }
}

fn invariant_note() -> &'static str {
    match facts().invariant {
        Some(true) => "invariant TSC",
        Some(false) => "TSC not invariant: its rate may change with power states",
        None => "TSC invariance unknown",
    }
}

/// The clock's description before calibration, and its info once calibrated.
fn info(name: &str, how: &str, calibrated: bool) -> ClockInfo {
    let period = match calibrated
        .then(|| *MEASURED.get_or_init(measure_hz))
        .flatten()
    {
        Some(hz) => CountPeriod::Calibrated {
            ns: 1e9 / hz,
            against: against(),
        },
        None => CountPeriod::Unknown,
    };
    let info = ClockInfo::new(name, ClockKind::Counter, period.clone())
        .with_description(format!("{how}; {}", invariant_note()));
    match period.ns_per_count() {
        Some(ns) => info.with_claim(ns, "one count of the counter"),
        None => info,
    }
}

pub fn add(out: &mut Vec<Entry>) {
    const RDTSC: (&str, &str) = ("rdtsc", "time-stamp counter, unserialised read");
    const RDTSCP: (&str, &str) = (
        "rdtscp",
        "time-stamp counter, waits for earlier instructions",
    );
    const LFENCE: (&str, &str) = ("lfence+rdtsc", "lfence; rdtsc: serialised read");
    out.push(Entry::lazy(info(RDTSC.0, RDTSC.1, false), || {
        Ok(NativeClock::Rdtsc(Tsc::<0> {
            info: info(RDTSC.0, RDTSC.1, true),
        }))
    }));
    let rdtscp = info(RDTSCP.0, RDTSCP.1, false);
    out.push(if facts().has_rdtscp {
        Entry::lazy(rdtscp, || {
            Ok(NativeClock::Rdtscp(Tsc::<1> {
                info: info(RDTSCP.0, RDTSCP.1, true),
            }))
        })
    } else {
        Entry {
            info: rdtscp,
            clock: Err("this CPU has no rdtscp".into()),
        }
    });
    out.push(Entry::lazy(info(LFENCE.0, LFENCE.1, false), || {
        Ok(NativeClock::LfenceRdtsc(Tsc::<2> {
            info: info(LFENCE.0, LFENCE.1, true),
        }))
    }));
}
