#!/usr/bin/env bash
# Packages helib-sys, helib-rs and he-fft as they would be published and
# checks the packages:
#  - every package builds from its own contents: the packages are unpacked
#    and built from there, each dependency of the chain patched to its
#    unpacked sibling, so nothing needs to be on crates.io;
#  - helib-sys ships the engine's C++ sources, its header (with its parts)
#    and the committed bindings (nothing is downloaded or generated at build time);
#  - each package carries its README and both license files, and the README
#    examples pass as doctests from inside the unpacked package (the
#    dependencies of the chain point at their unpacked siblings);
#  - a crate outside the workspace that depends on the unpacked helib-rs and
#    he-fft runs the workspace README's examples (scripts/test-outside-crate.sh
#    --packaged), sharing the doctests' build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
crates=(helib-sys helib-rs he-fft)
version=$(cargo metadata --format-version 1 --no-deps --locked |
          python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "helib-rs"))')

args=()
for c in "${crates[@]}"; do args+=(-p "$c"); done
# No verification build here: the doctests below build every package from
# its unpacked contents, which is the same build without compiling the
# engine twice.
cargo package --locked --allow-dirty --no-verify "${args[@]}"
unpacked="$root/target/package"
for c in "${crates[@]}"; do
    rm -rf "${unpacked:?}/$c-$version"
    tar -xzf "$unpacked/$c-$version.crate" -C "$unpacked"
done

failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
for c in "${crates[@]}"; do
    list=$(cargo package --locked --allow-dirty --list -p "$c")
    for f in README.md LICENSE-MIT LICENSE-APACHE; do
        grep -qx "$f" <<<"$list" || fail "$c: $f is not in the package"
    done
done
list=$(cargo package --locked --allow-dirty --list -p helib-sys)
for f in build.rs cpp/include/helib_c.h; do
    grep -qx "$f" <<<"$list" || fail "helib-sys: $f is not in the package"
done
# The engine's sources, the parts of the header and the bindings of each part.
for f in $(find helib-sys/cpp/src helib-sys/cpp/include helib-sys/src -type f | sort); do
    grep -qx "${f#helib-sys/}" <<<"$list" || fail "helib-sys: ${f#helib-sys/} is not in the package"
done

# The README doctests of the unpacked packages, the chain patched to the
# unpacked siblings (the other doctests ran from the workspace in
# `cargo test --workspace`; compiling each again would cost about 30 s).
# In the workspace's target directory: the unpacked crates are other
# packages there (their own sources, their own build), and the crates.io
# dependencies the workspace's tests built are reused (159 -> 90 s here).
patch=()
for c in "${crates[@]}"; do
    patch+=(--config "patch.crates-io.$c.path=\"$unpacked/$c-$version\"")
done
for c in helib-rs he-fft; do
    # The workspace's lock file pins the versions every build below shares.
    cp Cargo.lock "$unpacked/$c-$version/Cargo.lock"
    log="$unpacked/$c-readme-doctests.log"
    if (cd "$unpacked/$c-$version" &&
        CARGO_TARGET_DIR="$root/target" cargo test --offline --doc "${patch[@]}" -- ReadmeDoctests) |
        tee "$log"; then
        # The filter must have matched: a README without doctests checks nothing.
        grep -Eq 'test result: ok\. [1-9][0-9]* passed' "$log" || fail "$c: no README doctest ran"
    else
        fail "$c: the packaged crate's README doctests"
    fi
done

scripts/test-outside-crate.sh --packaged "$unpacked" || fail "a crate outside the workspace on the packages"

echo "packages: ${#crates[@]} packaged, $failed problems"
[ "$failed" -eq 0 ]
