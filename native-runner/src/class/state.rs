//! What a class's routes share: the store, which classes they serve ([`Classes`]: the one
//! of `ticklab class` here, or every class of a hub's database in hub/), and the counts
//! that its limits keep.

use std::net::IpAddr;

use axum::http::HeaderMap;
use futures_util::future::BoxFuture;
use subtle::ConstantTimeEq;

use super::limits::{Limit, Sender, ADDRESS_PER_MINUTE, RATE_WINDOW, STUDENT_PER_MINUTE};
use super::refusal::ClassError;
use super::store::{Class, ClassStore};

/// Which classes the routes serve, and how a request names one: the one class of
/// `ticklab class` ([`OneClass`]), or every class of a hub (hub/classes.rs).
pub trait Classes<S>: Send + Sync {
    /// The class a student's post names by `code`; none when no class has it.
    fn for_post<'a>(
        &'a self,
        store: &'a S,
        code: &'a str,
        from: Sender,
        student: &'a str,
    ) -> BoxFuture<'a, Result<Option<Class>, ClassError>>;
    /// The class whose teacher's `key` a request with `headers` carries.
    fn for_teacher<'a>(
        &'a self,
        store: &'a S,
        headers: &'a HeaderMap,
        from: Sender,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Class, ClassError>>;
    /// The URLs students join `class` at, as a request with `headers` reached the server.
    fn join(&self, class: &Class, headers: &HeaderMap) -> Vec<String>;
    /// A hub's terms; none for one class.
    fn terms(&self) -> Option<HubTerms>;
    /// Forgets what is remembered of the class of `code` (closed, or made anew).
    fn forget(&self, code: &str);
}

/// A hub's terms for a class, which the teacher's view says.
#[derive(serde::Serialize)]
pub struct HubTerms {
    /// Hours a class takes runs after it is started.
    pub open_hours: u64,
    /// Days its rows are kept after it closes.
    pub kept_days: u64,
}

/// `ticklab class`: one class, joined at these URLs (one per address of the machine).
pub struct OneClass {
    pub class: Class,
    pub join: Vec<String>,
}

impl<S: Sync> Classes<S> for OneClass {
    fn for_post<'a>(
        &'a self,
        _: &'a S,
        code: &'a str,
        _: Sender,
        _: &'a str,
    ) -> BoxFuture<'a, Result<Option<Class>, ClassError>> {
        let found = bool::from(code.as_bytes().ct_eq(self.class.code.as_bytes()))
            .then(|| self.class.clone());
        Box::pin(async move { Ok(found) })
    }

    fn for_teacher<'a>(
        &'a self,
        _: &'a S,
        _: &'a HeaderMap,
        _: Sender,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Class, ClassError>> {
        // Compared in constant time.
        let ok = bool::from(key.as_bytes().ct_eq(self.class.key.as_bytes()));
        let class = self.class.clone();
        Box::pin(async move { ok.then_some(class).ok_or(ClassError::NotTeacher) })
    }

    fn join(&self, _: &Class, _: &HeaderMap) -> Vec<String> {
        self.join.clone()
    }

    fn terms(&self) -> Option<HubTerms> {
        None
    }

    fn forget(&self, _: &str) {}
}

/// What the routes share: the store, the classes, and the limits.
pub struct ClassState<S> {
    pub(super) store: S,
    pub(super) classes: Box<dyn Classes<S>>,
    pub(super) per_student: Limit<String>,
    pub(super) per_address: Limit<Sender>,
    /// Whether the store's last write failed for being out of reach: posts asked again
    /// meanwhile are not counted against their student.
    pub(super) store_down: std::sync::atomic::AtomicBool,
    /// Set when the server stops: posts are sent elsewhere, live views told to come again.
    pub(super) stopping: tokio::sync::watch::Receiver<bool>,
    /// Whether the client's address is the last of X-Forwarded-For (a hub behind its
    /// reverse proxy) rather than the connection's peer.
    pub(super) trust_proxy: bool,
}

impl<S: ClassStore> ClassState<S> {
    /// The routes of `classes`, kept in `store`; `stopping` turns true when the server
    /// stops.
    pub fn new(
        store: S,
        classes: impl Classes<S> + 'static,
        stopping: tokio::sync::watch::Receiver<bool>,
    ) -> Self {
        Self {
            store,
            classes: Box::new(classes),
            per_student: Limit::new(STUDENT_PER_MINUTE, RATE_WINDOW),
            per_address: Limit::new(ADDRESS_PER_MINUTE, RATE_WINDOW),
            store_down: Default::default(),
            stopping,
            trust_proxy: false,
        }
    }

    /// The same, taking the client's address from X-Forwarded-For.
    pub fn behind_proxy(mut self, trust: bool) -> Self {
        self.trust_proxy = trust;
        self
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Forgets what this instance remembers of the class of `code` (made anew here).
    pub fn forget(&self, code: &str) {
        self.classes.forget(code);
    }

    /// A hub's terms; none for `ticklab class`.
    pub fn terms(&self) -> Option<HubTerms> {
        self.classes.terms()
    }

    /// Whether the server is stopping.
    pub fn is_stopping(&self) -> bool {
        *self.stopping.borrow()
    }

    /// The URLs students join `class` at, as a request with `headers` reached this server.
    pub fn join(&self, class: &Class, headers: &HeaderMap) -> Vec<String> {
        self.classes.join(class, headers)
    }
}

/// The URL a request was sent to, up to its path: its Host, and https when the proxy in
/// front says so (X-Forwarded-Proto).
pub fn requested_base(headers: &HeaderMap) -> String {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    let scheme = match header("x-forwarded-proto") {
        Some("https") => "https",
        _ => "http",
    };
    // A Host of characters no host name has is not echoed into a page.
    let host = header("host")
        .filter(|h| {
            h.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
        })
        .unwrap_or("localhost");
    format!("{scheme}://{host}")
}

/// The client's address: the connection's peer or, behind a trusted proxy, the last
/// address of X-Forwarded-For (the one the proxy itself added).
pub fn client_address(peer: IpAddr, headers: &HeaderMap, trust_proxy: bool) -> IpAddr {
    if !trust_proxy {
        return peer;
    }
    headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .next_back()
        .and_then(|a| a.trim().parse().ok())
        .unwrap_or(peer)
}
