//! The one error type of the core.

use crate::clock::ClockFault;

/// Everything an experiment, estimator or report parser can refuse or fail with.
///
/// Messages say what to change; none of these is a panic in disguise.
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
         or its tick is longer than the time budget (raise --time)"
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
         the {budget_s} s budget of the {experiment} experiment (raise --time)"
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
    #[error(
        "{experiment}: the time budget of {budget_s} s ended before {needed}; raise the budget"
    )]
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
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn invalid(what: &'static str, why: impl Into<String>) -> Error {
    Error::Invalid {
        what,
        why: why.into(),
    }
}
