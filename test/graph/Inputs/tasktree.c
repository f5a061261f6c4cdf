/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Many small tasks (outputs.test: the analysis' memory at 131,070 tasks):
 * a binary tree of tied tasks, each waiting for its two children. */
#include <stdio.h>

static long tree(int depth) {
  if (depth == 0)
    return 1;
  long a, b;
#pragma omp task shared(a)
  a = tree(depth - 1);
#pragma omp task shared(b)
  b = tree(depth - 1);
#pragma omp taskwait
  return a + b;
}

int main(void) {
  long leaves = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  leaves = tree(16);
  printf("%ld\n", leaves);
  return 0;
}
