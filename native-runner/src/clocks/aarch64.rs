//! The aarch64 virtual counter cntvct_el0, its frequency from cntfrq_el0.

use std::arch::asm;

use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod, Ratio};
use ticklab::report::{CounterFrequency, FrequencyClaim};

use super::{Entry, NativeClock};

/// The virtual counter.
pub struct Cntvct {
    info: ClockInfo,
}

impl Clock for Cntvct {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    #[inline]
    fn read(&mut self) -> u64 {
        let v: u64;
        // Safe: cntvct_el0 is readable from user space on Linux and macOS.
        unsafe { asm!("isb", "mrs {v}, cntvct_el0", v = out(reg) v, options(nostack, nomem)) };
        v
    }
}

fn frequency() -> u64 {
    let f: u64;
    // Safe: cntfrq_el0 is readable from user space.
    unsafe { asm!("mrs {f}, cntfrq_el0", f = out(reg) f, options(nostack, nomem)) };
    f
}

/// The counter's frequency as cntfrq_el0 claims it (it is exact by the architecture).
pub fn frequency_facts() -> CounterFrequency {
    CounterFrequency {
        clock: "cntvct_el0".into(),
        measured_hz: None,
        against: None,
        claims: vec![FrequencyClaim {
            hz: frequency() as f64,
            source: "cntfrq_el0".into(),
        }],
        invariant: Some(true),
    }
}

pub fn add(out: &mut Vec<Entry>) {
    let hz = frequency();
    let period =
        Ratio::new(1_000_000_000, hz).map_or(CountPeriod::Unknown, |ns| CountPeriod::Exact { ns });
    let mut info = ClockInfo::new("cntvct_el0", ClockKind::Counter, period)
        .with_description("aarch64 virtual counter (isb; mrs cntvct_el0)");
    if hz > 0 {
        info = info.with_claim(1e9 / hz as f64, "cntfrq_el0: one count");
    }
    out.push(Entry::ready(
        info.clone(),
        NativeClock::Cntvct(Cntvct { info }),
    ));
}
