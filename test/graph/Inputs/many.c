/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Many small chunks (outputs.test: the timeline at 100,000 chunks; -DN=...
   more: outdir-keep.test). */
#include <stdio.h>

#ifndef N
#define N 100000
#endif
static double a[N];

int main(void) {
#pragma omp parallel for schedule(static, 1) num_threads(2)
  for (int i = 0; i < N; i++)
    a[i] = i * 0.25 + (i % 7);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += a[i];
  printf("%.2f\n", s);
  return 0;
}
