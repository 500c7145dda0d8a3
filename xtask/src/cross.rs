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
    build_for(
        AARCH64,
        &[("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER", LINKER)],
    )?;
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

/// Builds the `ticklab` binary for `target` (debug), with `env`.
fn build_for(target: &str, env: &[(&str, &str)]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let args = [
        "build",
        "-p",
        "ticklab-native",
        "--bin",
        "ticklab",
        "--target",
        target,
    ];
    eprintln!(
        "\n== the native runner for {target}: {cargo} {}",
        args.join(" ")
    );
    let ok = std::process::Command::new(&cargo)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(crate::workspace_root())
        .status()
        .map_err(|e| format!("cannot start {cargo}: {e}"))?
        .success();
    if ok {
        Ok(())
    } else {
        Err(format!("building the native runner for {target} failed"))
    }
}

pub const WINDOWS: &str = "x86_64-pc-windows-gnu";
/// Debian's MinGW-w64 C compiler, the target's linker.
const MINGW: &str = "x86_64-w64-mingw32-gcc";
/// Debian's Wine runs a 64-bit console program through this (the `wine` launcher wants the
/// 32-bit half).
const WINE64: &str = "/usr/lib/wine/wine64";

/// What the Windows test needs: the command built for Windows, a folder with it and the
/// shim its start needs under Wine, and Wine.
pub struct Windows {
    pub dir: PathBuf,
    pub wine64: PathBuf,
}

/// Installs MinGW-w64 and Wine when missing, builds `ticklab.exe` for Windows and, beside
/// it, the shim DLL that Wine 8 lacks (bcryptprimitives.dll's `ProcessPrng`, which Rust's
/// std imports): test plumbing, never shipped.
pub fn windows() -> Result<Windows, String> {
    let wine64 = PathBuf::from(WINE64);
    let mut missing = Vec::new();
    if which(MINGW).is_none() {
        missing.push("gcc-mingw-w64-x86-64");
    }
    if !wine64.is_file() {
        missing.extend(["wine64", "wine"]);
    }
    install("the Windows build and its run under Wine", &missing)?;
    build_for(WINDOWS, &[])?;
    let root = crate::workspace_root();
    let target = crate::web::target_dir(&root);
    let dir = target.join("windows");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let exe = target.join(WINDOWS).join("debug").join("ticklab.exe");
    std::fs::copy(&exe, dir.join("ticklab.exe")).map_err(|e| format!("{}: {e}", exe.display()))?;
    let shim = root.join("tests").join("windows").join("process_prng.c");
    let dll = dir.join("bcryptprimitives.dll");
    let ok = std::process::Command::new(MINGW)
        .args(["-shared", "-O2", "-o"])
        .arg(&dll)
        .arg(&shim)
        .arg("-ladvapi32")
        .status()
        .map_err(|e| format!("cannot start {MINGW}: {e}"))?
        .success();
    if !ok {
        return Err(format!("building {} failed", dll.display()));
    }
    Ok(Windows { dir, wine64 })
}
