/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* names-nog.test: built without -g, two loops of one function, a loop of an
 * #included file and two task sites are each their own site. */
#include <stdio.h>
#include "names-nog.h"
static double a[64], b[64];
static void two_loops(void) {
#pragma omp parallel num_threads(2)
  {
#pragma omp for schedule(static, 4)
    for (int i = 0; i < 64; i++)
      a[i] += i;
#pragma omp for schedule(static, 8)
    for (int i = 0; i < 64; i++)
      b[i] += a[i];
  }
}
static void two_tasks(void) {
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp task
    a[0] += 1;
#pragma omp task
    b[0] += 1;
  }
}
int main(void) {
  two_loops();
  scale_inc(a, 64);
  two_tasks();
  printf("%g %g\n", a[0], b[0]);
  return 0;
}
