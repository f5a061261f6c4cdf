/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* names-nog.test: a loop in an #included file. */
static void scale_inc(double *a, int n) {
#pragma omp parallel for schedule(static, 4) num_threads(2)
  for (int i = 0; i < n; i++)
    a[i] *= 2;
}
