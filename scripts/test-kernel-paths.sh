#!/usr/bin/env bash
# Runs the tests that reach the engine's kernels once more with each kernel
# path forced (HELIB_CPU=scalar, avx2, avx512) that this CPU has, except the
# widest: `cargo test --workspace` already ran every test on it, since the
# engine picks the widest path at run time (helib-sys/cpp/src/util/cpu.hpp).
# A path the CPU lacks cannot run here; CI checks under emulated CPUs that
# forcing it is refused.
#
# Only the environment differs between paths (nothing reads HELIB_CPU at
# build time), so this runs the test binaries `cargo test --workspace` built,
# each in its package's directory as cargo would, and builds nothing new.
#
#   scripts/test-kernel-paths.sh    # after cargo test --workspace --locked
set -euo pipefail
cd "$(dirname "$0")/.."

# The kernels sit below helib-rs: every test of helib-sys and helib-rs
# reaches them, and each crate above adds one end-to-end test file on top
# (package:test target).
kernel_packages=(helib-sys helib-rs)
end_to_end=(he-fft:pipeline he-poly:groth16 he-threshold:protocols he-cosnark:circom
    he-cache:correctness hesc:basic)

cpu_supports() {
    local flags
    flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true) "
    case "$1" in
        scalar) true ;;
        avx2) [[ "$flags" == *" avx2 "* ]] ;;
        avx512) [[ "$flags" == *" avx512f "* && "$flags" == *" avx512dq "* ]] ;;
    esac
}
widest=scalar
for path in avx2 avx512; do
    if cpu_supports "$path"; then widest=$path; fi
done

# "directory executable" for each selected test binary, from the build's
# own list of what it made (already up to date: nothing compiles).
selected=$(cargo test --workspace --locked --no-run --message-format=json 2>/dev/null |
    KERNEL_PACKAGES="${kernel_packages[*]}" END_TO_END="${end_to_end[*]}" python3 -c '
import json, os, sys
packages = set(os.environ["KERNEL_PACKAGES"].split())
end_to_end = {tuple(pair.split(":")) for pair in os.environ["END_TO_END"].split()}
found = set()
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") != "compiler-artifact" or not message.get("executable"):
        continue
    if not message["profile"]["test"]:
        continue
    # The package id ends in "#NAME@VERSION", or in "#VERSION" when NAME is
    # the name of the package's directory.
    fragment = message["package_id"].rsplit("#", 1)[-1]
    package = fragment.split("@")[0] if "@" in fragment else message["manifest_path"].split("/")[-2]
    name = message["target"]["name"]
    if package in packages or (package, name) in end_to_end:
        found.add((package, name))
        print(message["manifest_path"].rsplit("/", 1)[0], message["executable"])
missing = end_to_end - found
if missing:
    sys.exit("no test binary for " + ", ".join(":".join(pair) for pair in sorted(missing)))
')
[[ -n "$selected" ]] || { echo "FAIL: no test binaries found" >&2; exit 1; }

for path in scalar avx2 avx512; do
    if [[ "$path" == "$widest" ]]; then
        echo "HELIB_CPU=$path: the widest path here, run by cargo test --workspace"
        continue
    fi
    if ! cpu_supports "$path"; then
        echo "HELIB_CPU=$path: this CPU lacks it (refusal checked under emulated CPUs)"
        continue
    fi
    while read -r directory executable; do
        echo "HELIB_CPU=$path ${executable##*/}"
        (cd "$directory" && HELIB_CPU=$path "$executable" -q)
    done <<<"$selected"
done
