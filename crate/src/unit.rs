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

impl Unit {
    /// Every unit, in the order they are offered.
    pub const ALL: [Unit; 5] = [Unit::S, Unit::Ms, Unit::Us, Unit::Ns, Unit::Ticks];

    /// The unit's name, as a report, a CSV, the page's form and the command's `--unit`
    /// write it: "s", "ms", "us", "ns", "ticks".
    pub fn key(self) -> &'static str {
        match self {
            Unit::S => "s",
            Unit::Ms => "ms",
            Unit::Us => "us",
            Unit::Ns => "ns",
            Unit::Ticks => "ticks",
        }
    }

    /// The unit named `key`.
    pub fn parse(key: &str) -> Result<Unit, String> {
        Unit::ALL
            .into_iter()
            .find(|u| u.key() == key)
            .ok_or_else(|| format!("unit '{key}': expected s, ms, us, ns or ticks"))
    }
}

#[cfg(test)]
mod tests {
    use super::Unit;

    #[test]
    fn a_units_key_is_its_serde_name_and_reads_back() {
        for u in Unit::ALL {
            assert_eq!(
                serde_json::to_string(&u).unwrap(),
                format!("\"{}\"", u.key())
            );
            assert_eq!(Unit::parse(u.key()), Ok(u));
        }
        assert!(Unit::parse("min").unwrap_err().contains("expected s, ms"));
    }
}
