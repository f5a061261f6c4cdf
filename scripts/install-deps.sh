#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs what grainchunk needs to build and test on Debian bookworm (root).
# GRAINCHUNK_LLVM_VERSION=N picks clang-N (default 22). clang-N, llvm-N-dev
# and llvm-N-tools of several N install side by side; libomp-N-dev packages
# conflict with one another, so only the default's (22, which the demo and
# the README's plain link lines use) is installed: the build and the tests
# use a private copy of libomp-N-dev (scripts/fetch-libomp.sh) for every N.
set -euo pipefail
V="${GRAINCHUNK_LLVM_VERSION:-22}"
pkgs=(clang-"$V" libclang-"$V"-dev llvm-"$V"-dev llvm-"$V"-tools
      cmake ninja-build python3 libgtest-dev binutils
      pkgconf dpkg-dev file # the install and package tests
      # grainchunk-graph's tests: rsvg-convert renders the timeline SVG to
      # PNG (librsvg2-bin, the renderer GNOME uses), python3-networkx reads
      # the GraphML back, python3-pil reads the PNG. grainchunk-graph itself
      # needs only python3.
      librsvg2-bin python3-networkx python3-pil)
if [[ "$V" == 22 ]]; then
  pkgs+=(libomp-22-dev flang-22) # flang-22: the Fortran graph test
fi
# Sanitizer runtimes (the build-mode tests link -fsanitize=undefined):
# libclang-rt-N-dev for every N, 14 included (clang-14 only recommends it;
# a fresh machine installing without recommends lacks the UBSan runtime).
pkgs+=(libclang-rt-"$V"-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "install-deps: clang-$V toolchain ready"
