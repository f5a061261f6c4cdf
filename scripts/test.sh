#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs every test (lit codegen + end-to-end, GoogleTest) against the default
# toolchain, clang-22, and the oldest supported one, clang-14: installs each,
# builds into build/ and build-14/, runs ctest, prints a pass/fail table.
# GRAINCHUNK_LLVM_VERSION=N tests only clang-N; scripts/test-matrix.sh tests
# all of 14, 15, 16, 19 and 22.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [[ -n "${GRAINCHUNK_LLVM_VERSION:-}" ]]; then
  exec bash "$root/scripts/test-matrix.sh" "$GRAINCHUNK_LLVM_VERSION"
fi
exec bash "$root/scripts/test-matrix.sh" 22 14
