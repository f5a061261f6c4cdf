/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* grain_times_tool.c - a complete OMPT tool using grainchunk's extension
 * events (docs/extensions.md): per loop, how many chunks each thread got,
 * how long the runtime and the program's loop code spent making them (the
 * chunks' create_duration), and how long the chunks ran; per run, how many
 * tasks were made and how long making them took. Times come from the tool's
 * own clock (event 83), here CLOCK_MONOTONIC in nanoseconds.
 *
 *   clang -shared -fPIC -O2 -I<grainchunk>/include grain_times_tool.c \
 *         -o libgrain_times_tool.so
 *   OMP_TOOL_LIBRARIES=./libgrain_times_tool.so ./app
 *
 * Without grainchunk's runtime library in the program, the runtime refuses
 * the events and the tool says so. Chunks marked GRAINCHUNK_CHUNK_MAY_NOT_RUN
 * (a loop compiled without the plugin, cancellation on) count only if the
 * thread did not leave the loop early (the standard cancel event).
 */
#include "grainchunk.h"

#include <omp-tools.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Per thread: the loop it is in and its running totals. */
static __thread struct {
  int in_loop, chunks, may_not_run, cancelled;
  double making, running, chunk_start;
} t;
static _Atomic long loops, chunks, tasks;
static _Atomic double making_ns, running_ns, task_ns;

static void add(_Atomic double *sum, double v) {
  double old = atomic_load(sum);
  while (!atomic_compare_exchange_weak(sum, &old, old + v))
    ;
}

static void on_loop(ext_loop_sched_t sched, ompt_scope_endpoint_t endpoint,
                    ompt_data_t *parallel_data, ompt_data_t *task_data,
                    int is_signed, int64_t step, const void *codeptr_ra) {
  (void)sched, (void)parallel_data, (void)task_data, (void)is_signed,
      (void)step, (void)codeptr_ra;
  if (endpoint == ompt_scope_begin) {
    t.in_loop = 1;
    t.chunks = t.may_not_run = t.cancelled = 0;
    t.making = t.running = 0;
    return;
  }
  if (t.chunks) /* the last chunk ran until the loop's end */
    t.running += now_ns() - t.chunk_start;
  atomic_fetch_add(&loops, 1);
  /* Which of those ran is unknown if the thread left the loop early. */
  atomic_fetch_add(&chunks, t.chunks + (t.cancelled ? 0 : t.may_not_run));
  add(&making_ns, t.making);
  add(&running_ns, t.running);
  t.in_loop = 0;
}

static void on_chunk(ompt_data_t *task_data, int64_t lower, int64_t upper,
                     double create_duration, int flags) {
  (void)task_data, (void)lower, (void)upper;
  double now = now_ns();
  /* The previous chunk ran until this one's making began. */
  if (t.chunks)
    t.running += now - create_duration - t.chunk_start;
  if (flags & GRAINCHUNK_CHUNK_MAY_NOT_RUN)
    t.may_not_run++;
  else
    t.chunks++;
  t.making += create_duration;
  t.chunk_start = now;
}

static void on_task(ompt_data_t *parent_task_data,
                    const ompt_frame_t *parent_frame,
                    ompt_data_t *new_task_data, int flags, int has_dependences,
                    double event_duration, const void *codeptr_ra) {
  (void)parent_task_data, (void)parent_frame, (void)new_task_data, (void)flags,
      (void)has_dependences, (void)codeptr_ra;
  atomic_fetch_add(&tasks, 1);
  add(&task_ns, event_duration);
}

static void on_cancel(ompt_data_t *task_data, int flags,
                      const void *codeptr_ra) {
  (void)task_data, (void)codeptr_ra;
  if (t.in_loop && (flags & ompt_cancel_loop))
    t.cancelled = 1;
}

static int initialize(ompt_function_lookup_t lookup, int device,
                      ompt_data_t *tool_data) {
  (void)device, (void)tool_data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set)
    return 0;
  /* The clock first: the runtime library times chunks and tasks with it. */
  int ok = set((ompt_callbacks_t)ext_tool_time, (ompt_callback_t)now_ns) ==
               ompt_set_always &&
           set((ompt_callbacks_t)ext_callback_loop, (ompt_callback_t)on_loop) ==
               ompt_set_always &&
           set((ompt_callbacks_t)ext_callback_chunk,
               (ompt_callback_t)on_chunk) == ompt_set_always &&
           set((ompt_callbacks_t)ext_callback_task_create,
               (ompt_callback_t)on_task) == ompt_set_always;
  if (ok)
    set(ompt_callback_cancel, (ompt_callback_t)on_cancel);
  if (!ok)
    fprintf(stderr, "grain_times_tool: this runtime has no grainchunk "
                    "extension events (is the program linked with "
                    "libgrainchunk-rt?)\n");
  return ok;
}

static void finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  long c = atomic_load(&chunks), n = atomic_load(&tasks);
  fprintf(stderr,
          "grain_times_tool: %ld loop executions (per thread), %ld chunks: "
          "making %.0f ns per chunk, running %.0f ns per chunk; %ld tasks: "
          "making %.0f ns per task\n",
          atomic_load(&loops), c, c ? atomic_load(&making_ns) / c : 0.0,
          c ? atomic_load(&running_ns) / c : 0.0, n,
          n ? atomic_load(&task_ns) / n : 0.0);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version,
                                          const char *runtime_version) {
  (void)omp_version, (void)runtime_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
