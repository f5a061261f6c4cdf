#!/usr/bin/env bash
# Runs every test: installs the toolchain, builds, then ctest (lit codegen and
# end-to-end tests, and the shim's GoogleTest suite).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
build="${GRAINCHUNK_BUILD_DIR:-$root/build}"
ctest --test-dir "$build" --output-on-failure
