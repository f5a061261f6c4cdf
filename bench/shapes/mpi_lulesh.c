/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bench/mpi.sh's program: lulesh.c's pattern per MPI rank (an MPI job
 * analysed where it ran, issue 31 section 3). Per time step 7
 * schedule(static) loops over the rank's elements and nodes (one chunk per
 * thread per loop instance, each loop its own parallel region as LULESH's
 * are); every 50 steps the ranks agree on a time step (MPI_Allreduce),
 * as LULESH does each step. 2 threads x 7 loops x ITERS steps per rank:
 * ITERS 5000 gives 70,000 chunks per rank.
 * Usage: mpi_lulesh [ITERS (default 5000)] [ELEMS (default 4096)] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long iters = argc > 1 ? atol(argv[1]) : 5000;
  long ne = argc > 2 ? atol(argv[2]) : 4096, nn = ne + 1;
  double *e = calloc(ne, sizeof *e), *p = calloc(ne, sizeof *p),
         *q = calloc(ne, sizeof *q), *v = calloc(ne, sizeof *v),
         *x = calloc(nn, sizeof *x), *xd = calloc(nn, sizeof *xd),
         *f = calloc(nn, sizeof *f);
  for (long i = 0; i < ne; i++)
    e[i] = 1.0 + (double)((i + rank) % 7), v[i] = 1.0;
  for (long i = 0; i < nn; i++)
    x[i] = (double)i;
  double dt = 1e-3;
  for (long it = 0; it < iters; it++) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < nn; i++) /* forces on the nodes */
      f[i] = -(i > 0 ? p[i - 1] : 0.0) + (i < ne ? p[i] : 0.0);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < nn; i++) /* velocities */
      xd[i] += dt * f[i];
#pragma omp parallel for schedule(static)
    for (long i = 0; i < nn; i++) /* positions */
      x[i] += dt * xd[i];
#pragma omp parallel for schedule(static)
    for (long i = 0; i < ne; i++) /* volumes */
      v[i] = fabs(x[i + 1] - x[i]);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < ne; i++) /* artificial viscosity */
      q[i] = xd[i + 1] < xd[i] ? (xd[i + 1] - xd[i]) * (xd[i + 1] - xd[i]) : 0;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < ne; i++) /* energy */
      e[i] = e[i] - (p[i] + q[i]) * (v[i] - 1.0) * 0.01;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < ne; i++) /* pressure (an equation of state) */
      p[i] = 0.4 * e[i] / (v[i] > 1e-9 ? v[i] : 1e-9);
    if (it % 50 == 49) { /* oversubscribed ranks wait long at each one */
      double mine = dt, all;
      MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
      dt = all;
    }
  }
  double s = 0, total = 0;
  for (long i = 0; i < ne; i++)
    s += e[i];
  MPI_Reduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("energy %.6f over %d ranks\n", total, size);
  MPI_Finalize();
  return 0;
}
