/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The graph tests' programs: a monotonic clock in ns, and a spin on it
 * (wall-clock time, so a grain's length does not depend on the machine's
 * speed). */
#include <time.h>

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void spin_us(long us) {
  long end = now_ns() + us * 1000;
  while (now_ns() < end)
    ;
}
