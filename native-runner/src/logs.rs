//! The servers' logs through tracing: plain text for `ticklab class` at a terminal, one
//! JSON object a line for `ticklab hub` (a log collector reads it), filtered by RUST_LOG
//! (`info` when unset).

use tracing_subscriber::EnvFilter;

use crate::cli::LogFormat;

/// Sends the log to stderr in `format`; a second call changes nothing.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let b = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Json => b.json().flatten_event(true).try_init(),
        LogFormat::Text => b
            .with_target(false)
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .try_init(),
    };
}
