//! A class side by side: the core's digests (who measured, and every clock's tick, read
//! cost and verdict in the lab's words) in its matrix of clocks × reports, which a class
//! server's teacher view shows too. A result link carries the same digest.

pub use ticklab::digest::{
    browser_and_version, matrix, matrix_csv, Column, Digest, DigestClock, Figures, Group,
    MatrixRow, FIGURES, MATRIX_COLUMNS, MATRIX_KEYS, WHO,
};
pub use ticklab::present::os_of;

/// What the report of the machine serving the page is called when taken in.
pub const SERVER: &str = "the server";
