/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The recording tool's cost per chunk in a real program (bench/graph.sh):
 * REPS times a schedule(static, 1) loop of N iterations, each a small
 * stencil update (memory traffic, not an empty body). Prints the loop time
 * per chunk; run with no tool and under libgrainchunk-record.so, the
 * difference is what recording adds per grain. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000,
       reps = argc > 2 ? atol(argv[2]) : 5;
  double *a = calloc(n + 2, sizeof *a), *b = calloc(n + 2, sizeof *b);
  for (long i = 0; i < n + 2; i++)
    a[i] = (double)(i % 17);
  double t0 = omp_get_wtime();
  for (long r = 0; r < reps; r++) {
#pragma omp parallel for schedule(static, 1)
    for (long i = 1; i <= n; i++)
      b[i] = (a[i - 1] + a[i] + a[i + 1]) * (1.0 / 3);
    double *t = a;
    a = b;
    b = t;
  }
  double t1 = omp_get_wtime();
  double s = 0;
  for (long i = 1; i <= n; i++)
    s += a[i];
  printf("ns per chunk %.2f\nchecksum %.6f\n", (t1 - t0) * 1e9 / (n * reps), s);
  return 0;
}
