/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A hybrid MPI + OpenMP program (mpi.test): every rank runs the same
 * schedule(static, 2) loop of 40 iterations REPS times on 2 threads (20
 * chunks each time), rank r's iterations costing r + 1 units, so the ranks
 * are imbalanced by design. Prints one line per rank. With -DBY_PARITY
 * (mpi-shapes.test) the odd ranks run another loop instead, schedule(static,
 * 5) over 30 iterations twice: a job of ranks of two shapes. */
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
  int rank, size, reps = 3;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long chunks = 0;
#ifdef BY_PARITY
  if (rank % 2) {
    for (int r = 0; r < 2; r++) {
#pragma omp parallel for schedule(static, 5) num_threads(2) reduction(+:chunks)
      for (int i = 0; i < 30; i++) {
        work(rank + 1);
        chunks += i % 5 == 0;
      }
    }
    reps = 0;
  }
#endif
  for (int r = 0; r < reps; r++) {
#pragma omp parallel for schedule(static, 2) num_threads(2) reduction(+:chunks)
    for (int i = 0; i < 40; i++) {
      work(rank + 1);
      chunks += i % 2 == 0;
    }
  }
  long all = 0;
  MPI_Reduce(&chunks, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  printf("rank %d of %d: %ld chunks\n", rank, size, chunks);
  if (rank == 0)
    printf("all ranks: %ld chunks\n", all);
  MPI_Finalize();
  return 0;
}
