//! `ticklab hub`: the page and every class at once, on PostgreSQL. Teachers start classes
//! from the page ([`routes`]); students join at the hub's URL; the class routes are those
//! of `ticklab class` over every class of the database. Any number of instances share the
//! database and nothing else (a change reaches the live views of every instance through
//! LISTEN/NOTIFY); each sweeps the classes past their day and the rows past their keep.
//! SIGTERM drains: posts are sent elsewhere (503), those in flight finish, live views are
//! told to come again (to another instance).

pub mod atlas;
pub mod classes;
mod lookup;
mod routes;
pub mod store;

use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::class::limits::{CREATION_WINDOW, OPEN_FOR, SWEEP_EVERY};
use crate::class::routes::ClassState;
use crate::class::store::{ClassStore, StoreError};
use crate::cli::HubArgs;
use crate::error::CliError;
use crate::serve::{self, Site};
use store::{Created, PgStore, Swept};

/// What a hub needs of its database beyond a class's store: classes made under a limit
/// per sender, swept past their day and their keep, and readiness. PostgreSQL's
/// ([`PgStore`]) is the one there is; the hub's routes know only this.
pub trait HubStore: ClassStore {
    /// A class made with `code` and `key` for `sender`, unless it made `most` within
    /// `window` (counted across every instance).
    fn create(
        &self,
        code: &str,
        key: &str,
        sender: IpAddr,
        most: i64,
        window: Duration,
    ) -> impl Future<Output = Result<Created, StoreError>> + Send;
    /// Closes the classes past their day, deletes those closed `keep` ago, forgets the
    /// creations older than `window`.
    fn sweep(
        &self,
        keep: Duration,
        window: Duration,
    ) -> impl Future<Output = Result<Swept, StoreError>> + Send;
    /// Whether the database answers and this instance hears its changes.
    fn ready(&self) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// Connects to the database, trying again for up to `wait` while it is out of reach (a
/// container started before its database).
async fn connect(a: &HubArgs, open_for: Duration) -> Result<PgStore, CliError> {
    let until = tokio::time::Instant::now() + Duration::from_secs(u64::from(a.wait_db));
    loop {
        match PgStore::connect(&a.database_url, a.pool as usize, open_for).await {
            Ok(s) => return Ok(s),
            Err(e) if e.unavailable() && tokio::time::Instant::now() < until => {
                tracing::warn!(error = %e, "the database is out of reach; trying again");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Every [`SWEEP_EVERY`]: closes the classes open their day, deletes those closed `keep`
/// ago with their rows, forgets the creations the rate limit no longer counts.
async fn sweeper(store: PgStore, keep: Duration, atlas_keep: Duration) {
    let mut every = tokio::time::interval(SWEEP_EVERY);
    loop {
        every.tick().await;
        match store.atlas_sweep(atlas_keep).await {
            Ok(n) if n > 0 => tracing::info!(runs = n, "swept the atlas's raw runs"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "the atlas's sweep failed; trying again later"),
        }
        match store.sweep(keep, CREATION_WINDOW).await {
            Ok(s) if s.closed > 0 || s.deleted > 0 => {
                tracing::info!(closed = s.closed, deleted = s.deleted, "swept the classes")
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "the sweep failed; trying again later"),
        }
    }
}

pub fn hub(a: HubArgs) -> Result<(), CliError> {
    crate::logs::init(a.log_format);
    serve::raise_descriptor_limit();
    let (site, what) = Site::new(a.root.as_deref(), None)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    rt.block_on(async move {
        let keep = Duration::from_secs(u64::from(a.keep_days) * 86_400);
        let store = connect(&a, OPEN_FOR).await?;
        let (listener, local) = serve::listen(a.bind, a.port).await?;
        let (stop, stopping) = tokio::sync::watch::channel(false);
        let classes = classes::HubClasses {
            public: a.public_url.clone(),
            open_for: OPEN_FOR,
            keep_for: keep,
            lookups: lookup::Lookups::default(),
        };
        let state =
            Arc::new(ClassState::new(store.clone(), classes, stopping).behind_proxy(a.trust_proxy));
        let atlas_keep = Duration::from_secs(u64::from(a.atlas_keep_days) * 86_400);
        tokio::spawn(sweeper(store.clone(), keep, atlas_keep));
        tokio::spawn(atlas::roller(store.clone()));
        let atlas = Arc::new(atlas::Atlas::new(a.atlas_k, atlas_keep));
        let router = crate::class::routes::router(state.clone())
            .merge(routes::router(state.clone()))
            .merge(atlas::router(state, atlas));
        // Always isolated: behind HTTPS, students' pages get the finer clocks.
        let app = serve::app(site, true, Some(router));
        tracing::info!(
            address = %local,
            database = store.place(),
            page = %what,
            keep_days = a.keep_days,
            "listening"
        );
        println!("ticklab hub: listening on {local}");
        let drain = async move {
            serve::stop_signal().await;
            tracing::info!("stopping: no new posts, finishing those in flight");
            let _ = stop.send(true);
        };
        serve::run(listener, app, serve::connection_cap(), drain).await;
        tracing::info!("stopped");
        Ok(())
    })
}
