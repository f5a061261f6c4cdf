/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Work that grows with the iteration (schedule-estimate.test): on 2
 * threads, schedule(static) gives thread 1 iterations 32-63, three times
 * thread 0's work (iteration i spins 20 x i us); three instances. A
 * dynamic or guided schedule would share it evenly. */
#include "spin.h"
#include <stdio.h>

int main(void) {
  long sum = 0;
  for (int r = 0; r < 3; r++) {
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int i = 0; i < 64; i++) { /* triangle */
      spin_us(20L * i);
      sum += i;
    }
  }
  printf("sum %ld\n", sum);
  return 0;
}
