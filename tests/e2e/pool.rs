//! One browser session an engine (and one Chromium phone) for every test of this binary,
//! lent to each in turn: a session's start and stop cost Chromium about 4 CPU-seconds,
//! Firefox 7 to 9 and WebKit 3, and the tests that borrow now opened 23 of them.
//!
//! What a test leaves in a session does not reach the next: each borrow starts on a blank
//! page in the window size asked for; no page server of this process listens on a port one
//! listened on before (`ticklab_browser::first_on`), so no origin's service worker, storage
//! or cache is met twice; a test that changes a session's settings (the dark theme's
//! emulation) sets them back; and a session lent to a test that failed is closed, not lent
//! again. The sessions end when the binary exits.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{LazyLock, Mutex};

use ticklab_browser::{open, open_phone, Browser, Session};

/// The sessions' own runtime: a session's connection is a task of the runtime that opened
/// it, and each test's own runtime ends with the test.
static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime for the shared sessions")
});

/// A kind of session: a desktop window of an engine, or the emulated phone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Desktop(Browser),
    Phone,
}

/// The sessions not lent out.
static IDLE: LazyLock<Mutex<HashMap<Kind, Session>>> = LazyLock::new(|| {
    // SAFETY: registers a function taking and returning nothing, run once at exit.
    unsafe { libc::atexit(close_all) };
    Mutex::new(HashMap::new())
});

fn idle() -> std::sync::MutexGuard<'static, HashMap<Kind, Session>> {
    IDLE.lock().unwrap_or_else(|e| e.into_inner())
}

/// At exit: each session closed (its browser quits), then its driver stopped.
extern "C" fn close_all() {
    let sessions: Vec<Session> = idle().drain().map(|(_, s)| s).collect();
    RUNTIME.block_on(async {
        for s in &sessions {
            let _ = s.client.clone().close().await;
        }
    });
}

/// The largest window a test asks WebKit for: its virtual screen is made with its first
/// window, and the window cannot outgrow it.
const WEBKIT_SCREEN: (u32, u32) = (1280, 2400);

/// A session of `browser` (started by `driver` if none is idle), on a blank page in a window
/// of `size`.
pub(crate) async fn session(
    browser: Browser,
    driver: &Path,
    size: (u32, u32),
) -> Result<Lent, String> {
    let driver = driver.to_path_buf();
    let first = if browser == Browser::WebKit {
        WEBKIT_SCREEN
    } else {
        size
    };
    let start = move || async move { open(browser, &driver, first).await };
    lend(Kind::Desktop(browser), start, Some(size)).await
}

/// The phone of [`ticklab_browser::open_phone`], 390 by 844 CSS pixels, on a blank page.
pub(crate) async fn phone(chromedriver: &Path) -> Result<Lent, String> {
    let driver = chromedriver.to_path_buf();
    let start = move || async move { open_phone(&driver, (390, 844)).await };
    lend(Kind::Phone, start, None).await
}

/// The idle session of `kind`, or one `start`ed, on a blank page (and in a window of
/// `size`). An idle session that cannot be readied is closed and another started.
async fn lend<F>(
    kind: Kind,
    start: impl FnOnce() -> F,
    size: Option<(u32, u32)>,
) -> Result<Lent, String>
where
    F: std::future::Future<Output = Result<Session, ticklab_browser::DriverError>> + Send + 'static,
{
    // Taken out first: the pool's lock is not held while the session is readied.
    let kept = idle().remove(&kind);
    if let Some(s) = kept {
        if ready(&s, size).await.is_ok() {
            return Ok(Lent {
                kind,
                session: Some(s),
            });
        }
        close(s);
    }
    let s = RUNTIME
        .spawn(start())
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("{kind:?}: {e}"))?;
    let lent = Lent {
        kind,
        session: Some(s),
    };
    ready(&lent, size)
        .await
        .map_err(|e| format!("{kind:?}: {e}"))?;
    Ok(lent)
}

/// A blank page in a window of `size`.
async fn ready(s: &Session, size: Option<(u32, u32)>) -> Result<(), String> {
    s.client
        .goto("about:blank")
        .await
        .map_err(|e| format!("a blank page: {e}"))?;
    if let Some((w, h)) = size {
        s.client
            .set_window_rect(0, 0, w, h)
            .await
            .map_err(|e| format!("a window of {w} by {h}: {e}"))?;
    }
    Ok(())
}

/// Ends a session (its browser quits, then its driver is stopped) on the pool's runtime.
fn close(s: Session) {
    let c = s.client.clone();
    RUNTIME.spawn(async move {
        let _ = c.close().await;
        drop(s);
    });
}

/// A session lent to a test: back to the pool when dropped, or closed if the test failed.
pub(crate) struct Lent {
    kind: Kind,
    session: Option<Session>,
}

impl std::ops::Deref for Lent {
    type Target = Session;

    fn deref(&self) -> &Session {
        self.session
            .as_ref()
            .expect("a lent session is there until dropped")
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        let Some(s) = self.session.take() else {
            return;
        };
        if std::thread::panicking() {
            // Whatever the failed test left open, the next one gets a new browser.
            close(s);
        } else {
            idle().insert(self.kind, s);
        }
    }
}
