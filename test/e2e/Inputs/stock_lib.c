/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A library compiled by stock Clang (no plugin): its loop is one the shim
 * never hears of before the runtime's work begin event. */
void stock_parallel_for(long long *sum) {
  long long s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int j = 0; j < 10; j++)
    s += j;
  *sum += s;
}
