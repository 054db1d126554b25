#!/usr/bin/env bash
# Builds a crate outside the workspace that depends on helib-rs and he-fft and
# runs the Rust examples of the workspace README as its doctests. The crate
# names no arkworks crate itself: the README's examples reach arkworks through
# the re-exports (helib_rs::ark_bn254, helib_rs::ark_ff, he_fft::ark_poly).
#
#   scripts/test-outside-crate.sh                 # by path to crates/ (`cargo add --path`,
#                                                 # as a user with a checkout would)
#   scripts/test-outside-crate.sh --packaged DIR  # on the packages unpacked in DIR, as
#                                                 # a user of crates.io would
#
# The second form is how scripts/test-package.sh runs it: each crate of the
# chain (helib-sys, helib-rs, he-fft) comes from its unpacked package, and the
# build shares the workspace's target directory with the packages' own
# doctests (the crates.io dependencies built once; the unpacked crates are
# other packages there, built from their own sources).
# Offline: other crates come from the local registry cache; the workspace's
# Cargo.lock pins the same versions. Build products go to
# target/outside-crate (or target/ with --packaged) so that reruns are incremental.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
packaged=""
case "${1:-}" in
    --packaged) packaged=$(cd "${2:?--packaged needs a directory}" && pwd) ;;
    "") ;;
    *) echo "usage: $0 [--packaged DIR]" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$tmp"
cargo new --quiet --lib --vcs none outside
cd outside
cp "$root/Cargo.lock" .
config=()
if [[ -n "$packaged" ]]; then
    version=$(cargo metadata --manifest-path "$root/Cargo.toml" --format-version 1 --no-deps --locked |
              python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "helib-rs"))')
    for crate in helib-sys helib-rs he-fft; do
        config+=(--config "patch.crates-io.$crate.path=\"$packaged/$crate-$version\"")
    done
    cargo add --quiet --offline "${config[@]}" --path "$packaged/helib-rs-$version"
    cargo add --quiet --offline "${config[@]}" --path "$packaged/he-fft-$version"
    target="$root/target"
else
    cargo add --quiet --offline --path "$root/crates/helib-rs"
    cargo add --quiet --offline --path "$root/crates/he-fft"
    target="$root/target/outside-crate"
fi
cp "$root/README.md" README.md
cat > src/lib.rs <<'RS'
//! A crate outside the big-t BGV workspace.
#![doc = include_str!("../README.md")]
RS
CARGO_TARGET_DIR="$target" cargo test --offline --doc "${config[@]}"
