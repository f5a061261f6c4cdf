/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A hybrid MPI + OpenMP program (mpi-parts-svg.test) with many short
 * chunks: every rank runs a schedule(static, 1) loop of ITERS iterations
 * (argv[1], default 1600) on 2 threads, so each rank has ITERS chunks: a
 * rank alone under timeline.svg's 4000 spans, three ranks together above
 * it. Prints one line per rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, iters = argc > 1 ? atoi(argv[1]) : 1600;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel for schedule(static, 1) num_threads(2)
  for (int i = 0; i < iters; i++) {
    double x = 0;
    for (int k = 0; k < 200; k++)
      x += k * 0.5;
    sink = x;
  }
  printf("rank %d: %d iterations\n", rank, iters);
  MPI_Finalize();
  return 0;
}
