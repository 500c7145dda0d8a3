//! The one error type of the core.

use serde::{Deserialize, Serialize};

use crate::caveat::Caveat;

/// Everything an experiment, estimator or report parser can refuse or fail with.
///
/// Each variant carries its figures; [`crate::present`] words it (its `Display` is there),
/// and what a visitor or a user of the command can change is [`crate::present::advice`]'s.
/// None of these is a panic in disguise.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// An argument is out of range (a zero budget, a tick of NaN, a width of 65 bits...).
    Invalid {
        /// The argument or field.
        what: &'static str,
        /// What is wrong with it and what is accepted.
        why: String,
    },
    /// There was nothing to estimate from (no finite positive interval, no point to fit).
    NoData(Caveat),
    /// The clock never changed value within the time budget.
    Frozen {
        /// The clock's name.
        clock: String,
        /// Seconds spent waiting.
        elapsed_s: f64,
        /// Reads made while waiting.
        reads: u64,
    },
    /// A read takes so long that too few fit in the time budget for any estimate.
    TooSlow {
        /// The clock's name.
        clock: String,
        /// Which experiment.
        experiment: &'static str,
        /// Seconds per read, measured while warming up.
        read_s: f64,
        /// The budget in seconds.
        budget_s: f64,
        /// Reads the experiment needs at the least.
        min_reads: u32,
    },
    /// The clock reported a value that cannot be a time (NaN, infinite, negative).
    Fault {
        /// The clock's name.
        clock: String,
        /// What it returned.
        fault: ClockFault,
    },
    /// The time budget ended before the experiment had the least data it needs.
    BudgetExhausted {
        /// Which experiment.
        experiment: &'static str,
        /// What it still needed, with the budget.
        why: Caveat,
    },
    /// The observer asked to stop.
    Cancelled,
    /// A report could not be read: malformed, foreign, or of another schema version.
    Report(String),
    /// Timings to analyse could not be read: the message names the file, line or field.
    Input(String),
}

impl std::error::Error for Error {}

/// Why a reading could not be used.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ClockFault {
    /// A float clock returned NaN, an infinity or a negative number.
    NotATime {
        /// The value returned.
        value: f64,
    },
    /// A clock built on another found that one frozen: no edge within the reads allowed.
    Stalled {
        /// Reads made while waiting.
        reads: u64,
    },
    /// A float clock returned a value too large for 64-bit counts.
    Overflow {
        /// The value returned.
        value: f64,
    },
}

impl ClockFault {
    /// Its figures, as a report records them.
    pub fn cause(self) -> Caveat {
        match self {
            ClockFault::NotATime { value } => Caveat::NotATime { value },
            ClockFault::Stalled { reads } => Caveat::Stalled { reads },
            ClockFault::Overflow { value } => Caveat::Overflow { value },
        }
    }
}

impl std::error::Error for ClockFault {}

/// What kind of error an experiment met, as a report records it; the message says the rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// [`Error::Invalid`].
    Invalid,
    /// [`Error::NoData`].
    NoData,
    /// [`Error::Frozen`].
    Frozen,
    /// [`Error::TooSlow`].
    TooSlow,
    /// [`Error::Fault`].
    Fault,
    /// [`Error::BudgetExhausted`].
    BudgetExhausted,
    /// [`Error::Cancelled`].
    Cancelled,
    /// [`Error::Report`].
    Report,
    /// Anything else: a failure outside the core (a page's clock that could not start), or
    /// an error read from a report older than version 3.
    #[default]
    Other,
}

impl Error {
    /// Its kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Invalid { .. } => ErrorKind::Invalid,
            Error::NoData(_) => ErrorKind::NoData,
            Error::Frozen { .. } => ErrorKind::Frozen,
            Error::TooSlow { .. } => ErrorKind::TooSlow,
            Error::Fault { .. } => ErrorKind::Fault,
            Error::BudgetExhausted { .. } => ErrorKind::BudgetExhausted,
            Error::Cancelled => ErrorKind::Cancelled,
            Error::Report(_) => ErrorKind::Report,
            // Input is read before any experiment, so no report records it.
            Error::Input(_) => ErrorKind::Other,
        }
    }
}

impl Error {
    /// Why it failed, with its figures, as a report records it: a sentence only for an
    /// argument or input refused before any experiment ran. Taken, not copied: a caveat
    /// copied would bring every caveat's copy into the page.
    pub fn into_cause(self) -> Caveat {
        match self {
            Error::NoData(c) | Error::BudgetExhausted { why: c, .. } => c,
            Error::Frozen {
                elapsed_s, reads, ..
            } => Caveat::Frozen { elapsed_s, reads },
            Error::TooSlow {
                experiment,
                read_s,
                budget_s,
                min_reads,
                ..
            } => Caveat::TooSlow {
                experiment: experiment.into(),
                read_s,
                budget_s,
                min_reads: u64::from(min_reads),
            },
            Error::Fault { fault, .. } => fault.cause(),
            Error::Cancelled => Caveat::Cancelled,
            // Their words are their own text (not `to_string`, whose other arms would
            // bring every caveat's sentence into the page's first module).
            Error::Invalid { what, why } => Caveat::Text {
                text: format!("invalid {what}: {why}"),
            },
            Error::Report(m) => Caveat::Text {
                text: format!("report: {m}"),
            },
            Error::Input(text) => Caveat::Text { text },
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn invalid(what: &'static str, why: impl Into<String>) -> Error {
    Error::Invalid {
        what,
        why: why.into(),
    }
}
