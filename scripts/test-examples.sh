#!/usr/bin/env bash
# Checks the command line of every example: `--help` exits 0 with the usage
# on stdout (nothing on stderr), an unknown flag exits 2 with the error on
# stderr, and every example exits cleanly (status 0, no panic) when the
# reader of its output goes away after the first line (`example | head -1`).
# Builds the examples in the dev profile unless PROFILE=release.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=${PROFILE:-dev}
dir=debug
[ "$profile" = release ] && dir=release
cargo build --locked --profile "$profile" --examples
# he-mpi's examples with its feature mpi (Open MPI: scripts/install-deps.sh --mpi).
cargo build --locked --profile "$profile" -p he-mpi --features mpi --examples
# mpi_quotient and mpi_fft run under mpirun (2 ranks here); Open MPI needs these as root.
if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mpi_run=(mpirun --oversubscribe --host 127.0.0.1:2 -np 2)
bin="target/$dir/examples"

# Every example of every workspace crate (they sit in crates/*/examples).
examples=$(cargo metadata --locked --format-version 1 --no-deps |
           python3 -c 'import json,sys
for p in json.load(sys.stdin)["packages"]:
    for t in p["targets"]:
        if "example" in t["kind"]: print(t["name"])')
[ -n "$examples" ] || { echo "FAIL: no examples found"; exit 1; }
failed=0
pass=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for example in $examples; do
    status=0
    "$bin/$example" --help >"$tmp/out" 2>"$tmp/err" || status=$?
    if [ "$status" -ne 0 ]; then fail "$example --help exited $status"; continue; fi
    if [ ! -s "$tmp/out" ]; then fail "$example --help printed nothing on stdout"; continue; fi
    if [ -s "$tmp/err" ]; then fail "$example --help wrote to stderr"; continue; fi
    if ! grep -q -- '--help' "$tmp/out"; then fail "$example --help does not list its flags"; continue; fi
    status=0
    "$bin/$example" --no-such-flag >"$tmp/out" 2>"$tmp/err" || status=$?
    if [ "$status" -ne 2 ] || [ ! -s "$tmp/err" ]; then
        fail "$example --no-such-flag: exit $status (want 2 and a message on stderr)"
        continue
    fi
    pass=$((pass + 1))
done

# The demo script runs the encrypted FFT and hands it its flags.
status=0
PROFILE="$profile" scripts/demo.sh --help >"$tmp/out" 2>"$tmp/err" || status=$?
if [ "$status" -eq 0 ] && grep -q -- '--n <N>' "$tmp/out" && grep -q -- '--inverse' "$tmp/out"; then
    pass=$((pass + 1))
else
    fail "scripts/demo.sh --help: exit $status, not the encrypted_fft usage"
fi
status=0
PROFILE="$profile" scripts/demo.sh --n 3 >"$tmp/out" 2>"$tmp/err" || status=$?
if [ "$status" -ne 0 ] && grep -qi 'power of two' "$tmp/err" "$tmp/out"; then
    pass=$((pass + 1))
else
    fail "scripts/demo.sh --n 3: exit $status; want encrypted_fft's error for n = 3: $(head -c 300 "$tmp/err")"
fi

# One small run of every example into a pipe closed after its first line
# (`example | head -1`): the example must exit with status 0 -- the
# documented exit when the reader goes away, see `outln!` in src/cli.rs --
# and print no panic, whatever it was about to write next. Each example gets
# its cheapest arguments; an example missing from this list fails the check.
declare -A piped_args=(
    [quickstart]="--preset n15"
    [groth16_prove]="--constraints 3"
    [groth16_quotient]="--n 16 --ring-log 12 --threads 1"
    [cosnark_groth16]="--constraints 3"
    [hesc_polynomial]="--len 64 --max-degree 2 --averaging 1 --runs 1"
    [hesc_iris]="--quick --skip-bn254"
    [cached_encryption]="--log-n 14 --limit 1"
    [encrypted_fft]="--n 16"
    [slots_to_coefficients]="--n 16"
    [parameter_advice]="--quotient-n 16 --fft-n 16"
    [plan_build]="--n 16"
    [rotations]="--preset n15"
    [throughput]="--mib 1 --reps 1"
    [mpi_quotient]="--n 8192 --test-parameters"
    [mpi_fft]="--n 8192 --test-parameters"
    [mpi_cost_model]="--log-n-max 20 --max-ranks 2"
)
# Examples that run as MPI jobs: their piped run goes through mpirun (only
# rank 0 writes; a closed pipe silences the report and the job ends with 0).
declare -A mpi_example=([mpi_quotient]=1 [mpi_fft]=1)
piped() {
    local name=$1
    shift
    local statuses
    set +e
    local runner=()
    if [ -n "${mpi_example[$name]+set}" ]; then runner=("${mpi_run[@]}"); fi
    "${runner[@]}" "$bin/$name" "$@" 2>"$tmp/err" | head -1 >"$tmp/out"
    statuses=("${PIPESTATUS[@]}")
    set -e
    if [ "${statuses[0]}" -ne 0 ] || grep -q panicked "$tmp/err"; then
        fail "$name $* | head -1: exit ${statuses[0]}: $(head -c 400 "$tmp/err")"
    elif [ "$(wc -l <"$tmp/out")" -ne 1 ]; then
        fail "$name $* | head -1: expected one line"
    else
        pass=$((pass + 1))
    fi
}
for example in $examples; do
    if [ -z "${piped_args[$example]+set}" ]; then
        fail "$example has no piped run in scripts/test-examples.sh (add its cheapest arguments)"
        continue
    fi
    # shellcheck disable=SC2086 # the arguments are meant to split
    piped "$example" ${piped_args[$example]}
done

# A JSON report is one valid JSON document with the documented keys.
"$bin/quickstart" --preset n15 --json >"$tmp/json"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["verified"] is True and d["total_s"] > 0' "$tmp/json"; then
    pass=$((pass + 1))
else
    fail "quickstart --json: not the documented JSON"
fi

# The parameter advice: one entry per workload and size, each at least
# 128-bit secure within the table's bound, no profile unless asked for.
"$bin/parameter_advice" --quotient-n 1024 --fft-n 256 --json >"$tmp/json"
if python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert [(w["workload"], w["n"]) for w in d["workloads"]] == [("groth16_quotient", 1024), ("encrypted_fft", 256)]
for w in d["workloads"]:
    a = w["advice"]
    assert a["security_bits"] >= 128 and a["log2_qp"] <= a["max_log2_qp"] and a["log2_q"] >= a["needed_bits"]
    assert w["profile"] is None' "$tmp/json"; then
    pass=$((pass + 1))
else
    fail "parameter_advice --json: not the documented JSON: $(head -c 400 "$tmp/json")"
fi

# The distributed quotient's and FFT's reports on 2 ranks: verified, the
# bytes the cost model predicts (the FFT also against the one-process plan,
# twice over, its payloads in messages), the quotient under a per-rank
# memory limit it keeps (its payloads in shared memory).
for job in "mpi_quotient --n 8192 --test-parameters --memory-limit-mib 1024" "mpi_fft --n 8192 --test-parameters --inverse --compare --repeat 2 --transport messages"; do
    # shellcheck disable=SC2086 # the arguments are meant to split
    "${mpi_run[@]}" "$bin/"$job --json >"$tmp/json"
    if python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["verified"] is True and d["ranks"] == 2 and d["n"] == 8192
assert d["bytes_exchanged"] == d["model_bytes_exchanged"] > 0
assert d["cpu_s"] > 0 and d["first_cpu_s"] > 0 and d["peak_memory_bytes"] > 0 and len(d["per_rank"]) == 2
assert d["runs"] == (2 if "--repeat 2" in sys.argv[2] else 1)
assert d["transport"] == ("messages" if "--transport messages" in sys.argv[2] else "shared")
assert ("--compare" in sys.argv[2]) == ("single_process_cpu_s" in d)
if "single_process_cpu_s" in d:
    assert d["single_process_threads"] == 2
    assert d["single_process_cpu_s"] > 0 and d["single_process_one_thread_cpu_s"] > 0
    assert d["single_process_first_cpu_s"] > 0
assert ("--memory-limit-mib 1024" in sys.argv[2]) == (d.get("memory_limit_bytes") == 1 << 30)
assert d["peak_memory_bytes"] < d.get("memory_limit_bytes", 1 << 62)' "$tmp/json" "$job"; then
        pass=$((pass + 1))
    else
        fail "$job --json: not the documented JSON: $(head -c 400 "$tmp/json")"
    fi
done
# Below what a rank needs, the limit ends the job with an error naming a rank,
# whether the engine refuses the allocation (12 MiB here) or Rust or the C
# library aborts on it (36 MiB here, in the dev profile).
for mib in 12 36; do
    set +e
    "${mpi_run[@]}" "$bin/mpi_quotient" --n 8192 --test-parameters --memory-limit-mib "$mib" >"$tmp/out" 2>"$tmp/err"
    status=$?
    set -e
    if [ "$status" -ne 0 ] && grep -qE "^mpi_quotient: rank [01]: error: (the engine ran out of memory|aborted under --memory-limit-mib $mib)" "$tmp/err"; then
        pass=$((pass + 1))
    else
        fail "mpi_quotient --memory-limit-mib $mib: expected a refusal naming a rank, got exit $status: $(head -c 400 "$tmp/err")"
    fi
done
# The collaborative proof's report: verified, with every documented field.
"$bin/cosnark_groth16" --constraints 3 --parties 2 --proofs 2 --json >"$tmp/json"
if python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["verified"] is True and len(d["proofs"]) == 2 and d["constraint_vector_bytes"] > 0
for key in ["constraints", "plain_prove_s", "key_session_s"]:
    assert d[key] > 0, key
for cost in d["parties"] + [d["server"]] + d["proofs"][1]["parties"]:
    assert cost["cpu_s"] > 0 and cost["wall_s"] > 0 and cost["bytes_sent"] > 0 and cost["bytes_received"] > 0
assert len(d["parties"]) == 2' "$tmp/json"; then
    pass=$((pass + 1))
else
    fail "cosnark_groth16 --json: not the documented JSON: $(head -c 400 "$tmp/json")"
fi

# --plan-cache: the first run builds and saves the plan (tagged with a plan
# key made in $tmp, not the user's), the second loads it on its tag, a third
# with another key loads it by verification; all verify.
mkdir -p "$tmp/plans"
for want in "built null $tmp/plan.key" "loaded authenticated $tmp/plan.key" "loaded recomputed $tmp/other.key"; do
    set -- $want
    HE_PLAN_KEY=$3 "$bin/encrypted_fft" --n 64 --threads 1 --plan-cache "$tmp/plans" --json >"$tmp/json"
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["verified"] is True and d["plan_source"] == sys.argv[2] and json.dumps(d["plan_check"]).strip("\"") == sys.argv[3]' "$tmp/json" "$1" "$2"; then
        pass=$((pass + 1))
    else
        fail "encrypted_fft --plan-cache: plan_source is not \"$1\", plan_check not $2, or the run did not verify: $(head -c 400 "$tmp/json")"
    fi
done

echo "examples: $pass passed, $failed failed"
[ "$failed" -eq 0 ]
