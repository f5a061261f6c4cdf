/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Tasks made inside loop chunks (loop-tasks.test): two threads, one
 * schedule(static, 64) loop of 512 iterations, 8 chunks; iteration
 * 64k + 32 of each chunk makes one task (8 in all) that spins TASK_US
 * (longer than a chunk's 64 x 1 us, so a task is on the critical path);
 * they join at the loop's barrier. */
#include "spin.h"
#include <stdio.h>
#define N 512
#define TASK_US 300

static int made;

int main(void) {
#pragma omp parallel num_threads(2)
  {
#pragma omp for schedule(static, 64)
    for (int i = 0; i < N; i++) {
      if (i % 64 == 32) {
#pragma omp task
        spin_us(TASK_US);
#pragma omp atomic
        made++;
      }
      spin_us(1);
    }
  }
  printf("tasks %d\n", made);
  return 0;
}
