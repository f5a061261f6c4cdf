/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Nested parallel regions (run with OMP_MAX_ACTIVE_LEVELS=2): each thread
 * of an outer static loop runs, per chunk, an inner parallel region with its
 * own static loop. Prints REGION/NESTED/LOOP lines for check_chunks.py. */
#include <stdio.h>

static long long acc[4][100];

int main(void) {
  int outer = 4, n = 50;
  printf("REGION 2\nLOOP %d 1\n", outer);
  for (int k = 0; k < outer; k++)
    printf("NESTED 3\nLOOP %d 7\n", n);
#pragma omp parallel for schedule(static, 1) num_threads(2)
  for (int k = 0; k < outer; k++) {
#pragma omp parallel for schedule(static, 7) num_threads(3)
    for (int i = 0; i < n; i++)
      acc[k][i] = (long long)k * 1000 + i;
  }
  long long s = 0;
  for (int k = 0; k < outer; k++)
    for (int i = 0; i < n; i++)
      s = s * 31 + acc[k][i];
  printf("sum %lld\n", s);
  return 0;
}
