#!/usr/bin/env bash
# Builds the libFuzzer harnesses (one per decoder) with clang and runs each
# for a bounded time on a seed corpus of valid, truncated and tweaked encodings.
# The C++ decoders are fuzzed against contexts with t = 65537 and t = BN254 Fr
# (multi-limb correction factors). The `wire` target fuzzes the Rust reader
# he_cache_analysis::WireCiphertext::parse (the engine's decoder, checksum
# checked, then the residue accessor): crates/he-cache-analysis/fuzz; the
# `plan` target fuzzes he-fft's plan-file loader FftPlanBuilder::load_from
# and its keyed form load_with_key (header checks, the levels' parser, the
# MAC and its fallback, then the verification against the builder's spec;
# every input must give Ok or Err, a loaded file must be the honest plan, and
# one accepted on its tag the honest tagged file): crates/he-fft/fuzz. Each is a libFuzzer
# harness (libfuzzer-sys) built by scripts/build-rust-fuzzers.sh: stable cargo
# with rustc's SanitizerCoverage pass, so the fuzzing is coverage-guided
# without a nightly toolchain (no ASan on the Rust
# side, which needs nightly; the Rust code is safe, so panics and overflows
# are what there is to find there, and overflow checks are on; the engine's
# decoder it calls is fuzzed under the sanitizers by the `ciphertext` target).
# `--cfg fuzzing` also makes the Rust stream reader skip its checkpoint
# comparisons (helib_rs::io), as HELIB_FUZZING_NO_CHECKSUM does.
#
# Targets run FUZZ_JOBS at a time (default: one per core; scripts/run-fuzzers.sh).
#
#   helib-sys/fuzz/run.sh [SECONDS]     # per target; default 120
#   helib-sys/fuzz/run.sh --short       # 15 s per target, for CI
#   FUZZ_TARGETS="ciphertext plaintext" helib-sys/fuzz/run.sh 60
#
# Needs clang++ with libFuzzer (Debian/Ubuntu: apt-get install clang) and GMP.
# Without clang it says so and exits 0 unless FUZZ_REQUIRED=1. The engine is
# compiled with -fsanitize=fuzzer-no-link,address,undefined and
# HELIB_FUZZING_NO_CHECKSUM (checksums are not verified, so the fuzzer reaches
# the decoders proper). Every allocation above 512 MB counts as a crash
# (-malloc_limit_mb), as do leaks, sanitizer reports and the harnesses'
# round-trip oracle. Output goes to target/fuzz/ (corpora are kept between runs);
# crash inputs to target/fuzz/artifacts/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${FUZZ_OUT:-$root/../target/fuzz}
seconds=120
if [[ "${1:-}" == "--short" ]]; then seconds=15; elif [[ -n "${1:-}" ]]; then seconds=$1; fi
targets=${FUZZ_TARGETS:-"parameters plaintext ciphertext public_key relin_key galois_keys secret_key wire plan"}

cxx=${FUZZ_CXX:-}
if [[ -z "$cxx" ]]; then
    for candidate in clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14; do
        if command -v "$candidate" >/dev/null; then cxx=$candidate; break; fi
    done
fi
if [[ -z "$cxx" ]] || ! echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char *, unsigned long) { return 0; }' |
        "$cxx" -x c++ -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
    echo "fuzz: no clang++ with libFuzzer found (apt-get install clang); skipping" >&2
    [[ "${FUZZ_REQUIRED:-0}" == 1 ]] && exit 1
    exit 0
fi

flags=(-std=c++17 -O1 -g -Wno-unknown-warning-option -fno-omit-frame-pointer -march=native -pthread
       -fsanitize=address,undefined -fno-sanitize-recover=undefined
       -DHELIB_FUZZING_NO_CHECKSUM -I"$root/cpp/include" -I"$root/cpp/src")
mkdir -p "$out/obj" "$out/bin" "$out/artifacts"

echo "fuzz: compiling the engine with $cxx" >&2
compile() { "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$1" -o "$2"; }
objects=()
while IFS= read -r src; do
    # Named by the path under cpp/src: two layers may hold files of one name.
    relative="${src#"$root/cpp/src/"}"
    obj="$out/obj/${relative//\//_}"
    obj="${obj%.cpp}.o"
    objects+=("$obj")
    if [[ ! -f "$obj" || "$src" -nt "$obj" || -n $(find "$root/cpp" -name '*.h*' -newer "$obj") ]]; then
        compile "$src" "$obj" &
        while (($(jobs -rp | wc -l) >= ${FUZZ_JOBS:-$(nproc)})); do wait -n; done
    fi
done < <(find "$root/cpp/src" -name '*.cpp' | sort)
for pid in $(jobs -p); do wait "$pid"; done

# The crate of each Rust target's harness.
rust_harness() {
    case "$1" in
        wire) echo crates/he-cache-analysis/fuzz ;;
        plan) echo crates/he-fft/fuzz ;;
        *) echo "fuzz: unknown target $1" >&2; return 1 ;;
    esac
}
build_rust() {
    local crate built
    crate=$(rust_harness "$1")
    echo "fuzz: building the Rust harness ($crate)" >&2
    built=$("$root/../scripts/build-rust-fuzzers.sh" "$root/../$crate/Cargo.toml" "$out")
    cp "$built/fuzz_$1" "$out/bin/fuzz_$1"
}

pairs=()
for target in $targets; do
    bin="$out/bin/fuzz_$target"
    if [[ -f "$here/fuzz_$target.cpp" ]]; then
        "$cxx" "${flags[@]}" -fsanitize=fuzzer "$here/fuzz_$target.cpp" "${objects[@]}" -lgmpxx -lgmp -o "$bin"
    else
        build_rust "$target"
    fi
    pairs+=("$target=$bin")
done
"$root/../scripts/run-fuzzers.sh" "$seconds" "$out" "${pairs[@]}"
