#!/usr/bin/env bash
# Checks the engine's layering (docs/ARCHITECTURE.md): each folder of
# helib-sys/cpp/src includes only its own layer and those below
# (util < ring < rlwe < bgv < io < capi), and only capi/ includes the public
# C header helib_c.h (or one of its parts, helib_c/*.h).
set -euo pipefail
cd "$(dirname "$0")/../helib-sys/cpp/src"

layers=(util ring rlwe bgv io capi)
status=0
for i in "${!layers[@]}"; do
    layer=${layers[$i]}
    for above in "${layers[@]:$((i + 1))}"; do
        if grep -n "#include \"$above/" "$layer"/*.[ch]pp; then
            echo "error: $layer/ includes $above/, a layer above it" >&2
            status=1
        fi
    done
    if [[ $layer != capi ]] && grep -En '#include "helib_c(\.h|/)' "$layer"/*.[ch]pp; then
        echo "error: $layer/ includes helib_c.h; only capi/ may" >&2
        status=1
    fi
done
[[ $status == 0 ]] && echo "engine layers: ok"
exit $status
