/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* chunkcost.c - what one chunk of a schedule(static, 1) loop costs: an empty
 * loop body (an empty asm statement keeps each iteration, so the loop is not
 * deleted) over ITERS iterations, i.e. ITERS/nthreads chunks per thread,
 * timed REPS times between two barriers on the master thread. Prints the
 * median nanoseconds and TSC ticks per chunk (per thread: the threads run
 * their chunks side by side). bench/run.py builds it stock and with
 * grainchunk and subtracts. Keep one timing well under a scheduler time
 * slice (about a millisecond) and take many: on a loaded machine, longer
 * timings are preempted more often and the median drifts up.
 *
 *   chunkcost ITERS REPS
 *       "chunkcost threads T chunks_per_thread C ns_per_chunk X
 *        tsc_per_chunk Y tsc_per_ns Z"   (Y = -1 where there is no TSC)
 */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static uint64_t ticks(void) { return __rdtsc(); }
#define HAVE_TSC 1
#else
static uint64_t ticks(void) { return 0; }
#define HAVE_TSC 0
#endif

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s ITERS REPS\n", argv[0]);
    return 2;
  }
  int n = atoi(argv[1]), reps = atoi(argv[2]);
  double *ns = calloc((size_t)reps, sizeof *ns);
  double *tk = calloc((size_t)reps, sizeof *tk);
  int threads = 1;
#pragma omp parallel
  {
#pragma omp single
    threads = omp_get_num_threads();
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
      double t0 = 0;
      uint64_t k0 = 0;
#pragma omp barrier
#pragma omp master
      {
        t0 = now_ns();
        k0 = ticks();
      }
#pragma omp for schedule(static, 1)
      for (int i = 0; i < n; i++)
        __asm__ volatile("");
#pragma omp master
      if (r >= 0) {
        tk[r] = (double)(ticks() - k0);
        ns[r] = now_ns() - t0;
      }
    }
  }
  qsort(ns, (size_t)reps, sizeof *ns, cmp_double);
  qsort(tk, (size_t)reps, sizeof *tk, cmp_double);
  double per = (double)n / threads, mns = ns[reps / 2], mtk = tk[reps / 2];
  printf("chunkcost threads %d chunks_per_thread %.0f ns_per_chunk %.4f "
         "tsc_per_chunk %.4f tsc_per_ns %.4f\n",
         threads, per, mns / per, HAVE_TSC ? mtk / per : -1.0,
         HAVE_TSC ? mtk / mns : -1.0);
  free(ns);
  free(tk);
  return 0;
}
