//! A hub's own routes beside the class routes: its terms (which tell the page it is on a
//! hub), a new class for a teacher, and the load balancer's probes.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;

use crate::class::limits::{CLASSES_PER_WINDOW, CREATION_WINDOW};
use crate::class::paths;
use crate::class::routes::{AddressAllowed, ClassError, ClassState};
use crate::class::store::postgres::{Created, PgStore};
use crate::class::{new_code, new_key};

type Hub = Arc<ClassState<PgStore>>;

pub fn router(state: Hub) -> Router {
    Router::new()
        .route(paths::HUB_TERMS, get(terms))
        .route(paths::HUB_CLASSES, post(create))
        .route(paths::HEALTHZ, get(healthz))
        .route(paths::READYZ, get(readyz))
        .with_state(state)
}

/// `GET /hub/terms`: how long a class takes runs and how long it is kept.
async fn terms(State(h): State<Hub>) -> impl IntoResponse {
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

/// `POST /hub/classes`: a new class, unless this address started its most this hour.
async fn create(
    State(h): State<Hub>,
    AddressAllowed(from): AddressAllowed,
    headers: HeaderMap,
) -> Result<impl IntoResponse, ClassError> {
    if h.is_stopping() {
        return Err(ClassError::Stopping);
    }
    let random = |e: crate::error::CliError| ClassError::Output(e.to_string());
    for _ in 0..DRAWS {
        let (code, key) = (new_code().map_err(random)?, new_key().map_err(random)?);
        let made = h
            .store()
            .create(&code, &key, from, CLASSES_PER_WINDOW, CREATION_WINDOW)
            .await?;
        match made {
            Created::Made(class) => {
                let join = h.join(&class, &headers).remove(0);
                tracing::info!(class = class.id, "a class started");
                let teacher = format!("class.html#class={}&key={}", class.code, class.key);
                return Ok((
                    StatusCode::CREATED,
                    Json(Made {
                        code: class.code,
                        key: class.key,
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

/// `GET /readyz`: the database answers, changes are heard, and the instance is not
/// stopping; 503 with the reason otherwise.
async fn readyz(State(h): State<Hub>) -> impl IntoResponse {
    let why = if h.is_stopping() {
        Some("stopping".to_string())
    } else {
        h.store().ready().await.err().map(|e| e.to_string())
    };
    match why {
        None => (StatusCode::OK, Json(serde_json::json!({ "ready": true }))),
        Some(why) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(serde_json::json!({ "ready": false, "why": why })),
        ),
    }
}
