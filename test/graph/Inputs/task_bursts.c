/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Two bursts of tasks with the team idle for 200 ms between them

 * from one task site (report-task-idle.test): the report's aggregated timeline
 must show the
 * idle time between the bursts, not one bar across both. */
#include <stdio.h>
#include <time.h>

static double spin(double ms) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  double x = 0;
  do {
    for (int i = 0; i < 1000; i++)
      x += i * 1e-9;
    clock_gettime(CLOCK_MONOTONIC, &b);
  } while ((b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6 < ms);
  return x;
}

int main(void) {
  double s = 0;
#pragma omp parallel num_threads(2) reduction(+ : s)
  for (int burst = 0; burst < 2; burst++) {
    // One task site for both bursts.
#pragma omp single
    for (int i = 0; i < 8; i++) {
#pragma omp task
      s += spin(1);
    }
    if (burst == 0) {
#pragma omp single
      {
        struct timespec t = {0, 200000000};
        nanosleep(&t, NULL);
      }
    }
  }
  printf("%d\n", s > 0);
  return 0;
}
