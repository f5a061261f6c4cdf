/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A hybrid MPI + OpenMP program with tasks (mpi-parts-report.test): every
 * rank runs 20 steps of a parallel region whose single thread makes 10 + rank
 * tasks of 1 to 3 units, then a schedule(static, 3) loop of 24 iterations of
 * rank + 1 units, on 2 threads. */
#include <mpi.h>

static volatile double sink;

static void work(int u) {
  double x = 0;
  for (int k = 0; k < u * 5000; k++)
    x += k * 0.5;
  sink = x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int r = 0; r < 20; r++) {
#pragma omp parallel num_threads(2)
#pragma omp single
    for (int t = 0; t < 10 + rank; t++) {
#pragma omp task
      work(t % 3 + 1);
    }
#pragma omp parallel for schedule(static, 3) num_threads(2)
    for (int i = 0; i < 24; i++)
      work(rank + 1);
  }
  MPI_Finalize();
  return 0;
}
