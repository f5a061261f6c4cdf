#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The fuzz-graph test (test/fuzz/CMakeLists.txt): runs the libFuzzer target
# over grainchunk-graph's reader and analysis, first once over every input
# of the committed seed corpus, then for SECONDS seconds of fuzzing from
# it. New inputs and a crash's input go to WORK (the corpus is not written).
#   run-graph-fuzz.sh FUZZER CORPUS WORK SECONDS
# GRAINCHUNK_FUZZ_SEED sets libFuzzer's seed (default: a fixed one). The
# target runs with an empty PATH: maps.txt is parsed and its code pointers
# looked up, but addr2line and c++filt are not run (seconds per input, and
# on whatever files a mutated maps.txt names).
set -euo pipefail
fuzz=$(realpath "$1") corpus=$(realpath "$2") work=$(realpath -m "$3") secs=$4
rm -rf "$work"
mkdir -p "$work/new"
cd "$work"
opts=(-timeout=60 -rss_limit_mb=3072 -max_len=65536 -close_fd_mask=3
  -artifact_prefix="$work/" -print_final_stats=1)
echo "fuzz-graph: the seed corpus, each input once"
PATH=/nonexistent "$fuzz" "${opts[@]}" -runs=0 "$corpus"
echo "fuzz-graph: ${secs} s of fuzzing"
PATH=/nonexistent "$fuzz" "${opts[@]}" -seed="${GRAINCHUNK_FUZZ_SEED:-20261127}" \
  -max_total_time="$secs" "$work/new" "$corpus"
