/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A hybrid MPI + OpenMP program (mpi-parts.test) whose ranks colour their
 * loops differently on their own: every rank runs a light loop, rank 1
 * also a heavy one that does more work than the light loop on all ranks.
 * One command colouring the whole job gives the heavy loop the first
 * colour; rank 0 alone would give it to the light loop. */
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
#pragma omp parallel for schedule(static, 2) num_threads(2)
  for (int i = 0; i < 8; i++)
    work(1);
  if (rank == 1) {
#pragma omp parallel for schedule(static, 2) num_threads(2)
    for (int i = 0; i < 8; i++)
      work(40);
  }
  printf("rank %d\n", rank);
  MPI_Finalize();
  return 0;
}
