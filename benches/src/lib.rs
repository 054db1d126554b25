//! The workspace's cross-crate criterion benches live beside this file
//! (`benches/*.rs`, declared in `Cargo.toml`); this library is empty.
