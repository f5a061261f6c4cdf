/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* taskbench.c - task-creation overhead of OpenMP explicit tasks, after the
 * EPCC Taskbench method (own code): a reference region in which every thread
 * runs ITERSPERTHR calls of a calibrated delay() and meets the others at a
 * barrier, against the same work (ITERSPERTHR x nthreads calls) done as one
 * small task per call:
 *
 *   master    the master thread creates every task (EPCC MasterTasks);
 *   parallel  every thread creates ITERSPERTHR tasks (ParallelTasks);
 *   nested    every thread creates ITERSPERTHR/8 tasks, each of which
 *             creates 8 tasks (NestedTasks; the outer tasks only create);
 *   taskloop  the master runs `taskloop grainsize(1)` over all the calls
 *             (libomp makes the tasks inside __kmpc_taskloop).
 *
 * Each test is timed right after its own reference (one region per timing),
 * OUTERREPS times with the tests interleaved; the overhead of a test is the
 * median of (test - reference), in microseconds per region, and per task
 * per thread (overhead / ITERSPERTHR, the delay tasks; the nested test's
 * outer tasks are not counted). bench/run.py builds it stock and with
 * grainchunk and runs it with and without task-creation tools.
 *
 *   taskbench DELAYLEN ITERSPERTHR OUTERREPS
 *       "test NAME OVERHEAD_US TEST_US REF_US NS_PER_TASK" lines (medians)
 *       "taskbench threads T tasks_per_region N"
 */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_delay.h"

#define NESTED_FANOUT 8
static int delay_len, iters_per_thr;

static double reference(void) {
  double t0 = now_s();
#pragma omp parallel
  {
    for (int j = 0; j < iters_per_thr; j++)
      delay(delay_len);
  }
  return now_s() - t0;
}

static double master_tasks(void) {
  int n = iters_per_thr * omp_get_max_threads();
  double t0 = now_s();
#pragma omp parallel
#pragma omp master
  for (int j = 0; j < n; j++) {
#pragma omp task
    delay(delay_len);
  }
  return now_s() - t0;
}

static double parallel_tasks(void) {
  double t0 = now_s();
#pragma omp parallel
  for (int j = 0; j < iters_per_thr; j++) {
#pragma omp task
    delay(delay_len);
  }
  return now_s() - t0;
}

static double nested_tasks(void) {
  double t0 = now_s();
#pragma omp parallel
  for (int j = 0; j < iters_per_thr / NESTED_FANOUT; j++) {
#pragma omp task
    for (int k = 0; k < NESTED_FANOUT; k++) {
#pragma omp task
      delay(delay_len);
    }
  }
  return now_s() - t0;
}

static double taskloop_tasks(void) {
  /* unsigned: Clang 22 warns (-Wsign-compare) on its own taskloop code for
   * a signed iteration variable */
  unsigned n = (unsigned)(iters_per_thr * omp_get_max_threads());
  double t0 = now_s();
#pragma omp parallel
#pragma omp master
#pragma omp taskloop grainsize(1)
  for (unsigned j = 0; j < n; j++)
    delay(delay_len);
  return now_s() - t0;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s DELAYLEN ITERSPERTHR OUTERREPS\n", argv[0]);
    return 2;
  }
  delay_len = atoi(argv[1]);
  iters_per_thr = atoi(argv[2]) / NESTED_FANOUT * NESTED_FANOUT;
  int outer = atoi(argv[3]);
  if (iters_per_thr <= 0 || outer <= 0) {
    fprintf(stderr, "taskbench: ITERSPERTHR >= %d and OUTERREPS >= 1\n",
            NESTED_FANOUT);
    return 2;
  }
  static const struct {
    const char *name;
    double (*run)(void);
  } tests[] = {{"master", master_tasks},
               {"parallel", parallel_tasks},
               {"nested", nested_tasks},
               {"taskloop", taskloop_tasks}};
  enum { NTESTS = sizeof tests / sizeof tests[0] };

  size_t cells = (size_t)outer * NTESTS;
  double *ovh = malloc(sizeof(double) * cells);
  double *tst = malloc(sizeof(double) * cells);
  double *ref = malloc(sizeof(double) * cells);
  reference(); /* warm up: start the thread pool */
  for (int k = 0; k < NTESTS; k++)
    tests[k].run();
  for (int o = 0; o < outer; o++)
    for (int k = 0; k < NTESTS; k++) {
      size_t i = (size_t)k * (size_t)outer + (size_t)o;
      ref[i] = reference();
      tst[i] = tests[k].run();
      ovh[i] = tst[i] - ref[i];
    }
  int threads = omp_get_max_threads();
  printf("taskbench threads %d tasks_per_region %d\n", threads,
         iters_per_thr * threads);
  for (int k = 0; k < NTESTS; k++) {
    size_t i = (size_t)k * (size_t)outer;
    double o = median(&ovh[i], outer);
    printf("test %s %.4f %.4f %.4f %.3f\n", tests[k].name, o * 1e6,
           median(&tst[i], outer) * 1e6, median(&ref[i], outer) * 1e6,
           o * 1e9 / iters_per_thr);
  }
  free(ovh);
  free(tst);
  free(ref);
  return 0;
}
