#!/usr/bin/env bash
# Builds he-circom's libFuzzer harnesses (one per reader: r1cs, wtns, zkey,
# ptau, vk_json) and runs each for a bounded time on a seed corpus of the
# committed fixtures, their prefixes and tweaked copies. As in
# helib-sys/fuzz/run.sh (which this follows for its Rust targets): built by
# scripts/build-rust-fuzzers.sh, so the fuzzing is coverage-guided without a
# nightly toolchain; overflow checks and debug assertions on; every
# allocation above 512 MB, every panic and every harness oracle failure
# counts as a finding.
#
#   crates/he-circom/fuzz/run.sh [SECONDS]    # per target; default 120
#   crates/he-circom/fuzz/run.sh --short      # 15 s per target, for CI
#   FUZZ_TARGETS="zkey" crates/he-circom/fuzz/run.sh 60
#
# Needs clang's libFuzzer or a C++ compiler (libfuzzer-sys then builds its
# own libFuzzer with cc). Output goes to target/fuzz/ beside
# helib-sys/fuzz/run.sh's (corpora kept between runs under
# target/fuzz/corpus/circom_*); crash inputs to target/fuzz/artifacts/circom_*.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${FUZZ_OUT:-$root/target/fuzz}
seconds=120
if [[ "${1:-}" == "--short" ]]; then seconds=15; elif [[ -n "${1:-}" ]]; then seconds=$1; fi
targets=${FUZZ_TARGETS:-"r1cs wtns zkey ptau vk_json"}
mkdir -p "$out/bin"

echo "fuzz: building the he-circom harnesses" >&2
built=$("$root/scripts/build-rust-fuzzers.sh" "$here/Cargo.toml" "$out")

pairs=()
for target in $targets; do
    bin="$out/bin/fuzz_circom_$target"
    cp "$built/fuzz_$target" "$bin"
    pairs+=("circom_$target=$bin")
done
"$root/scripts/run-fuzzers.sh" "$seconds" "$out" "${pairs[@]}"
