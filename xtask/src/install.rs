//! `cargo xtask install`: the `ticklab` command with the page inside it, installed by cargo
//! (into ~/.cargo/bin, or `--root DIR`), so `ticklab serve` works from any directory; and
//! the test command's check of the installed command, as a new user has it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::{web, workspace_root};

/// Builds the page, then `cargo install`s the command carrying it; `args` go to cargo
/// install (`--root DIR`, `--debug`, `--force`).
pub fn run(args: &[String]) -> Result<(), String> {
    web::build()?;
    install(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// `cargo install --path native-runner --locked`, which carries the built site of the
/// target directory it builds in: cargo uses the workspace's for a `--path` install, so
/// what the lab or the tests built is reused (and no setting changes to rebuild it).
fn install(args: &[&str]) -> Result<(), String> {
    let root = workspace_root();
    let site = web::target_dir(&root).join("site");
    if !site.join("index.html").is_file() {
        return Err(format!("{}: no built page to carry", site.display()));
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut all = vec!["install", "--path", "native-runner", "--locked"];
    all.extend_from_slice(args);
    eprintln!(
        "\n== [{}] install the ticklab command, page inside: {cargo} {}",
        crate::at(),
        all.join(" ")
    );
    let status = Command::new(&cargo)
        .args(&all)
        .current_dir(&root)
        .status()
        .map_err(|e| format!("cannot start {cargo}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo install failed ({status})"))
    }
}

/// The installed command as a new user has it, checked from `built` (the test command's
/// build of it, not compiled again): put alone in a fresh root's bin/, as `cargo install`
/// puts it, `ticklab serve` started from an empty directory serves the page and its wasm,
/// byte for byte the built site's, which it carries inside.
pub fn check(built: &Path) -> Result<(), String> {
    let target = web::target_dir(&workspace_root());
    let dir = target.join("install-check");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let (bin_dir, empty) = (dir.join("root").join("bin"), dir.join("empty"));
    for d in [&bin_dir, &empty] {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    let bin = bin_dir.join("ticklab");
    std::fs::copy(built, &bin).map_err(|e| format!("{}: {e}", built.display()))?;
    eprintln!(
        "\n== [{}] the installed command serves its page from an empty directory: {} serve",
        crate::at(),
        bin.display()
    );
    let mut child = Command::new(&bin)
        .args(["serve", "--port", "0"])
        .current_dir(&empty)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let result = fetched(&mut child, &target.join("site"));
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Reads the server's address from its first line (within 30 s), then fetches the page
/// and the lab's wasm and compares them with the site's files.
fn fetched(child: &mut std::process::Child, site: &Path) -> Result<(), String> {
    let out = child
        .stdout
        .take()
        .ok_or("the server's output is not piped")?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(out).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx
        .recv_timeout(Duration::from_secs(30))
        .map_err(|_| "the installed ticklab serve said nothing within 30 s".to_string())?;
    eprint!("{line}");
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .ok_or_else(|| format!("no address in the server's line: {line:?}"))?
        .to_string();
    for (path, file, mime) in [
        ("/", "index.html", "text/html"),
        (
            "/www/pkg/ticklab_www_bg.wasm",
            "www/pkg/ticklab_www_bg.wasm",
            "application/wasm",
        ),
    ] {
        let (head, body) = get(&addr, path)?;
        let want = std::fs::read(site.join(file)).map_err(|e| format!("{file}: {e}"))?;
        let head = head.to_ascii_lowercase();
        if head.split_whitespace().nth(1) != Some("200") {
            return Err(format!(
                "GET {path} from the installed command: {}",
                head.lines().next().unwrap_or("")
            ));
        }
        if !head.contains(&format!("content-type: {mime}"))
            || !head.contains("cross-origin-embedder-policy: require-corp")
        {
            return Err(format!(
                "GET {path}: not {mime} with the isolating headers:\n{head}"
            ));
        }
        if body != want {
            return Err(format!(
                "GET {path}: {} bytes, not the built site's {} of {file}",
                body.len(),
                want.len()
            ));
        }
        eprintln!("GET {path}: 200, {mime}, {} bytes as built", body.len());
    }
    Ok(())
}

/// A GET over HTTP/1.0 (the server closes after the answer): the head and the body.
fn get(addr: &str, path: &str) -> Result<(String, Vec<u8>), String> {
    let mut s = TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    s.read_to_end(&mut out)
        .map_err(|e| format!("GET {path}: {e}"))?;
    let at = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("GET {path}: no end of the head"))?;
    let head = String::from_utf8_lossy(&out[..at]).to_string();
    Ok((head, out[at + 4..].to_vec()))
}
