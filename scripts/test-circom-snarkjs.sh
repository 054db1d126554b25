#!/usr/bin/env bash
# snarkjs itself checks he-circom: installs the pinned snarkjs
# (scripts/circom-fixtures.sh --tools-only; node and npm with apt-get if
# missing), then runs the ignored tests
# - crates/he-circom/tests/snarkjs_cli.rs, which proves each fixture
#   circuit with ark-groth16 and the circom reduction, writes
#   verification_key.json, public.json and proof.json with he-circom's
#   writers, and checks that `snarkjs groth16 verify` prints OK (and
#   refuses a changed public value);
# - crates/he-circom/tests/ptau_snarkjs.rs, which checks the powers-of-tau
#   writer against `snarkjs powersoftau prepare phase2` (byte for byte) and
#   proves with keys that `snarkjs groth16 setup` makes from its files.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/circom-fixtures.sh --tools-only
SNARKJS="$PWD/target/circom-tools/node_modules/.bin/snarkjs" \
    cargo test -p he-circom --test snarkjs_cli --test ptau_snarkjs -- --ignored --nocapture
