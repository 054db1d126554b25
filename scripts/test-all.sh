#!/usr/bin/env bash
# Runs every check CI runs: formatting, lints, cosnark's proofs by
# processes checked by snarkjs (scripts/test-cosnark.sh), the whole test suite, the
# engine's tests again under AddressSanitizer + UndefinedBehaviorSanitizer,
# the examples' command lines, the packages of the published crates, a crate
# outside the workspace that runs the README, he-mpi's products over 1, 2 and
# 4 MPI ranks, a short libFuzzer run of every
# decoder, the kernel tests again with each kernel path forced, a memcheck test that the code on
# secret errors is constant time, and a check that the committed bindgen
# output matches the C header. Installs the few system packages it needs
# (GMP; libclang for the bindings check; clang for the fuzzers; valgrind;
# Open MPI for he-mpi's multi-rank tests).
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's duration, printed at the end (also when a step fails).
durations=()
current="" current_start=0 run_start=$(date +%s)
step() {
    local now
    now=$(date +%s)
    [[ -n "$current" ]] && durations+=("$(printf '%5ds  %s' $((now - current_start)) "$current")")
    current="$*" current_start=$now
    printf '\n==> %s\n' "$*"
}
print_durations() {
    local status=$? now
    now=$(date +%s)
    [[ -n "$current" ]] && durations+=("$(printf '%5ds  %s' $((now - current_start)) "$current")")
    printf '\nstep durations:\n'
    printf '%s\n' "${durations[@]}"
    printf '%5ds  total (exit status %d)\n' $((now - run_start)) "$status"
    disk_report
}
# A build that runs out of disk fails in odd places (the linker dies of
# SIGBUS on its memory-mapped output), so the free space is printed at the
# start and the end.
disk_report() {
    local size
    size=$(du -sh target 2>/dev/null | cut -f1) || true
    printf 'disk: %s free; target/ holds %s\n' "$(df -h --output=avail . | tail -1 | tr -d ' ')" "${size:-nothing}"
}
trap print_durations EXIT

# A CI run builds everything once from a clean checkout: incremental
# compilation's caches would only cost time and disk there, and line tables
# are all the debug information a failing test's backtrace needs (full debug
# information made he-poly's test build 86 s against 79 s).
if [[ -n "${CI:-}" ]]; then
    export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=line-tables-only
fi

step "system packages"
disk_report
scripts/install-deps.sh --bindgen --fuzz --ct --qemu --mpi --ccache
# The engine's C++ compiles once per set of helib-sys features and per
# source directory: again for he-mpi's tests and the bindings check (no
# test-api) and for the packaged helib-sys. ccache serves the repeats: paths
# are taken relative to the checkout and the directory is left out of the
# hash, so the packaged copy's compiles match the checkout's.
export CXX="ccache ${CXX:-c++}" CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1 \
    CCACHE_DIR=${CCACHE_DIR:-$PWD/target/ccache}

step "cargo fmt"
cargo fmt --all --check

step "cargo clippy"
# he-mpi's MPI code (feature mpi) too.
cargo clippy --workspace --all-targets --features he-mpi/mpi --locked -- -D warnings

step "cargo test (all crates, unit + integration + doc tests)"
# The pinned snarkjs (target/circom-tools), with which the cosnark
# integration tests check their proofs too.
scripts/circom-fixtures.sh --tools-only
cargo test --workspace --locked

step "cosnark prove by processes, checked by snarkjs groth16 verify (scripts/test-cosnark.sh)"
# The cosnark the test build made: a build of its own would resolve the
# features without the tests' and compile shared crates again.
COSNARK_BIN=$(scripts/workspace-test-build.sh | awk '$1 == "he-cosnark-cli" && $2 == "cosnark" && $3 == "bin" { print $5 }') \
    scripts/test-cosnark.sh

step "he-mpi over Open MPI: tests with 1, 2 and 4 ranks, the FFT at 3 and 8, a lost rank (scripts/test-mpi.sh)"
scripts/test-mpi.sh

step "examples: --help, unknown flags, piped runs, JSON, scripts/demo.sh"
scripts/test-examples.sh

step "cargo doc without warnings"
# With he-poly's groth16 module (only dev-dependencies turn the feature on)
# and he-mpi's MPI code, in one run: no item of either crate is compiled
# out by those features, so nothing goes undocumented.
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --features he-poly/groth16,he-mpi/mpi

step "packages of helib-sys, helib-rs, he-fft build and pass their doctests; a crate outside the workspace runs the README on them"
scripts/test-package.sh

step "the kernel tests with each other kernel path forced (HELIB_CPU=scalar, avx2, avx512)"
scripts/test-kernel-paths.sh

step "a forced path the CPU lacks is refused with a clear error (emulated CPUs)"
# Under qemu-user, Haswell has AVX2 but no AVX-512 and Westmere neither:
# forcing a missing path must make the path query and every context fail
# with a message naming HELIB_CPU (no silent fallback), and the default
# must be the widest path the emulated CPU has (tests/cpu_paths.rs).
for cpu_request in Haswell:avx512 Westmere:avx2 Westmere:avx512 Westmere:auto; do
    echo "qemu -cpu ${cpu_request%%:*}, HELIB_CPU=${cpu_request#*:}"
    CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="qemu-x86_64 -cpu ${cpu_request%%:*}" \
    HELIB_CPU=${cpu_request#*:} \
        cargo test --locked -p helib-sys --test cpu_paths -- --exact the_path_in_use_is_the_one_helib_cpu_forces
done

step "engine tests under AddressSanitizer + UndefinedBehaviorSanitizer"
# The C++ is built with -fsanitize=address,undefined (feature helib-sys/sanitize);
# the ASan runtime is preloaded into the test binaries only (not into cargo).
# In the workspace's target directory, where most of the ~135 crates they
# depend on are already built by `cargo test --workspace` (about 20 are
# built again: their features resolve differently for these two packages).
asan_runtime=$(${CXX:-g++} -print-file-name=libasan.so)
CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="env LD_PRELOAD=$asan_runtime" \
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    cargo test --locked -p helib-sys -p helib-rs --features helib-sys/sanitize --lib --tests

step "fuzz every decoder briefly (libFuzzer + ASan + UBSan)"
FUZZ_REQUIRED=1 helib-sys/fuzz/run.sh --short
# he-circom's readers (r1cs, wtns, zkey, verification_key.json), 15 s each.
crates/he-circom/fuzz/run.sh --short

step "no branch or address depends on secret errors (valgrind memcheck)"
CT_REQUIRED=1 helib-sys/ct/run.sh

step "engine layers: each folder includes only its layer and those below, only capi/ includes helib_c.h"
scripts/check-engine-layers.sh

step "committed bindings match helib_c.h and its parts"
cargo build --locked -p helib-sys --features bindgen
git diff --exit-code -- helib-sys/src/bindings/
# A part without committed bindings would be a new, untracked file.
untracked=$(git ls-files --others --exclude-standard -- helib-sys/src/bindings/)
[[ -z $untracked ]] || { echo "bindings not committed: $untracked" >&2; exit 1; }

echo
echo "all checks passed"
