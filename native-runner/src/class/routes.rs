//! A class's routes, beside the page: students post their runs with the join code; the
//! teacher, with the key, watches them arrive (Server-Sent Events, caught up by event id
//! after a reconnection), closes the class, removes a row and exports the runs.
//!
//! Every refusal has its status and its reason in words: 413 for a body over
//! [`MAX_POST`], 400 for one that is not a run (the core's digest reader says why), 403 for
//! a wrong code or key, 429 for a student or an address posting too often, or a full class.

use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;
use ticklab::digest::{self, Digest};

use super::limits::Limit;
use super::store::{Change, Class, Refusal, Row, Store, MAX_ROWS};
use crate::serve::Peer;

/// Most bytes of a post: a digest of every clock a page has is a few kilobytes.
pub const MAX_POST: usize = 64 * 1024;
/// Most posts of one student a minute.
pub const STUDENT_PER_MINUTE: usize = 10;
/// Most posts from one address a minute: a class of 500 behind one router, each sending
/// once, and then some.
pub const ADDRESS_PER_MINUTE: usize = 600;
/// Most characters of a nickname.
pub const MAX_NICKNAME: usize = 40;
/// How often the live view hears from the server when nothing happens, so that a proxy or
/// a browser does not take the stream for dead.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// The clock the class's plot shows.
pub const PLOTTED: &str = digest::PAGE_NOW;

/// What the routes share: the database, the class, and the limits.
pub struct Lesson {
    store: Store,
    class: Class,
    /// The join URLs, one per address students reach this machine at.
    join: Vec<String>,
    per_student: Limit<String>,
    per_address: Limit<IpAddr>,
}

impl Lesson {
    /// The class `class` kept in `store`, joined at the URLs `join`.
    pub fn new(store: Store, class: Class, join: Vec<String>) -> Self {
        Self {
            store,
            class,
            join,
            per_student: Limit::new(STUDENT_PER_MINUTE, Duration::from_secs(60), 50_000),
            per_address: Limit::new(ADDRESS_PER_MINUTE, Duration::from_secs(60), 2_000),
        }
    }
}

/// The class's routes.
pub fn router(lesson: Arc<Lesson>) -> Router {
    Router::new()
        .route("/class/runs", post(submit))
        .route("/class/events", get(events))
        .route("/class/rows.json", get(rows_json))
        .route("/class/rows.csv", get(rows_csv))
        .route("/class/plot.svg", get(plot_svg))
        .route("/class/join.svg", get(join_svg))
        .route("/class/close", post(close))
        .route("/class/remove", post(remove))
        .with_state(lesson)
}

/// A refusal: its status and reason, as JSON `{"error": ...}` (and Retry-After for 429).
fn refuse(status: StatusCode, reason: impl Into<String>) -> Response {
    #[derive(Serialize)]
    struct Refused {
        error: String,
    }
    (
        status,
        axum::Json(Refused {
            error: reason.into(),
        }),
    )
        .into_response()
}

fn too_many(reason: String, wait: Duration) -> Response {
    let mut r = refuse(StatusCode::TOO_MANY_REQUESTS, reason);
    let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
    if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
        r.headers_mut().insert(header::RETRY_AFTER, v);
    }
    r
}

fn failed(e: impl std::fmt::Display) -> Response {
    // The teacher's terminal hears of it; the database path says nothing secret.
    eprintln!("ticklab class: {e}");
    refuse(
        StatusCode::INTERNAL_SERVER_ERROR,
        "the class's database failed; the teacher's terminal says why",
    )
}

/// A student's post.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Submission {
    code: String,
    student: String,
    #[serde(default)]
    nickname: String,
    digest: serde_json::Value,
}

/// Whether `id` is an id a browser made: 8 to 64 letters, digits, `-` or `_`.
fn student_id_ok(id: &str) -> bool {
    (8..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The name a row goes by: the nickname (or "a student") and the id's first four
/// characters, so two Anns stay two rows.
fn shown_name(nickname: &str, student: &str) -> String {
    let who = if nickname.is_empty() {
        "a student"
    } else {
        nickname
    };
    format!("{who} · {}", &student[..4])
}

/// `POST /class/runs`: a student's run, stored durably before the answer.
async fn submit(State(l): State<Arc<Lesson>>, req: Request) -> Response {
    let now = Instant::now();
    let peer = req.extensions().get::<Peer>().map(|p| p.0.ip());
    if let Some(ip) = peer {
        if let Err(wait) = l.per_address.take(&ip, now) {
            return too_many(
                format!("over {ADDRESS_PER_MINUTE} posts a minute from this address"),
                wait,
            );
        }
    }
    let bytes = match axum::body::to_bytes(req.into_body(), MAX_POST).await {
        Ok(b) => b,
        Err(_) => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("a run is at most {} KB", MAX_POST / 1024),
            )
        }
    };
    let s: Submission = match serde_json::from_slice(&bytes) {
        Ok(s) => s,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, format!("not a class post: {e}")),
    };
    if s.code.as_bytes().ct_eq(l.class.code.as_bytes()).unwrap_u8() != 1 {
        return refuse(StatusCode::FORBIDDEN, "no class has this code here");
    }
    if !student_id_ok(&s.student) {
        return refuse(
            StatusCode::BAD_REQUEST,
            "a student id is 8 to 64 letters, digits, - or _",
        );
    }
    if let Err(wait) = l.per_student.take(&s.student, now) {
        return too_many(
            format!("over {STUDENT_PER_MINUTE} posts a minute from one student"),
            wait,
        );
    }
    let nickname = s.nickname.trim();
    if nickname.chars().count() > MAX_NICKNAME || nickname.chars().any(char::is_control) {
        return refuse(
            StatusCode::BAD_REQUEST,
            format!("a nickname is at most {MAX_NICKNAME} characters, none of them controls"),
        );
    }
    let mut d = match Digest::from_json(&s.digest.to_string()) {
        Ok(d) => d,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, e),
    };
    d.from = shown_name(nickname, &s.student);
    let text = match serde_json::to_string(&d) {
        Ok(t) => t,
        Err(e) => return failed(e),
    };
    match l.store.put(l.class.id, &s.student, nickname, &text).await {
        Ok(Ok(row)) => (
            StatusCode::CREATED,
            axum::Json(serde_json::json!({ "stored": true, "name": d.from, "event": row.event })),
        )
            .into_response(),
        Ok(Err(Refusal::Closed)) => {
            refuse(StatusCode::FORBIDDEN, "the teacher has closed this class")
        }
        Ok(Err(Refusal::Full)) => too_many(
            format!("the class holds {MAX_ROWS} runs, its most"),
            Duration::from_secs(60),
        ),
        Err(e) => failed(e),
    }
}

/// Whether the request carries the teacher's key (`Authorization: Bearer KEY`), compared
/// in constant time.
fn teacher(l: &Lesson, headers: &HeaderMap) -> bool {
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    given.as_bytes().ct_eq(l.class.key.as_bytes()).unwrap_u8() == 1
}

fn not_teacher() -> Response {
    refuse(
        StatusCode::FORBIDDEN,
        "this needs the teacher's key (the teacher's URL carries it)",
    )
}

/// A row as the teacher's view and the JSON export give it.
#[derive(Serialize)]
struct Shown<'a> {
    student: &'a str,
    nickname: &'a str,
    received_ms: i64,
    digest: serde_json::Value,
}

fn shown(r: &Row) -> Shown<'_> {
    Shown {
        student: &r.student,
        nickname: &r.nickname,
        received_ms: r.received_ms,
        digest: serde_json::from_str(&r.digest).unwrap_or(serde_json::Value::Null),
    }
}

/// One change as a Server-Sent Event.
fn event(c: &Change) -> String {
    let (kind, data) = match c {
        Change::Put(r) => ("put", serde_json::to_string(&shown(r))),
        Change::Removed { student, .. } => (
            "remove",
            serde_json::to_string(&serde_json::json!({ "student": student })),
        ),
        Change::Closed { .. } => ("close", Ok("{}".to_string())),
    };
    format!(
        "id: {}\nevent: {kind}\ndata: {}\n\n",
        c.event(),
        data.unwrap_or_else(|_| "{}".into())
    )
}

/// `GET /class/events`: the class as a stream: first where it stands (`class`: the code,
/// whether closed), then every change after the `Last-Event-ID` the browser sends on
/// reconnecting (all of them the first time), then each as it is committed.
async fn events(State(l): State<Arc<Lesson>>, headers: HeaderMap) -> Response {
    if !teacher(&l, &headers) {
        return not_teacher();
    }
    let after: i64 = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    // Listening first, then reading: nothing committed in between is missed, and what
    // both hold is sent once (by its id).
    let live = l.store.subscribe();
    let past = match l.store.changes_since(l.class.id, after) {
        Ok(p) => p,
        Err(e) => return failed(e),
    };
    let closed = match l.store.closed(l.class.id) {
        Ok(c) => c,
        Err(e) => return failed(e),
    };
    let last = past.last().map_or(after, Change::event);
    let mut first = format!(
        "retry: 1000\nevent: class\ndata: {}\n\n",
        serde_json::json!({ "code": l.class.code, "closed": closed, "most": MAX_ROWS, "join": l.join })
    );
    for c in &past {
        first.push_str(&event(c));
    }
    struct Live {
        rx: tokio::sync::broadcast::Receiver<Change>,
        last: i64,
    }
    let tail = futures_util::stream::unfold(Live { rx: live, last }, |mut s| async move {
        loop {
            match tokio::time::timeout(KEEP_ALIVE, s.rx.recv()).await {
                Err(_) => return Some((Ok::<_, Infallible>(": still here\n\n".to_string()), s)),
                Ok(Ok(c)) if c.event() <= s.last => continue,
                Ok(Ok(c)) => {
                    s.last = c.event();
                    return Some((Ok(event(&c)), s));
                }
                // Fallen behind, or the server stopping: the stream ends, and the browser
                // comes back with the last id it had.
                Ok(Err(_)) => return None,
            }
        }
    });
    let head = futures_util::stream::once(async move { Ok::<_, Infallible>(first) });
    let body = Body::from_stream(futures_util::StreamExt::chain(head, tail));
    (
        [
            (header::CONTENT_TYPE, "text/event-stream; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

/// Every row's digest, in the order they came.
fn digests(l: &Lesson) -> Result<Vec<Digest>, super::store::StoreError> {
    let rows = l.store.rows(l.class.id)?;
    Ok(rows
        .iter()
        .filter_map(|r| serde_json::from_str(&r.digest).ok())
        .collect())
}

/// `GET /class/rows.json`: the class and every run, as stored.
async fn rows_json(State(l): State<Arc<Lesson>>, headers: HeaderMap) -> Response {
    if !teacher(&l, &headers) {
        return not_teacher();
    }
    let rows = match l.store.rows(l.class.id) {
        Ok(r) => r,
        Err(e) => return failed(e),
    };
    let closed = l.store.closed(l.class.id).unwrap_or(false);
    let all: Vec<Shown> = rows.iter().map(shown).collect();
    let disposition = format!(
        "attachment; filename=\"ticklab-class-{}.json\"",
        l.class.code
    );
    (
        [(header::CONTENT_DISPOSITION, disposition)],
        axum::Json(serde_json::json!({ "code": l.class.code, "closed": closed, "rows": all })),
    )
        .into_response()
}

/// `GET /class/rows.csv`: the Compare matrix of the class's runs, one row per clock and
/// student.
async fn rows_csv(State(l): State<Arc<Lesson>>, headers: HeaderMap) -> Response {
    if !teacher(&l, &headers) {
        return not_teacher();
    }
    let all = match digests(&l) {
        Ok(d) => d,
        Err(e) => return failed(e),
    };
    let refs: Vec<&Digest> = all.iter().collect();
    let csv = digest::matrix_csv(&digest::matrix(&refs, digest::Column::Tick, false));
    let disposition = format!(
        "attachment; filename=\"ticklab-class-{}.csv\"",
        l.class.code
    );
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        csv,
    )
        .into_response()
}

/// `GET /class/plot.svg`: the class's performance.now ticks by engine and isolation.
async fn plot_svg(State(l): State<Arc<Lesson>>, headers: HeaderMap) -> Response {
    if !teacher(&l, &headers) {
        return not_teacher();
    }
    let all = match digests(&l) {
        Ok(d) => d,
        Err(e) => return failed(e),
    };
    let refs: Vec<&Digest> = all.iter().collect();
    let groups = digest::ticks_by_engine(&refs, PLOTTED);
    let mut svg = String::new();
    {
        use plotters::prelude::*;
        let area = SVGBackend::with_string(&mut svg, (1200, 520)).into_drawing_area();
        if let Err(e) = ticklab_plot::class_ticks(&area, PLOTTED, &groups) {
            return failed(e);
        }
        if let Err(e) = area.present() {
            return failed(format!("{e:?}"));
        }
    }
    ([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response()
}

/// `GET /class/join.svg`: the first join URL's QR code, for the projector.
async fn join_svg(State(l): State<Arc<Lesson>>, headers: HeaderMap) -> Response {
    if !teacher(&l, &headers) {
        return not_teacher();
    }
    let Some(url) = l.join.first() else {
        return refuse(StatusCode::NOT_FOUND, "no address students can reach");
    };
    match qrcode::QrCode::new(url.as_bytes()) {
        Ok(code) => {
            let svg = code
                .render::<qrcode::render::svg::Color>()
                .min_dimensions(320, 320)
                .build();
            ([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response()
        }
        Err(e) => failed(e),
    }
}

/// `POST /class/close`: no more runs.
async fn close(State(l): State<Arc<Lesson>>, headers: HeaderMap) -> Response {
    if !teacher(&l, &headers) {
        return not_teacher();
    }
    match l.store.close(l.class.id).await {
        Ok(event) => {
            axum::Json(serde_json::json!({ "closed": true, "event": event })).into_response()
        }
        Err(e) => failed(e),
    }
}

/// `POST /class/remove` with `{"student": ID}`: that student's row goes.
async fn remove(
    State(l): State<Arc<Lesson>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    if !teacher(&l, &headers) {
        return not_teacher();
    }
    #[derive(Deserialize)]
    struct Which {
        student: String,
    }
    let w: Which = match serde_json::from_slice(&body) {
        Ok(w) => w,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, format!("not a removal: {e}")),
    };
    match l.store.remove(l.class.id, &w.student).await {
        Ok(Some(event)) => {
            axum::Json(serde_json::json!({ "removed": true, "event": event })).into_response()
        }
        Ok(None) => refuse(StatusCode::NOT_FOUND, "no row of that student"),
        Err(e) => failed(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_names() {
        assert!(student_id_ok("0123456789abcdef"));
        assert!(!student_id_ok("short"));
        assert!(!student_id_ok("../../etc/passwd"));
        assert!(!student_id_ok(&"a".repeat(65)));
        assert_eq!(shown_name("", "abcdef12"), "a student · abcd");
        assert_eq!(shown_name("<b>Ann</b>", "abcdef12"), "<b>Ann</b> · abcd");
    }
}
