//! Progress bars on stderr when it is a terminal (nothing otherwise), and Ctrl-C.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use ticklab::run::{Flow, Progress};

/// One bar, reused for each experiment on each clock.
pub struct Bars {
    bar: Option<ProgressBar>,
}

impl Bars {
    /// A bar when stderr is a terminal. No colours are used, so NO_COLOR holds trivially.
    pub fn new() -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = ProgressBar::new(1000);
            if let Ok(style) = ProgressStyle::with_template("{prefix:>32} {wide_bar} {msg}") {
                b.set_style(style.progress_chars("=> "));
            }
            b
        });
        Self { bar }
    }

    /// Starts a bar for `experiment` on `clock`.
    pub fn start(&self, clock: &str) {
        if let Some(b) = &self.bar {
            b.set_prefix(clock.to_string());
            b.set_position(0);
        }
    }

    /// The observer the core calls; cancels once Ctrl-C was pressed (see [`catch_interrupt`]).
    pub fn observer(&self) -> impl FnMut(&Progress<'_>) -> Flow + '_ {
        move |p| {
            if let Some(b) = &self.bar {
                b.set_message(p.experiment.to_string());
                b.set_position((p.fraction * 1000.0) as u64);
            }
            if interrupted() {
                Flow::Cancel
            } else {
                Flow::Continue
            }
        }
    }

    /// Clears the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// Seconds since the first call: the budgets' stopwatch.
pub fn stopwatch() -> impl FnMut() -> f64 {
    let origin = Instant::now();
    move || origin.elapsed().as_secs_f64()
}

/// Set by the first Ctrl-C of a measuring command.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// From now on, the first Ctrl-C asks the experiments to stop (they check within their
/// budgets' steps, so within milliseconds), and the command keeps and saves what was
/// measured; a second one ends the process at once (exit 130, as a shell reports SIGINT).
pub fn catch_interrupt() {
    // Without a watcher (no thread, no signal), Ctrl-C ends the command as it always has.
    let _ = watch_interrupt();
}

/// Watches Ctrl-C on a thread of its own with tokio's signal, which needs no system
/// framework (ctrlc pulls in Foundation on macOS through dispatch2). The signal is taken
/// before this returns, so no Ctrl-C falls between.
fn watch_interrupt() -> std::io::Result<()> {
    static STARTED: AtomicBool = AtomicBool::new(false);
    if STARTED.swap(true, Ordering::SeqCst) {
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    #[cfg(unix)]
    let mut signal = runtime.block_on(async {
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
    })?;
    #[cfg(windows)]
    let mut signal = runtime.block_on(async { tokio::signal::windows::ctrl_c() })?;
    std::thread::Builder::new()
        .name("ctrl-c".into())
        .spawn(move || {
            while runtime.block_on(signal.recv()).is_some() {
                if INTERRUPTED.swap(true, Ordering::SeqCst) {
                    std::process::exit(130);
                }
            }
        })?;
    Ok(())
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
