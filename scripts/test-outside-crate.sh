#!/usr/bin/env bash
# Builds a crate outside the workspace that depends on helib-rs and he-fft by
# path (`cargo add --path`, as a user with a checkout would) and runs the Rust
# examples of the workspace README as its doctests. The crate names no
# arkworks crate itself: the README's examples reach arkworks through the
# re-exports (helib_rs::ark_bn254, helib_rs::ark_ff, he_fft::ark_poly).
# Offline: the crates come from the local registry cache; the workspace's
# Cargo.lock pins the same versions. Build products go to
# target/outside-crate so that reruns are incremental.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$tmp"
cargo new --quiet --lib --vcs none outside
cd outside
cp "$root/Cargo.lock" .
cargo add --quiet --offline --path "$root/crates/helib-rs"
cargo add --quiet --offline --path "$root/crates/he-fft"
cp "$root/README.md" README.md
cat > src/lib.rs <<'RS'
//! A crate outside the big-t BGV workspace.
#![doc = include_str!("../README.md")]
RS
CARGO_TARGET_DIR="$root/target/outside-crate" cargo test --offline --doc
