//! Every class of a hub's database as the class routes serve them: a post's code and a
//! teacher's [`CLASS_HEADER`] looked up through [`Lookups`] (shaped, remembered, guesses
//! counted), keys compared as digests, join URLs at the hub's public URL.

use std::time::Duration;

use axum::http::HeaderMap;
use futures_util::future::BoxFuture;
use subtle::ConstantTimeEq;

use super::lookup::{Asker, Lookups};
use crate::class::limits::Sender;
use crate::class::routes::{ClassError, Classes, HubTerms};
use crate::class::state::requested_base;
use crate::class::store::{Class, ClassStore};

/// The header that names a hub's class in a teacher's request (its key is in
/// `Authorization`).
pub const CLASS_HEADER: &str = "x-ticklab-class";

/// Every class of the store, joined at `public` (the URL students reach the hub at) or,
/// when none was given, where the request came to.
pub struct HubClasses {
    pub public: Option<String>,
    /// How long a class takes runs, and how long its rows are kept after it closes.
    pub open_for: Duration,
    pub keep_for: Duration,
    /// The lookups by code, and the guesses among them (each instance counts its own).
    pub lookups: Lookups,
}

impl<S: ClassStore> Classes<S> for HubClasses {
    fn for_post<'a>(
        &'a self,
        store: &'a S,
        code: &'a str,
        from: Sender,
        student: &'a str,
    ) -> BoxFuture<'a, Result<Option<Class>, ClassError>> {
        Box::pin(
            self.lookups
                .class(store, code, Asker::Student(from, student)),
        )
    }

    fn for_teacher<'a>(
        &'a self,
        store: &'a S,
        headers: &'a HeaderMap,
        from: Sender,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Class, ClassError>> {
        Box::pin(async move {
            let code = headers
                .get(CLASS_HEADER)
                .and_then(|v| v.to_str().ok())
                .ok_or(ClassError::NotTeacher)?;
            // A hub keeps keys as digests: the given key's digest is compared.
            let given = crate::class::sha256_hex(key);
            let is_key = |c: &Class| bool::from(given.as_bytes().ct_eq(c.key.as_bytes()));
            let found = self
                .lookups
                .class(store, code, Asker::Teacher(from))
                .await?
                .ok_or(ClassError::NotTeacher)?;
            // A class remembered here may have gone and its code been drawn again
            // elsewhere: the store is asked before its new teacher is refused.
            let class = match is_key(&found) {
                true => found,
                false => self
                    .lookups
                    .fresh(store, code)
                    .await?
                    .ok_or(ClassError::NotTeacher)?,
            };
            is_key(&class)
                .then_some(class)
                .ok_or(ClassError::NotTeacher)
        })
    }

    fn join(&self, class: &Class, headers: &HeaderMap) -> Vec<String> {
        let base = self
            .public
            .clone()
            .unwrap_or_else(|| requested_base(headers));
        vec![format!(
            "{}/?class={}",
            base.trim_end_matches('/'),
            class.code
        )]
    }

    fn terms(&self) -> Option<HubTerms> {
        Some(HubTerms {
            open_hours: self.open_for.as_secs() / 3600,
            kept_days: self.keep_for.as_secs() / 86_400,
        })
    }

    fn forget(&self, code: &str) {
        self.lookups.forget(code);
    }
}
