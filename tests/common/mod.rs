//! What the server's, the class's and the page's end-to-end tests share: the command under
//! test, where the workspace and its target are, and a small native report made by the
//! command.

#![allow(dead_code)] // each test file uses its own part

use std::path::{Path, PathBuf};
use std::process::Command;

pub mod http;

pub const BIN: &str = env!("CARGO_BIN_EXE_ticklab");

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"))
}

/// A small native report, made by the command under test.
pub fn native_report(dir: &Path) -> PathBuf {
    let p = dir.join("native.json");
    let ok = Command::new(BIN)
        .args([
            "run",
            "--clock",
            "CLOCK_MONOTONIC",
            "--no-fit",
            "--time",
            "0.05",
            "--save",
        ])
        .arg(&p)
        .output()
        .expect("ticklab runs")
        .status
        .success();
    assert!(ok, "ticklab run --save failed");
    p
}
