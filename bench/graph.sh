#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# What grainchunk-graph's recording tool costs per grain (docs/grain-graphs.md).
#   1. the tool alone: graphcost.c calls its chunk callbacks 10^7 times
#      through its real buffer and write path (extension event 82 with the
#      runtime's two clock calls, and the standard dispatch event), with
#      the peak memory before and after; again with the thread's file a
#      link to /dev/null (the cost without the kernel's copy to disk);
#   2. in a program: graphloop.c (schedule(static, 1), a stencil body,
#      5 x 10^6 chunks on 2 threads) built with grainchunk, run with no tool
#      and under the tool (extension events, and --no-ext), RUNS times each,
#      interleaved; the minimum loop time per chunk of each.
# Not part of the tests. Usage: bash bench/graph.sh [RUNS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GRAINCHUNK_BUILD_DIR:-$root/build}"
runs="${1:-5}"
cc=/usr/lib/llvm-22/bin/clang
omp="$build/libomp/usr/lib/llvm-22/lib"
ompt_inc=$(sed -n 's/^GRAINCHUNK_OMPT_INCLUDE:PATH=//p' "$build/CMakeCache.txt")
tool="$build/tools/libgrainchunk-record.so"
out="$build/bench-graph"
rm -rf "$out" && mkdir -p "$out"
"$cc" -O2 -Wall -Wextra -I"$root/include" -isystem "$ompt_inc" "$root/bench/graphcost.c" \
  -o "$out/graphcost" -ldl
"$cc" -fopenmp -O2 -fplugin="$build/clang-plugin/libgrainchunk.so" -L"$omp" -Wl,-rpath,"$omp" \
  "$root/bench/graphloop.c" -o "$out/graphloop" -L"$build/runtime-shim" \
  -Wl,--push-state,--no-as-needed -lgrainchunk-rt -Wl,--pop-state -Wl,-rpath,"$build/runtime-shim"

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "1. the tool alone, 10^7 grains from one thread, records to disk and to /dev/null:"
for mode in ext std; do
  for sink in disk null; do
    rm -rf "$out/raw" && mkdir -p "$out/raw"
    [[ $sink == null ]] && ln -s /dev/null "$out/raw/thread-0.bin"
    noext=0
    [[ $mode == std ]] && noext=1
    GRAINCHUNK_RECORD_NO_EXT=$noext "$out/graphcost" "$tool" "$out/raw" 10000000 |
      sed "s/^/   ($sink) /"
  done
done
rm -rf "$out/raw"

echo "2. graphloop (5 x 10^6 chunks, 2 threads), loop time per chunk, minimum of $runs runs:"
declare -A best
for ((i = 0; i < runs; i++)); do
  for mode in none ext std; do
    rm -rf "$out/raw" && mkdir -p "$out/raw"
    case $mode in
      none) env=() ;;
      ext) env=(OMP_TOOL_LIBRARIES="$tool" GRAINCHUNK_RECORD_DIR="$out/raw") ;;
      std) env=(OMP_TOOL_LIBRARIES="$tool" GRAINCHUNK_RECORD_DIR="$out/raw" GRAINCHUNK_RECORD_NO_EXT=1) ;;
    esac
    ns=$(env "${env[@]}" OMP_NUM_THREADS=2 "$out/graphloop" 1000000 5 | sed -n 's/^ns per chunk //p')
    if [[ -z ${best[$mode]:-} ]] || awk "BEGIN{exit !($ns < ${best[$mode]})}"; then best[$mode]=$ns; fi
  done
done
rm -rf "$out/raw"
for mode in none ext std; do
  add=$(awk "BEGIN{printf \"%+.1f\", ${best[$mode]} - ${best[none]}}")
  printf '   %-40s %8.2f ns per chunk (%s ns per chunk vs no tool)\n' \
    "$(case $mode in none) echo "no tool" ;; ext) echo "recording, extension events" ;;
        std) echo "recording, standard events (--no-ext)" ;; esac)" "${best[$mode]}" "$add"
done
echo "   (per chunk, with 2 threads: each thread records half the chunks in parallel)"
