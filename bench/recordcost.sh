#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# What the recording tool (tools/grainchunk-record.c) adds per chunk of an
# empty schedule(static, 1) loop, and the floor under it, part by part
# (docs/performance.md, "The recording tool: the per-grain path and its
# floor").
# bench/chunkcost.c, built with grainchunk (and stock, for reference), runs
# on OMP_NUM_THREADS threads (default 1: the per-grain path of one thread),
# one per core (OMP_PROC_BIND=close OMP_PLACES=cores), under:
#   none        no tool;
#   empty       a dispatch callback that returns (the dispatch itself);
#   clock       the callback reads the clock (rdtsc);
#   store       it reads the clock and stores a 32-byte record in memory;
#   rec.std     the recorder, standard events (GRAINCHUNK_RECORD_NO_EXT=1);
#   ext_empty   the extension events: time function (83, rdtsc), an empty
#               chunk callback (82): the runtime's two clock calls per chunk;
#   ext_store   83 and 82 storing the chunk as a 32-byte record in memory;
#   rec.ext     the recorder, extension events;
# (the floor tools: bench/tools/record_floor.c) and, with
# BEFORE_TOOL=<libgrainchunk-record.so> (e.g. built from main's
# tools/grainchunk-record.c), that recorder too (before.std, before.ext).
# Every configuration runs once per round, in the same order, RUNS rounds
# (interleaved); each run prints the median over REPS timings of the loop,
# and the figures are the medians over the rounds; the floor's parts are
# differences of medians. The recordings go to RECORD_DIR (default: the
# build directory's file system, as grainchunk-graph's recording goes into
# its -o; /dev/shm for tmpfs) and are removed after each run; a recording
# must be complete and hold a record per chunk run.
# Not part of the tests. Usage:
#   [BEFORE_TOOL=...] [OMP_NUM_THREADS=2] [RECORD_DIR=...] \
#     bash bench/recordcost.sh [RUNS [ITERS [REPS]]]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GRAINCHUNK_BUILD_DIR:-$root/build}"
runs="${1:-9}" iters="${2:-65536}" reps="${3:-41}"
threads="${OMP_NUM_THREADS:-1}"
cc=/usr/lib/llvm-22/bin/clang
omp="$build/libomp/usr/lib/llvm-22/lib"
ompt_inc=$(sed -n 's/^GRAINCHUNK_OMPT_INCLUDE:PATH=//p' "$build/CMakeCache.txt")
out="$build/bench-recordcost"
rec="${RECORD_DIR:-$build}/grainchunk-recordcost.$$"
rm -rf "$out" && mkdir -p "$out"
trap 'rm -rf "$rec"' EXIT
link=(-L"$omp" -Wl,-rpath,"$omp")
"$cc" -O2 -fopenmp "${link[@]}" "$root/bench/chunkcost.c" -o "$out/chunkcost-stock"
"$cc" -O2 -fopenmp -fplugin="$build/clang-plugin/libgrainchunk.so" "${link[@]}" \
  "$root/bench/chunkcost.c" -o "$out/chunkcost" -L"$build/runtime-shim" \
  -Wl,--push-state,--no-as-needed -lgrainchunk-rt -Wl,--pop-state \
  -Wl,-rpath,"$build/runtime-shim"
floors=(empty clock store ext_empty ext_store)
for i in "${!floors[@]}"; do
  "$cc" -shared -fPIC -O2 -Wall -Wextra -I"$root/include" -isystem "$ompt_inc" \
    -DFLOOR_TOOL="$i" "$root/bench/tools/record_floor.c" -o "$out/libfloor_${floors[$i]}.so"
done
configs=(stock none empty clock store rec.std ext_empty ext_store rec.ext)
[[ -n ${BEFORE_TOOL:-} ]] && configs+=(before.std before.ext)

median() { sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
declare -A res
echo "machine: $(nproc --all) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $threads threads," \
  "$iters iterations x $reps timings per run, $runs rounds"
for ((r = 0; r < runs; r++)); do
  for c in "${configs[@]}"; do
    exe="$out/chunkcost" env=(OMP_NUM_THREADS="$threads" OMP_PROC_BIND=close OMP_PLACES=cores)
    case $c in
    stock) exe="$out/chunkcost-stock" ;;
    none) ;;
    rec.* | before.*)
      so="$build/tools/libgrainchunk-record.so"
      [[ $c == before.* ]] && so="$BEFORE_TOOL"
      env+=(OMP_TOOL_LIBRARIES="$so" GRAINCHUNK_RECORD_DIR="$rec")
      [[ $c == *.std ]] && env+=(GRAINCHUNK_RECORD_NO_EXT=1)
      ;;
    *) env+=(OMP_TOOL_LIBRARIES="$out/libfloor_$c.so") ;;
    esac
    rm -rf "$rec"
    line=$(env "${env[@]}" "$exe" "$iters" "$reps" 2>"$out/stderr")
    if [[ $c == rec.* || $c == before.* ]]; then
      n=$(sed -n 's/^records //p' "$rec"/*/meta.txt 2>/dev/null || true)
      if ! grep -qs '^complete 1' "$rec"/*/meta.txt || ((${n:-0} < iters * (reps + 1))); then
        echo "$c: no complete recording of $((iters * (reps + 1))) chunks in $rec" >&2
        cat "$out/stderr" >&2
        exit 1
      fi
    fi
    res[$c]+="$(sed 's/.*ns_per_chunk \([0-9.]*\).*/\1/' <<<"$line") "
  done
done
rm -rf "$rec"
med() { tr ' ' '\n' <<<"${res[$1]}" | grep . | median; }
printf '%-10s %9s %9s  %s\n' config "ns/chunk" "vs none" "runs (ns per chunk per thread)"
none=$(med none)
declare -A m
for c in "${configs[@]}"; do
  m[$c]=$(med "$c")
  printf '%-10s %9.2f %+9.2f  %s\n' "$c" "${m[$c]}" "$(awk "BEGIN{print ${m[$c]} - $none}")" "${res[$c]}"
done
d() { awk "BEGIN{printf \"%.2f\", ${m[$1]} - ${m[$2]}}"; }
echo "the floor, part by part (ns per chunk, differences of the medians):"
echo "  standard events: dispatch $(d empty none), clock read $(d clock empty)," \
  "store $(d store clock); the recorder above the store floor $(d rec.std store)" \
  "(its file: writing the records out)"
echo "  extension events: the runtime's calls (chunk end, two clock reads, 82)" \
  "$(d ext_empty none), store $(d ext_store ext_empty); the recorder above" \
  "the store floor $(d rec.ext ext_store)"
