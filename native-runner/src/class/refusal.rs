//! Every way a class's route says no, as one error that is its own response: the status,
//! the reason in words as `{"error": ...}`, and `Retry-After` when waiting helps.

use std::time::Duration;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::limits::{
    ADDRESS_PER_MINUTE, ATLAS_PER_MINUTE, CLASSES_PER_WINDOW, GUESSES_PER_WINDOW, MAX_NICKNAME,
    MAX_POST, MAX_ROWS, RETRY_SOON, SENDER_GUESSES_PER_WINDOW, STUDENT_PER_MINUTE,
};
use super::store::StoreError;

/// Why a request of a class was refused.
#[derive(Debug, thiserror::Error)]
pub enum ClassError {
    /// A body over [`MAX_POST`].
    #[error("a run is at most {} KB", MAX_POST / 1024)]
    TooLarge,
    /// A body that is not what the route takes.
    #[error("not {what}: {why}")]
    Malformed { what: &'static str, why: String },
    /// A join code no class here has.
    #[error("no class has this code here")]
    WrongCode,
    /// A student id no browser of the page makes.
    #[error("a student id is 8 to 64 letters, digits, - or _")]
    StudentId,
    /// A nickname too long, or with control characters.
    #[error("a nickname is at most {MAX_NICKNAME} characters, none of them controls")]
    Nickname,
    /// A digest the core's reader refused, and why.
    #[error("{0}")]
    Digest(String),
    /// A teacher's route without the teacher's key.
    #[error("this needs the teacher's key (the teacher's URL carries it)")]
    NotTeacher,
    /// The teacher closed the class.
    #[error("the teacher has closed this class")]
    ClassClosed,
    /// An address over its share of posts.
    #[error("over {ADDRESS_PER_MINUTE} posts a minute from this address")]
    AddressTooFast { wait: Duration },
    /// A student (or a whole sender) that sent too many codes no class has.
    #[error(
        "over {GUESSES_PER_WINDOW} join codes that no class has from this student (or \
         {SENDER_GUESSES_PER_WINDOW} from this address): refused for a while"
    )]
    Guessing { wait: Duration },
    /// An address that made its most classes in the window.
    #[error("this address has started {CLASSES_PER_WINDOW} classes within the hour, its most")]
    TooManyClasses { wait: Duration },
    /// The server is stopping: another instance takes the request.
    #[error("this server is stopping; ask again")]
    Stopping,
    /// A student over their share of posts.
    #[error("over {STUDENT_PER_MINUTE} posts a minute from one student")]
    StudentTooFast { wait: Duration },
    /// A class that holds its most rows.
    #[error("the class holds {MAX_ROWS} runs, its most")]
    Full,
    /// A removal of a row that is not there.
    #[error("no row of that student")]
    NoSuchRow,
    /// A QR code asked for where no address reaches this machine.
    #[error("no address students can reach")]
    NoJoinAddress,
    /// The store failed: the server's log hears why.
    #[error("{}", if .0.unavailable() {
        "the class's database is out of reach; ask again shortly"
    } else {
        "the class's database failed; the server's terminal says why"
    })]
    Store(#[from] StoreError),
    /// The server put no peer address into the request (a server without
    /// `ConnectInfo`).
    #[error("the server did not say where the post came from")]
    NoPeer,
    /// A class or a run for the atlas asked for by a request the hub's page does not send
    /// (another site's form).
    #[error(
        "this is asked from the hub's own page or the command (a JSON request of the same site)"
    )]
    CrossSite,
    /// The system gave no random bytes for a join code or a key: the server's log hears
    /// why.
    #[error("the server could not draw a join code; ask again")]
    NoRandomness(#[source] getrandom::Error),
    /// A run the atlas does not take, and why.
    #[error("not a run for the atlas: {0}")]
    AtlasRun(String),
    /// A sender over its share of runs for the atlas.
    #[error("over {ATLAS_PER_MINUTE} runs for the atlas a minute from this address")]
    AtlasTooFast { wait: Duration },
    /// A class added to the atlas before it closed.
    #[error("a class is added to the atlas once it is closed")]
    ClassOpen,
    /// A class added a second time.
    #[error("this class was added to the atlas already")]
    AlreadyAdded,
    /// A picture or an answer could not be made.
    #[error("the answer could not be made: {0}")]
    Output(String),
}

impl ClassError {
    /// The status the refusal is sent with.
    pub fn status(&self) -> StatusCode {
        match self {
            ClassError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ClassError::Malformed { .. }
            | ClassError::StudentId
            | ClassError::Nickname
            | ClassError::Digest(_)
            | ClassError::AtlasRun(_) => StatusCode::BAD_REQUEST,
            ClassError::WrongCode
            | ClassError::NotTeacher
            | ClassError::ClassClosed
            | ClassError::CrossSite => StatusCode::FORBIDDEN,
            ClassError::AddressTooFast { .. }
            | ClassError::StudentTooFast { .. }
            | ClassError::Guessing { .. }
            | ClassError::TooManyClasses { .. }
            | ClassError::AtlasTooFast { .. } => StatusCode::TOO_MANY_REQUESTS,
            // No rate: the class is as large as it gets, until its teacher removes a row.
            ClassError::Full | ClassError::ClassOpen | ClassError::AlreadyAdded => {
                StatusCode::CONFLICT
            }
            ClassError::Stopping => StatusCode::SERVICE_UNAVAILABLE,
            ClassError::Store(e) if e.unavailable() => StatusCode::SERVICE_UNAVAILABLE,
            ClassError::NoSuchRow | ClassError::NoJoinAddress => StatusCode::NOT_FOUND,
            ClassError::Store(_)
            | ClassError::NoPeer
            | ClassError::Output(_)
            | ClassError::NoRandomness(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// How long to wait before asking again, when waiting helps.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ClassError::AddressTooFast { wait }
            | ClassError::StudentTooFast { wait }
            | ClassError::Guessing { wait }
            | ClassError::TooManyClasses { wait }
            | ClassError::AtlasTooFast { wait } => Some(*wait),
            ClassError::Stopping => Some(RETRY_SOON),
            ClassError::Store(e) if e.unavailable() => Some(RETRY_SOON),
            _ => None,
        }
    }
}

impl IntoResponse for ClassError {
    fn into_response(self) -> Response {
        #[derive(Serialize)]
        struct Refused {
            error: String,
        }
        if let ClassError::Store(e) = &self {
            // The server's log hears of it; the answer says nothing of the database.
            tracing::warn!(error = %e, "a request failed on the database");
        }
        if let ClassError::NoRandomness(e) = &self {
            tracing::error!(error = %e, "no random bytes for a join code");
        }
        let mut r = (
            self.status(),
            axum::Json(Refused {
                error: self.to_string(),
            }),
        )
            .into_response();
        if let Some(wait) = self.retry_after() {
            let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_class_is_no_rate_and_says_no_wait() {
        assert_eq!(ClassError::Full.status(), StatusCode::CONFLICT);
        assert_eq!(ClassError::Full.retry_after(), None);
        let r = ClassError::Full.into_response();
        assert!(r.headers().get(header::RETRY_AFTER).is_none());
    }
}
