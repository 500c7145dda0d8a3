//! The native runner on another CPU: built for aarch64 Linux with Debian's cross linker and
//! run under qemu-user (its counter is cntvct_el0, its vDSO another), by the suite's
//! `aarch64` test.

use std::path::PathBuf;

use crate::browsers::{install, which};

pub const AARCH64: &str = "aarch64-unknown-linux-gnu";
/// Debian's cross linker and the sysroot its libc lives in.
const LINKER: &str = "aarch64-linux-gnu-gcc";
const SYSROOT: &str = "/usr/aarch64-linux-gnu";

/// What the aarch64 test needs: the runner built for aarch64, qemu to run it, and the
/// sysroot qemu loads its libc from.
pub struct Emulated {
    pub binary: PathBuf,
    pub qemu: PathBuf,
    pub sysroot: PathBuf,
}

/// Installs qemu-user-static and the cross compiler when missing, then builds `ticklab`
/// for aarch64.
pub fn build() -> Result<Emulated, String> {
    let missing: Vec<&str> = [
        ("qemu-user-static", "qemu-aarch64-static"),
        ("gcc-aarch64-linux-gnu", LINKER),
    ]
    .iter()
    .filter(|(_, bin)| which(bin).is_none())
    .map(|(pkg, _)| *pkg)
    .collect();
    install("the aarch64 run under emulation", &missing)?;
    let qemu = which("qemu-aarch64-static").ok_or("qemu-aarch64-static is still missing")?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let args = [
        "build",
        "-p",
        "ticklab-native",
        "--bin",
        "ticklab",
        "--target",
        AARCH64,
    ];
    eprintln!(
        "\n== the native runner for {AARCH64}: {cargo} {}",
        args.join(" ")
    );
    let ok = std::process::Command::new(&cargo)
        .args(args)
        .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER", LINKER)
        .current_dir(crate::workspace_root())
        .status()
        .map_err(|e| format!("cannot start {cargo}: {e}"))?
        .success();
    if !ok {
        return Err(format!("building the native runner for {AARCH64} failed"));
    }
    let binary = crate::web::target_dir(&crate::workspace_root())
        .join(AARCH64)
        .join("debug")
        .join("ticklab");
    Ok(Emulated {
        binary,
        qemu,
        sysroot: PathBuf::from(SYSROOT),
    })
}
