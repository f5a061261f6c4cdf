/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Instrumented static loops with other loops running inside their chunks
 * (run with OMP_MAX_ACTIVE_LEVELS=1, so inner regions are serialized and
 * libomp hands them the same parallel_data/task_data addresses level after
 * level). argv[1] picks the case:
 *   dynamic    schedule(static, 2), 6 iterations, 1 thread; at i == 0 the
 *              body runs a parallel for schedule(dynamic)
 *   three      static,2 -> static,1 -> dynamic, 2 threads
 *   library    schedule(static, 2), 6 iterations, 1 thread; at i == 0 the
 *              body calls a stock-compiled library's parallel for
 *   recursion  a static,2 loop of 4 iterations whose first iteration
 *              recurses, 20 levels deep
 *   task       schedule(static, 2), 8 iterations, 2 threads; at i == 0 the
 *              body creates a task running a dynamic loop and waits for it
 * Prints "EXPECT <start> <iterations>" for every chunk of every static loop
 * (computed here from OpenMP's static schedule) and a checksum. */
#include <stdio.h>
#include <string.h>

void stock_parallel_for(long long *sum); /* Inputs/stock_lib.c */

static long long sum;

/* Returns its sum: reducing into the global sum here would race with the
 * other outer thread's dyn and with the outer reduction's own combining
 * (its rare lost update made stock and grainchunk outputs differ). */
static long long dyn(int n) {
  long long s = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : s)
  for (int j = 0; j < n; j++)
    s += j;
  return s;
}

static void expect(int trip, int chunk, int times) {
  for (int t = 0; t < times; t++)
    for (int s = 0; s < trip; s += chunk)
      printf("EXPECT %d %d\n", s, trip - s < chunk ? trip - s : chunk);
}

static void rec(int depth) {
  if (depth == 20)
    return;
#pragma omp parallel for schedule(static, 2) reduction(+ : sum)
  for (int i = 0; i < 4; i++) {
    if (i == 0)
      rec(depth + 1);
    sum += i * depth;
  }
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "dynamic")) {
    expect(6, 2, 1);
#pragma omp parallel for schedule(static, 2) num_threads(1) reduction(+ : sum)
    for (int i = 0; i < 6; i++) {
      if (i == 0)
        sum += dyn(5);
      sum += i;
    }
  } else if (!strcmp(mode, "three")) {
    expect(8, 2, 1);
    expect(4, 1, 8); /* one per level-1 iteration; serialized: 1 thread */
#pragma omp parallel for schedule(static, 2) num_threads(2) reduction(+ : sum)
    for (int i = 0; i < 8; i++) {
#pragma omp parallel for schedule(static, 1) num_threads(2) reduction(+ : sum)
      for (int k = 0; k < 4; k++) {
        sum += dyn(3) + i * k;
      }
    }
  } else if (!strcmp(mode, "library")) {
    expect(6, 2, 1);
#pragma omp parallel for schedule(static, 2) num_threads(1) reduction(+ : sum)
    for (int i = 0; i < 6; i++) {
      if (i == 0)
        stock_parallel_for(&sum);
      sum += i;
    }
  } else if (!strcmp(mode, "recursion")) {
    expect(4, 2, 20);
#pragma omp parallel num_threads(1)
    rec(0);
  } else if (!strcmp(mode, "task")) {
    expect(8, 2, 1);
#pragma omp parallel for schedule(static, 2) num_threads(2) reduction(+ : sum)
    for (int i = 0; i < 8; i++) {
      if (i == 0) {
        long long t = 0;
#pragma omp task shared(t)
        t = dyn(6);
#pragma omp taskwait
        sum += t;
      }
      sum += i;
    }
  } else {
    fprintf(stderr, "usage: nesting dynamic|three|library|recursion|task\n");
    return 2;
  }
  printf("sum %lld\n", sum);
  return 0;
}
