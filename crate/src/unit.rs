//! The units of plain numbers: below every module that speaks of them (a caveat's figures,
//! `analyze`'s values), so none of those imports another for them.

use serde::{Deserialize, Serialize};

/// The unit of plain numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Seconds.
    S,
    /// Milliseconds.
    Ms,
    /// Microseconds.
    Us,
    /// Nanoseconds.
    Ns,
    /// Counts of an unknown clock.
    Ticks,
}

/// Nanoseconds in one unit, when the unit is a time.
pub fn ns_per_unit(u: Option<Unit>) -> Option<f64> {
    match u {
        Some(Unit::S) => Some(1e9),
        Some(Unit::Ms) => Some(1e6),
        Some(Unit::Us) => Some(1e3),
        Some(Unit::Ns) => Some(1.0),
        Some(Unit::Ticks) | None => None,
    }
}
