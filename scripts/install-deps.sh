#!/usr/bin/env bash
# Installs the system packages the workspace needs, if they are missing:
#   libgmp-dev   GMP, the engine's only library (always)
#   libclang-dev libclang, only to check the committed bindgen output (--bindgen)
#   clang        clang++ with libFuzzer, only for the fuzzers (--fuzz)
#   valgrind     memcheck and its headers, only for the constant-time check (--ct)
#   openmpi-bin libopenmpi-dev libclang-dev
#                Open MPI (mpirun, mpicc and headers) and libclang, only for
#                he-mpi's feature `mpi` and its multi-rank tests (--mpi)
#   qemu-user    an emulated CPU without AVX-512 / AVX2, only for the check that
#                HELIB_CPU refuses a path the CPU lacks (--qemu)
#   ccache       a compiler cache, only for the runs that compile the engine
#                several times (--ccache: scripts/test-all.sh)
# Needs root (or sudo) only when something is actually missing.
set -euo pipefail

want=()
if ! echo '#include <gmp.h>' | ${CXX:-c++} -x c++ -fsyntax-only - 2>/dev/null; then
    want+=(libgmp-dev)
fi
for option in "$@"; do
    case "$option" in
        --bindgen)
            if ! ldconfig -p 2>/dev/null | grep -q 'libclang\(-[0-9.]*\)\?\.so'; then want+=(libclang-dev); fi ;;
        --fuzz)
            if ! compgen -c clang++ >/dev/null; then want+=(clang); fi ;;
        --ct)
            if ! command -v valgrind >/dev/null || [[ ! -f /usr/include/valgrind/memcheck.h ]]; then
                want+=(valgrind)
            fi ;;
        --mpi)
            if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
                want+=(openmpi-bin libopenmpi-dev)
            fi
            if ! ldconfig -p 2>/dev/null | grep -q 'libclang\(-[0-9.]*\)\?\.so'; then want+=(libclang-dev); fi ;;
        --qemu)
            if ! command -v qemu-x86_64 >/dev/null; then want+=(qemu-user); fi ;;
        --ccache)
            if ! command -v ccache >/dev/null; then want+=(ccache); fi ;;
        *) echo "install-deps: unknown option $option" >&2; exit 2 ;;
    esac
done
if ((${#want[@]} == 0)); then
    exit 0
fi
echo "installing: ${want[*]}" >&2
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${want[@]}" >/dev/null
