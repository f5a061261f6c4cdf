#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# outdir-interrupt.sh SIGNAL TARGET PREFIX [after-output] -- COMMAND...
# (outdir-keep.test) Runs COMMAND (grainchunk-graph), its stdout and stderr
# in PREFIX.out and PREFIX.err, in the background; waits until its analysis
# process exists (a child still named grainchunk-grap: forked, not exec'd;
# with after-output, looked for only once PREFIX.out is not empty, i.e.
# after the program printed its last line); stops it (SIGSTOP) so that it
# cannot finish first; sends SIGNAL to TARGET (cmd: the command; analysis:
# the analysis process, then SIGCONT); writes "status N", the command's
# exit status, into PREFIX.status. No analysis process within about 120 s
# (a command that has none; generous for a loaded machine): SIGNAL goes to
# the command anyway.
sig=$1 target=$2 prefix=$3 ready=
shift 3
if [ "$1" = after-output ]; then ready=$prefix.out; shift; fi
shift
: > "$prefix.out"
"$@" > "$prefix.out" 2> "$prefix.err" &
cmd=$!
n=0 child=
while [ $n -lt 24000 ] && [ -z "$child" ]; do
  if [ -z "$ready" ] || [ -s "$ready" ]; then
    child=$(pgrep -P $cmd -x grainchunk-grap)
  fi
  n=$((n + 1))
  [ -n "$child" ] || sleep 0.005
done
[ -n "$child" ] && kill -STOP $child
if [ "$target" = cmd ] || [ -z "$child" ]; then
  kill -$sig $cmd
else
  kill -$sig $child
  kill -CONT $child
fi
wait $cmd
echo "status $?" > "$prefix.status"
