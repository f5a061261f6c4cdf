/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Issue 34's example of debug info under the plugin: a parallel region with
 * an `omp for` (schedule(static, 4): a loop over chunks), a `single` and a
 * second `omp for` (schedule(static): one range per thread). With -g, Clang
 * outlines the region into main.omp_outlined_debug__ and inlines that into
 * main.omp_outlined, so every runtime call in it has an inline frame.
 * check_frames.py compares the frames of its runtime calls between a stock
 * and a grainchunk build. */
#include <stdio.h>
static int a[1000];
int main(void) {
#pragma omp parallel
  {
#pragma omp for schedule(static, 4)
    for (int i = 0; i < 1000; i++)
      a[i] = i;
#pragma omp single
    printf("single\n");
#pragma omp for
    for (int i = 0; i < 1000; i++)
      a[i] += 1;
  }
  printf("%d\n", a[999]);
  return 0;
}
