//! The atlas in the hub's PostgreSQL: a run counted in one call of `ticklab_atlas_put` (one
//! round trip, answered once committed: the run kept, and queued), a closed class's rows in
//! one transaction, the queue rolled into the cells' figures (`ticklab_atlas_roll`), and
//! the cells read from their figures, never from the raw runs.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

use ticklab::atlas::{mode_of, read_bucket, Cell, CellClock, CellKey, Submission};
use ticklab::digest::Digest;

use crate::class::store::StoreError;
use crate::hub::store::PgStore;

/// Who a run is counted for: an address (its salted digest is made in the database), or
/// the digest a class's row kept.
pub enum Sender<'a> {
    Address(IpAddr),
    Digest(&'a str),
}

/// What adding a closed class did.
#[derive(Debug, PartialEq, Eq)]
pub enum ClassAdded {
    /// Its rows: how many were counted, and how many not (a sender already counted in the
    /// cell that day, or a row no atlas takes).
    Added { counted: i64, not_counted: i64 },
    /// The class is still open.
    Open,
    /// It was added before.
    Already,
}

/// The text a key's "none" is kept as.
fn text_of<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map_or(String::new(), T::to_string)
}

/// The statement that counts one run: see `ticklab_atlas_put`.
const PUT: &str = "SELECT ticklab_atlas_put(coalesce($1, ticklab_sender($2)), $3, $4, $5, $6, $7, \
                   $8::text::jsonb, $9, $10, $11, $12)";

/// The parameters of [`PUT`] for run `s` of `sender`.
struct PutArgs {
    digest: Option<String>,
    address: Option<IpAddr>,
    engine: String,
    version: i32,
    os: String,
    isolated: String,
    cpu_family: String,
    body: String,
    clocks: Vec<String>,
    ticks: Vec<f64>,
    reads: Vec<f64>,
    verdicts: Vec<String>,
}

impl PutArgs {
    fn new(sender: &Sender, s: &Submission) -> Self {
        let (digest, address) = match sender {
            Sender::Address(ip) => (None, Some(*ip)),
            Sender::Digest(d) => (Some(d.to_string()), None),
        };
        // NaN is "no value" to the function; the values are counted as rounded here.
        let nan = f64::NAN;
        Self {
            digest,
            address,
            engine: s.engine.clone(),
            version: s.version.map_or(0, |v| v as i32),
            os: s.os.clone(),
            isolated: text_of(&s.isolated),
            cpu_family: text_of(&s.cpu_family),
            body: serde_json::to_string(s).unwrap_or_default(),
            clocks: s.clocks.iter().map(|c| c.clock.clone()).collect(),
            ticks: s
                .clocks
                .iter()
                .map(|c| c.tick_ns.map_or(nan, mode_of))
                .collect(),
            reads: s
                .clocks
                .iter()
                .map(|c| c.read_ns.map_or(nan, read_bucket))
                .collect(),
            verdicts: s.clocks.iter().map(|c| c.verdict.clone()).collect(),
        }
    }

    fn params(&self) -> [&(dyn tokio_postgres::types::ToSql + Sync); 12] {
        [
            &self.digest,
            &self.address,
            &self.engine,
            &self.version,
            &self.os,
            &self.isolated,
            &self.cpu_family,
            &self.body,
            &self.clocks,
            &self.ticks,
            &self.reads,
            &self.verdicts,
        ]
    }
}

impl PgStore {
    /// Counts run `s` of `sender` into its cell: false when the sender already counted in
    /// that cell today (nothing is kept then).
    pub async fn atlas_put(&self, sender: Sender<'_>, s: &Submission) -> Result<bool, StoreError> {
        let args = PutArgs::new(&sender, s);
        let r = self.query(PUT, &args.params()).await?;
        Ok(r[0].get::<_, String>(0) == "counted")
    }

    /// Adds closed class `class`'s rows, once: each counted for the sender who sent it.
    pub async fn atlas_class(&self, class: i64) -> Result<ClassAdded, StoreError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(|e| self.failed(e))?;
        let marked = tx
            .query(
                "UPDATE class SET atlas_at = now()
                 WHERE id = $1 AND atlas_at IS NULL AND closed_at IS NOT NULL RETURNING id",
                &[&class],
            )
            .await
            .map_err(|e| self.failed(e))?;
        if marked.is_empty() {
            let r = tx
                .query(
                    "SELECT atlas_at IS NOT NULL FROM class WHERE id = $1",
                    &[&class],
                )
                .await
                .map_err(|e| self.failed(e))?;
            return Ok(match r.first().map(|r| r.get::<_, bool>(0)) {
                Some(true) => ClassAdded::Already,
                _ => ClassAdded::Open,
            });
        }
        let rows = tx
            .query(
                "SELECT digest, sender FROM run WHERE class = $1 ORDER BY event",
                &[&class],
            )
            .await
            .map_err(|e| self.failed(e))?;
        let put = tx.prepare(PUT).await.map_err(|e| self.failed(e))?;
        let (mut counted, mut not_counted) = (0, 0);
        for r in rows {
            let (text, sender): (String, Option<String>) = (r.get(0), r.get(1));
            let run = Digest::from_json(&text).and_then(|d| Submission::of(&d));
            let (Ok(run), Some(sender)) = (run, sender) else {
                not_counted += 1;
                continue;
            };
            let args = PutArgs::new(&Sender::Digest(&sender), &run);
            let done = tx
                .query(&put, &args.params())
                .await
                .map_err(|e| self.failed(e))?;
            match done[0].get::<_, String>(0) == "counted" {
                true => counted += 1,
                false => not_counted += 1,
            }
        }
        tx.commit().await.map_err(|e| self.failed(e))?;
        Ok(ClassAdded::Added {
            counted,
            not_counted,
        })
    }

    /// The cells with runs from at least `k` distinct senders, with their figures: the
    /// cells, then their figures in one statement.
    pub async fn atlas_cells(&self, k: i64) -> Result<Vec<Cell>, StoreError> {
        let cells = self
            .query(
                "SELECT id, engine, version, os, isolated, cpu_family, senders, runs
                 FROM atlas_cell WHERE senders >= $1
                 ORDER BY engine, version, os, isolated, cpu_family",
                &[&k],
            )
            .await?;
        let mut out: Vec<Cell> = Vec::with_capacity(cells.len());
        let mut at: HashMap<i64, usize> = HashMap::new();
        for r in &cells {
            let (version, isolated, family): (i32, String, String) = (r.get(2), r.get(4), r.get(5));
            at.insert(r.get(0), out.len());
            out.push(Cell {
                key: CellKey {
                    engine: r.get(1),
                    version: (version > 0).then_some(version as u32),
                    os: r.get(3),
                    isolated: isolated.parse().ok(),
                    cpu_family: (!family.is_empty()).then_some(family),
                },
                senders: r.get(6),
                runs: r.get(7),
                clocks: Vec::new(),
            });
        }
        // 0: a tick and its runs; 1: the median read cost; 2: a verdict and its runs. The
        // shown cells joined again (a hash join), not looked up one by one.
        let figures = self
            .query(
                "WITH shown AS (SELECT id FROM atlas_cell WHERE senders >= $1)
                 SELECT 0, cell, clock, tick_ns, NULL::text, runs
                 FROM atlas_tick JOIN shown ON shown.id = cell
                 UNION ALL SELECT 1, cell, clock, read_median_ns, NULL, 0
                 FROM atlas_clock JOIN shown ON shown.id = cell
                 UNION ALL SELECT 2, cell, clock, NULL, verdict, runs
                 FROM atlas_verdict JOIN shown ON shown.id = cell",
                &[&k],
            )
            .await?;
        for r in figures {
            let Some(&i) = at.get(&r.get::<_, i64>(1)) else {
                continue;
            };
            let clock: String = r.get(2);
            let cell = &mut out[i];
            let c = match cell.clocks.iter().position(|c| c.clock == clock) {
                Some(p) => &mut cell.clocks[p],
                None => {
                    cell.clocks.push(CellClock {
                        clock,
                        ticks: vec![],
                        read_median_ns: None,
                        verdicts: vec![],
                    });
                    cell.clocks.last_mut().expect("just pushed")
                }
            };
            let (x, runs): (Option<f64>, i64) = (r.get(3), r.get(5));
            match r.get::<_, i32>(0) {
                0 => c.ticks.extend(x.map(|t| (t, runs))),
                1 => c.read_median_ns = x,
                _ => c.verdicts.push((r.get(4), runs)),
            }
        }
        for cell in &mut out {
            cell.clocks.sort_by(|a, b| a.clock.cmp(&b.clock));
        }
        Ok(out)
    }

    /// Brings the cells' figures up to date with up to `most` runs of the queue, unless
    /// another instance is at it: how many.
    pub async fn atlas_roll(&self, most: i32) -> Result<i64, StoreError> {
        let r = self
            .query("SELECT ticklab_atlas_roll($1)", &[&most])
            .await?;
        Ok(r[0].get(0))
    }

    /// Deletes the raw runs older than `keep`, and the senders who have not counted since:
    /// how many runs went.
    pub async fn atlas_sweep(&self, keep: Duration) -> Result<i64, StoreError> {
        let r = self
            .query(
                "SELECT ticklab_atlas_sweep(make_interval(secs => $1))",
                &[&keep.as_secs_f64()],
            )
            .await?;
        Ok(r[0].get(0))
    }
}
