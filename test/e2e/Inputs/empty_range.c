/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Empty schedule(static) loops through OpenMPIRBuilder
 * (-fopenmp-enable-irbuilder): a run-time empty bound (argc - 1 is 0) of
 * int and unsigned long IVs, then one loop of 10 iterations, on 3
 * threads. */
#include <stdio.h>
int main(int argc, char **argv) {
  (void)argv;
  long s = 0;
  int n = argc - 1;
  unsigned long m = (unsigned long)n;
#pragma omp parallel num_threads(3) reduction(+ : s)
  {
#pragma omp for schedule(static)
    for (int i = 0; i < n; i++)
      s += i;
#pragma omp for schedule(static)
    for (unsigned long i = 5; i < 5 + m; i++)
      s += (long)i;
#pragma omp for schedule(static)
    for (long i = 0; i < 10; i++)
      s += i;
  }
  printf("sum %ld\n", s);
  return 0;
}
