//! `cargo xtask dist`: the release's archives, a ticklab for each system without Rust. Each
//! archive holds the `ticklab` command carrying its page, the README and the licences, in a
//! folder named as the archive; beside each, its SHA-256 in `sha256sum`'s format; beside
//! them all, the shell and PowerShell installers that fetch them. The release workflow
//! (.github/workflows/release.yml) runs this per target on GitHub's runners, in the release
//! profile; the test command packs every archive of [`TARGETS`] from its own debug builds,
//! so a target that no longer builds or links, or an archive misnamed for the installers
//! and `cargo binstall`, is caught here and not on release day.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::{tools, web, workspace_root};

/// Every target the release ships, and the test command packs (the release workflow's
/// matrix lists the same: a test holds the two together).
pub const TARGETS: [&str; 5] = [
    "x86_64-unknown-linux-gnu",
    "aarch64-unknown-linux-gnu",
    "x86_64-pc-windows-gnu",
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
];

pub const AARCH64: &str = "aarch64-unknown-linux-gnu";
pub const WINDOWS: &str = "x86_64-pc-windows-gnu";

/// Files every archive holds beside the command.
const BESIDE: [&str; 3] = ["README.md", "LICENSE-MIT", "LICENSE-APACHE"];

/// The installers' templates (dist/), written out with the version and repository.
const INSTALLERS: [(&str, &str); 2] = [
    ("install.sh", "ticklab-installer.sh"),
    ("install.ps1", "ticklab-installer.ps1"),
];

/// Cargo's build profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// What the tests build (the test command's archives).
    Dev,
    /// What a release ships.
    Release,
}

impl Profile {
    fn dir(self) -> &'static str {
        match self {
            Profile::Dev => "debug",
            Profile::Release => "release",
        }
    }
}

fn windows(target: &str) -> bool {
    target.contains("-windows-")
}

fn macos(target: &str) -> bool {
    target.ends_with("-apple-darwin")
}

/// The oldest macOS a target's archive runs on: Rust's own minimum for it (10.12 on Intel,
/// 11.0, the first on Apple silicon).
pub fn oldest_macos(target: &str) -> Option<&'static str> {
    match target {
        "x86_64-apple-darwin" => Some("10.12"),
        "aarch64-apple-darwin" => Some("11.0"),
        _ => None,
    }
}

/// The archive's name: `ticklab-VERSION-TARGET.tar.gz`, or `.zip` for Windows (what its
/// Explorer opens).
pub fn archive_name(version: &str, target: &str) -> String {
    let ext = if windows(target) { "zip" } else { "tar.gz" };
    format!("ticklab-{version}-{target}.{ext}")
}

/// The target this machine's rustc builds for by default.
pub fn host() -> Result<String, String> {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .map_err(|e| format!("cannot run rustc: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .ok_or_else(|| "rustc -vV named no host".into())
}

/// The command's package as cargo reads it: its version and the repository it is
/// published from.
struct Package {
    version: String,
    repository: String,
}

fn package() -> Result<Package, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(&cargo)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(workspace_root())
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    let native = meta["packages"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == "ticklab-native"))
        .ok_or("cargo metadata lists no ticklab-native")?;
    let field = |name: &str| {
        native[name]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("ticklab-native has no {name}"))
    };
    Ok(Package {
        version: field("version")?,
        repository: field("repository")?,
    })
}

/// Builds `ticklab` for `target`, installing the cross tools it needs, and says where the
/// binary is. The host's own target is built without `--target`, so a release built here
/// is where cargo puts the host's builds.
pub fn build(target: &str, profile: Profile, site: Option<&Path>) -> Result<PathBuf, String> {
    let (command, exe) = build_command(target, profile, site, &["--bin", "ticklab"])?;
    crate::ledger::cargo(&format!("ticklab for {target} ({profile:?})"), command)?;
    Ok(exe)
}

/// The command that builds `units` of `ticklab-native` (`--bin ticklab`, or the test
/// command's `--lib --bins --test cli` after a `test --no-run`) for `target`, with the
/// cross tools it needs installed; and where its `ticklab` will be.
pub fn build_command(
    target: &str,
    profile: Profile,
    site: Option<&Path>,
    units: &[&str],
) -> Result<(Command, PathBuf), String> {
    let host = host()?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let zig = macos(target) && !macos(&host);
    let mut command = if zig {
        // zig links against its own stubs of libSystem: no SDK needed.
        let mut c = Command::new(tools::zigbuild()?);
        c.arg("zigbuild");
        c
    } else {
        let mut c = Command::new(&cargo);
        c.arg(if units.first() == Some(&"--no-run") {
            "test"
        } else {
            "build"
        });
        c
    };
    command
        .args(["-p", "ticklab-native", "--locked"])
        .args(units);
    if zig {
        // zig's stubs have libSystem, not SystemConfiguration, which the hub's PostgreSQL
        // client links: the Mac build linked here goes without the hub.
        command.args(["--no-default-features", "--features", "bundled-sqlite"]);
    }
    if target != host {
        command.args(["--target", target]);
    }
    if profile == Profile::Release {
        command.arg("--release");
    }
    if target == AARCH64 && !host.starts_with("aarch64-") {
        command.env(
            "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER",
            tools::aarch64_linker()?,
        );
    }
    if windows(target) && !windows(&host) {
        tools::mingw()?;
    }
    if let Some(site) = site {
        command.env("TICKLAB_EMBED_SITE", site);
    }
    if let Some(oldest) = oldest_macos(target) {
        // zig would mark the program for its own newest macOS; Apple's linker for the SDK's.
        command.env("MACOSX_DEPLOYMENT_TARGET", oldest);
    }
    if profile == Profile::Dev && target != host {
        // The test command's builds for other systems are run, not debugged: without debug
        // information they build a quarter faster (the release has none either).
        let var = format!(
            "CARGO_TARGET_{}_RUSTFLAGS",
            target.to_ascii_uppercase().replace('-', "_")
        );
        command.env(var, "-Cdebuginfo=0");
        // Nor is their core optimised as the host's tests need it (a 34 s crate at
        // opt-level 3, 8 s at 0): the Macs' builds are only packed, and Wine and qemu run
        // the others' through a few short commands, as quick unoptimised (the Windows
        // tests 10.6-10.9 s, the aarch64 test 9.0 s) as at opt-level 1, whose core took
        // 21 and 27 CPU-s to compile.
        command.args(["--config", "profile.dev.package.ticklab.opt-level=0"]);
    }
    command.current_dir(workspace_root());
    let mut dir = web::target_dir(&workspace_root());
    if target != host {
        dir = dir.join(target);
    }
    let exe = if windows(target) {
        "ticklab.exe"
    } else {
        "ticklab"
    };
    Ok((command, dir.join(profile.dir()).join(exe)))
}

/// Fails unless `binary` carries the page of `site`: its index.html's bytes are inside (the
/// build script takes the site from the environment, and a wrong folder embeds nothing).
fn carries_page(binary: &Path, site: &Path) -> Result<(), String> {
    let page = site.join("index.html");
    let needle = std::fs::read(&page).map_err(|e| format!("{}: {e}", page.display()))?;
    let bytes = std::fs::read(binary).map_err(|e| format!("{}: {e}", binary.display()))?;
    if memchr::memmem::find(&bytes, &needle).is_some() {
        Ok(())
    } else {
        Err(format!(
            "{} does not carry the page of {}",
            binary.display(),
            site.display()
        ))
    }
}

/// Packs `binary` for `target` into `out`: the archive, and its `.sha256` beside it.
pub fn pack(
    target: &str,
    version: &str,
    binary: &Path,
    out: &Path,
    profile: Profile,
) -> Result<PathBuf, String> {
    let name = archive_name(version, target);
    let folder = format!("ticklab-{version}-{target}");
    let root = workspace_root();
    let mut files: Vec<(String, Vec<u8>, u32)> = Vec::new();
    let exe = binary
        .file_name()
        .ok_or("a binary with no name")?
        .to_string_lossy()
        .to_string();
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    files.push((format!("{folder}/{exe}"), read(binary)?, 0o755));
    for f in BESIDE {
        files.push((format!("{folder}/{f}"), read(&root.join(f))?, 0o644));
    }
    // The test command's archives hold debug builds five times the size: packed fast.
    let level = match profile {
        Profile::Dev => 1,
        Profile::Release => 9,
    };
    let bytes = if windows(target) {
        zip_of(&files, level)?
    } else {
        tar_gz_of(&files, level)?
    };
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let path = out.join(&name);
    std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let sum = format!("{}  {name}\n", hex(&Sha256::digest(&bytes)));
    let sum_path = out.join(format!("{name}.sha256"));
    std::fs::write(&sum_path, sum).map_err(|e| format!("{}: {e}", sum_path.display()))?;
    eprintln!("   {} ({:.1} MB)", path.display(), bytes.len() as f64 / 1e6);
    Ok(path)
}

/// Bytes as lowercase hexadecimal, as sha256sum writes a digest.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// When the archives' files are dated: the last commit's time, so an archive built twice
/// from one commit is the same (SOURCE_DATE_EPOCH, the reproducible-builds convention,
/// first).
fn stamp() -> u64 {
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .or_else(|| {
            let out = Command::new("git")
                .args(["log", "-1", "--format=%ct"])
                .current_dir(workspace_root())
                .output()
                .ok()?;
            String::from_utf8_lossy(&out.stdout).trim().parse().ok()
        })
        .unwrap_or(0)
}

fn tar_gz_of(files: &[(String, Vec<u8>, u32)], level: u32) -> Result<Vec<u8>, String> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
    let mut tar = tar::Builder::new(gz);
    let when = stamp();
    for (name, bytes, mode) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(*mode);
        header.set_mtime(when);
        header.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut header, name, bytes.as_slice())
            .map_err(|e| format!("tar {name}: {e}"))?;
    }
    let gz = tar.into_inner().map_err(|e| format!("tar: {e}"))?;
    gz.finish().map_err(|e| format!("gzip: {e}"))
}

fn zip_of(files: &[(String, Vec<u8>, u32)], level: u32) -> Result<Vec<u8>, String> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let secs = i64::try_from(stamp()).unwrap_or(0);
    let when = time_of(secs);
    for (name, bytes, mode) in files {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .compression_level(Some(i64::from(level)))
            .unix_permissions(*mode)
            .last_modified_time(when);
        zip.start_file(name.as_str(), options)
            .map_err(|e| format!("zip {name}: {e}"))?;
        zip.write_all(bytes)
            .map_err(|e| format!("zip {name}: {e}"))?;
    }
    zip.finish()
        .map(std::io::Cursor::into_inner)
        .map_err(|e| format!("zip: {e}"))
}

/// A zip's date of `secs` since 1970 (UTC); its earliest (1980) for one before that.
fn time_of(secs: i64) -> zip::DateTime {
    time::OffsetDateTime::from_unix_timestamp(secs)
        .ok()
        .and_then(|t| {
            zip::DateTime::try_from(time::PrimitiveDateTime::new(t.date(), t.time())).ok()
        })
        .unwrap_or_default()
}

/// Writes the installers into `out` with the release's version and repository.
pub fn installers(version: &str, repository: &str, out: &Path) -> Result<(), String> {
    let root = workspace_root();
    for (template, name) in INSTALLERS {
        let from = root.join("dist").join(template);
        let text =
            std::fs::read_to_string(&from).map_err(|e| format!("{}: {e}", from.display()))?;
        let text = text
            .replace("@VERSION@", version)
            .replace("@REPOSITORY@", repository.trim_end_matches('/'));
        let to = out.join(name);
        std::fs::write(&to, text).map_err(|e| format!("{}: {e}", to.display()))?;
    }
    Ok(())
}

/// `cargo xtask dist [--target T]... [--all] [--dev] [--site DIR] [--tag vX.Y.Z]`.
pub fn run(
    mut targets: Vec<String>,
    all: bool,
    dev: bool,
    site: Option<PathBuf>,
    tag: Option<String>,
) -> Result<(), String> {
    if all {
        targets.extend(TARGETS.iter().map(|t| t.to_string()));
    }
    let profile = if dev { Profile::Dev } else { Profile::Release };
    if targets.is_empty() {
        targets.push(host()?);
    }
    if let Some(t) = targets.iter().find(|t| !TARGETS.contains(&t.as_str())) {
        return Err(format!(
            "dist: {t} is not a release target ({})",
            TARGETS.join(", ")
        ));
    }
    let package = package()?;
    if let Some(tag) = tag {
        if tag != format!("v{}", package.version) {
            return Err(format!(
                "dist: the tag {tag} is not this version's (v{})",
                package.version
            ));
        }
    }
    let site = match site {
        // Absolute: the build script reading it runs in the package's folder.
        Some(s) if s.join("index.html").is_file() => Some(
            s.canonicalize()
                .map_err(|e| format!("{}: {e}", s.display()))?,
        ),
        Some(s) => return Err(format!("{}: no built page (index.html)", s.display())),
        None => {
            web::build()?;
            None
        }
    };
    make(&targets, profile, site.as_deref(), &package).map(|_| ())
}

/// The test command's archives: every target's from the debug build the test command made
/// of it (this machine's is the very program the workspace's tests run), each carrying the
/// page it built; the folder they are in.
pub fn dev_archives(binaries: &[(&str, PathBuf)]) -> Result<PathBuf, String> {
    let package = package()?;
    let out = folder(Profile::Dev);
    let site = web::target_dir(&workspace_root()).join("site");
    for t in TARGETS {
        let binary = binaries
            .iter()
            .find(|(target, _)| *target == t)
            .map(|(_, b)| b)
            .ok_or_else(|| format!("no build for {t} to pack"))?;
        carries_page(binary, &site)?;
        pack(t, &package.version, binary, &out, Profile::Dev)?;
    }
    installers(&package.version, &package.repository, &out)?;
    Ok(out)
}

fn folder(profile: Profile) -> PathBuf {
    web::target_dir(&workspace_root()).join(match profile {
        Profile::Dev => "dist-dev",
        Profile::Release => "dist",
    })
}

fn make(
    targets: &[String],
    profile: Profile,
    site: Option<&Path>,
    package: &Package,
) -> Result<PathBuf, String> {
    let out = folder(profile);
    for t in targets {
        let binary = build(t, profile, site)?;
        let built = web::target_dir(&workspace_root()).join("site");
        carries_page(&binary, site.unwrap_or(&built))?;
        pack(t, &package.version, &binary, &out, profile)?;
    }
    installers(&package.version, &package.repository, &out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The zip's dates: 1970 is before its epoch; a known instant reads as the calendar
    /// says (2026-11-26 12:52:34 UTC).
    #[test]
    fn zip_dates_read_as_the_calendar() {
        let t = time_of(1_795_697_554);
        assert_eq!(
            (
                t.year(),
                t.month(),
                t.day(),
                t.hour(),
                t.minute(),
                t.second()
            ),
            (2026, 11, 26, 12, 52, 34)
        );
        assert_eq!(time_of(0).year(), 1980);
        let leap = time_of(951_782_400); // 2000-02-29 00:00:00
        assert_eq!((leap.year(), leap.month(), leap.day()), (2000, 2, 29));
    }

    #[test]
    fn windows_gets_a_zip_and_the_rest_a_tarball() {
        assert_eq!(
            archive_name("1.2.3", "x86_64-pc-windows-gnu"),
            "ticklab-1.2.3-x86_64-pc-windows-gnu.zip"
        );
        assert_eq!(
            archive_name("1.2.3", "aarch64-apple-darwin"),
            "ticklab-1.2.3-aarch64-apple-darwin.tar.gz"
        );
    }
}
