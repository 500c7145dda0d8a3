//! The core's errors in words: what the command prints and a report's failures say.

use std::fmt;

use super::caveat;
use crate::caveat::Caveat;
use crate::error::{ClockFault, Error};

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Invalid { what, why } => write!(f, "invalid {what}: {why}"),
            Error::NoData(c) => write!(f, "not enough data: {}", caveat(c)),
            Error::Frozen {
                clock,
                elapsed_s,
                reads,
            } => {
                let c = Caveat::Frozen {
                    elapsed_s: *elapsed_s,
                    reads: *reads,
                };
                write!(f, "clock '{clock}' {}", caveat(&c))
            }
            Error::TooSlow {
                clock,
                experiment,
                read_s,
                budget_s,
                min_reads,
            } => {
                let c = Caveat::TooSlow {
                    experiment: (*experiment).into(),
                    read_s: *read_s,
                    budget_s: *budget_s,
                    min_reads: u64::from(*min_reads),
                };
                write!(f, "clock '{clock}' {}", caveat(&c))
            }
            Error::Fault { clock, fault } => write!(f, "clock '{clock}' failed: {fault}"),
            Error::BudgetExhausted { experiment, why } => {
                write!(f, "{experiment}: {}", caveat(why))
            }
            Error::Cancelled => f.write_str("cancelled"),
            Error::Report(m) => write!(f, "report: {m}"),
            Error::Input(m) => f.write_str(m),
        }
    }
}

impl fmt::Display for ClockFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&caveat(&self.cause()))
    }
}
