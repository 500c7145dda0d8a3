//! The native runner on other systems and CPUs: the tools each needs here (Debian's aarch64
//! cross compiler and qemu-user, MinGW-w64 and Wine, zig for macOS), the aarch64 build run
//! under qemu-user by the suite's `aarch64` test (its counter is cntvct_el0, its vDSO
//! another), the Windows build run under Wine by its `windows` test.

use std::path::PathBuf;

use crate::browsers::{install, which};
use crate::tools::{LINKER, MINGW};

/// The sysroot Debian's aarch64 libc lives in.
const SYSROOT: &str = "/usr/aarch64-linux-gnu";

/// What the aarch64 test needs: the runner built for aarch64, qemu to run it, and the
/// sysroot qemu loads its libc from.
pub struct Emulated {
    pub binary: PathBuf,
    pub qemu: PathBuf,
    pub sysroot: PathBuf,
}

/// What the aarch64 test needs, around `binary` (the test command's aarch64 build):
/// qemu-user-static and the cross compiler's sysroot, installed when missing.
pub fn emulated(binary: PathBuf) -> Result<Emulated, String> {
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
    Ok(Emulated {
        binary,
        qemu,
        sysroot: PathBuf::from(SYSROOT),
    })
}

/// Debian's Wine runs a 64-bit console program through this (the `wine` launcher wants the
/// 32-bit half).
const WINE64: &str = "/usr/lib/wine/wine64";

/// What the Windows test needs: the command built for Windows, a folder with it and the
/// shim its start needs under Wine, and Wine.
pub struct Windows {
    pub dir: PathBuf,
    pub wine64: PathBuf,
}

/// Installs MinGW-w64 and Wine when missing and puts `exe` (the test command's Windows
/// build) in a folder with, beside it, the shim DLL that Wine 8 lacks
/// (bcryptprimitives.dll's `ProcessPrng`, which Rust's std imports): test plumbing, never
/// shipped.
pub fn windows(exe: &std::path::Path) -> Result<Windows, String> {
    let wine64 = PathBuf::from(WINE64);
    let mut missing = Vec::new();
    if which(MINGW).is_none() {
        missing.push("gcc-mingw-w64-x86-64");
    }
    if !wine64.is_file() {
        missing.extend(["wine64", "wine"]);
    }
    install("the Windows build and its run under Wine", &missing)?;
    let root = crate::workspace_root();
    let dir = crate::web::target_dir(&root).join("windows");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    std::fs::copy(exe, dir.join("ticklab.exe")).map_err(|e| format!("{}: {e}", exe.display()))?;
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
