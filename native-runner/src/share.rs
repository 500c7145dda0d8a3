//! `--share HUB`: runs added to a hub's atlas (over HTTPS, or http for a hub on a LAN),
//! each printed field by field before it is sent, then what the hub answered. Only what
//! [`Submission`] holds is sent.

use std::time::Duration;

use axum::body::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use ticklab::atlas::Submission;
use ticklab::report::Report;

use crate::error::CliError;

/// How long a hub may take to answer one run.
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// An error and its causes, each said: "client error (Connect): received corrupt message".
fn chain(e: &dyn std::error::Error) -> String {
    let mut said = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        said = format!("{said}: {c}");
        cause = c.source();
    }
    said
}

/// The runs of `reports` sent to `hub`'s atlas, each printed (to stderr, beside the
/// command's own output) before it goes. A report the atlas does not take is said and
/// skipped; a hub that refuses or cannot be reached is an error.
pub fn share(hub: &str, reports: &[(&str, &Report)]) -> Result<(), CliError> {
    let rt = crate::serve::runtime()?;
    // HTTPS checked against the Mozilla store's roots, or plain http when the URL says so.
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_webpki_roots()
        .https_or_http()
        .enable_http1()
        .build();
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build(connector);
    let url = format!("{hub}{}", crate::class::paths::ATLAS_RUNS);
    let mut sent = 0;
    for (what, report) in reports {
        let run = match Submission::of_report(report) {
            Ok(r) => r,
            Err(why) => {
                eprintln!("atlas: {what}: not sent, {why}");
                continue;
            }
        };
        eprintln!("atlas: sending {what} to {url}, this and nothing else:");
        for line in run.lines() {
            eprintln!("  {line}");
        }
        let body = serde_json::to_vec(&serde_json::json!({ "run": run }))
            .map_err(|e| CliError::Measurement(format!("the run does not write: {e}")))?;
        let req = axum::http::Request::post(&url)
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| CliError::Usage(format!("--share {hub}: {e}")))?;
        let answer = rt.block_on(async {
            let r = tokio::time::timeout(ANSWER_WITHIN, client.request(req))
                .await
                .map_err(|_| format!("no answer within {} s", ANSWER_WITHIN.as_secs()))?
                .map_err(|e| format!("cannot reach it: {}", chain(&e)))?;
            let status = r.status();
            let bytes = tokio::time::timeout(ANSWER_WITHIN, r.into_body().collect())
                .await
                .map_err(|_| "its answer stalled".to_string())?
                .map_err(|e| format!("its answer broke off: {e}"))?
                .to_bytes();
            Ok::<_, String>((
                status,
                serde_json::from_slice::<serde_json::Value>(&bytes).unwrap_or_default(),
            ))
        });
        let (status, v) =
            answer.map_err(|why| CliError::Measurement(format!("atlas: {hub}: {why}")))?;
        let text = |k: &str| v[k].as_str().unwrap_or("").to_string();
        match (status.as_u16(), v["counted"].as_bool()) {
            (201, Some(true)) => eprintln!(
                "atlas: counted in {}; see {hub}/{}",
                text("cell"),
                text("atlas")
            ),
            (200, Some(false)) => {
                eprintln!("atlas: not counted in {}: {}", text("cell"), text("why"))
            }
            (s, _) => {
                return Err(CliError::Measurement(format!(
                    "atlas: {hub} refused {what} ({s}): {}",
                    if v["error"].is_string() {
                        text("error")
                    } else {
                        "no reason given".into()
                    }
                )))
            }
        }
        sent += 1;
    }
    if sent == 0 {
        return Err(CliError::Measurement("atlas: no run to send".into()));
    }
    Ok(())
}
