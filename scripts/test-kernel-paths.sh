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
built=$(scripts/workspace-test-build.sh)
selected=$(awk -v packages=" ${kernel_packages[*]} " -v pairs=" ${end_to_end[*]} " \
    '$3 == "test" && (index(packages, " " $1 " ") || index(pairs, " " $1 ":" $2 " ")) { print $4, $5 }' \
    <<<"$built")
for pair in "${end_to_end[@]}"; do
    grep -q "^${pair%%:*} ${pair#*:} test " <<<"$built" ||
        { echo "FAIL: no test binary for $pair" >&2; exit 1; }
done
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
