//! A hub's own routes beside the class routes: its terms (which tell the page it is on a
//! hub), a new class for a teacher, and the load balancer's probes.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;

use super::store::Created;
use super::HubStore;
use crate::class::limits::{CLASSES_PER_WINDOW, CREATION_WINDOW};
use crate::class::paths;
use crate::class::routes::{AddressAllowed, ClassError, ClassState};
use crate::class::{new_code, new_key};

type Hub<S> = Arc<ClassState<S>>;

pub fn router<S: HubStore>(state: Hub<S>) -> Router {
    Router::new()
        .route(paths::HUB_TERMS, get(terms::<S>))
        .route(paths::HUB_CLASSES, post(create::<S>))
        .route(paths::HEALTHZ, get(healthz))
        .route(paths::READYZ, get(readyz::<S>))
        .with_state(state)
}

/// `GET /hub/terms`: how long a class takes runs and how long it is kept.
async fn terms<S: HubStore>(State(h): State<Hub<S>>) -> impl IntoResponse {
    Json(h.terms())
}

/// A class just made, for the teacher's browser (which keeps the key).
#[derive(Serialize)]
struct Made {
    code: String,
    key: String,
    join: String,
    /// The teacher's view, relative to the hub's page.
    teacher: String,
    #[serde(flatten)]
    terms: Option<crate::class::routes::HubTerms>,
}

/// Attempts at a code no class has before giving up (31^6 codes: a second is rare).
const DRAWS: usize = 5;

/// A request to start a class as the hub's own page sends it: a JSON object with its
/// content type (which a form or a plain request of another site cannot send without a
/// preflight the hub never grants) and, where the browser says, from the same site. So no
/// other site can make a visitor's browser spend their school's classes.
pub struct SameSite;

/// Whether a request's headers are the hub's own page's: a JSON body said so, and, where
/// the browser says, from the same site (or typed by the user: "none").
pub fn same_site(headers: &HeaderMap) -> bool {
    let said = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let json = said(header::CONTENT_TYPE.as_str()).is_some_and(|t| {
        t.split(';')
            .next()
            .is_some_and(|t| t.trim() == "application/json")
    });
    let site = said("sec-fetch-site");
    json && site.is_none_or(|s| s == "same-origin" || s == "none")
}

impl<S: Send + Sync> FromRequest<S> for SameSite {
    type Rejection = ClassError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ClassError> {
        if !same_site(req.headers()) {
            return Err(ClassError::CrossSite);
        }
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|r| ClassError::Malformed {
                what: "a request for a class",
                why: r.body_text(),
            })?;
        serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&bytes)
            .map(|_| SameSite)
            .map_err(|e| ClassError::Malformed {
                what: "a request for a class",
                why: e.to_string(),
            })
    }
}

/// `POST /hub/classes` with `{}`: a new class, unless this address started its most this
/// hour. Its answer carries the teacher's key: no cache keeps it.
async fn create<S: HubStore>(
    State(h): State<Hub<S>>,
    AddressAllowed(from): AddressAllowed,
    headers: HeaderMap,
    _: SameSite,
) -> Result<impl IntoResponse, ClassError> {
    if h.is_stopping() {
        return Err(ClassError::Stopping);
    }
    let random = ClassError::NoRandomness;
    for _ in 0..DRAWS {
        let (code, key) = (new_code().map_err(random)?, new_key().map_err(random)?);
        let made = h
            .store()
            .create(&code, &key, from.ip(), CLASSES_PER_WINDOW, CREATION_WINDOW)
            .await?;
        match made {
            Created::Made(class) => {
                h.forget(&class.code);
                let join = h.join(&class, &headers).remove(0);
                tracing::info!(class = class.id, "a class started");
                // The class holds the key's digest; the teacher gets the key itself.
                let teacher = format!("class.html#class={}&key={key}", class.code);
                return Ok((
                    StatusCode::CREATED,
                    [(header::CACHE_CONTROL, "no-store")],
                    Json(Made {
                        code: class.code,
                        key,
                        join,
                        teacher,
                        terms: h.terms(),
                    }),
                ));
            }
            Created::TooMany => {
                return Err(ClassError::TooManyClasses {
                    wait: CREATION_WINDOW,
                })
            }
            Created::CodeTaken => continue,
        }
    }
    Err(ClassError::Output(
        "no free join code found; ask again".into(),
    ))
}

/// `GET /healthz`: the process answers.
async fn healthz() -> impl IntoResponse {
    Json(serde_json::json!({ "alive": true }))
}

/// `GET /readyz`: the database answers (on a connection of its own), changes are heard,
/// and the instance is not stopping; 503 otherwise. The reason goes to the logs only: the
/// public is not told where the database is or how it failed.
async fn readyz<S: HubStore>(State(h): State<Hub<S>>) -> impl IntoResponse {
    let why = if h.is_stopping() {
        Some("stopping".to_string())
    } else {
        h.store().ready().await.err().map(|e| e.to_string())
    };
    let ready = why.is_none();
    if let Some(why) = why {
        tracing::warn!(%why, "not ready");
    }
    let status = match ready {
        true => StatusCode::OK,
        false => StatusCode::SERVICE_UNAVAILABLE,
    };
    (status, Json(serde_json::json!({ "ready": ready })))
}
