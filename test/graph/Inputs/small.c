/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The grain graph worked out by hand (graphml.test): a region of 2 threads
 * with one schedule(static, 1) loop of 4 iterations, then one thread
 * creates 2 tasks and waits for them. */
#include <stdio.h>

int main(void) {
  double a[4] = {0};
  int done = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp for schedule(static, 1)
    for (int i = 0; i < 4; i++)
      a[i] = i * 0.5;
#pragma omp single
    {
#pragma omp task shared(done)
      {
#pragma omp atomic
        done++;
      }
#pragma omp task shared(done)
      {
#pragma omp atomic
        done++;
      }
#pragma omp taskwait
    }
  }
  printf("%g %g %g %g %d\n", a[0], a[1], a[2], a[3], done);
  return 0;
}
