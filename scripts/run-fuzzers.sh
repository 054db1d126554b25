#!/usr/bin/env bash
# Runs built libFuzzer binaries, each for a bounded time on its kept corpus
# and the seeds it writes itself, FUZZ_JOBS at a time (default: one per
# core), and prints one summary line per target. Any finding (a crash, a
# sanitizer report, a leak, an allocation above 512 MB, an input taking over
# 20 s, a harness's oracle) fails the run; its input goes to OUT/artifacts/.
#
#   scripts/run-fuzzers.sh SECONDS OUT NAME=BINARY [NAME=BINARY ...]
#
# Used by helib-sys/fuzz/run.sh and crates/he-circom/fuzz/run.sh, which build
# the binaries.
set -euo pipefail
seconds=$1 out=$2
shift 2
jobs=${FUZZ_JOBS:-$(nproc)}
mkdir -p "$out/artifacts"

# One target: its seeds, then the fuzzer. The log keeps the fuzzer's output,
# NAME.status its exit status.
fuzz_one() {
    local name=$1 bin=$2
    local corpus="$out/corpus/$name" seeds="$out/seeds/$name" status=0
    rm -rf "$seeds"
    mkdir -p "$corpus" "$seeds"
    HELIB_FUZZ_WRITE_SEEDS="$seeds" "$bin" >/dev/null 2>&1 || status=$?
    if [[ $status -eq 0 ]]; then
        "$bin" "$corpus" "$seeds" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=512 \
            -timeout=20 -print_final_stats=1 -artifact_prefix="$out/artifacts/$name-" \
            >"$out/$name.log" 2>&1 || status=$?
    else
        echo "writing the seeds failed" >"$out/$name.log"
    fi
    echo "$status" >"$out/$name.status"
}

names=()
for pair in "$@"; do
    name=${pair%%=*}
    names+=("$name")
    rm -f "$out/$name.status"
    echo "fuzz: $name for ${seconds}s" >&2
    fuzz_one "$name" "${pair#*=}" &
    while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
done
wait

failed=0
for name in "${names[@]}"; do
    log="$out/$name.log"
    status=$(cat "$out/$name.status" 2>/dev/null || echo "no status")
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
    if [[ "$status" != 0 ]]; then
        echo "$name: FAILED after $runs runs (see $log)"
        tail -40 "$log" >&2
        failed=1
    else
        echo "$name: $runs runs, coverage $cov, corpus $(ls "$out/corpus/$name" | wc -l), no findings"
    fi
done
exit "$failed"
