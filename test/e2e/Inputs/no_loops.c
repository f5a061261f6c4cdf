// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An OpenMP program without worksharing loops or tasks: its only calls into
// the OpenMP runtime are ones libgrainchunk-rt does not define.
#include <stdio.h>

int main(void) {
  int n = 0;
#pragma omp parallel reduction(+ : n)
  n += 1;
  printf("threads=%d\n", n > 0);
  return 0;
}
