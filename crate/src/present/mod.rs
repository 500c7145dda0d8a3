//! Results in words and numbers for people: the one place both front ends take them from.
//!
//! Durations with their unit, the verdict and method labels, every caveat and note of a
//! clock, the summary row and the sentences under the plots. The command prints these, the
//! CSV export names verdicts with [`verdict_key`], and the page shows what its wasm module
//! hands over from here: JavaScript formats nothing.

use serde::Serialize;

use crate::caveat::Caveat;
use crate::clock::ClockKind;
use crate::cpu_wall::CpuWall;
use crate::error::ErrorKind;
use crate::overhead::OverheadResult;
use crate::ranking::Ranking;
use crate::report::{ClockReport, CounterFrequency, Environment, Report};
use crate::tick::{EdgeGrid, Grid, Method, TickEstimate, TickResult, Verdict};

pub mod analysis;
mod caveat;
mod error;
mod units;
pub use caveat::caveat;
#[cfg(test)]
pub(crate) use caveat::unsaid;

/// What stands where a figure cannot be given; a note says why.
pub const DASH: &str = "-";

/// The unit a duration of `ns` reads best in, and its length in ns.
pub fn unit_of(ns: f64) -> (f64, &'static str) {
    match ns.abs() {
        a if a >= 1e9 => (1e9, "s"),
        a if a >= 1e6 => (1e6, "ms"),
        a if a >= 1e3 => (1e3, "µs"),
        _ => (1.0, "ns"),
    }
}

/// A duration in a readable unit: "41.67 ns", "0.4089 ns", "100.000 µs", "4.000 ms",
/// "1.000 s"; the dash for a value that is not finite.
pub fn duration(ns: f64) -> String {
    if !ns.is_finite() {
        return DASH.into();
    }
    match unit_of(ns) {
        (_, "ns") if ns.abs() >= 1.0 || ns == 0.0 => format!("{ns:.2} ns"),
        (_, "ns") => format!("{ns:.4} ns"),
        (scale, name) => format!("{:.3} {name}", ns / scale),
    }
}

/// `x` and its uncertainty `e` written to the same place, `e` with two significant digits:
/// ("10.0148", "0.0003").
pub fn to_digits(x: f64, e: f64) -> (String, String) {
    let places = (1 - e.log10().floor() as i32).clamp(0, 12) as usize;
    (format!("{x:.places$}"), format!("{e:.places$}"))
}

/// A duration and its uncertainty in a readable unit, to the digits the uncertainty allows:
/// ("10.0148", "0.0003", "ns").
pub fn duration_digits(ns: f64, e_ns: f64) -> (String, String, &'static str) {
    let (scale, name) = unit_of(ns);
    let (x, e) = to_digits(ns / scale, e_ns / scale);
    (x, e, name)
}

/// [`duration`], or the dash when there is none.
pub fn opt_duration(ns: Option<f64>) -> String {
    ns.map_or(DASH.into(), duration)
}

/// Counts of a clock whose count has no known length: "26 counts", "24.5000 counts".
pub fn counts(x: f64) -> String {
    if !x.is_finite() {
        DASH.into()
    } else if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0} counts")
    } else if x.abs() >= 1e4 {
        format!("{x:.1} counts")
    } else {
        format!("{x:.4} counts")
    }
}

/// `counts` of a clock as a duration when each lasts `ns_per_count`, else in counts.
pub fn counts_or_duration(x: f64, ns_per_count: Option<f64>) -> String {
    match ns_per_count.filter(|p| p.is_finite()) {
        Some(p) => duration(x * p),
        None => counts(x),
    }
}

/// A share as a percentage: "97.5%".
pub fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// A whole number of ticks: "0 ticks", "1 tick", "12 ticks".
pub fn ticks(k: f64) -> String {
    if k == 1.0 {
        "1 tick".into()
    } else {
        format!("{k:.0} ticks")
    }
}

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

/// The tick as a person reads it: "10.02 ns (24.5 TSC counts)", "≤ 1.000 ms" for an upper
/// bound, "none" when the values lie on no step, the dash when there is no tick result or
/// the machine was too busy to tell.
/// `counters` are the report's measured counter frequencies, for the counts annotation.
pub fn tick(c: &ClockReport, counters: &[CounterFrequency]) -> String {
    let Some(t) = &c.tick else {
        return DASH.into();
    };
    let e = &t.estimate;
    // Only a bound, from intervals that may each have missed a step: a note says why.
    if t.verdict == Verdict::TooBusy {
        return DASH.into();
    }
    if e.method == Method::NoTick {
        return "none".into();
    }
    // Two answers are no figure: the note names them.
    if e.method == Method::Ambiguous {
        return DASH.into();
    }
    // An estimate that is not reliable is an upper bound: more data can only lower it.
    let bound = if e.found() && e.reliable { "" } else { "≤ " };
    let mut s = match t.tick_ns {
        Some(v) => format!("{bound}{}", duration(v)),
        None => format!("{bound}{}", counts(e.tick)),
    };
    if !e.found() {
        return s;
    }
    // A tick of several counts of the clock's own counter, or of a measured counter (the
    // TSC under CLOCK_MONOTONIC), in those counts; past a few hundred counts a whole
    // number is a coincidence, not a step.
    if c.info.kind == ClockKind::Counter && e.tick >= 2.0 {
        if let Some(k) = e
            .exact
            .and_then(|x| whole_or_half(x.num as f64 / x.den as f64))
        {
            s.push_str(&format!(" ({k} counts)"));
            return s;
        }
    }
    if let Some(v) = t.tick_ns.filter(|_| e.reliable) {
        for f in counters {
            let Some(hz) = f.measured_hz.filter(|h| *h > 0.0) else {
                continue;
            };
            let k = v * hz * 1e-9;
            if f.clock == c.info.name || !(2.0..=256.0).contains(&k) {
                continue;
            }
            if let Some(k) = whole_or_half(k) {
                s.push_str(&format!(" ({k} {} counts)", short_name(&f.clock)));
                break;
            }
        }
    }
    s
}

/// `k` written as a whole or half number of counts ("26", "24.5") when it is one to within
/// a fiftieth of a count (a counter that steps 24 and 25 in turn moves 24.5 a tick);
/// otherwise none: 2445.4 counts is no step of that counter.
pub fn whole_or_half(k: f64) -> Option<String> {
    let near = |x: f64| (x - x.round()).abs() <= 0.02;
    if near(k) {
        Some(format!("{}", k.round()))
    } else if near(2.0 * k) {
        Some(format!("{:.1}", (2.0 * k).round() / 2.0))
    } else {
        None
    }
}

/// "TSC" for the rdtsc family's counter.
fn short_name(counter: &str) -> &str {
    if counter.contains("rdtsc") || counter == "TSC" {
        "TSC"
    } else {
        counter
    }
}

/// The claimed resolution, or the dash.
pub fn claimed(c: &ClockReport) -> String {
    opt_duration(c.info.claimed.as_ref().map(|c| c.ns))
}

/// The share of intervals the tick explains, or the dash.
pub fn explains(c: &ClockReport) -> String {
    c.tick
        .as_ref()
        .map_or(DASH.into(), |t| percent(t.estimate.share_explained))
}

/// The verdict of the tick against the claim, or the dash.
pub fn verdict(c: &ClockReport) -> String {
    c.tick
        .as_ref()
        .map_or(DASH.into(), |t| verdict_label(t.verdict).into())
}

/// The cost of one read, or the dash (a note says why). A page's clock read from its own
/// JavaScript too gives that first, what a page's code pays (like with like across
/// engines), then in brackets what the lab pays through WebAssembly.
pub fn read_cost(c: &ClockReport) -> String {
    match &c.overhead {
        Some(o) if o.unusable.is_none() => match (o.per_read_ns, o.own_per_read_ns) {
            (Some(ns), Some(own)) => format!("{} (wasm {})", duration(own), duration(ns)),
            (Some(ns), None) => duration(ns),
            (None, _) => counts(o.per_read_counts),
        },
        _ => DASH.into(),
    }
}

pub use crate::overhead::CROSSING_BLOCKS;

/// What crossing from the page's JavaScript into the lab's WebAssembly costs a read: the
/// lab's cost less JavaScript's, from blocks of the same length taken in turn.
pub fn crossing(o: &OverheadResult) -> Option<String> {
    let (ns, own) = (o.per_read_ns?, o.own_per_read_ns?);
    // The least of a couple of long blocks is one stall away from the truth: beside a busy
    // loop Chromium's 100 µs clock gave 2 blocks of each, 248 ns through wasm against 49 ns
    // from JavaScript. Their difference is no cost of the crossing.
    if o.blocks < CROSSING_BLOCKS {
        return Some(format!(
            "What crossing into WebAssembly costs is not told: {} blocks of each caller, \
             fewer than the {CROSSING_BLOCKS} that tell it.",
            o.blocks
        ));
    }
    Some(if ns > own {
        format!(
            "Crossing from JavaScript into WebAssembly costs {} a read ({:.2}×; blocks of \
             each, of the same length, in turn).",
            duration(ns - own),
            ns / own
        )
    } else {
        "Crossing from JavaScript into WebAssembly costs nothing measurable.".into()
    })
}

/// The shortest block worth timing (the Rule of 100), or the dash.
pub fn min_block(c: &ClockReport) -> String {
    match &c.overhead {
        Some(o) if o.unusable.is_none() => match o.min_block_ns {
            Some(ns) => duration(ns),
            None => counts(o.min_block_counts),
        },
        _ => DASH.into(),
    }
}

/// What the machine serving the page measured for one of its clocks, for the lesson beside
/// the tick plots: a figure quoted with the machine it comes from.
pub fn served_machine_tick(cpu: &str, clock: &str, tick: &str, verdict: &str) -> String {
    format!(
        "On the machine serving this page ({cpu}) the lab measured {clock}'s tick at {tick} \
         ({verdict})."
    )
}

/// The least-values slope of the first fit per unit of work, or the dash.
pub fn slope(c: &ClockReport) -> String {
    c.fits.first().map_or(DASH.into(), |f| match f.slope_ns {
        _ if f.unusable.is_some() => DASH.into(),
        Some(s) => format!("{} per {}", duration(s), f.unit),
        None => format!("{:.4} counts per {}", f.least_values.line.slope, f.unit),
    })
}

/// Every note on a clock's result, in the order of the experiments: why it is unavailable,
/// what failed, the tick's caveats, the read cost's and the fits'. Each figure shown as a
/// dash has its note here.
pub fn notes(c: &ClockReport) -> Vec<String> {
    let mut lines = failures(c);
    if let Some(t) = &c.tick {
        lines.extend(t.caveats.iter().map(caveat));
        lines.extend(t.estimate.caveats.iter().map(caveat));
        lines.extend(t.edge_grid.as_ref().map(grid_note));
    }
    if let Some(o) = &c.overhead {
        lines.extend(o.unusable.iter().map(caveat));
        lines.extend(o.caveats.iter().map(caveat));
        if !o.rule_met && o.unusable.is_none() {
            lines.push(caveat(&Caveat::ShortBlocks {
                bound: o.block_error_bound,
            }));
        }
    }
    for f in &c.fits {
        lines.extend(f.unusable.iter().map(caveat));
        lines.extend(f.caveats.iter().map(caveat));
    }
    lines.extend(gaps_note(c));
    lines
}

/// Why a first, quick measurement has no tick, in a few words: the kind of its failure,
/// and that the full run says the rest. The first answer's module carries these words
/// alone: every cause's sentence would weigh a tenth of it.
pub fn failed_briefly(c: &ClockReport) -> String {
    let what = match c.errors.first().map(|e| e.kind) {
        Some(ErrorKind::Frozen) => "the clock did not move",
        Some(ErrorKind::TooSlow) => "a read took too long",
        Some(ErrorKind::Fault) => "the clock returned no time",
        Some(ErrorKind::NoData) => "too little to tell",
        Some(ErrorKind::BudgetExhausted) => "out of time",
        Some(ErrorKind::Cancelled) => "cancelled",
        _ => "it failed",
    };
    format!("not measured: {what}; the full run below says why")
}

/// Least share of a clock's watched time that gaps must have taken for its notes to say
/// so, when no interval was set aside for them (which says so anyway).
pub const GAPS_NOTE_SHARE: f64 = 0.01;

/// That the lab was not running for a noticeable share of a clock's experiments: a page in
/// a busy browser (a worker stalled), a command on a busy machine.
fn gaps_note(c: &ClockReport) -> Option<String> {
    let said = c.tick.as_ref().is_some_and(|t| {
        t.caveats
            .iter()
            .any(|k| matches!(k, Caveat::Starved { .. } | Caveat::TooBusy { .. }))
    });
    let g = c.gaps();
    let share = g.share()?;
    (!said && g.count > 0 && share >= GAPS_NOTE_SHARE).then(|| {
        format!(
            "the lab was not running for part of this clock's experiments ({}): the least \
             of many timings is kept, so a gap costs a timing, not the answer",
            caveat::gap_figures(g.count, g.lost_s, g.longest_s, share)
        )
    })
}

/// A report's gaps in words, for the benchmarks' load line: "no gap in 1.52 s watched", or
/// the figures.
pub fn gaps(g: &crate::run::Gaps) -> String {
    match g.share() {
        Some(share) if g.count > 0 => format!(
            "{} of {:.2} s watched",
            caveat::gap_figures(g.count, g.lost_s, g.longest_s, share),
            g.watched_s
        ),
        _ => format!("no gap in {:.2} s watched", g.watched_s),
    }
}

/// The run's gaps in a line, when it lost a noticeable share of its time: for the run's
/// notes and the benchmarks' load line.
pub fn run_gaps(report: &Report) -> Option<String> {
    let g = report.gaps();
    let share = g.share()?;
    (g.count > 0 && share >= GAPS_NOTE_SHARE).then(|| {
        format!(
            "the lab was not running for part of the run ({}): the machine or the browser \
             was busy",
            caveat::gap_figures(g.count, g.lost_s, g.longest_s, share)
        )
    })
}

/// How the clock's edges fall, beside its tick: "edges jittered", "no jitter seen", "edges
/// unclear"; nothing when too few reads fit in a tick to tell.
pub fn grid_label(t: &TickResult) -> Option<&'static str> {
    t.edge_grid.as_ref().map(|g| match g.grid {
        Grid::Jittered => "edges jittered",
        Grid::NotSeen => "no jitter seen",
        Grid::Unclear => "edges unclear",
    })
}

/// The grid's key, for programs ("jittered", "not_seen", "unclear").
pub fn grid_key(g: Grid) -> &'static str {
    match g {
        Grid::Jittered => "jittered",
        Grid::NotSeen => "not_seen",
        Grid::Unclear => "unclear",
    }
}

/// What the reads counted between edges say of the clock's grid, and what it means for
/// timing through interpolation (Schwarz et al., "Fantastic Timers").
pub fn grid_note(g: &EdgeGrid) -> String {
    let [p05, p25, median, p75, p95] = g.reads.map(|r| format!("{r:.0}"));
    let (c, pairs) = (g.correlation, g.pairs);
    let moved = percent(g.moved_share);
    match g.grid {
        Grid::Jittered => format!(
            "edges jittered: the reads between consecutive edges (median {median}, from {p05} \
             to {p95}) correlate {c:.2} with the next count, over {pairs} pairs, and {moved} of \
             the pairs are a moved edge, one tick over 1.3 times the median count beside one \
             as far under, together two ticks' worth: a late edge lengthens one tick and \
             shortens the next, as when each interval switches at its own point; \
             interpolation, which counts reads to the next edge, cannot time a run on this \
             clock"
        ),
        Grid::NotSeen => format!(
            "no jitter seen in the edges: {median} reads between consecutive edges (quartiles \
             {p25} and {p75}), each count correlating {c:.2} with the next over {pairs} pairs \
             (jittered edges give −0.5), as on a fixed grid, where interpolation can time runs \
             shorter than the tick; a weak jitter can hide in the noise of the pace"
        ),
        Grid::Unclear if g.skipped_share > crate::tick::grid::SKIPPED_SHARE => format!(
            "edges unclear: {} of the waits for an edge spanned two ticks or more (the reader \
             was not running through a whole tick), too often to tell a jittered edge from a \
             reading that was interrupted",
            percent(g.skipped_share)
        ),
        Grid::Unclear => format!(
            "edges unclear: the reads between consecutive edges (median {median}) correlate \
             {c:.2} with the next count over {pairs} pairs, between a fixed grid's (zero) and \
             jittered edges' (−0.5): a weak jitter, or noise in the pace of reading; more \
             edges, from a longer tick budget, may tell"
        ),
    }
}

/// What the reader should know of the run as a whole: a page hidden during it (browsers
/// throttle hidden pages), and an older report's own words.
pub fn run_notes(env: &Environment) -> Vec<String> {
    let mut lines = Vec::new();
    if env.hidden_during_run == Some(true) {
        lines.push(
            "the page was hidden during the run: browsers throttle hidden pages, so the sampled \
             clocks and timings may be off"
                .into(),
        );
    }
    lines.extend(env.notes.iter().cloned());
    lines
}

/// Who reads the words: the command's user or the page's visitor, who change different
/// things to get a figure that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Front {
    /// `ticklab`: options on its command line.
    Command,
    /// The page: its settings.
    Page,
}

/// What the reader can do about an experiment that failed with `kind` because of `cause`,
/// in their front end's terms; nothing when they can change nothing that would help.
pub fn advice(kind: ErrorKind, cause: &Caveat, front: Front) -> Option<&'static str> {
    match (kind, front) {
        // Only the command takes a range of sizes.
        (ErrorKind::NoData, Front::Command) if *cause == Caveat::FewerThanTwoSizes => {
            Some("widen --n")
        }
        (ErrorKind::Frozen | ErrorKind::TooSlow | ErrorKind::BudgetExhausted, Front::Command) => {
            Some("raise --time")
        }
        (ErrorKind::Frozen | ErrorKind::TooSlow | ErrorKind::BudgetExhausted, Front::Page) => {
            Some("raise the time budgets in Settings")
        }
        _ => None,
    }
}

/// [`failures`], each followed by what the reader of `front` can do about it.
pub fn failures_for(c: &ClockReport, front: Front) -> Vec<String> {
    failure_lines(c, Some(front))
}

/// Why a clock could not be measured, or which of its experiments failed and why: the first
/// of its [`notes`], and what a command that was asked for the clock fails with.
pub fn failures(c: &ClockReport) -> Vec<String> {
    failure_lines(c, None)
}

fn failure_lines(c: &ClockReport, front: Option<Front>) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    if let Some(r) = &c.unavailable_reason {
        lines.push(format!("not available here: {r}"));
    }
    for e in &c.errors {
        let mut line = format!("{} failed: {}", e.experiment, caveat(&e.cause));
        if let Some(a) = front.and_then(|f| advice(e.kind, &e.cause, f)) {
            line.push_str(&format!(" ({a})"));
        }
        lines.push(line);
    }
    lines
}

/// A counter's frequency, measured and claimed: "TSC: 2445.406 MHz measured against …".
pub fn frequency(f: &CounterFrequency) -> String {
    let mut s = format!("{}: ", f.clock);
    match (f.measured_hz, &f.against) {
        (Some(hz), Some(a)) => s.push_str(&format!("{:.3} MHz measured against {a}", hz / 1e6)),
        _ => s.push_str("frequency not measured (no clock of this counter ran)"),
    }
    for c in &f.claims {
        s.push_str(&format!("; {:.3} MHz by {}", c.hz / 1e6, c.source));
    }
    if let Some(inv) = f.invariant {
        s.push_str(if inv {
            "; invariant"
        } else {
            "; not invariant"
        });
    }
    s
}

/// The columns of [`SummaryRow::cells`].
pub const SUMMARY_COLUMNS: [&str; 8] = [
    "clock",
    "claimed",
    "tick",
    "verdict",
    "explains",
    "read cost",
    "shortest block",
    "fit slope",
];

/// The columns of the page's comparison of its clocks with a native report's.
pub const COMPARE_COLUMNS: [&str; 5] = ["clock", "tick", "claimed", "read cost", "fit slope"];

/// One clock's line of the summary, every cell in words, with its notes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SummaryRow {
    /// The cells under [`SUMMARY_COLUMNS`].
    pub cells: Vec<String>,
    /// Every note ([`notes`]).
    pub notes: Vec<String>,
    /// The tick in ns, for ordering; not shown.
    pub tick_ns: Option<f64>,
    /// How the edges fall ([`grid_key`]), when known; not shown.
    pub grid: Option<&'static str>,
}

impl SummaryRow {
    /// The row of clock `c` of a report whose counters are `counters`. A clock that is not
    /// available here says so where its tick would be, and has dashes for its figures.
    pub fn new(c: &ClockReport, counters: &[CounterFrequency]) -> Self {
        let cells = if c.available {
            // Jitter beside the tick ("100.000 µs, edges jittered"); a fixed grid in the notes.
            let jittered = c.tick.as_ref().and_then(|t| t.edge_grid.as_ref());
            vec![
                c.info.name.clone(),
                claimed(c),
                match (
                    jittered.filter(|g| g.grid == Grid::Jittered),
                    c.tick.as_ref(),
                ) {
                    (Some(_), Some(t)) => {
                        format!(
                            "{}, {}",
                            tick(c, counters),
                            grid_label(t).unwrap_or_default()
                        )
                    }
                    _ => tick(c, counters),
                },
                verdict(c),
                explains(c),
                read_cost(c),
                min_block(c),
                slope(c),
            ]
        } else {
            let mut cells = vec![DASH.to_string(); SUMMARY_COLUMNS.len()];
            cells[0] = c.info.name.clone();
            cells[1] = claimed(c);
            cells[2] = "not available".into();
            cells
        };
        Self {
            cells,
            notes: notes(c),
            tick_ns: c.tick.as_ref().and_then(|t| t.told_ns()),
            grid: c
                .tick
                .as_ref()
                .and_then(|t| t.edge_grid.as_ref())
                .map(|g| grid_key(g.grid)),
        }
    }

    /// The cell under `column` of [`SUMMARY_COLUMNS`] ("tick", "read cost"...).
    pub fn cell(&self, column: &str) -> &str {
        SUMMARY_COLUMNS
            .iter()
            .position(|c| *c == column)
            .and_then(|i| self.cells.get(i))
            .map_or(DASH, String::as_str)
    }
}

/// The tick result in a sentence, as the page writes it under the tick plots.
pub fn tick_detail(c: &ClockReport, counters: &[CounterFrequency]) -> Option<String> {
    let t = c.tick.as_ref()?;
    let e: &TickEstimate = &t.estimate;
    let smallest = counts_or_duration(e.smallest_nonzero, t.ns_per_count);
    let diff_sort = e
        .smallest_diff_sort
        .map_or(DASH.into(), |d| counts_or_duration(d, t.ns_per_count));
    let claim = match &c.info.claimed {
        Some(k) => format!("{} by {}", duration(k.ns), k.source),
        None => "nothing".into(),
    };
    Some(format!(
        "Tick {} ({}; explains {} of {} intervals). Smallest difference {smallest}; smallest \
         step of the sorted values {diff_sort}; Krutar's GCD over whole counts {}. Claimed: \
         {claim}; {}. {} edges, {} timings in {:.2} s.",
        tick(c, counters),
        method_label(e.method),
        percent(e.share_explained),
        e.intervals,
        counts_or_duration(t.exact_gcd as f64, t.ns_per_count),
        verdict_label(t.verdict),
        t.edges,
        t.timings,
        t.elapsed_s,
    ))
}

/// The read cost in a sentence, as the page writes it under the overhead plot.
pub fn overhead_detail(c: &ClockReport) -> Option<String> {
    let o = c.overhead.as_ref()?;
    Some(match &o.unusable {
        Some(why) => format!("Read cost: {DASH} ({}).", caveat(why)),
        None => {
            format!(
            "One read costs {} (the least over {} blocks of {} reads; median {}). Time nothing \
             shorter than {} (the Rule of 100).",
            read_cost(c),
            o.blocks,
            o.block_reads,
            counts_or_duration(
                o.distribution.median,
                o.per_read_ns.map(|n| n / o.per_read_counts)
            ),
            min_block(c),
        ) + &crossing(o).map(|w| format!(" {w}")).unwrap_or_default()
        }
    })
}

/// A fit's least-squares slope with its standard error ("0.2451 ns ± 0.3 ps per
/// iteration"), in counts when the period is unknown; a dash when the fit is unusable.
pub fn least_squares(f: &crate::fit::FitResult) -> String {
    match f.ols_slope_ns {
        _ if f.unusable.is_some() => DASH.into(),
        Some(s) => format!(
            "{} ± {} per {}",
            duration(s),
            duration(f.ols.slope_stderr * f.ns_per_count.unwrap_or(1.0)),
            f.unit
        ),
        None => format!("{:.4} counts per {}", f.ols.line.slope, f.unit),
    }
}

/// The first fit in a sentence, as the page writes it under the fit plots.
pub fn fit_detail(c: &ClockReport) -> Option<String> {
    let f = c.fits.first()?;
    Some(match &f.unusable {
        Some(why) => format!("{}: slope {DASH} ({}).", f.workload, caveat(why)),
        None => format!(
            "{}: {} by the least-values fit; least squares says {} per {}. {} sizes, tick {}.",
            f.workload,
            slope(c),
            match f.ols_slope_ns {
                Some(s) => duration(s),
                None => format!("{:.4} counts", f.ols.line.slope),
            },
            f.unit,
            f.points.len(),
            counts_or_duration(f.tick_counts, f.ns_per_count),
        ),
    })
}

/// The columns of the multiply's table, as [`cpu_wall_cells`] fills them.
pub const CPU_WALL_COLUMNS: [&str; 6] = [
    "N",
    "wall",
    "process CPU",
    "thread CPU",
    "MFLOPS (wall)",
    "MFLOPS (thread CPU)",
];

/// The multiply's rows in words, under [`CPU_WALL_COLUMNS`].
pub fn cpu_wall_cells(r: &CpuWall) -> Vec<Vec<String>> {
    let secs = |s: f64| duration(s * 1e9);
    let opt = |s: Option<f64>| s.map_or(DASH.into(), secs);
    r.matmul
        .iter()
        .map(|row| {
            vec![
                row.n.to_string(),
                secs(row.wall_s),
                opt(row.process_cpu_s),
                opt(row.thread_cpu_s),
                format!("{:.0}", row.mflops_wall),
                row.mflops_cpu.map_or(DASH.into(), |v| format!("{v:.0}")),
            ]
        })
        .collect()
}

/// What goes above the multiply's table, and the memory passes below it.
pub fn cpu_wall_words(r: &CpuWall) -> (String, String) {
    let c = &r.cold_vs_warm;
    (
        format!("matrix multiply, minimum of {} runs per N:", r.runs),
        format!(
            "sum of square roots over {} MiB of fresh memory:\n  first pass (cold: page \
             faults) {}\n  warm passes (minimum of 4)     {}\n  cold / warm {:.2}; the sum is \
             {} because fresh memory is zero-filled",
            c.mib,
            duration(c.cold_s * 1e9),
            duration(c.warm_s * 1e9),
            c.ratio,
            c.sum
        ),
    )
}

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
fn times(r: f64) -> String {
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

#[cfg(test)]
mod tests {
    #[test]
    fn the_crossing_is_told_only_from_enough_blocks() {
        let mut r = ClockReport::new(crate::clock::ClockInfo::new(
            "performance.now",
            crate::clock::ClockKind::Monotonic,
            crate::clock::CountPeriod::NANOSECOND,
        ));
        r.overhead = Some(OverheadResult {
            per_read_counts: 64.0,
            per_read_ns: Some(64.0),
            block_reads: 4096,
            rule_met: true,
            block_error_bound: 0.01,
            blocks: 20,
            distribution: crate::stats::Summary::of(&[64.0]).unwrap(),
            samples: vec![],
            min_block_counts: 1e4,
            min_block_ns: Some(1e4),
            elapsed_s: 0.1,
            stop: crate::run::Stop::Time,
            caveats: vec![],
            pace: None,
            doubling: vec![],
            unusable: None,
            gaps: Default::default(),
            own_per_read_counts: Some(48.0),
            own_per_read_ns: Some(48.0),
        });
        let o = r.overhead.as_mut().unwrap();
        assert!(
            crossing(o)
                .unwrap()
                .contains("costs 16.00 ns a read (1.33×"),
            "{:?}",
            crossing(o)
        );
        o.blocks = 2;
        assert!(
            crossing(o).unwrap().contains("not told: 2 blocks"),
            "{:?}",
            crossing(o)
        );
        assert_eq!(read_cost(&r), "48.00 ns (wasm 64.00 ns)");
    }

    #[test]
    fn an_interruption_in_words_and_an_older_reports_sentence() {
        let mut r = Report::new(Default::default());
        assert_eq!(interrupted(&r), None);
        r.interruption = Some(crate::report::Interruption {
            clock: "rdtsc".into(),
            during: true,
            measured: 3,
            total: 9,
        });
        assert_eq!(
            interrupted(&r).unwrap(),
            "interrupted (Ctrl-C) during rdtsc, which is kept in part: 3 of 9 clocks measured"
        );
        let mut old = Report::new(Default::default());
        old.interrupted = Some("interrupted (Ctrl-C) before gettimeofday: 2 of 9".into());
        assert_eq!(interrupted(&old), old.interrupted);
    }

    #[test]
    fn a_ranking_in_words() {
        use crate::ranking::{Ranking, Step};
        let s = |name: &str, ns: f64, cadence: bool| Step {
            name: name.into(),
            ns,
            cadence,
        };
        let now = "performance.now";
        let r = Ranking::of(
            vec![
                s("rAF", 16.8e6, true),
                s(now, 100_000.0, false),
                s("MessageChannel", 8_000.0, false),
            ],
            now,
            now,
        )
        .unwrap();
        let words = ranking(&r, "this page built");
        assert!(
            words.starts_with(
                "Finest clock this page built: MessageChannel, 8.000 µs: 13× finer than \
                 performance.now (100.000 µs). All, finest first: MessageChannel 8.000 µs"
            ),
            "{words}"
        );
        assert!(words.contains("rAF 16.800 ms (its updates)"), "{words}");
        let r = Ranking::of(
            vec![s("rAF", 16.8e6, true), s(now, 100_000.0, false)],
            now,
            now,
        );
        let words = ranking(&r.unwrap(), "this page built");
        assert!(
            words.contains("no clock this page built is finer than performance.now"),
            "{words}"
        );
        let r = Ranking::of(vec![s("rdtsc", 0.385, false)], "Instant", "Instant").unwrap();
        let words = ranking(&r, "this machine has");
        assert!(
            words.contains("rdtsc, 0.3850 ns: Instant was not measured"),
            "{words}"
        );
        assert_eq!(times(1234.4), "1\u{2009}234×");
        assert_eq!(times(1.84), "1.8×");
    }

    use super::*;
    use crate::clock::{ClockInfo, CountPeriod};

    #[test]
    fn a_hidden_page_is_said_from_its_flag_and_an_older_reports_words_kept() {
        let mut env = Environment::default();
        assert!(run_notes(&env).is_empty());
        env.hidden_during_run = Some(false);
        assert!(run_notes(&env).is_empty());
        env.hidden_during_run = Some(true);
        env.notes = vec!["an older report's note".into()];
        let lines = run_notes(&env);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].contains("hidden during the run"), "{lines:?}");
        assert_eq!(lines[1], "an older report's note");
    }

    #[test]
    fn each_front_end_gets_its_own_advice_and_the_notes_none() {
        let e = crate::Error::BudgetExhausted {
            experiment: "fit",
            why: Caveat::NoTwoSizes { budget_s: 0.1 },
        };
        let mut c = ClockReport::new(ClockInfo::new(
            "c",
            ClockKind::Synthetic,
            CountPeriod::Unknown,
        ));
        c.errors
            .push(crate::report::ExperimentError::new("fit", &e));
        let command = failures_for(&c, Front::Command).join("");
        let page = failures_for(&c, Front::Page).join("");
        assert!(command.ends_with("(raise --time)"), "{command}");
        assert!(
            page.ends_with("(raise the time budgets in Settings)"),
            "{page}"
        );
        assert!(!page.contains("--"), "{page}");
        for n in notes(&c) {
            assert!(!n.contains("raise"), "{n}");
        }
        // A cancelled run is not helped by a longer budget.
        assert!(command.contains("fit failed: the time budget of 0.1 s ended before two"));
        assert_eq!(
            advice(ErrorKind::Cancelled, &Caveat::Cancelled, Front::Page),
            None
        );
        let few = Caveat::FewerThanTwoSizes;
        assert_eq!(
            advice(ErrorKind::NoData, &few, Front::Command),
            Some("widen --n")
        );
        assert_eq!(advice(ErrorKind::NoData, &few, Front::Page), None);
    }

    #[test]
    fn durations_take_their_unit() {
        assert_eq!(duration(41.666), "41.67 ns");
        assert_eq!(duration(0.40891), "0.4089 ns");
        assert_eq!(duration(100_000.0), "100.000 µs");
        assert_eq!(duration(4e6), "4.000 ms");
        assert_eq!(duration(1e9), "1.000 s");
        assert_eq!(duration(f64::NAN), DASH);
        assert_eq!(
            duration_digits(10.01479, 0.00031),
            ("10.01479".into(), "0.00031".into(), "ns")
        );
        assert_eq!(duration_digits(4.2e6, 3e3).2, "ms");
        assert_eq!(counts(26.0), "26 counts");
        assert_eq!(counts(24.5), "24.5000 counts");
    }

    #[test]
    fn half_counts_are_named_and_odd_fractions_are_not() {
        assert_eq!(whole_or_half(24.495).as_deref(), Some("24.5"));
        assert_eq!(whole_or_half(26.01).as_deref(), Some("26"));
        assert_eq!(whole_or_half(2445.4), None);
    }

    #[test]
    fn an_unavailable_clock_says_why_and_shows_dashes() {
        let c = ClockReport::unavailable(
            ClockInfo::new("x", ClockKind::Counter, CountPeriod::Unknown),
            "not an x86-64 CPU",
        );
        let r = SummaryRow::new(&c, &[]);
        assert_eq!(r.cell("tick"), "not available");
        assert_eq!(r.cell("read cost"), DASH);
        assert_eq!(r.notes, vec!["not available here: not an x86-64 CPU"]);
        assert_eq!(r.cells.len(), SUMMARY_COLUMNS.len());
    }
}
