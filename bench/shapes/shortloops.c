/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Shape (a) of issue 31 (bench/shapes.sh): many short loop instances with
 * one chunk per thread, the LULESH/NPB pattern. INSTANCES times a
 * schedule(static) loop over N doubles (a stencil update: memory traffic),
 * inside one parallel region, so each instance gives one chunk per thread.
 * Usage: shortloops [INSTANCES (default 10^6)] [N (default 256)] */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long inst = argc > 1 ? atol(argv[1]) : 1000000;
  long n = argc > 2 ? atol(argv[2]) : 256;
  double *a = calloc(n + 2, sizeof *a), *b = calloc(n + 2, sizeof *b);
  for (long i = 0; i < n + 2; i++)
    a[i] = (double)(i % 13);
#pragma omp parallel
  for (long r = 0; r < inst; r++) {
#pragma omp for schedule(static)
    for (long i = 1; i <= n; i++)
      b[i] = (a[i - 1] + a[i] + a[i + 1]) * (1.0 / 3) + (double)r * 1e-9;
  }
  double s = 0;
  for (long i = 1; i <= n; i++)
    s += b[i];
  printf("checksum %.6f\n", s);
  free(a);
  free(b);
  return 0;
}
