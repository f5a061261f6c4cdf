/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Loops over chunks in every form the plugin instruments, and single
 * ranges, whose bodies tell the test runtime (chunkend_rt.c) each logical
 * iteration they run: the runtime checks that it lies in the open chunk,
 * and its summary counts the iterations the chunks cover and the ones the
 * bodies ran (chunk-end.test compares the two). */
#include <stdio.h>

void gc_iteration(long long i);
void gc_expect_iterations(long long n);

static void dispatch(int n, int chunk) {
#pragma omp parallel for schedule(static, chunk)
  for (int i = 0; i < n; i++)
    gc_iteration(i);
}

static void orphaned(long n) {
#pragma omp parallel
  {
#pragma omp for schedule(static, 3) nowait
    for (long i = 0; i < n; i++)
      gc_iteration(i);
#pragma omp for schedule(static, 5)
    for (unsigned i = 0; i < (unsigned)n; i++)
      gc_iteration(i);
#pragma omp for schedule(static, 4)
    for (unsigned long long i = 0; i < (unsigned long long)n; i++)
      gc_iteration(i);
#pragma omp for
    for (int i = 0; i < n; i++)
      gc_iteration(i);
  }
}

static long long distribute(int n) {
#pragma omp teams distribute dist_schedule(static, 4)
  for (int i = 0; i < n; i++)
    gc_iteration(i);
#pragma omp teams distribute parallel for dist_schedule(static, 8)
  for (int i = 0; i < n; i++)
    gc_iteration(i);
  /* In a one-thread team, Clang's walk of schedule(static, 1) steps by the
   * runtime's stride, the whole range, and runs only the first iteration
   * (stock too): count what runs. */
  long long ran = 0;
#pragma omp teams distribute parallel for schedule(static, 1) reduction(+ : ran)
  for (int i = 0; i < n; i++) {
    gc_iteration(i);
    ran++;
  }
#pragma omp teams distribute parallel for dist_schedule(static, 8)             \
    schedule(static, 3)
  for (int i = 0; i < n; i++)
    gc_iteration(i);
  return ran;
}

int main(void) {
  static const int sizes[] = {0, 1, 7, 50, 101};
  long long total = 0;
  for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    total += 10 * sizes[k];
    dispatch(sizes[k], 4);
    dispatch(sizes[k], 1);
    dispatch(sizes[k], 1000);
    orphaned(sizes[k]);
    total += distribute(sizes[k]);
  }
  gc_expect_iterations(total);
  puts("done");
  return 0;
}
