//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Measures this machine's clocks the way careful experimenters do: their real tick (not the
/// claimed one), the cost of a read, the shortest reliable timing block, and the cost of work
/// per unit, known far more precisely than the tick.
#[derive(Parser, Debug)]
#[command(name = "ticklab", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The clocks, their units and claimed resolutions, and which run here.
    List(ListArgs),
    /// Tick, overhead and a fit on every clock, and a summary table (the default).
    Run(RunArgs),
    /// The tick (resolution) of clocks, beside their claims.
    Tick(ExperimentArgs),
    /// The cost of one read, and the shortest timing block to use.
    Overhead(ExperimentArgs),
    /// Time against work: least squares, the least-values fit and the step prediction.
    Fit(FitArgs),
    /// The tick of durations measured elsewhere: one number a line, a CSV column, or the
    /// files of Criterion, hyperfine, pytest-benchmark and JMH.
    Analyze(AnalyzeArgs),
    /// Wall time against process and thread CPU time for a matrix multiply, and a cold
    /// (fresh memory) first pass against warm passes.
    CpuVsWall(CpuWallArgs),
    /// A saved report (`ticklab run --save FILE`, or the page's Export) as this command's
    /// tables, notes, CSV or plots: the page's results in the same words.
    Show(ShowArgs),
    /// Serves the web lab (cross-origin isolated unless --no-isolation), with this
    /// machine's report at /native/report.json for the page's Compare view.
    Serve(ServeArgs),
    /// Serves the lab to a class: students on this machine's networks open the join URL
    /// (or its QR code), run and send; the teacher's view shows each run as it arrives,
    /// kept in a SQLite file.
    Class(crate::class::ClassArgs),
    /// This machine's native clocks and every browser installed here, cross-origin
    /// isolated and not, in one table: the page runs headless in each engine through its
    /// WebDriver server.
    Browsers(crate::browsers::BrowsersArgs),
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Serve the page from DIR (index.html, sw.js and www/ with www/pkg, as `cargo xtask
    /// web` makes them) instead of the page this binary carries.
    #[arg(long, value_name = "DIR")]
    pub root: Option<std::path::PathBuf>,
    /// Address to listen on; anything but loopback exposes the lab to the network.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// A native report (`ticklab run --save FILE`) served at /native/report.json.
    #[arg(long, value_name = "FILE")]
    pub report: Option<std::path::PathBuf>,
    /// Serve without COOP/COEP: the page is not cross-origin isolated (coarser clocks).
    #[arg(long)]
    pub no_isolation: bool,
}

#[derive(Args, Debug, Default, Clone)]
pub struct Output {
    /// Print the report as JSON (the schema the page imports).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the summary as CSV.
    #[arg(long)]
    pub csv: bool,
    /// Write SVG plots into DIR (created if missing).
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The report, JSON of any schema version this ticklab reads, or a comparison
    /// (`ticklab browsers --save`); with --matrix, any number of them.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Print the files side by side as CSV, a row per clock and run: the page's Compare
    /// matrix, the rows a class server's teacher exports (/class/rows.csv).
    #[arg(long, conflicts_with_all = ["json", "csv", "plot"])]
    pub matrix: bool,
    #[command(flatten)]
    pub output: Output,
}

#[derive(Args, Debug)]
pub struct ListArgs {
    /// Print the list as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug, Default)]
pub struct RunArgs {
    #[command(flatten)]
    pub select: Select,
    /// Workload of the fit.
    #[arg(long, value_enum, default_value_t = WorkloadArg::Count)]
    pub workload: WorkloadArg,
    /// Skip the fits.
    #[arg(long)]
    pub no_fit: bool,
    #[command(flatten)]
    pub output: Output,
}

/// Which clocks, the time for each experiment on each, and where to save the report: the
/// flags every measuring command shares.
#[derive(Args, Debug, Default)]
pub struct Select {
    /// Clocks to measure (default: all); names as `ticklab list` prints them, any case,
    /// CLOCK_ prefix optional.
    #[arg(long = "clock", value_name = "NAME", num_args = 1..)]
    pub clocks: Vec<String>,
    /// Seconds for each experiment on each clock.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub time: Option<f64>,
    /// Also write the report as JSON to FILE (whole or not at all; after Ctrl-C, what was
    /// measured until then, marked interrupted).
    #[arg(long, value_name = "FILE")]
    pub save: Option<std::path::PathBuf>,
}

#[derive(Args, Debug)]
pub struct ExperimentArgs {
    #[command(flatten)]
    pub select: Select,
    /// Most samples (intervals, blocks) on each clock.
    #[arg(long, value_name = "N")]
    pub samples: Option<u64>,
    #[command(flatten)]
    pub output: Output,
}

#[derive(Args, Debug)]
pub struct FitArgs {
    #[command(flatten)]
    pub select: Select,
    /// Most timed runs on each clock.
    #[arg(long, value_name = "N")]
    pub samples: Option<u64>,
    /// The work whose cost grows with N.
    #[arg(long, value_enum, default_value_t = WorkloadArg::Count)]
    pub workload: WorkloadArg,
    /// Sizes LO..HI (default: calibrated to about 20 ticks of the clock).
    #[arg(long, value_name = "LO..HI")]
    pub n: Option<String>,
    /// Sizes in the range.
    #[arg(long, default_value_t = 16)]
    pub points: usize,
    /// Runs at each size.
    #[arg(long, default_value_t = 30)]
    pub runs: usize,
    #[command(flatten)]
    pub output: Output,
}

#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WorkloadArg {
    /// Krutar's count-down loop.
    #[default]
    Count,
    /// Copy of N bytes.
    Copy,
    /// Sum of square roots of N doubles.
    Sqrt,
    /// N×N matrix multiply (N³ multiply-adds).
    Matmul,
}

/// `--unit`: the core's units, by the names the core gives them.
fn unit_parser() -> impl clap::builder::TypedValueParser<Value = ticklab::unit::Unit> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(ticklab::unit::Unit::ALL.map(|u| u.key()))
        .try_map(|key: String| ticklab::unit::Unit::parse(&key))
}

#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// Durations or a clock's readings: one a line, a CSV or TSV file (every column, or
    /// one with --column), a tool's file (Criterion's sample.json or raw.csv, hyperfine's
    /// --export-json, pytest-benchmark's --benchmark-json, JMH's -rf json), a directory of
    /// them (target/criterion), or - for standard input.
    pub file: String,
    /// Read this column of a CSV file: a header name or a 1-based index.
    #[arg(long, value_name = "NAME|INDEX")]
    pub column: Option<String>,
    /// Unit of plain numbers (the tools' files carry their own); without it, ticks, or
    /// for readings of the years 2000 to 2100 the epoch unit their size says.
    #[arg(long, value_parser = unit_parser())]
    pub unit: Option<ticklab::unit::Unit>,
    /// Read the values as a clock's readings (the tick divides the intervals between
    /// them), whatever they look like.
    #[arg(long, conflicts_with = "durations")]
    pub readings: bool,
    /// Read the values as durations, even when they only grow.
    #[arg(long)]
    pub durations: bool,
    #[command(flatten)]
    pub output: Output,
}

#[derive(Args, Debug)]
pub struct CpuWallArgs {
    /// Matrix sizes, comma separated.
    #[arg(long, value_name = "N,N,...", default_value = "32,64,128,256")]
    pub n: String,
    /// Runs at each size (the minimum is kept).
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// MiB of fresh memory for the cold/warm comparison.
    #[arg(long, default_value_t = 64)]
    pub cold_mib: usize,
    /// Print JSON.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV.
    #[arg(long)]
    pub csv: bool,
}
