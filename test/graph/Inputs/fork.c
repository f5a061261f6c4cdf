/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A program that forks a child running OpenMP (fork.test): the parent runs
 * a schedule(static, 1) loop of 10 iterations on 2 threads, forks, the
 * child runs one of 14 iterations on 2 threads and exits 0, then the parent
 * runs one of 6. So the parent's recording has 16 chunks in 2 loop
 * instances, the child's 14 in 1 (each its own process). */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

static void loop(int n) {
#pragma omp parallel for schedule(static, 1) num_threads(2)
  for (int i = 0; i < n; i++)
    sink = i;
}

int main(void) {
  loop(10);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    loop(14);
    printf("child ran 14 iterations\n");
    return 0;
  }
  int st = 0;
  waitpid(pid, &st, 0);
  loop(6);
  printf("parent ran 16 iterations; child exited %d\n", WEXITSTATUS(st));
  return 0;
}
