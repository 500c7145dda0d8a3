//! macOS: mach_absolute_time with mach_timebase_info (the MacResearch tutorial "Performance and Time"), and clock_gettime_nsec_np.

use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod, Ratio};

use super::{Entry, NativeClock};

extern "C" {
    /// Nanoseconds of a clock as one integer (macOS 10.12+); not bound by the libc crate.
    fn clock_gettime_nsec_np(clock_id: libc::clockid_t) -> u64;
}

/// 0: mach_absolute_time; 1: clock_gettime_nsec_np(CLOCK_UPTIME_RAW).
pub struct MachClock {
    info: ClockInfo,
    which: u8,
}

impl Clock for MachClock {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    #[inline]
    fn read(&mut self) -> u64 {
        // Safe: plain calls without pointers.
        unsafe {
            if self.which == 0 {
                mach2::mach_time::mach_absolute_time()
            } else {
                clock_gettime_nsec_np(libc::CLOCK_UPTIME_RAW)
            }
        }
    }
}

pub fn add(out: &mut Vec<Entry>) {
    let mut tb = mach2::mach_time::mach_timebase_info { numer: 0, denom: 0 };
    // Safe: valid out-pointer.
    unsafe { mach2::mach_time::mach_timebase_info(&mut tb) };
    let period = Ratio::new(tb.numer as u64, tb.denom as u64)
        .map_or(CountPeriod::Unknown, |ns| CountPeriod::Exact { ns });
    let mut info = ClockInfo::new("mach_absolute_time", ClockKind::Monotonic, period.clone())
        .with_description("Mach absolute time, converted by mach_timebase_info");
    if let Some(ns) = period.ns_per_count() {
        info = info.with_claim(ns, "mach_timebase_info: one count");
    }
    out.push(Entry::ready(
        info.clone(),
        NativeClock::Mach(MachClock { info, which: 0 }),
    ));
    let info = ClockInfo::new(
        "clock_gettime_nsec_np",
        ClockKind::Monotonic,
        CountPeriod::NANOSECOND,
    )
    .with_description("clock_gettime_nsec_np(CLOCK_UPTIME_RAW)");
    out.push(Entry::ready(
        info.clone(),
        NativeClock::Mach(MachClock { info, which: 1 }),
    ));
}
