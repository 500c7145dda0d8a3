//! The class's database: one SQLite file (WAL, `synchronous=FULL`), written by one thread
//! that commits each batch of submissions before any student is told it arrived, and read
//! on connections of its own, which never block the writer. No HTTP here: the routes call
//! these typed functions, and every statement lives in this file.

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};

/// The schema's version, kept in SQLite's `user_version`; each step of [`MIGRATIONS`] takes
/// a file from one version to the next, and a file of a later version is refused.
pub const SCHEMA_VERSION: i64 = 1;

/// The steps from version 0 (an empty file) up, in order: the first makes version 1.
const MIGRATIONS: [&str; 1] = ["CREATE TABLE class (
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

/// Most rows a class holds.
pub const MAX_ROWS: u64 = 500;

/// What went wrong with the database, in words for the teacher's terminal.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite said no.
    #[error("{path}: {source}")]
    Sql {
        path: String,
        source: rusqlite::Error,
    },
    /// A file of a schema this ticklab does not know.
    #[error(
        "{path}: the class database is of schema {found}; this ticklab reads up to {SCHEMA_VERSION} \
         (a newer ticklab wrote it)"
    )]
    Newer { path: String, found: i64 },
    /// A batch of writes failed together (none of it was kept).
    #[error("{path}: {reason}")]
    Write { path: String, reason: String },
    /// The writer thread is gone (the server is stopping).
    #[error("the class database is closed")]
    Closed,
}

/// A class: its join code, the teacher's key, and whether it takes runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Class {
    /// Its number in the file.
    pub id: i64,
    /// What students type to join.
    pub code: String,
    /// The teacher's key.
    pub key: String,
    /// Whether it was closed to new runs.
    pub closed: bool,
}

/// One student's run as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The student's random id, kept by their browser.
    pub student: String,
    /// The name they gave, perhaps none.
    pub nickname: String,
    /// The run's digest, as JSON text the core's reader accepted.
    pub digest: String,
    /// When it arrived, ms since the epoch.
    pub received_ms: i64,
    /// The event that put it there.
    pub event: i64,
}

/// What happened to a class, in order: the live view's stream.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// A student's run arrived or replaced their earlier one.
    Put(Row),
    /// The teacher removed a student's row.
    Removed { student: String, event: i64 },
    /// The teacher closed the class to new runs.
    Closed { event: i64 },
}

impl Change {
    /// Its event id.
    pub fn event(&self) -> i64 {
        match self {
            Change::Put(r) => r.event,
            Change::Removed { event, .. } | Change::Closed { event } => *event,
        }
    }
}

/// Why a run was not stored.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The class no longer takes runs.
    Closed,
    /// The class holds [`MAX_ROWS`] rows already and this student has none.
    Full,
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Opens `path`, creating it, in WAL mode with every commit on disk before it returns, and
/// brings its schema up to [`SCHEMA_VERSION`].
fn open(path: &Path) -> Result<Connection, StoreError> {
    let shown = path.display().to_string();
    let sql = |source| StoreError::Sql {
        path: shown.clone(),
        source,
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
            path: shown,
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

/// A write for the writer thread, and where to send its answer.
enum Job {
    Put {
        class: i64,
        student: String,
        nickname: String,
        digest: String,
        reply: tokio::sync::oneshot::Sender<Result<Result<Row, Refusal>, StoreError>>,
    },
    Remove {
        class: i64,
        student: String,
        reply: tokio::sync::oneshot::Sender<Result<Option<i64>, StoreError>>,
    },
    Close {
        class: i64,
        reply: tokio::sync::oneshot::Sender<Result<i64, StoreError>>,
    },
}

/// Most writes committed together: each commit waits for the disk once, whatever it holds.
const BATCH: usize = 256;

/// The database of a class server: the writer thread's queue, and a connection of its own
/// for reading (in WAL, readers never wait for the writer).
#[derive(Clone)]
pub struct Store {
    jobs: mpsc::Sender<Job>,
    path: PathBuf,
    reads: Arc<Mutex<Connection>>,
    changes: tokio::sync::broadcast::Sender<Change>,
}

impl Store {
    /// Opens (or creates) the database at `path` and starts its writer.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let conn = open(path)?;
        let reads = Arc::new(Mutex::new(open(path)?));
        let (jobs, rx) = mpsc::channel::<Job>();
        let (changes, _) = tokio::sync::broadcast::channel(4096);
        let out = changes.clone();
        let shown = path.display().to_string();
        std::thread::Builder::new()
            .name("class-store".into())
            .spawn(move || writer(conn, rx, out, shown))
            .map_err(|e| StoreError::Sql {
                path: path.display().to_string(),
                source: rusqlite::Error::ToSqlConversionFailure(Box::new(e)),
            })?;
        Ok(Self {
            jobs,
            path: path.to_path_buf(),
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
        StoreError::Sql {
            path: self.path.display().to_string(),
            source,
        }
    }

    /// The class that goes on in this file (the latest), or a new one with `code` and `key`
    /// when there is none or `fresh` asks for another.
    pub fn class(&self, fresh: bool, code: &str, key: &str) -> Result<Class, StoreError> {
        let c = self.reader();
        if !fresh {
            let found = c
                .query_row(
                    "SELECT id, code, key, closed FROM class ORDER BY id DESC LIMIT 1",
                    [],
                    |r| {
                        Ok(Class {
                            id: r.get(0)?,
                            code: r.get(1)?,
                            key: r.get(2)?,
                            closed: r.get::<_, i64>(3)? != 0,
                        })
                    },
                )
                .optional()
                .map_err(|e| self.sql(e))?;
            if let Some(found) = found {
                return Ok(found);
            }
        }
        c.execute(
            "INSERT INTO class (code, key, created_ms) VALUES (?1, ?2, ?3)",
            params![code, key, now_ms()],
        )
        .map_err(|e| self.sql(e))?;
        Ok(Class {
            id: c.last_insert_rowid(),
            code: code.into(),
            key: key.into(),
            closed: false,
        })
    }

    /// Whether class `class` is closed.
    pub fn closed(&self, class: i64) -> Result<bool, StoreError> {
        self.reader()
            .query_row("SELECT closed FROM class WHERE id = ?1", [class], |r| {
                r.get::<_, i64>(0)
            })
            .map(|v| v != 0)
            .map_err(|e| self.sql(e))
    }

    /// Stores `student`'s run (replacing theirs), durably, and says it to the live views.
    pub async fn put(
        &self,
        class: i64,
        student: &str,
        nickname: &str,
        digest: &str,
    ) -> Result<Result<Row, Refusal>, StoreError> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Job::Put {
                class,
                student: student.into(),
                nickname: nickname.into(),
                digest: digest.into(),
                reply,
            })
            .map_err(|_| StoreError::Closed)?;
        answer.await.map_err(|_| StoreError::Closed)?
    }

    /// Removes `student`'s row; the event's id, or none when there was no such row.
    pub async fn remove(&self, class: i64, student: &str) -> Result<Option<i64>, StoreError> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Job::Remove {
                class,
                student: student.into(),
                reply,
            })
            .map_err(|_| StoreError::Closed)?;
        answer.await.map_err(|_| StoreError::Closed)?
    }

    /// Closes the class to new runs; the event's id.
    pub async fn close(&self, class: i64) -> Result<i64, StoreError> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Job::Close { class, reply })
            .map_err(|_| StoreError::Closed)?;
        answer.await.map_err(|_| StoreError::Closed)?
    }

    /// Every row of the class, in the order they were last put.
    pub fn rows(&self, class: i64) -> Result<Vec<Row>, StoreError> {
        let c = self.reader();
        let mut st = c
            .prepare(
                "SELECT student, nickname, digest, received_ms, event FROM run
                 WHERE class = ?1 ORDER BY event",
            )
            .map_err(|e| self.sql(e))?;
        let rows = st
            .query_map([class], row_of)
            .map_err(|e| self.sql(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.sql(e))?;
        Ok(rows)
    }

    /// What happened after event `after`, in order, as it stands now (a run put and later
    /// replaced is said once, as it is).
    pub fn changes_since(&self, class: i64, after: i64) -> Result<Vec<Change>, StoreError> {
        let c = self.reader();
        let mut st = c
            .prepare(
                "SELECT e.id, e.kind, e.student, r.nickname, r.digest, r.received_ms, r.event
                 FROM event e LEFT JOIN run r ON r.class = e.class AND r.student = e.student
                 WHERE e.class = ?1 AND e.id > ?2 ORDER BY e.id",
            )
            .map_err(|e| self.sql(e))?;
        let mut out = Vec::new();
        let mut rows = st.query(params![class, after]).map_err(|e| self.sql(e))?;
        while let Some(r) = rows.next().map_err(|e| self.sql(e))? {
            let id: i64 = r.get(0).map_err(|e| self.sql(e))?;
            let kind: String = r.get(1).map_err(|e| self.sql(e))?;
            let student: String = r.get(2).map_err(|e| self.sql(e))?;
            match kind.as_str() {
                // Said once, at the event that put it as it is now.
                "put" => {
                    let at: Option<i64> = r.get(6).map_err(|e| self.sql(e))?;
                    if at == Some(id) {
                        out.push(Change::Put(Row {
                            student,
                            nickname: r.get(3).map_err(|e| self.sql(e))?,
                            digest: r.get(4).map_err(|e| self.sql(e))?,
                            received_ms: r.get(5).map_err(|e| self.sql(e))?,
                            event: id,
                        }));
                    }
                }
                "remove" => out.push(Change::Removed { student, event: id }),
                _ => out.push(Change::Closed { event: id }),
            }
        }
        Ok(out)
    }

    /// The live changes, from now on.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<Change> {
        self.changes.subscribe()
    }
}

fn row_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok(Row {
        student: r.get(0)?,
        nickname: r.get(1)?,
        digest: r.get(2)?,
        received_ms: r.get(3)?,
        event: r.get(4)?,
    })
}

/// The writer: takes what is waiting (up to [`BATCH`]), does it in one transaction, commits
/// (the disk synced), and only then answers each and tells the live views.
fn writer(
    mut conn: Connection,
    jobs: mpsc::Receiver<Job>,
    changes: tokio::sync::broadcast::Sender<Change>,
    path: String,
) {
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match jobs.try_recv() {
                Ok(j) => batch.push(j),
                Err(_) => break,
            }
        }
        let done = (|| -> Result<Vec<Outcome>, rusqlite::Error> {
            let tx = conn.transaction()?;
            let mut out = Vec::with_capacity(batch.len());
            for job in &batch {
                out.push(apply(&tx, job)?);
            }
            tx.commit()?;
            Ok(out)
        })();
        match done {
            Ok(outcomes) => {
                for (job, outcome) in batch.into_iter().zip(outcomes) {
                    answer(job, Ok(outcome), &changes);
                }
            }
            Err(e) => {
                let shown = e.to_string();
                for job in batch {
                    let e = StoreError::Write {
                        path: path.clone(),
                        reason: shown.clone(),
                    };
                    answer(job, Err(e), &changes);
                }
            }
        }
    }
}

/// What one write did.
enum Outcome {
    Put(Result<Row, Refusal>),
    Removed(Option<i64>),
    Closed(i64),
}

fn apply(tx: &rusqlite::Transaction<'_>, job: &Job) -> Result<Outcome, rusqlite::Error> {
    let event = |kind: &str, class: i64, student: &str| -> Result<i64, rusqlite::Error> {
        tx.execute(
            "INSERT INTO event (class, kind, student, at_ms) VALUES (?1, ?2, ?3, ?4)",
            params![class, kind, student, now_ms()],
        )?;
        Ok(tx.last_insert_rowid())
    };
    Ok(match job {
        Job::Put {
            class,
            student,
            nickname,
            digest,
            ..
        } => {
            let closed: i64 =
                tx.query_row("SELECT closed FROM class WHERE id = ?1", [class], |r| {
                    r.get(0)
                })?;
            let had: bool = tx
                .query_row(
                    "SELECT 1 FROM run WHERE class = ?1 AND student = ?2",
                    params![class, student],
                    |_| Ok(()),
                )
                .optional()?
                .is_some();
            let rows: i64 =
                tx.query_row("SELECT COUNT(*) FROM run WHERE class = ?1", [class], |r| {
                    r.get(0)
                })?;
            if closed != 0 {
                Outcome::Put(Err(Refusal::Closed))
            } else if !had && rows >= MAX_ROWS as i64 {
                Outcome::Put(Err(Refusal::Full))
            } else {
                let id = event("put", *class, student)?;
                let received_ms = now_ms();
                tx.execute(
                    "INSERT INTO run (class, student, nickname, digest, received_ms, event)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                     ON CONFLICT (class, student) DO UPDATE SET nickname = ?3, digest = ?4,
                       received_ms = ?5, event = ?6",
                    params![class, student, nickname, digest, received_ms, id],
                )?;
                Outcome::Put(Ok(Row {
                    student: student.clone(),
                    nickname: nickname.clone(),
                    digest: digest.clone(),
                    received_ms,
                    event: id,
                }))
            }
        }
        Job::Remove { class, student, .. } => {
            let n = tx.execute(
                "DELETE FROM run WHERE class = ?1 AND student = ?2",
                params![class, student],
            )?;
            if n == 0 {
                Outcome::Removed(None)
            } else {
                Outcome::Removed(Some(event("remove", *class, student)?))
            }
        }
        Job::Close { class, .. } => {
            tx.execute("UPDATE class SET closed = 1 WHERE id = ?1", [class])?;
            Outcome::Closed(event("close", *class, "")?)
        }
    })
}

/// Answers a write, once it is committed, and says what changed.
fn answer(
    job: Job,
    outcome: Result<Outcome, StoreError>,
    changes: &tokio::sync::broadcast::Sender<Change>,
) {
    match (job, outcome) {
        (Job::Put { reply, .. }, Ok(Outcome::Put(r))) => {
            if let Ok(row) = &r {
                let _ = changes.send(Change::Put(row.clone()));
            }
            let _ = reply.send(Ok(r));
        }
        (Job::Remove { reply, student, .. }, Ok(Outcome::Removed(e))) => {
            if let Some(event) = e {
                let _ = changes.send(Change::Removed { student, event });
            }
            let _ = reply.send(Ok(e));
        }
        (Job::Close { reply, .. }, Ok(Outcome::Closed(event))) => {
            let _ = changes.send(Change::Closed { event });
            let _ = reply.send(Ok(event));
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
    use super::*;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn runs_are_put_replaced_removed_and_told_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.sqlite");
        let store = Store::open(&path).unwrap();
        let class = store.class(false, "ABCDEF", "k").unwrap();
        let mut live = store.subscribe();
        rt().block_on(async {
            let a = store
                .put(class.id, "ann", "Ann", "{}")
                .await
                .unwrap()
                .unwrap();
            let b = store.put(class.id, "bob", "", "{}").await.unwrap().unwrap();
            let a2 = store
                .put(class.id, "ann", "Ann", "{\"x\":1}")
                .await
                .unwrap()
                .unwrap();
            assert!(a.event < b.event && b.event < a2.event);
            assert!(store.remove(class.id, "bob").await.unwrap().is_some());
            assert_eq!(store.remove(class.id, "nobody").await.unwrap(), None);
            let closed = store.close(class.id).await.unwrap();
            assert_eq!(
                store.put(class.id, "cat", "", "{}").await.unwrap(),
                Err(Refusal::Closed)
            );
            // Live: every change, in order, after it was committed.
            let mut seen = Vec::new();
            while let Ok(c) = live.try_recv() {
                seen.push(c.event());
            }
            assert_eq!(seen.len(), 5);
            assert!(seen.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(*seen.last().unwrap(), closed);
        });
        let rows = store.rows(class.id).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].digest, "{\"x\":1}");
        // Caught up from the start: ann once, as she is now; bob's put gone with him, his
        // removal said; the close.
        let all = store.changes_since(class.id, 0).unwrap();
        let kinds: Vec<&str> = all
            .iter()
            .map(|c| match c {
                Change::Put(_) => "put",
                Change::Removed { .. } => "remove",
                Change::Closed { .. } => "close",
            })
            .collect();
        assert_eq!(kinds, ["put", "remove", "close"]);
        let after = all[0].event();
        assert_eq!(store.changes_since(class.id, after).unwrap().len(), 2);
        // Started again on the same file: the same class, still closed, its row kept.
        drop(store);
        let again = Store::open(&path).unwrap();
        let same = again.class(false, "OTHER1", "k2").unwrap();
        assert_eq!(
            (same.id, same.code.as_str(), same.closed),
            (class.id, "ABCDEF", true)
        );
        assert_eq!(again.rows(class.id).unwrap().len(), 1);
        let fresh = again.class(true, "NEWONE", "k3").unwrap();
        assert_ne!(fresh.id, class.id);
        assert!(again.rows(fresh.id).unwrap().is_empty());
    }

    #[test]
    fn a_full_class_takes_no_new_student_but_lets_one_resend() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("c.sqlite")).unwrap();
        let class = store.class(false, "ABCDEF", "k").unwrap();
        rt().block_on(async {
            let puts = (0..MAX_ROWS).map(|i| {
                let store = store.clone();
                async move { store.put(class.id, &format!("s{i}"), "", "{}").await }
            });
            for r in futures_util::future::join_all(puts).await {
                assert!(r.unwrap().is_ok());
            }
            assert_eq!(
                store.put(class.id, "late", "", "{}").await.unwrap(),
                Err(Refusal::Full)
            );
            assert!(store.put(class.id, "s7", "", "{}").await.unwrap().is_ok());
        });
        assert_eq!(store.rows(class.id).unwrap().len(), MAX_ROWS as usize);
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
        let e = Store::open(&path).err().expect("refused");
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
        drop(Store::open(&path).unwrap());
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
}
