#!/usr/bin/env bash
# Measures he-mpi's distributed Groth16 quotient against the one-process
# quotient, job after job: `mpi_quotient --compare --json --repeat P` RUNS
# times at RANKS ranks, then the range and median of the processor time
# summed over the ranks, of both one-process figures (on the job's cores,
# and on one thread) and of their ratios: for the last of the P runs in
# each process (the engine's recycled buffers, as in a long-lived process)
# and for the first (fresh pages). On a VM whose first touches of memory
# cost a different amount from run to run, one job says little; the
# medians are the figures docs/MPI.md reports.
#
#   scripts/mpi-quotient-measure.sh [--n N] [--ranks R] [--runs K] [--repeat P]
#
# Defaults: n = 2^20, 2 ranks, 5 jobs of 3 runs each (about a minute a job
# here). Needs Open MPI (scripts/install-deps.sh --mpi). Each job's JSON
# goes to target/mpi-quotient-measure/.
set -euo pipefail
cd "$(dirname "$0")/.."

n=1048576 ranks=2 runs=5 repeat=3
while [[ $# -gt 0 ]]; do
    case "$1" in
        --n) n=$2; shift 2 ;;
        --ranks) ranks=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done

scripts/install-deps.sh --mpi
cargo build --release --locked -p he-mpi --features mpi --example mpi_quotient >&2
out=target/mpi-quotient-measure
mkdir -p "$out"
mpirun=(mpirun --oversubscribe -np "$ranks")
if [[ $(id -u) -eq 0 ]]; then mpirun+=(--allow-run-as-root); fi

for ((run = 1; run <= runs; run++)); do
    echo "job $run of $runs: $ranks ranks, n = $n, $repeat runs" >&2
    "${mpirun[@]}" target/release/examples/mpi_quotient --n "$n" --compare --json --repeat "$repeat" >"$out/run-$run.json"
done

python3 - "$out" "$runs" <<'EOF'
import json, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
reports = [json.load(open(f"{out}/run-{k}.json")) for k in range(1, runs + 1)]
assert all(r["verified"] for r in reports), "a run was not verified"
ranks = reports[0]["ranks"]
threads = reports[0]["single_process_threads"]

def line(name, values, unit):
    print(f"{name}: {min(values):.2f}-{max(values):.2f}{unit}, median {statistics.median(values):.2f}{unit}")

def compare(label, sums, cores, one):
    print(f"{label}:")
    line(f"  quotient, CPU summed over {ranks} ranks", sums, " s")
    line(f"  one process on the job's cores ({threads} threads)", cores, " s")
    if one:
        line("  one process on one thread", one, " s")
    line("  ratio per job, job's cores", [s / c for s, c in zip(sums, cores)], "x")
    if one:
        line("  ratio per job, one thread", [s / o for s, o in zip(sums, one)], "x")
        every = statistics.median(cores + one)
        print(f"  median sum / median of all {len(cores + one)} one-process runs ({every:.2f} s): "
              f"{statistics.median(sums) / every:.2f}x")

print(f"n = {reports[0]['n']}, {ranks} ranks, {runs} jobs of {reports[0]['runs']} runs, all verified")
compare("last run of each job (recycled buffers)",
        [r["cpu_s"] for r in reports],
        [r["single_process_cpu_s"] for r in reports],
        [r["single_process_one_thread_cpu_s"] for r in reports])
compare("first run of each job (fresh pages)",
        [r["first_cpu_s"] for r in reports],
        [r["single_process_first_cpu_s"] for r in reports],
        [])
peaks = [r["peak_memory_bytes"] / 2**20 for r in reports]
print(f"largest rank's peak memory: {max(peaks):.0f} MiB; bytes exchanged "
      f"{reports[0]['bytes_exchanged']} (model {reports[0]['model_bytes_exchanged']})")
EOF
