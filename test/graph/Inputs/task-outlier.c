/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* One task among its siblings takes much longer (task-outlier.test): on 2
 * threads, one thread makes 24 tasks at one site, the first of 200 ms and
 * the others of 300 us, then waits for them at a taskwait; then, in a
 * second region, 8 tasks at another site of 300 us each, evenly.
 * Made to hold on a loaded machine: the long task is made first and its
 * maker goes on only once another thread has started it, so the maker runs
 * the short ones and then waits at the taskwait for the long one, however
 * the threads are scheduled (the other thread may run late; with the long
 * task left in the maker's queue, the maker would run it itself and not
 * wait). The long task is long against the delays of a loaded machine (a
 * descheduled maker wakes from its wait late, which the wait counts), and
 * the even tasks have another parent (a wait for them would count among
 * the long task's parent's waits). */
#include "spin.h"
#include <omp.h>
#include <stdio.h>

int main(void) {
  long sum = 0;
  int started = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
#pragma omp single
  {
    int others = omp_get_num_threads() > 1;
    for (int i = 0; i < 24; i++) {
#pragma omp task shared(sum, started) firstprivate(i)
      { /* uneven */
        if (i == 0) {
#pragma omp atomic write
          started = 1;
        }
        spin_us(i == 0 ? 200000 : 300);
#pragma omp atomic
        sum += i;
      }
      /* Not a task scheduling point: the other thread, at the single's
       * barrier, takes the long task. */
      for (int s = 0; i == 0 && others && !s;) {
#pragma omp atomic read
        s = started;
      }
    }
#pragma omp taskwait
  }
#pragma omp parallel num_threads(2) reduction(+ : sum)
#pragma omp single
  {
    for (int i = 0; i < 8; i++) {
#pragma omp task shared(sum) firstprivate(i)
      { /* even */
        spin_us(300);
#pragma omp atomic
        sum += i;
      }
    }
#pragma omp taskwait
  }
  printf("sum %ld\n", sum);
  return 0;
}
