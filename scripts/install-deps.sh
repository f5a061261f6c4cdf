#!/usr/bin/env bash
# Installs what grainchunk needs to build and test on Debian bookworm (root).
# GRAINCHUNK_LLVM_VERSION=N picks clang-N (default 22).
set -euo pipefail
V="${GRAINCHUNK_LLVM_VERSION:-22}"
pkgs=(clang-"$V" libclang-"$V"-dev llvm-"$V"-dev llvm-"$V"-tools libomp-"$V"-dev
      cmake ninja-build python3 libgtest-dev binutils)
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
