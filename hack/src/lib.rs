//! The features of the procedural macros' parsers, one set for every build (Cargo.toml).
