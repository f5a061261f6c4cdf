#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Configures and builds grainchunk against clang-N (GRAINCHUNK_LLVM_VERSION,
# default 22) into build/ for 22 and build-N for other N (or
# $GRAINCHUNK_BUILD_DIR). libomp-N-dev is unpacked into <build>/libomp.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
V="${GRAINCHUNK_LLVM_VERSION:-22}"
if [[ "$V" == 22 ]]; then
  build="${GRAINCHUNK_BUILD_DIR:-$root/build}"
else
  build="${GRAINCHUNK_BUILD_DIR:-$root/build-$V}"
fi
bash "$root/scripts/fetch-libomp.sh" "$V" "$build/libomp" >/dev/null
cmake -S "$root" -B "$build" -G Ninja -DGRAINCHUNK_LLVM_VERSION="$V" \
  -DGRAINCHUNK_OMP_PREFIX="$build/libomp" \
  -DCMAKE_C_COMPILER=/usr/lib/llvm-"$V"/bin/clang \
  -DCMAKE_CXX_COMPILER=/usr/lib/llvm-"$V"/bin/clang++ >/dev/null
ninja -C "$build" >/dev/null
echo "build: $build (clang-$V)"
