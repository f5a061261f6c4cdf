/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bench_delay.h - what schedbench.c and taskbench.c share: the wall clock,
 * the calibrated unit of work, and the median of a run's timings. Static
 * functions: each benchmark gets its own copy, as when they were written out
 * in schedbench.c. */
#ifndef BENCH_DELAY_H
#define BENCH_DELAY_H
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The unit of work: `len` dependent additions through a volatile. */
__attribute__((noinline)) static void delay(int len) {
  volatile double acc = 0.0;
  for (int i = 0; i < len; i++)
    acc += (double)i;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
