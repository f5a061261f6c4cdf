/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Orphaned worksharing loops, which Clang builds with OpenMPIRBuilder under
 * -fopenmp-enable-irbuilder (its own chunk loop, not Clang's): every static
 * form, teams of 1 to 4 threads and a serialized region. Prints the
 * REGION/LOOP lines check_chunks.py reads and a checksum per loop. */
#include <stdio.h>

static unsigned long long acc[1000];

static void sum(int n) {
  unsigned long long s = 0;
  for (int k = 0; k < n; k++)
    s = s * 31 + acc[k];
  printf("sum %llu\n", s);
}

static void loops(int n, int chunk) {
#pragma omp for schedule(static)
  for (int i = 0; i < n; i++)
    acc[i] += (unsigned long long)i * 3 + 1;
#pragma omp for
  for (long i = 0; i < n; i++)
    acc[i] += (unsigned long long)i;
#pragma omp for schedule(static, 1)
  for (int i = 0; i < n; i++)
    acc[i] *= 5;
#pragma omp for schedule(static, 7)
  for (unsigned long i = n; i > 0; i--)
    acc[i - 1] += i;
#pragma omp for schedule(static, chunk)
  for (unsigned i = 0; i < (unsigned)n; i += 2)
    acc[i] ^= 0x55;
}

static void region(int n, int chunk, int threads, int serial) {
  for (int k = 0; k < n; k++)
    acc[k] = 0;
  printf("REGION %d\n", serial ? 1 : threads);
  printf("LOOP %d 0\nLOOP %d 0\nLOOP %d 1\nLOOP %d 7\nLOOP %d %d\n", n, n, n, n,
         (n + 1) / 2, chunk);
#pragma omp parallel num_threads(threads) if (!serial)
  loops(n, chunk);
  sum(n);
}

int main(void) {
  for (int t = 1; t <= 4; t++) {
    region(100, 3, t, 0);
    region(7, 4, t, 0);
    region(1, 2, t, 0);
  }
  region(50, 6, 3, 1);
  return 0;
}
