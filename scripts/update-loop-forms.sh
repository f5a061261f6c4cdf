#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Regenerates the table in docs/loop-forms.md from the plugin's remarks on
# test/forms/Inputs/loop-forms.cpp (test/forms/loop-forms.test checks it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/build.sh" >/dev/null
exec python3 "$root/test/forms/loop_forms.py" \
  --build "${GRAINCHUNK_BUILD_DIR:-$root/build}" --write "$root/docs/loop-forms.md"
