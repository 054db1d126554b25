//! What the workspace's cross-crate example programs share beyond
//! `example-support`: the flags that name types of the crates they span.
//! The programs themselves live beside this folder (`examples/*.rs`,
//! declared in `Cargo.toml`).

pub mod key_mode;
