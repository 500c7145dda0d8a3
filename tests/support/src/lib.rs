//! WebDriver plumbing shared by the end-to-end tests and `cargo xtask screenshot`: start
//! `ticklab serve` and a driver, open a session, wait for the page's run to end.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use fantoccini::ClientBuilder;
pub use fantoccini::{Client, Locator};
use serde_json::json;

/// Chromium's flags for a headless run as any user, root included, on a closed network.
pub const CHROMIUM_ARGS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--autoplay-policy=no-user-gesture-required",
];

/// A child process killed when dropped, so no server outlives the command.
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `ticklab serve` on a free port and returns it with the URL it printed.
pub fn serve(
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
    /// Serves `root` on a free port of 127.0.0.1.
    pub fn start(root: &Path) -> Result<Self, String> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
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

/// A port nothing listens on just now.
pub fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// Connects to a WebDriver server that may still be starting.
pub async fn connect(port: u16, caps: serde_json::Value) -> Result<Client, String> {
    let caps = match caps {
        serde_json::Value::Object(m) => m,
        _ => return Err("capabilities must be an object".into()),
    };
    let started = Instant::now();
    loop {
        let c = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await;
        match c {
            Ok(c) => return Ok(c),
            Err(e) if started.elapsed() > Duration::from_secs(30) => {
                return Err(format!("no WebDriver session on port {port}: {e}"))
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// Waits, up to `limit`, for the page's `data-state` to leave "loading" and "running".
pub async fn wait_done(c: &Client, limit: Duration) -> Result<String, String> {
    let started = Instant::now();
    loop {
        let v = c
            .execute("return document.body.dataset.state", vec![])
            .await
            .map_err(|e| format!("reading the page's state: {e}"))?;
        let s = v.as_str().unwrap_or("").to_string();
        if !matches!(s.as_str(), "" | "loading" | "ready" | "running") {
            return Ok(s);
        }
        if started.elapsed() > limit {
            return Err(format!(
                "the page was still '{s}' after {} s",
                limit.as_secs()
            ));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// A browser the lab is tested in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Browser {
    /// Chromium with ChromeDriver.
    Chromium,
    /// Firefox with geckodriver.
    Firefox,
    /// WebKit (Safari's engine, every iPhone's browser): WebKitGTK's MiniBrowser with
    /// WebKitWebDriver, on a virtual X display of its own (GTK has no headless mode).
    WebKit,
}

/// WebKitGTK's MiniBrowser, which WebKitWebDriver drives: beside the engine's libraries, in
/// the directory of the installed API version.
pub fn minibrowser() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib")
        .ok()?
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten())
        .map(|d| d.path().join("MiniBrowser"))
        .filter(|p| {
            p.is_file()
                && p.parent()
                    .and_then(|d| d.file_name())
                    .is_some_and(|n| n.to_string_lossy().starts_with("webkit2gtk-"))
        })
        .collect();
    // The newest API version (webkit2gtk-4.1 over 4.0).
    found.sort();
    found.pop()
}

/// Starts an X server on a display nobody uses, for a browser that needs one; returns it
/// with its name (":93"). It is ready when its socket exists (within 10 s).
fn virtual_display(size: (u32, u32)) -> Result<(Guard, String), String> {
    let xvfb = which("Xvfb").ok_or("no Xvfb on PATH (apt-get install xvfb)")?;
    let free = (90..400).find(|n| {
        !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
            && !Path::new(&format!("/tmp/.X{n}-lock")).exists()
    });
    let n = free.ok_or("no free X display number")?;
    let guard = Guard(
        Command::new(xvfb)
            .arg(format!(":{n}"))
            .args([
                "-screen",
                "0",
                &format!("{}x{}x24", size.0 + 100, size.1 + 200),
            ])
            .args(["-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start Xvfb: {e}"))?,
    );
    let started = Instant::now();
    while !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() {
        if started.elapsed() > Duration::from_secs(10) {
            return Err(format!("Xvfb :{n} did not start in 10 s"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok((guard, format!(":{n}")))
}

/// A program on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// A browser session with its driver; the driver is stopped when this is dropped.
pub struct Session {
    /// The WebDriver client.
    pub client: Client,
    // The driver, then the display it draws on (dropped in this order).
    _driver: Guard,
    _display: Option<Guard>,
    port: u16,
    profile: Option<PathBuf>,
}

impl Session {
    /// POSTs `body` to a command of this session that the WebDriver client has no call for
    /// (`path` after `/session/{id}/`, such as chromedriver's `chromium/network_conditions`)
    /// and returns the driver's `value`.
    pub async fn command(
        &self,
        path: &str,
        body: serde_json::Value,
    ) -> Result<serde_json::Value, String> {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let id = self
            .client
            .session_id()
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the session has no id")?;
        let body = body.to_string();
        let request = format!(
            "POST /session/{id}/{path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: \
             application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len(),
            port = self.port
        );
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", self.port))
            .await
            .map_err(|e| format!("the driver: {e}"))?;
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| format!("the driver: {e}"))?;
        // The driver keeps the connection open: read the head, then the body it announces.
        let answer = async {
            let mut out = Vec::new();
            let mut buf = [0u8; 8192];
            loop {
                let n = stream.read(&mut buf).await?;
                out.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&out).to_string();
                if let Some((head, body)) = text.split_once("\r\n\r\n") {
                    let len = head
                        .lines()
                        .find_map(|l| {
                            let (k, v) = l.split_once(':')?;
                            k.eq_ignore_ascii_case("content-length")
                                .then(|| v.trim().parse::<usize>().ok())?
                        })
                        .unwrap_or(0);
                    if body.len() >= len || n == 0 {
                        return Ok::<_, std::io::Error>((head.to_string(), body.to_string()));
                    }
                } else if n == 0 {
                    return Ok((text, String::new()));
                }
            }
        };
        let (head, body) = tokio::time::timeout(Duration::from_secs(30), answer)
            .await
            .map_err(|_| format!("the driver did not answer {path} in 30 s"))?
            .map_err(|e| format!("the driver: {e}"))?;
        let v: serde_json::Value = serde_json::from_str(&body)
            .map_err(|e| format!("{path}: {e} in {}", head.lines().next().unwrap_or("")))?;
        if !head.starts_with("HTTP/1.1 200") {
            return Err(format!("{path}: {}", v["value"]));
        }
        Ok(v["value"].clone())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(p) = &self.profile {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}

/// Starts `driver` on a free port and opens a headless session of `browser` in a window of
/// `size`.
pub async fn open(browser: Browser, driver: &Path, size: (u32, u32)) -> Result<Session, String> {
    open_with(browser, driver, size, false, None).await
}

/// [`open`], with `name` reaching the server on 127.0.0.1:`port`: a page loaded by a name
/// that is not localhost is not a secure context, as a class's page on a LAN is not.
/// Chromium maps the name (`--host-resolver-rules`), Firefox too (`network.dns.localDomains`);
/// WebKitGTK has no such setting, so its requests go through the server itself as their
/// HTTP proxy (a server takes a request's absolute URL), which it does honour.
pub async fn open_named(
    browser: Browser,
    driver: &Path,
    size: (u32, u32),
    name: &str,
    port: u16,
) -> Result<Session, String> {
    open_with(browser, driver, size, false, Some((name, port))).await
}

/// A headless Chromium emulating a phone whose screen is `size` CSS pixels (at three device
/// pixels each, with touch): desktop windows cannot be narrower than 500 pixels.
pub async fn open_phone(chromedriver: &Path, size: (u32, u32)) -> Result<Session, String> {
    open_with(Browser::Chromium, chromedriver, size, true, None).await
}

async fn open_with(
    browser: Browser,
    driver: &Path,
    size: (u32, u32),
    phone: bool,
    name: Option<(&str, u16)>,
) -> Result<Session, String> {
    let port = free_port()?;
    let display = match browser {
        Browser::WebKit => Some(virtual_display(size)?),
        _ => None,
    };
    let mut command = Command::new(driver);
    command
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some((_, name)) = &display {
        command.env("DISPLAY", name);
    }
    let guard = Guard(
        command
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", driver.display()))?,
    );
    let (caps, profile) = match browser {
        Browser::Chromium => {
            let chromium = which("chromium")
                .or_else(|| which("chromium-browser"))
                .ok_or("no chromium on PATH")?;
            let profile = std::env::temp_dir()
                .join(format!("ticklab-chromium-{}-{port}", std::process::id()));
            let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|s| s.to_string()).collect();
            args.push(format!("--window-size={},{}", size.0, size.1));
            args.push(format!("--user-data-dir={}", profile.display()));
            if let Some((host, _)) = name {
                args.push(format!("--host-resolver-rules=MAP {host} 127.0.0.1"));
            }
            let mut caps = json!({
                "browserName": "chrome",
                "goog:chromeOptions": { "binary": chromium, "args": args },
            });
            if phone {
                caps["goog:chromeOptions"]["mobileEmulation"] = json!({
                    "deviceMetrics": {
                        "width": size.0, "height": size.1, "pixelRatio": 3.0, "touch": true,
                    },
                });
            }
            (caps, Some(profile))
        }
        Browser::Firefox => {
            let mut caps = json!({
                "browserName": "firefox",
                "moz:firefoxOptions": {
                    "args": ["-headless", "-width", size.0.to_string(), "-height", size.1.to_string()],
                    "prefs": { "media.autoplay.default": 0 },
                },
            });
            if let Some((host, _)) = name {
                caps["moz:firefoxOptions"]["prefs"]["network.dns.localDomains"] = json!(host);
            }
            (caps, None)
        }
        Browser::WebKit => {
            let binary = minibrowser()
                .ok_or("no WebKitGTK MiniBrowser (apt-get install webkit2gtk-driver)")?;
            let mut caps = json!({
                "browserName": "MiniBrowser",
                "webkitgtk:browserOptions": { "binary": binary, "args": ["--automation"] },
            });
            if let Some((_, port)) = name {
                caps["proxy"] =
                    json!({ "proxyType": "manual", "httpProxy": format!("127.0.0.1:{port}") });
            }
            (caps, None)
        }
    };
    let client = connect(port, caps).await?;
    if browser == Browser::WebKit {
        // The MiniBrowser opens at its own size: the page's layout is tested at `size`.
        client
            .set_window_rect(0, 0, size.0, size.1)
            .await
            .map_err(|e| format!("sizing the MiniBrowser: {e}"))?;
    }
    Ok(Session {
        client,
        _driver: guard,
        _display: display.map(|(g, _)| g),
        port,
        profile,
    })
}

/// The bad-input catalogue, `docs/bad-inputs.md`: a table whose rows read
/// `| area | input | what it gets |`.
pub fn catalogue_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/bad-inputs.md")
}

/// One catalogue row; `|` in a cell is escaped as the table needs.
pub fn catalogue_row(area: &str, input: &str, outcome: &str) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    format!("| {} | {} | {} |", cell(area), cell(input), cell(outcome))
}

/// Fails unless the catalogue's rows of `area` are exactly `rows`: every bad input a test
/// tries is listed with what it got, and the document lists nothing no test tries.
pub fn assert_catalogued(area: &str, rows: &[String]) {
    let path = catalogue_path();
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
    let mut child = Command::new(bin)
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
