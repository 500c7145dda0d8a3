//! What the end-to-end tests and `cargo xtask` need beside the WebDriver plumbing (which
//! they get from `ticklab_driver`, re-exported here): start `ticklab serve` or a plain static
//! host, a class's server, a throwaway PostgreSQL cluster ([`postgres`]), and the bad-input
//! table.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub use ticklab_driver::*;

#[cfg(unix)]
pub mod postgres;

/// Whether no page server of this process listened on `port` before, noting that one does
/// now. A page's origin is its port, and a browser session that several tests share keeps
/// what a page left with its origin (a service worker, storage, the cache): a later server
/// on the same port would be served from them.
pub fn first_on(port: u16) -> bool {
    static SEEN: std::sync::Mutex<std::collections::BTreeSet<u16>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    SEEN.lock().unwrap_or_else(|e| e.into_inner()).insert(port)
}

/// Most servers started again for a port that this process's servers used before.
const NEW_PORT_TRIES: usize = 64;

/// Starts `ticklab serve` on a free port no page server of this process used before
/// ([`first_on`]) and returns it with the URL it printed.
pub fn serve(
    bin: &Path,
    site: &Path,
    report: &Path,
    extra: &[&str],
) -> Result<(Guard, String), String> {
    for _ in 0..NEW_PORT_TRIES {
        let (guard, url) = serve_once(bin, site, report, extra)?;
        let port = url
            .trim_start_matches("http://")
            .split(['/', ':'])
            .nth(1)
            .and_then(|p| p.parse().ok())
            .ok_or_else(|| format!("no port in {url}"))?;
        if first_on(port) {
            return Ok((guard, url));
        }
    }
    Err(format!(
        "ticklab serve took a port used before {NEW_PORT_TRIES} times"
    ))
}

fn serve_once(
    bin: &Path,
    site: &Path,
    report: &Path,
    extra: &[&str],
) -> Result<(Guard, String), String> {
    let mut child = Command::new(bin)
        .arg("serve")
        .arg("--root")
        .arg(site)
        .arg("--report")
        .arg(report)
        .args(["--port", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let out = child.stdout.take().ok_or("no stdout from ticklab serve")?;
    let guard = Guard(child);
    let mut line = String::new();
    BufReader::new(out)
        .read_line(&mut line)
        .map_err(|e| format!("ticklab serve: {e}"))?;
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .ok_or_else(|| format!("ticklab serve printed no URL: {line:?}"))?
        .to_string();
    Ok((guard, url))
}

/// A plain static host serving a directory: no COOP, COEP or CSP headers, no native
/// report; what a class gets from GitHub Pages. Stopped on [`StaticHost::stop`] or drop.
pub struct StaticHost {
    /// The site's URL, ending in "/".
    pub url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StaticHost {
    /// Serves `root` on a free port of 127.0.0.1 that no page server of this process used
    /// before ([`first_on`]).
    pub fn start(root: &Path) -> Result<Self, String> {
        // Ports used before are held while the next is asked for, so it differs.
        let mut used = Vec::new();
        let (listener, port) = loop {
            let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
            let port = l.local_addr().map_err(|e| e.to_string())?.port();
            if first_on(port) {
                break (l, port);
            }
            if used.len() == NEW_PORT_TRIES {
                return Err(format!(
                    "every port given was used before: {NEW_PORT_TRIES} of them"
                ));
            }
            used.push(l);
        };
        drop(used);
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let root = root.to_path_buf();
        let thread = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async move {
                let Ok(l) = tokio::net::TcpListener::from_std(listener) else {
                    return;
                };
                // Gzipped as GitHub Pages sends a site, from the copies the build writes.
                let files = tower_http::services::ServeDir::new(root).precompressed_gzip();
                let app = axum::Router::new().fallback_service(files);
                // Dropping the server, not a graceful shutdown: a browser's open
                // connections must not keep the host up when a test takes it down.
                tokio::select! {
                    _ = axum::serve(l, app) => {}
                    _ = rx => {}
                }
            });
        });
        Ok(Self {
            url: format!("http://127.0.0.1:{port}/"),
            stop: Some(tx),
            thread: Some(thread),
        })
    }

    /// Takes the host down: every later request fails to connect.
    pub fn stop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for StaticHost {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The bad-input table, `docs/bad-inputs.md`: a table whose rows read
/// `| area | input | what it gets |`.
pub fn bad_inputs_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/bad-inputs.md")
}

/// One row of the bad-input table; `|` in a cell is escaped as the table needs.
pub fn bad_input_row(area: &str, input: &str, outcome: &str) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    format!("| {} | {} | {} |", cell(area), cell(input), cell(outcome))
}

/// Fails unless the bad-input table's rows of `area` are exactly `rows`: every bad input a test
/// tries is listed with what it got, and the document lists nothing no test tries.
pub fn assert_bad_inputs_listed(area: &str, rows: &[String]) {
    let path = bad_inputs_path();
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let prefix = format!("| {area} |");
    let listed: Vec<&str> = doc
        .lines()
        .map(str::trim_end)
        .filter(|l| l.starts_with(&prefix))
        .collect();
    let missing: Vec<&String> = rows
        .iter()
        .filter(|r| !listed.contains(&r.as_str()))
        .collect();
    let extra: Vec<&&str> = listed
        .iter()
        .filter(|l| !rows.iter().any(|r| r == **l))
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{} is out of date for '{area}'.\nNot listed (what the tests got):\n{}\nListed but not tried:\n{}",
        path.display(),
        missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"),
        extra.iter().map(|s| **s).collect::<Vec<_>>().join("\n"),
    );
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

/// Starts `bin class` on loopback with the class kept in `db`, on `port` (0: any), and
/// reads its join code, key and port from what it prints.
pub fn start_class(bin: &Path, db: &Path, port: u16, extra: &[&str]) -> ClassServer {
    start_class_with(Command::new(bin), db, port, extra)
}

/// [`start_class`] with the command that starts the program (under Wine, say).
pub fn start_class_with(mut command: Command, db: &Path, port: u16, extra: &[&str]) -> ClassServer {
    let mut child = command
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
    // Noted, so no later page server of this process takes it ([`first_on`]).
    first_on(port);
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

/// A running `ticklab hub`, killed when dropped.
pub struct HubServer {
    pub child: Child,
    pub port: u16,
    /// The log it writes (one JSON object a line), read on a thread of its own.
    pub log: mpsc::Receiver<String>,
}

impl HubServer {
    /// Its URL, ending in "/".
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// Sends SIGTERM (what a container runtime stops it with).
    #[cfg(unix)]
    pub fn terminate(&self) {
        // Safe: a signal to our own child.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
    }
}

impl Drop for HubServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `bin hub` on 127.0.0.1 (port 0: any free one) with the database at `url`, and
/// waits until it listens.
pub fn start_hub(bin: &Path, url: &str, port: u16, extra: &[&str]) -> HubServer {
    let mut child = Command::new(bin)
        .args(["hub", "--bind", "127.0.0.1", "--port", &port.to_string()])
        .args(["--database-url", url, "--wait-db", "10"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ticklab runs");
    let out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let (tx, log) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut first = String::new();
    let _ = BufReader::new(out).read_line(&mut first);
    let port = first
        .trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| {
            let said: Vec<String> = log.try_iter().collect();
            panic!("ticklab hub did not start: {first:?}\n{}", said.join("\n"))
        });
    HubServer { child, port, log }
}
