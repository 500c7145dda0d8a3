//! What a class's routes take from a request before they run, as axum extractors: the
//! teacher's class (by its key), the sender's share of posts, and a JSON body within the
//! route's limit.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use serde::de::DeserializeOwned;

use super::limits::Sender;
use super::refusal::ClassError;
use super::state::{client_address, ClassState};
use super::store::{Class, ClassStore};

/// The class whose teacher's key the request carries (`Authorization: Bearer KEY`), as
/// the routes' [`Classes`](super::state::Classes) find it (on a hub, the class a header
/// names).
pub struct Teacher(pub Class);

impl<S: ClassStore> FromRequestParts<Arc<ClassState<S>>> for Teacher {
    type Rejection = ClassError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<ClassState<S>>,
    ) -> Result<Self, ClassError> {
        let given = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("")
            .to_string();
        let from = sender(parts, state).await?;
        let class = state
            .classes
            .for_teacher(&state.store, &parts.headers, from, &given)
            .await?;
        Ok(Teacher(class))
    }
}

/// Who sent the request: the connection's peer or, behind a trusted proxy, the address
/// it forwarded, counted as a [`Sender`].
async fn sender<S: ClassStore>(
    parts: &mut Parts,
    state: &Arc<ClassState<S>>,
) -> Result<Sender, ClassError> {
    let ConnectInfo(peer) = ConnectInfo::<SocketAddr>::from_request_parts(parts, state)
        .await
        .map_err(|_| ClassError::NoPeer)?;
    Ok(client_address(peer.ip(), &parts.headers, state.trust_proxy).into())
}

/// The post's sender, within its share of posts a minute (counted before the body is
/// read, so a flood costs the server no more than its heads).
pub struct AddressAllowed(pub Sender);

impl<S: ClassStore> FromRequestParts<Arc<ClassState<S>>> for AddressAllowed {
    type Rejection = ClassError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<ClassState<S>>,
    ) -> Result<Self, ClassError> {
        let from = sender(parts, state).await?;
        state
            .per_address
            .take(&from)
            .map_err(|wait| ClassError::AddressTooFast { wait })?;
        Ok(AddressAllowed(from))
    }
}

/// What a body is called when it is refused: "not a class post: ...".
pub trait Named {
    /// "a class post", "a removal".
    const WHAT: &'static str;
}

/// A JSON body of `T` within the route's `DefaultBodyLimit` (413 past it), refused with
/// serde's reason otherwise. Any content type is read as JSON: the page's posts say
/// theirs, and a missing one is no reason to refuse a body that reads.
pub struct Post<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Named> FromRequest<S> for Post<T> {
    type Rejection = ClassError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ClassError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|r| {
            if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ClassError::TooLarge
            } else {
                ClassError::Malformed {
                    what: T::WHAT,
                    why: r.body_text(),
                }
            }
        })?;
        serde_json::from_slice(&bytes)
            .map(Post)
            .map_err(|e| ClassError::Malformed {
                what: T::WHAT,
                why: e.to_string(),
            })
    }
}
