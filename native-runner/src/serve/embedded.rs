//! The page the binary carries (build.rs puts the built site in), served from memory with
//! what a file server gives: its type, a validator (an ETag, so a browser's revalidation
//! costs a 304), and nothing for a path that is not one of its files.

use std::collections::HashMap;

use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

include!(concat!(env!("OUT_DIR"), "/site.rs"));

/// One file of the page: its bytes, its type and its validator.
struct File {
    bytes: &'static [u8],
    mime: &'static str,
    etag: HeaderValue,
}

/// The page the binary carries.
pub struct Embedded {
    files: HashMap<&'static str, File>,
}

/// The media type of a file, by its name.
fn mime(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "webmanifest" => "application/manifest+json",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "ico" => "image/x-icon",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// FNV-1a over the bytes: a validator that changes when they do.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Embedded {
    /// The page this binary carries, when it was built with one.
    pub fn page() -> Option<Self> {
        FILES.iter().any(|(p, _)| *p == "index.html").then(|| Self {
            files: FILES
                .iter()
                .map(|&(path, bytes)| {
                    let etag = HeaderValue::from_str(&format!(
                        "\"{:016x}-{:x}\"",
                        fnv(bytes),
                        bytes.len()
                    ))
                    .expect("hex digits are a header value");
                    (
                        path,
                        File {
                            bytes,
                            mime: mime(path),
                            etag,
                        },
                    )
                })
                .collect(),
        })
    }

    /// How many files it holds, and their bytes in all.
    pub fn size(&self) -> (usize, usize) {
        (
            self.files.len(),
            self.files.values().map(|f| f.bytes.len()).sum(),
        )
    }

    /// The response to a GET or HEAD of `req`: the file, a 304 when the browser holds it
    /// already, or 404. (The guard in front has refused other methods and paths that leave
    /// the site.)
    pub fn respond(&self, req: &Request) -> Response {
        let path = req.uri().path();
        let decoded = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
        let mut rel = decoded.trim_start_matches('/').to_string();
        if rel.is_empty() || rel.ends_with('/') {
            rel.push_str("index.html");
        }
        let Some(f) = self.files.get(rel.as_str()) else {
            return (StatusCode::NOT_FOUND, "not found\n").into_response();
        };
        let fresh = req
            .headers()
            .get(header::IF_NONE_MATCH)
            .is_some_and(|v| v.as_bytes() == f.etag.as_bytes());
        if fresh {
            return (StatusCode::NOT_MODIFIED, [(header::ETAG, f.etag.clone())]).into_response();
        }
        (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static(f.mime)),
                (header::ETAG, f.etag.clone()),
            ],
            f.bytes,
        )
            .into_response()
    }
}
