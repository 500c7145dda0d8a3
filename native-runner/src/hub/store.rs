//! The hub's classes in PostgreSQL, shared by every instance of `ticklab hub`: a pool of
//! connections (deadpool) for the writes and reads, each write one call of a function the
//! migration made (one round trip, answered once committed), and one connection that
//! LISTENs, so that a change committed through any instance reaches the live views held
//! by this one. A view that may have missed a notification (the listener's connection
//! lost) is ended, and catches up by event id when it comes back. Every statement lives
//! here and in `migrations/postgres/`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, PoolError, RecyclingMethod, Runtime};
use futures_util::StreamExt;
use tokio::sync::broadcast;
use tokio_postgres::{AsyncMessage, NoTls};

use super::HubStore;
use crate::class::limits::MAX_ROWS;
use crate::class::store::{
    Change, Class, ClassStore, EventKind, Refusal, Row, StoreError, Submission, Subscription,
    HUB_SCHEMA_VERSION,
};

/// The steps from an empty database up, in order; the version reached is kept in
/// `ticklab_schema`.
const MIGRATIONS: [&str; HUB_SCHEMA_VERSION as usize] = [
    include_str!("../../migrations/postgres/0001_classes.sql"),
    include_str!("../../migrations/postgres/0002_key_digests.sql"),
    include_str!("../../migrations/postgres/0003_compact_events.sql"),
    include_str!("../../migrations/postgres/0004_atlas.sql"),
];

/// The advisory lock held while migrating: instances started together migrate once.
const MIGRATION_LOCK: i64 = 0x0074_6963_6b6c_6162;

/// The channel the write functions NOTIFY on, "CLASS EVENT".
const CHANNEL: &str = "ticklab_changes";

/// The changes of its class a subscriber may fall behind by before its stream ends.
const LIVE_BACKLOG: usize = 64;

/// How long a request waits for a connection, or a connection to be made, before the
/// database counts as unavailable.
const WAIT: Duration = Duration::from_secs(3);

/// Whether a class's creation went through.
#[derive(Debug, PartialEq, Eq)]
pub enum Created {
    /// The class, new.
    Made(Class),
    /// The address made its most classes within the window.
    TooMany,
    /// Another class has this code: draw another.
    CodeTaken,
}

/// What a sweep did.
#[derive(Debug, PartialEq, Eq)]
pub struct Swept {
    /// Classes closed for having been open their time.
    pub closed: i64,
    /// Closed classes deleted, their rows with them.
    pub deleted: i64,
}

struct Inner {
    pool: Pool,
    /// One connection of its own for readiness: a flood that holds the pool does not
    /// make every instance look down to the load balancer.
    ready: Pool,
    place: String,
    /// How long a class takes submissions after it is made.
    open_for: Duration,
    /// The live views here, a channel per class they follow: a change is read back only
    /// for a class watched here, and goes only to that class's views.
    views: Mutex<HashMap<i64, broadcast::Sender<(i64, Change)>>>,
    listening: AtomicBool,
}

/// A hub's database: the pool, and the listener that tells this instance's live views.
#[derive(Clone)]
pub struct PgStore(Arc<Inner>);

/// Held by a subscription: its class counts as watched until it is dropped.
struct Watch {
    store: Weak<Inner>,
    class: i64,
}

impl Drop for Watch {
    fn drop(&mut self) {
        // The subscription's receiver is dropped before this (declared first): a class
        // none here follows any more stops being read back.
        if let Some(inner) = self.store.upgrade() {
            let mut v = inner.views.lock().unwrap_or_else(|p| p.into_inner());
            if v.get(&self.class)
                .is_some_and(|tx| tx.receiver_count() == 0)
            {
                v.remove(&self.class);
            }
        }
    }
}

/// Whether `e` says the server is out of reach or stopping, not that a statement failed.
fn out_of_reach(e: &tokio_postgres::Error) -> bool {
    use std::error::Error;
    if e.is_closed() {
        return true;
    }
    if let Some(code) = e.code() {
        let c = code.code();
        // Connection exceptions, and the server shutting down or starting.
        return c.starts_with("08") || c.starts_with("57P");
    }
    // A connection refused, reset or timed out is an I/O error under it.
    let mut source = e.source();
    while let Some(s) = source {
        if s.is::<std::io::Error>() {
            return true;
        }
        source = s.source();
    }
    false
}

/// Where the database is, for messages: the URL without its password.
fn place_of(config: &tokio_postgres::Config) -> String {
    let host = config
        .get_hosts()
        .first()
        .map(|h| match h {
            tokio_postgres::config::Host::Tcp(h) => h.clone(),
            #[cfg(unix)]
            tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
        })
        .unwrap_or_default();
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let db = config.get_dbname().unwrap_or("");
    format!("PostgreSQL at {host}:{port}/{db}")
}

impl PgStore {
    /// Connects to the database at `url` (a `postgres://` URL or `key=value` pairs) with
    /// at most `pool` connections, brings its schema up to [`HUB_SCHEMA_VERSION`] (refusing a
    /// newer one), and starts listening. Classes take submissions for `open_for`.
    pub async fn connect(url: &str, pool: usize, open_for: Duration) -> Result<Self, StoreError> {
        let mut config =
            tokio_postgres::Config::from_str(url).map_err(|e| StoreError::Database {
                place: "the hub's database URL".into(),
                source: format!("{e}; give one like postgres://USER:PASSWORD@HOST:5432/DATABASE")
                    .into(),
                unavailable: false,
            })?;
        config.connect_timeout(WAIT);
        config.application_name("ticklab hub");
        let place = place_of(&config);
        let build = |size: usize| {
            let manager = Manager::from_config(
                config.clone(),
                NoTls,
                ManagerConfig {
                    recycling_method: RecyclingMethod::Fast,
                },
            );
            Pool::builder(manager)
                .max_size(size)
                .runtime(Runtime::Tokio1)
                .wait_timeout(Some(WAIT))
                .create_timeout(Some(WAIT))
                .recycle_timeout(Some(WAIT))
                .build()
                .map_err(|e| StoreError::Database {
                    place: place.clone(),
                    source: e.into(),
                    unavailable: false,
                })
        };
        let (pool, ready) = (build(pool.max(2))?, build(1)?);
        let store = PgStore(Arc::new(Inner {
            pool,
            ready,
            place,
            open_for,
            views: Mutex::new(HashMap::new()),
            listening: AtomicBool::new(false),
        }));
        store.migrate().await?;
        tokio::spawn(listen(Arc::downgrade(&store.0), config));
        Ok(store)
    }

    pub(super) fn failed(&self, e: tokio_postgres::Error) -> StoreError {
        StoreError::Database {
            place: self.0.place.clone(),
            unavailable: out_of_reach(&e),
            source: e.into(),
        }
    }

    pub(super) async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.0.pool.get().await.map_err(|e| match e {
            PoolError::Backend(e) => self.failed(e),
            other => StoreError::Database {
                place: self.0.place.clone(),
                source: format!("no connection within {} s: {other}", WAIT.as_secs()).into(),
                unavailable: true,
            },
        })
    }

    /// One statement's rows.
    pub(super) async fn query(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<tokio_postgres::Row>, StoreError> {
        let c = self.client().await?;
        let st = c.prepare_cached(sql).await.map_err(|e| self.failed(e))?;
        c.query(&st, params).await.map_err(|e| self.failed(e))
    }

    /// Brings the schema up under an advisory lock, each step in its transaction.
    async fn migrate(&self) -> Result<(), StoreError> {
        let mut c = self.client().await?;
        let fail = |e: tokio_postgres::Error| self.failed(e);
        c.execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
            .await
            .map_err(fail)?;
        let done = async {
            c.batch_execute("CREATE TABLE IF NOT EXISTS ticklab_schema (version bigint NOT NULL)")
                .await
                .map_err(fail)?;
            let found: i64 = c
                .query_one("SELECT coalesce(max(version), 0) FROM ticklab_schema", &[])
                .await
                .map_err(fail)?
                .get(0);
            if found > HUB_SCHEMA_VERSION {
                return Err(StoreError::Newer {
                    reads: HUB_SCHEMA_VERSION,
                    place: self.0.place.clone(),
                    found,
                });
            }
            for (i, step) in MIGRATIONS.iter().enumerate().skip(found as usize) {
                let tx = c.transaction().await.map_err(fail)?;
                tx.batch_execute(step).await.map_err(fail)?;
                tx.execute("INSERT INTO ticklab_schema VALUES ($1)", &[&(i as i64 + 1)])
                    .await
                    .map_err(fail)?;
                tx.commit().await.map_err(fail)?;
            }
            Ok(())
        }
        .await;
        let unlocked = c
            .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
            .await;
        done?;
        unlocked.map_err(fail)?;
        Ok(())
    }

    fn open_secs(&self) -> f64 {
        self.0.open_for.as_secs_f64()
    }

    /// Where the database is, for the logs.
    pub fn place(&self) -> &str {
        &self.0.place
    }

    fn row(&self, r: &tokio_postgres::Row, at: usize, event: i64) -> Result<Row, StoreError> {
        let text: String = r.get(at + 2);
        Ok(Row {
            submission: Submission {
                student: r.get(at),
                nickname: r.get(at + 1),
                digest: serde_json::from_str(&text).map_err(|e| StoreError::Corrupt {
                    place: self.0.place.clone(),
                    what: format!("a stored digest does not read: {e}"),
                })?,
            },
            received_ms: r.get(at + 3),
            event,
        })
    }

    /// The change an event row (class, id, kind, student, nickname, digest, received_ms,
    /// the run's event) stands for now: none for a put since replaced or removed.
    fn change(&self, r: &tokio_postgres::Row) -> Result<Option<Change>, StoreError> {
        let id: i64 = r.get(1);
        let kind: String = r.get(2);
        let kind = EventKind::parse(&kind).ok_or_else(|| StoreError::Corrupt {
            place: self.0.place.clone(),
            what: format!("event {id} is of no kind this ticklab writes: '{kind}'"),
        })?;
        Ok(match kind {
            EventKind::Put => {
                let at: Option<i64> = r.get(7);
                if at == Some(id) {
                    Some(Change::Put(self.row(r, 3, id)?))
                } else {
                    None
                }
            }
            EventKind::Remove => Some(Change::Removed {
                student: r.get(3),
                event: id,
            }),
            EventKind::Close => Some(Change::ClassClosed { event: id }),
        })
    }

    /// Ends every subscription: what happened meanwhile is read back by event id when the
    /// views come again.
    fn restart_views(&self) {
        self.0
            .views
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    /// Tells the views here the changes `told` (class, event) that they watch.
    async fn tell(&self, told: Vec<(i64, i64)>) -> Result<(), StoreError> {
        let ids: Vec<i64> = {
            let v = self.0.views.lock().unwrap_or_else(|p| p.into_inner());
            told.iter()
                .filter(|(class, _)| v.contains_key(class))
                .map(|(_, e)| *e)
                .collect()
        };
        if ids.is_empty() {
            return Ok(());
        }
        let rows = self
            .query(
                "SELECT e.class, e.id, e.kind, e.student, r.nickname, r.digest, r.received_ms,
                        r.event
                 FROM event e LEFT JOIN run r ON r.class = e.class AND r.student = e.student
                 WHERE e.id = ANY($1) ORDER BY e.id",
                &[&ids],
            )
            .await?;
        let v = self.0.views.lock().unwrap_or_else(|p| p.into_inner());
        for r in &rows {
            let class: i64 = r.get(0);
            if let (Some(tx), Some(c)) = (v.get(&class), self.change(r)?) {
                let _ = tx.send((class, c));
            }
        }
        Ok(())
    }
}

/// The listener: LISTENs on a connection of its own, and tells each batch of notifications
/// to the views here; when the connection is lost, ends every view (they catch up when
/// they come back) and connects again. Ends with the store.
async fn listen(store: Weak<Inner>, config: tokio_postgres::Config) {
    loop {
        if let Ok((client, mut conn)) = config.connect(NoTls).await {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let driver = tokio::spawn(async move {
                let mut messages = futures_util::stream::poll_fn(move |cx| conn.poll_message(cx));
                while let Some(Ok(m)) = messages.next().await {
                    if let AsyncMessage::Notification(n) = m {
                        if tx.send(n).is_err() {
                            break;
                        }
                    }
                }
            });
            if client
                .batch_execute(&format!("LISTEN {CHANNEL}"))
                .await
                .is_ok()
            {
                let Some(inner) = store.upgrade() else { return };
                let s = PgStore(inner);
                // Listening from here: views started before may have missed a change.
                s.restart_views();
                s.0.listening.store(true, Ordering::Relaxed);
                drop(s);
                while let Some(first) = rx.recv().await {
                    let mut told = vec![first];
                    while let Ok(n) = rx.try_recv() {
                        told.push(n);
                    }
                    let Some(inner) = store.upgrade() else { return };
                    let s = PgStore(inner);
                    let pairs = told
                        .iter()
                        .filter_map(|n| {
                            let (c, e) = n.payload().split_once(' ')?;
                            Some((c.parse().ok()?, e.parse().ok()?))
                        })
                        .collect();
                    if s.tell(pairs).await.is_err() {
                        s.restart_views();
                    }
                }
            }
            driver.abort();
        }
        let Some(inner) = store.upgrade() else { return };
        inner.listening.store(false, Ordering::Relaxed);
        PgStore(inner).restart_views();
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

impl HubStore for PgStore {
    /// A class made with `code` and `key` (kept as its digest: the class's `key` is the
    /// digest) for `address`, unless the address made `most`
    /// classes within `window` (counted in the database: the limit holds across every
    /// instance).
    async fn create(
        &self,
        code: &str,
        key: &str,
        address: IpAddr,
        most: i64,
        window: Duration,
    ) -> Result<Created, StoreError> {
        let c = self.client().await?;
        let st = c
            .prepare_cached("SELECT ticklab_create($1, $2, $3, $4, make_interval(secs => $5))")
            .await
            .map_err(|e| self.failed(e))?;
        let key = crate::class::sha256_hex(key);
        let made = c
            .query_one(&st, &[&code, &key, &address, &most, &window.as_secs_f64()])
            .await;
        match made {
            Ok(r) => Ok(match r.get::<_, Option<i64>>(0) {
                Some(id) => Created::Made(Class {
                    id,
                    code: code.into(),
                    key,
                    closed: false,
                }),
                None => Created::TooMany,
            }),
            Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => {
                Ok(Created::CodeTaken)
            }
            Err(e) => Err(self.failed(e)),
        }
    }

    /// Closes the classes open longer than they take submissions (telling their views),
    /// deletes those closed longer than `keep`, and forgets creations older than `window`.
    async fn sweep(&self, keep: Duration, window: Duration) -> Result<Swept, StoreError> {
        let r = self
            .query(
                "SELECT closed, deleted FROM ticklab_sweep(make_interval(secs => $1), \
                 make_interval(secs => $2), make_interval(secs => $3))",
                &[
                    &self.open_secs(),
                    &keep.as_secs_f64(),
                    &window.as_secs_f64(),
                ],
            )
            .await?;
        Ok(Swept {
            closed: r[0].get(0),
            deleted: r[0].get(1),
        })
    }

    /// Whether the database answers and this instance hears its changes: what a load
    /// balancer asks before sending it requests.
    async fn ready(&self) -> Result<(), StoreError> {
        let c = self.0.ready.get().await.map_err(|e| StoreError::Database {
            place: self.0.place.clone(),
            source: format!("no connection for readiness: {e}").into(),
            unavailable: true,
        })?;
        c.simple_query("SELECT 1")
            .await
            .map_err(|e| self.failed(e))?;
        if self.0.listening.load(Ordering::Relaxed) {
            Ok(())
        } else {
            Err(StoreError::Database {
                place: self.0.place.clone(),
                source: "not listening for changes yet".into(),
                unavailable: true,
            })
        }
    }
}

impl ClassStore for PgStore {
    async fn open_class(&self, fresh: bool, code: &str, key: &str) -> Result<Class, StoreError> {
        if !fresh {
            let found = self
                .query(
                    "SELECT id, code, key, closed_at IS NOT NULL FROM class
                     ORDER BY id DESC LIMIT 1",
                    &[],
                )
                .await?;
            if let Some(r) = found.first() {
                return Ok(Class {
                    id: r.get(0),
                    code: r.get(1),
                    key: r.get(2),
                    closed: r.get(3),
                });
            }
        }
        let key = crate::class::sha256_hex(key);
        let r = self
            .query(
                "INSERT INTO class (code, key) VALUES ($1, $2) RETURNING id",
                &[&code, &key],
            )
            .await?;
        Ok(Class {
            id: r[0].get(0),
            code: code.into(),
            key,
            closed: false,
        })
    }

    async fn put(
        &self,
        class: i64,
        s: Submission,
        sender: IpAddr,
    ) -> Result<Result<Row, Refusal>, StoreError> {
        let text = serde_json::to_string(&s.digest).map_err(|e| StoreError::Write {
            place: self.0.place.clone(),
            reason: format!("a digest that does not write: {e}"),
        })?;
        let r = self
            .query(
                "SELECT event, received_ms, refusal
                 FROM ticklab_put($1, $2, $3, $4, $5, make_interval(secs => $6), $7)",
                &[
                    &class,
                    &s.student,
                    &s.nickname,
                    &text,
                    &(MAX_ROWS as i64),
                    &self.open_secs(),
                    &sender,
                ],
            )
            .await?;
        let refusal: Option<String> = r[0].get(2);
        Ok(match refusal.as_deref() {
            None => Ok(Row {
                submission: s,
                received_ms: r[0].get(1),
                event: r[0].get(0),
            }),
            Some("full") => Err(Refusal::Full),
            // Closed, or deleted after it closed.
            Some(_) => Err(Refusal::ClassClosed),
        })
    }

    async fn remove(&self, class: i64, student: &str) -> Result<Option<i64>, StoreError> {
        let r = self
            .query("SELECT ticklab_remove($1, $2)", &[&class, &student])
            .await?;
        Ok(r[0].get(0))
    }

    async fn close(&self, class: i64) -> Result<i64, StoreError> {
        let r = self.query("SELECT ticklab_close($1)", &[&class]).await?;
        Ok(r[0].get(0))
    }

    async fn class_by_code(&self, code: &str) -> Result<Option<Class>, StoreError> {
        let r = self
            .query(
                "SELECT id, code, key,
                        closed_at IS NOT NULL OR created < now() - make_interval(secs => $2)
                 FROM class WHERE code = $1",
                &[&code, &self.open_secs()],
            )
            .await?;
        let found = r.first().map(|r| Class {
            id: r.get(0),
            code: r.get(1),
            key: r.get(2),
            closed: r.get(3),
        });
        Ok(found)
    }

    async fn closed(&self, class: i64) -> Result<bool, StoreError> {
        let r = self
            .query(
                "SELECT closed_at IS NOT NULL OR created < now() - make_interval(secs => $2)
                 FROM class WHERE id = $1",
                &[&class, &self.open_secs()],
            )
            .await?;
        // A class deleted after it closed is closed.
        Ok(r.first().is_none_or(|r| r.get(0)))
    }

    async fn rows(&self, class: i64) -> Result<Vec<Row>, StoreError> {
        self.query(
            "SELECT student, nickname, digest, received_ms, event FROM run
             WHERE class = $1 ORDER BY event",
            &[&class],
        )
        .await?
        .iter()
        .map(|r| self.row(r, 0, r.get(4)))
        .collect()
    }

    async fn changes_since(&self, class: i64, after: i64) -> Result<Vec<Change>, StoreError> {
        let rows = self
            .query(
                "SELECT e.class, e.id, e.kind, e.student, r.nickname, r.digest, r.received_ms,
                        r.event
                 FROM event e LEFT JOIN run r ON r.class = e.class AND r.student = e.student
                 WHERE e.class = $1 AND e.id > $2 ORDER BY e.id",
                &[&class, &after],
            )
            .await?;
        let mut out = Vec::new();
        for r in &rows {
            out.extend(self.change(r)?);
        }
        Ok(out)
    }

    fn subscribe(&self, class: i64) -> Subscription {
        let rx = self
            .0
            .views
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(class)
            .or_insert_with(|| broadcast::channel(LIVE_BACKLOG).0)
            .subscribe();
        Subscription::watched(
            class,
            rx,
            Watch {
                store: Arc::downgrade(&self.0),
                class,
            },
        )
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::class::store::suite;
    use ticklab_browser::postgres::Cluster;

    const DAY: Duration = Duration::from_secs(86_400);

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    }

    /// The store suite, each part on a database of its own in one throwaway cluster.
    #[test]
    fn the_store_suite() {
        let pg = Cluster::start().unwrap();
        pg.psql("CREATE DATABASE a").unwrap();
        pg.psql("CREATE DATABASE b").unwrap();
        let url = |db: &str| pg.url().replace("/postgres", &format!("/{db}"));
        let rt = rt();
        rt.block_on(
            suite::submissions_are_put_replaced_removed_and_told_in_order(|| {
                let url = url("a");
                std::thread::spawn(move || rt_open(&url)).join().unwrap()
            }),
        );
        let full = rt.block_on(PgStore::connect(&url("b"), 8, DAY)).unwrap();
        rt.block_on(suite::a_full_class_takes_no_new_student_but_lets_one_resend(full));
    }

    /// Instances started together migrate once; a database a newer ticklab migrated is
    /// refused, and left as it was.
    #[test]
    fn many_start_together_and_a_newer_schema_is_refused() {
        let pg = Cluster::start().unwrap();
        let rt = rt();
        let url = pg.url();
        let opened = rt.block_on(futures_util::future::join_all(
            (0..6).map(|_| PgStore::connect(&url, 2, DAY)),
        ));
        assert!(opened.iter().all(Result::is_ok));
        assert_eq!(
            pg.psql("SELECT count(*) FROM ticklab_schema").unwrap(),
            HUB_SCHEMA_VERSION.to_string()
        );
        pg.psql("INSERT INTO ticklab_schema VALUES (99)").unwrap();
        let e = rt
            .block_on(PgStore::connect(&url, 2, DAY))
            .err()
            .expect("refused");
        assert!(e.to_string().contains("schema 99"), "{e}");
        assert_eq!(
            pg.psql("SELECT max(version) FROM ticklab_schema").unwrap(),
            "99"
        );
    }

    /// A store opened from outside the runtime the suite runs on (its listener runs on a
    /// runtime of its own, kept for the test's life).
    fn rt_open(url: &str) -> PgStore {
        let rt = Box::leak(Box::new(rt()));
        let store = rt.block_on(PgStore::connect(url, 8, DAY)).unwrap();
        // The listener must be up before the suite subscribes.
        rt.block_on(async {
            for _ in 0..100 {
                if store.ready().await.is_ok() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            panic!("never listening");
        });
        store
    }
}
