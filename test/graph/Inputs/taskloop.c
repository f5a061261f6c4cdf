/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Taskloops (names.test): each task is named by its taskloop's line. A is
 * large enough that libomp splits it recursively (helper tasks make part of
 * its tasks; KMP_TASKLOOP_MIN_TASKS=8) and nogroup, and B begins before any
 * of A's helpers runs: thread 1 is held in a task until B has begun, and
 * thread 0 runs no task before that, so the helpers make their part of A's
 * tasks after B began. C is a taskloop in another function, with a group. */
#include <omp.h>
#include <stdio.h>

static volatile int t0_started, b_begun;
static long a[64], b[5], c[12];

static void more(void) {
#pragma omp taskloop num_tasks(4) /* C */
  for (int i = 0; i < 12; i++)
    c[i] = i;
}

int main(void) {
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    int two = omp_get_num_threads() == 2;
    if (two) {
#pragma omp task
      {
        t0_started = 1;
        while (!b_begun)
          ;
      }
      while (!t0_started)
        ;
    }
#pragma omp taskloop num_tasks(64) nogroup /* A */
    for (int i = 0; i < 64; i++)
      a[i] = i;
#pragma omp taskloop num_tasks(5) nogroup /* B */
    for (int i = 0; i < 5; i++)
      b[i] = i;
    b_begun = 1;
#pragma omp taskwait
    more();
  }
  long s = 0;
  for (int i = 0; i < 64; i++)
    s += a[i] + (i < 5 ? b[i] : 0) + (i < 12 ? c[i] : 0);
  printf("%ld\n", s);
  return 0;
}
