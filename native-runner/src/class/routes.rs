//! A class's routes, beside the page: students post their runs with the join code; the
//! teacher, with the key ([`Teacher`]), watches them arrive (Server-Sent Events, caught up
//! by event id after a reconnection), closes the class, removes a row and exports the rows.
//! The same routes serve the one class of `ticklab class` and every class of a hub
//! ([`Classes`]). Every refusal is a [`ClassError`]: its status and its reason in words.

use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::Stream;
use serde::{Deserialize, Serialize};
use ticklab::digest::{self, Digest};

pub use super::extract::AddressAllowed;
use super::extract::{Named, Post, Teacher};
use super::limits::Sender;
pub use super::limits::{KEEP_ALIVE, MAX_NICKNAME, MAX_POST, MAX_ROWS, RECONNECT, RETRY_SOON};
use super::paths;
pub use super::refusal::ClassError;
pub use super::state::{ClassState, Classes, HubTerms, OneClass};
use super::store::{Change, Class, ClassStore, Refusal, Row, Submission, Subscription};

/// The clock the class's plot shows.
pub const PLOTTED: &str = digest::PAGE_NOW;

/// The class's routes, each at its [`paths`] name, with bodies up to [`MAX_POST`].
pub fn router<S: ClassStore>(state: Arc<ClassState<S>>) -> Router {
    Router::new()
        .route(paths::RUNS, post(submit::<S>))
        .route(paths::EVENTS, get(events::<S>))
        .route(paths::ROWS_JSON, get(rows_json::<S>))
        .route(paths::ROWS_CSV, get(rows_csv::<S>))
        .route(paths::PLOT_SVG, get(plot_svg::<S>))
        .route(paths::JOIN_SVG, get(join_svg::<S>))
        .route(paths::CLOSE, post(close::<S>))
        .route(paths::REMOVE, post(remove::<S>))
        .layer(DefaultBodyLimit::max(MAX_POST))
        .with_state(state)
}

/// A student's post, as sent.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Posted {
    code: String,
    student: String,
    #[serde(default)]
    nickname: String,
    /// As sent: the core's reader reads it once.
    digest: Box<serde_json::value::RawValue>,
}

impl Named for Posted {
    const WHAT: &'static str = "a class post";
}

/// Whether `id` is an id a browser made: 8 to 64 letters, digits, `-` or `_`.
fn student_id_ok(id: &str) -> bool {
    (8..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The name a row goes by: the nickname (or "a student") and eight hex digits of the id's
/// digest, so two Anns, or 500 students without a nickname, stay apart (the teacher's
/// view keeps a row per name: two of 500 ids share eight digits about once in 30 000
/// classes; four of the id's own characters were shared by two of 100 students without a
/// nickname in 7 % of classes). The digest shows nothing of the id, which resends a row.
fn shown_name(nickname: &str, student: &str) -> String {
    let who = if nickname.is_empty() {
        "a student"
    } else {
        nickname
    };
    format!("{who} · {}", &super::sha256_hex(student)[..8])
}

/// The class a post's join code names; a hub counts the codes no class has per student
/// of a sender and per sender.
async fn class_of<S: ClassStore>(
    l: &ClassState<S>,
    code: &str,
    from: Sender,
    student: &str,
) -> Result<Class, ClassError> {
    l.classes
        .for_post(&l.store, code, from, student)
        .await?
        .ok_or(ClassError::WrongCode)
}

/// What a post becomes when every check passes: the submission, its digest named.
fn checked(p: Posted) -> Result<Submission, ClassError> {
    if !student_id_ok(&p.student) {
        return Err(ClassError::StudentId);
    }
    let nickname = p.nickname.trim();
    if nickname.chars().count() > MAX_NICKNAME || nickname.chars().any(char::is_control) {
        return Err(ClassError::Nickname);
    }
    let mut digest = Digest::from_json(p.digest.get()).map_err(ClassError::Digest)?;
    digest.from = shown_name(nickname, &p.student);
    Ok(Submission {
        nickname: nickname.to_string(),
        student: p.student,
        digest,
    })
}

/// What a stored post answers.
#[derive(Serialize)]
struct Stored {
    stored: bool,
    name: String,
    event: i64,
}

/// `POST /class/runs`: a student's run, stored durably before the answer.
async fn submit<S: ClassStore>(
    State(l): State<Arc<ClassState<S>>>,
    AddressAllowed(from): AddressAllowed,
    Post(p): Post<Posted>,
) -> Result<impl IntoResponse, ClassError> {
    if l.is_stopping() {
        return Err(ClassError::Stopping);
    }
    // The id is checked first: a guess is counted against it.
    if !student_id_ok(&p.student) {
        return Err(ClassError::StudentId);
    }
    let class = class_of(&l, &p.code, from, &p.student).await?;
    let s = checked(p)?;
    let name = s.digest.from.clone();
    // A post the database could not take (503) is asked again, and is no flood: while the
    // store is out of reach, posts are not counted against their student.
    if !l.store_down.load(Ordering::Relaxed) {
        l.per_student
            .take(&s.student)
            .map_err(|wait| ClassError::StudentTooFast { wait })?;
    }
    let put = l.store.put(class.id, s, from.ip()).await;
    l.store_down
        .store(matches!(&put, Err(e) if e.unavailable()), Ordering::Relaxed);
    let put = put?;
    match put {
        Ok(row) => Ok((
            axum::http::StatusCode::CREATED,
            Json(Stored {
                stored: true,
                name,
                event: row.event,
            }),
        )),
        Err(Refusal::ClassClosed) => Err(ClassError::ClassClosed),
        Err(Refusal::Full) => Err(ClassError::Full),
    }
}

/// A row as the teacher's view and the JSON export give it.
#[derive(Serialize)]
struct Shown<'a> {
    student: &'a str,
    nickname: &'a str,
    received_ms: i64,
    /// Who sent it, in words: "Chromium 156, isolated".
    sender: String,
    digest: &'a Digest,
}

fn shown(r: &Row) -> Shown<'_> {
    Shown {
        student: &r.submission.student,
        nickname: &r.submission.nickname,
        received_ms: r.received_ms,
        sender: ticklab::present::sender(&r.submission.digest),
        digest: &r.submission.digest,
    }
}

/// One change as a Server-Sent Event, named by its kind, with its id.
fn event(c: &Change) -> Event {
    #[derive(Serialize)]
    struct Removed<'a> {
        student: &'a str,
    }
    let e = Event::default()
        .id(c.event().to_string())
        .event(c.kind().name());
    let data = match c {
        Change::Put(r) => e.json_data(shown(r)),
        Change::Removed { student, .. } => e.json_data(Removed { student }),
        Change::ClassClosed { .. } => e.json_data(serde_json::json!({})),
    };
    // Each is plain serde data; should one not write, the view still hears that it was.
    data.unwrap_or_else(|_| Event::default().comment("a change that could not be written"))
}

/// Where the class stands: the first event of every stream.
#[derive(Serialize)]
struct Standing<'a> {
    code: &'a str,
    closed: bool,
    most: u64,
    join: &'a [String],
    /// On a hub: how long the class takes runs and how long its rows are kept after.
    #[serde(skip_serializing_if = "Option::is_none")]
    hub: Option<HubTerms>,
}

/// `GET /class/events`: the class as a stream: first where it stands (`class`: the code,
/// whether closed), then every change after the `Last-Event-ID` the browser sends on
/// reconnecting (all of them the first time), then each as it is committed.
async fn events<S: ClassStore>(
    State(l): State<Arc<ClassState<S>>>,
    Teacher(class): Teacher,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ClassError> {
    if l.is_stopping() {
        return Err(ClassError::Stopping);
    }
    let after: i64 = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    // Listening first, then reading: nothing committed in between is missed, and what
    // both hold is sent once (by its id).
    let live = l.store.subscribe(class.id);
    let past = l.store.changes_since(class.id, after).await?;
    let closed = l.store.closed(class.id).await?;
    let last = past.last().map_or(after, Change::event);
    let standing = Event::default()
        .event("class")
        .retry(RECONNECT)
        .json_data(Standing {
            code: &class.code,
            closed,
            most: MAX_ROWS,
            join: &l.join(&class, &headers),
            hub: l.terms(),
        })
        .map_err(|e| ClassError::Output(e.to_string()))?;
    let head: Vec<Result<Event, Infallible>> = std::iter::once(standing)
        .chain(past.iter().map(event))
        .map(Ok)
        .collect();
    let tail = futures_util::stream::unfold((live, last, l.stopping.clone()), follow);
    let stream = futures_util::StreamExt::chain(futures_util::stream::iter(head), tail);
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE).text("still here")))
}

type Following = (Subscription, i64, tokio::sync::watch::Receiver<bool>);

/// The next live change not already sent; none when the subscription ends (fallen behind,
/// or the store's listener lost), and the browser comes back with the last id it had.
/// When the server stops, a last event tells the view to come again (to another instance)
/// in [`RETRY_SOON`], and the stream ends.
async fn follow(
    (mut live, mut last, mut stopping): Following,
) -> Option<(Result<Event, Infallible>, Following)> {
    loop {
        if *stopping.borrow() {
            return None;
        }
        tokio::select! {
            c = live.next() => {
                let c = c.ok()?;
                if c.event() > last {
                    last = c.event();
                    return Some((Ok(event(&c)), (live, last, stopping)));
                }
            }
            _ = stopping.changed() => {
                let bye = Event::default().retry(RETRY_SOON).comment("this server is stopping");
                return Some((Ok(bye), (live, last, stopping)));
            }
        }
    }
}

/// Every row's digest, in the order they came.
async fn digests<S: ClassStore>(
    l: &ClassState<S>,
    class: &Class,
) -> Result<Vec<Digest>, ClassError> {
    let rows = l.store.rows(class.id).await?;
    Ok(rows.into_iter().map(|r| r.submission.digest).collect())
}

/// A download's name.
fn attachment(code: &str, ext: &str) -> (header::HeaderName, String) {
    (
        header::CONTENT_DISPOSITION,
        format!("attachment; filename=\"ticklab-class-{code}.{ext}\""),
    )
}

/// `GET /class/rows.json`: the class and every row, as stored.
async fn rows_json<S: ClassStore>(
    State(l): State<Arc<ClassState<S>>>,
    Teacher(class): Teacher,
) -> Result<impl IntoResponse, ClassError> {
    #[derive(Serialize)]
    struct All<'a> {
        code: &'a str,
        closed: bool,
        rows: Vec<Shown<'a>>,
    }
    let rows = l.store.rows(class.id).await?;
    let closed = l.store.closed(class.id).await?;
    let all = All {
        code: &class.code,
        closed,
        rows: rows.iter().map(shown).collect(),
    };
    Ok(([attachment(&class.code, "json")], Json(all)).into_response())
}

/// `GET /class/rows.csv`: the Compare matrix of the class's rows, one row per clock and
/// student.
async fn rows_csv<S: ClassStore>(
    State(l): State<Arc<ClassState<S>>>,
    Teacher(class): Teacher,
) -> Result<impl IntoResponse, ClassError> {
    let all = digests(&l, &class).await?;
    let refs: Vec<&Digest> = all.iter().collect();
    let csv = digest::matrix_csv(&digest::matrix(&refs, digest::Column::Tick, false));
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            attachment(&class.code, "csv"),
        ],
        csv,
    ))
}

/// `GET /class/plot.svg`: the class's performance.now ticks by engine and isolation.
async fn plot_svg<S: ClassStore>(
    State(l): State<Arc<ClassState<S>>>,
    Teacher(class): Teacher,
) -> Result<impl IntoResponse, ClassError> {
    use plotters::prelude::*;
    let all = digests(&l, &class).await?;
    let refs: Vec<&Digest> = all.iter().collect();
    let groups = digest::ticks_by_engine(&refs, PLOTTED);
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, (1200, 520)).into_drawing_area();
        ticklab_plot::class_ticks(&area, PLOTTED, &groups)
            .map_err(|e| ClassError::Output(e.to_string()))?;
        area.present()
            .map_err(|e| ClassError::Output(format!("{e:?}")))?;
    }
    // The plot in words, for the image's text alternative (percent-encoded: a header is
    // ASCII, the words need not be).
    let words = ticklab_plot::describe_class(PLOTTED, &groups);
    let alt = percent_encoding::utf8_percent_encode(&words, percent_encoding::NON_ALPHANUMERIC)
        .to_string();
    Ok((
        [
            (header::CONTENT_TYPE, "image/svg+xml".to_string()),
            (header::HeaderName::from_static(paths::ALT_HEADER), alt),
        ],
        svg,
    ))
}

/// `GET /class/join.svg`: the first join URL's QR code, for the projector.
async fn join_svg<S: ClassStore>(
    State(l): State<Arc<ClassState<S>>>,
    Teacher(class): Teacher,
    headers: HeaderMap,
) -> Result<impl IntoResponse, ClassError> {
    let join = l.join(&class, &headers);
    let url = join.first().ok_or(ClassError::NoJoinAddress)?;
    let code =
        qrcode::QrCode::new(url.as_bytes()).map_err(|e| ClassError::Output(e.to_string()))?;
    let svg = code
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(320, 320)
        .build();
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], svg))
}

/// `POST /class/close`: no more runs.
async fn close<S: ClassStore>(
    State(l): State<Arc<ClassState<S>>>,
    Teacher(class): Teacher,
) -> Result<impl IntoResponse, ClassError> {
    let event = l.store.close(class.id).await?;
    l.classes.forget(&class.code);
    Ok(Json(serde_json::json!({ "closed": true, "event": event })))
}

/// A teacher's removal, as sent.
#[derive(Deserialize)]
struct Removal {
    student: String,
}

impl Named for Removal {
    const WHAT: &'static str = "a removal";
}

/// `POST /class/remove` with `{"student": ID}`: that student's row goes.
async fn remove<S: ClassStore>(
    State(l): State<Arc<ClassState<S>>>,
    Teacher(class): Teacher,
    Post(w): Post<Removal>,
) -> Result<impl IntoResponse, ClassError> {
    let event = l
        .store
        .remove(class.id, &w.student)
        .await?
        .ok_or(ClassError::NoSuchRow)?;
    Ok(Json(serde_json::json!({ "removed": true, "event": event })))
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
        assert_eq!(shown_name("", "abcdef12"), "a student · 33004df5");
        assert_eq!(
            shown_name("<b>Ann</b>", "abcdef12"),
            "<b>Ann</b> · 33004df5"
        );
        // 500 ids counted up, which share their first characters, are 500 names.
        let names: std::collections::HashSet<String> = (0..500)
            .map(|i| shown_name("", &format!("student{i:04}abcdef")))
            .collect();
        assert_eq!(names.len(), 500);
    }
}
