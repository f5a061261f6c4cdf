/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A program that runs OpenMP and then execs itself (outdir-procs.test):
 * the same pid records twice, into <host>.<pid> and <host>.<pid>-2. The
 * first image runs a loop of 6 chunks (schedule(static, 1)), the exec'd
 * one a loop of 4, then exits with status 0. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static double a[16];

static void loop(int n) {
#pragma omp parallel for schedule(static, 1) num_threads(2)
  for (int i = 0; i < n; i++)
    a[i] += i;
}

int main(int argc, char **argv) {
  (void)argc;
  if (argc > 1 && !strcmp(argv[1], "again")) {
    loop(4);
    printf("exec'd image ran 4\n");
    return 0;
  }
  loop(6);
  printf("first image ran 6\n");
  fflush(stdout);
  execl("/proc/self/exe", argv[0], "again", (char *)NULL);
  perror("execl");
  return 127;
}
