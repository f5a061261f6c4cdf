#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Overhead benchmarks, stock Clang vs grainchunk (docs/performance.md):
# builds grainchunk, then bench/run.py builds the benchmarks both ways, runs
# the scenario matrix interleaved (A B A B ...) and writes the table and plot
# into docs/. BENCH_QUICK=1 (or --quick) for a smoke run whose output goes to
# build/bench/ instead. Not part of scripts/test.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/install-deps.sh" >/dev/null
bash "$root/scripts/build.sh" >/dev/null
exec python3 "$root/bench/run.py" "$@"
