#!/usr/bin/env bash
# Builds he-circom's libFuzzer harnesses (one per reader: r1cs, wtns, zkey,
# ptau, vk_json) and runs each for a bounded time on a seed corpus of the
# committed fixtures, their prefixes and tweaked copies. As in
# helib-sys/fuzz/run.sh (which this follows for its Rust targets): stable
# cargo with rustc's SanitizerCoverage pass (-Cpasses=sancov-module), so
# the fuzzing is coverage-guided without a nightly toolchain; overflow
# checks and debug assertions on; every allocation above 512 MB, every
# panic and every harness oracle failure counts as a finding.
#
#   crates/he-circom/fuzz/run.sh [SECONDS]    # per target; default 120
#   crates/he-circom/fuzz/run.sh --short      # 15 s per target, for CI
#   FUZZ_TARGETS="zkey" crates/he-circom/fuzz/run.sh 60
#
# Needs a C++ compiler (libfuzzer-sys builds libFuzzer with cc). Output goes
# to target/fuzz/ beside helib-sys/fuzz/run.sh's (corpora kept between
# runs under target/fuzz/corpus/circom_*); crash inputs to
# target/fuzz/artifacts/circom_*.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${FUZZ_OUT:-$root/target/fuzz}
seconds=120
if [[ "${1:-}" == "--short" ]]; then seconds=15; elif [[ -n "${1:-}" ]]; then seconds=$1; fi
targets=${FUZZ_TARGETS:-"r1cs wtns zkey ptau vk_json"}
mkdir -p "$out/bin" "$out/artifacts"

host=$(rustc -vV | sed -n 's/^host: //p')
echo "fuzz: building the he-circom harnesses" >&2
RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing" \
    cargo build --quiet --locked --release --manifest-path "$here/Cargo.toml" \
    --target "$host" --target-dir "$out/rust-he-circom" >&2

summary=()
for target in $targets; do
    name=circom_$target
    bin="$out/bin/fuzz_$name"
    cp "$out/rust-he-circom/$host/release/fuzz_$target" "$bin"
    corpus="$out/corpus/$name"
    seeds="$out/seeds/$name"
    rm -rf "$seeds"
    mkdir -p "$corpus" "$seeds"
    HELIB_FUZZ_WRITE_SEEDS="$seeds" "$bin" >/dev/null 2>&1
    echo "fuzz: $name for ${seconds}s" >&2
    log="$out/$name.log"
    status=0
    "$bin" "$corpus" "$seeds" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=512 \
        -timeout=20 -print_final_stats=1 -artifact_prefix="$out/artifacts/$name-" >"$log" 2>&1 || status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
    if [[ $status -ne 0 ]]; then
        summary+=("$name: FAILED after $runs runs (see $log)")
        tail -40 "$log" >&2
    else
        summary+=("$name: $runs runs, coverage $cov, corpus $(ls "$corpus" | wc -l), no findings")
    fi
done
printf '%s\n' "${summary[@]}"
if printf '%s\n' "${summary[@]}" | grep -q FAILED; then exit 1; fi
