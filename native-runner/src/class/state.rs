//! What a class's routes share: the store, which classes they serve (the one of `ticklab
//! class`, or every class of a hub's database), and the counts that its limits keep.

use std::net::IpAddr;
use std::time::Duration;

use axum::http::HeaderMap;

use super::limits::{Limit, Sender, ADDRESS_PER_MINUTE, RATE_WINDOW, STUDENT_PER_MINUTE};
use super::lookup::Lookups;
use super::store::{Class, ClassStore};

/// Which classes the routes serve.
pub enum Scope {
    /// `ticklab class`: one class, joined at these URLs (one per address of the machine).
    One { class: Class, join: Vec<String> },
    /// `ticklab hub`: every class of the store, joined at `public` (the URL students
    /// reach the hub at) or, when none was given, where the request came to.
    Many {
        public: Option<String>,
        /// How long a class takes runs, and how long its rows are kept after it closes.
        open_for: Duration,
        keep_for: Duration,
    },
}

/// What the routes share: the store, the classes, and the limits.
pub struct ClassState<S> {
    pub(super) store: S,
    pub(super) scope: Scope,
    pub(super) per_student: Limit<String>,
    pub(super) per_address: Limit<Sender>,
    /// A hub's lookups of classes by code, and the guesses among them (each instance
    /// counts its own).
    pub(super) lookups: Lookups,
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
    /// The routes of `scope`, kept in `store`; `stopping` turns true when the server stops.
    pub fn new(store: S, scope: Scope, stopping: tokio::sync::watch::Receiver<bool>) -> Self {
        Self {
            store,
            scope,
            per_student: Limit::new(STUDENT_PER_MINUTE, RATE_WINDOW),
            per_address: Limit::new(ADDRESS_PER_MINUTE, RATE_WINDOW),
            lookups: Lookups::default(),
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
        self.lookups.forget(code);
    }

    /// Whether the server is stopping.
    pub fn is_stopping(&self) -> bool {
        *self.stopping.borrow()
    }

    /// The URLs students join `class` at, as a request with `headers` reached this server.
    pub fn join(&self, class: &Class, headers: &HeaderMap) -> Vec<String> {
        match &self.scope {
            Scope::One { join, .. } => join.clone(),
            Scope::Many { public, .. } => {
                let base = public.clone().unwrap_or_else(|| requested_base(headers));
                vec![format!(
                    "{}/?class={}",
                    base.trim_end_matches('/'),
                    class.code
                )]
            }
        }
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
