//! The page the binary carries, embedded by rust-embed (every file of the built site but
//! its gzipped copies, which are a static host's), served from memory with what a file
//! server gives: its type (mime_guess's), a validator (its SHA-256 as an ETag, so a
//! browser's revalidation costs a 304), and nothing for a path that is not one of its files.

use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

/// The built site, as build.rs names it (`TICKLAB_CARRIED_SITE`); none when it was not
/// built.
#[derive(RustEmbed)]
#[folder = "$TICKLAB_CARRIED_SITE"]
#[exclude = "*.gz"]
#[allow_missing = true]
struct Site;

/// The page the binary carries.
pub struct Embedded;

impl Embedded {
    /// The page this binary carries, when it was built with one.
    pub fn page() -> Option<Self> {
        Site::get("index.html").map(|_| Embedded)
    }

    /// How many files it holds, and their bytes in all.
    pub fn size(&self) -> (usize, usize) {
        Site::iter().fold((0, 0), |(n, bytes), path| {
            (n + 1, bytes + Site::get(&path).map_or(0, |f| f.data.len()))
        })
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
        let Some(f) = Site::get(&rel) else {
            return (StatusCode::NOT_FOUND, "not found\n").into_response();
        };
        let hash: String = f.metadata.sha256_hash()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let etag = HeaderValue::from_str(&format!("\"{hash}\""))
            .unwrap_or(HeaderValue::from_static("\"0\""));
        let fresh = req
            .headers()
            .get(header::IF_NONE_MATCH)
            .is_some_and(|v| v.as_bytes() == etag.as_bytes());
        if fresh {
            return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response();
        }
        // Text is the site's own UTF-8 (the pages say so too; a script's worker may not).
        let mime = f.metadata.mimetype();
        let mime = if mime.starts_with("text/") {
            format!("{mime}; charset=utf-8")
        } else {
            mime.to_string()
        };
        let mime = HeaderValue::from_str(&mime)
            .unwrap_or(HeaderValue::from_static("application/octet-stream"));
        ([(header::CONTENT_TYPE, mime), (header::ETAG, etag)], f.data).into_response()
    }
}
