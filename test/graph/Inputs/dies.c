/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A program that ends inside a parallel loop (check_recording tests):
 *   dies MODE   MODE: kill (SIGKILL to itself), segv (a null store),
 *               exit (exit(3)), abort, or none (ends normally).
 * First a loop of 200 iterations (schedule(static, 1): 200 chunks), then a
 * loop over 10000..19999 whose iteration 15000 ends the process, while
 * the other thread waits in iteration 15001 (the first waits for it to get
 * there; each wait at most 10 s), so that the last chunks recorded are
 * known: 5000 and 5001 (counted from 0), none after. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int *volatile nowhere;
static double a[20000];
static volatile int reached;

static void wait_for(volatile int *flag) {
  time_t t0 = time(NULL);
  while (!*flag && time(NULL) - t0 < 10)
    ;
}

static void die(const char *mode) {
  if (!strcmp(mode, "kill"))
    kill(getpid(), SIGKILL);
  else if (!strcmp(mode, "segv"))
    *nowhere = 1;
  else if (!strcmp(mode, "exit"))
    exit(3);
  else if (!strcmp(mode, "abort"))
    abort();
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "none";
#pragma omp parallel for schedule(static, 1)
  for (int i = 0; i < 200; i++)
    a[i] = i * 0.5;
#pragma omp parallel for schedule(static, 1)
  for (int i = 10000; i < 20000; i++) {
    if (i == 15000 && strcmp(mode, "none")) {
      wait_for(&reached);
      die(mode);
    }
    if (i == 15001 && strcmp(mode, "none")) {
      static volatile int never;
      reached = 1;
      wait_for(&never);
    }
    a[i] = i * 0.25;
  }
  printf("ended normally %g\n", a[19999]);
  return 0;
}
