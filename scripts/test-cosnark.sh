#!/usr/bin/env bash
# cosnark end to end, judged by snarkjs: builds `cosnark` (the dev profile;
# PROFILE=release for the optimized one; COSNARK_BIN=PATH takes a binary
# built already, as CI takes the one its test build made),
# installs the pinned snarkjs into target/circom-tools
# (scripts/circom-fixtures.sh --tools-only; node and npm with apt-get if
# missing: the only step that downloads), then proves the poseidon2
# fixture with 3 parties and the chain fixture with 2 of 3 parties (every
# role its own process over TLS on 127.0.0.1) and checks each proof with
# `snarkjs groth16 verify`, which must print OK!, and `cosnark verify`.
# Exits non-zero on the first failure.
#
# The cosnark integration tests (crates/cosnark-cli/tests) also check
# their proofs with this snarkjs when it is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
fixtures=$root/crates/he-circom/tests/fixtures
snarkjs=$root/target/circom-tools/node_modules/.bin/snarkjs
profile=${PROFILE:-dev}
dir=debug
[[ "$profile" == release ]] && dir=release
cosnark=${COSNARK_BIN:-$root/target/$dir/cosnark}

step() { printf '==> %s\n' "$*" >&2; }

if [[ -z "${COSNARK_BIN:-}" ]]; then
    step "cargo build --profile $profile --bin cosnark"
    cargo build --profile "$profile" --locked --bin cosnark
fi

step "the pinned snarkjs"
scripts/circom-fixtures.sh --tools-only

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# prove_and_check CIRCUIT PROVE-FLAGS...
prove_and_check() {
    local circuit=$1
    shift
    local out=$work/$circuit
    local vk=$fixtures/${circuit}_verification_key.json
    mkdir -p "$out"
    step "cosnark prove: $circuit $*"
    # Every role process has its own timeouts; this bounds the whole run.
    timeout 900 "$cosnark" prove \
        --r1cs "$fixtures/$circuit.r1cs" \
        --zkey "$fixtures/$circuit.zkey" \
        --witness "$fixtures/$circuit.wtns" \
        --proof "$out/proof.json" --public "$out/public.json" "$@"
    "$cosnark" verify --vk "$vk" --public "$out/public.json" --proof "$out/proof.json"
    step "snarkjs groth16 verify: $circuit"
    local said status=0
    said=$(timeout 120 "$snarkjs" groth16 verify "$vk" "$out/public.json" "$out/proof.json" 2>&1) ||
        status=$?
    printf '%s\n' "$said"
    if [[ $status -ne 0 || "$said" != *"OK!"* ]]; then
        echo "error: snarkjs groth16 verify did not print OK for $circuit (exit status $status)" >&2
        exit 1
    fi
}

prove_and_check poseidon2 --parties 3
prove_and_check chain --parties 3 --threshold 2

echo "cosnark proofs of poseidon2 (3 parties) and chain (2 of 3 parties) verified by snarkjs"
