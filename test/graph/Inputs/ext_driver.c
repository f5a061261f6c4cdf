/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Drives libgrainchunk-record.so as a runtime would, without libomp: a fake
 * ompt_set_callback that answers ompt_set_always for the extension events
 * 81-84 ("ext") or ompt_set_never for them ("std", a runtime without
 * grainchunk), then a parallel region of two threads with a static loop and
 * explicit tasks whose creation durations the "runtime" reports.
 *
 *   ext_driver <tool.so> ext|std
 *
 * Prints the events the tool registered. Chunk k of the loop runs for
 * (k + 1) * UNIT_NS and is reported with create_duration creation(k),
 * right after a call of the tool's clock (include/grainchunk.h);
 * tasks 0-3 run for SMALL_NS with event_duration 2000000 (too small to
 * be worth it), tasks 4-5 for BIG_NS with event_duration 2000000. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp-tools.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grainchunk.h"

#define UNIT_NS 200000
#define SMALL_NS 1000
#define BIG_NS 5000000
#define NCHUNKS 8
#define NTASKS 6

static ompt_callback_t cb[128];
static int ext;

static int fake_set(ompt_callbacks_t which, ompt_callback_t fn) {
  int w = (int)which;
  if (w <= 0 || w >= 128)
    return ompt_set_error;
  if (w >= 81 && w <= 84 && !ext)
    return ompt_set_never;
  cb[w] = fn;
  printf("registered %d\n", w);
  return ompt_set_always;
}

static ompt_interface_fn_t lookup(const char *name) {
  if (!strcmp(name, "ompt_set_callback"))
    return (ompt_interface_fn_t)fake_set;
  return NULL;
}

static void spin(long ns) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do
    clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

/* Chunk k's creation time as the "runtime" reports it: the last two do
 * not fit the tool's short record (2^32 ticks or more; not whole ticks). */
static double creation(int k) {
  return k == 6 ? 5e9 : k == 7 ? 812.5 : 100.0 * (k + 1);
}

#define CALL(type, id, ...)                                                    \
  do {                                                                         \
    if (cb[id])                                                                \
      ((type)cb[id])(__VA_ARGS__);                                             \
  } while (0)

static ompt_data_t par, tdata[2], task_data[NTASKS];
static pthread_barrier_t bar;

/* Loop begin or end: event 81, or the standard work event. */
static void loop_event(int t, ompt_scope_endpoint_t ep) {
  if (ext)
    CALL(ext_callback_loop_t, ext_callback_loop, ext_loop_sched_static, ep,
         &par, &tdata[t], 1, 1, (const void *)loop_event);
  else
    CALL(ompt_callback_work_t, ompt_callback_work, ompt_work_loop, ep, &par,
         &tdata[t], NCHUNKS, (const void *)loop_event);
}

static void *worker(void *arg) {
  int t = (int)(long)arg;
  ompt_data_t th = {0};
  CALL(ompt_callback_thread_begin_t, ompt_callback_thread_begin,
       t ? ompt_thread_worker : ompt_thread_initial, &th);
  CALL(ompt_callback_implicit_task_t, ompt_callback_implicit_task,
       ompt_scope_begin, &par, &tdata[t], 2, (unsigned)t, ompt_task_implicit);
  /* The loop: schedule(static, 1) over NCHUNKS iterations. */
  loop_event(t, ompt_scope_begin);
  for (int k = t; k < NCHUNKS; k += 2) {
    if (ext) {
      /* As grainchunk's runtime does, the measured creation time ends with
       * a reading of the tool's clock right before the event. */
      if (cb[ext_tool_time])
        ((ext_tool_time_t)cb[ext_tool_time])();
      CALL(ext_callback_chunk_t, ext_callback_chunk, &tdata[t], k, k,
           creation(k), k == NCHUNKS - 1 ? GRAINCHUNK_CHUNK_LAST : 0);
    } else {
      /* OpenMP 5.2's ompt_dispatch_chunk_t and ws_loop_chunk (3), which
       * libomp 14's header lacks. */
      struct {
        uint64_t start, iterations;
      } c = {(uint64_t)k, 1};
      CALL(ompt_callback_dispatch_t, ompt_callback_dispatch, &par, &tdata[t],
           (ompt_dispatch_t)3, (ompt_data_t){.ptr = &c});
    }
    spin((long)(k + 1) * UNIT_NS);
  }
  loop_event(t, ompt_scope_end);
  /* The loop's barrier. */
  CALL(ompt_callback_sync_region_t, ompt_callback_sync_region_wait,
       ompt_sync_region_barrier_implicit, ompt_scope_begin, &par, &tdata[t],
       NULL);
  pthread_barrier_wait(&bar);
  CALL(ompt_callback_sync_region_t, ompt_callback_sync_region_wait,
       ompt_sync_region_barrier_implicit, ompt_scope_end, &par, &tdata[t],
       NULL);
  if (t == 0) { /* thread 0 creates the tasks, runs them, then waits */
    for (int i = 0; i < NTASKS; i++) {
      if (ext)
        CALL(ext_callback_task_create_t, ext_callback_task_create, &tdata[0],
             NULL, &task_data[i], ompt_task_explicit, 0, 2000000.0, NULL);
      else
        CALL(ompt_callback_task_create_t, ompt_callback_task_create, &tdata[0],
             NULL, &task_data[i], ompt_task_explicit, 0, NULL);
    }
    CALL(ompt_callback_sync_region_t, ompt_callback_sync_region_wait,
         ompt_sync_region_taskwait, ompt_scope_begin, &par, &tdata[0], NULL);
    for (int i = 0; i < NTASKS; i++) {
      CALL(ompt_callback_task_schedule_t, ompt_callback_task_schedule,
           &tdata[0], ompt_task_switch, &task_data[i]);
      spin(i < 4 ? SMALL_NS : BIG_NS);
      CALL(ompt_callback_task_schedule_t, ompt_callback_task_schedule,
           &task_data[i], ompt_task_complete, &tdata[0]);
    }
    CALL(ompt_callback_sync_region_t, ompt_callback_sync_region_wait,
         ompt_sync_region_taskwait, ompt_scope_end, &par, &tdata[0], NULL);
  }
  CALL(ompt_callback_implicit_task_t, ompt_callback_implicit_task,
       ompt_scope_end, &par, &tdata[t], 2, (unsigned)t, ompt_task_implicit);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: ext_driver <tool.so> ext|std\n");
    return 2;
  }
  ext = !strcmp(argv[2], "ext");
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  typedef ompt_start_tool_result_t *(*start_t)(unsigned, const char *);
  start_t start = (start_t)dlsym(h, "ompt_start_tool");
  ompt_start_tool_result_t *r = start(201611, "ext_driver");
  if (!r || !r->initialize(lookup, 0, &r->tool_data)) {
    printf("tool declined\n");
    return 1;
  }
  ompt_data_t initial = {0};
  CALL(ompt_callback_parallel_begin_t, ompt_callback_parallel_begin, &initial,
       NULL, &par, 2, ompt_parallel_team, (const void *)main);
  pthread_barrier_init(&bar, NULL, 2);
  pthread_t other;
  pthread_create(&other, NULL, worker, (void *)1L);
  worker((void *)0L);
  pthread_join(other, NULL);
  CALL(ompt_callback_parallel_end_t, ompt_callback_parallel_end, &par, &initial,
       ompt_parallel_team, (const void *)main);
  r->finalize(&r->tool_data);
  return 0;
}
