#!/usr/bin/env bash
# Checks with Valgrind's memcheck that the engine's code on secret errors (the
# Gaussian sampler, t * e in encryption) neither branches on them nor indexes
# memory with them; see ct_check.cpp for the method.
#
#   helib-sys/ct/run.sh
#
# Needs valgrind (Debian/Ubuntu: apt-get install valgrind) and a C++17 compiler.
# Without valgrind it says so and exits 0 unless CT_REQUIRED=1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${CT_OUT:-$root/../target/ct}
# CXX may name a wrapper before the compiler ("ccache g++").
read -ra cxx <<<"${CXX:-g++}"

if ! command -v valgrind >/dev/null || ! echo '#include <valgrind/memcheck.h>' | "${cxx[@]}" -x c++ -fsyntax-only - 2>/dev/null; then
    echo "ct: valgrind (with its headers) not found (apt-get install valgrind); skipping" >&2
    [[ "${CT_REQUIRED:-0}" == 1 ]] && exit 1
    exit 0
fi
mkdir -p "$out"
# -O3 as in the release build (build.rs); x86-64-v3 (AVX2) because valgrind has no AVX-512.
"${cxx[@]}" -std=c++17 -O3 -g -march=x86-64-v3 -Wall -Wextra -I"$root/cpp/include" -I"$root/cpp/src" \
    "$here/ct_check.cpp" "$root/cpp/src/util/random.cpp" "$root/cpp/src/util/wipe.cpp" -o "$out/ct_check"

vg=(valgrind --tool=memcheck --error-exitcode=99 --track-origins=yes -q)
status=0
"${vg[@]}" "$out/ct_check" || status=$?
if [[ $status -ne 0 ]]; then
    echo "ct: FAILED: memcheck found a branch or an address that depends on secret errors (status $status)" >&2
    exit 1
fi
# The control must be caught, or the check proves nothing.
status=0
"${vg[@]}" "$out/ct_check" --control >"$out/control.log" 2>&1 || status=$?
if [[ $status -ne 99 ]]; then
    echo "ct: FAILED: the table-lookup control was not flagged (status $status)" >&2
    cat "$out/control.log" >&2
    exit 1
fi
echo "ct: no secret-dependent branch or address in the sampler and t * e; the table-lookup control is flagged"
