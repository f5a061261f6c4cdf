#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs the differential fuzzer (test/fuzz/gcfuzz.py) on a batch of random
# OpenMP programs (C/C++, or Fortran with --lang fortran), stock vs
# grainchunk. Failing programs are kept as reproducers in
# build/fuzz-failures/ (each with a reproduce.sh).
#   bash scripts/fuzz.sh --count 1000 --seed 42
#   bash scripts/fuzz.sh --lang fortran --count 100   (Fortran, with flang)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/install-deps.sh" >/dev/null
bash "$root/scripts/build.sh" >/dev/null
build="${GRAINCHUNK_BUILD_DIR:-$root/build}"
exec python3 "$root/test/fuzz/gcfuzz.py" --build "$build" "$@"
