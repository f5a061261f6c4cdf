/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Shape (d) of issue 31 (bench/shapes.sh): LULESH's pattern. Per time
 * step several loops over the mesh's elements and nodes (schedule(static)
 * without a chunk size, so one chunk per thread per loop instance), each
 * its own parallel region as LULESH's are, some of different lengths.
 * 2 threads x 7 loops x ITERS steps: ITERS 4300 gives about 60,000 chunks.
 * Usage: lulesh [ITERS (default 4300)] [ELEMS (default 4096)] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long iters = argc > 1 ? atol(argv[1]) : 4300;
  long ne = argc > 2 ? atol(argv[2]) : 4096, nn = ne + 1;
  double *e = calloc(ne, sizeof *e), *p = calloc(ne, sizeof *p),
         *q = calloc(ne, sizeof *q), *v = calloc(ne, sizeof *v),
         *x = calloc(nn, sizeof *x), *xd = calloc(nn, sizeof *xd),
         *f = calloc(nn, sizeof *f);
  for (long i = 0; i < ne; i++)
    e[i] = 1.0 + (double)(i % 7), v[i] = 1.0;
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
  }
  double s = 0;
  for (long i = 0; i < ne; i++)
    s += e[i];
  printf("energy %.6f\n", s);
  return 0;
}
