/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Three loops whose problems are known, on 2 threads (problems.test):
 *   lopsided: schedule(static, 1) over 32 iterations of 200 us, but
 *             iteration 5 takes 300 ms: one outlier chunk, about 300 ms
 *             of the other thread's time lost waiting (300 ms: a loaded
 *             machine stretches a 200 us chunk of the other thread by
 *             tens of ms, as long as 60 ms at a load of 22 on 2 cores;
 *             the imbalance holds against that);
 *   even:     the same loop with every iteration 200 us;
 *   nested:   inside a region of 2 threads, each thread runs a nested
 *             parallel loop of 8 iterations of 100 us; nested parallelism
 *             is off, so every instance runs in a one-thread team. */
#include "spin.h"
#include <omp.h>
#include <stdio.h>

int main(void) {
  omp_set_num_threads(2);
  omp_set_max_active_levels(1);
  long sum = 0;
#pragma omp parallel for schedule(static, 1) reduction(+ : sum)
  for (int i = 0; i < 32; i++) { /* lopsided */
    spin_us(i == 5 ? 300000 : 200);
    sum += i;
  }
#pragma omp parallel for schedule(static, 1) reduction(+ : sum)
  for (int i = 0; i < 32; i++) { /* even */
    spin_us(200);
    sum += i;
  }
#pragma omp parallel reduction(+ : sum)
  {
#pragma omp parallel for schedule(static, 1) reduction(+ : sum)
    for (int i = 0; i < 8; i++) { /* nested */
      spin_us(100);
      sum += i;
    }
  }
  printf("sum %ld\n", sum);
  return 0;
}
