#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# bench/mpi.sh's wrapper around one MPI rank's command: /usr/bin/time -v
# into PREFIX.<rank> (Open MPI's OMPI_COMM_WORLD_RANK, else PMI_RANK), and
# the time it ended (date +%s.%N) into PREFIX.<rank>.end.
# Usage: rank-time.sh PREFIX COMMAND ARGS...
prefix=$1
shift
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
/usr/bin/time -v -o "$prefix.$rank" "$@"
rc=$?
date +%s.%N > "$prefix.$rank.end"
exit $rc
