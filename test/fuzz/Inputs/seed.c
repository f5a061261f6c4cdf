/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The program the graph_fuzz seed corpus is recorded from (make-seeds.sh):
 * small on purpose (a few hundred records). Two threads run a static,1 and
 * a dynamic,2 loop of 8 iterations, then tasks (one a parent of two, with a
 * taskwait) and a taskloop. argv[1]: "kill" ends the process with SIGKILL
 * in a parallel loop (an incomplete recording: thread rings left in .tail
 * files), "fork" forks a child that runs the loops too (two processes). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile double sink;

static void work(int n) {
  double x = 0;
  for (int k = 0; k < n * 1000; k++)
    x += k * 0.5;
  sink = x;
}

static void loops(int die) {
#pragma omp parallel for schedule(static, 1) num_threads(2)
  for (int i = 0; i < 8; i++) {
    work(i + 1);
    if (die && i == 5)
      kill(getpid(), SIGKILL);
  }
#pragma omp parallel for schedule(dynamic, 2) num_threads(2)
  for (int i = 0; i < 8; i++)
    work(8 - i);
}

static void tasks(void) {
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp task
    {
#pragma omp task
      work(2);
#pragma omp task
      work(3);
#pragma omp taskwait
    }
#pragma omp taskloop grainsize(2)
    for (int i = 0; i < 6; i++)
      work(i);
  }
}

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "";
  if (!strcmp(how, "fork")) {
    pid_t c = fork();
    loops(0);
    if (c == 0)
      return 0;
    waitpid(c, NULL, 0);
    return 0;
  }
  loops(!strcmp(how, "kill"));
  tasks();
  return 0;
}
