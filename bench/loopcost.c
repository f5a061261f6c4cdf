/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* loopcost.c - run time of schedule(static, c) loops with real bodies, the
 * loops users write: for each kernel (an array update, a reduction, a
 * three-point stencil, and an empty asm body for reference), each chunk size
 * c in {1, 2, 4, 8, 64}, and each form (`parallel for`, which forks a team
 * per loop, and `for` inside one persistent parallel region), the best of
 * REPS timings of one loop over N iterations, in nanoseconds per iteration.
 * bench/run.py builds it stock and with grainchunk, runs the two builds
 * alternately and compares medians over runs.
 *
 *   loopcost N REPS
 *       "loopcost KERNEL FORM CHUNK ns_per_iter X chunks_per_thread Y" lines
 *       "loopcost threads T checksum S"
 */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static double *a, *b;
static double sink;

/* One kernel per chunk size: schedule(static, C) needs C at compile time to
 * be the code users get for a literal chunk size. */
#define PRAGMA(x) _Pragma(#x)
#define UPDATE(i) a[i] = a[i] * 3 + 1
#define STENCIL(i) b[i] = (a[(i) - 1] + a[i] + a[(i) + 1]) * (1.0 / 3)
#define EMPTY(i) __asm__ volatile("")

#define PAR_KERNELS(C)                                                         \
  static void par_update_##C(int n) {                                          \
    PRAGMA(omp parallel for schedule(static, C))                               \
    for (int i = 0; i < n; i++)                                                \
      UPDATE(i);                                                               \
  }                                                                            \
  static void par_reduce_##C(int n) {                                          \
    double s = 0;                                                              \
    PRAGMA(omp parallel for schedule(static, C) reduction(+ : s))              \
    for (int i = 0; i < n; i++)                                                \
      s += a[i] * b[i];                                                        \
    sink += s;                                                                 \
  }                                                                            \
  static void par_stencil_##C(int n) {                                         \
    PRAGMA(omp parallel for schedule(static, C))                               \
    for (int i = 1; i < n - 1; i++)                                            \
      STENCIL(i);                                                              \
  }                                                                            \
  static void par_empty_##C(int n) {                                           \
    PRAGMA(omp parallel for schedule(static, C))                               \
    for (int i = 0; i < n; i++)                                                \
      EMPTY(i);                                                                \
  }

/* Orphaned loops, called inside one persistent region. */
#define FOR_KERNELS(C)                                                         \
  static void for_update_##C(int n) {                                          \
    PRAGMA(omp for schedule(static, C))                                        \
    for (int i = 0; i < n; i++)                                                \
      UPDATE(i);                                                               \
  }                                                                            \
  static void for_reduce_##C(int n) {                                          \
    static double s;                                                           \
    PRAGMA(omp single) s = 0;                                                  \
    PRAGMA(omp for schedule(static, C) reduction(+ : s))                       \
    for (int i = 0; i < n; i++)                                                \
      s += a[i] * b[i];                                                        \
    PRAGMA(omp single) sink += s;                                              \
  }                                                                            \
  static void for_stencil_##C(int n) {                                         \
    PRAGMA(omp for schedule(static, C))                                        \
    for (int i = 1; i < n - 1; i++)                                            \
      STENCIL(i);                                                              \
  }                                                                            \
  static void for_empty_##C(int n) {                                           \
    PRAGMA(omp for schedule(static, C))                                        \
    for (int i = 0; i < n; i++)                                                \
      EMPTY(i);                                                                \
  }

#define ALL(X) X(1) X(2) X(4) X(8) X(64)
ALL(PAR_KERNELS)
ALL(FOR_KERNELS)

typedef void (*kernel_fn)(int);
static const char *kernel_names[] = {"update", "reduce", "stencil", "empty"};
static const int chunks[] = {1, 2, 4, 8, 64};
#define ROW(F, C)                                                              \
  {F##_update_##C, F##_reduce_##C, F##_stencil_##C, F##_empty_##C}
static const kernel_fn par[5][4] = {ROW(par, 1), ROW(par, 2), ROW(par, 4),
                                    ROW(par, 8), ROW(par, 64)};
static const kernel_fn orph[5][4] = {ROW(for, 1), ROW(for, 2), ROW(for, 4),
                                     ROW(for, 8), ROW(for, 64)};

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s N REPS\n", argv[0]);
    return 2;
  }
  int n = atoi(argv[1]), reps = atoi(argv[2]);
  a = malloc((size_t)n * sizeof *a);
  b = malloc((size_t)n * sizeof *b);
  for (int i = 0; i < n; i++) {
    a[i] = (double)(i % 17) * 1e-3;
    b[i] = (double)(i % 13) * 1e-3;
  }
  int threads = 1;
#pragma omp parallel
#pragma omp single
  threads = omp_get_num_threads();
  for (int c = 0; c < 5; c++)
    for (int k = 0; k < 4; k++) {
      double best = 1e300;
      for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
        double t0 = now_ns();
        par[c][k](n);
        double t = now_ns() - t0;
        if (r >= 0 && t < best)
          best = t;
      }
      printf("loopcost %s parallel-for %d ns_per_iter %.4f chunks_per_thread "
             "%d\n",
             kernel_names[k], chunks[c], best / n, n / chunks[c] / threads);
    }
  for (int c = 0; c < 5; c++)
    for (int k = 0; k < 4; k++) {
      double best = 1e300, t0 = 0;
#pragma omp parallel firstprivate(t0)
      for (int r = -1; r < reps; r++) {
#pragma omp barrier
#pragma omp master
        t0 = now_ns();
        orph[c][k](n);
#pragma omp barrier
#pragma omp master
        {
          double t = now_ns() - t0;
          if (r >= 0 && t < best)
            best = t;
        }
      }
      printf("loopcost %s persistent %d ns_per_iter %.4f chunks_per_thread "
             "%d\n",
             kernel_names[k], chunks[c], best / n, n / chunks[c] / threads);
    }
  double s = sink;
  for (int i = 0; i < n; i += 4096)
    s += a[i] + b[i];
  printf("loopcost threads %d checksum %.6g\n", threads, s);
  free(a);
  free(b);
  return 0;
}
