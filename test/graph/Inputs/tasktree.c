/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Many small tasks (outputs.test: the analysis' memory at 131,070 tasks):
 * a binary tree of tied tasks, each waiting for its two children. DEPTH
 * (default 16) levels below the call in main (graphml.test: 6). */
#include <stdio.h>

#ifndef DEPTH
#define DEPTH 16
#endif

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
  leaves = tree(DEPTH);
  printf("%ld\n", leaves);
  return 0;
}
