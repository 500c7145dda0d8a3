//! # ticklab: the science of measuring a clock
//!
//! Platform-free experiments on any [`Clock`](clock::Clock): its tick (resolution), the cost
//! of reading it, calibration of a workload's size, and linear fits of time against work.
//! The same code runs natively and in a browser (wasm32); platforms only supply clocks and
//! a [`Stopwatch`](run::Stopwatch) for budgets.
//!
//! ```
//! use ticklab::run::{quiet, Budget, Run};
//! use ticklab::synthetic::{Clamp, ClampStyle, SimTime, Timeline};
//! use ticklab::tick::{self, TickOptions};
//!
//! // A Chromium-style 100 µs clamp over simulated time, each read costing 25 ns.
//! let timeline = Timeline::new(0);
//! let mut clock = Clamp::new(SimTime::new(&timeline, 25_000, 0, 1), ClampStyle::Chromium, 100_000, 7)?;
//! let mut stopwatch = timeline.stopwatch();
//! let mut observer = quiet;
//! let budget = Budget::new(0.5, 20_000)?;
//! let mut run = Run::new(&mut stopwatch, &mut observer);
//! let result = tick::measure(&mut clock, &mut run, &TickOptions::new(budget))?;
//! assert_eq!(result.tick_ns, Some(100_000.0));
//! # Ok::<(), ticklab::Error>(())
//! ```
//!
//! Lessons the code embodies (docs/references.md names the documents):
//! - the tick divides every short interval, so the GCD of wrapping differences converges
//!   to it, while the smallest difference need not ([`tick`]);
//! - the required time is the smallest timing: runs combine by minimum ([`fit`]);
//! - a timing block should last 100 × (tick + overhead) ([`overhead`]);
//! - a slope can be known far more precisely than the tick ([`fit`]).

#![warn(missing_docs)]

pub mod analyze;
pub mod atlas;
pub mod broken;
pub mod calibrate;
pub mod caveat;
pub mod characterise;
pub mod claims;
pub mod clock;
pub mod comparison;
pub mod cpu_wall;
pub mod digest;
pub mod error;
pub mod export;
pub mod fit;
pub mod interpolate;
pub mod overhead;
pub mod present;
pub mod ranking;
pub mod report;
pub mod rng;
pub mod run;
pub mod stats;
pub mod synthetic;
pub mod tick;
pub mod unit;
pub mod workload;

pub use clock::{Clock, ClockInfo};
pub use error::{Error, Result};
pub use report::{Report, SCHEMA_VERSION};
