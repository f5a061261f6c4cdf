#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# mpi-parts.test's wrapper around one MPI rank's command (Open MPI's
# OMPI_COMM_WORLD_RANK names the rank).
#   mpi-rank-wrap.sh strace TRACE CMD...: rank 0 runs CMD under strace -f,
#     every file it and its children open listed in TRACE; the others CMD.
#   mpi-rank-wrap.sh damage K DIR CMD... -- PROGRAM ARGS: rank K does not run
#     grainchunk-graph: it runs PROGRAM (the job needs every rank), then
#     leaves a damaged part (a digest cut short) where rank K's part goes in
#     rank 0's build directory for DIR, and says it is done, as a rank whose
#     part was damaged on the way would; the others run CMD.
#   mpi-rank-wrap.sh spoil K DIR FILE[@N] CMD...: rank K runs CMD (its
#     stderr dropped) kept from saying it is done (the temporary name of its
#     done mark taken by a directory, so writing the mark fails), then cuts
#     the last byte off FILE of its part (with @N: keeps its first N bytes)
#     and says it is done, as a rank whose part was damaged on the way
#     would; the others run CMD.
rank=${OMPI_COMM_WORLD_RANK:?not an Open MPI rank}
mode=$1
shift
# raw: D/raw of rank 0's build directory for $dir (rank 0 prepares it
# first: its raw/.job).
rawOf() {
  n=0
  until job=$(ls -d "$(dirname "$dir")"/."$(basename "$dir")".grainchunk-graph.mpi-*/raw/.job 2>/dev/null); do
    n=$((n + 1))
    [ $n -gt 1200 ] && { echo "rank $k: no build directory for $dir" >&2; exit 1; }
    sleep 0.1
  done
  raw=$(dirname "$job")
}
case $mode in
strace)
  trace=$1
  shift
  if [ "$rank" = 0 ]; then
    exec strace -f -qq -e trace=open,openat -o "$trace" "$@"
  fi
  exec "$@"
  ;;
damage)
  k=$1 dir=$2
  shift 2
  [ "$rank" = "$k" ] || exec "$@"
  while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
  shift
  rawOf
  "$@" || exit
  mkdir "$raw/.rank-$k.part"
  printf 'grainchunk-digest 1\nprocesses 1\npid 12\nppid' > "$raw/.rank-$k.part/digest"
  echo 0 > "$raw/.rank-$k.ended"
  echo ok > "$raw/.rank-$k.done"
  ;;
spoil)
  k=$1 dir=$2 file=${3%@*} keep=${3##*@}
  [ "$keep" = "$3" ] && keep=
  shift 3
  [ "$rank" = "$k" ] || exec "$@"
  rawOf
  # The command keeps sh's process id: its done mark's temporary name.
  sh -c 'mkdir "$0/.rank-'"$k"'.done.tmp$$" && exec "$@"' "$raw" "$@" 2>/dev/null
  rmdir "$raw/.rank-$k.done.tmp"*
  f="$raw/.rank-$k.part/$file"
  [ -s "$f" ] || { echo "rank $k: no $f" >&2; exit 1; }
  truncate -s "${keep:--1}" "$f"
  echo ok > "$raw/.rank-$k.done"
  ;;
esac
