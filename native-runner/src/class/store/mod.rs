//! Where a class is kept, behind one trait: create or go on with a class, add or replace a
//! student's submission durably, list the rows, the changes after an event id, follow them
//! live, close, remove. No HTTP here; typed values in and out. The SQLite file of `ticklab
//! class` is [`sqlite::SqliteStore`], the PostgreSQL database of `ticklab hub`
//! [`postgres::PgStore`]; every store passes the same suite ([`suite`]).

pub mod sqlite;

use std::future::Future;
use std::net::IpAddr;

use ticklab::digest::Digest;

/// The schema's version a class's SQLite database keeps; a database of a later version is
/// refused.
pub const SCHEMA_VERSION: i64 = 1;
/// The same of a hub's PostgreSQL database (version 2 keeps keys as digests, 3 keeps a
/// student's latest event only).
pub const HUB_SCHEMA_VERSION: i64 = 4;

/// A class: its join code, the teacher's key, and whether it takes submissions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Class {
    /// Its number in the store.
    pub id: i64,
    /// What students type to join.
    pub code: String,
    /// The teacher's key.
    pub key: String,
    /// Whether it was closed to new submissions.
    pub closed: bool,
}

/// A student's run as the class takes it: checked, named, its digest read.
#[derive(Clone, Debug, PartialEq)]
pub struct Submission {
    /// The student's random id, kept by their browser.
    pub student: String,
    /// The name they gave, perhaps none.
    pub nickname: String,
    /// What their run measured.
    pub digest: Digest,
}

/// One student's submission as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// What was sent.
    pub submission: Submission,
    /// When it arrived, ms since the epoch.
    pub received_ms: i64,
    /// The event that put it there.
    pub event: i64,
}

/// What an event did to a class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A submission arrived or replaced the student's earlier one.
    Put,
    /// The teacher removed a student's row.
    Remove,
    /// The teacher closed the class.
    Close,
}

impl EventKind {
    /// Every kind.
    pub const ALL: [EventKind; 3] = [EventKind::Put, EventKind::Remove, EventKind::Close];

    /// Its name, in the database and in the live view's stream.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Put => "put",
            EventKind::Remove => "remove",
            EventKind::Close => "close",
        }
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// What happened to a class, in order: the live view's stream.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// A submission arrived or replaced the student's earlier one.
    Put(Row),
    /// The teacher removed a student's row.
    Removed { student: String, event: i64 },
    /// The teacher closed the class to new submissions.
    ClassClosed { event: i64 },
}

impl Change {
    /// Its event id.
    pub fn event(&self) -> i64 {
        match self {
            Change::Put(r) => r.event,
            Change::Removed { event, .. } | Change::ClassClosed { event } => *event,
        }
    }

    /// What kind of event it is.
    pub fn kind(&self) -> EventKind {
        match self {
            Change::Put(_) => EventKind::Put,
            Change::Removed { .. } => EventKind::Remove,
            Change::ClassClosed { .. } => EventKind::Close,
        }
    }
}

/// Why a submission was not stored.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The class no longer takes submissions.
    ClassClosed,
    /// The class holds its most rows already and this student has none.
    Full,
}

/// A database client's own error, kept whole as the source of a [`StoreError`].
pub type DbError = Box<dyn std::error::Error + Send + Sync>;

/// What went wrong with a store, in words for the teacher's terminal; the database
/// client's own error is kept as its source, whichever database it is.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file cannot be opened, or is no database.
    #[error("{place}: {source}; give --db a class database, or a new file's name")]
    NotAStore {
        place: String,
        #[source]
        source: DbError,
    },
    /// A database of a schema this ticklab does not know.
    #[error(
        "{place}: the class database is of schema {found}; this ticklab reads up to \
         {reads} (a newer ticklab wrote it): install that ticklab (`cargo xtask \
         install` in its checkout), or give this one another database"
    )]
    Newer {
        place: String,
        found: i64,
        reads: i64,
    },
    /// The database said no, or could not be reached (`unavailable`, decided by the
    /// error's kind or code: asking again later may work).
    #[error("{place}: {source}")]
    Database {
        place: String,
        #[source]
        source: DbError,
        unavailable: bool,
    },
    /// A batch of writes failed together (none of it was kept).
    #[error("{place}: {reason}")]
    Write { place: String, reason: String },
    /// Something stored that this ticklab cannot have written.
    #[error("{place}: {what}")]
    Corrupt { place: String, what: String },
    /// The store's writer could not be started.
    #[error("cannot start the class database's writer: {0}")]
    Thread(std::io::Error),
    /// The store's writer is gone (the server is stopping).
    #[error("the class database's writer has stopped (the server is stopping)")]
    Stopped,
    /// Every turn at the database for lookups by code was taken for as long as a request
    /// waits (a flood of them): asking again later may work.
    #[error("every lookup of a class by its code is taken; ask again shortly")]
    Busy,
}

impl StoreError {
    /// Whether the database could not be reached (or is stopping): the request may be
    /// asked again, and a load balancer should send it elsewhere meanwhile.
    pub fn unavailable(&self) -> bool {
        matches!(
            self,
            StoreError::Database {
                unavailable: true,
                ..
            } | StoreError::Busy
        )
    }
}

/// The live changes of one class, from when it was subscribed.
pub struct Subscription {
    class: i64,
    rx: tokio::sync::broadcast::Receiver<(i64, Change)>,
    /// What the store keeps while the class is watched (dropped with the subscription).
    _watch: Option<Box<dyn std::any::Any + Send + Sync>>,
}

/// Why a subscription ended: it fell behind (the changes it missed are in the store), or
/// the store is closing.
#[derive(Debug, PartialEq, Eq)]
pub struct Ended;

impl Subscription {
    /// Follows `rx`'s changes of class `class`.
    pub fn new(class: i64, rx: tokio::sync::broadcast::Receiver<(i64, Change)>) -> Self {
        Self {
            class,
            rx,
            _watch: None,
        }
    }

    /// As [`Subscription::new`], holding `watch` until it is dropped.
    pub fn watched(
        class: i64,
        rx: tokio::sync::broadcast::Receiver<(i64, Change)>,
        watch: impl std::any::Any + Send + Sync,
    ) -> Self {
        Self {
            class,
            rx,
            _watch: Some(Box::new(watch)),
        }
    }

    /// The next change of the class.
    pub async fn next(&mut self) -> Result<Change, Ended> {
        loop {
            match self.rx.recv().await {
                Ok((class, change)) if class == self.class => return Ok(change),
                Ok(_) => continue,
                Err(_) => return Err(Ended),
            }
        }
    }
}

/// Where classes are kept. A submission, a removal or a close is answered only once it is
/// durable, and then told to the class's subscribers; reads see every answered write.
pub trait ClassStore: Clone + Send + Sync + 'static {
    /// The class that goes on (the latest), or a new one with `code` and `key` when there
    /// is none or `fresh` asks for another.
    fn open_class(
        &self,
        fresh: bool,
        code: &str,
        key: &str,
    ) -> impl Future<Output = Result<Class, StoreError>> + Send;

    /// Stores `s` from `sender` (an IPv6 /64's first address; replacing the student's
    /// earlier one), or says why not. A hub keeps the sender's salted digest with the row,
    /// for the atlas, and never the address; a class server keeps nothing of it.
    fn put(
        &self,
        class: i64,
        s: Submission,
        sender: IpAddr,
    ) -> impl Future<Output = Result<Result<Row, Refusal>, StoreError>> + Send;

    /// Removes `student`'s row; the event's id, or none when there was no such row.
    fn remove(
        &self,
        class: i64,
        student: &str,
    ) -> impl Future<Output = Result<Option<i64>, StoreError>> + Send;

    /// Closes the class to new submissions; the event's id.
    fn close(&self, class: i64) -> impl Future<Output = Result<i64, StoreError>> + Send;

    /// The class students join with `code`, if there is one (whether it is closed as of
    /// when the store last read it: a store may keep what it found).
    fn class_by_code(
        &self,
        code: &str,
    ) -> impl Future<Output = Result<Option<Class>, StoreError>> + Send;

    /// Whether the class is closed.
    fn closed(&self, class: i64) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Every row of the class, in the order they were last put.
    fn rows(&self, class: i64) -> impl Future<Output = Result<Vec<Row>, StoreError>> + Send;

    /// What happened after event `after`, in order, as it stands now (a submission put and
    /// later replaced is said once, as it is).
    fn changes_since(
        &self,
        class: i64,
        after: i64,
    ) -> impl Future<Output = Result<Vec<Change>, StoreError>> + Send;

    /// The class's live changes, from now on.
    fn subscribe(&self, class: i64) -> Subscription;
}

/// The suite every store passes, over a fresh store that `open` makes (and makes again on
/// the same database when called twice with the same `n`).
#[cfg(test)]
pub mod suite {
    use super::*;
    use crate::class::limits::MAX_ROWS;

    /// The address the suite's submissions come from.
    pub const HERE: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    /// A digest a student could send, told apart by `mark`.
    pub fn digest(mark: &str) -> Digest {
        Digest {
            from: mark.into(),
            place: "browser".into(),
            who: ticklab::digest::Who {
                browser: "Chromium 156".into(),
                os: "Linux".into(),
                isolation: "isolated".into(),
                cpu: "2 CPUs".into(),
            },
            clocks: vec![],
        }
    }

    fn sub(student: &str, mark: &str) -> Submission {
        Submission {
            student: student.into(),
            nickname: String::new(),
            digest: digest(mark),
        }
    }

    /// The events told to `live` up to event `last` (a store may tell them after it
    /// answered), or those told within 10 s.
    async fn drain(live: &mut Subscription, last: i64) -> Vec<i64> {
        let mut seen = Vec::new();
        let until = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
        while seen.last() != Some(&last) {
            match tokio::time::timeout_at(until, live.next()).await {
                Ok(Ok(c)) => seen.push(c.event()),
                _ => break,
            }
        }
        seen
    }

    /// Puts, replaces, removes and closes, told in order live and caught up after; goes
    /// on where it was when opened again.
    pub async fn submissions_are_put_replaced_removed_and_told_in_order<S: ClassStore>(
        open: impl Fn() -> S,
    ) {
        let store = open();
        let class = store.open_class(false, "ABCDEF", "k").await.unwrap();
        let other = store.open_class(true, "OTHERS", "k9").await.unwrap();
        let mut live = store.subscribe(class.id);
        let a = store
            .put(class.id, sub("ann", "a1"), HERE)
            .await
            .unwrap()
            .unwrap();
        let b = store
            .put(class.id, sub("bob", "b1"), HERE)
            .await
            .unwrap()
            .unwrap();
        store
            .put(other.id, sub("zed", "z1"), HERE)
            .await
            .unwrap()
            .unwrap();
        let a2 = store
            .put(class.id, sub("ann", "a2"), HERE)
            .await
            .unwrap()
            .unwrap();
        assert!(a.event < b.event && b.event < a2.event);
        let gone = store.remove(class.id, "bob").await.unwrap().unwrap();
        assert_eq!(store.remove(class.id, "nobody").await.unwrap(), None);
        let closed = store.close(class.id).await.unwrap();
        assert_eq!(
            store.put(class.id, sub("cat", "c1"), HERE).await.unwrap(),
            Err(Refusal::ClassClosed)
        );
        // Live: the changes of this class (not the other's), in order, once committed; a
        // put already replaced or removed when it is told may be left out (it is said as
        // it is now), so the last three are ann's second, bob's removal and the close.
        let seen = drain(&mut live, closed).await;
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
        assert!(seen
            .iter()
            .all(|e| [a.event, b.event, a2.event, gone, closed].contains(e)));
        assert!(seen.ends_with(&[a2.event, gone, closed]), "{seen:?}");
        let rows = store.rows(class.id).await.unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].submission.digest, digest("a2"));
        assert!(store.closed(class.id).await.unwrap());
        assert!(!store.closed(other.id).await.unwrap());
        let found = store.class_by_code("OTHERS").await.unwrap().unwrap();
        // The key as the store keeps it (a hub's, its digest).
        assert_eq!(
            (found.id, found.key.as_str(), found.closed),
            (other.id, other.key.as_str(), false)
        );
        assert!(store.class_by_code("ABCDEF").await.unwrap().unwrap().closed);
        assert_eq!(store.class_by_code("NOSUCH").await.unwrap(), None);
        // Caught up from the start: ann once, as she is now; bob's put gone with him, his
        // removal said; the close.
        let all = store.changes_since(class.id, 0).await.unwrap();
        let kinds: Vec<EventKind> = all.iter().map(Change::kind).collect();
        assert_eq!(kinds, [EventKind::Put, EventKind::Remove, EventKind::Close]);
        let after = all[0].event();
        assert_eq!(store.changes_since(class.id, after).await.unwrap().len(), 2);
        // Opened again on the same database: the latest class goes on, its row kept.
        drop(store);
        let again = open();
        let same = again.open_class(false, "OTHER1", "k2").await.unwrap();
        assert_eq!((same.id, same.code.as_str()), (other.id, "OTHERS"));
        assert_eq!(again.rows(class.id).await.unwrap().len(), 1);
        let fresh = again.open_class(true, "NEWONE", "k3").await.unwrap();
        assert!(fresh.id != class.id && fresh.id != other.id);
        assert!(again.rows(fresh.id).await.unwrap().is_empty());
    }

    /// A full class takes no new student but lets one of its students send again.
    pub async fn a_full_class_takes_no_new_student_but_lets_one_resend<S: ClassStore>(store: S) {
        let class = store.open_class(false, "ABCDEF", "k").await.unwrap();
        let puts = (0..MAX_ROWS).map(|i| {
            let store = store.clone();
            async move { store.put(class.id, sub(&format!("s{i}"), "x"), HERE).await }
        });
        for r in futures_util::future::join_all(puts).await {
            assert!(r.unwrap().is_ok());
        }
        assert_eq!(
            store.put(class.id, sub("late", "x"), HERE).await.unwrap(),
            Err(Refusal::Full)
        );
        assert!(store
            .put(class.id, sub("s7", "y"), HERE)
            .await
            .unwrap()
            .is_ok());
        assert_eq!(store.rows(class.id).await.unwrap().len(), MAX_ROWS as usize);
    }
}
