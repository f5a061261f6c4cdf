/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Shape (c) of issue 31 (bench/shapes.sh): a fine task tree as BOTS fib
 * makes it: fib(N) with a task per call down to the leaves and a taskwait
 * per call; fib(25) makes 242,784 tasks.
 * Usage: fibtasks [N (default 25)] */
#include <stdio.h>
#include <stdlib.h>

static long fib(int n) {
  long x, y;
  if (n < 2)
    return n;
#pragma omp task shared(x) firstprivate(n)
  x = fib(n - 1);
#pragma omp task shared(y) firstprivate(n)
  y = fib(n - 2);
#pragma omp taskwait
  return x + y;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 25;
  long r = 0;
#pragma omp parallel
#pragma omp single
  r = fib(n);
  printf("fib(%d) = %ld\n", n, r);
  return 0;
}
