//! Command-line arguments.

use std::path::PathBuf;

use std::net::IpAddr;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};
use ticklab::digest::Figure;
use ticklab::workload::WorkloadKind;
use ticklab_driver::Browser;

/// Measures this machine's clocks the way careful experimenters do: their real tick (not the
/// claimed one), the cost of a read, the shortest reliable timing block, and the cost of work
/// per unit, known far more precisely than the tick.
#[derive(Parser, Debug)]
#[command(name = "ticklab", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// What `ticklab` alone prints: what to try first.
pub const FIRST_STEPS: &str = "\
ticklab measures clocks: their real tick, what a read costs, how long to time.

Try first:
  ticklab run            every clock of this machine, its tick against its claim (a few seconds)
  ticklab serve          the web lab at http://127.0.0.1:8000/: this browser's clocks
  ticklab browsers       this machine and every browser installed here, in one table
  ticklab analyze FILE   the tick of timings measured elsewhere (a column of numbers, Criterion, hyperfine...)
  ticklab class          a class, live: students join from their phones

ticklab help            every command; ticklab <command> --help for one
The guide: https://github.com/ticklab/ticklab/tree/main/docs
";

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The clocks, their units and claimed resolutions, and which run here.
    List(ListArgs),
    /// Tick, overhead and a fit on every clock, and a summary table.
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
    Class(ClassArgs),
    /// A service for every class at once, on PostgreSQL: teachers start classes from the
    /// page; any number of hub instances behind a load balancer share one database. For a
    /// hosted deployment behind HTTPS (docs/deploy.md).
    Hub(HubArgs),
    /// This machine's native clocks and every browser installed here, cross-origin
    /// isolated and not, in one table: the page runs headless in each engine through its
    /// WebDriver server.
    Browsers(BrowsersArgs),
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Serve the page from DIR (index.html, sw.js and www/ with www/pkg, as `cargo xtask
    /// web` makes them) instead of the page this binary carries.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Address to listen on; anything but loopback exposes the lab to the network.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// A native report (`ticklab run --save FILE`) served at /native/report.json.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
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

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub select: Select,
    /// Workload of the fit.
    #[arg(long, value_parser = workload_parser(), default_value = "count")]
    pub workload: WorkloadKind,
    /// Skip the fits.
    #[arg(long)]
    pub no_fit: bool,
    #[command(flatten)]
    pub output: Output,
    /// Add this run to the atlas of the hub at HUB (https://HOST): prints each field it
    /// sends (OS family, CPU family, a bucket of logical CPUs, each clock's tick, read cost
    /// and verdict) before it sends them.
    #[arg(long, value_name = "HUB", value_parser = hub_url)]
    pub share: Option<String>,
}

impl Default for RunArgs {
    /// `ticklab` alone: every clock, the count-down loop's fit, a table.
    fn default() -> Self {
        Self {
            select: Select::default(),
            workload: WorkloadKind::Count,
            no_fit: false,
            output: Output::default(),
            share: None,
        }
    }
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
    pub save: Option<PathBuf>,
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
    #[arg(long, value_parser = workload_parser(), default_value = "count")]
    pub workload: WorkloadKind,
    /// Sizes LO..HI (default: calibrated to about 20 ticks of the clock).
    #[arg(long, value_name = "LO..HI", value_parser = range)]
    pub n: Option<(u64, u64)>,
    /// Sizes in the range.
    #[arg(long, default_value_t = 16)]
    pub points: usize,
    /// Runs at each size.
    #[arg(long, default_value_t = 30)]
    pub runs: usize,
    #[command(flatten)]
    pub output: Output,
}

/// A value of the core's, by the name the core gives it: what clap lists, checks and
/// suggests, with each value's help.
fn named<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    name: fn(T) -> &'static str,
    help: fn(T) -> &'static str,
) -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(
        all.iter()
            .map(|&t| PossibleValue::new(name(t)).help(help(t))),
    )
    .try_map(move |key: String| {
        all.iter()
            .copied()
            .find(|&t| name(t) == key)
            .ok_or_else(|| format!("'{key}' is none of the values"))
    })
}

/// `--workload`: the core's workloads.
fn workload_parser() -> impl TypedValueParser<Value = WorkloadKind> {
    named(&WorkloadKind::ALL, WorkloadKind::name, |w| match w {
        WorkloadKind::Count => "Krutar's count-down loop",
        WorkloadKind::Copy => "Copy of N bytes",
        WorkloadKind::Sqrt => "Sum of square roots of N doubles",
        WorkloadKind::Matmul => "N×N matrix multiply (N³ multiply-adds)",
    })
}

/// `--cell`: what a cell of a comparison shows.
fn cell_parser() -> impl TypedValueParser<Value = Figure> {
    named(&Figure::ALL, Figure::key, |c| match c {
        Figure::Tick => "The tick, with its verdict's sign",
        Figure::ReadCost => "The cost of one read",
        Figure::Verdict => "The verdict on the claim, in words",
    })
}

/// `--engine`: a browser engine by any of its names.
fn engine(name: &str) -> Result<Browser, String> {
    Browser::parse(name).ok_or_else(|| {
        let all = Browser::ALL.map(|b| b.name().to_ascii_lowercase());
        format!("the engines are {}", all.join(", "))
    })
}

/// `--n LO..HI` (also `LO:HI`, `LO-HI`): whole numbers, 1 ≤ LO < HI.
fn range(s: &str) -> Result<(u64, u64), String> {
    let bad = || {
        format!("bad --n '{s}': expected LO..HI with whole numbers 1 ≤ LO < HI, e.g. 1000..50000")
    };
    let (lo, hi) = s
        .split_once("..")
        .or_else(|| s.split_once(':'))
        .or_else(|| s.split_once('-'))
        .ok_or_else(bad)?;
    let whole = |x: &str| x.trim().replace('_', "").parse::<u64>().map_err(|_| bad());
    let (lo, hi) = (whole(lo)?, whole(hi)?);
    if lo == 0 || hi <= lo {
        return Err(bad());
    }
    Ok((lo, hi))
}

/// `--unit`: the core's units, by the names the core gives them.
fn unit_parser() -> impl clap::builder::TypedValueParser<Value = ticklab::unit::Unit> {
    PossibleValuesParser::new(ticklab::unit::Unit::ALL.map(|u| u.key()))
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

#[derive(Args, Debug)]
pub struct BrowsersArgs {
    /// Engines to run (default: every one found here): chromium (or chrome), firefox,
    /// webkit, edge, safari; repeat the flag or separate with commas.
    #[arg(long = "engine", value_name = "NAME", value_delimiter = ',', value_parser = engine)]
    pub engines: Vec<Browser>,
    /// Only pages that are not cross-origin isolated (what most sites are).
    #[arg(long, conflicts_with = "only_isolated")]
    pub only_plain: bool,
    /// Only cross-origin isolated pages (COOP and COEP sent).
    #[arg(long)]
    pub only_isolated: bool,
    /// Leave this machine's native clocks out.
    #[arg(long)]
    pub no_native: bool,
    /// What each cell shows: the tick with its verdict's sign, the read cost, or the verdict.
    #[arg(long, value_parser = cell_parser(), default_value = "tick")]
    pub cell: Figure,
    /// Seconds a page's run may take before it counts as failed.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    pub timeout: f64,
    /// Also write the comparison as JSON to FILE (whole or not at all; after Ctrl-C, what
    /// finished). `ticklab show FILE` prints it again.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Print the comparison as JSON (every run's whole report).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the table as CSV.
    #[arg(long)]
    pub csv: bool,
    /// Add each run to the atlas of the hub at HUB (https://HOST), printing each field
    /// it sends before it sends them.
    #[arg(long, value_name = "HUB", value_parser = hub_url)]
    pub share: Option<String>,
}

#[derive(Args, Debug)]
pub struct ClassArgs {
    /// The file the class is kept in (SQLite); created when missing, and the class in it
    /// goes on when it is there.
    #[arg(long, value_name = "FILE", default_value = "ticklab-class.sqlite")]
    pub db: PathBuf,
    /// Start another class in the file (a new code and key) instead of going on.
    #[arg(long)]
    pub new: bool,
    /// Address to listen on: every address of this machine by default, so students on
    /// its networks can reach it; 127.0.0.1 keeps the class on this machine.
    #[arg(long, default_value = "0.0.0.0")]
    pub bind: IpAddr,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// Serve the page from DIR instead of the page this binary carries.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// A native report (`ticklab run --save FILE`) served at /native/report.json.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Serve without COOP/COEP (the teacher's own page is then not isolated either).
    #[arg(long)]
    pub no_isolation: bool,
    /// Print no QR code of the join URL.
    #[arg(long)]
    pub no_qr: bool,
}

/// How the hub writes its log.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// One JSON object a line, for a log collector.
    Json,
    /// Plain text, for a terminal.
    Text,
}

#[derive(Args, Debug)]
pub struct HubArgs {
    /// The PostgreSQL database every instance shares, as
    /// postgres://USER:PASSWORD@HOST:PORT/DATABASE.
    #[arg(long, env = "DATABASE_URL", value_name = "URL", hide_env_values = true)]
    pub database_url: String,
    /// Address to listen on.
    #[arg(long, env = "TICKLAB_BIND", default_value = "0.0.0.0")]
    pub bind: IpAddr,
    /// Port to listen on (0 picks a free one).
    #[arg(long, env = "TICKLAB_PORT", default_value_t = 8080)]
    pub port: u16,
    /// The URL students reach the hub at (https://hub.example.org), for join URLs and QR
    /// codes; by default, where each request came to (its Host, and X-Forwarded-Proto).
    #[arg(long, env = "TICKLAB_PUBLIC_URL", value_name = "URL", value_parser = public_url)]
    pub public_url: Option<String>,
    /// Days a class's rows are kept after it closes; then they are deleted.
    #[arg(long, env = "TICKLAB_KEEP_DAYS", default_value_t = 30, value_parser = clap::value_parser!(u32).range(0..=3650))]
    pub keep_days: u32,
    /// Take the client's address from the last X-Forwarded-For entry, as the reverse
    /// proxy in front writes it (only behind a proxy: a client can write that header).
    #[arg(long, env = "TICKLAB_TRUST_PROXY")]
    pub trust_proxy: bool,
    /// Most connections to the database this instance holds.
    #[arg(long, env = "TICKLAB_POOL", default_value_t = 16, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub pool: u32,
    /// How long to wait for the database at start before giving up, in seconds.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(0..=3600))]
    pub wait_db: u32,
    /// The log's form.
    #[arg(long, env = "TICKLAB_LOG_FORMAT", value_enum, default_value_t = LogFormat::Json)]
    pub log_format: LogFormat,
    /// Serve the page from DIR instead of the page this binary carries.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The atlas shows a cell once runs from at least this many distinct senders are in it.
    #[arg(long, env = "TICKLAB_ATLAS_K", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub atlas_k: u32,
    /// Days the atlas keeps a raw run, and a sender's digest after its last counted run;
    /// the cells' figures are kept.
    #[arg(long, env = "TICKLAB_ATLAS_KEEP_DAYS", default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub atlas_keep_days: u32,
}

/// The hub's URL, checked: `https://HOST[:PORT][/PATH]`, or `http://` for a hub on a
/// LAN or on this machine.
pub fn hub_url(s: &str) -> Result<String, String> {
    let rest = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"))
        .ok_or_else(|| format!("'{s}' is not a hub's URL: give it as https://HOST"))?;
    let host = rest.split('/').next().unwrap_or("");
    let fine = |b: u8| b.is_ascii_alphanumeric() || b".-:[]".contains(&b);
    if host.is_empty() || !host.bytes().all(fine) || rest.contains(['?', '#', ' ']) {
        return Err(format!("'{s}' is not a URL like https://hub.example.org"));
    }
    Ok(s.trim_end_matches('/').to_string())
}

/// An http(s) URL with a host and nothing after it but a path.
fn public_url(s: &str) -> Result<String, String> {
    let rest = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"))
        .ok_or("give the URL with its scheme: https://hub.example.org")?;
    let host = rest.split('/').next().unwrap_or("");
    let fine = |b: u8| b.is_ascii_alphanumeric() || b".-:[]".contains(&b);
    if host.is_empty() || !host.bytes().all(fine) || rest.contains(['?', '#', ' ']) {
        return Err(format!("'{s}' is not a URL like https://hub.example.org"));
    }
    Ok(s.trim_end_matches('/').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_urls_parse_and_bad_ones_are_refused() {
        assert_eq!(
            public_url("https://hub.example.org/").unwrap(),
            "https://hub.example.org"
        );
        assert_eq!(
            public_url("http://127.0.0.1:8080").unwrap(),
            "http://127.0.0.1:8080"
        );
        for bad in [
            "hub.example.org",
            "ftp://x",
            "https://",
            "https://a b",
            "https://x/?q",
            "https://<x>",
        ] {
            assert!(public_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ranges_parse_and_bad_ones_are_refused() {
        assert_eq!(range("10..20").unwrap(), (10, 20));
        assert_eq!(range("1_000:2_000").unwrap(), (1000, 2000));
        for bad in ["", "5", "0..3", "5..5", "9..3", "a..b", "-3..4", "1..1e3"] {
            assert!(range(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_arguments_are_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
