//! The figures of the atlas (`ticklab hub`, release build, two instances on one throwaway
//! PostgreSQL cluster on loopback): a million synthetic runs loaded into its cells; the
//! atlas's answer on one instance, from memory and read afresh from the database; runs
//! added a second across both instances, each committed before its answer; and the
//! atlas's page over Slow 4G on a phone.

use std::net::Ipv4Addr;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use ticklab::report::Figure;
use ticklab_browser::postgres::Cluster;
use ticklab_browser::{open_phone, start_hub, HubServer};

use crate::class_bench::{digest, quantile, rate_of, request};

/// The section of BENCHMARKS.md these figures are in: the hub's.
const SECTION: u8 = crate::hub_bench::SECTION;

/// Synthetic runs loaded before the reads are timed.
const LOADED: u64 = 1_000_000;
/// Runs added over HTTP for the rate, and clients sending at once.
const RUNS: usize = 4000;
const CLIENTS: usize = 32;
/// Reads of the atlas timed on one instance.
const READS: usize = 1000;
/// Requests of its page timed.
const PAGES: usize = 300;

fn figure(name: impl Into<String>, target: &str, measured: String, met: Option<bool>) -> Figure {
    Figure::new(SECTION, name, target, measured, met)
}

/// The `i`th sender of the rate's runs.
fn sender(i: usize) -> Ipv4Addr {
    Ipv4Addr::new(127, 9, (i / 250) as u8, (i % 250 + 1) as u8)
}

/// Every figure of the atlas, with `bin` (a release `ticklab`) and Chromium for the page.
pub async fn figures(bin: &Path, chromedriver: &Path) -> Vec<Figure> {
    let setup = || -> Result<(Cluster, HubServer, HubServer), String> {
        let pg = Cluster::start()?;
        let args = ["--pool", "32", "--atlas-k", "5"];
        let a = start_hub(bin, &pg.url(), 0, &args);
        let b = start_hub(bin, &pg.url(), 0, &args);
        Ok((pg, a, b))
    };
    let (pg, a, b) = match setup() {
        Ok(t) => t,
        Err(e) => {
            return vec![figure(
                "the atlas",
                "",
                format!("not measured: {e}"),
                Some(false),
            )]
        }
    };
    let mut out = Vec::new();
    let loaded = load(&pg).and_then(|secs| Ok((secs, drained(&pg)?)));
    let cells = pg
        .psql("SELECT count(*) || ' cells, ' || sum(runs) || ' runs in their figures' FROM atlas_cell")
        .unwrap_or_default();
    match loaded {
        Ok((secs, rolled)) => out.push(figure(
            format!("{LOADED} synthetic runs loaded into the atlas (one call of its function each, two sessions), then rolled into the cells' figures"),
            "(reported)",
            format!("{secs:.0} s, the last in the figures {rolled:.1} s later: {cells}"),
            None,
        )),
        Err(e) => {
            out.push(figure("runs loaded into the atlas", "", format!("not loaded: {e}"), Some(false)));
            return out;
        }
    }
    match reads(a.port) {
        Ok((median, p99, fresh)) => {
            out.push(figure(
                format!("the atlas's answer (its cells as JSON) on one instance, {READS} reads after {LOADED} runs: 99th percentile"),
                "≤ 50 ms",
                format!("{p99:.1} ms (median {median:.2} ms)"),
                Some(p99 <= 50.0),
            ));
            out.push(figure(
                format!("the same answer read afresh from the database (an instance reads it at most every 2 s), worst of {}", fresh.len()),
                "≤ 50 ms",
                format!("{:.1} ms", fresh.iter().copied().fold(0.0, f64::max)),
                Some(fresh.iter().all(|ms| *ms <= 50.0)),
            ));
        }
        Err(e) => out.push(figure(
            "the atlas's answer",
            "≤ 50 ms",
            format!("not measured: {e}"),
            Some(false),
        )),
    }
    match pages(a.port) {
        Ok((median, p99, bytes)) => out.push(figure(
            format!("the atlas's page (the table of 60 cells and 4 plots, made for each request from the cells in memory) on one instance, {PAGES} requests: 99th percentile"),
            "(reported)",
            format!("{p99:.1} ms (median {median:.1} ms), {:.0} KB", bytes as f64 / 1000.0),
            None,
        )),
        Err(e) => out.push(figure("the atlas's page", "(reported)", format!("not measured: {e}"), Some(false))),
    }
    match rate(&a, &b) {
        Ok((per_s, secs)) => out.push(figure(
            format!("runs added to the atlas a second, two instances on one PostgreSQL ({RUNS} runs from {RUNS} senders, {CLIENTS} clients, each committed before its answer)"),
            "≥ 1000 a second",
            format!("{per_s:.0} a second ({RUNS} in {secs:.2} s)"),
            Some(per_s >= 1000.0),
        )),
        Err(e) => out.push(figure("runs added to the atlas a second", "≥ 1000 a second", format!("not measured: {e}"), Some(false))),
    }
    let page = format!("{}atlas", a.url());
    let mut loads = Vec::new();
    let mut why = String::new();
    for _ in 0..3 {
        match first_table(chromedriver, &page).await {
            Ok(ms) => loads.push(ms),
            Err(e) => why = e,
        }
    }
    let name = "the atlas's page on Slow 4G at 390 px, cold: navigation to its first table shown (the document and its style loaded), median of 3 loads";
    if loads.len() == 3 {
        loads.sort_by(f64::total_cmp);
        let mut f = figure(
            name,
            "≤ 1.5 s",
            format!("{:.2} s", loads[1] / 1000.0),
            Some(loads[1] <= 1500.0),
        );
        f.note = format!(
            "loads of {}",
            loads
                .iter()
                .map(|m| format!("{:.2} s", m / 1000.0))
                .collect::<Vec<_>>()
                .join(", ")
        );
        out.push(f);
    } else {
        out.push(figure(
            name,
            "≤ 1.5 s",
            format!("not measured: {why}"),
            Some(false),
        ));
    }
    drop((a, b, pg));
    out
}

/// LOADED runs through the atlas's own function, from as many senders, over 4 engines, 30
/// versions, 5 OS families and both isolations (1 200 cells): two sessions at once, each
/// its own engines' cells (as runs of different cells do not wait for each other), each
/// committing every 2 000 runs (one transaction of many would keep every version of a
/// cell's counts it made). The seconds it took.
fn load(pg: &Cluster) -> Result<f64, String> {
    const BATCH: u64 = 2000;
    let sql = |first: u64| {
        format!(
            "DO $$ BEGIN FOR b IN 0..{last} LOOP \
               PERFORM ticklab_atlas_put(md5(i::text), \
                 (ARRAY['Chromium','Firefox','Safari','Edge'])[1 + i % 4], (100 + (i / 7) % 30)::int, \
                 (ARRAY['Linux','Windows','macOS','Android','iOS'])[1 + (i / 3) % 5], \
                 (ARRAY['true','false'])[1 + (i / 11) % 2], '', '{{\"synthetic\":true}}'::jsonb, \
                 ARRAY['performance.now (worker)', 'Date.now'], \
                 ARRAY[(ARRAY[5000, 100000, 20000, 1000000])[1 + (i / 13) % 4]::float8, 1e6::float8], \
                 ARRAY[(20 + i % 50)::float8, (30 + i % 20)::float8], \
                 ARRAY['matches the claim', 'matches the claim']) \
               FROM generate_series({first} + b * {span}, {first} + b * {span} + {span} - 2, 2) i; \
               COMMIT; END LOOP; END $$",
            last = LOADED / 2 / BATCH - 1,
            span = 2 * BATCH,
        )
    };
    let t = Instant::now();
    std::thread::scope(|s| {
        // Even and odd numbers: Chromium's and Safari's cells, Firefox's and Edge's.
        let parts: Vec<_> = [0, 1]
            .into_iter()
            .map(|first| {
                let q = sql(first);
                s.spawn(move || pg.psql(&q))
            })
            .collect();
        parts
            .into_iter()
            .map(|p| {
                p.join()
                    .map_err(|_| "a loading session panicked".to_string())?
            })
            .collect::<Result<Vec<_>, _>>()
    })?;
    Ok(t.elapsed().as_secs_f64())
}

/// Waits, up to 5 minutes, for the instances to roll every queued run into the cells'
/// figures: the seconds it took.
fn drained(pg: &Cluster) -> Result<f64, String> {
    let t = Instant::now();
    while pg.psql("SELECT count(*) FROM atlas_new")? != "0" {
        if t.elapsed() > Duration::from_secs(300) {
            return Err("runs still queued 5 minutes after the load".into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(t.elapsed().as_secs_f64())
}

/// READS reads of the cells as JSON, back to back; then a read every 2.2 s, after the
/// instance's memory of them lapsed: (median, 99th percentile, the fresh ones), in ms.
fn reads(port: u16) -> Result<(f64, f64, Vec<f64>), String> {
    let once = || -> Result<f64, String> {
        let t = Instant::now();
        let (s, body) = request(Ipv4Addr::LOCALHOST, port, "GET", "/atlas/cells.json", "")?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        match s == 200 && body.contains("\"cells\":[{") {
            true => Ok(ms),
            false => Err(format!("{s}: {}", &body[..body.len().min(200)])),
        }
    };
    let mut all = (0..READS).map(|_| once()).collect::<Result<Vec<_>, _>>()?;
    all.sort_by(f64::total_cmp);
    let mut fresh = Vec::new();
    for _ in 0..8 {
        std::thread::sleep(Duration::from_millis(2200));
        fresh.push(once()?);
    }
    Ok((quantile(&all, 0.5), quantile(&all, 0.99), fresh))
}

/// PAGES requests of the atlas's page, back to back: (median, 99th percentile) in ms, and
/// its bytes.
fn pages(port: u16) -> Result<(f64, f64, usize), String> {
    let mut bytes = 0;
    let mut all = (0..PAGES)
        .map(|_| {
            let t = Instant::now();
            let (s, body) = request(Ipv4Addr::LOCALHOST, port, "GET", "/atlas", "")?;
            let ms = t.elapsed().as_secs_f64() * 1e3;
            bytes = body.len();
            match s == 200 && body.contains("atlas-cells") {
                true => Ok(ms),
                false => Err(format!("{s}: {}", &body[..body.len().min(200)])),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    all.sort_by(f64::total_cmp);
    Ok((quantile(&all, 0.5), quantile(&all, 0.99), bytes))
}

/// RUNS runs, each from a sender of its own, from CLIENTS clients at once, to the
/// instances in turn: the rate and the seconds.
fn rate(a: &HubServer, b: &HubServer) -> Result<(f64, f64), String> {
    let d = json!({ "digest": digest(20) }).to_string();
    let ports = [a.port, b.port];
    rate_of(RUNS, CLIENTS, |i| {
        request(sender(i), ports[i % 2], "POST", "/atlas/runs", &d).map(|(s, _)| s)
    })
}

/// One cold load of `url` on a phone over Slow 4G: ms from navigation to the page loaded
/// (its document and style: the first table is in the document's first kilobytes, and is
/// shown once the style is there), having checked the table is there.
async fn first_table(chromedriver: &Path, url: &str) -> Result<f64, String> {
    let s = open_phone(chromedriver, (390, 844)).await?;
    let r = async {
        let (down, up, rtt) = crate::load_bench::SLOW_4G;
        s.command(
            "chromium/network_conditions",
            json!({ "network_conditions": {
                "offline": false, "latency": rtt, "download_throughput": down, "upload_throughput": up,
            }}),
        )
        .await?;
        let c = &s.client;
        c.goto(url).await.map_err(|e| format!("opening {url}: {e}"))?;
        let v = c
            .execute(
                "const n = performance.getEntriesByType('navigation')[0]; \
                 return [n.loadEventEnd, n.transferSize, \
                   document.querySelectorAll('#atlas-cells tbody tr').length];",
                vec![],
            )
            .await
            .map_err(|e| format!("reading the page's times: {e}"))?;
        match (v[0].as_f64(), v[2].as_u64()) {
            (Some(ms), Some(rows)) if rows > 0 && ms > 0.0 => Ok(ms),
            _ => Err(format!("no table, or no time: {v}")),
        }
    }
    .await;
    let _ = s.client.clone().close().await;
    r
}
