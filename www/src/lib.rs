//! ticklab in the browser. The core runs the experiments; this crate only turns the page's
//! clocks into the core's [`Clock`](ticklab::Clock)s, keeps the page's results in wasm
//! memory behind the [`Lab`] handle, and draws the plot crate's views on a canvas.
//!
//! The same module is loaded by the lab's worker (spinning clocks: its [`answer`] hands each
//! clock's report out, in the [`Message`]s of the worker's protocol) and by the page (a `Lab`: the form, main-thread and sampled clocks,
//! the worker's results, words and plots from the core, import and export). The page's
//! first answer comes before either, from the small `ticklab-first` module, whose claims
//! and performance.now clock this crate shares. `clocks` builds the page's clocks, `lab` is
//! the handle and the worker's protocol, `canvas` the backend the plots are drawn with.

pub mod catalogue;
pub mod class;
pub mod lab_state;
pub mod playground;
pub mod settings;

use catalogue::{Entry, Place};
use settings::Settings;

#[cfg(target_arch = "wasm32")]
pub use lab::*;

#[cfg(target_arch = "wasm32")]
// The page's benchmark figures (`cargo xtask bench`): built only for it, so visitors do not
// download them.
#[cfg(feature = "bench")]
mod bench;

/// How long the SharedArrayBuffer counter is calibrated against performance.now, in ms:
/// a 20 µs performance.now's edges bound its period within 0.08 %, where the counter's own
/// rate moves by percents from one calibration to the next (100 ms cost a run 0.15 s).
pub const CALIBRATION_MS: f64 = 50.0;

/// What a counter that did not move over the calibration says: its time spelt out, as a
/// `format!` of [`CALIBRATION_MS`] weighs 50 B of the page (a test holds them together).
pub const COUNTER_UNMOVED: &str = "the counter did not move in 50 ms: its worker is not running";

/// Longest a main-thread clock may hold the page, tick and overhead together, in seconds:
/// the page cannot answer Cancel while the main thread is busy.
pub const MAIN_THREAD_S: f64 = 0.075;

/// The page's plan for one clock. A main-thread clock gets a quarter of the budgets, at most
/// [`MAIN_THREAD_S`] in all (the core's cut, every experiment in proportion), and no fit, so
/// Cancel is honoured within 100 ms.
pub fn plan_for(
    entry: &Entry,
    settings: &Settings,
    fit: bool,
) -> Result<ticklab::characterise::Plan, String> {
    if entry.place != Place::Main {
        return settings.plan(fit && entry.can_fit, 1.0);
    }
    Ok(settings
        .plan(false, 0.25)?
        .in_proportion_within(MAIN_THREAD_S))
}

#[cfg(target_arch = "wasm32")]
mod canvas;
#[cfg(target_arch = "wasm32")]
mod clocks;
#[cfg(target_arch = "wasm32")]
mod js;
#[cfg(target_arch = "wasm32")]
mod lab;

#[cfg(test)]
mod tests {
    use super::*;
    use catalogue::{ClockId, Context};
    use settings::RawSettings;

    #[test]
    fn the_unmoved_counter_names_the_calibration_time() {
        assert!(COUNTER_UNMOVED.contains(&format!(" {CALIBRATION_MS} ms:")));
    }

    #[test]
    fn main_thread_budgets_are_a_quarter_within_75_ms_and_simulations_never_fit() {
        let ctx = Context::default();
        let s = Settings::parse(&RawSettings::default()).unwrap();
        let main = catalogue::entry(&ctx, ClockId::PerformanceNowMain);
        let p = plan_for(&main, &s, true).unwrap();
        assert_eq!(p.tick.budget.time_s, s.tick_s * 0.25);
        assert!(p.fits.is_empty());
        // However long the form asks for, the main thread is held at most 75 ms.
        let long = Settings::parse(&RawSettings {
            tick_s: "100".into(),
            overhead_s: "100".into(),
            ..Default::default()
        })
        .unwrap();
        let p = plan_for(&main, &long, true).unwrap();
        let held = p.tick.budget.time_s + p.overhead.map_or(0.0, |o| o.budget.time_s);
        assert!(held <= MAIN_THREAD_S + 1e-12, "{held}");
        let sim = catalogue::entry(&ctx, ClockId::SimJiffy);
        assert!(plan_for(&sim, &s, true).unwrap().fits.is_empty());
    }
}
