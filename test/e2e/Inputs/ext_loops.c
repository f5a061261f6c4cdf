/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Loops of every schedule and tasks of every kind, for the extension-event
 * tests (ext-events.test). Each thread logs, by OS thread id, what it ran:
 *   B <sched> <n> <signed> <mode> <spin>   before a loop (sched: 1 static,
 *                                  2 dynamic, 3 guided, as the runtime will
 *                                  use it; mode 0: __kmpc_for_static_init,
 *                                  1: __kmpc_dispatch_next; spin: 1 if each
 *                                  iteration spins SPIN_NS)
 *   I <i>                          a loop iteration
 *   K <i>                          a task's work (outside any loop)
 *   E                              after the loop
 *   X <tasks>                      explicit tasks the program made at least
 * to EXT_PROG_OUT at exit; stdout gets a checksum that must not depend on
 * how the program was built.
 */
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "thread_log.h"

#define SPIN_NS 20000
static long long checksum;
#define logf_ thread_log

static void spin(void) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do
    clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec) <
         SPIN_NS);
}

static void iter(long long i, int do_spin) {
  logf_(i >= 1000 ? "K %lld" : "I %lld", i, 0, 0, 0, 0);
  if (do_spin)
    spin();
#pragma omp atomic
  checksum += i * 7 + 1;
}

#define B(sched, n, sgn, mode, sp)                                             \
  logf_("B %lld %lld %lld %lld %lld", sched, n, sgn, (mode) == 'd', sp)
#define E() logf_("E", 0, 0, 0, 0, 0)

/* The schedule the runtime uses for schedule(runtime). */
static int runtime_sched(void) {
  omp_sched_t k;
  int c;
  omp_get_schedule(&k, &c);
  k = (omp_sched_t)(k & ~omp_sched_monotonic);
  return k == omp_sched_static ? 1 : k == omp_sched_dynamic ? 2 : 3;
}

static void loops(int n_scale) {
  int n1 = 17 * n_scale, n0 = 0;
#pragma omp parallel
  {
    B(1, n1, 1, 's', 0);
#pragma omp for schedule(static, 1)
    for (int i = 0; i < n1; i++)
      iter(i, 0);
    E();
    B(1, 50, 0, 's', 0);
#pragma omp for schedule(static, 3)
    for (unsigned i = 0; i < 50u; i++)
      iter(i, 0);
    E();
    B(1, 41, 1, 's', 0);
#pragma omp for schedule(static, 4)
    for (long long i = 0; i < 41; i++)
      iter(i, 0);
    E();
    B(1, 100, 0, 's', 0);
#pragma omp for schedule(static, 7)
    for (unsigned long long i = 0; i < 100u; i++)
      iter((long long)i, 0);
    E();
    B(1, 23, 1, 's', 0);
#pragma omp for schedule(static)
    for (int i = 0; i < 23; i++)
      iter(i, 0);
    E();
    B(1, 10, 1, 's', 0);
#pragma omp for schedule(static, 1000)
    for (int i = 0; i < 10; i++)
      iter(i, 0);
    E();
    B(1, 24, 1, 's', 1);
#pragma omp for schedule(static, 2)
    for (int i = 0; i < 24; i++)
      iter(i, 1);
    E();
    /* A loop with no iterations never reaches the runtime. */
#pragma omp for schedule(static, 2)
    for (int i = 0; i < n0; i++)
      iter(i, 0);
    B(2, 40, 1, 'd', 0);
#pragma omp for schedule(dynamic, 3)
    for (int i = 0; i < 40; i++)
      iter(i, 0);
    E();
    B(2, 20, 0, 'd', 0);
#pragma omp for schedule(monotonic : dynamic)
    for (unsigned i = 0; i < 20u; i++)
      iter(i, 0);
    E();
    B(3, 60, 1, 'd', 0);
#pragma omp for schedule(guided, 2)
    for (long long i = 0; i < 60; i++)
      iter(i, 0);
    E();
    B(runtime_sched(), 45, 1, 'd', 0);
#pragma omp for schedule(runtime)
    for (int i = 0; i < 45; i++)
      iter(i, 0);
    E();
    B(3, 30, 1, 'd', 0);
#pragma omp for schedule(auto)
    for (int i = 0; i < 30; i++)
      iter(i, 0);
    E();
    B(1, 16, 1, 'd', 0);
#pragma omp for schedule(static, 2) ordered
    for (int i = 0; i < 16; i++) {
#pragma omp ordered
      iter(i, 0);
    }
    E();
    B(1, 12, 1, 's', 0);
#pragma omp for schedule(static, 2)
    for (int i = 0; i < 12; i++) {
      iter(i, 0);
      if (i == 0) {
#pragma omp parallel num_threads(2)
        {
          B(1, 5, 1, 's', 0);
#pragma omp for schedule(static, 1)
          for (int j = 0; j < 5; j++)
            iter(j, 0);
          E();
        }
      }
    }
    E();
    B(1, 33, 1, 's', 0);
#pragma omp for schedule(static, 5) nowait
    for (int i = 0; i < 33; i++)
      iter(i, 0);
    E();
    B(2, 9, 1, 'd', 0);
#pragma omp for schedule(dynamic) nowait
    for (int i = 0; i < 9; i++)
      iter(i, 0);
    E();
  }
}

static void distribute(void) {
#pragma omp teams num_teams(2)
  {
    B(1, 30, 1, 's', 0);
#pragma omp distribute dist_schedule(static, 4)
    for (int i = 0; i < 30; i++)
      iter(i, 0);
    E();
  }
}

static int tasks(void) {
  int made = 0;
#pragma omp parallel
#pragma omp single
  {
    for (int k = 0; k < 10; k++) {
#pragma omp task
      iter(1000 + k, 0);
    }
    for (int k = 0; k < 2; k++) {
#pragma omp task if (0)
      iter(2000 + k, 0);
    }
    int x = 0;
#pragma omp task depend(out : x) shared(x)
    x = 1;
#pragma omp task depend(inout : x) shared(x)
    x++;
#pragma omp task depend(in : x) shared(x)
    iter(3000 + x, 0);
    /* libomp 14 (stock) aborts on a detached task in a one-thread team. */
    int detached = omp_get_num_threads() > 1;
    if (detached) {
      omp_event_handle_t ev;
#pragma omp task detach(ev)
      iter(4000, 0);
      omp_fulfill_event(ev);
    }
#pragma omp taskloop num_tasks(6)
    for (int i = 0; i < 60; i++)
      iter(5000 + i, 0);
#pragma omp taskloop grainsize(5)
    for (int i = 0; i < 100; i++)
      iter(6000 + i, 0);
#pragma omp taskwait
    made = 10 + 2 + 3 + detached + 6 + 20;
  }
  return made;
}

int main(int argc, char **argv) {
  int scale = argc > 1 ? atoi(argv[1]) : 1;
  loops(scale);
  distribute();
  int made = tasks();
  logf_("X %lld", made, 0, 0, 0, 0);
  printf("checksum=%lld\n", checksum);
  thread_log_write(getenv("EXT_PROG_OUT"));
  return 0;
}
