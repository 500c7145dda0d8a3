//! What a class's routes share: the store, the class, its join URLs, and the counts of
//! posts that its limits keep.

use std::net::IpAddr;

use super::limits::{
    Limit, ADDRESS_PER_MINUTE, MOST_ADDRESSES_COUNTED, MOST_STUDENTS_COUNTED, RATE_WINDOW,
    STUDENT_PER_MINUTE,
};
use super::store::{Class, ClassStore};

/// What the routes share: the store, the class, and the limits.
pub struct ClassState<S> {
    pub(super) store: S,
    pub(super) class: Class,
    /// The join URLs, one per address students reach this machine at.
    pub(super) join: Vec<String>,
    pub(super) per_student: Limit<String>,
    pub(super) per_address: Limit<IpAddr>,
}

impl<S: ClassStore> ClassState<S> {
    /// The class `class` kept in `store`, joined at the URLs `join`.
    pub fn new(store: S, class: Class, join: Vec<String>) -> Self {
        Self {
            store,
            class,
            join,
            per_student: Limit::new(STUDENT_PER_MINUTE, RATE_WINDOW, MOST_STUDENTS_COUNTED),
            per_address: Limit::new(ADDRESS_PER_MINUTE, RATE_WINDOW, MOST_ADDRESSES_COUNTED),
        }
    }
}
