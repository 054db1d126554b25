#!/usr/bin/env bash
# snarkjs itself verifies he-circom's proofs: installs the pinned snarkjs
# (scripts/circom-fixtures.sh --tools-only; node and npm with apt-get if
# missing), then runs the ignored test crates/he-circom/tests/snarkjs_cli.rs,
# which proves each fixture circuit with ark-groth16 and the circom
# reduction, writes verification_key.json, public.json and proof.json with
# he-circom's writers, and checks that `snarkjs groth16 verify` prints OK
# (and refuses a changed public value).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/circom-fixtures.sh --tools-only
SNARKJS="$PWD/target/circom-tools/node_modules/.bin/snarkjs" \
    cargo test -p he-circom --test snarkjs_cli -- --ignored --nocapture
