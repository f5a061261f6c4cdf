/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A program with one loop compiled by the plugin and one compiled by stock
 * Clang (stock-loop.test): built twice, with -DSTOCK_PART for the stock
 * object. Each loop: schedule(static, 1), 8 iterations, 2 threads. */
#include <stdio.h>
#define N 8
double stock_loop(double *a);

#ifdef STOCK_PART
double stock_loop(double *a) {
  double s = 0;
#pragma omp parallel for schedule(static, 1) num_threads(2) reduction(+ : s)
  for (int i = 0; i < N; i++) {
    a[i] = a[i] * 2 + i;
    s += a[i];
  }
  return s;
}
#else
int main(void) {
  double a[N] = {0};
#pragma omp parallel for schedule(static, 1) num_threads(2)
  for (int i = 0; i < N; i++)
    a[i] = i + 1;
  printf("%.1f\n", stock_loop(a));
  return 0;
}
#endif
