//! A run as a whole: why it stopped early, and how its clocks rank.

use super::*;

/// Why a run stopped before its end (Ctrl-C), when it did.
pub fn interrupted(r: &Report) -> Option<String> {
    match &r.interruption {
        Some(i) => Some(format!(
            "interrupted (Ctrl-C) {} {}{}: {} of {} clocks measured",
            if i.during { "during" } else { "before" },
            i.clock,
            if i.during {
                ", which is kept in part"
            } else {
                ""
            },
            i.measured,
            i.total
        )),
        None => r.interrupted.clone(),
    }
}

/// A ranking in words: the finest clock first, against the one everyone already has;
/// `whose` says where the clocks are ("this page built", "this machine has").
pub fn ranking(r: &Ranking, whose: &str) -> String {
    let best = &r.steps[r.best];
    let label = &r.reference_label;
    let against = match r.reference {
        Some(at) if at == r.best => format!("no clock {whose} is finer than {label}"),
        Some(at) => match r.finer() {
            Some(x) => format!(
                "{} finer than {label} ({})",
                times(x),
                duration(r.steps[at].ns)
            ),
            None => format!("as fine as {label} ({})", duration(r.steps[at].ns)),
        },
        None => format!("{label} was not measured"),
    };
    let each: Vec<String> = r
        .steps
        .iter()
        .map(|s| {
            let how = if s.cadence { " (its updates)" } else { "" };
            format!("{} {}{how}", s.name, duration(s.ns))
        })
        .collect();
    format!(
        "Finest clock {whose}: {}, {}: {against}. All, finest first: {}.",
        best.name,
        duration(best.ns),
        each.join(" · ")
    )
}

/// A ratio of steps, to the precision it deserves: "1.8×", "12×", "1 200×".
pub(super) fn times(r: f64) -> String {
    if r < 10.0 {
        format!("{r:.1}×")
    } else {
        let digits = r.round() as u64;
        let mut s = digits.to_string();
        // Thousands set apart by a thin space, as the page writes counts.
        let mut i = s.len();
        while i > 3 {
            i -= 3;
            s.insert(i, '\u{2009}');
        }
        format!("{s}×")
    }
}
