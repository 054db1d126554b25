//! The workspace's cross-crate example programs live beside this file
//! (`examples/*.rs`, declared in `Cargo.toml`); this library is empty.
