/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* mixed-language.test: a C library of static loops that a Fortran main
 * program calls (bind(C)); the caller prints the REGION/LOOP lines. */
void c_loops(int n, int chunk, int threads, long long *out) {
#pragma omp parallel for schedule(static, chunk) num_threads(threads)
  for (int i = 0; i < n; i++)
    out[i] += (long long)i * 3 + 1;
}

void c_orphan(int n, int chunk, long long *out) {
#pragma omp for schedule(static, chunk)
  for (int i = n - 1; i >= 0; i--)
    out[i] += i;
}
