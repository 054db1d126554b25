#!/usr/bin/env bash
# Measures `cosnark prove` (3 party processes and a server process over
# TLS on this machine) on a circom circuit against the plain provers of the
# same .zkey and .wtns: snarkjs groth16 prove and ark-groth16 with the
# circom reduction (`cosnark plain`, 1 thread). The circuit is a chain of
# circomlib Poseidon(2) hashes (scripts/circuits/poseidon_chain.circom).
#
#   scripts/cosnark-measure.sh [--hashes K] [--parties N] [--proofs P] [--rounds R]
#
# K = 280 (the default) is 67,200 constraints, a domain of 2^17; it needs a
# 2^17 powers-of-tau file, made once into target/circom-tools/ptau by
# `cosnark ptau` (about 20 s of CPU): a single-contributor setup from one local secret,
# good for measurement and nothing else (whoever kept the secret could forge
# proofs). The tools come from scripts/circom-fixtures.sh --tools-only
# (pinned npm packages).
# R rounds (default 3), each the plain prover's runs and then `cosnark
# prove`. Prints per round, role and proof the process CPU time, its ratio
# to the same round's plain ark-groth16 prover (alone on the machine, and
# run as N processes at once as the parties are) and the bytes sent and
# received; then per role the smallest, median and largest ratio over the
# rounds, first and later proofs apart. Like with like: a role's first
# proof, the first computation of its process, is set against the plain
# prover's first proof in its process; the later proofs against the plain
# prover's later ones. The results also go to
# target/cosnark-measure/K/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

hashes=280 parties=3 proofs=2 rounds=3
while [[ $# -gt 0 ]]; do
    case "$1" in
        --hashes) hashes=$2; shift 2 ;;
        --parties) parties=$2; shift 2 ;;
        --proofs) proofs=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done

step() { printf '==> %s\n' "$*" >&2; }

if ! command -v jq >/dev/null || [[ ! -x /usr/bin/time ]]; then
    step "installing jq and time (apt-get)"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y jq time
fi

scripts/circom-fixtures.sh --tools-only
tools=$root/target/circom-tools
snarkjs=$tools/node_modules/.bin/snarkjs
circom2=$tools/node_modules/.bin/circom2

step "building cosnark"
cargo build --release --bin cosnark >&2
cosnark=${CARGO_TARGET_DIR:-$root/target}/release/cosnark

constraints=$((hashes * 240))
power=1
while (( (1 << power) < constraints + 3 )); do power=$((power + 1)); done
ptau=$tools/ptau/pot${power}_single_contributor.ptau
out=$root/target/cosnark-measure/$hashes
mkdir -p "$out" "$tools/src"
name=poseidon_chain_$hashes
if [[ ! -f "$out/$name.zkey" && ! -f "$ptau" ]]; then
    step "powers of tau 2^$power (once; a single-contributor setup for measurement)"
    mkdir -p "$tools/ptau"
    "$cosnark" ptau --power "$power" --out "$ptau"
fi
if [[ ! -f "$out/$name.zkey" ]]; then
    step "compiling a chain of $hashes Poseidon hashes ($constraints constraints) and its keys"
    sed "s/CHAIN_LENGTH/$hashes/" scripts/circuits/poseidon_chain.circom >"$tools/src/$name.circom"
    (cd "$tools" && "$circom2" "src/$name.circom" --r1cs --wasm --O2 -l node_modules -o "$out" >&2)
    echo '{"seed": "7", "salt": "1000"}' >"$out/input.json"
    "$snarkjs" wtns calculate "$out/${name}_js/$name.wasm" "$out/input.json" "$out/$name.wtns"
    "$snarkjs" groth16 setup "$out/$name.r1cs" "$ptau" "$out/${name}_0000.zkey" >/dev/null
    "$snarkjs" zkey contribute "$out/${name}_0000.zkey" "$out/$name.zkey.part" \
        --name="cosnark measure" -e="cosnark measure $RANDOM $RANDOM" >/dev/null
    "$snarkjs" zkey export verificationkey "$out/$name.zkey.part" "$out/verification_key.json" >/dev/null
    mv "$out/$name.zkey.part" "$out/$name.zkey"
    rm -f "$out/${name}_0000.zkey"
fi

cpu_of() { # seconds of user + system CPU of a command
    local f t
    f=$(mktemp)
    /usr/bin/time -o "$f" -f '%U %S' "$@" >/dev/null 2>&1
    t=$(tail -1 "$f")
    rm -f "$f"
    awk '{ printf "%.2f", $1 + $2 }' <<<"$t"
}

step "snarkjs groth16 prove"
snarkjs_cpu=$(cpu_of "$snarkjs" groth16 prove "$out/$name.zkey" "$out/$name.wtns" "$out/snarkjs_proof.json" "$out/snarkjs_public.json")

vectors=$((2 * (1 << power) * 32)) # a party's share of a and b: 2·n field elements
: >"$out/ratios.tsv"

# One round: the plain prover alone (3 proofs in one process: the first,
# and the best of the later two), the plain prover as $parties processes at
# once (the medians of the first proofs and of the later ones), then
# `cosnark prove`. Rounds pair each proof with plain runs made minutes apart at most:
# this VM's speed drifts by tens of per cent between runs.
measure_round() {
    local round=$1 plain_first plain_later shared_first shared_later i
    step "round $round: ark-groth16, circom reduction, 1 thread (3 proofs)"
    "$cosnark" plain --zkey "$out/$name.zkey" --witness "$out/$name.wtns" --repeat 3 >"$out/plain_$round.jsonl"
    plain_first=$(jq -s '.[0].cpu_s' "$out/plain_$round.jsonl")
    plain_later=$(jq -s '.[1:] | map(.cpu_s) | min' "$out/plain_$round.jsonl")

    # The parties share this machine's cores and caches while they prove, and
    # that alone makes a prover's MSMs slower; so the same plain prover also
    # runs as $parties processes at once, the parties' conditions without the
    # protocol.
    step "round $round: ark-groth16 again, $parties processes at once (3 proofs each)"
    for i in $(seq 1 "$parties"); do
        "$cosnark" plain --zkey "$out/$name.zkey" --witness "$out/$name.wtns" --repeat 3 \
            >"$out/plain_shared_${round}_$i.jsonl" &
    done
    wait
    # Each process's first proof, then its later ones: the median of each.
    local median='map(.cpu_s) | sort | .[length / 2 | floor]'
    shared_first=$(for f in "$out"/plain_shared_"$round"_*.jsonl; do jq -c -s '.[0]' "$f"; done | jq -s "$median")
    shared_later=$(for f in "$out"/plain_shared_"$round"_*.jsonl; do jq -c -s '.[1:][]' "$f"; done | jq -s "$median")

    step "round $round: cosnark prove: $parties parties, $proofs proofs"
    "$cosnark" prove --r1cs "$out/$name.r1cs" --zkey "$out/$name.zkey" --witness "$out/$name.wtns" \
        --parties "$parties" --proofs "$proofs" --proof "$out/proof.json" --public "$out/public.json" \
        --json "$out/cosnark_$round.json"
    "$snarkjs" groth16 verify "$out/verification_key.json" "$out/public.json" "$out/proof.json" | tee "$out/snarkjs_verify.txt" >&2
    grep -q 'OK' "$out/snarkjs_verify.txt"

    echo
    echo "round $round: ark-groth16 (1 thread) first proof ${plain_first} s, later ${plain_later} s (best of 2);" \
        "as $parties processes at once: first ${shared_first} s, later ${shared_later} s (medians)"
    jq -r '
      .key_session[] | "key session  \(.role): CPU \(.steps[0].cpu_s | . * 100 | round / 100) s, sent \(.steps[0].bytes_sent / 1e6 | . * 10 | round / 10) MB, received \(.steps[0].bytes_received / 1e6 | . * 10 | round / 10) MB"' "$out/cosnark_$round.json"
    local pick='(if .step == "proof 0" then 0 else 1 end) as $later
      | [$plain_first, $plain_later][$later] as $plain | [$shared_first, $shared_later][$later] as $shared'
    local plain_args=(--argjson plain_first "$plain_first" --argjson plain_later "$plain_later"
        --argjson shared_first "$shared_first" --argjson shared_later "$shared_later")
    jq -r "${plain_args[@]}" --argjson vectors "$vectors" '
      .proving[] | .role as $role | .steps[] | '"$pick"' |
      "\($role) \(.step): CPU \(.cpu_s | . * 100 | round / 100) s (\(.cpu_s / $plain | . * 100 | round / 100)x plain, \(.cpu_s / $shared | . * 100 | round / 100)x plain at once), wall \(.wall_s | . * 100 | round / 100) s, bytes \((.bytes_sent + .bytes_received) / 1e6 | . * 10 | round / 10) MB (\((.bytes_sent + .bytes_received) / $vectors | . * 10 | round / 10)x its vectors)"' "$out/cosnark_$round.json"
    jq -r "${plain_args[@]}" '
      .proving[] | .role as $role | .steps[] | '"$pick"' |
      [(if $role == "server" then "server" else "party" end),
       (if .step == "proof 0" then "first" else "later" end),
       (.cpu_s / $plain), (.cpu_s / $shared)] | @tsv' "$out/cosnark_$round.json" >>"$out/ratios.tsv"
}

echo "circuit: $hashes Poseidon(2) hashes, $constraints constraints, domain 2^$power; $parties parties"
echo "snarkjs groth16 prove: ${snarkjs_cpu} s of CPU (node, all threads)"
for round in $(seq 1 "$rounds"); do
    measure_round "$round"
done

echo
echo "over $rounds rounds, CPU per proof against the same round's plain prover (min-median-max):"
awk -F'\t' '
  function spread(key,   n, i, j, t) {
    n = count[key]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
      if (v[key, j] < v[key, i]) { t = v[key, i]; v[key, i] = v[key, j]; v[key, j] = t }
    return sprintf("%.2f-%.2f-%.2fx", v[key, 1], v[key, int((n + 1) / 2)], v[key, n])
  }
  { for (k = 3; k <= 4; k++) { key = $1 " " $2 " " k; v[key, ++count[key]] = $k } }
  END {
    for (role = 1; role <= 2; role++) for (when = 1; when <= 2; when++) {
      r = role == 1 ? "party" : "server"; w = when == 1 ? "first" : "later"
      if ((r " " w " 3") in count)
        printf "%-6s %s proofs: %s plain alone, %s plain at once\n", r, w, spread(r " " w " 3"), spread(r " " w " 4")
    }
  }' "$out/ratios.tsv"
