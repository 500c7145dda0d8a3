//! Puts the built page inside the binary, so `ticklab serve` needs no clone of the
//! repository: every file of the site (`cargo xtask web` makes it; `TICKLAB_EMBED_SITE`
//! names another directory), read into the binary as bytes. Without a built site the binary
//! carries none, and `ticklab serve` says how to give it one.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Every file under `dir`, sorted, as paths relative to it with `/` between parts.
fn files(dir: &Path, rel: &str, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        let rel = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        if path.is_dir() {
            files(&path, &rel, out);
        } else if !rel.ends_with(".gz") {
            // The gzipped copies are a static host's; this server sends the files as they are.
            out.push((rel, path));
        }
    }
}

fn main() {
    println!("cargo:rerun-if-env-changed=TICKLAB_EMBED_SITE");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    // Cargo's target directory, wherever it is: the one of OUT_DIR's folders that cargo
    // marked with CACHEDIR.TAG.
    let target = out_dir
        .ancestors()
        .find(|d| d.join("CACHEDIR.TAG").is_file())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| manifest.join("../target"));
    let site = std::env::var_os("TICKLAB_EMBED_SITE")
        .map(PathBuf::from)
        .unwrap_or_else(|| target.join("site"));
    // Every file is watched below; a file added to the site changes sw.js, which lists them
    // all. (`cargo xtask web` rewrites only the files whose bytes change.) Until a site is
    // built, the missing index.html makes cargo run this script at every build.
    let index = site.join("index.html");
    println!("cargo:rerun-if-changed={}", index.display());
    let mut found = Vec::new();
    if index.is_file() {
        files(&site, "", &mut found);
    }
    let out = out_dir.join("site.rs");
    let mut f = std::fs::File::create(&out).expect("OUT_DIR is writable");
    writeln!(
        f,
        "/// The built page's files: path within the site, bytes."
    )
    .unwrap();
    writeln!(f, "pub static FILES: &[(&str, &[u8])] = &[").unwrap();
    for (rel, path) in &found {
        println!("cargo:rerun-if-changed={}", path.display());
        let abs = path.canonicalize().expect("a file just listed");
        writeln!(
            f,
            "    ({rel:?}, include_bytes!({:?})),",
            abs.display().to_string()
        )
        .unwrap();
    }
    writeln!(f, "];").unwrap();
}
