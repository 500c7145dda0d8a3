//! The words of a verdict, a method, a kind of clock: labels and their keys.

use super::*;

/// The verdict as the report's JSON and the CSV export spell it.
pub fn verdict_key(v: Verdict) -> &'static str {
    match v {
        Verdict::Matches => "matches",
        Verdict::CoarserThanClaimed => "coarser_than_claimed",
        Verdict::FinerThanClaimed => "finer_than_claimed",
        Verdict::NoClaim => "no_claim",
        Verdict::Unknown => "unknown",
        Verdict::TooBusy => "too_busy",
        Verdict::AtLeastClaimed => "at_least_claimed",
        Verdict::BelowClaimedMinimum => "below_claimed_minimum",
    }
}

/// The verdict in words.
pub fn verdict_label(v: Verdict) -> &'static str {
    match v {
        Verdict::Matches => "matches the claim",
        Verdict::CoarserThanClaimed => "coarser than claimed",
        Verdict::FinerThanClaimed => "finer than claimed",
        Verdict::NoClaim => "nothing claimed",
        Verdict::Unknown => "unknown",
        Verdict::TooBusy => "too busy to tell",
        Verdict::AtLeastClaimed => "at least the minimum claimed",
        Verdict::BelowClaimedMinimum => "below the minimum claimed",
    }
}

/// Every verdict with its sign, for a table too narrow for the words.
const VERDICT_SIGNS: [(Verdict, &str); 8] = [
    (Verdict::Matches, "="),
    (Verdict::CoarserThanClaimed, ">"),
    (Verdict::FinerThanClaimed, "<"),
    (Verdict::AtLeastClaimed, "≥"),
    (Verdict::BelowClaimedMinimum, "<!"),
    (Verdict::TooBusy, "~"),
    (Verdict::NoClaim, ""),
    (Verdict::Unknown, "?"),
];

/// The sign of a verdict given in words ([`verdict_label`]); none for no claim or no verdict.
pub fn verdict_sign(label: &str) -> &'static str {
    VERDICT_SIGNS
        .iter()
        .find(|(v, _)| verdict_label(*v) == label)
        .map_or("", |(_, sign)| sign)
}

/// What the signs of [`verdict_sign`] say.
pub fn verdict_signs_legend() -> String {
    let said: Vec<String> = VERDICT_SIGNS
        .iter()
        .filter(|(_, sign)| !sign.is_empty())
        .map(|(v, sign)| format!("{sign} {}", verdict_label(*v)))
        .collect();
    format!("{}; no sign: nothing claimed", said.join(", "))
}

/// How a tick was found, in words. The GCD is Krutar's ("Tuning a Timer"): exact when it
/// divides every interval, robust when it divides nearly all far beyond chance.
pub fn method_label(m: Method) -> &'static str {
    match m {
        Method::ExactGcd => "Krutar's GCD, exact",
        Method::Robust => "Krutar's GCD, robust",
        Method::BestEffort => "best effort",
        Method::Precision => "the data's precision",
        Method::NoTick => "no tick",
        Method::Ambiguous => "ambiguous",
    }
}

/// The kind of a clock in words.
pub fn kind_label(k: ClockKind) -> &'static str {
    match k {
        ClockKind::Wall => "wall",
        ClockKind::Monotonic => "monotonic",
        ClockKind::ProcessCpu => "process CPU",
        ClockKind::ThreadCpu => "thread CPU",
        ClockKind::Counter => "counter",
        ClockKind::Synthetic => "synthetic",
    }
}
