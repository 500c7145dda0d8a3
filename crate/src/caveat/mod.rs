//! What limits a result, as data: each caveat, and each reason a figure is shown as a dash,
//! is a variant carrying its figures. `present::caveat` words them (its `Debug` too), for
//! the command and the page alike; nothing else makes sentences of them, and nothing reads
//! them back as text.
//!
//! In a report each is an object named by its `caveat` field (`{"caveat": "few_intervals",
//! "intervals": 12}`); a report of schema 3 or older holds sentences, which read as
//! [`Caveat::Text`].

use serde::{Deserialize, Serialize};

use crate::unit::Unit;

mod wire;

/// The one table of caveats: each variant, the name a report gives its kind, and its
/// fields, from which the enum, [`Caveat::kind`] and the report's form (`wire`) are made.
/// A field is written under its own name, through the one writer and reader its type has.
macro_rules! caveats {
    ($(
        $(#[$doc:meta])*
        $name:ident = $kind:literal $({
            $( $(#[$fdoc:meta])* $field:ident : $ty:ty ),* $(,)?
        })?
    ),* $(,)?) => {
        /// What limits a result, or why a figure cannot be right. Each field is a figure its
        /// variant's line names, in the units it says.
        #[allow(missing_docs)]
        #[derive(Clone, PartialEq)]
        pub enum Caveat {
            $( $(#[$doc])* $name $({ $( $(#[$fdoc])* $field: $ty ),* })? ),*
        }

        impl Caveat {
            /// The name a report gives this kind of caveat.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( Caveat::$name { .. } => $kind ),*
                }
            }

            /// Writes each field under its name.
            fn write_fields<M: serde::ser::SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
                match self {
                    $( Caveat::$name $({ $($field),* })? => {
                        $( $( wire::Wire::write($field, stringify!($field), m)?; )* )?
                    } )*
                }
                Ok(())
            }

            /// The caveat of kind `kind`, its fields taken from `r`.
            fn read_fields(kind: &str, r: &mut wire::Read) -> Result<Caveat, String> {
                Ok(match kind {
                    $( $kind => Caveat::$name $({ $( $field: r.field(stringify!($field))? ),* })?, )*
                    other => return Err(format!("unknown caveat \"{other}\"")),
                })
            }

        }

        /// Every field's name once, with its type, which the reader reads a field by: a name
        /// is of one type in every kind (a test holds it). Made when compiling, so the page
        /// carries each name once.
        const FIELDS: [(&str, wire::Ty); wire::distinct(EVERY_FIELD)] =
            wire::once_each(EVERY_FIELD);

        /// Every kind's name, in the table's order.
        #[cfg(test)]
        const KINDS: &[&str] = &[$($kind),*];

        /// Every field of every kind with its type, a name as often as kinds have it
        /// (the reader's table, [`FIELDS`], holds each once).
        const EVERY_FIELD: &[(&str, wire::Ty)] = &[
            $( $( $( (stringify!($field), <$ty as wire::Wire>::TY), )* )? )*
        ];
    };
}

caveats! {
    /// The value changed at nearly every read: the tick comes from the dithered timings.
    ChangesEveryReadDithered = "changes_every_read_dithered",
    /// The value changed at nearly every read: the tick is at most one read's cost.
    ChangesEveryRead = "changes_every_read",
    /// No interval was shorter than the cadence of the readings: the tick is a bound.
    BoundByCadence = "bound_by_cadence" { cadence: Cadence },
    /// Differences that went backwards (not monotonic), left out.
    Backwards = "backwards" { differences: u64 },
    /// Too few edges within the budget for a coarse clock's tick to be sure.
    FewEdges = "few_edges" { edges: u64 },
    /// `intervals` of `of` straddled times the process was not running (`gaps` of them,
    /// `lost_s` in all, the longest `longest_s`, `share` of the time watched) and were set
    /// aside: the tick comes from the rest.
    Starved = "starved" {
        intervals: u64,
        of: u64,
        gaps: u64,
        lost_s: f64,
        longest_s: f64,
        share: f64,
    },
    /// As [`Caveat::Starved`], but the rest could not tell the tick: the machine was too
    /// busy to tell, and the tick shown is only a bound.
    TooBusy = "too_busy" {
        intervals: u64,
        of: u64,
        gaps: u64,
        lost_s: f64,
        longest_s: f64,
        share: f64,
    },
    /// Read at moments the platform chose, not edge to edge.
    Sampled = "sampled",
    /// Too few changes among the sampled readings.
    FewChanges = "few_changes" { changes: u64 },
    /// A count of events (messages, timeouts): its tick is one event by construction, its
    /// length the count's rate calibrated against another clock.
    Counted = "counted",
    /// Every value of a set (durations) was the same: no difference to show a step.
    OneValue = "one_value" { readings: u64 },
    /// Event Timing had timed too few of the page's input events to show a step.
    FewInputEvents = "few_input_events" { events: u64 },
    /// Sampled readings that were not finite non-negative times, left out.
    BadReadings = "bad_readings" { readings: u64 },
    /// Every interval has the same length: the tick divides it, and may be smaller.
    SingleLevel = "single_level",
    /// Too few positive intervals: the tick is an upper bound.
    FewIntervals = "few_intervals" { intervals: u64 },
    /// The exact GCD, spoiled by intervals that are not whole multiples of the tick.
    GcdSpoiled = "gcd_spoiled" { gcd: u64 },
    /// Beats of the tick (in the data's units) that fit the values as well.
    Beats = "beats" { beats: Vec<f64> },
    /// Ticks (in the data's units, the best first) that explain the values about as well as
    /// each other: the values sit on too few levels to choose between them.
    Ambiguous = "ambiguous" { ticks: Vec<f64> },
    /// The share of straddling intervals, and a pair of them (in the data's units).
    Straddles = "straddles" { share: f64, a: f64, b: f64 },
    /// The share of intervals that are no multiple of the tick.
    NotMultiples = "not_multiples" { share: f64 },
    /// No tick from `reached` up explains the intervals; finer ones down to `precision`
    /// could not be searched for (the data's units).
    BelowReach = "below_reach" { reached: f64, precision: f64 },
    /// Nothing coarser than the data's precision explains the intervals.
    AtPrecision = "at_precision" { precision: f64 },
    /// The values lie on the grid of the doubles that held their readings, `spacing`
    /// apart (the data's units): no tick coarser than `bound` (two of them: a difference
    /// of two readings errs by a whole one) explains them, and that grid is no tick.
    Storage = "storage" { bound: f64, spacing: f64 },
    /// Recorded values that come no closer than `closest` (the data's units) beside a
    /// step's rounding: the tick is at most that, and the search could rule out nothing
    /// finer down to `precision`.
    ClosestValues = "closest_values" { closest: f64, precision: f64 },
    /// The values lie on no step (doubles at full precision).
    NoStep = "no_step",
    /// The best candidate (the data's units), the share it explains and chance's.
    BestCandidate = "best_candidate" {
        tick: f64,
        explains: f64,
        chance: f64,
    },
    /// Values that share an offset: their differences from `reference` are multiples of
    /// the tick.
    SharedOffset = "shared_offset" { reference: f64, unit: Option<Unit> },
    /// The tick was told by the differences between recorded values inside their piles
    /// (how many), the values themselves too many ticks long for their multiples to be
    /// told.
    InsidePiles = "inside_piles" { differences: u64 },
    /// A tick that only the printing of the values makes.
    OnlyPrinting = "only_printing" {
        tick: f64,
        shown: u64,
        values: u64,
        share: f64,
        digits: i32,
        precision: f64,
        unit: Option<Unit>,
    },
    /// The clock stood still through some blocks of reads.
    StoodStill = "stood_still" { still: u64, blocks: u64 },
    /// The clock ran slower than the stopwatch while read: its read cost cannot be right.
    ReadsNotCounted = "reads_not_counted" { clock: String, pace: f64 },
    /// Blocks at under half the usual length, the least of them under half the stopwatch's
    /// time: the clock undercounts at times.
    Undercounts = "undercounts" {
        reads: u64,
        min: f64,
        max: f64,
        median: f64,
    },
    /// The clock's own side (a page's JavaScript) read it dearer than the lab through
    /// WebAssembly, which makes the same call and crosses besides: not at its best.
    OwnDearer = "own_dearer" { own: f64, lab: f64 },
    /// Blocks shorter than the Rule of 100 asks, with their error bound.
    ShortBlocks = "short_blocks" { bound: f64 },
    /// Blocks so short that the cost is lost in the tick (error bound over 100%).
    CostLostInTick = "cost_lost_in_tick" { bound: f64 },
    /// A read cost below that of the clock it reads underneath.
    BelowBase = "below_base" { ns: f64, base_ns: f64, base: String },
    /// The clock ran slower than the stopwatch over the timed runs: it does not see the work.
    WorkNotSeen = "work_not_seen" { clock: String, pace: f64 },
    /// The coarse clock under an interpolation did not keep pace with the stopwatch.
    EdgesNotTime = "edges_not_time" { clock: String, pace: f64 },
    /// A fitted slope that is not positive.
    SlopeNotPositive = "slope_not_positive",
    /// Runs timed through interpolation.
    Interpolated = "interpolated" {
        tick_ns: f64,
        reads_per_tick: u64,
        count_ns: f64,
    },
    /// A target duration that could not be used: the clock's period is unknown.
    TargetIgnored = "target_ignored",
    /// Calibration stopped before a run lasted the target.
    CalibrationStopped = "calibration_stopped" { n: u64, target_counts: f64 },
    /// The work ran far faster once timed than when its sizes were chosen (an engine that
    /// compiled it again, optimised): the largest size was chosen again, `before` then
    /// `after`.
    Recalibrated = "recalibrated" { before: u64, after: u64 },
    /// Timings that went backwards, left out.
    TimingsBackwards = "timings_backwards" { timings: u64 },
    /// A fit of two sizes only, and the failure that made it so.
    TwoSizesOnly = "two_sizes_only" { because: Box<Caveat> },
    /// A column whose line `line` holds `text`, which is no duration or reading: skipped.
    NotNumbers = "not_numbers" { line: u64, text: String },
    /// A column with no value at all: skipped.
    NoValues = "no_values",
    /// Each sample timed `lo` to `hi` iterations; their totals are analysed (Criterion).
    IterationTotals = "iteration_totals" { lo: f64, hi: f64 },
    /// Each round's time was divided by its iterations; the round times are analysed.
    RoundTimes = "round_times" { iterations: f64 },
    /// A sentence from outside the core: a caveat or failure of a report written before
    /// they were data, or a platform's own message (a browser's, when a page's clock could
    /// not start).
    Text = "text" { text: String },

    // Why an experiment failed: the error's figures, as its report records them.
    /// The clock did not advance within the budget.
    Frozen = "frozen" { elapsed_s: f64, reads: u64 },
    /// A read takes so long that too few fit in the experiment's budget.
    TooSlow = "too_slow" {
        experiment: String,
        read_s: f64,
        budget_s: f64,
        min_reads: u64,
    },
    /// A float clock returned NaN, an infinity or a negative number.
    NotATime = "not_a_time" { value: f64 },
    /// A float clock returned a value too large for 64-bit counts.
    Overflow = "overflow" { value: f64 },
    /// The coarse clock under an interpolation did not change in `reads` reads.
    Stalled = "stalled" { reads: u64 },
    /// The observer asked to stop.
    Cancelled = "cancelled",
    /// The budget ended before a run lasted half a tick (of `tick_s`).
    NoHalfTickRun = "no_half_tick_run" { budget_s: f64, tick_s: f64 },
    /// The budget left could not hold a run at each of `points` sizes of `run_ns` each
    /// (`total_ns` with calibration).
    NoRunPerSize = "no_run_per_size" {
        budget_s: f64,
        points: u64,
        run_ns: f64,
        total_ns: f64,
    },
    /// The budget ended before two sizes were timed.
    NoTwoSizes = "no_two_sizes" { budget_s: f64 },
    /// The budget ended before a block of reads that did not step backwards.
    NoSteadyBlock = "no_steady_block" { budget_s: f64 },
    /// No finite value to summarise.
    NoFiniteValue = "no_finite_value",
    /// No non-zero interval: the clock never advanced between readings.
    NeverAdvanced = "never_advanced",
    /// No positive finite interval among `values` (`zeros` zero, `refused` not finite or
    /// negative).
    NoPositiveInterval = "no_positive_interval" {
        values: u64,
        zeros: u64,
        refused: u64,
    },
    /// Intervals too large to estimate a tick from (the largest, in counts).
    IntervalsTooLarge = "intervals_too_large" { largest: f64 },
    /// Fewer than three readings.
    TooFewReadings = "too_few_readings" { readings: u64 },
    /// The reference clock timed no run.
    ReferenceTimedNoRun = "reference_timed_no_run",
    /// Fewer than two distinct sizes in the range asked.
    FewerThanTwoSizes = "fewer_than_two_sizes",
    /// Points that give no finite slope.
    NoFiniteSlope = "no_finite_slope",
    /// Fewer than two points for a line.
    FewerThanTwoPoints = "fewer_than_two_points",
    /// Fewer than two distinct finite x values for a line.
    FewerThanTwoXs = "fewer_than_two_xs",
    /// Points that span too many orders of magnitude for a line under them all.
    SpanTooWide = "span_too_wide",
    /// No point to fit a staircase to.
    NoPointForStaircase = "no_point_for_staircase",
    /// A clock of a suspended audio context: it stands still until the page is allowed to
    /// play sound (in most browsers, after a click on it).
    AudioSuspended = "audio_suspended",
}

/// The cadence at which readings come.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cadence {
    /// Back-to-back reads.
    Reading,
    /// Moments the platform chose (a frame, a task).
    Sampling,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(c: &[Caveat]) -> String {
        serde_json::to_string(c).unwrap()
    }

    fn read(text: &str) -> Result<Vec<Caveat>, serde_json::Error> {
        serde_json::from_str(text)
    }

    #[test]
    fn caveats_are_written_as_data_and_older_sentences_still_read() {
        let c = vec![
            Caveat::FewIntervals { intervals: 12 },
            Caveat::SingleLevel,
            Caveat::BoundByCadence {
                cadence: Cadence::Sampling,
            },
        ];
        assert_eq!(
            json(&c),
            r#"[{"caveat":"few_intervals","intervals":12},{"caveat":"single_level"},{"caveat":"bound_by_cadence","cadence":"sampling"}]"#
        );
        assert_eq!(read(&json(&c)).unwrap(), c);
        let old = r#"["only 12 positive intervals: the tick is an upper bound"]"#;
        assert_eq!(
            read(old).unwrap(),
            [Caveat::Text {
                text: "only 12 positive intervals: the tick is an upper bound".into()
            }]
        );
        // Schema 4 held a two-size fit's failure as a sentence.
        let v4 = r#"[{"caveat":"two_sizes_only","why":"fit: the budget ended"}]"#;
        assert_eq!(
            read(v4).unwrap(),
            [Caveat::TwoSizesOnly {
                because: Box::new(Caveat::Text {
                    text: "fit: the budget ended".into()
                })
            }]
        );
        for (bad, says) in [
            ("[3]", "a caveat"),
            (r#"[{"caveat":"bogus"}]"#, "unknown caveat \"bogus\""),
            (r#"[{"caveat":"few_edges"}]"#, "without its field `edges`"),
            (r#"[{"caveat":"few_edges","edges":-1}]"#, "invalid value"),
            (r#"[{"caveat":"sampled","hue":1}]"#, "unknown field `hue`"),
            (
                r#"[{"caveat":"sampled","edges":1}]"#,
                "a field `edges` it does not have",
            ),
            (r#"[{"edges":1}]"#, "without its `caveat` field"),
        ] {
            let e = read(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn every_caveat_reads_back_as_written() {
        let all = vec![
            Caveat::ChangesEveryReadDithered,
            Caveat::ChangesEveryRead,
            Caveat::BoundByCadence {
                cadence: Cadence::Reading,
            },
            Caveat::Backwards { differences: 3 },
            Caveat::FewEdges { edges: 4 },
            Caveat::Starved {
                intervals: 12,
                of: 400,
                gaps: 6,
                lost_s: 0.024,
                longest_s: 0.004,
                share: 0.08,
            },
            Caveat::TooBusy {
                intervals: 70,
                of: 74,
                gaps: 40,
                lost_s: 0.16,
                longest_s: 0.004,
                share: 0.5,
            },
            Caveat::Sampled,
            Caveat::FewChanges { changes: 5 },
            Caveat::Counted,
            Caveat::OneValue { readings: 8 },
            Caveat::FewInputEvents { events: 2 },
            Caveat::BadReadings { readings: 6 },
            Caveat::SingleLevel,
            Caveat::FewIntervals { intervals: 7 },
            Caveat::GcdSpoiled { gcd: 8 },
            Caveat::Beats {
                beats: vec![1.5, 2.5],
            },
            Caveat::Ambiguous {
                ticks: vec![1.0, 1.0625],
            },
            Caveat::Straddles {
                share: 0.1,
                a: 1.0,
                b: 25.0,
            },
            Caveat::NotMultiples { share: 0.2 },
            Caveat::BelowReach {
                reached: 3.0,
                precision: 0.5,
            },
            Caveat::AtPrecision { precision: 0.25 },
            Caveat::Storage {
                bound: 0.5,
                spacing: 0.25,
            },
            Caveat::ClosestValues {
                closest: 11.0,
                precision: 1.0,
            },
            Caveat::NoStep,
            Caveat::BestCandidate {
                tick: 2.0,
                explains: 0.4,
                chance: 0.3,
            },
            Caveat::InsidePiles { differences: 900 },
            Caveat::SharedOffset {
                reference: 12.5,
                unit: Some(Unit::Ms),
            },
            Caveat::OnlyPrinting {
                tick: 0.01,
                shown: 9,
                values: 10,
                share: 0.9,
                digits: 4,
                precision: 1e-6,
                unit: None,
            },
            Caveat::StoodStill {
                still: 1,
                blocks: 20,
            },
            Caveat::ReadsNotCounted {
                clock: "c".into(),
                pace: 0.01,
            },
            Caveat::Undercounts {
                reads: 64,
                min: 1.0,
                max: 9.0,
                median: 4.0,
            },
            Caveat::OwnDearer {
                own: 120.0,
                lab: 60.0,
            },
            Caveat::ShortBlocks { bound: 0.05 },
            Caveat::CostLostInTick { bound: 3.0 },
            Caveat::BelowBase {
                ns: 18.0,
                base_ns: 27.0,
                base: "Instant".into(),
            },
            Caveat::WorkNotSeen {
                clock: "c".into(),
                pace: 0.02,
            },
            Caveat::EdgesNotTime {
                clock: "c".into(),
                pace: 0.5,
            },
            Caveat::SlopeNotPositive,
            Caveat::Interpolated {
                tick_ns: 4e6,
                reads_per_tick: 2000,
                count_ns: 2.0,
            },
            Caveat::TargetIgnored,
            Caveat::NotNumbers {
                line: 3,
                text: "Chrome".into(),
            },
            Caveat::NoValues,
            Caveat::Recalibrated {
                before: 32_768,
                after: 1_048_576,
            },
            Caveat::CalibrationStopped {
                n: 1 << 20,
                target_counts: 100.0,
            },
            Caveat::TimingsBackwards { timings: 2 },
            Caveat::TwoSizesOnly {
                because: Box::new(Caveat::NoHalfTickRun {
                    budget_s: 0.5,
                    tick_s: 0.004,
                }),
            },
            Caveat::IterationTotals { lo: 1.0, hi: 64.0 },
            Caveat::RoundTimes { iterations: 1000.0 },
            Caveat::Text {
                text: "an older report's sentence".into(),
            },
            Caveat::Frozen {
                elapsed_s: 1.5,
                reads: 1000,
            },
            Caveat::TooSlow {
                experiment: "tick".into(),
                read_s: 0.01,
                budget_s: 0.2,
                min_reads: 64,
            },
            Caveat::NotATime { value: -1.0 },
            Caveat::Overflow { value: 1e300 },
            Caveat::Stalled { reads: 100 },
            Caveat::Cancelled,
            Caveat::NoHalfTickRun {
                budget_s: 0.3,
                tick_s: 0.01,
            },
            Caveat::NoRunPerSize {
                budget_s: 0.3,
                points: 12,
                run_ns: 4e7,
                total_ns: 6e8,
            },
            Caveat::NoTwoSizes { budget_s: 0.3 },
            Caveat::NoSteadyBlock { budget_s: 0.3 },
            Caveat::NoFiniteValue,
            Caveat::NeverAdvanced,
            Caveat::NoPositiveInterval {
                values: 10,
                zeros: 9,
                refused: 1,
            },
            Caveat::IntervalsTooLarge { largest: 1e300 },
            Caveat::TooFewReadings { readings: 2 },
            Caveat::ReferenceTimedNoRun,
            Caveat::FewerThanTwoSizes,
            Caveat::NoFiniteSlope,
            Caveat::FewerThanTwoPoints,
            Caveat::FewerThanTwoXs,
            Caveat::SpanTooWide,
            Caveat::NoPointForStaircase,
            Caveat::AudioSuspended,
        ];
        let text = json(&all);
        assert_eq!(read(&text).unwrap(), all, "{text}");
        // Every kind is here, each said in words of its own (not its name).
        let kinds: std::collections::BTreeSet<&str> = all.iter().map(Caveat::kind).collect();
        assert_eq!(kinds, KINDS.iter().copied().collect());
        let said: std::collections::BTreeSet<String> =
            all.iter().map(crate::present::caveat).collect();
        assert_eq!(said.len(), all.len());
        for c in &all {
            assert_ne!(crate::present::caveat(c), crate::present::unsaid(c));
        }
    }
}
