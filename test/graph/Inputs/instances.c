/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* One loop run 6 times (6 instances) on 2 threads, schedule(static, 1),
 * 4 iterations of 8 ms; in the 4th instance (rep 3) iteration 0 spins
 * 30 ms more: that instance keeps a thread waiting the longest (more than
 * the first's team start), for the report's test of a loop problem's
 * instance steps (report-instances.test). */
#include "spin.h"
#include <stdio.h>

int main(void) {
  for (int rep = 0; rep < 6; rep++) {
#pragma omp parallel for schedule(static, 1) num_threads(2)
    for (int i = 0; i < 4; i++)
      spin_us(rep == 3 && i == 0 ? 38000 : 8000);
  }
  printf("instances: 6\n");
  return 0;
}
