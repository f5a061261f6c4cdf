#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Remakes the seed corpus of the graph_fuzz target (Inputs/graph-corpus):
# Inputs/seed.c built with grainchunk (plugin + runtime) and recorded with
# the recording tool of a build, each recording packed by
# pack_recording.py. The corpus is committed; run this after a change of
# the recording format.
#   make-seeds.sh [BUILD_DIR]   (default: build/, clang-22)
# Seeds: complete (loops, tasks, a taskloop); killed in a loop (incomplete,
# rings in .tail files); a fork (two processes); two MPI ranks (the
# launcher's variables, two processes in one recording); the standard
# OMPT events only (GRAINCHUNK_RECORD_NO_EXT).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
site="$build/test/lit.site.cfg.py"
get() { sed -n "s/^config\.$1 = \"\(.*\)\"$/\1/p" "$site"; }
clang=$(get clang) omp=$(get omp_libdir) inc=$(get ompt_include)
tool="$build/tools/libgrainchunk-record.so"
shim="$build/runtime-shim"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$clang" -fopenmp -O1 -g -fplugin="$build/clang-plugin/libgrainchunk.so" \
  -isystem "$inc" -L"$omp" -Wl,-rpath,"$omp" "$here/Inputs/seed.c" \
  -o "$work/seed" -L"$shim" -Wl,--push-state,--no-as-needed -lgrainchunk-rt \
  -Wl,--pop-state -Wl,-rpath,"$shim"
record() { # NAME [ENV...] -- ARGS: records one run into $work/NAME
  local name=$1
  shift
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" OMP_TOOL_LIBRARIES="$tool" \
    GRAINCHUNK_RECORD_DIR="$work/$name" "$work/seed" "$@" || true
}
record complete -- ""
record killed -- kill
record fork -- fork
record noext GRAINCHUNK_RECORD_NO_EXT=1 -- ""
record mpi OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 -- ""
record mpi OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 -- ""
out="$here/Inputs/graph-corpus"
rm -rf "$out"
mkdir -p "$out"
for n in complete killed fork noext mpi; do
  python3 "$here/pack_recording.py" "$work/$n" "$out/$n"
done
python3 "$here/pack_recording.py" --maps "$work/complete" "$out/complete-maps"
ls -l "$out"
