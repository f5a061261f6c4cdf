/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Tasks and a nested region made inside loop chunks (chunk-tasks.test),
 * the BOTS sparselu_for shape: worksharing loops whose iterations create
 * tasks. Every iteration makes the same tasks whatever the team size:
 * iteration i makes 1 task, 2 when i % 3 == 0, and the first of them makes
 * a child when i % 4 == 1; each spins UNIT_US. Three loops over N
 * iterations in one region:
 * - schedule(static): its chunks depend on the team size; iteration 4
 *   starts a nested region (num_threads(2)) whose schedule(static) loop of
 *   4 iterations makes one task per iteration;
 * - schedule(static, 3): the same chunks in every team;
 * - schedule(static) nowait.
 * The program prints how many tasks it made (the same in every team). */
#include "spin.h"
#include <omp.h>
#include <stdio.h>
#define N 14
#define UNIT_US 40

static int made;

static void work(int i) {
  int n = i % 3 == 0 ? 2 : 1;
  for (int t = 0; t < n; t++) {
#pragma omp task
    {
      if (t == 0 && i % 4 == 1) {
#pragma omp task
        spin_us(UNIT_US);
#pragma omp atomic
        made++;
      }
      spin_us(UNIT_US);
#pragma omp taskwait
    }
#pragma omp atomic
    made++;
  }
}

int main(void) {
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int i = 0; i < N; i++) {
      work(i);
      if (i == 4) {
#pragma omp parallel for schedule(static) num_threads(2)
        for (int j = 0; j < 4; j++) {
#pragma omp task
          spin_us(UNIT_US);
#pragma omp atomic
          made++;
        }
      }
    }
#pragma omp for schedule(static, 3)
    for (int i = 0; i < N; i++)
      work(i);
#pragma omp for schedule(static) nowait
    for (int i = 0; i < N; i++)
      work(i);
  }
  printf("tasks %d\n", made);
  return 0;
}
