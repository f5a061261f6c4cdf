/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Cancelled static loops for ext-cancel.test: the same schedule(static, 4)
 * loop of 400 iterations with `cancel for`, in a library built without the
 * plugin (-DLIB_PART) and in the program built with it, and a loop of the
 * library without cancellation. Every thread runs its first two chunks and
 * the first iteration of its third, wherever the threads are: at that
 * iteration thread 0 cancels the loop, the others wait for it and then
 * spin on a cancellation point until they see it. Without cancellation
 * (OMP_CANCELLATION unset) every iteration runs.
 *
 * Each thread logs what it ran, as Inputs/ext_loops.c does (check_ext.py):
 *   B 1 400 1 0 0 <stock> <id>   before a loop (static, 400 iterations,
 *                                signed, __kmpc_for_static_init, no spin;
 *                                stock: built without the plugin)
 *   I <i>                        an iteration began
 *   E                            after the loop
 * to EXT_PROG_OUT at exit; stdout gets the iterations run and their sum,
 * which do not depend on how it was built.
 */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>

#define N 400

void ext_log(const char *fmt, long long a, long long b);
void note_iteration(int i);

/* Iteration i is chunk i / 4, which thread (i / 4) % nt runs as its
 * ((i / 4) / nt)-th. */
#define CANCEL_LOOP(STOCK, ID)                                                 \
  do {                                                                         \
    int requested = 0;                                                         \
    _Pragma("omp parallel shared(requested)") {                                \
      int nt = omp_get_num_threads();                                          \
      ext_log("B 1 400 1 0 0 %lld %lld", STOCK, ID);                           \
      _Pragma("omp for schedule(static, 4)") for (int i = 0; i < N; i++) {     \
        note_iteration(i);                                                     \
        int c = i / 4;                                                         \
        if (i % 4 == 0 && c / nt == 2) {                                       \
          if (c % nt == 0) {                                                   \
            __atomic_store_n(&requested, 1, __ATOMIC_SEQ_CST);                 \
            _Pragma("omp cancel for")                                          \
          } else if (omp_get_cancellation()) {                                 \
            while (!__atomic_load_n(&requested, __ATOMIC_SEQ_CST))             \
              sched_yield();                                                   \
            for (;;) {                                                         \
              _Pragma("omp cancellation point for") sched_yield();             \
            }                                                                  \
          }                                                                    \
        }                                                                      \
      }                                                                        \
      ext_log("E", 0, 0);                                                      \
    }                                                                          \
  } while (0)

#ifdef LIB_PART
void lib_cancel_loop(void) { CANCEL_LOOP(1, 1); }

void lib_plain_loop(void) {
#pragma omp parallel
  {
    ext_log("B 1 400 1 0 0 1 %lld", 3, 0);
#pragma omp for schedule(static, 4)
    for (int i = 0; i < N; i++)
      note_iteration(i);
    ext_log("E", 0, 0);
  }
}
#else
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "thread_log.h"

void lib_cancel_loop(void);
void lib_plain_loop(void);

static long long ran, sum;

void ext_log(const char *fmt, long long a, long long b) {
  thread_log(fmt, a, b, 0, 0, 0);
}

void note_iteration(int i) {
  ext_log("I %lld", i, 0);
  __atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&sum, i % 4, __ATOMIC_RELAXED);
}

int main(void) {
  lib_cancel_loop();
  CANCEL_LOOP(0, 2);
  lib_plain_loop();
  printf("iterations run: %lld, their offsets in their chunks sum to %lld\n",
         ran, sum);
  thread_log_write(getenv("EXT_PROG_OUT"));
  return 0;
}
#endif
