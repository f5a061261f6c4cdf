/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Grains whose work changes with the team size (deviation.test): every
 * grain spins F times as long in a team of more than one thread as on one
 * thread (F = 3), so each grain's work_deviation against a one-thread run is
 * about 3:
 * - a static loop, schedule(static, 1), 8 iterations: iteration k spins
 *   (k + 1) units; in iteration 0 a nested region runs a loop of 2 chunks;
 * - a dynamic loop, schedule(dynamic, 2), 8 iterations: 4 chunks of 2 units;
 * - one thread makes 4 tasks of 2 units, each with a child of 1 unit.
 * Spins are on the wall clock. The program also times each grain's body
 * itself and prints it ("cost <grain> <ns>"): a busy machine stretches a
 * grain in one run and not in the other, and the test compares the tool's
 * deviations with the ones these timings give. */
#include "spin.h"
#include <omp.h>
#include <stdio.h>
#define UNIT_US 400
#define F 3

static int factor(void) { return omp_get_num_threads() > 1 ? F : 1; }

int main(void) {
  static long stat_ns[8], nested_ns[2], dyn_ns[8], task_ns[4], child_ns[4];
  int f = 1;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    f = factor();
#pragma omp for schedule(static, 1)
    for (int k = 0; k < 8; k++) {
      long t = now_ns();
      if (k == 0) {
        int g = factor();
#pragma omp parallel for schedule(static, 1) num_threads(1)
        for (int j = 0; j < 2; j++) {
          long u = now_ns();
          spin_us(g * UNIT_US);
          nested_ns[j] = now_ns() - u;
        }
      }
      spin_us((k + 1) * f * UNIT_US);
      stat_ns[k] = now_ns() - t;
    }
#pragma omp for schedule(dynamic, 2)
    for (int i = 0; i < 8; i++) {
      long t = now_ns();
      spin_us(f * UNIT_US);
      dyn_ns[i] = now_ns() - t;
    }
#pragma omp single
    for (int t = 0; t < 4; t++) {
#pragma omp task
      {
#pragma omp task
        {
          long b = now_ns();
          spin_us(f * UNIT_US);
          child_ns[t] = now_ns() - b;
        }
        long a = now_ns(); /* the task's work: not its wait for the child */
        spin_us(2 * f * UNIT_US);
        task_ns[t] = now_ns() - a;
#pragma omp taskwait
      }
    }
  }
  printf("team factor %d\n", f);
  for (int k = 0; k < 8; k++)
    printf("cost static %d %ld\n", k, stat_ns[k]);
  for (int j = 0; j < 2; j++)
    printf("cost nested %d %ld\n", j, nested_ns[j]);
  for (int t = 0; t < 4; t++)
    printf("cost task %d %ld\ncost child %d %ld\n", t, task_ns[t], t,
           child_ns[t]);
  return 0;
}
