#!/usr/bin/env bash
# Configures and builds grainchunk into build/ (or $GRAINCHUNK_BUILD_DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
V="${GRAINCHUNK_LLVM_VERSION:-22}"
build="${GRAINCHUNK_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -G Ninja -DGRAINCHUNK_LLVM_VERSION="$V" \
  -DCMAKE_C_COMPILER=/usr/lib/llvm-"$V"/bin/clang \
  -DCMAKE_CXX_COMPILER=/usr/lib/llvm-"$V"/bin/clang++ >/dev/null
ninja -C "$build" >/dev/null
echo "build: $build (clang-$V)"
