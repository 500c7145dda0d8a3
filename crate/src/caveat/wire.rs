//! A caveat as a report holds it, `{"caveat": kind, ...figures}`, read and written by hand:
//! a derived enum (or one flat record of every field) costs the page's module a copy of
//! serde's code per variant or per field, over 60 KB; this costs one per type. An older
//! report's sentence reads as [`Caveat::Text`].

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Cadence, Caveat};
use crate::unit::Unit;

/// A figure of a caveat, as a report holds it.
enum Figure {
    Count(u64),
    Number(f64),
    Digits(i32),
    Words(String),
    Numbers(Vec<f64>),
    Cadence(Cadence),
    Unit(Option<Unit>),
    Caveat(Box<Caveat>),
}

/// The type of a caveat's field.
#[derive(Clone, Copy)]
enum Ty {
    Count,
    Number,
    Digits,
    Words,
    Numbers,
    Cadence,
    Unit,
    Caveat,
}

/// The type of each field a caveat may have. Read and written by hand, not derived: a
/// derived enum (or one flat record of every field) costs the page's module a copy of
/// serde's code per variant or per field, over 60 KB; this costs one per type.
const FIELDS: &[(&str, Ty)] = &[
    ("cadence", Ty::Cadence),
    ("differences", Ty::Count),
    ("edges", Ty::Count),
    ("changes", Ty::Count),
    ("events", Ty::Count),
    ("readings", Ty::Count),
    ("intervals", Ty::Count),
    ("gcd", Ty::Count),
    ("beats", Ty::Numbers),
    ("ticks", Ty::Numbers),
    ("share", Ty::Number),
    ("a", Ty::Number),
    ("b", Ty::Number),
    ("reached", Ty::Number),
    ("precision", Ty::Number),
    ("tick", Ty::Number),
    ("explains", Ty::Number),
    ("chance", Ty::Number),
    ("reference", Ty::Number),
    ("unit", Ty::Unit),
    ("shown", Ty::Count),
    ("values", Ty::Count),
    ("digits", Ty::Digits),
    ("still", Ty::Count),
    ("blocks", Ty::Count),
    ("clock", Ty::Words),
    ("pace", Ty::Number),
    ("reads", Ty::Count),
    ("min", Ty::Number),
    ("max", Ty::Number),
    ("median", Ty::Number),
    ("bound", Ty::Number),
    ("ns", Ty::Number),
    ("base_ns", Ty::Number),
    ("base", Ty::Words),
    ("tick_ns", Ty::Number),
    ("reads_per_tick", Ty::Count),
    ("count_ns", Ty::Number),
    ("n", Ty::Count),
    ("target_counts", Ty::Number),
    ("timings", Ty::Count),
    ("why", Ty::Words),
    ("lo", Ty::Number),
    ("hi", Ty::Number),
    ("iterations", Ty::Number),
    ("text", Ty::Words),
    ("because", Ty::Caveat),
    ("elapsed_s", Ty::Number),
    ("experiment", Ty::Words),
    ("read_s", Ty::Number),
    ("budget_s", Ty::Number),
    ("min_reads", Ty::Count),
    ("value", Ty::Number),
    ("tick_s", Ty::Number),
    ("points", Ty::Count),
    ("run_ns", Ty::Number),
    ("total_ns", Ty::Number),
    ("zeros", Ty::Count),
    ("refused", Ty::Count),
    ("largest", Ty::Number),
    ("of", Ty::Count),
    ("gaps", Ty::Count),
    ("lost_s", Ty::Number),
    ("before", Ty::Count),
    ("line", Ty::Count),
    ("after", Ty::Count),
    ("longest_s", Ty::Number),
];

/// A caveat's fields as read, before they are checked against its kind.
struct Read {
    kind: String,
    fields: Vec<(&'static str, Figure)>,
}

impl Read {
    fn take(&mut self, name: &str) -> Result<Figure, String> {
        let at = self.fields.iter().position(|(n, _)| *n == name);
        match at {
            Some(i) => Ok(self.fields.swap_remove(i).1),
            None => Err(format!(
                "a caveat \"{}\" without its field `{name}`",
                self.kind
            )),
        }
    }
    fn wrong(&self, name: &str) -> String {
        format!(
            "a caveat \"{}\" whose `{name}` is of the wrong type",
            self.kind
        )
    }
    fn count(&mut self, name: &str) -> Result<u64, String> {
        match self.take(name)? {
            Figure::Count(v) => Ok(v),
            _ => Err(self.wrong(name)),
        }
    }
    fn number(&mut self, name: &str) -> Result<f64, String> {
        match self.take(name)? {
            Figure::Number(v) => Ok(v),
            _ => Err(self.wrong(name)),
        }
    }
    fn words(&mut self, name: &str) -> Result<String, String> {
        match self.take(name)? {
            Figure::Words(v) => Ok(v),
            _ => Err(self.wrong(name)),
        }
    }
    fn unit(&mut self) -> Result<Option<Unit>, String> {
        match self.take("unit") {
            Ok(Figure::Unit(u)) => Ok(u),
            Ok(_) => Err(self.wrong("unit")),
            Err(_) => Ok(None),
        }
    }

    fn caveat(mut self) -> Result<Caveat, String> {
        let r = &mut self;
        let c = match r.kind.as_str() {
            "changes_every_read_dithered" => Caveat::ChangesEveryReadDithered,
            "changes_every_read" => Caveat::ChangesEveryRead,
            "bound_by_cadence" => match r.take("cadence")? {
                Figure::Cadence(cadence) => Caveat::BoundByCadence { cadence },
                _ => return Err(r.wrong("cadence")),
            },
            "backwards" => Caveat::Backwards {
                differences: r.count("differences")?,
            },
            "few_edges" => Caveat::FewEdges {
                edges: r.count("edges")?,
            },
            "starved" | "too_busy" => {
                let (intervals, of, gaps) =
                    (r.count("intervals")?, r.count("of")?, r.count("gaps")?);
                let (lost_s, longest_s) = (r.number("lost_s")?, r.number("longest_s")?);
                let share = r.number("share")?;
                if r.kind == "starved" {
                    Caveat::Starved {
                        intervals,
                        of,
                        gaps,
                        lost_s,
                        longest_s,
                        share,
                    }
                } else {
                    Caveat::TooBusy {
                        intervals,
                        of,
                        gaps,
                        lost_s,
                        longest_s,
                        share,
                    }
                }
            }
            "not_numbers" => Caveat::NotNumbers {
                line: r.count("line")?,
                text: r.words("text")?,
            },
            "no_values" => Caveat::NoValues,
            "recalibrated" => Caveat::Recalibrated {
                before: r.count("before")?,
                after: r.count("after")?,
            },
            "sampled" => Caveat::Sampled,
            "few_changes" => Caveat::FewChanges {
                changes: r.count("changes")?,
            },
            "counted" => Caveat::Counted,
            "one_value" => Caveat::OneValue {
                readings: r.count("readings")?,
            },
            "few_input_events" => Caveat::FewInputEvents {
                events: r.count("events")?,
            },
            "bad_readings" => Caveat::BadReadings {
                readings: r.count("readings")?,
            },
            "single_level" => Caveat::SingleLevel,
            "few_intervals" => Caveat::FewIntervals {
                intervals: r.count("intervals")?,
            },
            "gcd_spoiled" => Caveat::GcdSpoiled {
                gcd: r.count("gcd")?,
            },
            "beats" => match r.take("beats")? {
                Figure::Numbers(beats) => Caveat::Beats { beats },
                _ => return Err(r.wrong("beats")),
            },
            "ambiguous" => match r.take("ticks")? {
                Figure::Numbers(ticks) => Caveat::Ambiguous { ticks },
                _ => return Err(r.wrong("ticks")),
            },
            "straddles" => Caveat::Straddles {
                share: r.number("share")?,
                a: r.number("a")?,
                b: r.number("b")?,
            },
            "not_multiples" => Caveat::NotMultiples {
                share: r.number("share")?,
            },
            "below_reach" => Caveat::BelowReach {
                reached: r.number("reached")?,
                precision: r.number("precision")?,
            },
            "at_precision" => Caveat::AtPrecision {
                precision: r.number("precision")?,
            },
            "no_step" => Caveat::NoStep,
            "best_candidate" => Caveat::BestCandidate {
                tick: r.number("tick")?,
                explains: r.number("explains")?,
                chance: r.number("chance")?,
            },
            "shared_offset" => Caveat::SharedOffset {
                reference: r.number("reference")?,
                unit: r.unit()?,
            },
            "only_printing" => Caveat::OnlyPrinting {
                tick: r.number("tick")?,
                shown: r.count("shown")?,
                values: r.count("values")?,
                share: r.number("share")?,
                digits: match r.take("digits")? {
                    Figure::Digits(d) => d,
                    _ => return Err(r.wrong("digits")),
                },
                precision: r.number("precision")?,
                unit: r.unit()?,
            },
            "stood_still" => Caveat::StoodStill {
                still: r.count("still")?,
                blocks: r.count("blocks")?,
            },
            "reads_not_counted" => Caveat::ReadsNotCounted {
                clock: r.words("clock")?,
                pace: r.number("pace")?,
            },
            "undercounts" => Caveat::Undercounts {
                reads: r.count("reads")?,
                min: r.number("min")?,
                max: r.number("max")?,
                median: r.number("median")?,
            },
            "short_blocks" => Caveat::ShortBlocks {
                bound: r.number("bound")?,
            },
            "cost_lost_in_tick" => Caveat::CostLostInTick {
                bound: r.number("bound")?,
            },
            "below_base" => Caveat::BelowBase {
                ns: r.number("ns")?,
                base_ns: r.number("base_ns")?,
                base: r.words("base")?,
            },
            "work_not_seen" => Caveat::WorkNotSeen {
                clock: r.words("clock")?,
                pace: r.number("pace")?,
            },
            "edges_not_time" => Caveat::EdgesNotTime {
                clock: r.words("clock")?,
                pace: r.number("pace")?,
            },
            "slope_not_positive" => Caveat::SlopeNotPositive,
            "interpolated" => Caveat::Interpolated {
                tick_ns: r.number("tick_ns")?,
                reads_per_tick: r.count("reads_per_tick")?,
                count_ns: r.number("count_ns")?,
            },
            "target_ignored" => Caveat::TargetIgnored,
            "calibration_stopped" => Caveat::CalibrationStopped {
                n: r.count("n")?,
                target_counts: r.number("target_counts")?,
            },
            "timings_backwards" => Caveat::TimingsBackwards {
                timings: r.count("timings")?,
            },
            // Schema 4 held the failure's message as `why`.
            "two_sizes_only" => Caveat::TwoSizesOnly {
                because: match r.take("because") {
                    Ok(Figure::Caveat(c)) => c,
                    Ok(_) => return Err(r.wrong("because")),
                    Err(_) => Box::new(Caveat::Text {
                        text: r.words("why")?,
                    }),
                },
            },
            "iteration_totals" => Caveat::IterationTotals {
                lo: r.number("lo")?,
                hi: r.number("hi")?,
            },
            "round_times" => Caveat::RoundTimes {
                iterations: r.number("iterations")?,
            },
            "text" => Caveat::Text {
                text: r.words("text")?,
            },
            "frozen" => Caveat::Frozen {
                elapsed_s: r.number("elapsed_s")?,
                reads: r.count("reads")?,
            },
            "too_slow" => Caveat::TooSlow {
                experiment: r.words("experiment")?,
                read_s: r.number("read_s")?,
                budget_s: r.number("budget_s")?,
                min_reads: r.count("min_reads")?,
            },
            "not_a_time" => Caveat::NotATime {
                value: r.number("value")?,
            },
            "overflow" => Caveat::Overflow {
                value: r.number("value")?,
            },
            "stalled" => Caveat::Stalled {
                reads: r.count("reads")?,
            },
            "cancelled" => Caveat::Cancelled,
            "no_half_tick_run" => Caveat::NoHalfTickRun {
                budget_s: r.number("budget_s")?,
                tick_s: r.number("tick_s")?,
            },
            "no_run_per_size" => Caveat::NoRunPerSize {
                budget_s: r.number("budget_s")?,
                points: r.count("points")?,
                run_ns: r.number("run_ns")?,
                total_ns: r.number("total_ns")?,
            },
            "no_two_sizes" => Caveat::NoTwoSizes {
                budget_s: r.number("budget_s")?,
            },
            "no_steady_block" => Caveat::NoSteadyBlock {
                budget_s: r.number("budget_s")?,
            },
            "no_finite_value" => Caveat::NoFiniteValue,
            "never_advanced" => Caveat::NeverAdvanced,
            "no_positive_interval" => Caveat::NoPositiveInterval {
                values: r.count("values")?,
                zeros: r.count("zeros")?,
                refused: r.count("refused")?,
            },
            "intervals_too_large" => Caveat::IntervalsTooLarge {
                largest: r.number("largest")?,
            },
            "too_few_readings" => Caveat::TooFewReadings {
                readings: r.count("readings")?,
            },
            "reference_timed_no_run" => Caveat::ReferenceTimedNoRun,
            "fewer_than_two_sizes" => Caveat::FewerThanTwoSizes,
            "no_finite_slope" => Caveat::NoFiniteSlope,
            "fewer_than_two_points" => Caveat::FewerThanTwoPoints,
            "fewer_than_two_xs" => Caveat::FewerThanTwoXs,
            "span_too_wide" => Caveat::SpanTooWide,
            "no_point_for_staircase" => Caveat::NoPointForStaircase,
            "audio_suspended" => Caveat::AudioSuspended,
            other => return Err(format!("unknown caveat \"{other}\"")),
        };
        match self.fields.first() {
            Some((name, _)) => Err(format!(
                "a caveat \"{}\" with a field `{name}` it does not have",
                self.kind
            )),
            None => Ok(c),
        }
    }
}

impl Caveat {
    /// The name a report gives this kind of caveat.
    pub fn kind(&self) -> &'static str {
        match self {
            Caveat::ChangesEveryReadDithered => "changes_every_read_dithered",
            Caveat::ChangesEveryRead => "changes_every_read",
            Caveat::BoundByCadence { .. } => "bound_by_cadence",
            Caveat::Backwards { .. } => "backwards",
            Caveat::FewEdges { .. } => "few_edges",
            Caveat::Starved { .. } => "starved",
            Caveat::Recalibrated { .. } => "recalibrated",
            Caveat::NotNumbers { .. } => "not_numbers",
            Caveat::NoValues => "no_values",
            Caveat::TooBusy { .. } => "too_busy",
            Caveat::Sampled => "sampled",
            Caveat::FewChanges { .. } => "few_changes",
            Caveat::Counted => "counted",
            Caveat::OneValue { .. } => "one_value",
            Caveat::FewInputEvents { .. } => "few_input_events",
            Caveat::BadReadings { .. } => "bad_readings",
            Caveat::SingleLevel => "single_level",
            Caveat::FewIntervals { .. } => "few_intervals",
            Caveat::GcdSpoiled { .. } => "gcd_spoiled",
            Caveat::Beats { .. } => "beats",
            Caveat::Ambiguous { .. } => "ambiguous",
            Caveat::Straddles { .. } => "straddles",
            Caveat::NotMultiples { .. } => "not_multiples",
            Caveat::BelowReach { .. } => "below_reach",
            Caveat::AtPrecision { .. } => "at_precision",
            Caveat::NoStep => "no_step",
            Caveat::BestCandidate { .. } => "best_candidate",
            Caveat::SharedOffset { .. } => "shared_offset",
            Caveat::OnlyPrinting { .. } => "only_printing",
            Caveat::StoodStill { .. } => "stood_still",
            Caveat::ReadsNotCounted { .. } => "reads_not_counted",
            Caveat::Undercounts { .. } => "undercounts",
            Caveat::ShortBlocks { .. } => "short_blocks",
            Caveat::CostLostInTick { .. } => "cost_lost_in_tick",
            Caveat::BelowBase { .. } => "below_base",
            Caveat::WorkNotSeen { .. } => "work_not_seen",
            Caveat::EdgesNotTime { .. } => "edges_not_time",
            Caveat::SlopeNotPositive => "slope_not_positive",
            Caveat::Interpolated { .. } => "interpolated",
            Caveat::TargetIgnored => "target_ignored",
            Caveat::CalibrationStopped { .. } => "calibration_stopped",
            Caveat::TimingsBackwards { .. } => "timings_backwards",
            Caveat::TwoSizesOnly { .. } => "two_sizes_only",
            Caveat::IterationTotals { .. } => "iteration_totals",
            Caveat::RoundTimes { .. } => "round_times",
            Caveat::Text { .. } => "text",
            Caveat::Frozen { .. } => "frozen",
            Caveat::TooSlow { .. } => "too_slow",
            Caveat::NotATime { .. } => "not_a_time",
            Caveat::Overflow { .. } => "overflow",
            Caveat::Stalled { .. } => "stalled",
            Caveat::Cancelled => "cancelled",
            Caveat::NoHalfTickRun { .. } => "no_half_tick_run",
            Caveat::NoRunPerSize { .. } => "no_run_per_size",
            Caveat::NoTwoSizes { .. } => "no_two_sizes",
            Caveat::NoSteadyBlock { .. } => "no_steady_block",
            Caveat::NoFiniteValue => "no_finite_value",
            Caveat::NeverAdvanced => "never_advanced",
            Caveat::NoPositiveInterval { .. } => "no_positive_interval",
            Caveat::IntervalsTooLarge { .. } => "intervals_too_large",
            Caveat::TooFewReadings { .. } => "too_few_readings",
            Caveat::ReferenceTimedNoRun => "reference_timed_no_run",
            Caveat::FewerThanTwoSizes => "fewer_than_two_sizes",
            Caveat::NoFiniteSlope => "no_finite_slope",
            Caveat::FewerThanTwoPoints => "fewer_than_two_points",
            Caveat::FewerThanTwoXs => "fewer_than_two_xs",
            Caveat::SpanTooWide => "span_too_wide",
            Caveat::NoPointForStaircase => "no_point_for_staircase",
            Caveat::AudioSuspended => "audio_suspended",
        }
    }
}

impl Serialize for Caveat {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("caveat", self.kind())?;
        // Every figure through one of a few types: one copy of the writer's code each.
        let mut count = |k: &str, v: u64| m.serialize_entry(k, &v);
        match self {
            Caveat::Backwards { differences: v } => count("differences", *v)?,
            Caveat::FewEdges { edges: v } => count("edges", *v)?,
            Caveat::FewChanges { changes: v } => count("changes", *v)?,
            Caveat::OneValue { readings: v } => count("readings", *v)?,
            Caveat::FewInputEvents { events: v } => count("events", *v)?,
            Caveat::BadReadings { readings: v } => count("readings", *v)?,
            Caveat::FewIntervals { intervals: v } => count("intervals", *v)?,
            Caveat::GcdSpoiled { gcd: v } => count("gcd", *v)?,
            Caveat::TimingsBackwards { timings: v } => count("timings", *v)?,
            Caveat::TooFewReadings { readings: v } => count("readings", *v)?,
            Caveat::Stalled { reads: v } => count("reads", *v)?,
            Caveat::Recalibrated { before, after } => {
                count("before", *before)?;
                count("after", *after)?;
            }
            Caveat::NotNumbers { line, .. } => count("line", *line)?,
            Caveat::Starved {
                intervals,
                of,
                gaps,
                ..
            }
            | Caveat::TooBusy {
                intervals,
                of,
                gaps,
                ..
            } => {
                count("intervals", *intervals)?;
                count("of", *of)?;
                count("gaps", *gaps)?;
            }
            _ => {}
        }
        let mut number = |k: &str, v: f64| m.serialize_entry(k, &v);
        match self {
            Caveat::Straddles { share, a, b } => {
                number("share", *share)?;
                number("a", *a)?;
                number("b", *b)?;
            }
            Caveat::NotMultiples { share } => number("share", *share)?,
            Caveat::Starved {
                lost_s,
                longest_s,
                share,
                ..
            }
            | Caveat::TooBusy {
                lost_s,
                longest_s,
                share,
                ..
            } => {
                number("lost_s", *lost_s)?;
                number("longest_s", *longest_s)?;
                number("share", *share)?;
            }
            Caveat::BelowReach { reached, precision } => {
                number("reached", *reached)?;
                number("precision", *precision)?;
            }
            Caveat::AtPrecision { precision } => number("precision", *precision)?,
            Caveat::BestCandidate {
                tick,
                explains,
                chance,
            } => {
                number("tick", *tick)?;
                number("explains", *explains)?;
                number("chance", *chance)?;
            }
            Caveat::SharedOffset { reference, .. } => number("reference", *reference)?,
            Caveat::ShortBlocks { bound } | Caveat::CostLostInTick { bound } => {
                number("bound", *bound)?
            }
            Caveat::IterationTotals { lo, hi } => {
                number("lo", *lo)?;
                number("hi", *hi)?;
            }
            Caveat::RoundTimes { iterations } => number("iterations", *iterations)?,
            Caveat::NotATime { value } | Caveat::Overflow { value } => number("value", *value)?,
            Caveat::NoHalfTickRun { budget_s, tick_s } => {
                number("budget_s", *budget_s)?;
                number("tick_s", *tick_s)?;
            }
            Caveat::NoTwoSizes { budget_s } | Caveat::NoSteadyBlock { budget_s } => {
                number("budget_s", *budget_s)?
            }
            Caveat::IntervalsTooLarge { largest } => number("largest", *largest)?,
            _ => {}
        }
        match self {
            Caveat::BoundByCadence { cadence } => m.serialize_entry("cadence", cadence)?,
            Caveat::Beats { beats } => m.serialize_entry("beats", beats)?,
            Caveat::Ambiguous { ticks } => m.serialize_entry("ticks", ticks)?,
            Caveat::SharedOffset { unit, .. } => m.serialize_entry("unit", unit)?,
            Caveat::OnlyPrinting {
                tick,
                shown,
                values,
                share,
                digits,
                precision,
                unit,
            } => {
                m.serialize_entry("tick", tick)?;
                m.serialize_entry("shown", shown)?;
                m.serialize_entry("values", values)?;
                m.serialize_entry("share", share)?;
                m.serialize_entry("digits", digits)?;
                m.serialize_entry("precision", precision)?;
                m.serialize_entry("unit", unit)?;
            }
            Caveat::StoodStill { still, blocks } => {
                m.serialize_entry("still", still)?;
                m.serialize_entry("blocks", blocks)?;
            }
            Caveat::ReadsNotCounted { clock, pace }
            | Caveat::WorkNotSeen { clock, pace }
            | Caveat::EdgesNotTime { clock, pace } => {
                m.serialize_entry("clock", clock)?;
                m.serialize_entry("pace", pace)?;
            }
            Caveat::Undercounts {
                reads,
                min,
                max,
                median,
            } => {
                m.serialize_entry("reads", reads)?;
                m.serialize_entry("min", min)?;
                m.serialize_entry("max", max)?;
                m.serialize_entry("median", median)?;
            }
            Caveat::BelowBase { ns, base_ns, base } => {
                m.serialize_entry("ns", ns)?;
                m.serialize_entry("base_ns", base_ns)?;
                m.serialize_entry("base", base)?;
            }
            Caveat::Interpolated {
                tick_ns,
                reads_per_tick,
                count_ns,
            } => {
                m.serialize_entry("tick_ns", tick_ns)?;
                m.serialize_entry("reads_per_tick", reads_per_tick)?;
                m.serialize_entry("count_ns", count_ns)?;
            }
            Caveat::CalibrationStopped { n, target_counts } => {
                m.serialize_entry("n", n)?;
                m.serialize_entry("target_counts", target_counts)?;
            }
            Caveat::TwoSizesOnly { because } => m.serialize_entry("because", because)?,
            Caveat::Text { text } | Caveat::NotNumbers { text, .. } => {
                m.serialize_entry("text", text)?
            }
            Caveat::Frozen { elapsed_s, reads } => {
                m.serialize_entry("elapsed_s", elapsed_s)?;
                m.serialize_entry("reads", reads)?;
            }
            Caveat::TooSlow {
                experiment,
                read_s,
                budget_s,
                min_reads,
            } => {
                m.serialize_entry("experiment", experiment)?;
                m.serialize_entry("read_s", read_s)?;
                m.serialize_entry("budget_s", budget_s)?;
                m.serialize_entry("min_reads", min_reads)?;
            }
            Caveat::NoRunPerSize {
                budget_s,
                points,
                run_ns,
                total_ns,
            } => {
                m.serialize_entry("budget_s", budget_s)?;
                m.serialize_entry("points", points)?;
                m.serialize_entry("run_ns", run_ns)?;
                m.serialize_entry("total_ns", total_ns)?;
            }
            Caveat::NoPositiveInterval {
                values,
                zeros,
                refused,
            } => {
                m.serialize_entry("values", values)?;
                m.serialize_entry("zeros", zeros)?;
                m.serialize_entry("refused", refused)?;
            }
            _ => {}
        }
        m.end()
    }
}

/// Reads a caveat: an object of this schema, or an older report's sentence.
struct Written;

impl<'de> Visitor<'de> for Written {
    type Value = Caveat;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a caveat: an object named by its `caveat` field, or a sentence")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Caveat, E> {
        Ok(Caveat::Text { text: text.into() })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Caveat, A::Error> {
        let mut kind = None;
        let mut fields: Vec<(&'static str, Figure)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "caveat" {
                kind = Some(map.next_value::<String>()?);
                continue;
            }
            let Some((name, ty)) = FIELDS.iter().find(|(n, _)| *n == key) else {
                return Err(de::Error::custom(format!(
                    "unknown field `{key}` in a caveat"
                )));
            };
            if fields.iter().any(|(n, _)| n == name) {
                return Err(de::Error::custom(format!(
                    "duplicate field `{key}` in a caveat"
                )));
            }
            let figure = match ty {
                Ty::Count => Figure::Count(map.next_value()?),
                Ty::Number => Figure::Number(map.next_value()?),
                Ty::Digits => Figure::Digits(map.next_value()?),
                Ty::Words => Figure::Words(map.next_value()?),
                Ty::Numbers => Figure::Numbers(map.next_value()?),
                Ty::Cadence => Figure::Cadence(map.next_value()?),
                Ty::Unit => Figure::Unit(map.next_value()?),
                Ty::Caveat => Figure::Caveat(map.next_value()?),
            };
            fields.push((name, figure));
        }
        let kind = kind.ok_or_else(|| de::Error::custom("a caveat without its `caveat` field"))?;
        Read { kind, fields }.caveat().map_err(de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Caveat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Written)
    }
}
