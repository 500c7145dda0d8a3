//! Caveats, and the reasons figures are dashes, in words: the one place they are made.

use super::duration;
use super::units::{duration as in_unit, short};
use crate::caveat::{Cadence, Caveat};

/// Its kind and its words: a derived form would put every variant's and field's name in
/// the page's first module. Here, beside the words, so the caveat's own module imports
/// nothing above it. In the page, its kind alone: an `unwrap` anywhere would otherwise
/// bring every caveat's sentence into the first answer's module, a tenth of its weight.
impl std::fmt::Debug for Caveat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `cfg!`, not `#[cfg]`: both arms are compiled and linted on every target (the
        // core has no code for one target alone), and the page's build drops the words.
        if cfg!(target_arch = "wasm32") {
            f.write_str(self.kind())
        } else {
            write!(f, "{}: {}", self.kind(), caveat(self))
        }
    }
}

/// The gaps a run saw, in words: "6 gaps, 24.0 ms in all (8.0% of the time), the longest
/// 4.00 ms".
pub fn gap_figures(gaps: u64, lost_s: f64, longest_s: f64, share: f64) -> String {
    format!(
        "{gaps} gap{}, {} in all ({} of the time), the longest {}",
        if gaps == 1 { "" } else { "s" },
        duration(lost_s * 1e9),
        super::percent(share),
        duration(longest_s * 1e9)
    )
}

/// A caveat, or the reason a figure is a dash, in words: the one place they are made.
pub fn caveat(c: &Caveat) -> String {
    readings(c)
        .or_else(|| tick(c))
        .or_else(|| cost_and_fit(c))
        .or_else(|| failure(c))
        // Every kind has words of its own (a test holds each to it).
        .unwrap_or_else(|| unsaid(c))
}

/// The words of a kind that has none of its own (none has: a test holds each).
pub(crate) fn unsaid(c: &Caveat) -> String {
    format!("a caveat of kind {}", c.kind())
}

/// How the readings went: their cadence, gaps, changes, values.
fn readings(c: &Caveat) -> Option<String> {
    Some(match c {
        Caveat::ChangesEveryReadDithered => "the value changed at nearly every read: the tick \
             comes from the dithered timings, whose lengths varied over two reads' worth of work"
            .into(),
        Caveat::ChangesEveryRead => "the value changed at nearly every read: the tick is at \
             most one read's cost, and comes from the GCD of the varied intervals"
            .into(),
        Caveat::BoundByCadence { cadence } => format!(
            "no interval was shorter than the {}: the tick found is only an upper bound",
            match cadence {
                Cadence::Reading => "reading cadence",
                Cadence::Sampling => "sampling cadence (a frame, a task)",
            }
        ),
        Caveat::Backwards { differences } => format!(
            "{differences} differences went backwards (the clock is not monotonic); they were \
             left out"
        ),
        Caveat::FewEdges { edges } => format!(
            "only {edges} edges seen within the budget that no gap broke, where a tick rests on \
             {}: too few for a coarse clock's tick to be sure (at most a bound)",
            crate::tick::MIN_EDGES
        ),
        Caveat::Starved {
            intervals,
            of,
            gaps,
            lost_s,
            longest_s,
            share,
        }
        | Caveat::TooBusy {
            intervals,
            of,
            gaps,
            lost_s,
            longest_s,
            share,
        } => {
            let too_busy = matches!(c, Caveat::TooBusy { .. });
            if too_busy && *intervals == 0 {
                return Some(format!(
                    "the machine was too busy to tell: the lab was not running for much of \
                     the run ({}), and no grid fits the {of} intervals it saw (a reading that \
                     was not running may miss a step); run it again on a quieter machine (or \
                     for longer)",
                    gap_figures(*gaps, *lost_s, *longest_s, *share)
                ));
            }
            format!(
                "{}{intervals} of {of} intervals straddled times the lab was not running ({}), \
                 and a reading that was not running may miss a step: {}",
                if too_busy {
                    "the machine was too busy to tell: "
                } else {
                    ""
                },
                gap_figures(*gaps, *lost_s, *longest_s, *share),
                if too_busy {
                    "they only bound the tick; run it again on a quieter machine (or for longer)"
                } else {
                    "they were set aside, and the tick comes from the rest"
                }
            )
        }
        Caveat::NotNumbers { line, text } => format!(
            "not read: line {line} holds '{text}', which is no duration or reading (a number \
             not below zero)"
        ),
        Caveat::NoValues => "not read: the column holds no value".into(),
        Caveat::Sampled => "sampled at moments the platform chose, not edge to edge: every \
             interval is a multiple of the tick, but a tick finer than the sampling spread may \
             be missed"
            .into(),
        Caveat::FewChanges { changes } => format!("only {changes} changes seen: sample for longer"),
        Caveat::Counted => "a count of events: its tick is one event, as long as the count's \
             rate against performance.now says; single events vary about it"
            .into(),
        Caveat::OneValue { readings } => {
            format!("all {readings} values were the same: no difference between them shows a step")
        }
        Caveat::FewInputEvents { events } => format!(
            "Event Timing has timed {events} input events of this page: it times only clicks, \
             taps and keys that take 16 ms or more, and the first one; use the page a while \
             (click, type), then run again"
        ),
        Caveat::BadReadings { readings } => {
            format!("{readings} readings were not finite non-negative times; left out")
        }
        _ => return None,
    })
}

/// What the tick's estimate found, and what limits it.
fn tick(c: &Caveat) -> Option<String> {
    Some(match c {
        Caveat::SingleLevel => "every interval has the same length: the tick divides it but may \
             be smaller; vary the intervals to see further"
            .into(),
        Caveat::FewIntervals { intervals } => format!(
            "only {intervals} positive intervals: the tick is an upper bound; more intervals can \
             only lower it"
        ),
        Caveat::GcdSpoiled { gcd } => {
            format!("the exact GCD is {gcd}: some intervals are not whole multiples of the tick")
        }
        Caveat::Beats { beats } => format!(
            "the values span few multiples of the tick: {} fit{} them as well, and the \
             uncertainty spans {}",
            beats
                .iter()
                .map(|b| short(*b))
                .collect::<Vec<_>>()
                .join(" and "),
            if beats.len() == 1 { "s" } else { "" },
            if beats.len() == 1 { "it" } else { "them" }
        ),
        Caveat::Ambiguous { ticks } => format!(
            "the values sit on too few levels to choose between ticks of {}, which \
             explain them about as well; no tick is given (a timer's intervals pile up near \
             its period: time intervals of more varied lengths to tell)",
            ticks
                .iter()
                .map(|b| short(*b))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Caveat::Straddles { share, a, b } => format!(
            "{:.2}% of the intervals are straddles: reads that caught the clock mid-step, in \
             pairs that add up to whole ticks ({} + {} = {})",
            share * 100.0,
            short(*a),
            short(*b),
            short(a + b)
        ),
        Caveat::NotMultiples { share } => format!(
            "{:.2}% of the intervals are not multiples of the tick (outliers, steps or noise)",
            share * 100.0
        ),
        Caveat::BelowReach { reached, precision } => format!(
            "no tick tried, from {} up, explains the intervals beyond chance: the tick is at \
             most that; finer ones, down to the data's own precision ({}), cannot be searched \
             for in values this long",
            short(*reached),
            short(*precision)
        ),
        Caveat::Storage { bound, spacing } => format!(
            "the values lie on the grid of the doubles that held their readings, {} apart: \
             storage, not a clock; a difference of two readings errs by a step of it, and \
             nothing coarser than {} explains them: the tick is at most that",
            short(*spacing),
            short(*bound)
        ),
        Caveat::AtPrecision { precision } => format!(
            "nothing coarser than the data's own precision ({}) explains the intervals beyond \
             chance: the tick is at most that",
            short(*precision)
        ),
        Caveat::ClosestValues { closest, precision } => format!(
            "no two values lie closer than {} but by rounding: the tick is at most that, \
             and may be as fine as the data's precision ({})",
            short(*closest),
            short(*precision)
        ),
        Caveat::NoStep => "no tick found: the values lie on no step (doubles at full \
             precision); averages over many runs have no tick"
            .into(),
        Caveat::BestCandidate {
            tick,
            explains,
            chance,
        } => format!(
            "the best candidate, {}, explains {:.1}% of the intervals where chance gives \
             {:.1}%: too few for a tick",
            short(*tick),
            explains * 100.0,
            chance * 100.0
        ),
        Caveat::InsidePiles { differences } => format!(
            "told by the {differences} differences between values inside their piles: the \
             values are too many ticks long to tell it"
        ),
        Caveat::SharedOffset { reference, unit } => format!(
            "the values share an offset: their differences from one of them ({}) are \
             multiples of the tick, the values themselves are not",
            in_unit(*reference, *unit)
        ),
        Caveat::OnlyPrinting {
            tick,
            shown,
            values,
            share,
            digits,
            precision,
            unit,
        } => format!(
            "{} fits the values only as each one's printing makes it: {shown} of the {values} \
             values are written finely enough to show a step of it, and it explains {:.1}% \
             of those; the values are written to {digits} significant digits, so their \
             precision changes with their size (down to {} here), and they show no clock's \
             tick",
            in_unit(*tick, *unit),
            share * 100.0,
            in_unit(*precision, *unit),
        ),
        _ => return None,
    })
}

/// What limits a read's cost, a fit, and a file's timings.
fn cost_and_fit(c: &Caveat) -> Option<String> {
    Some(match c {
        Caveat::StoodStill { still, blocks } => format!(
            "the clock stood still through {still} of {blocks} blocks: it advances irregularly, \
             so the cost of a read is uncertain"
        ),
        Caveat::ReadsNotCounted { clock, pace } => format!(
            "{clock} advanced {:.1}% as fast as the stopwatch while it was read: it does not \
             count the time its own reads take (a CPU clock charges a system call elsewhere), \
             so the cost of a read it gives cannot be right",
            pace * 100.0
        ),
        Caveat::Undercounts {
            reads,
            min,
            max,
            median,
        } => format!(
            "blocks of the same {reads} reads took from {min:.3} to {max:.3} counts a read by \
             this clock (median {median:.3}), and the stopwatch timed the least of them at over \
             twice what the clock counted: interference only lengthens a block, so this clock \
             undercounts at times, and the least cost cannot be right"
        ),
        Caveat::OwnDearer { own, lab } => format!(
            "the page's own JavaScript read this clock at {own:.3} counts a read at best, \
             dearer than the lab's reads through WebAssembly ({lab:.3}), which make the same \
             call and cross into WebAssembly besides: its loop never ran at its best (an \
             engine compiles it on threads a busy machine starves), so what a page's code \
             pays a read is not told"
        ),
        Caveat::ShortBlocks { bound } => format!(
            "overhead blocks shorter than the Rule of 100 asks: error up to {:.1}%",
            bound * 100.0
        ),
        Caveat::CostLostInTick { bound } => format!(
            "overhead blocks shorter than the Rule of 100 asks: error up to {:.1}%, so the \
             cost of a read is lost in the tick and is not shown",
            bound * 100.0
        ),
        Caveat::BelowBase { ns, base_ns, base } => format!(
            "a read measured at {}, less than the {} of {base}, which it reads underneath: its \
             blocks were too coarse to show the cost, so it is not shown",
            duration(*ns),
            duration(*base_ns),
        ),
        Caveat::WorkNotSeen { clock, pace } => format!(
            "{clock} advanced {:.1}% as fast as the stopwatch over the timed runs: it does not \
             see the work (a CPU clock of the wrong kind, or one that stalls), so the slope it \
             gives cannot be right",
            pace * 100.0
        ),
        Caveat::EdgesNotTime { clock, pace } => format!(
            "{clock} advanced {:.1}% as fast as the stopwatch over the timed runs: its edges \
             are not the time's, so the slope it gives cannot be right",
            pace * 100.0
        ),
        Caveat::SlopeNotPositive => "the fitted slope is not positive, which work that takes \
             time cannot give: the work is too small for this clock"
            .into(),
        Caveat::Interpolated {
            tick_ns,
            reads_per_tick,
            count_ns,
        } => format!(
            "timed through interpolation (Schwarz et al., \"Fantastic Timers\"): each run began \
             on an edge of the {} tick and ended by counting reads to the next, {reads_per_tick} \
             reads a tick, one count {}",
            duration(*tick_ns),
            duration(*count_ns)
        ),
        Caveat::TargetIgnored => "target duration ignored: the clock's period is unknown".into(),
        Caveat::CalibrationStopped { n, target_counts } => {
            format!("calibration stopped at N = {n} before a run lasted {target_counts:.0} counts")
        }
        Caveat::TimingsBackwards { timings } => {
            format!("{timings} timings went backwards and were left out")
        }
        Caveat::TwoSizesOnly { because } => format!("two sizes only: {}", caveat(because)),
        Caveat::IterationTotals { lo, hi } => {
            format!("each sample times {lo} to {hi} iterations; their totals are analysed")
        }
        Caveat::RoundTimes { iterations } => format!(
            "each round timed {iterations} iterations and was divided by them; the round \
             times are analysed"
        ),
        Caveat::Text { text } => text.clone(),
        Caveat::Recalibrated { before, after } => format!(
            "the work ran far faster once timed than when its sizes were chosen (an engine \
             that compiles hot code again, optimised): they were chosen again, the largest \
             {after} instead of {before}"
        ),
        _ => return None,
    })
}

/// Why an experiment failed, or a figure is a dash.
fn failure(c: &Caveat) -> Option<String> {
    Some(match c {
        Caveat::Frozen { elapsed_s, reads } => format!(
            "did not advance in {elapsed_s:.3} s ({reads} reads): it is frozen, or its tick is \
             longer than the time budget"
        ),
        Caveat::TooSlow {
            experiment,
            read_s,
            budget_s,
            min_reads,
        } => format!(
            "takes {read_s:.3e} s per read: fewer than {min_reads} reads fit in the {budget_s} s \
             budget of the {experiment} experiment"
        ),
        Caveat::NotATime { value } => {
            format!("returned {value}, which is not a finite non-negative time")
        }
        Caveat::Overflow { value } => format!("returned {value}, too large for 64-bit counts"),
        Caveat::Stalled { reads } => format!("its coarse clock did not change in {reads} reads"),
        Caveat::Cancelled => "cancelled".into(),
        Caveat::NoHalfTickRun { budget_s, tick_s } => format!(
            "the time budget of {budget_s} s ended before a run of half a tick ({})",
            duration(tick_s * 5e8)
        ),
        Caveat::NoRunPerSize {
            budget_s,
            points,
            run_ns,
            total_ns,
        } => format!(
            "the time budget of {budget_s} s ended before a run at each of {points} sizes, runs \
             of {} each on this clock (about {} with calibration)",
            duration(*run_ns),
            duration(*total_ns)
        ),
        Caveat::NoTwoSizes { budget_s } => {
            format!("the time budget of {budget_s} s ended before two sizes were timed")
        }
        Caveat::NoSteadyBlock { budget_s } => format!(
            "the time budget of {budget_s} s ended before a block of reads that did not step \
             backwards"
        ),
        Caveat::NoFiniteValue => "no finite value to summarise".into(),
        Caveat::NeverAdvanced => {
            "no non-zero interval: the clock never advanced between readings".into()
        }
        Caveat::NoPositiveInterval {
            values,
            zeros,
            refused,
        } => format!(
            "no positive finite interval among {values} values ({zeros} zero, {refused} refused)"
        ),
        Caveat::IntervalsTooLarge { largest } => {
            format!("the intervals are too large to estimate a tick from (largest {largest:e})")
        }
        Caveat::TooFewReadings { readings } => {
            format!("{readings} readings; at least 3 are needed")
        }
        Caveat::ReferenceTimedNoRun => "the reference clock timed no run".into(),
        Caveat::FewerThanTwoSizes => "fewer than two distinct sizes to fit".into(),
        Caveat::NoFiniteSlope => "the x values are too close together (or the y values too far \
             apart) for a finite slope"
            .into(),
        Caveat::FewerThanTwoPoints => "a line needs at least two points".into(),
        Caveat::FewerThanTwoXs => "a line needs at least two distinct finite x values".into(),
        Caveat::SpanTooWide => {
            "the points span too many orders of magnitude for a line under them all".into()
        }
        Caveat::NoPointForStaircase => "no point to fit a staircase to".into(),
        Caveat::AudioSuspended => "the audio context is suspended, so its clocks stand still: \
             browsers let a page play sound, and run its audio clock, only after a click or key \
             on it that they accept, and this one has had none"
            .into(),
        _ => return None,
    })
}
