//! What went wrong, a variant per cause, and the exit code each gets: 2 for bad usage or
//! input, 1 for a measurement, a write, a server or a database that failed, 130 for Ctrl-C.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::class::store::StoreError;

/// Why the command stopped.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A flag or an argument that cannot be used, or a file that is not what it should be.
    #[error("{0}")]
    Usage(String),
    /// The core refused what it was given, or an experiment failed.
    #[error(transparent)]
    Core(ticklab::Error),
    /// Every selected clock, or every browser, ended without a result; the reasons.
    #[error("{0}")]
    Measurement(String),
    /// A file or the terminal could not be written.
    #[error("cannot write {what}: {reason}")]
    Write { what: String, reason: String },
    /// Nothing could listen on the address (in use, or not this machine's).
    #[error("cannot listen on {addr}: {source}; give another --port (0 picks a free one)")]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// The server's runtime could not start.
    #[error("cannot start the server: {0}")]
    Runtime(std::io::Error),
    /// The class's database failed, or is of a newer ticklab.
    #[error(transparent)]
    Database(#[from] StoreError),
    /// This machine gave no randomness for a class's code and key.
    #[error("no randomness for the class's code and key: {0}")]
    Randomness(String),
    /// A directory to write into could not be made.
    #[error("{flag} {}: cannot create it: {reason}", .dir.display())]
    Directory {
        flag: &'static str,
        dir: PathBuf,
        reason: String,
    },
    /// Ctrl-C ended the measurements early; what was kept.
    #[error("{0}")]
    Interrupted(String),
}

impl CliError {
    /// The exit code the command ends with.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) | CliError::Directory { .. } | CliError::Listen { .. } => 2,
            CliError::Core(e) if input(e) => 2,
            CliError::Database(StoreError::Newer { .. } | StoreError::NotAStore { .. }) => 2,
            CliError::Interrupted(_) => 130,
            _ => 1,
        }
    }

    /// A failure to write `what`.
    pub fn write(what: impl std::fmt::Display, reason: impl std::fmt::Display) -> Self {
        CliError::Write {
            what: what.to_string(),
            reason: reason.to_string(),
        }
    }
}

/// Whether the core's error is about its input (bad usage), not a measurement.
fn input(e: &ticklab::Error) -> bool {
    matches!(
        e,
        ticklab::Error::Invalid { .. }
            | ticklab::Error::NoData(_)
            | ticklab::Error::Report(_)
            | ticklab::Error::Input(_)
    )
}

impl From<ticklab::Error> for CliError {
    fn from(e: ticklab::Error) -> Self {
        CliError::Core(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_has_its_exit_code() {
        let bad = ticklab::Error::Invalid {
            what: "x",
            why: "y".into(),
        };
        assert_eq!(CliError::from(bad).exit_code(), 2);
        assert_eq!(CliError::Usage("x".into()).exit_code(), 2);
        assert_eq!(CliError::Measurement("x".into()).exit_code(), 1);
        assert_eq!(CliError::write("out", "full").exit_code(), 1);
        assert_eq!(CliError::Interrupted("x".into()).exit_code(), 130);
        let newer = StoreError::Newer {
            place: "c.sqlite".into(),
            found: 9,
            reads: 1,
        };
        assert_eq!(CliError::from(newer).exit_code(), 2);
        assert_eq!(CliError::from(StoreError::Stopped).exit_code(), 1);
    }
}
