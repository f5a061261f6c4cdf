#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# mpi-parts-otf2.test's wrapper around one MPI rank's command (Open MPI's
# OMPI_COMM_WORLD_RANK names the rank):
#   mpi-otf2-damage.sh K DIR CMD...: every rank runs CMD; rank K's part
#   (in rank 0's build directory for DIR) has its trace.otf2 definitions
#   fragment (otf2.defs) cut short after the rank wrote it whole and before
#   rank 0 reads it, as a part damaged on the way would be.
# How, without a race: rank K's grainchunk-graph (CMD, exec'd by a shell
# that first makes a FIFO named for its pid) writes its done mark through a
# file named for its pid: that FIFO. Opening it blocks the rank until this
# script opens it too: by then the part is whole. This script cuts the
# fragment, lets the rank write "ok" and rename the FIFO to its done mark,
# then, the rank ended, writes "ok" once more into that FIFO for rank 0 to
# read (within 120 s), and ends with the rank's exit status.
rank=${OMPI_COMM_WORLD_RANK:?not an Open MPI rank}
k=$1 dir=$2
shift 2
[ "$rank" = "$k" ] || exec "$@"
n=0
until job=$(ls -d "$(dirname "$dir")"/."$(basename "$dir")".grainchunk-graph.mpi-*/raw/.job 2>/dev/null); do
  n=$((n + 1))
  [ $n -gt 1200 ] && { echo "rank $k: no build directory for $dir" >&2; exit 1; }
  sleep 0.1
done
raw=$(dirname "$job")
sh -c 'mkfifo "$0.tmp$$" && exec "$@"' "$raw/.rank-$k.done" "$@" &
pid=$!
until [ -p "$raw/.rank-$k.done.tmp$pid" ]; do sleep 0.05; done
exec 3<"$raw/.rank-$k.done.tmp$pid"
f="$raw/.rank-$k.part/otf2.defs"
head -c 40 "$f" > "$f.cut" && mv "$f.cut" "$f"
cat <&3 > /dev/null
exec 3<&-
wait $pid
rc=$?
[ -p "$raw/.rank-$k.done" ] && timeout 120 sh -c 'echo ok > "$0"' "$raw/.rank-$k.done"
exit $rc
