//! Names the built page for rust-embed to put inside the binary (`TICKLAB_CARRIED_SITE`), so
//! `ticklab serve` needs no clone of the repository: the site `cargo xtask web` makes in
//! cargo's target directory, or the directory `TICKLAB_EMBED_SITE` names. Without a built
//! site the binary carries none, and `ticklab serve` says how to give it one.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-env-changed=TICKLAB_EMBED_SITE");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    // Cargo's target directory, wherever it is: of OUT_DIR's folders that cargo marked with
    // CACHEDIR.TAG (a build for another target marks its own folder too), the one holding
    // the built site, else the nearest.
    let marked: Vec<&Path> = out_dir
        .ancestors()
        .filter(|d| d.join("CACHEDIR.TAG").is_file())
        .collect();
    let target = marked
        .iter()
        .find(|d| d.join("site").join("index.html").is_file())
        .or(marked.first())
        .map(|d| d.to_path_buf())
        .unwrap_or_else(|| manifest.join("../target"));
    let site = std::env::var_os("TICKLAB_EMBED_SITE")
        .map(PathBuf::from)
        .unwrap_or_else(|| target.join("site"));
    // Each embedded file is watched by the compiler (rust-embed includes its bytes); a
    // file added to the site changes sw.js, which lists them all. Until a site is built,
    // the missing index.html makes cargo run this script, and so embed again, at every
    // build.
    println!(
        "cargo:rerun-if-changed={}",
        site.join("index.html").display()
    );
    // No name where there is no site: rust-embed then embeds nothing.
    if site.join("index.html").is_file() {
        println!("cargo:rustc-env=TICKLAB_CARRIED_SITE={}", site.display());
    }
}
