/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A loop for report.test, which copies this file to one named with markup
 * ("</script><b>x.c", in a directory named "<") and builds the program
 * "</script><b>x": the names must reach report.html as text, not markup. */
#include <stdio.h>
int main(void) {
  static double a[64];
#pragma omp parallel for schedule(static, 4) num_threads(2)
  for (int i = 0; i < 64; i++)
    a[i] = i * 0.5;
  printf("%g\n", a[63]);
  return 0;
}
