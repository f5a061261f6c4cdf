/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* An MPI + OpenMP program of two shapes (mpi-shapes.test): even ranks run
 * one schedule(static, 2) loop of 40 iterations 3 times, odd ranks another
 * loop, schedule(static, 5) over 30 iterations, twice; both on 2 threads,
 * rank r's iterations costing r + 1 units, so alike ranks differ in their
 * times and work but not in their graph's shape. */
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
  if (rank % 2 == 0) {
    for (int r = 0; r < 3; r++) {
#pragma omp parallel for schedule(static, 2) num_threads(2)
      for (int i = 0; i < 40; i++)
        work(rank + 1);
    }
  } else {
    for (int r = 0; r < 2; r++) {
#pragma omp parallel for schedule(static, 5) num_threads(2)
      for (int i = 0; i < 30; i++)
        work(rank + 1);
    }
  }
  printf("rank %d done\n", rank);
  MPI_Finalize();
  return 0;
}
