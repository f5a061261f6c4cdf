/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Processes that run OpenMP (forks.test): the parent runs a loop of 10
 * chunks (schedule(static, 1)) before and after its children; a fork child
 * runs one of 7; a fork child that runs no OpenMP ends at once; a fork
 * child execs this program as `forks exec`, which runs one of 5. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static double a[64];

static void loop(int n) {
#pragma omp parallel for schedule(static, 1)
  for (int i = 0; i < n; i++)
    a[i] += i;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "exec")) {
    loop(5);
    return 0;
  }
  loop(10);
  fflush(stdout);
  pid_t p[3];
  if (!(p[0] = fork())) {
    loop(7);
    printf("child ran 7\n");
    return 0;
  }
  if (!(p[1] = fork()))
    _exit(0); /* no OpenMP: no recording of its own */
  if (!(p[2] = fork())) {
    execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
    _exit(127);
  }
  int ok = 1;
  for (int i = 0; i < 3; i++) {
    int st;
    ok &= waitpid(p[i], &st, 0) == p[i] && WIFEXITED(st) && !WEXITSTATUS(st);
  }
  loop(10);
  printf("parent ran 10 twice, children %s\n", ok ? "ok" : "failed");
  return !ok;
}
