#!/usr/bin/env bash
# Regenerates he-circom's test fixtures (crates/he-circom/tests/fixtures)
# with pinned circom2 / snarkjs / circomlib from npm: for each circuit
# (multiplier, poseidon2, chain: the committed .circom sources and
# .input.json inputs there) the .r1cs, the witness .wtns, a Groth16 .zkey
# from a 2^12 powers-of-tau ceremony, its verification_key.json, and a
# snarkjs-made proof.json / public.json for comparison.
#
#   scripts/circom-fixtures.sh              # tools, ptau (once), all fixtures
#   scripts/circom-fixtures.sh --tools-only # just install the tools
#
# The tools go to target/circom-tools (not committed), the ptau file to
# target/circom-tools/ptau (4.7 MB, made once, about 2 minutes: too big to
# commit). The ceremony's randomness is fresh each time, so regenerated
# zkeys differ from the committed ones byte for byte (every test derives
# what it checks from the files themselves). Installs node and npm with
# apt-get if they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tools=$root/target/circom-tools
fixtures=$root/crates/he-circom/tests/fixtures

CIRCOM2_VERSION=0.2.23
SNARKJS_VERSION=0.7.6
CIRCOMLIB_VERSION=2.0.5
CIRCUITS="multiplier poseidon2 chain"

step() { printf '==> %s\n' "$*" >&2; }

install_tools() {
    if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
        step "installing node and npm (apt-get)"
        apt-get update
        DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs npm
    fi
    mkdir -p "$tools"
    local want="circom2@$CIRCOM2_VERSION snarkjs@$SNARKJS_VERSION circomlib@$CIRCOMLIB_VERSION"
    if [[ "$(cat "$tools/.installed" 2>/dev/null)" != "$want" ]]; then
        step "installing $want into $tools"
        [[ -f "$tools/package.json" ]] || echo '{ "name": "circom-tools", "private": true }' >"$tools/package.json"
        # shellcheck disable=SC2086
        (cd "$tools" && npm install --no-audit --no-fund --save-exact $want >&2)
        echo "$want" >"$tools/.installed"
    fi
}

install_tools
[[ "${1:-}" == "--tools-only" ]] && exit 0

snarkjs=$tools/node_modules/.bin/snarkjs
circom2=$tools/node_modules/.bin/circom2

ptau=$tools/ptau/pot12_final.ptau
if [[ ! -f "$ptau" ]]; then
    step "powers of tau 2^12 (once; about 2 minutes)"
    mkdir -p "$tools/ptau"
    (
        cd "$tools/ptau"
        "$snarkjs" powersoftau new bn128 12 pot12_0000.ptau >/dev/null
        "$snarkjs" powersoftau contribute pot12_0000.ptau pot12_0001.ptau \
            --name="he-circom fixtures" -e="he-circom fixtures $RANDOM $RANDOM" >/dev/null
        "$snarkjs" powersoftau prepare phase2 pot12_0001.ptau pot12_final.ptau.part >/dev/null
        mv pot12_final.ptau.part pot12_final.ptau
        rm -f pot12_0000.ptau pot12_0001.ptau
    )
fi

# circom2 runs as WebAssembly (WASI) and reaches only its working
# directory and the parents of it: the sources are copied next to
# node_modules and compiled from there.
mkdir -p "$tools/src" "$tools/build"
for c in $CIRCUITS; do
    step "$c: compile, witness, setup, proof"
    cp "$fixtures/$c.circom" "$tools/src/$c.circom"
    (cd "$tools" && "$circom2" "src/$c.circom" --r1cs --wasm --O2 -l node_modules -o build >&2)
    b=$tools/build
    "$snarkjs" wtns calculate "$b/${c}_js/$c.wasm" "$fixtures/$c.input.json" "$b/$c.wtns"
    "$snarkjs" groth16 setup "$b/$c.r1cs" "$ptau" "$b/${c}_0000.zkey" >/dev/null
    "$snarkjs" zkey contribute "$b/${c}_0000.zkey" "$b/$c.zkey" \
        --name="he-circom fixtures" -e="he-circom $c $RANDOM $RANDOM" >/dev/null
    "$snarkjs" zkey export verificationkey "$b/$c.zkey" "$b/${c}_verification_key.json" >/dev/null
    "$snarkjs" groth16 prove "$b/$c.zkey" "$b/$c.wtns" "$b/${c}_proof.json" "$b/${c}_public.json"
    "$snarkjs" groth16 verify "$b/${c}_verification_key.json" "$b/${c}_public.json" "$b/${c}_proof.json" >&2
    for f in "$c.r1cs" "$c.wtns" "$c.zkey" "${c}_verification_key.json" "${c}_proof.json" "${c}_public.json"; do
        cp "$b/$f" "$fixtures/$f"
    done
done
du -ch "$fixtures"/* | tail -1 >&2
step "fixtures written to $fixtures"
