//! xtask's command line: each task a clap subcommand, its help its doc comment.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::{dist, shot};

/// The cargo-fuzz targets of fuzz/ and the seed corpus (tests/fuzz/corpus/) each one starts
/// from as well as its own.
pub const FUZZ_TARGETS: [(&str, &str); 5] = [
    ("analyze", "analyze"),
    ("tick", "intervals"),
    ("fits", "fits"),
    ("report", "report"),
    ("class", "report"),
];

/// ticklab's project tasks.
#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
pub struct Xtask {
    #[command(subcommand)]
    pub task: Task,
}

#[derive(Subcommand)]
pub enum Task {
    /// Everything CI runs, installing what it needs.
    ///
    /// Format check, clippy (host, wasm32; the command and its
    /// command-line tests for aarch64 Linux, macOS and Windows), actionlint on every
    /// workflow and shellcheck on the installer, the page's build and size, all tests (end
    /// to end in headless Chromium, Firefox and WebKit against ticklab serve; the command
    /// built for aarch64 Linux and run under qemu-user, built for Windows with MinGW-w64
    /// and run under Wine; every release archive packed from the debug builds, macOS's
    /// linked by cargo-zigbuild, read back and installed through the shell installer), the
    /// install step checked (into a temporary root, the command serves its page from an
    /// empty directory), the page's wasm tests in both browsers, then the command's and
    /// the starved clocks' tests again beside two busy loops; installs the browsers,
    /// drivers, wasm-bindgen-cli, qemu-user-static, the cross compilers, Wine, shellcheck,
    /// and from PyPI zig, cargo-zigbuild and actionlint, when missing.
    Test {
        /// Run all of it beside N busy loops (a shared machine).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
        beside: Option<u32>,
    },
    /// Measure this machine and serve the lab on http://127.0.0.1:8000/.
    ///
    /// Build the page and the ticklab command, measure every clock of this machine
    /// (target/ticklab/report.json and SVG plots), and serve the lab on
    /// http://127.0.0.1:8000/ with that report.
    Lab {
        /// Arguments for `ticklab serve` (--port N, --bind ADDR, --no-isolation).
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "SERVE ARGS"
        )]
        serve: Vec<String>,
    },
    /// Install the ticklab command, the page inside it.
    ///
    /// Build the page and install the ticklab command carrying it (cargo install, into
    /// ~/.cargo/bin or DIR/bin with --root DIR): its `ticklab serve` serves the page from
    /// any directory.
    Install {
        /// Arguments for `cargo install` (--root DIR, ...).
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "CARGO ARGS"
        )]
        cargo: Vec<String>,
    },
    /// Save screenshots of the page: the README's, the docs', or one.
    ///
    /// Run the full lab in headless Chromium and save docs/screenshot.png; `docs` saves
    /// what a visitor sees into docs/ (desktop.png, phone.png, phone-results.png,
    /// playground.png and every plot of performance.now at 5 µs, 100 µs and 1 ms); WIDTH
    /// PATH saves the page at WIDTH pixels (390 for a phone) to PATH, in any of the three
    /// engines, served by ticklab serve or found at URL (a plain static server, say).
    Screenshot {
        /// `docs`, or a width of 200 to 4000 pixels.
        #[arg(value_parser = shot_what)]
        what: Option<Shot>,
        /// Where to save the page (with WIDTH).
        path: Option<PathBuf>,
        /// The engine (with WIDTH).
        #[arg(value_enum)]
        engine: Option<Engine>,
        /// The page's URL, instead of ticklab serve (with WIDTH).
        #[arg(value_parser = url)]
        url: Option<String>,
    },
    /// Pack the release's archives and installers.
    ///
    /// The release's archives in target/dist (target/dist-dev with --dev): for each
    /// target the ticklab command carrying its page, with README and licences, as .tar.gz
    /// (.zip for Windows) with a .sha256 beside it, and the shell and PowerShell
    /// installers; builds the page first unless --site names a built one.
    Dist {
        /// A release target (default this machine's); may be given again.
        #[arg(long = "target", value_name = "T", value_parser = clap::builder::PossibleValuesParser::new(dist::TARGETS))]
        targets: Vec<String>,
        /// Every release target.
        #[arg(long)]
        all: bool,
        /// From debug builds, into target/dist-dev.
        #[arg(long)]
        dev: bool,
        /// A built page to carry.
        #[arg(long, value_name = "DIR")]
        site: Option<PathBuf>,
        /// Fail unless it is this version's tag (vX.Y.Z).
        #[arg(long)]
        tag: Option<String>,
    },
    /// Build the page (www/pkg) and print the size of its wasm and JavaScript.
    Web,
    /// Build the guide and check its links.
    ///
    /// Build the guide (docs/, an mdBook) into target/guide and check every link in it;
    /// installs mdBook when missing.
    Guide,
    /// Fuzz the parsers, estimators, fits and imports.
    ///
    /// Coverage-guided fuzzing (cargo-fuzz, libFuzzer) of analyze's input in every format,
    /// the tick estimators, the fits, report import and the class comparison's imports
    /// (fuzz/fuzz_targets/); the corpus grows in fuzz/corpus/, seeded from
    /// tests/fuzz/corpus/; a crash is left in fuzz/artifacts/ and fails the task;
    /// installs cargo-fuzz when missing.
    Fuzz {
        /// Seconds each target runs.
        #[arg(default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=86_400))]
        seconds: u32,
        /// One target alone.
        #[arg(value_parser = clap::builder::PossibleValuesParser::new(FUZZ_TARGETS.map(|(t, _)| t)))]
        target: Option<String>,
    },
    /// Measure every performance figure against its target.
    ///
    /// Every performance figure against its target, native and in headless Chromium,
    /// Firefox and WebKit, printed as a table and written to BENCHMARKS.md; `hub`,
    /// `atlas`, `class` or `load` prints those figures alone, writing nothing.
    Bench {
        #[arg(value_enum)]
        part: Option<BenchPart>,
    },
}

/// What `screenshot` saves: what a visitor sees, or the page at a width.
#[derive(Clone)]
pub enum Shot {
    Docs,
    Width(u32),
}

fn shot_what(s: &str) -> Result<Shot, String> {
    match s {
        "docs" => Ok(Shot::Docs),
        _ => match s.parse() {
            Ok(w) if (200..=4000).contains(&w) => Ok(Shot::Width(w)),
            _ => Err("`docs`, or a width of 200 to 4000 pixels".into()),
        },
    }
}

fn url(s: &str) -> Result<String, String> {
    match s.starts_with("http://") || s.starts_with("https://") {
        true => Ok(s.to_string()),
        false => Err("an http:// or https:// URL".into()),
    }
}

/// The engines a screenshot is taken in.
#[derive(Clone, Copy, ValueEnum)]
pub enum Engine {
    Chromium,
    Firefox,
    Webkit,
}

impl From<Engine> for shot::Browser {
    fn from(e: Engine) -> Self {
        match e {
            Engine::Chromium => shot::Browser::Chromium,
            Engine::Firefox => shot::Browser::Firefox,
            Engine::Webkit => shot::Browser::WebKit,
        }
    }
}

/// The figures `bench` may print alone.
#[derive(Clone, Copy, ValueEnum)]
pub enum BenchPart {
    /// Two hub instances on a throwaway PostgreSQL.
    Hub,
    /// The atlas on two hub instances: a million runs, its answer, its page.
    Atlas,
    /// `ticklab class` on loopback.
    Class,
    /// The page over Slow 4G, cold: the first answer and the full lab ready.
    Load,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Task, clap::Error> {
        Xtask::try_parse_from(["cargo xtask"].into_iter().chain(line.split(' '))).map(|x| x.task)
    }

    #[test]
    fn what_follows_lab_and_install_is_passed_on_whole() {
        let Ok(Task::Lab { serve }) = parse("lab --port 9000 --no-isolation") else {
            panic!("lab");
        };
        assert_eq!(serve, ["--port", "9000", "--no-isolation"]);
        let Ok(Task::Install { cargo }) = parse("install --root /tmp/x") else {
            panic!("install");
        };
        assert_eq!(cargo, ["--root", "/tmp/x"]);
    }

    #[test]
    fn each_task_takes_its_own_and_refuses_the_rest() {
        let Ok(Task::Dist {
            targets, dev, site, ..
        }) = parse(
            "dist --target x86_64-pc-windows-gnu --target aarch64-apple-darwin --dev --site s",
        )
        else {
            panic!("dist");
        };
        assert_eq!(targets, ["x86_64-pc-windows-gnu", "aarch64-apple-darwin"]);
        assert!(dev && site == Some(PathBuf::from("s")));
        assert!(matches!(parse("test"), Ok(Task::Test { beside: None })));
        assert!(matches!(
            parse("test --beside 2"),
            Ok(Task::Test { beside: Some(2) })
        ));
        assert!(matches!(
            parse("fuzz 5 tick"),
            Ok(Task::Fuzz { seconds: 5, target: Some(t) }) if t == "tick"
        ));
        assert!(matches!(
            parse("screenshot 390 a.png firefox http://x/"),
            Ok(Task::Screenshot {
                what: Some(Shot::Width(390)),
                engine: Some(Engine::Firefox),
                ..
            })
        ));
        for bad in [
            "test --beside 0",
            "fuzz 0",
            "fuzz 5 nothing",
            "screenshot 100",
            "screenshot 390 a.png safari",
            "bench foo",
            "dist --target mips",
            "web now",
            "frob",
        ] {
            let e = parse(bad).err().unwrap_or_else(|| panic!("{bad} taken"));
            assert_eq!(e.exit_code(), 2, "{bad}");
        }
    }
}
