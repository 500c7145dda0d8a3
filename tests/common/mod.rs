//! What the server's, the class's and the page's end-to-end tests share: the command under
//! test, where the workspace and its target are, a small native report made by the
//! command, and a running `ticklab class`.

#![allow(dead_code)] // each test file uses its own part

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

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

/// A running `ticklab class`, killed when dropped.
pub struct ClassServer {
    pub child: Child,
    pub port: u16,
    pub code: String,
    pub key: String,
    /// Every line it printed before it started listening.
    pub banner: Vec<String>,
}

impl Drop for ClassServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `ticklab class` on loopback with the class kept in `db`, on `port` (0: any).
pub fn start_class(db: &Path, port: u16, extra: &[&str]) -> ClassServer {
    let mut child = Command::new(BIN)
        .args([
            "class",
            "--bind",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--db",
        ])
        .arg(db)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("ticklab runs");
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut banner = Vec::new();
    loop {
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("ticklab class said no more after {banner:#?}"));
        let done = line.starts_with("listening on");
        banner.push(line);
        if done {
            break;
        }
    }
    let find = |key: &str| {
        banner
            .iter()
            .find_map(|l| l.split(key).nth(1))
            .unwrap_or_else(|| panic!("no {key} in {banner:#?}"))
            .to_string()
    };
    let join = find("http://127.0.0.1:");
    let port = join.split('/').next().unwrap().parse().unwrap();
    let code = join.split("?class=").nth(1).unwrap().trim().to_string();
    let key = find("#key=").trim().to_string();
    ClassServer {
        child,
        port,
        code,
        key,
        banner,
    }
}
