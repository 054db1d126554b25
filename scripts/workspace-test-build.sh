#!/usr/bin/env bash
# Lists what `cargo test --workspace --locked` builds, one line per
# executable: PACKAGE TARGET KIND DIRECTORY EXECUTABLE (KIND is "test" for
# unit and integration test binaries, "bin" for the packages' programs, which
# cargo builds beside the tests with the same features). DIRECTORY is the
# package's, where cargo runs its tests. Builds whatever is not built yet.
#
#   scripts/workspace-test-build.sh | awk '$3 == "test"'
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --locked --no-run --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") != "compiler-artifact" or not message.get("executable"):
        continue
    # The package id ends in "#NAME@VERSION", or in "#VERSION" when NAME is
    # the name of the package directory.
    fragment = message["package_id"].rsplit("#", 1)[-1]
    directory = message["manifest_path"].rsplit("/", 1)[0]
    package = fragment.split("@")[0] if "@" in fragment else directory.rsplit("/", 1)[-1]
    kind = "test" if message["profile"]["test"] else "bin"
    print(package, message["target"]["name"], kind, directory, message["executable"])
'
