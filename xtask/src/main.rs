//! Project tasks: `cargo xtask test | lab | bench`.

mod lab;

use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask <command>

commands:
  test    everything CI runs: format check, clippy (host and wasm32), all tests, wasm32 build
  lab     measure this machine's std clock and synthetic browser clamps over it, print the
          table and write target/ticklab/report.json
  bench   run the benchmarks (least-values fit of 1 000 000 points)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") if args.len() == 1 => test(),
        Some("lab") if args.len() == 1 => lab::run(),
        Some("bench") if args.len() == 1 => bench(),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs a command from the workspace root, failing with its name when it fails.
fn step(what: &str, program: &str, args: &[&str]) -> Result<(), String> {
    eprintln!("\n== {what}: {program} {}", args.join(" "));
    let status = Command::new(program)
        .args(args)
        .current_dir(workspace_root())
        .status()
        .map_err(|e| format!("{what}: cannot start {program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

const WASM: &str = "wasm32-unknown-unknown";

/// Installs the wasm32 target when missing (rust-toolchain.toml names it, but an older
/// rustup may not act on that).
fn ensure_wasm_target() -> Result<(), String> {
    let out = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .current_dir(workspace_root())
        .output()
        .map_err(|e| {
            format!("cannot run rustup ({e}); install rustup, then `rustup target add {WASM}`")
        })?;
    if String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l.trim() == WASM)
    {
        return Ok(());
    }
    step(
        "install the wasm32 target",
        "rustup",
        &["target", "add", WASM],
    )
}

fn test() -> Result<(), String> {
    let started = std::time::Instant::now();
    ensure_wasm_target()?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    step("format", &cargo, &["fmt", "--all", "--", "--check"])?;
    step(
        "clippy (host)",
        &cargo,
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    step(
        "clippy (wasm32 core)",
        &cargo,
        &[
            "clippy", "-p", "ticklab", "--target", WASM, "--", "-D", "warnings",
        ],
    )?;
    step("tests", &cargo, &["test", "--workspace"])?;
    step(
        "build the core for wasm32",
        &cargo,
        &["build", "-p", "ticklab", "--target", WASM],
    )?;
    eprintln!(
        "\nall checks passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn bench() -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    step("benchmarks", &cargo, &["bench", "-p", "ticklab"])
}
