/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bench/mpi.sh's program: lulesh.c's pattern on every MPI rank (an MPI job
 * analysed where it ran, issue 31 section 3): lulesh.c's main, 7
 * schedule(static) loops per time step over the rank's elements and nodes
 * (one chunk per thread per loop instance, each loop its own parallel
 * region), between MPI_Init and MPI_Finalize (each rank prints its
 * energy). 2 threads x 7 loops x ITERS steps per rank: ITERS 5000
 * gives 70,000 chunks per rank.
 * Usage: mpi_lulesh ITERS [ELEMS (default 4096)] */
#include <mpi.h>

#define main lulesh_main
#include "lulesh.c"
#undef main

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rc = lulesh_main(argc, argv);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
