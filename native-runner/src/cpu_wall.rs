//! `ticklab cpu-vs-wall`: the core's wall-against-CPU experiment (ticklab::cpu_wall) timed
//! by this machine's Instant and its process and thread CPU-time clocks; its words and CSV
//! are the core's.

use ticklab::clock::Clock;
use ticklab::cpu_wall::{self, Clocks, Options};
use ticklab::present;

use crate::cli::CpuWallArgs;
use crate::clocks::{self, NativeClock};
use crate::error::CliError;
use crate::output::{self, TextTable};

fn parse_sizes(s: &str) -> Result<Vec<u64>, CliError> {
    s.split(',')
        .map(|t| t.trim().parse::<u64>())
        .collect::<Result<Vec<u64>, _>>()
        .map_err(|_| {
            CliError::Usage(format!(
                "bad --n '{s}': expected whole numbers separated by commas"
            ))
        })
}

/// The catalogue's clock named `name`, opened, when this machine has it.
fn open(name: &str) -> Option<Box<dyn Clock>> {
    let e = clocks::catalogue()
        .into_iter()
        .find(|e| e.info.name == name)?;
    e.open().1.ok().map(NativeClock::boxed)
}

pub fn cpu_vs_wall(a: CpuWallArgs) -> Result<(), CliError> {
    let sizes = parse_sizes(&a.n)?;
    // The core checks the ranges; the flags are the command's to name.
    let o = Options::new(sizes, a.runs, a.cold_mib).map_err(|e| {
        CliError::Usage(match &e {
            ticklab::Error::Invalid { what: "sizes", why } => format!("bad --n '{}': {why}", a.n),
            ticklab::Error::Invalid { what: "runs", why } => format!("--runs {why}"),
            ticklab::Error::Invalid {
                what: "cold MiB",
                why,
            } => format!("--cold-mib {why}"),
            e => e.to_string(),
        })
    })?;
    let mut wall = open(clocks::std_clock::INSTANT)
        .ok_or_else(|| CliError::Measurement("std::time::Instant is not available".into()))?;
    // The system's process and thread CPU clocks: POSIX's, or Windows'.
    let mut process = open("CLOCK_PROCESS_CPUTIME_ID").or_else(|| open("GetProcessTimes"));
    let mut thread = open("CLOCK_THREAD_CPUTIME_ID").or_else(|| open("GetThreadTimes"));
    let r = cpu_wall::measure(
        Clocks {
            wall: wall.as_mut(),
            process: process.as_mut().map(|c| c.as_mut() as &mut dyn Clock),
            thread: thread.as_mut().map(|c| c.as_mut() as &mut dyn Clock),
        },
        &o,
    )?;
    if a.json {
        let s = serde_json::to_string_pretty(&r).map_err(|e| CliError::write("the output", e))?;
        return output::print(&s);
    }
    if a.csv {
        return output::print(&ticklab::export::cpu_wall_csv(&r));
    }
    let mut t = TextTable::new(&present::CPU_WALL_COLUMNS);
    for row in present::cpu_wall_cells(&r) {
        t.row(row);
    }
    let (above, below) = present::cpu_wall_words(&r);
    output::print(&format!("{above}\n{}\n{below}\n", t.render()))
}
