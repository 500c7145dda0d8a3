//! `cargo xtask lab`: builds the `ticklab` command and measures every clock of this machine,
//! writing the report the page will show beside the browser's.

use std::process::Command;

pub fn run() -> Result<(), String> {
    let root = super::workspace_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    super::step(
        "build the ticklab command",
        &cargo,
        &["build", "--release", "-p", "ticklab-native"],
    )?;
    let dir = root.join("target/ticklab");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let report = dir.join("report.json");
    let plots = dir.join("plots");
    let bin = root.join("target/release/ticklab");
    eprintln!("\n== measure this machine: ticklab run");
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
    Ok(())
}
