//! `cargo xtask lab`: builds the page and the `ticklab` command, measures every clock of this
//! machine, and serves the page with that report beside the browser's.

use std::path::PathBuf;
use std::process::Command;

/// Builds `ticklab` and measures this machine: the binary and the report's path.
pub fn measure() -> Result<(PathBuf, PathBuf), String> {
    let root = super::workspace_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    super::step(
        "build the ticklab command",
        &cargo,
        &["build", "--release", "-p", "ticklab-native"],
    )?;
    let target = crate::web::target_dir(&root);
    let dir = target.join("ticklab");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let report = dir.join("report.json");
    let plots = dir.join("plots");
    let bin = target.join("release/ticklab");
    eprintln!("\n== [{}] measure this machine: ticklab run", crate::at());
    let status = Command::new(&bin)
        .arg("run")
        .arg("--save")
        .arg(&report)
        .arg("--plot")
        .arg(&plots)
        .status()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    if !status.success() {
        return Err(format!("ticklab run failed ({status})"));
    }
    println!(
        "\nreport: {}\nplots:  {}",
        report.display(),
        plots.display()
    );
    Ok((bin, report))
}

/// Builds everything, measures, then serves until Ctrl-C. `args` go to `ticklab serve`
/// (`--port`, `--bind`, `--no-isolation`).
pub fn run(args: &[String]) -> Result<(), String> {
    crate::web::build()?;
    let (bin, report) = measure()?;
    let root = super::workspace_root();
    let site = crate::web::target_dir(&root).join("site");
    eprintln!(
        "\n== [{}] serve the lab: ticklab serve (open the URL below)",
        crate::at()
    );
    let status = Command::new(&bin)
        .arg("serve")
        .arg("--root")
        .arg(&site)
        .arg("--report")
        .arg(&report)
        .args(args)
        .status()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("ticklab serve stopped ({status})"))
    }
}
