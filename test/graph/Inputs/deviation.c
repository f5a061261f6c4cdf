/* Grains whose work is known to change with the team size (deviation.test):
 * every grain spins F times as long in a team of more than one thread as on
 * one thread (F = 3), so each grain's work_deviation against a one-thread
 * run is about 3:
 * - a static loop, schedule(static, 1), 8 iterations: iteration k spins
 *   (k + 1) units;
 * - a dynamic loop, schedule(dynamic, 2), 8 iterations: 4 chunks of 2 units;
 * - one thread makes 4 tasks of 2 units, each with a child of 1 unit;
 * - a nested region inside the static loop's chunk 0 (a loop of 2 chunks).
 * Spins are on the wall clock, so a busy machine does not change them. */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define UNIT_US 400
#define F 3

static void spin_us(long us) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do
    clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static int factor(void) { return omp_get_num_threads() > 1 ? F : 1; }

int main(void) {
  int f = 1;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    f = factor();
#pragma omp for schedule(static, 1)
    for (int k = 0; k < 8; k++) {
      if (k == 0) {
        int g = factor();
#pragma omp parallel for schedule(static, 1) num_threads(1)
        for (int j = 0; j < 2; j++)
          spin_us(g * UNIT_US);
      }
      spin_us((k + 1) * f * UNIT_US);
    }
#pragma omp for schedule(dynamic, 2)
    for (int i = 0; i < 8; i++)
      spin_us(f * UNIT_US);
#pragma omp single
    for (int t = 0; t < 4; t++) {
#pragma omp task
      {
#pragma omp task
        spin_us(f * UNIT_US);
        spin_us(2 * f * UNIT_US);
#pragma omp taskwait
      }
    }
  }
  printf("team factor %d\n", f);
  return 0;
}
