//! The atlas on a hub: runs added by whoever made them (the page after its run, the command
//! with `--share`, a teacher with a closed class), counted once a sender a cell a day; the
//! cells with runs from at least k distinct senders, as a page, JSON and CSV.

mod page;
pub mod store;

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::{Deserialize, Serialize};
use ticklab::atlas::{Cell, Submission};
use ticklab::digest::Digest;

use super::store::PgStore;
use crate::class::extract::{AddressAllowed, Teacher};
use crate::class::limits::{Limit, Sender, ATLAS_MEMORY, ATLAS_PER_MINUTE, MAX_POST, RATE_WINDOW};
use crate::class::paths;
use crate::class::routes::{ClassError, ClassState};
use store::ClassAdded;

/// The licence the atlas's aggregates are published under.
pub const LICENCE: &str = "CC0-1.0";
/// The licence's name, and where to read it.
pub const LICENCE_NAME: &str = "CC0 1.0 (public domain dedication)";
pub const LICENCE_URL: &str = "https://creativecommons.org/publicdomain/zero/1.0/";

/// What the atlas's routes share beside the hub's state.
pub struct Atlas {
    /// A cell is shown from this many distinct senders.
    pub k: i64,
    /// How long a raw run is kept.
    pub keep: Duration,
    per_sender: Limit<Sender>,
    /// The shown cells, read at most once an [`ATLAS_MEMORY`] by this instance.
    shown: moka::sync::Cache<(), Arc<Shown>>,
    /// Held while the cells are read: the readers who found them gone wait for that one
    /// read, not each their own.
    reading: tokio::sync::Mutex<()>,
}

/// The cells shown, and their JSON and CSV as answered.
struct Shown {
    cells: Vec<Cell>,
    json: Bytes,
    csv: String,
}

impl Atlas {
    pub fn new(k: u32, keep: Duration) -> Self {
        Self {
            k: i64::from(k),
            keep,
            per_sender: Limit::new(ATLAS_PER_MINUTE, RATE_WINDOW),
            shown: moka::sync::Cache::builder()
                .max_capacity(1)
                .time_to_live(ATLAS_MEMORY)
                .build(),
            reading: tokio::sync::Mutex::new(()),
        }
    }

    /// The cells shown now, and their JSON and CSV.
    async fn shown(&self, store: &PgStore) -> Result<Arc<Shown>, ClassError> {
        if let Some(c) = self.shown.get(&()) {
            return Ok(c);
        }
        let _one = self.reading.lock().await;
        if let Some(c) = self.shown.get(&()) {
            return Ok(c);
        }
        let cells = store.atlas_cells(self.k).await?;
        let json = serde_json::to_vec(&serde_json::json!({
            "licence": LICENCE,
            "licence_url": LICENCE_URL,
            "k": self.k,
            "raw_runs_kept_days": self.keep.as_secs() / 86_400,
            "schema": "https://github.com/ticklab/ticklab/blob/main/docs/guide/atlas.md",
            "cells": cells.iter().map(Cell::published).collect::<Vec<_>>(),
        }))
        .map_err(|e| ClassError::Output(e.to_string()))?;
        let shown = Arc::new(Shown {
            csv: ticklab::atlas::csv(&cells),
            json: Bytes::from(json),
            cells,
        });
        self.shown.insert((), shown.clone());
        Ok(shown)
    }
}

type Hub = Arc<ClassState<PgStore>>;

/// How often an instance brings the cells' figures up to date with the runs queued (one
/// instance at a time does; the others find it busy and wait for the next turn).
const ROLL_EVERY: Duration = Duration::from_millis(250);
/// Most runs one roll takes: a transaction of a second or so at most.
const ROLL_MOST: i32 = 20_000;

/// Every [`ROLL_EVERY`], the queued runs into their cells' figures, a batch at a time
/// until the queue is shorter than a batch.
pub async fn roller(store: PgStore) {
    let mut every = tokio::time::interval(ROLL_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        loop {
            match store.atlas_roll(ROLL_MOST).await {
                Ok(n) if n == i64::from(ROLL_MOST) => continue,
                Ok(_) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "the atlas's roll failed; trying again later");
                    break;
                }
            }
        }
    }
}

pub fn router(state: Hub, atlas: Arc<Atlas>) -> Router {
    Router::new()
        .route(paths::ATLAS, get(page))
        .route(paths::ATLAS_JSON, get(cells_json))
        .route(paths::ATLAS_CSV, get(cells_csv))
        .route(paths::ATLAS_RUNS, post(add_run))
        .route(paths::CLASS_ATLAS, post(add_class))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_POST))
        .layer(Extension(atlas))
        .with_state(state)
}

/// A run for the atlas as sent: a page's digest (the one a class or a result link takes:
/// the hub reduces it), or a run already reduced (the command's, which it prints first).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Posted {
    digest: Option<Box<serde_json::value::RawValue>>,
    run: Option<Submission>,
}

/// What an added run answers.
#[derive(Serialize)]
struct Added {
    counted: bool,
    /// Why not, when not.
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<&'static str>,
    /// Its cell in words.
    cell: String,
    /// What the atlas keeps of it.
    kept: Submission,
    /// The atlas's page, this run's cell marked.
    atlas: String,
}

/// `POST /atlas/runs`: a run counted into its cell, unless its sender counted there today.
async fn add_run(
    State(h): State<Hub>,
    Extension(atlas): Extension<Arc<Atlas>>,
    AddressAllowed(from): AddressAllowed,
    headers: axum::http::HeaderMap,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<impl IntoResponse, ClassError> {
    if h.is_stopping() {
        return Err(ClassError::Stopping);
    }
    // Another site's page cannot make its visitors' browsers add runs: each would count as
    // a sender of its own.
    if !super::routes::same_site(&headers) {
        return Err(ClassError::CrossSite);
    }
    atlas
        .per_sender
        .take(&from)
        .map_err(|wait| ClassError::AtlasTooFast { wait })?;
    let body = body.map_err(|r| match r.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ClassError::TooLarge,
        _ => ClassError::AtlasRun(r.body_text()),
    })?;
    let p: Posted =
        serde_json::from_slice(&body).map_err(|e| ClassError::AtlasRun(e.to_string()))?;
    let run = match (p.digest, p.run) {
        (Some(d), None) => Digest::from_json(d.get()).and_then(|d| Submission::of(&d)),
        (None, Some(r)) => r.check(),
        _ => Err("send either {\"digest\": ...} or {\"run\": ...}".into()),
    }
    .map_err(ClassError::AtlasRun)?;
    let counted = h
        .store()
        .atlas_put(store::Sender::Address(from.ip()), &run)
        .await?;
    let status = if counted {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((
        status,
        Json(Added {
            counted,
            why: (!counted)
                .then_some("this address has counted in this cell today: once a day a cell"),
            cell: run.cell().name(),
            atlas: page::link(&run),
            kept: run,
        }),
    ))
}

/// `POST /class/atlas`: the teacher's closed class, every row counted for the sender who
/// sent it (once a cell a day each), once.
async fn add_class(
    State(h): State<Hub>,
    Teacher(class): Teacher,
) -> Result<impl IntoResponse, ClassError> {
    match h.store().atlas_class(class.id).await? {
        ClassAdded::Added {
            counted,
            not_counted,
        } => Ok(Json(serde_json::json!({
            "added": true,
            "counted": counted,
            "not_counted": not_counted,
        }))),
        ClassAdded::Open => Err(ClassError::ClassOpen),
        ClassAdded::Already => Err(ClassError::AlreadyAdded),
    }
}

/// The filters and the visitor's own cell, from the page's query.
#[derive(Deserialize, Default, Clone)]
pub struct Filters {
    engine: Option<String>,
    os: Option<String>,
    isolated: Option<bool>,
    /// The visitor's run: its cell's version and its performance.now tick.
    version: Option<u32>,
    tick: Option<f64>,
}

/// `GET /atlas`: the page.
async fn page(
    State(h): State<Hub>,
    Extension(atlas): Extension<Arc<Atlas>>,
    q: Result<Query<Filters>, axum::extract::rejection::QueryRejection>,
) -> Result<impl IntoResponse, ClassError> {
    let Query(f) = q.map_err(|e| ClassError::AtlasRun(e.body_text()))?;
    let shown = atlas.shown(h.store()).await?;
    Ok((
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        page::render(&shown.cells, &f, atlas.k),
    ))
}

/// `GET /atlas/cells.json`: the shown cells, with the terms they are published under.
async fn cells_json(
    State(h): State<Hub>,
    Extension(atlas): Extension<Arc<Atlas>>,
) -> Result<impl IntoResponse, ClassError> {
    let shown = atlas.shown(h.store()).await?;
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        shown.json.clone(),
    ))
}

/// `GET /atlas/cells.csv`: the shown cells, a row per cell, clock and tick.
async fn cells_csv(
    State(h): State<Hub>,
    Extension(atlas): Extension<Arc<Atlas>>,
) -> Result<impl IntoResponse, ClassError> {
    let shown = atlas.shown(h.store()).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"ticklab-atlas.csv\"",
            ),
        ],
        shown.csv.clone(),
    ))
}
