#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds the Debian package grainchunk-clang-N for each N given (default:
# every Clang Debian bookworm ships: 14 15 16 19 22) with CPack, from the same
# build the tests use (build/ for 22, build-N otherwise), into
# build-packages/. Install one with `apt-get install ./<file>.deb`; packages
# for different N conflict (see README, Install).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
versions=("$@")
((${#versions[@]})) || versions=(14 15 16 19 22)
out="$root/build-packages"
mkdir -p "$out"
for V in "${versions[@]}"; do
  if [[ "$V" == 22 ]]; then build="$root/build"; else build="$root/build-$V"; fi
  GRAINCHUNK_LLVM_VERSION=$V bash "$root/scripts/install-deps.sh"
  GRAINCHUNK_LLVM_VERSION=$V GRAINCHUNK_BUILD_DIR="$build" bash "$root/scripts/build.sh"
  if [[ ! -f "$build/CPackConfig.cmake" ]]; then
    echo "package: $build is not built against Debian's clang-$V (/usr/lib/llvm-$V): no package" >&2
    exit 1
  fi
  # CPack warns about the plugin libraries (modules, no SONAME) while writing
  # the runtime library's shlibs: its output goes to a log.
  mkdir -p "$build/package"
  if ! cpack --config "$build/CPackConfig.cmake" -B "$build/package" > "$build/package/cpack.log" 2>&1; then
    cat "$build/package/cpack.log" >&2
    echo "package: cpack failed for clang-$V (log above: $build/package/cpack.log)" >&2
    exit 1
  fi
  deb=$(ls "$build/package"/grainchunk-clang-"$V"_*.deb)
  cp "$deb" "$out/"
  echo "package: $out/$(basename "$deb")"
  dpkg-deb -f "$deb" Package Version Depends Recommends | sed 's/^/  /'
done
