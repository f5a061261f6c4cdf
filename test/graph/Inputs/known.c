/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Grains with known counts and costs, for grainchunk-graph's tests.
 * - a static loop, schedule(static, 1), K iterations on 2 threads: chunk k
 *   is iteration k and runs for (k + 1) * UNIT_US (a wall-clock spin, so
 *   time does not depend on the machine's speed), and the program measures
 *   each iteration's time itself (printed as "cost k <ns>": a busy machine
 *   may stretch a chunk, and the test compares with what really ran);
 * - a dynamic loop, schedule(dynamic, 3), 20 iterations: 7 chunks;
 * - in one region, one thread creates NTINY empty tasks and NBIG tasks of
 *   BIG_US each, then waits for them.
 * Prints the numbers the program ran (the test compares the grains). */
#include "spin.h"
#include <stdio.h>

#define K 16
#define UNIT_US 300
#define NTINY 16
#define NBIG 2
#define BIG_US 5000

int main(void) {
  static long cost[K];
#pragma omp parallel for schedule(static, 1) num_threads(2)
  for (int k = 0; k < K; k++) {
    long t = now_ns();
    spin_us((k + 1) * UNIT_US);
    cost[k] = now_ns() - t;
  }

  long sum = 0;
#pragma omp parallel for schedule(dynamic, 3) num_threads(2) reduction(+ : sum)
  for (int i = 0; i < 20; i++)
    sum += i;

  long ran = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    for (int i = 0; i < NTINY; i++) {
#pragma omp task shared(ran)
      {
#pragma omp atomic
        ran++;
      }
    }
    for (int i = 0; i < NBIG; i++) {
#pragma omp task shared(ran)
      {
        spin_us(BIG_US);
#pragma omp atomic
        ran++;
      }
    }
#pragma omp taskwait
  }
  for (int k = 0; k < K; k++)
    printf("cost %d %ld\n", k, cost[k]);
  printf("static chunks: %d\ndynamic chunks: %d\ntasks: %ld\nsum: %ld\n", K,
         (20 + 2) / 3, ran, sum);
  return 0;
}
