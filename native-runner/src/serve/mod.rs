//! `ticklab serve`: the web lab over HTTP, cross-origin isolated, with this machine's report.
//!
//! The page is the one the binary carries ([`embedded`], from memory), or a directory's
//! (`--root`), which tower-http's ServeDir serves (ranges, MIME types, `..` refused); this
//! module adds what a lab server must also promise: files only under the root even through
//! symlinks, GET and HEAD only, and the headers that make the page isolated and keep it from
//! talking to any other origin. hyper serves each connection, with a time limit on a
//! request's head (which also ends idle kept-alive connections) and a cap on connections
//! held at once, so slow or stalled clients cannot use up the server.

use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::TimeoutLayer;

use crate::cli::ServeArgs;
use crate::error::CliError;
use crate::saved;

/// Where the page's Compare view finds this machine's report.
pub const REPORT_PATH: &str = "/native/report.json";

/// The page's own origin only; wasm needs 'wasm-unsafe-eval' to compile, and index.html's one
/// inline script (the first wasm's early fetch) is allowed by its hash.
pub const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' \
                       'sha256-NxnQqkkVqUML1XhW0wRXKT/yP48VPiFa5ZAIv2Fh+4Q='; \
                       style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; worker-src 'self'; \
                       connect-src 'self'; object-src 'none'; base-uri 'none'; \
                       form-action 'none'; frame-ancestors 'none'";

/// Most bytes of request body accepted.
const MAX_BODY: usize = 1024;

/// Longest a client may take to send a request's head, counted from when the server waits
/// for it: a connection that stalls halfway, or stays idle after a response, is closed then.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest a request may take from its head to its answer, its body included: a post that
/// sends its head and trickles its body (64 KB at most) is answered 408 and its
/// connection closed then. A phone on a slow network sends 64 KB within a few seconds.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// How long held connections are answered 503 after the signal to stop, before they are
/// closed: a load balancer's request that crossed the signal gets an answer, not a reset.
pub const HELD_GRACE: Duration = Duration::from_secs(1);

/// The head's time limit for a connection accepted while seven eighths of the connections
/// are held: clients that stall then free their slots ten times as fast, and those queued
/// behind them (a browser on the same machine sends a head within milliseconds) get in.
pub const BUSY_HEAD_TIMEOUT: Duration = Duration::from_secs(1);

/// Most connections held at once, whatever the descriptor limit allows.
const MOST_CONNECTIONS: usize = 4096;

/// Descriptors kept free of connections: the files served, the report, the listener.
#[cfg(unix)]
const SPARE_DESCRIPTORS: u64 = 64;

/// How many connections to hold at once: [`MOST_CONNECTIONS`], or fewer under a lower
/// descriptor limit, so that clients beyond it wait in the listen queue instead of making
/// accept and file opens fail.
pub(crate) fn connection_cap() -> usize {
    #[cfg(unix)]
    if let Ok((soft, _)) = rlimit::getrlimit(rlimit::Resource::NOFILE) {
        let usable = soft.saturating_sub(SPARE_DESCRIPTORS);
        return usize::try_from(usable)
            .unwrap_or(usize::MAX)
            .clamp(8, MOST_CONNECTIONS);
    }
    MOST_CONNECTIONS
}

/// Raises this process's descriptor limit to the most the system allows it (a hub holds
/// thousands of connections); where it cannot, the limit stays and [`connection_cap`]
/// holds to it.
#[cfg(feature = "hub")]
pub(crate) fn raise_descriptor_limit() {
    let _ = rlimit::increase_nofile_limit(u64::MAX);
}

pub mod embedded;

use embedded::Embedded;

/// Where the page's files come from.
#[derive(Clone)]
enum Files {
    /// A directory (`--root`), canonical.
    Dir(PathBuf),
    /// The page this binary carries.
    Carried(Arc<Embedded>),
}

/// What the server serves besides a class: the page, and this machine's report.
#[derive(Clone)]
pub(crate) struct Site {
    files: Files,
    report: Option<String>,
    /// Files never served even when under `--root`: a class's database and its journals.
    hidden: Vec<PathBuf>,
}

impl Site {
    /// The page (`root`'s, or the one this binary carries) and the report at `report`;
    /// also what to call the page in the first line printed.
    pub(crate) fn new(
        root: Option<&Path>,
        report: Option<&Path>,
    ) -> Result<(Self, String), CliError> {
        let (files, what) = files(root)?;
        let report = match report {
            None => None,
            Some(p) => Some(saved::read_report(p, "--report ")?.1),
        };
        Ok((
            Self {
                files,
                report,
                hidden: Vec::new(),
            },
            what,
        ))
    }

    /// Never serves `file`, nor SQLite's journals beside it, whatever the root.
    pub(crate) fn hide(&mut self, file: &Path) {
        let full = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut p = full.clone().into_os_string();
            p.push(suffix);
            self.hidden.push(PathBuf::from(p));
        }
    }
}

/// Refuses methods other than GET and HEAD, and paths that leave the root (`..` in any
/// encoding, absolute or drive paths, backslashes, symlinks pointing outside) or name a
/// hidden file.
async fn guard(State(site): State<Site>, req: Request, next: Next) -> Response {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, "GET, HEAD")],
            "only GET and HEAD\n",
        )
            .into_response();
    }
    let ok = match &site.files {
        Files::Dir(root) => inside(root, req.uri().path()).and_then(|()| {
            let rel = within(req.uri().path())?;
            let full = root.join(rel);
            let real = full.canonicalize().unwrap_or(full);
            if site.hidden.contains(&real) {
                Err(StatusCode::NOT_FOUND)
            } else {
                Ok(())
            }
        }),
        // No file system under a carried page: only the path's own form can be wrong.
        Files::Carried(_) => within(req.uri().path()).map(|_| ()),
    };
    match ok {
        Ok(()) => next.run(req).await,
        Err(status) => (status, "not found\n").into_response(),
    }
}

/// The decoded `uri_path` as a path relative to the site, when it stays within it: no
/// `..`, no absolute or drive parts, no backslash, no NUL.
fn within(uri_path: &str) -> Result<PathBuf, StatusCode> {
    let decoded = percent_encoding::percent_decode_str(uri_path)
        .decode_utf8()
        .map_err(|_| StatusCode::BAD_REQUEST)?;
    if decoded.contains(['\\', '\0']) {
        return Err(StatusCode::BAD_REQUEST);
    }
    let rel = PathBuf::from(decoded.trim_start_matches('/'));
    for c in rel.components() {
        match c {
            Component::Normal(_) | Component::CurDir => {}
            _ => return Err(StatusCode::NOT_FOUND),
        }
    }
    Ok(rel)
}

/// Whether the decoded `uri_path` names something within `root` (or nothing at all).
fn inside(root: &Path, uri_path: &str) -> Result<(), StatusCode> {
    let rel = within(uri_path)?;
    let full = root.join(rel);
    match full.canonicalize() {
        Ok(real) if real.starts_with(root) => Ok(()),
        Ok(_) => Err(StatusCode::NOT_FOUND),
        // Missing files are ServeDir's 404 to give.
        Err(_) => Ok(()),
    }
}

async fn native_report(State(site): State<Site>) -> Response {
    match site.report {
        Some(json) => ([(header::CONTENT_TYPE, "application/json")], json).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            "no native report: start ticklab serve with --report FILE\n",
        )
            .into_response(),
    }
}

fn set(name: &'static str, value: &'static str) -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::overriding(
        HeaderName::from_static(name),
        HeaderValue::from_static(value),
    )
}

/// The server's routes and layers, for `serve`, `class` (whose routes come as `class`, with
/// their own methods and body limit) and their tests.
pub(crate) fn app(site: Site, isolation: bool, class: Option<Router>) -> Router {
    // Sent as they are, not the gzipped copies beside them (as a static host may): served
    // gzipped, Firefox's interpolated performance.now read 1.13-1.18 µs off in three bench
    // runs, against 0.88-0.99 µs in three without, a target of 1 µs; not yet understood.
    let router = Router::new().route(REPORT_PATH, get(native_report));
    let router = match &site.files {
        Files::Dir(root) => {
            router.fallback_service(ServeDir::new(root).append_index_html_on_directories(true))
        }
        Files::Carried(page) => {
            let page = page.clone();
            router.fallback(move |req: Request| {
                let page = page.clone();
                async move { page.respond(&req) }
            })
        }
    };
    let router = router
        .layer(middleware::from_fn_with_state(site.clone(), guard))
        // GET and HEAD carry no body: one announced or sent beyond this is refused (413).
        .layer(RequestBodyLimitLayer::new(MAX_BODY))
        .with_state(site);
    let router = match class {
        // Live views are streams whose answer is their head: the limit bounds the time to
        // it, not the stream.
        Some(class) => router.merge(class.layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))),
        None => router,
    };
    let mut app = router
        .layer(set("content-security-policy", CSP))
        .layer(set("x-content-type-options", "nosniff"))
        .layer(set("referrer-policy", "no-referrer"))
        // An answer that says otherwise (one carrying a teacher's key: no-store) keeps its own.
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-cache"),
        ))
        .layer(set(CORP.0, CORP.1));
    if isolation {
        for (name, value) in ISOLATION {
            app = app.layer(set(name, value));
        }
    }
    app
}

/// The resource policy every response carries: the page's files are its own.
pub const CORP: (&str, &str) = ("cross-origin-resource-policy", "same-origin");

/// The headers that make the page cross-origin isolated (its service worker adds the same
/// on a static host that cannot: a test holds sw.js to these).
pub const ISOLATION: [(&str, &str); 2] = [
    ("cross-origin-opener-policy", "same-origin"),
    ("cross-origin-embedder-policy", "require-corp"),
];

#[cfg(test)]
mod drift {
    use super::{CORP, CSP, ISOLATION, REPORT_PATH};

    fn site(file: &str) -> String {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        std::fs::read_to_string(root.join(file)).unwrap()
    }

    /// What the server sends and what the page's files say of it are one fact: the pages'
    /// CSP, the service worker's isolation headers, and the path Compare fetches the
    /// machine's report from.
    #[test]
    fn the_pages_files_say_what_the_server_sends() {
        // A meta tag cannot say frame-ancestors (browsers ignore it there): the rest is one.
        let meta = CSP
            .strip_suffix("; frame-ancestors 'none'")
            .expect("the server's CSP forbids framing");
        for page in ["index.html", "class.html"] {
            let text = site(page);
            assert!(
                text.contains(&format!(
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"{meta}\">"
                )),
                "{page}'s CSP is not the server's"
            );
        }
        let sw = site("sw.js").to_ascii_lowercase();
        for (name, value) in ISOLATION.iter().chain([&CORP]) {
            assert!(
                sw.contains(&format!("headers.set(\"{name}\", \"{value}\")")),
                "sw.js does not set {name}: {value}"
            );
        }
        // Each inline script runs only by its hash in the CSP: an edit to one without the
        // other would be blocked in every browser (and noted as the page's error).
        use base64::Engine as _;
        use sha2::Digest as _;
        for page in ["index.html", "class.html"] {
            let text = site(page);
            for script in text.split("<script>").skip(1) {
                let body = script.split("</script>").next().unwrap_or_default();
                let hash = base64::engine::general_purpose::STANDARD
                    .encode(sha2::Sha256::digest(body.as_bytes()));
                assert!(
                    CSP.contains(&format!("'sha256-{hash}'")),
                    "{page}'s inline script is not allowed by the CSP: {body}"
                );
            }
        }
        assert!(
            site("index.html").contains("self.ticklabFirstWasm = fetch("),
            "index.html no longer asks for the first wasm early"
        );
        let compare = site("www/compare.js");
        let path = REPORT_PATH.trim_start_matches('/');
        assert!(
            compare.contains(&format!("const NATIVE_REPORT = \"{path}\";")),
            "compare.js does not fetch {REPORT_PATH}"
        );
    }
}

/// The page to serve: `--root`'s directory, or the one this binary carries.
fn files(root: Option<&Path>) -> Result<(Files, String), CliError> {
    let Some(root) = root else {
        return match Embedded::page() {
            Some(page) => {
                let (n, bytes) = page.size();
                Ok((
                    Files::Carried(Arc::new(page)),
                    format!(
                        "the page it carries ({n} files, {:.1} MB)",
                        bytes as f64 / 1e6
                    ),
                ))
            }
            None => Err(CliError::Usage(
                "this ticklab carries no page (it was built before the page was): give \
                 --root DIR, or install it with the page (`cargo xtask install` in a clone)"
                    .into(),
            )),
        };
    };
    let dir = root.canonicalize().map_err(|e| {
        CliError::Usage(format!(
            "--root {}: {e}; build the page first with `cargo xtask web`",
            root.display()
        ))
    })?;
    if !dir.join("index.html").is_file() {
        return Err(CliError::Usage(format!(
            "--root {}: no index.html there; build the page with `cargo xtask web`",
            dir.display()
        )));
    }
    let shown = dir.display().to_string();
    Ok((Files::Dir(dir), shown))
}

pub fn serve(a: ServeArgs) -> Result<(), CliError> {
    let (site, what) = Site::new(a.root.as_deref(), a.report.as_deref())?;
    let rt = runtime()?;
    rt.block_on(async move {
        let (listener, local) = listen(a.bind, a.port).await?;
        let mode = if a.no_isolation {
            "not isolated (--no-isolation)"
        } else {
            "cross-origin isolated"
        };
        let shown = if local.ip().is_unspecified() {
            SocketAddr::new([127, 0, 0, 1].into(), local.port())
        } else {
            local
        };
        println!("ticklab: serving {what} at http://{shown}/ ({mode}); Ctrl-C stops");
        run(
            listener,
            app(site, !a.no_isolation, None),
            connection_cap(),
            stop_signal(),
        )
        .await;
        Ok(())
    })
}

/// Resolves at Ctrl-C, or (on Unix) at SIGTERM, what a service manager or a container
/// runtime sends to stop a server.
pub(crate) async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// The server's runtime: one thread, which a lab's server (a page, a report, a class's
/// posts) keeps far from busy.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)
}

/// Listens on `bind`:`port`; the listener and the address it got.
pub(crate) async fn listen(
    bind: std::net::IpAddr,
    port: u16,
) -> Result<(tokio::net::TcpListener, SocketAddr), CliError> {
    let addr = SocketAddr::new(bind, port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| CliError::Listen { addr, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| CliError::Listen { addr, source })?;
    Ok((listener, local))
}

/// Accepts connections until `stop` resolves, each served by hyper with [`HEAD_TIMEOUT`]
/// (or [`BUSY_HEAD_TIMEOUT`] when nearly full), at most `cap` at once; then closes the
/// listener (new connections are refused, not left waiting), answers 503 on the
/// connections held for [`HELD_GRACE`], and lets those in flight finish (for up to
/// [`HEAD_TIMEOUT`]).
pub(crate) async fn run(
    listener: tokio::net::TcpListener,
    app: Router,
    cap: usize,
    stop: impl std::future::Future<Output = ()>,
) {
    let slots = Arc::new(tokio::sync::Semaphore::new(cap));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let builder = |head: Duration| {
        let mut b = hyper::server::conn::http1::Builder::new();
        b.timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(head)
            .keep_alive(true);
        b
    };
    let (calm, busy) = (builder(HEAD_TIMEOUT), builder(BUSY_HEAD_TIMEOUT));
    let draining = Arc::new(std::sync::atomic::AtomicBool::new(false));
    tokio::pin!(stop);
    loop {
        // A free slot first: beyond the cap, clients wait in the listen queue.
        let slot = tokio::select! {
            s = slots.clone().acquire_owned() => s,
            _ = &mut stop => break,
        };
        let Ok(slot) = slot else { break };
        let (stream, peer) = tokio::select! {
            a = listener.accept() => match a {
                Ok(a) => a,
                // Out of descriptors or a connection reset before it was accepted: the
                // listener itself is fine; try again shortly rather than spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let http = if slots.available_permits() < cap / 8 {
            &busy
        } else {
            &calm
        };
        let (app, draining) = (app.clone(), draining.clone());
        let service = hyper::service::service_fn(move |mut req: Request<hyper::body::Incoming>| {
            let (app, draining) = (app.clone(), draining.clone());
            async move {
                if draining.load(std::sync::atomic::Ordering::Relaxed) {
                    return Ok(stopping());
                }
                // What axum's `ConnectInfo` reads (a class limits posts per address).
                req.extensions_mut().insert(ConnectInfo(peer));
                tower::ServiceExt::oneshot(app, req).await
            }
        });
        let conn = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            // A client that goes away or times out ends only its own connection.
            let _ = conn.await;
            drop(slot);
        });
    }
    drop(listener);
    draining.store(true, std::sync::atomic::Ordering::Relaxed);
    // Until every connection is gone or the grace is over, whichever comes first.
    let _ = tokio::time::timeout(HELD_GRACE, slots.acquire_many(cap as u32)).await;
    let _ = tokio::time::timeout(HEAD_TIMEOUT, graceful.shutdown()).await;
}

/// What a held connection is answered once the server stops: 503, ask again (elsewhere).
fn stopping() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, "2"), (header::CONNECTION, "close")],
        axum::Json(serde_json::json!({ "error": "this server is stopping; ask again" })),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_leave_the_root_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("index.html"), "x").unwrap();
        assert!(inside(&root, "/index.html").is_ok());
        assert!(inside(&root, "/missing.js").is_ok());
        for bad in [
            "/../etc/passwd",
            "/%2e%2e/etc/passwd",
            "/a/%2E%2E/%2e%2e/x",
            "/..%2fx",
            "/a\\..\\b",
            "/%00",
        ] {
            assert!(inside(&root, bad).is_err(), "{bad}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", root.join("out")).unwrap();
            assert_eq!(inside(&root, "/out/hostname"), Err(StatusCode::NOT_FOUND));
        }
    }
}
