//! Values in the unit a file gives them: what the words of an analysis and of a caveat's
//! figures share.

use crate::unit::{ns_per_unit, Unit};

/// The unit's name in words and CSV ("ms"; "ticks" when none is known).
pub fn unit_name(u: Option<Unit>) -> &'static str {
    u.unwrap_or(Unit::Ticks).key()
}

/// A duration in the series' unit, readable: "41.67 ns", or "3.5 ticks" when the unit is
/// not known.
pub fn duration(v: f64, u: Option<Unit>) -> String {
    match ns_per_unit(u) {
        Some(f) => super::duration(v * f),
        None => format!("{} {}", short(v), unit_name(u)),
    }
}

/// A number in the data's own units: six significant digits, no more.
pub fn short(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let places = (5 - x.abs().log10().floor() as i32).clamp(0, 17) as usize;
    let s = format!("{x:.places$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}
