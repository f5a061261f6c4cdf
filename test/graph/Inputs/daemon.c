/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A daemon (outdir-procs.test): the program forks, the child forks again
 * and exits, and the grandchild, reparented, runs OpenMP: after waiting
 * until its parent has exited, a loop of 2000 chunks (schedule(static, 1)),
 * each chunk sleeping 0.2 ms, so it records long after the program's own
 * process has ended. The program's own process runs no OpenMP and exits
 * with status 0 at once. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double a[2000];

int main(void) {
  pid_t c = fork();
  if (c < 0)
    return 1;
  if (c > 0) {
    int st;
    waitpid(c, &st, 0); /* the child exits at once */
    return 0;
  }
  setsid();
  pid_t parent = getpid();
  if (fork() != 0)
    _exit(0);
  while (getppid() == parent)
    usleep(1000);
  /* The program's first process is gone too: wait a little more. */
  usleep(100000);
#pragma omp parallel for schedule(static, 1) num_threads(2)
  for (int i = 0; i < 2000; i++) {
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
    a[i] += i;
  }
  FILE *f = fopen(getenv("DAEMON_DONE"), "w");
  if (f) {
    fprintf(f, "daemon ran 2000\n");
    fclose(f);
  }
  return 0;
}
