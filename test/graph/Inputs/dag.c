/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Tasks made inside loop chunks, as BOTS sparselu_for does, and a region
 * nested in a chunk (graphml.test: the grain graph is still one DAG from
 * start to end). Two threads: a schedule(static, 1) loop of 4 iterations,
 * each chunk makes 2 tasks (they join at the loop's barrier) and chunk 0
 * runs a nested region of 2 threads with a loop of 2 chunks; then a
 * schedule(static, 2) nowait loop of 4 iterations; then a second region
 * with one loop of 2 iterations. */
#include <stdio.h>

static double a[16];

int main(void) {
#pragma omp parallel num_threads(2)
  {
#pragma omp for schedule(static, 1)
    for (int i = 0; i < 4; i++) {
#pragma omp task firstprivate(i)
      a[i] += 1;
#pragma omp task firstprivate(i)
      a[i + 4] += 1;
      if (i == 0) {
#pragma omp parallel for schedule(static, 1) num_threads(2)
        for (int j = 0; j < 2; j++)
          a[8 + j] += j;
      }
    }
#pragma omp for schedule(static, 2) nowait
    for (int i = 0; i < 4; i++)
      a[10 + i] += i;
  }
#pragma omp parallel for schedule(static, 1) num_threads(2)
  for (int i = 0; i < 2; i++)
    a[14 + i] += i;
  double s = 0;
  for (int i = 0; i < 16; i++)
    s += a[i];
  printf("%g\n", s);
  return 0;
}
