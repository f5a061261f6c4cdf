/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A hybrid MPI + OpenMP program with tasks (mpi-parts-report.test): every
 * rank runs 20 steps of a parallel region whose single thread makes 10 + rank
 * tasks of 20 to 60 us, then a schedule(static, 3) loop of 24 iterations of
 * 20 x (rank + 1) us, on 2 threads. */
#include "spin.h"
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int step = 0; step < 20; step++) {
#pragma omp parallel num_threads(2)
#pragma omp single
    for (int t = 0; t < 10 + rank; t++) {
#pragma omp task
      spin_us(20 * (t % 3 + 1));
    }
#pragma omp parallel for schedule(static, 3) num_threads(2)
    for (int i = 0; i < 24; i++)
      spin_us(20 * (rank + 1));
  }
  MPI_Finalize();
  return 0;
}
