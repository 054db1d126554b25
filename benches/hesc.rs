//! Criterion benches of HESC (filled in below).
#![allow(missing_docs)]
fn main() {}
