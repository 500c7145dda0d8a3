//! The one error type of the core.

use serde::{Deserialize, Serialize};

/// Everything an experiment, estimator or report parser can refuse or fail with.
///
/// Messages say what happened, in no front end's terms: what a visitor or a user of the
/// command can change is [`crate::present::advice`]'s. None of these is a panic in disguise.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// An argument is out of range (a zero budget, a tick of NaN, a width of 65 bits...).
    #[error("invalid {what}: {why}")]
    Invalid {
        /// The argument or field.
        what: &'static str,
        /// What is wrong with it and what is accepted.
        why: String,
    },
    /// There was nothing to estimate from (no finite positive interval, no point to fit).
    #[error("not enough data: {0}")]
    NoData(String),
    /// The clock never changed value within the time budget.
    #[error(
        "clock '{clock}' did not advance in {elapsed_s:.3} s ({reads} reads): it is frozen, \
         or its tick is longer than the time budget"
    )]
    Frozen {
        /// The clock's name.
        clock: String,
        /// Seconds spent waiting.
        elapsed_s: f64,
        /// Reads made while waiting.
        reads: u64,
    },
    /// A read takes so long that too few fit in the time budget for any estimate.
    #[error(
        "clock '{clock}' takes {read_s:.3e} s per read: fewer than {min_reads} reads fit in \
         the {budget_s} s budget of the {experiment} experiment"
    )]
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
    #[error("clock '{clock}' failed: {fault}")]
    Fault {
        /// The clock's name.
        clock: String,
        /// What it returned.
        fault: ClockFault,
    },
    /// The time budget ended before the experiment had the least data it needs.
    #[error("{experiment}: the time budget of {budget_s} s ended before {needed}")]
    BudgetExhausted {
        /// Which experiment.
        experiment: &'static str,
        /// The budget in seconds.
        budget_s: f64,
        /// What it still needed.
        needed: String,
    },
    /// The observer asked to stop.
    #[error("cancelled")]
    Cancelled,
    /// A report could not be read: malformed, foreign, or of another schema version.
    #[error("report: {0}")]
    Report(String),
    /// Timings to analyse could not be read: the message names the file, line or field.
    #[error("{0}")]
    Input(String),
}

/// Why a reading could not be used.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ClockFault {
    /// A float clock returned NaN, an infinity or a negative number.
    #[error("returned {value}, which is not a finite non-negative time")]
    NotATime {
        /// The value returned.
        value: f64,
    },
    /// A clock built on another found that one frozen: no edge within the reads allowed.
    #[error("its coarse clock did not change in {reads} reads")]
    Stalled {
        /// Reads made while waiting.
        reads: u64,
    },
    /// A float clock returned a value too large for 64-bit counts.
    #[error("returned {value}, too large for 64-bit counts")]
    Overflow {
        /// The value returned.
        value: f64,
    },
}

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

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn invalid(what: &'static str, why: impl Into<String>) -> Error {
    Error::Invalid {
        what,
        why: why.into(),
    }
}
