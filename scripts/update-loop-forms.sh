#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Regenerates the tables in docs/loop-forms.md from the plugin's remarks on
# test/forms/Inputs/loop-forms.cpp and loop-forms.f90 (flang-22)
# (test/forms/loop-forms.test and loop-forms-fortran.test check them).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/build.sh" >/dev/null
for lang in cxx fortran; do
  python3 "$root/test/forms/loop_forms.py" --lang "$lang" \
    --build "${GRAINCHUNK_BUILD_DIR:-$root/build}" --write "$root/docs/loop-forms.md"
done
