//! WebDriver plumbing for the page in real browsers: find an engine's WebDriver server,
//! start it (and a virtual display where the engine needs one), open a headless session,
//! wait for the page's run to end. `ticklab browsers` drives every engine with it; the
//! end-to-end tests and `cargo xtask` too.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub use fantoccini::error::CmdError;
use fantoccini::error::NewSessionError;
use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::ClientBuilder;
pub use fantoccini::{actions, key, Client, Locator};
use serde_json::json;

mod locate;
pub use locate::{Os, Places};

/// What went wrong in reaching a browser.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// This machine lacks what the engine needs (a program, a display server).
    #[error("{0}")]
    Missing(String),
    /// A program could not be started.
    #[error("cannot start {program}: {source}")]
    Start {
        program: String,
        source: std::io::Error,
    },
    /// No port could be had.
    #[error("no free port: {0}")]
    Port(std::io::Error),
    /// The virtual display did not come up.
    #[error("{0}")]
    Display(String),
    /// The WebDriver server opened no session.
    #[error("no WebDriver session on port {port}: {source}")]
    Session { port: u16, source: NewSessionError },
    /// A command of the session failed.
    #[error("{what}: {source}")]
    Command { what: String, source: CmdError },
    /// The caller stopped the wait (Ctrl-C).
    #[error("stopped while the page was '{state}'")]
    Stopped { state: String },
    /// The page did not end its run in time.
    #[error("the page was still '{state}' after {secs} s")]
    Timeout { state: String, secs: u64 },
}

impl DriverError {
    /// Whether the browser's session is gone (its page crashed or hung and the driver
    /// deleted the session, or its window closed): a new session may do what this one
    /// could not.
    pub fn session_lost(&self) -> bool {
        matches!(self, DriverError::Command { source, .. } if session_lost(source))
    }

    /// A failed command, said as what it was for.
    pub fn command(what: impl Into<String>) -> impl FnOnce(CmdError) -> DriverError {
        let what = what.into();
        move |source| DriverError::Command { what, source }
    }
}

/// Whether a command failed because its session is gone (see [`DriverError::session_lost`]).
pub fn session_lost(e: &CmdError) -> bool {
    e.is_invalid_session_id() || e.is_no_such_window()
}

/// Code that reports failures in words takes a driver's error as its words.
impl From<DriverError> for String {
    fn from(e: DriverError) -> String {
        e.to_string()
    }
}

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
    /// Asks the program to end (SIGTERM) and waits a second before killing it: an X server
    /// killed outright leaves its lock file behind, and a machine that ran a few hundred
    /// browser sessions had no display number left.
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Ok(pid) = i32::try_from(self.0.id()) {
            // SAFETY: kill(2) on our own child, which has not been waited for.
            unsafe { libc::kill(pid, libc::SIGTERM) };
            let asked = Instant::now();
            while asked.elapsed() < Duration::from_secs(1) {
                if matches!(self.0.try_wait(), Ok(Some(_))) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Whether X display `n` is free: no lock, or a lock left by a server that is gone (whose
/// lock and socket are then removed, as an X server would remove them itself).
fn display_free(n: u32) -> bool {
    let lock = format!("/tmp/.X{n}-lock");
    let socket = format!("/tmp/.X11-unix/X{n}");
    let Ok(text) = std::fs::read_to_string(&lock) else {
        return !Path::new(&lock).exists() && !Path::new(&socket).exists();
    };
    #[cfg(unix)]
    if let Ok(pid) = text.trim().parse::<i32>() {
        // SAFETY: kill(2) with signal 0 only asks whether the process exists.
        let gone = pid > 0
            && unsafe { libc::kill(pid, 0) } == -1
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone {
            let _ = std::fs::remove_file(&socket);
            return std::fs::remove_file(&lock).is_ok();
        }
    }
    let _ = text;
    false
}

/// A port nothing listens on just now.
pub fn free_port() -> Result<u16, DriverError> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(DriverError::Port)?;
    l.local_addr().map(|a| a.port()).map_err(DriverError::Port)
}

/// Connects to a WebDriver server that may still be starting.
pub async fn connect(
    port: u16,
    caps: serde_json::Map<String, serde_json::Value>,
) -> Result<Client, DriverError> {
    let started = Instant::now();
    loop {
        let c = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await;
        match c {
            Ok(c) => return Ok(c),
            Err(source) if started.elapsed() > Duration::from_secs(30) => {
                return Err(DriverError::Session { port, source })
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// Waits, up to `limit`, for the page's `data-state` to leave "loading" and "running";
/// the state it reached.
pub async fn wait_done(c: &Client, limit: Duration) -> Result<String, DriverError> {
    wait_done_or(c, limit, || false).await
}

/// How long one wait inside the page lasts before the command looks at its limit and at
/// `stop` again.
const WAIT_SLICE_MS: u64 = 1000;

/// Resolves with the page's state as soon as it leaves "loading", "ready" and "running"
/// (an observer of `data-state`), or with the state it is in after `arguments[0]` ms.
const WAIT_SCRIPT: &str = "const [ms, done] = arguments; \
    const state = () => (document.body && document.body.dataset.state) || ''; \
    const over = () => !['', 'loading', 'ready', 'running'].includes(state()); \
    if (over()) return done(state()); \
    if (!document.body) return setTimeout(() => done(state()), 100); \
    const seen = new MutationObserver(() => { \
      if (over()) { seen.disconnect(); clearTimeout(timer); done(state()); } }); \
    const timer = setTimeout(() => { seen.disconnect(); done(state()); }, ms); \
    seen.observe(document.body, { attributes: true, attributeFilter: ['data-state'] });";

/// [`wait_done`], ended early when `stop` says so. The page says when its state changes
/// (one command a second at most, not a poll every half second): a run is seen to end the
/// moment it does, which polling saw 250 ms late on average, in every column of
/// `ticklab browsers` and every full run of the tests.
pub async fn wait_done_or(
    c: &Client,
    limit: Duration,
    stop: impl Fn() -> bool,
) -> Result<String, DriverError> {
    let started = Instant::now();
    loop {
        let waited = c
            .execute_async(WAIT_SCRIPT, vec![serde_json::json!(WAIT_SLICE_MS)])
            .await;
        let v = match waited {
            Ok(v) => v,
            // A page that navigated meanwhile ends the script: asked again, plainly, a
            // moment later.
            Err(e) if !session_lost(&e) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                c.execute("return document.body.dataset.state", vec![])
                    .await
                    .map_err(DriverError::command("reading the page's state"))?
            }
            Err(e) => return Err(DriverError::command("reading the page's state")(e)),
        };
        let state = v.as_str().unwrap_or("").to_string();
        if !matches!(state.as_str(), "" | "loading" | "ready" | "running") {
            return Ok(state);
        }
        if stop() {
            return Err(DriverError::Stopped { state });
        }
        if started.elapsed() > limit {
            return Err(DriverError::Timeout {
                state,
                secs: limit.as_secs(),
            });
        }
    }
}

/// A browser engine the page runs in, with the WebDriver server that drives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Browser {
    /// Chromium (or Google Chrome) with ChromeDriver.
    Chromium,
    /// Firefox with geckodriver.
    Firefox,
    /// WebKit (Safari's engine, every iPhone's browser): WebKitGTK's MiniBrowser with
    /// WebKitWebDriver, on a virtual X display of its own (GTK has no headless mode).
    WebKit,
    /// Microsoft Edge with msedgedriver (Chromium's engine, Microsoft's build).
    Edge,
    /// Safari with safaridriver (macOS; it has no headless mode, so a window opens).
    Safari,
}

impl Browser {
    /// Every engine, in the order a comparison runs them.
    pub const ALL: [Browser; 5] = [
        Browser::Chromium,
        Browser::Firefox,
        Browser::WebKit,
        Browser::Edge,
        Browser::Safari,
    ];

    /// The engine's name.
    pub fn name(self) -> &'static str {
        match self {
            Browser::Chromium => "Chromium",
            Browser::Firefox => "Firefox",
            Browser::WebKit => "WebKit",
            Browser::Edge => "Edge",
            Browser::Safari => "Safari",
        }
    }

    /// The engine of `name` (any case): chromium (or chrome), firefox, webkit, edge, safari.
    pub fn parse(name: &str) -> Option<Browser> {
        let n = name.trim().to_ascii_lowercase();
        let n = if n == "chrome" { "chromium".into() } else { n };
        Browser::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(&n))
    }

    /// Its WebDriver server's program.
    pub fn driver_program(self) -> &'static str {
        match self {
            Browser::Chromium => "chromedriver",
            Browser::Firefox => "geckodriver",
            Browser::WebKit => "WebKitWebDriver",
            Browser::Edge => "msedgedriver",
            Browser::Safari => "safaridriver",
        }
    }

    /// What to install for it, where it is missing.
    pub fn install_hint(self) -> &'static str {
        match self {
            Browser::Chromium => {
                "install Chromium and its driver (Debian: apt-get install chromium \
                 chromium-driver; or Google Chrome and a matching chromedriver)"
            }
            Browser::Firefox => {
                "install Firefox and geckodriver (Debian: apt-get install firefox-esr; \
                 cargo install geckodriver)"
            }
            Browser::WebKit => {
                "install WebKitGTK's driver and a virtual display (Debian: apt-get install \
                 webkit2gtk-driver xvfb)"
            }
            Browser::Edge => "install Microsoft Edge and the msedgedriver of its version",
            Browser::Safari => {
                "on macOS, enable Safari's driver once: safaridriver --enable (Safari's \
                 Develop menu, Allow Remote Automation)"
            }
        }
    }

    /// The engine's WebDriver server when this machine has all the engine needs, or what
    /// it lacks.
    pub fn find(self) -> Result<PathBuf, DriverError> {
        self.find_in(&Places::this_machine())
    }

    /// [`Browser::find`] among `places`.
    pub fn find_in(self, places: &Places) -> Result<PathBuf, DriverError> {
        let program = places.os.program(self.driver_program());
        let driver = places
            .driver(self)
            .ok_or_else(|| DriverError::Missing(format!("no {program} on PATH")))?;
        if places.browser(self).is_none() {
            return Err(DriverError::Missing(match (self, places.os) {
                (Browser::WebKit, Os::Linux) => "no WebKitGTK MiniBrowser".into(),
                (Browser::WebKit, _) => "WebKitGTK runs on Linux only".into(),
                (Browser::Safari, os) if os != Os::MacOs => "Safari runs on macOS only".into(),
                _ => format!(
                    "no {} (looked for {})",
                    self.name(),
                    places.where_looked(self)
                ),
            }));
        }
        if self == Browser::WebKit && places.program("Xvfb").is_none() {
            return Err(DriverError::Missing(
                "no Xvfb on PATH (WebKitGTK needs a display)".into(),
            ));
        }
        Ok(driver)
    }
}

/// WebKitGTK's MiniBrowser, which WebKitWebDriver drives.
pub fn minibrowser() -> Option<PathBuf> {
    Places::this_machine().browser(Browser::WebKit)
}

/// Starts an X server on a display nobody uses, for a browser that needs one; returns it
/// with its name (":93"). It is ready when its socket exists (within 10 s).
fn virtual_display(size: (u32, u32)) -> Result<(Guard, String), DriverError> {
    let xvfb = which("Xvfb")
        .ok_or_else(|| DriverError::Missing("no Xvfb on PATH (apt-get install xvfb)".into()))?;
    let free = (90..400).find(|&n| display_free(n));
    let n = free.ok_or_else(|| DriverError::Display("no free X display number".into()))?;
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
            .map_err(|source| DriverError::Start {
                program: "Xvfb".into(),
                source,
            })?,
    );
    let started = Instant::now();
    while !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() {
        if started.elapsed() > Duration::from_secs(10) {
            return Err(DriverError::Display(format!(
                "Xvfb :{n} did not start in 10 s"
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok((guard, format!(":{n}")))
}

/// A program on PATH (`name.exe` on Windows).
pub fn which(name: &str) -> Option<PathBuf> {
    Places::this_machine().program(name)
}

/// A browser session with its driver; the driver is stopped when this is dropped.
pub struct Session {
    /// The WebDriver client.
    pub client: Client,
    // The driver, then the display it draws on (dropped in this order).
    _driver: Guard,
    _display: Option<Guard>,
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
    ) -> Result<serde_json::Value, DriverError> {
        self.client
            .issue_cmd(Extension {
                path: path.into(),
                body,
            })
            .await
            .map_err(DriverError::command(path))
    }
}

/// A command a driver adds to WebDriver's, POSTed under the session.
#[derive(Debug)]
struct Extension {
    path: String,
    body: serde_json::Value,
}

impl WebDriverCompatibleCommand for Extension {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/{}",
            session_id.unwrap_or(""),
            self.path
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.body.to_string()))
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
pub async fn open(
    browser: Browser,
    driver: &Path,
    size: (u32, u32),
) -> Result<Session, DriverError> {
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
) -> Result<Session, DriverError> {
    open_with(browser, driver, size, false, Some((name, port))).await
}

/// A headless Chromium emulating a phone whose screen is `size` CSS pixels (at three device
/// pixels each, with touch): desktop windows cannot be narrower than 500 pixels.
pub async fn open_phone(chromedriver: &Path, size: (u32, u32)) -> Result<Session, DriverError> {
    open_with(Browser::Chromium, chromedriver, size, true, None).await
}

async fn open_with(
    browser: Browser,
    driver: &Path,
    size: (u32, u32),
    phone: bool,
    name: Option<(&str, u16)>,
) -> Result<Session, DriverError> {
    let port = free_port()?;
    let display = match browser {
        Browser::WebKit => Some(virtual_display(size)?),
        _ => None,
    };
    let mut command = Command::new(driver);
    if browser == Browser::Safari {
        command.args(["--port", &port.to_string()]);
    } else {
        command.arg(format!("--port={port}"));
    }
    command.stdout(Stdio::null()).stderr(Stdio::null());
    if let Some((_, name)) = &display {
        // A virtual display has no GPU: WebKitGTK's compositing would run on Mesa's
        // software GL (llvmpipe), 1.2 of 2 cores for 5 s after each load, beside the
        // clocks the page measures. Without it WebKit paints with the CPU alone, as it
        // does where GL is missing, and the page's full run took 2.1 s, not 2.5-2.9 s.
        command
            .env("DISPLAY", name)
            .env("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
    }
    let guard = Guard(command.spawn().map_err(|source| DriverError::Start {
        program: driver.display().to_string(),
        source,
    })?);
    let (caps, profile) = capabilities(browser, size, phone, name, port)?;
    let serde_json::Value::Object(caps) = caps else {
        unreachable!("every engine's capabilities are an object literal")
    };
    let client = connect(port, caps).await?;
    if browser == Browser::WebKit {
        // The MiniBrowser opens at its own size: the page's layout is tested at `size`.
        client
            .set_window_rect(0, 0, size.0, size.1)
            .await
            .map_err(DriverError::command("sizing the MiniBrowser"))?;
    }
    Ok(Session {
        client,
        _driver: guard,
        _display: display.map(|(g, _)| g),
        profile,
    })
}

/// The capabilities that open a session of `browser` at `size` (as a phone, or reaching
/// `name` on 127.0.0.1), and the profile folder made for it, removed with the session.
fn capabilities(
    browser: Browser,
    size: (u32, u32),
    phone: bool,
    name: Option<(&str, u16)>,
    port: u16,
) -> Result<(serde_json::Value, Option<PathBuf>), DriverError> {
    Ok(match browser {
        Browser::Chromium => {
            let chromium = Places::this_machine()
                .browser(Browser::Chromium)
                .ok_or_else(|| DriverError::Missing("no Chromium or Chrome".into()))?;
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
            // geckodriver looks on PATH and where Firefox is usually installed; a per-user
            // install on Windows or Firefox in ~/Applications it may miss: name what was
            // found. (On Linux it finds what is on PATH as this does.)
            let found = (Os::THIS != Os::Linux)
                .then(|| Places::this_machine().browser(Browser::Firefox))
                .flatten();
            if let Some(firefox) = found {
                caps["moz:firefoxOptions"]["binary"] = json!(firefox);
            }
            (caps, None)
        }
        Browser::Edge => {
            let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|s| s.to_string()).collect();
            args.push(format!("--window-size={},{}", size.0, size.1));
            let mut caps = json!({
                "browserName": "MicrosoftEdge",
                "ms:edgeOptions": { "args": args },
            });
            if let Some(edge) = Places::this_machine().browser(Browser::Edge) {
                caps["ms:edgeOptions"]["binary"] = json!(edge);
            }
            (caps, None)
        }
        Browser::Safari => (json!({ "browserName": "safari" }), None),
        Browser::WebKit => {
            let binary = minibrowser().ok_or_else(|| {
                DriverError::Missing(
                    "no WebKitGTK MiniBrowser (apt-get install webkit2gtk-driver)".into(),
                )
            })?;
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
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::display_free;

    /// A lock whose server is gone frees its display; a live one's does not. Display 89 is
    /// below the numbers the driver starts servers on.
    #[test]
    fn a_stale_x_lock_frees_its_display() {
        let lock = "/tmp/.X89-lock";
        std::fs::write(lock, format!("{:>10}\n", i32::MAX - 7)).unwrap();
        assert!(display_free(89));
        assert!(!std::path::Path::new(lock).exists());
        std::fs::write(lock, format!("{:>10}\n", std::process::id())).unwrap();
        assert!(!display_free(89));
        std::fs::remove_file(lock).unwrap();
        assert!(display_free(89));
    }
}
