#!/usr/bin/env bash
# Builds the libFuzzer harnesses of one Rust fuzz crate (its own workspace)
# into OUT/rust, as helib-sys/fuzz/run.sh and crates/he-circom/fuzz/run.sh
# need them: stable cargo with rustc's SanitizerCoverage pass
# (-Cpasses=sancov-module, the instrumentation cargo-fuzz uses), so the
# fuzzing is coverage-guided without a nightly toolchain; comparison
# tracing; and `--cfg fuzzing` for the harness and every crate it links,
# with build scripts and proc macros left alone (hence the explicit
# --target). The harnesses land in OUT/rust/HOST/release/, the folder the
# script prints (cargo's own output goes to stderr).
#
# libFuzzer itself is clang's prebuilt archive when clang has one (the one
# the C++ harnesses link through -fsanitize=fuzzer); otherwise libfuzzer-sys
# compiles its own copy, about a minute of one core here.
#
#   scripts/build-rust-fuzzers.sh MANIFEST OUT
set -euo pipefail
manifest=$1 out=$2
host=$(rustc -vV | sed -n 's/^host: //p')

for clang in clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14; do
    command -v "$clang" >/dev/null || continue
    archive="$("$clang" -print-runtime-dir 2>/dev/null)/libclang_rt.fuzzer-x86_64.a"
    if [[ "$host" == x86_64-* && -f "$archive" ]]; then
        export CUSTOM_LIBFUZZER_PATH=$archive
        break
    fi
done

RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing" \
    cargo build --quiet --locked --release --manifest-path "$manifest" --target "$host" --target-dir "$out/rust" >&2
echo "$out/rust/$host/release"
