//! Nothing to build: without a build script cargo would leave out the build dependencies
//! whose features this crate unifies (Cargo.toml).

fn main() {}
