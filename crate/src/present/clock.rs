//! One clock's figures in words: its tick, claim, verdict, read cost, notes and failures.

use super::*;

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
        (ErrorKind::NoData, Front::Command) if matches!(cause, Caveat::FewerThanTwoSizes) => {
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
