#!/usr/bin/env bash
# The main demo: builds in release mode and runs the headline example.
# Extra arguments go to the example (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
exec cargo run --release --locked --example quickstart -- "$@"
