//! `std::time::Instant`, the portable clock.

use std::time::Instant;

use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod};
use ticklab::synthetic::{Clamp, ClampStyle, ClockTime};

use super::{Entry, NativeClock};

/// Nanoseconds since the clock was made.
pub struct InstantClock {
    info: ClockInfo,
    start: Instant,
}

impl Clock for InstantClock {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    #[inline]
    fn read(&mut self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }
}

fn instant() -> InstantClock {
    InstantClock {
        info: ClockInfo::new("Instant", ClockKind::Monotonic, CountPeriod::NANOSECOND)
            .with_description("std::time::Instant (CLOCK_MONOTONIC on Linux, mach time on macOS)"),
        start: Instant::now(),
    }
}

/// A browser's clamp laid over this machine's Instant, so the same workload can be timed
/// through a fine clock and through what a page would get.
pub type ClampOverInstant = Clamp<ClockTime<InstantClock>>;

/// Chromium's 100 µs and Firefox's 1 ms jittered clamps over Instant.
pub fn clamps() -> Vec<Entry> {
    [
        (ClampStyle::Chromium, 100_000, "chromium 100us clamp"),
        (ClampStyle::FirefoxJitter, 1_000_000, "firefox 1ms clamp"),
    ]
    .into_iter()
    .map(|(style, res, name)| {
        let clamp = ClockTime::new(instant()).and_then(|t| Clamp::new(t, style, res, 0x7ec1));
        match clamp {
            Ok(mut c) => {
                c.info_mut().name = name.into();
                c.info_mut().description.push_str(", over Instant");
                Entry {
                    info: c.info().clone(),
                    clock: Ok(NativeClock::Clamp(c)),
                }
            }
            Err(e) => super::unavailable(name, ClockKind::Synthetic, &e.to_string()),
        }
    })
    .collect()
}

pub fn entry() -> Entry {
    let c = instant();
    Entry {
        info: c.info.clone(),
        clock: Ok(NativeClock::Instant(c)),
    }
}
