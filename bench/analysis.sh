#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# grainchunk-graph's analysis at scale (docs/performance.md): records
# graphloop.c (schedule(static, 1), a stencil body, 2 threads) with N chunks
# once per N, then analyses the recording with --from-raw, default outputs:
# wall time, grains per second, peak resident memory (bytes per grain) and
# the output directory's size (bytes per grain).
# Not part of the tests. Usage: bash bench/analysis.sh [N...]
#   (default 1000000 10000000; GRAPH=<command> analyses with another
#   grainchunk-graph, e.g. an older one, for a before/after table)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GRAINCHUNK_BUILD_DIR:-$root/build}"
graph="${GRAPH:-$build/tools/grainchunk-graph}"
cc=/usr/lib/llvm-22/bin/clang
omp="$build/libomp/usr/lib/llvm-22/lib"
out="$build/bench-analysis"
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1000000 10000000)
mkdir -p "$out"
[[ -x /usr/bin/time ]] || { echo "bench/analysis.sh needs /usr/bin/time: apt-get install time" >&2; exit 2; }
"$cc" -fopenmp -O2 -fplugin="$build/clang-plugin/libgrainchunk.so" -L"$omp" -Wl,-rpath,"$omp" \
  "$root/bench/graphloop.c" -o "$out/graphloop" -L"$build/runtime-shim" \
  -Wl,--push-state,--no-as-needed -lgrainchunk-rt -Wl,--pop-state -Wl,-rpath,"$build/runtime-shim"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: $graph"
printf '%-10s %10s %12s %14s %14s %16s\n' grains "time (s)" "grains/s" "peak RSS (MB)" "B/grain (RSS)" "outputs (B/grain)"
for n in "${sizes[@]}"; do
  rec="$out/rec-$n"
  if [[ ! -d $rec/raw ]]; then
    # Recorded with the tool alone (no analysis here): a directory per
    # process under raw/.
    rm -rf "$rec" && mkdir -p "$rec/raw"
    OMP_NUM_THREADS=2 OMP_TOOL_LIBRARIES="$build/tools/libgrainchunk-record.so" \
      GRAINCHUNK_RECORD_DIR="$rec/raw" "$out/graphloop" "$n" 1 > /dev/null
  fi
  res="$out/res-$n"
  rm -rf "$res"
  /usr/bin/time -f '%e %M' -o "$out/time-$n" "$graph" --from-raw "$rec/raw" -o "$res" \
    > /dev/null 2> "$out/summary-$n"
  read -r secs kb < "$out/time-$n"
  bytes=$(du -sb --exclude=raw "$res" | cut -f1)
  awk -v n="$n" -v s="$secs" -v kb="$kb" -v b="$bytes" 'BEGIN {
    printf "%-10d %10.2f %12.0f %14.1f %14.1f %16.1f\n", n, s, n / s, kb / 1024, kb * 1024 / n, b / n }'
done
