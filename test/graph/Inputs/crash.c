/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A program that ends inside a parallel loop (conditions.test): 2 threads
 * run a schedule(static, 1) loop of 1000 iterations; the iteration 600
 * (thread 0's 301st chunk) ends the process the way argv[1] says: segv,
 * exit (exit(3)), abort, kill (SIGKILL to itself) or none. The chunks
 * before it are in the recording. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile double sink;

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "none";
  setvbuf(stdout, NULL, _IONBF, 0);
  printf("ending with %s\n", how);
#pragma omp parallel for schedule(static, 1) num_threads(2)
  for (int i = 0; i < 1000; i++) {
    double x = 0;
    for (int k = 0; k < 2000; k++)
      x += k * 0.25;
    sink = x;
    if (i == 600) {
      if (!strcmp(how, "segv"))
        *(volatile int *)(sink < 0 ? &i : NULL) = 1;
      else if (!strcmp(how, "exit"))
        exit(3);
      else if (!strcmp(how, "abort"))
        abort();
      else if (!strcmp(how, "kill"))
        kill(getpid(), SIGKILL);
    }
  }
  printf("done\n");
  return 0;
}
