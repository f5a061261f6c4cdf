/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* schedbench.c - loop-scheduling overhead of OpenMP worksharing loops, after
 * the EPCC Schedbench method (own code): a reference region in which every
 * thread runs ITERSPERTHR calls of a calibrated delay() and meets the others
 * at a barrier, against the same work (ITERSPERTHR x nthreads iterations)
 * shared out by `#pragma omp for` with a given schedule. Both are timed over
 * INNERREPS repetitions inside one parallel region. Each test is timed
 * right after a reference, OUTERREPS times with the tests interleaved; the
 * overhead of a test is the median of (test - reference), in microseconds
 * per loop.
 *
 * Built twice by bench/run.py (stock Clang, and Clang + grainchunk); the
 * source is the same, so the delay loop and the reference are identical code.
 *
 *   schedbench --calibrate NS   print the delay length whose delay() takes
 *                               about NS nanoseconds on this machine
 *   schedbench DELAYLEN ITERSPERTHR INNERREPS OUTERREPS
 *       one line per test: "test NAME CHUNK OVERHEAD_US TEST_US REF_US"
 * (medians) (CHUNK 0 = no chunk size given)
 */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_delay.h"

enum kind { STATIC_CHUNKED, STATIC_PLAIN, DYNAMIC, GUIDED };

struct test {
  const char *name;
  enum kind kind;
  int chunk;
};

static int delay_len, iters_per_thr, inner_reps;

/* Seconds per repetition of the reference: no worksharing, one barrier. */
static double reference(void) {
  double t0 = now_s();
#pragma omp parallel
  for (int r = 0; r < inner_reps; r++) {
    for (int j = 0; j < iters_per_thr; j++)
      delay(delay_len);
#pragma omp barrier
  }
  return (now_s() - t0) / inner_reps;
}

/* The n iterations of delay() shared out by the worksharing directive D. */
#define SHARED_LOOP(D) _Pragma(D) for (int i = 0; i < n; i++) delay(delay_len)

/* Seconds per repetition of one worksharing loop (implicit barrier at end). */
static double run_test(const struct test *t) {
  int n = iters_per_thr * omp_get_max_threads(), c = t->chunk;
  double t0 = now_s();
#pragma omp parallel
  for (int r = 0; r < inner_reps; r++) {
    switch (t->kind) {
    case STATIC_CHUNKED:
      SHARED_LOOP("omp for schedule(static, c)");
      break;
    case STATIC_PLAIN:
      SHARED_LOOP("omp for schedule(static)");
      break;
    case DYNAMIC:
      SHARED_LOOP("omp for schedule(dynamic, c)");
      break;
    case GUIDED:
      SHARED_LOOP("omp for schedule(guided)");
      break;
    }
  }
  return (now_s() - t0) / inner_reps;
}

/* Finds the delay length for `ns` nanoseconds per call, timed on the master
 * while every thread runs delays, as in the benchmark. */
static int calibrate(double ns) {
  int len = 1;
  for (;;) {
    const int calls = 20000;
    double best = 1e30;
    for (int k = 0; k < 5; k++) {
#pragma omp parallel
      {
        double t0 = now_s();
        for (int i = 0; i < calls; i++)
          delay(len);
        double t = (now_s() - t0) / calls * 1e9;
#pragma omp master
        best = t < best ? t : best;
      }
    }
    if (best >= ns || len > (1 << 24))
      return len;
    int next = (int)(len * ns / (best > 0.5 ? best : 0.5));
    len = next > len ? (next + len * 3) / 4 + 1 : len * 2;
  }
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--calibrate")) {
    printf("%d\n", calibrate(atof(argv[2])));
    return 0;
  }
  if (argc != 5) {
    fprintf(stderr,
            "usage: %s DELAYLEN ITERSPERTHR INNERREPS OUTERREPS\n"
            "       %s --calibrate NS\n",
            argv[0], argv[0]);
    return 2;
  }
  delay_len = atoi(argv[1]);
  iters_per_thr = atoi(argv[2]);
  inner_reps = atoi(argv[3]);
  int outer = atoi(argv[4]);

  struct test tests[32];
  int ntests = 0;
  for (int c = 1; c <= 4096; c *= 2)
    tests[ntests++] = (struct test){"static", STATIC_CHUNKED, c};
  tests[ntests++] = (struct test){"static", STATIC_PLAIN, 0};
  tests[ntests++] = (struct test){"dynamic", DYNAMIC, 1};
  tests[ntests++] = (struct test){"guided", GUIDED, 0};

  /* Each test is timed right after its own reference, so slow drifts of
   * the machine cancel in the difference. */
  size_t cells = (size_t)outer * (size_t)ntests;
  double *ovh = malloc(sizeof(double) * cells);
  double *tst = malloc(sizeof(double) * cells);
  double *ref = malloc(sizeof(double) * cells);
  reference(); /* warm up: start the thread pool */
  for (int o = 0; o < outer; o++)
    for (int k = 0; k < ntests; k++) {
      size_t i = (size_t)k * (size_t)outer + (size_t)o;
      ref[i] = reference();
      tst[i] = run_test(&tests[k]);
      ovh[i] = tst[i] - ref[i];
    }
  printf("threads %d delaylen %d itersperthr %d innerreps %d outerreps %d\n",
         omp_get_max_threads(), delay_len, iters_per_thr, inner_reps, outer);
  for (int k = 0; k < ntests; k++) {
    size_t i = (size_t)k * (size_t)outer;
    printf("test %s %d %.4f %.4f %.4f\n", tests[k].name, tests[k].chunk,
           median(&ovh[i], outer) * 1e6, median(&tst[i], outer) * 1e6,
           median(&ref[i], outer) * 1e6);
  }
  free(ovh);
  free(tst);
  free(ref);
  return 0;
}
