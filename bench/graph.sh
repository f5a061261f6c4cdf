#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# What grainchunk-graph's recording tool costs per grain (docs/performance.md,
# "The recording tool").
#   1. the tool alone: graphcost.c calls its chunk callbacks 10^7 times
#      through its real recording path (extension event 82 with the
#      runtime's two clock calls, and the standard dispatch event), into
#      the build directory's file system and into /dev/shm (tmpfs: no disk
#      behind the page cache), with the peak memory before and after;
#   2. in a program: graphloop.c (schedule(static, 1), a stencil body,
#      5 x 10^6 chunks on 2 threads) built with grainchunk, run with no tool
#      and under the tool (extension events, and --no-ext).
# Every configuration runs RUNS times, interleaved (one of each per round);
# the figures are medians. With BEFORE_TOOL=<libgrainchunk-record.so> (e.g.
# built from main's tools/grainchunk-record.c), that tool runs in the same
# rounds too, for a before/after comparison.
# Not part of the tests. Usage: [BEFORE_TOOL=...] bash bench/graph.sh [RUNS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GRAINCHUNK_BUILD_DIR:-$root/build}"
runs="${1:-5}"
cc=/usr/lib/llvm-22/bin/clang
omp="$build/libomp/usr/lib/llvm-22/lib"
ompt_inc=$(sed -n 's/^GRAINCHUNK_OMPT_INCLUDE:PATH=//p' "$build/CMakeCache.txt")
out="$build/bench-graph"
shm=/dev/shm/grainchunk-bench-graph.$$
tools=(after="$build/tools/libgrainchunk-record.so")
[[ -n ${BEFORE_TOOL:-} ]] && tools=(before="$BEFORE_TOOL" "${tools[@]}")
rm -rf "$out" && mkdir -p "$out"
trap 'rm -rf "$shm"' EXIT
"$cc" -O2 -Wall -Wextra -I"$root/include" -isystem "$ompt_inc" "$root/bench/graphcost.c" \
  -o "$out/graphcost" -ldl
"$cc" -fopenmp -O2 -fplugin="$build/clang-plugin/libgrainchunk.so" -L"$omp" -Wl,-rpath,"$omp" \
  "$root/bench/graphloop.c" -o "$out/graphloop" -L"$build/runtime-shim" \
  -Wl,--push-state,--no-as-needed -lgrainchunk-rt -Wl,--pop-state -Wl,-rpath,"$build/runtime-shim"

median() { sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
declare -A res

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 0; i < runs; i++)); do
  for t in "${tools[@]}"; do
    name=${t%%=*} so=${t#*=}
    for mode in ext std; do
      for sink in disk shm; do
        d="$out/raw"
        [[ $sink == shm ]] && d="$shm"
        rm -rf "$d" && mkdir -p "$d"
        noext=0
        [[ $mode == std ]] && noext=1
        all=$(GRAINCHUNK_RECORD_NO_EXT=$noext "$out/graphcost" "$so" "$d" 10000000)
        line=$(tail -1 <<<"$all")
        res[cpu.$name.$mode.$sink]+="$(sed 's/.*(CPU time \([0-9.]*\) ns).*/\1/' <<<"$line") "
        clk=$(sed -n 's/^two clock calls (83) alone: \([0-9.]*\) ns.*/\1/p' <<<"$all")
        [[ -n $clk ]] && res[clock]+="$clk "
        res[cost.$name.$mode.$sink]+="$(sed 's/.* grains, \([0-9.]*\) ns per grain.*/\1/' <<<"$line") "
        res[mem.$name.$mode.$sink]="$(sed 's/.*memory \(.*\)/\1/' <<<"$line")"
        res[bytes.$name.$mode.$sink]="$(sed 's/.*, \([0-9.]*\) bytes written.*/\1/' <<<"$line")"
      done
    done
  done
  for mode in none "${tools[@]/%/=ext}" "${tools[@]/%/=std}"; do
    rm -rf "$out/raw" && mkdir -p "$out/raw"
    name=none env=()
    if [[ $mode != none ]]; then
      name=${mode%%=*}.${mode##*=} so=${mode#*=} so=${so%=*}
      env=(OMP_TOOL_LIBRARIES="$so" GRAINCHUNK_RECORD_DIR="$out/raw")
      [[ $mode == *=std ]] && env+=(GRAINCHUNK_RECORD_NO_EXT=1)
    fi
    res[loop.$name]+="$(env "${env[@]}" OMP_NUM_THREADS=2 "$out/graphloop" 1000000 5 |
      sed -n 's/^ns per chunk //p') "
  done
done
rm -rf "$out/raw"

echo "1. the tool alone, 10^7 grains from one thread, ns per grain (elapsed; CPU time), median of $runs:"
printf '   the runtime'"'"'s two clock calls (83) alone: %.1f ns (runs: %s)\n' \
  "$(tr ' ' '\n' <<<"${res[clock]}" | grep . | median)" "${res[clock]}"
for t in "${tools[@]}"; do
  name=${t%%=*}
  for mode in ext std; do
    for sink in disk shm; do
      v=${res[cost.$name.$mode.$sink]}
      printf '   %-6s %-40s %-5s %6.1f ns; %5.1f ns  (runs: %s) %s B/grain, peak memory %s\n' "$name" \
        "$([[ $mode == ext ]] && echo "extension event 82 + two clock calls" || echo "standard dispatch event")" \
        "$sink" "$(tr ' ' '\n' <<<"$v" | grep . | median)" \
        "$(tr ' ' '\n' <<<"${res[cpu.$name.$mode.$sink]}" | grep . | median)" "$v" "${res[bytes.$name.$mode.$sink]}" \
        "${res[mem.$name.$mode.$sink]}"
    done
  done
done
echo "2. graphloop (5 x 10^6 chunks, 2 threads), loop time per chunk, median of $runs:"
none=$(tr ' ' '\n' <<<"${res[loop.none]}" | grep . | median)
printf '   %-28s %7.2f ns per chunk (runs: %s)\n' "no tool" "$none" "${res[loop.none]}"
for t in "${tools[@]}"; do
  for mode in ext std; do
    key=${t%%=*}.$mode
    m=$(tr ' ' '\n' <<<"${res[loop.$key]}" | grep . | median)
    printf '   %-28s %7.2f ns per chunk (%+.1f vs no tool; runs: %s)\n' "$key" "$m" \
      "$(awk "BEGIN{print $m - $none}")" "${res[loop.$key]}"
  done
done
echo "   (per chunk, with 2 threads: each thread records half the chunks in parallel)"
