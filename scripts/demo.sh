#!/usr/bin/env bash
# The main demo: an FFT over the BN254 scalar field on encrypted data,
# verified against ark-poly, with the time of every phase and the peak memory.
# Builds in release mode and runs the example
# `examples/encrypted_fft.rs`; every argument goes to it:
#   scripts/demo.sh --n 1024
#   scripts/demo.sh --n 32768 --threads 1 --json
#   scripts/demo.sh --help          # all flags with their defaults
# PROFILE=dev runs the unoptimized build instead (much slower; for checks).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
exec cargo run --locked --quiet --profile "${PROFILE:-release}" --example encrypted_fft -- "$@"
