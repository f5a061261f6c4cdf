/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* An MPI + OpenMP program whose ranks differ in what trace.otf2 defines
 * (mpi-parts-otf2.test): every rank but 1 runs the shared loop; rank 0
 * also makes tasks at one site, rank 2 runs a loop of its own. Rank 1
 * only opens a parallel region: a process with threads and no grains. */
#include <mpi.h>
#include <stdio.h>

static volatile double sink;

static void work(int units) {
  double x = 0;
  for (int k = 0; k < units * 20000; k++)
    x += k * 0.5;
  sink = x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
#pragma omp parallel num_threads(2)
    work(1);
  } else {
#pragma omp parallel for schedule(static, 2) num_threads(2)
    for (int i = 0; i < 16; i++)
      work(rank + 1);
  }
  if (rank == 0) {
#pragma omp parallel num_threads(2)
#pragma omp single
    for (int t = 0; t < 6; t++) {
#pragma omp task
      work(2);
    }
  }
  if (rank == 2) {
#pragma omp parallel for schedule(dynamic, 3) num_threads(2)
    for (int i = 0; i < 12; i++)
      work(1);
  }
  printf("rank %d done\n", rank);
  MPI_Finalize();
  return 0;
}
