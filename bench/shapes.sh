#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# grainchunk-graph on the shapes real programs have (issue 31, "Bounded on
# real shapes"; docs/performance.md, "Real shapes"): the generators in
# bench/shapes/ built with grainchunk and recorded once each (--keep-raw),
# then every recording analysed with --from-raw at default outputs by each
# grainchunk-graph named (BEFORE=<binary> adds an older one), under
# /usr/bin/time -v. Per shape and binary: grains, analysis seconds, grains
# per second, peak memory (and per grain), the whole output directory's
# bytes per grain and the three capped files' sizes.
#   a  shortloops.c: 10^6 loop instances, one chunk per thread (2 threads)
#   c  fibtasks.c:   fib(25), 242,784 tasks
#   d  lulesh.c:     7 schedule(static) loops per step, about 60,000 chunks
# SCALE (default 1) divides the sizes (test/graph/shapes.test runs them
# small); KEEP=1 reuses the recordings of a previous run, SHAPES="a d"
# runs only those. grains/s is per
# CPU second (user + system: the command is one thread), less sensitive to
# a loaded machine than the wall time beside it.
# Not part of the tests. Usage: [BEFORE=...] [SCALE=N] [KEEP=1] bash bench/shapes.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GRAINCHUNK_BUILD_DIR:-$root/build}"
scale="${SCALE:-1}"
cc=/usr/lib/llvm-22/bin/clang
omp="$build/libomp/usr/lib/llvm-22/lib"
graph="$build/tools/grainchunk-graph"
out="${OUT:-$build/bench-shapes}"
[[ -n ${KEEP:-} ]] || rm -rf "$out"
mkdir -p "$out"
export OMP_NUM_THREADS=2
build_one() {
  "$cc" -fopenmp -O2 -g -fplugin="$build/clang-plugin/libgrainchunk.so" -L"$omp" \
    -Wl,-rpath,"$omp" "$root/bench/shapes/$1.c" -o "$out/$1" -lm \
    -L"$build/runtime-shim" -Wl,--push-state,--no-as-needed -lgrainchunk-rt \
    -Wl,--pop-state -Wl,-rpath,"$build/runtime-shim"
}
declare -A args=([a]="shortloops $((1000000 / scale))"
  [c]="fibtasks $((25 - (scale > 1 ? 5 : 0)))"
  [d]="lulesh $((4300 / scale))")
binaries=(after="$graph")
[[ -n ${BEFORE:-} ]] && binaries=(before="$BEFORE" "${binaries[@]}")
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-7s %9s %8s %7s %10s %9s %7s %9s %11s %10s %11s\n' shape binary \
  grains wall_s cpu_s grains/s peak_MB B/grain dir_B/gr graphml_MB trace_MB \
  report_MB
for s in ${SHAPES:-a c d}; do
  set -- ${args[$s]}
  prog=$1
  shift
  if [[ -z ${KEEP:-} || ! -d "$out/$s.rec/raw" ]]; then
    rm -rf "$out/$s.rec"
    build_one "$prog"
    "$graph" -o "$out/$s.rec" --keep-raw --outputs report -- "$out/$prog" "$@" \
      >/dev/null 2>"$out/$s.rec.log"
  fi
  for b in "${binaries[@]}"; do
    name=${b%%=*} bin=${b#*=}
    d="$out/$s.$name"
    rm -rf "$d"
    /usr/bin/time -v "$bin" --from-raw "$out/$s.rec/raw" -o "$d" \
      >/dev/null 2>"$d.time"
    grains=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sum(p['chunks'] + p['tasks'] for p in r['processes']))" "$d/run.json")
    secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$d.time")
    cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$d.time")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$d.time")
    dir=$(du -sb "$d" | cut -f1)
    mb() { [[ -f "$d/$1" ]] && awk -v b="$(stat -c %s "$d/$1")" 'BEGIN {printf "%.1f", b / 1e6}' || echo -; }
    awk -v s="$s" -v n="$name" -v g="$grains" -v t="$secs" -v c="$cpu" -v r="$rss" \
      -v dir="$dir" -v gm="$(mb grains.graphml)" -v tm="$(mb trace.json)" \
      -v rm="$(mb report.html)" 'BEGIN {
        printf "%-6s %-7s %9d %8.2f %7.2f %10.0f %9.1f %7.0f %9.0f %11s %10s %11s\n",
          s, n, g, t, c, g / c, r / 1024, r * 1024 / g, dir / g, gm, tm, rm }'
  done
done
