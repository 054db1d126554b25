#!/usr/bin/env bash
# Times `encrypted_fft` on 1 and on 2 threads, pair after pair, and prints
# each run's phases, the medians and the 1-thread / 2-thread ratios.
#
#   scripts/fft-thread-scaling.sh [--n N] [--pairs K] [--cold | --warm GIB]
#
# What a run costs depends on how the machine hands out memory as much as on
# the computation, so the runs are started under a stated condition:
#   --cold      (default) before each run the page cache is dropped (when
#               running as root) and the machine rests 6 s, so the run's
#               memory is as fresh as the machine makes it;
#   --warm GIB  right before each run a process writes and frees GIB GiB, so
#               the run's pages were touched a moment ago (on a virtual
#               machine that gives freed pages back to its host, as `free
#               page reporting` does, they are then still backed by the host).
# Every run is a new process; the 2-thread run of a pair comes first.
# Builds the example in release mode first.
set -euo pipefail
cd "$(dirname "$0")/.."

n=1048576
pairs=2
warm_gib=0
while [ $# -gt 0 ]; do
    case "$1" in
        --n) n=$2; shift 2 ;;
        --pairs) pairs=$2; shift 2 ;;
        --cold) warm_gib=0; shift ;;
        --warm) warm_gib=$2; shift 2 ;;
        *) echo "usage: $0 [--n N] [--pairs K] [--cold | --warm GIB]" >&2; exit 2 ;;
    esac
done

cargo build --locked --quiet --release --example encrypted_fft
bin=target/release/examples/encrypted_fft
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

prepare() {
    if [ "$warm_gib" -gt 0 ]; then
        python3 -c "b = b'\x01' * ($warm_gib << 30)"
    else
        sync
        if [ -w /proc/sys/vm/drop_caches ]; then echo 3 >/proc/sys/vm/drop_caches; fi
        sleep 6
    fi
}

for pair in $(seq "$pairs"); do
    for threads in 2 1; do
        prepare
        "$bin" --n "$n" --threads "$threads" --json >"$tmp/run-$pair-$threads.json"
    done
done

python3 - "$tmp" "$pairs" "$n" "$warm_gib" <<'REPORT'
import json, statistics, sys

folder, pairs, n, warm = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
condition = f"warm ({warm} GiB written just before)" if warm else "cold (page cache dropped, 6 s rest)"
print(f"encrypted_fft --n {n}: {pairs} pair(s), {condition}")
phases = {"plan": "plan build", "keys": "Galois keys", "fft": "FFT (homomorphic)"}
medians = {}
for threads in (1, 2):
    rows = []
    for pair in range(1, pairs + 1):
        run = json.load(open(f"{folder}/run-{pair}-{threads}.json"))
        if not run["verified"]:
            sys.exit(f"FAIL: pair {pair}, {threads} thread(s): the decryption did not verify")
        by_name = {p["phase"]: p for p in run["phases"]}
        row = {"total": run["total_s"], "system": run["system_s"]}
        for key, prefix in phases.items():
            row[key] = next(p["wall_s"] for name, p in by_name.items() if name.startswith(prefix))
        rows.append(row)
        print(f"  {threads} thread(s), pair {pair}: total {row['total']:6.2f} s (system {row['system']:5.2f} s)"
              f"  plan {row['plan']:5.2f}  keys {row['keys']:5.2f}  FFT {row['fft']:6.2f}")
    medians[threads] = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
for key in ("total", "plan", "keys", "fft"):
    one, two = medians[1][key], medians[2][key]
    print(f"  median {key:5}: {one:6.2f} s on 1 thread, {two:6.2f} s on 2: {one / two:.2f}x")
REPORT
