//! The release's archives as `cargo xtask test` packs them (TICKLAB_DIST: `cargo xtask dist
//! --dev` for every target, from the debug builds): the release workflow ships the same
//! targets; each archive holds, under its own folder, a command built for its system and
//! CPU that needs nothing but the system's own libraries, with the README and licences, and
//! the SHA-256 beside it says so; `cargo binstall`'s metadata names each archive and the
//! command inside; the shell installer installs from a release served on loopback and
//! refuses an archive whose checksum is wrong.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use object::read::elf::{Dyn, FileHeader};
use object::{Architecture, BinaryFormat, Object};
use sha2::{Digest, Sha256};
use ticklab_browser::StaticHost;

const VERSION: &str = env!("CARGO_PKG_VERSION");
const BIN: &str = env!("CARGO_BIN_EXE_ticklab");

fn dist() -> PathBuf {
    let dir = std::env::var_os("TICKLAB_DIST").map(PathBuf::from).unwrap_or_else(|| {
        panic!("TICKLAB_DIST is not set: `cargo xtask test` packs every archive (cargo xtask dist --dev --all)")
    });
    assert!(dir.is_dir(), "no archives at {}", dir.display());
    dir
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The archives there, each with its target.
fn archives() -> Vec<(String, PathBuf)> {
    let prefix = format!("ticklab-{VERSION}-");
    let mut found: Vec<(String, PathBuf)> = std::fs::read_dir(dist())
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let rest = name.strip_prefix(&prefix)?;
            let target = rest
                .strip_suffix(".tar.gz")
                .or_else(|| rest.strip_suffix(".zip"))?;
            Some((target.to_string(), e.path()))
        })
        .collect();
    found.sort();
    found
}

/// The release workflow's build matrix: the targets it ships.
fn release_targets() -> BTreeSet<String> {
    let path = root().join(".github/workflows/release.yml");
    let text = std::fs::read_to_string(&path).unwrap();
    let docs = yaml_rust2::YamlLoader::load_from_str(&text).expect("release.yml is YAML");
    let include = &docs[0]["jobs"]["build"]["strategy"]["matrix"]["include"];
    let entries = include
        .as_vec()
        .expect("the build job has a matrix of targets");
    entries
        .iter()
        .map(|e| {
            e["target"]
                .as_str()
                .expect("each entry names a target")
                .to_string()
        })
        .collect()
}

#[test]
fn the_release_workflow_ships_the_archives_packed_here() {
    let here: BTreeSet<String> = archives().into_iter().map(|(t, _)| t).collect();
    let shipped = release_targets();
    assert_eq!(
        here, shipped,
        "the archives the test command packs and the targets the release builds differ"
    );
    // Linux and macOS on both CPUs, Windows on x86_64.
    assert_eq!(here.len(), 5, "{here:?}");
}

/// What an archive holds: each file's path and bytes, and its Unix mode where it has one.
fn entries(archive: &Path) -> Vec<(String, Vec<u8>, Option<u32>)> {
    let bytes = std::fs::read(archive).unwrap();
    let mut out = Vec::new();
    if archive.extension().is_some_and(|e| e == "zip") {
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        for i in 0..zip.len() {
            let mut f = zip.by_index(i).unwrap();
            let mut data = Vec::new();
            f.read_to_end(&mut data).unwrap();
            let name = f.name().unwrap().to_string();
            out.push((name, data, f.unix_mode()));
        }
    } else {
        let gz = flate2::read::GzDecoder::new(bytes.as_slice());
        let mut tar = tar::Archive::new(gz);
        for e in tar.entries().unwrap() {
            let mut e = e.unwrap();
            let path = e.path().unwrap().to_string_lossy().to_string();
            let mode = e.header().mode().ok();
            let mut data = Vec::new();
            e.read_to_end(&mut data).unwrap();
            out.push((path, data, mode));
        }
    }
    out
}

/// The format and CPU a target's programs have.
fn expected(target: &str) -> (BinaryFormat, Architecture) {
    let format = if target.contains("-windows-") {
        BinaryFormat::Pe
    } else if target.ends_with("-apple-darwin") {
        BinaryFormat::MachO
    } else {
        BinaryFormat::Elf
    };
    let cpu = if target.starts_with("aarch64-") {
        Architecture::Aarch64
    } else {
        Architecture::X86_64
    };
    (format, cpu)
}

/// Libraries every copy of the system has. A Windows program that needs MinGW's runtime
/// DLLs (libgcc_s_seh-1, libwinpthread-1) or a Mac one that needs Homebrew's would start
/// on the machine that built it only.
fn system_library(target: &str, lib: &str) -> bool {
    let lib = lib.to_ascii_lowercase();
    if target.contains("-windows-") {
        !lib.starts_with("lib") && lib.ends_with(".dll")
    } else if target.ends_with("-apple-darwin") {
        lib.starts_with("/usr/lib/") || lib.starts_with("/system/library/")
    } else {
        // glibc's own, on every Linux distribution that has glibc.
        [
            "libc.so",
            "libm.so",
            "libgcc_s.so",
            "ld-linux",
            "libpthread.so",
            "libdl.so",
            "librt.so",
        ]
        .iter()
        .any(|l| lib.starts_with(l))
    }
}

fn libraries(file: &object::File) -> Vec<String> {
    match file {
        object::File::Pe64(_) => file
            .imports()
            .unwrap()
            .map(|i| String::from_utf8_lossy(i.unwrap().library()).to_string())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        object::File::MachO64(m) => {
            let mut libs = Vec::new();
            let mut commands = m.macho_load_commands().unwrap();
            while let Some(c) = commands.next().unwrap() {
                if let Ok(Some(d)) = c.dylib() {
                    libs.push(
                        String::from_utf8_lossy(c.string(m.endian(), d.dylib.name).unwrap())
                            .to_string(),
                    );
                }
            }
            libs
        }
        object::File::Elf64(e) => {
            let endian = e.endian();
            let data = e.data();
            let sections = e.elf_header().sections(endian, data).unwrap();
            let mut libs = Vec::new();
            if let Ok(Some((dynamic, index))) = sections.dynamic(endian, data) {
                let strings = sections.strings(endian, data, index).unwrap();
                for d in dynamic {
                    if d.tag(endian) == object::elf::DT_NEEDED {
                        let offset = d.val32(endian).unwrap();
                        libs.push(
                            String::from_utf8_lossy(strings.get(offset).unwrap()).to_string(),
                        );
                    }
                }
            }
            libs
        }
        _ => Vec::new(),
    }
}

#[test]
fn each_archive_holds_a_command_for_its_system_and_its_checksum() {
    let found = archives();
    assert!(!found.is_empty(), "no archives in {}", dist().display());
    for (target, archive) in found {
        let name = archive.file_name().unwrap().to_string_lossy().to_string();
        // The checksum file, in sha256sum's format, names the archive and its digest.
        let sum = std::fs::read_to_string(archive.with_file_name(format!("{name}.sha256")))
            .unwrap_or_else(|e| panic!("{name}: no .sha256 beside it: {e}"));
        let digest: String = Sha256::digest(std::fs::read(&archive).unwrap())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            sum,
            format!("{digest}  {name}\n"),
            "{name}: its checksum file"
        );

        let folder = format!("ticklab-{VERSION}-{target}");
        let exe = if target.contains("-windows-") {
            "ticklab.exe"
        } else {
            "ticklab"
        };
        let files = entries(&archive);
        let names: BTreeSet<String> = files.iter().map(|(n, _, _)| n.clone()).collect();
        let want: BTreeSet<String> = [exe, "README.md", "LICENSE-MIT", "LICENSE-APACHE"]
            .iter()
            .map(|f| format!("{folder}/{f}"))
            .collect();
        assert_eq!(names, want, "{name}: what it holds");

        let (path, bytes, mode) = files
            .iter()
            .find(|(n, _, _)| n.ends_with(&format!("/{exe}")))
            .unwrap();
        assert_eq!(mode.map(|m| m & 0o777), Some(0o755), "{path}: executable");
        let file = object::File::parse(bytes.as_slice())
            .unwrap_or_else(|e| panic!("{path}: not a program: {e}"));
        assert_eq!(
            (file.format(), file.architecture()),
            expected(&target),
            "{path}: built for another system or CPU"
        );
        if let Some(oldest) = oldest_macos(&target) {
            let minos =
                macos_minimum(&file).unwrap_or_else(|| panic!("{path}: no LC_BUILD_VERSION"));
            assert!(
                minos <= oldest,
                "{path}: needs macOS {}.{} or later, where Rust supports {}.{}",
                minos.0,
                minos.1,
                oldest.0,
                oldest.1
            );
        }
        let libs = libraries(&file);
        assert!(
            !libs.is_empty(),
            "{path}: names no library at all: {libs:?}"
        );
        let foreign: Vec<&String> = libs
            .iter()
            .filter(|l| !system_library(&target, l))
            .collect();
        assert!(
            foreign.is_empty(),
            "{path}: needs libraries a user's machine may lack: {foreign:?} (of {libs:?})"
        );
        eprintln!("{name}: {} bytes; {}", bytes.len(), libs.join(", "));
    }
}

/// The oldest macOS each Mac archive must run on (Rust's minimum for the target).
fn oldest_macos(target: &str) -> Option<(u16, u8)> {
    match target {
        "x86_64-apple-darwin" => Some((10, 12)),
        "aarch64-apple-darwin" => Some((11, 0)),
        _ => None,
    }
}

/// The macOS a Mach-O program says it needs at least: LC_BUILD_VERSION's minos, or
/// LC_VERSION_MIN_MACOSX's version (what linkers write for a macOS before 10.14).
fn macos_minimum(file: &object::File) -> Option<(u16, u8)> {
    use object::read::macho::LoadCommandVariant;
    let object::File::MachO64(m) = file else {
        return None;
    };
    let endian = m.endian();
    let mut commands = m.macho_load_commands().ok()?;
    while let Ok(Some(c)) = commands.next() {
        let version = match c.variant() {
            Ok(LoadCommandVariant::BuildVersion(v, _)) => v.minos.get(endian),
            Ok(LoadCommandVariant::VersionMin(v)) => v.version.get(endian),
            _ => continue,
        };
        return Some((version.major(), version.minor()));
    }
    None
}

/// binstall's template, filled in as it fills it (`{ name }` with spaces inside the braces);
/// a key it does not know is left in, to fail the comparison.
fn render(template: &str, vars: &[(&str, &str)]) -> String {
    vars.iter().fold(template.to_string(), |t, (k, v)| {
        t.replace(&format!("{{ {k} }}"), v)
    })
}

#[test]
fn cargo_binstall_finds_each_archive_and_the_command_in_it() {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(root())
        .output()
        .unwrap();
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let native = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "ticklab-native")
        .unwrap();
    let repo = native["repository"]
        .as_str()
        .expect("a repository to fetch from");
    let binstall = &native["metadata"]["binstall"];
    let field = |target: &str, key: &str| -> String {
        binstall["overrides"][target][key]
            .as_str()
            .or_else(|| binstall[key].as_str())
            .unwrap_or_else(|| panic!("binstall has no {key}"))
            .to_string()
    };
    let archives = archives();
    // Each archive by its own target, and Windows' by a machine whose Rust is MSVC's.
    let asked = archives
        .iter()
        .map(|(t, _)| t.clone())
        .chain(["x86_64-pc-windows-msvc".to_string()]);
    for target in asked {
        let ext = if target.contains("-windows-") {
            ".exe"
        } else {
            ""
        };
        let vars = [
            ("repo", repo),
            ("version", VERSION),
            ("target", target.as_str()),
            ("bin", "ticklab"),
            ("binary-ext", ext),
        ];
        let url = render(&field(&target, "pkg-url"), &vars);
        let file = url
            .strip_prefix(&format!("{repo}/releases/download/v{VERSION}/"))
            .unwrap_or_else(|| panic!("{target}: {url} is not a release download"));
        let (_, archive) = archives
            .iter()
            .find(|(_, p)| p.file_name().unwrap().to_string_lossy() == file)
            .unwrap_or_else(|| panic!("{target}: binstall asks for {file}, which is not packed"));
        let format = field(&target, "pkg-fmt");
        let is_zip = archive.extension().is_some_and(|e| e == "zip");
        assert_eq!(
            format,
            if is_zip { "zip" } else { "tgz" },
            "{target}: pkg-fmt"
        );
        let bin = render(&field(&target, "bin-dir"), &vars);
        assert!(
            entries(archive).iter().any(|(n, _, _)| *n == bin),
            "{target}: binstall looks for {bin} in {file}"
        );
    }
}

/// A copy of the release folder, with one archive's bytes changed when `corrupt`.
fn served_release(into: &Path, corrupt: bool) -> String {
    std::fs::create_dir_all(into).unwrap();
    for e in std::fs::read_dir(dist()).unwrap().flatten() {
        std::fs::copy(e.path(), into.join(e.file_name())).unwrap();
    }
    if corrupt {
        for (_, a) in archives() {
            let copy = into.join(a.file_name().unwrap());
            let mut bytes = std::fs::read(&copy).unwrap();
            let mid = bytes.len() / 2;
            bytes[mid] ^= 0xff;
            std::fs::write(&copy, bytes).unwrap();
        }
    }
    into.to_string_lossy().to_string()
}

/// The shell installer, with `download` as its release; its output and the folder it
/// installs into.
fn install_from(download: &str, home: &Path) -> (std::process::Output, PathBuf) {
    let dest = home.join("bin");
    let out = Command::new("sh")
        .arg(dist().join("ticklab-installer.sh"))
        .env("TICKLAB_DOWNLOAD_URL", download)
        .env("TICKLAB_INSTALL_DIR", &dest)
        .env("HOME", home)
        .output()
        .expect("sh runs");
    (out, dest)
}

#[test]
fn the_shell_installer_installs_this_machines_archive_and_refuses_a_bad_one() {
    let tmp = tempfile::tempdir().unwrap();
    let good = served_release(&tmp.path().join("good"), false);
    let host = StaticHost::start(Path::new(&good)).unwrap();
    let (out, dest) = install_from(host.url.trim_end_matches('/'), &tmp.path().join("home"));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the installer failed: {said}");
    let installed = dest.join("ticklab");
    let version = Command::new(&installed).arg("--version").output().unwrap();
    assert!(version.status.success());
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("ticklab {VERSION}")
    );
    // The very command this test suite built for this machine, unchanged.
    let digest = |p: &Path| Sha256::digest(std::fs::read(p).unwrap());
    assert!(
        digest(&installed) == digest(Path::new(BIN)),
        "the installed command is not this machine's build ({BIN})"
    );
    assert!(said.contains("is not on your PATH"), "{said}");

    let bad = served_release(&tmp.path().join("bad"), true);
    let host = StaticHost::start(Path::new(&bad)).unwrap();
    let (out, dest) = install_from(host.url.trim_end_matches('/'), &tmp.path().join("home2"));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "a corrupt archive was installed: {said}"
    );
    assert!(
        said.contains("SHA-256") && said.contains("not installed"),
        "{said}"
    );
    assert!(!dest.join("ticklab").exists(), "something was installed");
}

/// The installers carry the release's version and the repository they fetch from, and no
/// placeholder.
#[test]
fn the_installers_name_this_release() {
    for name in ["ticklab-installer.sh", "ticklab-installer.ps1"] {
        let text = std::fs::read_to_string(dist().join(name)).unwrap();
        assert!(!text.contains("@VERSION@"), "{name}: a placeholder left");
        assert!(!text.contains("@REPOSITORY@"), "{name}: a placeholder left");
        assert!(
            text.contains(&format!("version=\"{VERSION}\""))
                || text.contains(&format!("$version = '{VERSION}'")),
            "{name}: not this version's"
        );
    }
}
