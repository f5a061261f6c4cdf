/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Two loops that alternate 1600 times each (3200 instances, 6400 chunks on
 * 2 threads, as HPGMG's smoother and residual do): more groups than the
 * report's graph draws, so it joins every instance of a loop into one node
 * (report-instances.test). */
#include <stdio.h>

int main(void) {
  static double a[4], b[4];
  for (int rep = 0; rep < 1600; rep++) {
#pragma omp parallel for schedule(static, 2) num_threads(2)
    for (int i = 0; i < 4; i++)
      a[i] += i * rep;
#pragma omp parallel for schedule(static, 2) num_threads(2)
    for (int i = 0; i < 4; i++)
      b[i] += a[i];
  }
  printf("%g\n", b[3]);
  return 0;
}
