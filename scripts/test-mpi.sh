#!/usr/bin/env bash
# he-mpi over Open MPI on this machine: the multi-rank tests
# (crates/he-mpi/tests/mpi_ranks.rs) under `mpirun --oversubscribe` with 1,
# 2 and 4 ranks on 127.0.0.1 (ring N = 4096), each result equal to the
# one-process one, and the FFT checks at 8 and 3 ranks; then a
# lost-rank drill: rank 1 dies in the middle of a product, and the job must
# end with a non-zero status, naming the rank, well before the timeout.
# Installs Open MPI and libclang if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --mpi
# Open MPI refuses to start as root without these (containers, CI).
if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# The unit and doc tests; the multi-rank test binary runs under mpirun below.
cargo test --locked -p he-mpi --features mpi --lib
cargo test --locked -p he-mpi --features mpi --doc
binary=$(cargo test --locked -p he-mpi --features mpi --test mpi_ranks --no-run --message-format=json 2>/dev/null |
         python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "mpi_ranks" and m.get("executable"):
        print(m["executable"])')
[[ -x "$binary" ]] || { echo "FAIL: no mpi_ranks test binary"; exit 1; }
run() {
    local ranks=$1
    shift
    timeout 900 mpirun --oversubscribe --host "127.0.0.1:$ranks" -np "$ranks" "$binary" "$@"
}
for ranks in 1 2 4; do
    echo "mpirun -np $ranks mpi_ranks"
    run "$ranks"
done
# The FFT over 8 ciphertexts with a rank per ciphertext, and with ranks
# holding unequal numbers of them (3, 3 and 2).
for ranks in 8 3; do
    echo "mpirun -np $ranks mpi_ranks --fft-only"
    run "$ranks" --fft-only
done
echo "mpirun -np 2 mpi_ranks --lose-rank (rank 1 exits during a product)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
status=0
run 2 --lose-rank >"$log" 2>&1 || status=$?
elapsed=$(( $(date +%s) - start ))
if [[ $status -eq 0 ]]; then
    cat "$log"
    echo "FAIL: the job with a lost rank exited 0"
    exit 1
fi
if ! grep -Eq 'rank 1|\[\[[0-9]+,1\],1\]' "$log"; then
    cat "$log"
    echo "FAIL: the lost rank is not named"
    exit 1
fi
if (( elapsed > 120 )); then
    echo "FAIL: the job with a lost rank took ${elapsed} s to end"
    exit 1
fi
echo "lost rank: the job ended with status $status after ${elapsed} s, naming rank 1"
