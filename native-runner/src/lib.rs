//! The `ticklab` command as a library: this machine's clocks behind the core's `Clock`
//! trait ([`clocks`]), and the command itself ([`main`]), so benchmarks reach the same
//! clocks the command measures.
//!
//! Exit codes: 0 ok, 2 bad usage or input, 1 a measurement that failed (with the reason).

pub mod analyze;
mod browsers;
// What only the hub uses of the class server's parts goes unused without it.
#[cfg_attr(not(feature = "hub"), allow(dead_code))]
mod class;
mod cli;
pub mod clocks;
mod commands;
mod cpu_wall;
mod error;
#[cfg(feature = "hub")]
mod hub;
mod logs;
mod machine;
mod output;
mod progress;
mod saved;
mod serve;
mod share;

use std::process::ExitCode;

use clap::Parser;

pub use error::CliError;

/// Parses the command line and runs the command.
pub fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let result = match cli.command {
        None => {
            print!("{}", cli::FIRST_STEPS);
            Ok(())
        }
        Some(cli::Command::List(a)) => commands::list(a),
        Some(cli::Command::Run(a)) => commands::run(a),
        Some(cli::Command::Tick(a)) => commands::tick(a),
        Some(cli::Command::Overhead(a)) => commands::overhead(a),
        Some(cli::Command::Fit(a)) => commands::fit(a),
        Some(cli::Command::Analyze(a)) => analyze::analyze(a),
        Some(cli::Command::CpuVsWall(a)) => cpu_wall::cpu_vs_wall(a),
        Some(cli::Command::Show(a)) => commands::show(a),
        Some(cli::Command::Serve(a)) => serve::serve(a),
        Some(cli::Command::Class(a)) => class::class(a),
        #[cfg(feature = "hub")]
        Some(cli::Command::Hub(a)) => hub::hub(a),
        #[cfg(not(feature = "hub"))]
        Some(cli::Command::Hub(_)) => Err(CliError::Usage(
            "this ticklab was built without the hub: build it with the `hub` feature \
             (cargo install --path native-runner, whose default has it)"
                .into(),
        )),
        Some(cli::Command::Browsers(a)) => browsers::browsers(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ticklab: {}", output::visible(&e.to_string()));
            ExitCode::from(e.exit_code())
        }
    }
}
