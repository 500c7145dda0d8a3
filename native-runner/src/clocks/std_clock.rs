//! `std::time::Instant`, the portable clock.

use std::time::Instant;

use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod};
use ticklab::interpolate::Interpolated;
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

/// The name of `std::time::Instant` among the clocks.
pub const INSTANT: &str = "Instant";

/// Instant as a clock of ns since now.
pub fn instant() -> InstantClock {
    InstantClock {
        info: ClockInfo::new(INSTANT, ClockKind::Monotonic, CountPeriod::NANOSECOND)
            .with_description("std::time::Instant (CLOCK_MONOTONIC on Linux, mach time on macOS)"),
        start: Instant::now(),
    }
}

/// A browser's clamp laid over this machine's Instant, so the same workload can be timed
/// through a fine clock and through what a page would get.
pub type ClampOverInstant = Clamp<ClockTime<InstantClock>>;

/// The interpolated clock over a plain 100 µs clamp of Instant.
pub type InterpolatedClamp = Interpolated<ClampOverInstant>;

/// Seconds spent counting reads per tick of the clamp.
const INTERPOLATION_CALIBRATION_S: f64 = 0.02;

/// A 100 µs clamp over Instant in `style`, made fine again by interpolation. Against a
/// plain clamp this is what a page can do; a jittered one defeats it.
pub fn interpolated_over(style: ClampStyle) -> ticklab::Result<InterpolatedClamp> {
    let t = ClockTime::new(instant())?;
    let mut base = Clamp::new(t, style, 100_000, 0x7ec1)?;
    base.info_mut().name = match style {
        ClampStyle::Chromium => "jittered 100us clamp over Instant",
        _ => "plain 100us clamp over Instant",
    }
    .into();
    let start = Instant::now();
    let mut sw = move || start.elapsed().as_secs_f64();
    Interpolated::calibrate(base, 100_000, &mut sw, INTERPOLATION_CALIBRATION_S)
}

/// The catalogue's interpolated clock, over a plain (unjittered) 100 µs clamp of Instant;
/// its calibration runs when it is opened.
pub fn interpolated() -> Entry {
    const NAME: &str = "interpolated 100us clamp";
    let info = ClockInfo::new(NAME, ClockKind::Synthetic, CountPeriod::Unknown)
        .with_description(
            "reads of a plain 100 µs clamp over Instant counted between its edges (calibrated \
             when run)",
        )
        .with_base("Instant");
    Entry::lazy(info, || {
        let mut c = interpolated_over(ClampStyle::Firefox).map_err(|e| e.to_string())?;
        c.info_mut().name = NAME.into();
        c.info_mut().built_on = Some("Instant".into());
        Ok(NativeClock::Interpolated(Box::new(c)))
    })
}

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
                c.info_mut().built_on = Some("Instant".into());
                Entry::ready(c.info().clone(), NativeClock::Clamp(Box::new(c)))
            }
            Err(e) => super::unavailable(name, ClockKind::Synthetic, &e.to_string()),
        }
    })
    .collect()
}

pub fn entry() -> Entry {
    let c = instant();
    Entry::ready(c.info.clone(), NativeClock::Instant(c))
}
