/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* One task among its siblings takes much longer (task-outlier.test): on 2
 * threads, one thread makes 24 tasks at one site of 300 us each but task
 * 7, which takes 40 ms, then waits for them at a taskwait; 8 tasks at
 * another site of 300 us each, evenly. */
#include "spin.h"
#include <stdio.h>

int main(void) {
  long sum = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
#pragma omp single
  {
    for (int i = 0; i < 24; i++) {
#pragma omp task shared(sum) firstprivate(i)
      { /* uneven */
        spin_us(i == 7 ? 40000 : 300);
#pragma omp atomic
        sum += i;
      }
    }
#pragma omp taskwait
    for (int i = 0; i < 8; i++) {
#pragma omp task shared(sum) firstprivate(i)
      { /* even */
        spin_us(300);
#pragma omp atomic
        sum += i;
      }
    }
#pragma omp taskwait
  }
  printf("sum %ld\n", sum);
  return 0;
}
