#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# An MPI job analysed where it ran (issue 31 section 3; docs/performance.md,
# "MPI jobs"): mpirun -np N grainchunk-graph -o D --outputs csv,trace,graphml
# -- app for
# N = 1 2 4 8 (oversubscribed on this machine), app bench/shapes/mpi_lulesh.c
# (lulesh.c on each rank). Each rank's
# grainchunk-graph runs under /usr/bin/time -v (bench/tools/rank-time.sh);
# per N and binary: the program alone under mpirun (no tool, app_s), rank
# 0's and the slowest rank's wall seconds, rank 0's merge (from the last
# other rank's end to rank 0's: merge_s), and peak memory (the largest
# process of a rank's tree: its program or its analysis) of rank 0 and of
# the other ranks (largest, smallest). AFTER is this
# build's grainchunk-graph, BEFORE (optional) another: e.g. an older
# build, where rank 0 analyses every rank's grains.
# ITERS (default 5000 steps: 70,000 chunks per rank), RANKS
# (default "1 2 4 8"), OUTPUTS (default csv,trace,graphml: what rank 0
# merges from the
# ranks' parts; other outputs take the path where rank 0 reads every rank).
# Both binaries record with this build's recording tool (--tool).
# Not part of the tests. Usage: [BEFORE=...] [ITERS=N] bash bench/mpi.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GRAINCHUNK_BUILD_DIR:-$root/build}"
iters="${ITERS:-5000}"
outputs="${OUTPUTS:-csv,trace,graphml}"
omp="$build/libomp/usr/lib/llvm-22/lib"
graph="$build/tools/grainchunk-graph"
out="${OUT:-$build/bench-mpi}"
before="${BEFORE:-}"
rm -rf "$out"
mkdir -p "$out"
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
/usr/lib/llvm-22/bin/clang -fopenmp -O2 -g \
  -fplugin="$build/clang-plugin/libgrainchunk.so" -L"$omp" -Wl,-rpath,"$omp" \
  $(mpicc --showme:compile) "$root/bench/shapes/mpi_lulesh.c" -o "$out/app" \
  $(mpicc --showme:link) -lm -L"$build/runtime-shim" \
  -Wl,--push-state,--no-as-needed -lgrainchunk-rt -Wl,--pop-state \
  -Wl,-rpath,"$build/runtime-shim"
binaries=(after="$graph")
[[ -n $before ]] && binaries=(before="$before" "${binaries[@]}")
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "program: mpi_lulesh $iters steps per rank, outputs: $outputs"
printf '%-5s %-7s %7s %8s %9s %8s %9s %12s %12s %9s\n' ranks binary \
  app_s rank0_s slowest_s merge_s rank0_MB max_other_MB min_other_MB chunks
for n in ${RANKS:-1 2 4 8}; do
  s=$(date +%s.%N)
  "${mpirun[@]}" -np "$n" "$out/app" "$iters" >/dev/null
  app=$(echo "$(date +%s.%N) - $s" | bc)
  for b in "${binaries[@]}"; do
    name=${b%%=*} bin=${b#*=}
    d="$out/n$n.$name"
    "${mpirun[@]}" -np "$n" bash "$root/bench/tools/rank-time.sh" "$d.time" \
      "$bin" --tool "$build/tools/libgrainchunk-record.so" -o "$d" \
      --outputs "$outputs" -- "$out/app" "$iters" \
      >/dev/null 2>"$d.log"
    # Per rank: wall seconds and peak kB from time -v.
    wall() { awk -F': ' '/Elapsed/ {n = split($2, t, ":"); s = 0;
      for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$1"; }
    rss() { awk -F': ' '/Maximum resident/ {print $2}' "$1"; }
    r0=$(wall "$d.time.0") m0=$(rss "$d.time.0") slow=0 mx=0 mn= last=0
    for ((k = 0; k < n; k++)); do
      w=$(wall "$d.time.$k") m=$(rss "$d.time.$k")
      slow=$(echo "if ($w > $slow) $w else $slow" | bc)
      if ((k > 0)); then
        e=$(cat "$d.time.$k.end")
        last=$(echo "if ($e > $last) $e else $last" | bc)
        ((m > mx)) && mx=$m
        [[ -z $mn || $m -lt $mn ]] && mn=$m
      fi
    done
    chunks=$(grep -o '[0-9]* chunks, [0-9]* tasks' "$d.log" | head -1 |
      cut -d' ' -f1)
    merge=-
    ((n > 1)) && merge=$(printf '%.2f' "$(echo "$(cat "$d.time.0.end") - $last" | bc)")
    printf '%-5s %-7s %7.2f %8.2f %9.2f %8s %9.1f %12s %12s %9s\n' "$n" "$name" \
      "$app" "$r0" "$slow" "$merge" "$(echo "$m0 / 1024" | bc -l)" \
      "$( ((n > 1)) && printf '%.1f' "$(echo "$mx / 1024" | bc -l)" || echo -)" \
      "$( ((n > 1)) && printf '%.1f' "$(echo "$mn / 1024" | bc -l)" || echo -)" \
      "${chunks:-?}"
  done
done
