//! The class kept in one SQLite file (WAL, `synchronous=FULL`): one thread does every write,
//! committing each batch before anyone is told it arrived; reads go through a connection of
//! their own, which never blocks the writer. Every statement lives in this file.

use std::path::Path;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};
use ticklab::digest::Digest;

use super::{
    Change, Class, ClassStore, EventKind, Refusal, Row, StoreError, Submission, Subscription,
    SCHEMA_VERSION,
};
use crate::class::limits::MAX_ROWS;

/// The steps from version 0 (an empty file) up, in order: the first makes version 1. The
/// version is kept in SQLite's `user_version`.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = ["CREATE TABLE class (
        id INTEGER PRIMARY KEY,
        code TEXT NOT NULL,
        key TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        closed INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE run (
        class INTEGER NOT NULL REFERENCES class(id),
        student TEXT NOT NULL,
        nickname TEXT NOT NULL,
        digest TEXT NOT NULL,
        received_ms INTEGER NOT NULL,
        event INTEGER NOT NULL,
        PRIMARY KEY (class, student)
    );
    CREATE TABLE event (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        class INTEGER NOT NULL REFERENCES class(id),
        kind TEXT NOT NULL,
        student TEXT NOT NULL,
        at_ms INTEGER NOT NULL
    );"];

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Opens `path`, creating it, in WAL mode with every commit on disk before it returns, and
/// brings its schema up to [`SCHEMA_VERSION`].
fn open(path: &Path) -> Result<Connection, StoreError> {
    let place = path.display().to_string();
    let sql = |source: rusqlite::Error| {
        use rusqlite::ErrorCode::{CannotOpen, NotADatabase};
        let place = place.clone();
        match source.sqlite_error_code() {
            Some(NotADatabase | CannotOpen) => StoreError::NotAStore {
                place,
                source: source.into(),
            },
            _ => StoreError::Database {
                place,
                source: source.into(),
                unavailable: false,
            },
        }
    };
    let mut c = Connection::open(path).map_err(sql)?;
    c.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(sql)?;
    c.pragma_update(None, "journal_mode", "WAL").map_err(sql)?;
    // FULL: a commit is on disk (the WAL synced) before it returns, so a SIGKILL, or a
    // power cut, loses nothing a student was told had arrived.
    c.pragma_update(None, "synchronous", "FULL").map_err(sql)?;
    c.pragma_update(None, "foreign_keys", "ON").map_err(sql)?;
    let version: i64 = c
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(sql)?;
    if version > SCHEMA_VERSION {
        return Err(StoreError::Newer {
            reads: SCHEMA_VERSION,
            place,
            found: version,
        });
    }
    for (i, step) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let tx = c.transaction().map_err(sql)?;
        tx.execute_batch(step).map_err(sql)?;
        tx.pragma_update(None, "user_version", i as i64 + 1)
            .map_err(sql)?;
        tx.commit().map_err(sql)?;
    }
    Ok(c)
}

type Reply<T> = tokio::sync::oneshot::Sender<Result<T, StoreError>>;

/// A write for the writer thread, and where to send its answer.
enum Job {
    Open {
        fresh: bool,
        code: String,
        key: String,
        reply: Reply<Class>,
    },
    Put {
        class: i64,
        submission: Submission,
        /// The digest as stored, written before it reaches the writer.
        text: String,
        reply: Reply<Result<Row, Refusal>>,
    },
    Remove {
        class: i64,
        student: String,
        reply: Reply<Option<i64>>,
    },
    Close {
        class: i64,
        reply: Reply<i64>,
    },
}

/// Most writes committed together: each commit waits for the disk once, whatever it holds.
const BATCH: usize = 256;

/// The changes a subscriber may fall behind by before its stream ends (it then catches up
/// from the database by event id).
const LIVE_BACKLOG: usize = 4096;

/// A class server's SQLite file: the writer thread's queue, and a connection of its own
/// for reading (in WAL, readers never wait for the writer).
#[derive(Clone)]
pub struct SqliteStore {
    jobs: mpsc::Sender<Job>,
    place: Arc<str>,
    reads: Arc<Mutex<Connection>>,
    changes: tokio::sync::broadcast::Sender<(i64, Change)>,
}

impl SqliteStore {
    /// Opens (or creates) the database at `path` and starts its writer.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let conn = open(path)?;
        let reads = Arc::new(Mutex::new(open(path)?));
        let (jobs, rx) = mpsc::channel::<Job>();
        let (changes, _) = tokio::sync::broadcast::channel(LIVE_BACKLOG);
        let out = changes.clone();
        let place: Arc<str> = path.display().to_string().into();
        let writer_place = place.clone();
        std::thread::Builder::new()
            .name("class-store".into())
            .spawn(move || writer(conn, rx, out, &writer_place))
            .map_err(StoreError::Thread)?;
        Ok(Self {
            jobs,
            place,
            reads,
            changes,
        })
    }

    /// The connection for reading (a panic elsewhere while it was held leaves it usable:
    /// SQLite's state is its own).
    fn reader(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.reads.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn sql(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Database {
            place: self.place.to_string(),
            source: source.into(),
            unavailable: false,
        }
    }

    /// Runs `f` on the reading connection on a thread of the blocking pool: a teacher's
    /// 500 rows read (or a plot of them) stall no post or live view of the runtime.
    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&SqliteStore, &Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let me = self.clone();
        tokio::task::spawn_blocking(move || {
            let c = me.reader();
            f(&me, &c)
        })
        .await
        .map_err(|_| StoreError::Stopped)?
    }

    /// Sends a job to the writer and waits for its answer.
    async fn ask<T>(&self, job: impl FnOnce(Reply<T>) -> Job) -> Result<T, StoreError> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.jobs
            .send(job(reply))
            .map_err(|_| StoreError::Stopped)?;
        answer.await.map_err(|_| StoreError::Stopped)?
    }

    /// A stored digest, read back.
    fn digest(&self, text: &str) -> Result<Digest, StoreError> {
        serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
            place: self.place.to_string(),
            what: format!("a stored digest does not read: {e}"),
        })
    }

    /// The changes of `class` after event `after`, each said once as it is now.
    fn changes(&self, c: &Connection, class: i64, after: i64) -> Result<Vec<Change>, StoreError> {
        let mut st = c
            .prepare(
                "SELECT e.student, r.nickname, r.digest, r.received_ms, r.event, e.id, e.kind
                 FROM event e LEFT JOIN run r ON r.class = e.class AND r.student = e.student
                 WHERE e.class = ?1 AND e.id > ?2 ORDER BY e.id",
            )
            .map_err(|e| self.sql(e))?;
        let mut out = Vec::new();
        let mut rows = st.query(params![class, after]).map_err(|e| self.sql(e))?;
        while let Some(r) = rows.next().map_err(|e| self.sql(e))? {
            let id: i64 = r.get(5).map_err(|e| self.sql(e))?;
            let kind: String = r.get(6).map_err(|e| self.sql(e))?;
            let kind = EventKind::parse(&kind).ok_or_else(|| StoreError::Corrupt {
                place: self.place.to_string(),
                what: format!("event {id} is of no kind this ticklab writes: '{kind}'"),
            })?;
            match kind {
                // Said once, at the event that put it as it is now.
                EventKind::Put => {
                    let at: Option<i64> = r.get(4).map_err(|e| self.sql(e))?;
                    if at == Some(id) {
                        out.push(Change::Put(self.row(r, id)?));
                    }
                }
                EventKind::Remove => out.push(Change::Removed {
                    student: r.get(0).map_err(|e| self.sql(e))?,
                    event: id,
                }),
                EventKind::Close => out.push(Change::ClassClosed { event: id }),
            }
        }
        Ok(out)
    }

    fn row(&self, r: &rusqlite::Row<'_>, event: i64) -> Result<Row, StoreError> {
        let get = |i| -> Result<String, StoreError> { r.get(i).map_err(|e| self.sql(e)) };
        Ok(Row {
            submission: Submission {
                student: get(0)?,
                nickname: get(1)?,
                digest: self.digest(&get(2)?)?,
            },
            received_ms: r.get(3).map_err(|e| self.sql(e))?,
            event,
        })
    }
}

impl ClassStore for SqliteStore {
    async fn open_class(&self, fresh: bool, code: &str, key: &str) -> Result<Class, StoreError> {
        let (code, key) = (code.to_string(), key.to_string());
        self.ask(|reply| Job::Open {
            fresh,
            code,
            key,
            reply,
        })
        .await
    }

    async fn put(
        &self,
        class: i64,
        s: Submission,
        _sender: std::net::IpAddr,
    ) -> Result<Result<Row, Refusal>, StoreError> {
        let text = serde_json::to_string(&s.digest).map_err(|e| StoreError::Write {
            place: self.place.to_string(),
            reason: format!("a digest that does not write: {e}"),
        })?;
        self.ask(|reply| Job::Put {
            class,
            submission: s,
            text,
            reply,
        })
        .await
    }

    async fn remove(&self, class: i64, student: &str) -> Result<Option<i64>, StoreError> {
        let student = student.to_string();
        self.ask(|reply| Job::Remove {
            class,
            student,
            reply,
        })
        .await
    }

    async fn close(&self, class: i64) -> Result<i64, StoreError> {
        self.ask(|reply| Job::Close { class, reply }).await
    }

    async fn class_by_code(&self, code: &str) -> Result<Option<Class>, StoreError> {
        let code = code.to_string();
        self.read(move |me, c| {
            c.query_row(
                "SELECT id, code, key, closed FROM class WHERE code = ?1 ORDER BY id DESC LIMIT 1",
                [code],
                class_of,
            )
            .optional()
            .map_err(|e| me.sql(e))
        })
        .await
    }

    async fn closed(&self, class: i64) -> Result<bool, StoreError> {
        self.read(move |me, c| {
            c.query_row("SELECT closed FROM class WHERE id = ?1", [class], |r| {
                r.get::<_, i64>(0)
            })
            .map(|v| v != 0)
            .map_err(|e| me.sql(e))
        })
        .await
    }

    async fn rows(&self, class: i64) -> Result<Vec<Row>, StoreError> {
        self.read(move |me, c| {
            let mut st = c
                .prepare(
                    "SELECT student, nickname, digest, received_ms, event FROM run
                     WHERE class = ?1 ORDER BY event",
                )
                .map_err(|e| me.sql(e))?;
            let mut rows = st.query([class]).map_err(|e| me.sql(e))?;
            let mut out = Vec::new();
            while let Some(r) = rows.next().map_err(|e| me.sql(e))? {
                let event = r.get(4).map_err(|e| me.sql(e))?;
                out.push(me.row(r, event)?);
            }
            Ok(out)
        })
        .await
    }

    async fn changes_since(&self, class: i64, after: i64) -> Result<Vec<Change>, StoreError> {
        self.read(move |me, c| me.changes(c, class, after)).await
    }

    fn subscribe(&self, class: i64) -> Subscription {
        Subscription::new(class, self.changes.subscribe())
    }
}

/// The writer: takes what is waiting (up to [`BATCH`]), does it in one transaction, each
/// write in a savepoint of its own (one that fails is rolled back and fails alone),
/// commits (the disk synced), and only then answers each and tells the live views.
fn writer(
    mut conn: Connection,
    jobs: mpsc::Receiver<Job>,
    changes: tokio::sync::broadcast::Sender<(i64, Change)>,
    place: &str,
) {
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match jobs.try_recv() {
                Ok(j) => batch.push(j),
                Err(_) => break,
            }
        }
        let failed = |e: rusqlite::Error| StoreError::Write {
            place: place.to_string(),
            reason: e.to_string(),
        };
        let done = (|| -> Result<Vec<Result<Outcome, StoreError>>, rusqlite::Error> {
            let mut tx = conn.transaction()?;
            let mut out = Vec::with_capacity(batch.len());
            for job in &batch {
                let mut sp = tx.savepoint()?;
                let one = apply(&sp, job);
                match one {
                    Ok(o) => {
                        sp.commit()?;
                        out.push(Ok(o));
                    }
                    Err(e) => {
                        sp.rollback()?;
                        out.push(Err(failed(e)));
                    }
                }
            }
            tx.commit()?;
            Ok(out)
        })();
        match done {
            Ok(outcomes) => {
                for (job, outcome) in batch.into_iter().zip(outcomes) {
                    answer(job, outcome, &changes);
                }
            }
            Err(e) => {
                let reason = e.to_string();
                for job in batch {
                    let e = StoreError::Write {
                        place: place.to_string(),
                        reason: reason.clone(),
                    };
                    answer(job, Err(e), &changes);
                }
            }
        }
    }
}

/// What one write did.
enum Outcome {
    Opened(Class),
    Put(Result<Row, Refusal>),
    Removed(Option<i64>),
    ClassClosed(i64),
}

/// Records an event of `kind` in `class`; its id.
/// Records an event of `kind` in `class`; its id. A student's earlier events go: the new
/// one says all of it (a put the row as it is now, a removal that it is gone), so the log
/// holds what the class holds and a reconnect costs no more than that, not its history.
fn event(
    tx: &Connection,
    kind: EventKind,
    class: i64,
    student: &str,
) -> Result<i64, rusqlite::Error> {
    tx.execute(
        "INSERT INTO event (class, kind, student, at_ms) VALUES (?1, ?2, ?3, ?4)",
        params![class, kind.name(), student, now_ms()],
    )?;
    let id = tx.last_insert_rowid();
    if kind != EventKind::Close {
        tx.execute(
            "DELETE FROM event WHERE class = ?1 AND student = ?2 AND id < ?3 AND kind <> ?4",
            params![class, student, id, EventKind::Close.name()],
        )?;
    }
    Ok(id)
}

fn apply(tx: &Connection, job: &Job) -> Result<Outcome, rusqlite::Error> {
    Ok(match job {
        Job::Open {
            fresh, code, key, ..
        } => Outcome::Opened(open_class(tx, *fresh, code, key)?),
        Job::Put {
            class,
            submission,
            text,
            ..
        } => Outcome::Put(put(tx, *class, submission, text)?),
        Job::Remove { class, student, .. } => {
            let n = tx.execute(
                "DELETE FROM run WHERE class = ?1 AND student = ?2",
                params![class, student],
            )?;
            if n == 0 {
                Outcome::Removed(None)
            } else {
                Outcome::Removed(Some(event(tx, EventKind::Remove, *class, student)?))
            }
        }
        Job::Close { class, .. } => {
            tx.execute("UPDATE class SET closed = 1 WHERE id = ?1", [class])?;
            Outcome::ClassClosed(event(tx, EventKind::Close, *class, "")?)
        }
    })
}

/// A class from a row of (id, code, key, closed).
fn class_of(r: &rusqlite::Row<'_>) -> Result<Class, rusqlite::Error> {
    Ok(Class {
        id: r.get(0)?,
        code: r.get(1)?,
        key: r.get(2)?,
        closed: r.get::<_, i64>(3)? != 0,
    })
}

/// The latest class, or a new one when there is none or `fresh` asks for another.
fn open_class(
    tx: &Connection,
    fresh: bool,
    code: &str,
    key: &str,
) -> Result<Class, rusqlite::Error> {
    if !fresh {
        let found = tx
            .query_row(
                "SELECT id, code, key, closed FROM class ORDER BY id DESC LIMIT 1",
                [],
                class_of,
            )
            .optional()?;
        if let Some(found) = found {
            return Ok(found);
        }
    }
    tx.execute(
        "INSERT INTO class (code, key, created_ms) VALUES (?1, ?2, ?3)",
        params![code, key, now_ms()],
    )?;
    Ok(Class {
        id: tx.last_insert_rowid(),
        code: code.into(),
        key: key.into(),
        closed: false,
    })
}

/// Stores a submission unless the class is closed, or full and the student new to it.
fn put(
    tx: &Connection,
    class: i64,
    s: &Submission,
    text: &str,
) -> Result<Result<Row, Refusal>, rusqlite::Error> {
    let closed: i64 = tx.query_row("SELECT closed FROM class WHERE id = ?1", [class], |r| {
        r.get(0)
    })?;
    let had = tx
        .query_row(
            "SELECT 1 FROM run WHERE class = ?1 AND student = ?2",
            params![class, s.student],
            |_| Ok(()),
        )
        .optional()?
        .is_some();
    let rows: i64 = tx.query_row("SELECT COUNT(*) FROM run WHERE class = ?1", [class], |r| {
        r.get(0)
    })?;
    if closed != 0 {
        return Ok(Err(Refusal::ClassClosed));
    }
    if !had && rows >= MAX_ROWS as i64 {
        return Ok(Err(Refusal::Full));
    }
    let id = event(tx, EventKind::Put, class, &s.student)?;
    let received_ms = now_ms();
    tx.execute(
        "INSERT INTO run (class, student, nickname, digest, received_ms, event)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (class, student) DO UPDATE SET nickname = ?3, digest = ?4,
           received_ms = ?5, event = ?6",
        params![class, s.student, s.nickname, text, received_ms, id],
    )?;
    Ok(Ok(Row {
        submission: s.clone(),
        received_ms,
        event: id,
    }))
}

/// Answers a write, once it is committed, and tells the class's subscribers what changed.
fn answer(
    job: Job,
    outcome: Result<Outcome, StoreError>,
    changes: &tokio::sync::broadcast::Sender<(i64, Change)>,
) {
    let tell = |class: i64, c: Change| {
        let _ = changes.send((class, c));
    };
    match (job, outcome) {
        (Job::Open { reply, .. }, Ok(Outcome::Opened(c))) => {
            let _ = reply.send(Ok(c));
        }
        (Job::Put { reply, class, .. }, Ok(Outcome::Put(r))) => {
            if let Ok(row) = &r {
                tell(class, Change::Put(row.clone()));
            }
            let _ = reply.send(Ok(r));
        }
        (
            Job::Remove {
                reply,
                class,
                student,
            },
            Ok(Outcome::Removed(e)),
        ) => {
            if let Some(event) = e {
                tell(class, Change::Removed { student, event });
            }
            let _ = reply.send(Ok(e));
        }
        (Job::Close { reply, class }, Ok(Outcome::ClassClosed(event))) => {
            tell(class, Change::ClassClosed { event });
            let _ = reply.send(Ok(event));
        }
        (Job::Open { reply, .. }, Err(e)) => {
            let _ = reply.send(Err(e));
        }
        (Job::Put { reply, .. }, Err(e)) => {
            let _ = reply.send(Err(e));
        }
        (Job::Remove { reply, .. }, Err(e)) => {
            let _ = reply.send(Err(e));
        }
        (Job::Close { reply, .. }, Err(e)) => {
            let _ = reply.send(Err(e));
        }
        // An outcome always matches its job.
        (_, Ok(_)) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::suite;
    use super::*;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn the_store_suite() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.sqlite");
        rt().block_on(
            suite::submissions_are_put_replaced_removed_and_told_in_order(|| {
                SqliteStore::open(&path).unwrap()
            }),
        );
        let full = SqliteStore::open(&dir.path().join("full.sqlite")).unwrap();
        rt().block_on(suite::a_full_class_takes_no_new_student_but_lets_one_resend(full));
    }

    #[test]
    fn a_failed_write_fails_alone_and_resends_leave_one_event() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("c.sqlite")).unwrap();
        rt().block_on(async {
            let class = store.open_class(false, "ABCDEF", "k").await.unwrap();
            // Sent together, they are written in one batch: the one to no class fails, the
            // rest are kept.
            let puts = (0..50).map(|i| {
                let (store, id) = (store.clone(), if i == 25 { 9_999 } else { class.id });
                let s = Submission {
                    student: format!("s{i}"),
                    nickname: String::new(),
                    digest: suite::digest("x"),
                };
                async move { store.put(id, s, suite::HERE).await }
            });
            let done = futures_util::future::join_all(puts).await;
            for (i, d) in done.iter().enumerate() {
                assert_eq!(d.is_err(), i == 25, "{i}: {d:?}");
            }
            assert_eq!(store.rows(class.id).await.unwrap().len(), 49);
            // Ten resends of one student: one event of theirs is kept, the latest.
            for _ in 0..10 {
                let s = Submission {
                    student: "s3".into(),
                    nickname: "again".into(),
                    digest: suite::digest("y"),
                };
                store.put(class.id, s, suite::HERE).await.unwrap().unwrap();
            }
            store.remove(class.id, "s4").await.unwrap().unwrap();
            let events: i64 = store
                .reader()
                .query_row(
                    "SELECT COUNT(*) FROM event WHERE class = ?1",
                    [class.id],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(events, 49, "one event a student");
            let changes = store.changes_since(class.id, 0).await.unwrap();
            assert_eq!(changes.len(), 49);
        });
    }

    #[test]
    fn a_file_of_a_newer_schema_is_refused_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.sqlite");
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch("CREATE TABLE later (x); PRAGMA user_version = 99;")
                .unwrap();
        }
        let e = SqliteStore::open(&path).err().expect("refused");
        assert!(e.to_string().contains("schema 99"), "{e}");
        let c = Connection::open(&path).unwrap();
        let n: i64 = c
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE name = 'later'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 1, "nothing dropped");
    }

    #[test]
    fn an_empty_file_is_brought_to_the_schema_s_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.sqlite");
        drop(SqliteStore::open(&path).unwrap());
        let c = Connection::open(&path).unwrap();
        let v: i64 = c
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        let mode: String = c
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn a_stored_event_of_no_known_kind_is_said_not_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.sqlite");
        let store = SqliteStore::open(&path).unwrap();
        let class = rt()
            .block_on(store.open_class(false, "ABCDEF", "k"))
            .unwrap();
        Connection::open(&path)
            .unwrap()
            .execute(
                "INSERT INTO event (class, kind, student, at_ms) VALUES (?1, 'later', '', 0)",
                [class.id],
            )
            .unwrap();
        let e = rt()
            .block_on(store.changes_since(class.id, 0))
            .expect_err("refused");
        assert!(e.to_string().contains("'later'"), "{e}");
    }
}
