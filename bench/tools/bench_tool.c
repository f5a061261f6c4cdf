/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bench_tool.c - the OMPT tools of the overhead benchmarks, one source, one
 * variant per build (-DBENCH_TOOL=N). Every callback only counts (and, with
 * a clock, sums the durations it is handed) in a per-thread slot on its own
 * cache line (initial-exec TLS: no __tls_get_addr call per event). Each
 * variant prints on stderr, at finalize, what it saw, so bench/run.py can
 * check that the tool really ran:
 *
 *   BENCH_NOCB       0  libnocb_tool.so: attaches and registers no callbacks
 *                       (the thesis's "tool without callbacks");
 *                       "bench_tool: no callbacks registered".
 *   BENCH_DISPATCH   1  libdispatch_tool.so: an ompt_callback_dispatch that
 *                       counts loop chunks; "bench_tool: saw N loop chunks".
 *                       Stock Clang: the runtime's reports (first static chunk
 *                       per thread and loop, dynamic/guided chunks);
 *                       grainchunk: every chunk. Also exports the
 *                       callback as bench_tool_dispatch, for
 *                       chunkfloor.c.
 *   BENCH_LOOP       2  libext_loop_tool.so: extension event 81 (loop
 *                       begin/end) only; counts loop begins.
 *   BENCH_CHUNK      3  libext_chunk_tool.so: extension event 82 (chunk), no
 *                       time function; counts chunks.
 *   BENCH_CHUNKTIME  4  libext_chunktime_tool.so: 83 (a time function that
 *                       reads the cycle counter, rdtsc) and 82; counts chunks,
 *                       sums their create_duration (ticks).
 *   BENCH_TASKSTD    5  libtask_std_tool.so: the standard
 *                       ompt_callback_task_create only; counts tasks.
 *   BENCH_TASK84     6  libext_task_tool.so: extension event 84 (task
 *                       creation), no time function; counts tasks.
 *   BENCH_TASK84TIME 7  libext_tasktime_tool.so: 83 (rdtsc) and 84; counts
 *                       tasks, sums their event_duration (ticks).
 *
 * Variants 2-7 print "bench_tool: VARIANT answers EV=A[,EV=A] loops L chunks
 * C tasks T duration_sum D": EV=A is the answer ompt_set_callback gave for
 * event EV (5 = ompt_set_always, what grainchunk's runtime library answers;
 * a stock libomp answers 0, ompt_set_error, for 81-84), and each answer
 * other than ompt_set_always is also reported on a line of its own. The tool
 * stays attached whatever the answers, so that with a stock runtime it is a
 * tool that asked for events and got none.
 *
 *   clang -shared -fPIC -O2 -Iinclude -DBENCH_TOOL=1 bench_tool.c -o \
 *     libdispatch_tool.so
 *   OMP_TOOL_LIBRARIES=./libdispatch_tool.so ./schedbench ...
 */
#include <grainchunk.h>
#include <omp-tools.h>
#include <stdatomic.h>
#include <stdio.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#define BENCH_NOCB 0
#define BENCH_DISPATCH 1
#define BENCH_LOOP 2
#define BENCH_CHUNK 3
#define BENCH_CHUNKTIME 4
#define BENCH_TASKSTD 5
#define BENCH_TASK84 6
#define BENCH_TASK84TIME 7

#ifndef BENCH_TOOL
#error "build with -DBENCH_TOOL=0 ... 7 (see the header)"
#endif

__attribute__((unused)) static const char *const variant_names[] = {
    "nocb",          "dispatch", "ext_loop", "ext_chunk",
    "ext_chunktime", "task_std", "ext_task", "ext_tasktime"};

#define MAX_THREADS 256
static struct {
  _Alignas(64) unsigned long events;
  double duration;
} counter[MAX_THREADS + 1]; /* the last slot is shared by any overflow */
static atomic_int next_slot;
static __thread int slot __attribute__((tls_model("initial-exec"))) = -1;

/* This thread's counter slot. */
__attribute__((unused)) static inline int my_slot(void) {
  if (__builtin_expect(slot < 0, 0)) {
    int s = atomic_fetch_add(&next_slot, 1);
    slot = s < MAX_THREADS ? s : MAX_THREADS;
  }
  return slot;
}

#if BENCH_TOOL == BENCH_DISPATCH
static void on_dispatch(ompt_data_t *parallel_data, ompt_data_t *task_data,
                        ompt_dispatch_t kind, ompt_data_t instance) {
  (void)parallel_data, (void)task_data, (void)instance;
  if (kind != ompt_dispatch_ws_loop_chunk)
    return;
  counter[my_slot()].events++;
}
/* What bench/tools/chunkfloor.c calls, without OMPT. */
__attribute__((visibility(
    "default"))) ompt_callback_dispatch_t bench_tool_dispatch = on_dispatch;
#endif

#if BENCH_TOOL == BENCH_LOOP
static void on_loop(ext_loop_sched_t loop_sched, ompt_scope_endpoint_t endpoint,
                    ompt_data_t *parallel_data, ompt_data_t *task_data,
                    int is_iter_signed, int64_t step, const void *codeptr_ra) {
  (void)loop_sched, (void)parallel_data, (void)task_data;
  (void)is_iter_signed, (void)step, (void)codeptr_ra;
  if (endpoint == ompt_scope_begin)
    counter[my_slot()].events++;
}
#endif

#if BENCH_TOOL == BENCH_CHUNK || BENCH_TOOL == BENCH_CHUNKTIME
static void on_chunk(ompt_data_t *task_data, int64_t lower, int64_t upper,
                     double create_duration, int flags) {
  (void)task_data, (void)lower, (void)upper, (void)flags;
  int s = my_slot();
  counter[s].events++;
  counter[s].duration += create_duration;
}
#endif

#if BENCH_TOOL == BENCH_TASKSTD
static void on_task_create(ompt_data_t *parent_task_data,
                           const ompt_frame_t *parent_frame,
                           ompt_data_t *new_task_data, int flags,
                           int has_dependences, const void *codeptr_ra) {
  (void)parent_task_data, (void)parent_frame, (void)new_task_data;
  (void)has_dependences, (void)codeptr_ra;
  if (flags & ompt_task_explicit)
    counter[my_slot()].events++;
}
#endif

#if BENCH_TOOL == BENCH_TASK84 || BENCH_TOOL == BENCH_TASK84TIME
static void on_ext_task(ompt_data_t *parent_task_data,
                        const ompt_frame_t *parent_frame,
                        ompt_data_t *new_task_data, int flags,
                        int has_dependences, double event_duration,
                        const void *codeptr_ra) {
  (void)parent_task_data, (void)parent_frame, (void)new_task_data;
  (void)flags, (void)has_dependences, (void)codeptr_ra;
  int s = my_slot();
  counter[s].events++;
  counter[s].duration += event_duration;
}
#endif

#if BENCH_TOOL == BENCH_CHUNKTIME || BENCH_TOOL == BENCH_TASK84TIME
/* The tool's clock (event 83): the cycle counter, as TR4E's tools used. */
static double cycles(void) {
#if defined(__x86_64__) || defined(__i386__)
  return (double)__rdtsc();
#else
#error "the clock variants need a cycle counter (x86 rdtsc)"
#endif
}
#endif

/* What ompt_set_callback answered, per event registered. */
static struct {
  int event, answer;
} answers[2];
static int nanswers;

static void reg(ompt_set_callback_t set, int event, ompt_callback_t cb) {
  int a = set ? set((ompt_callbacks_t)event, cb) : ompt_set_error;
  answers[nanswers].event = event;
  answers[nanswers++].answer = a;
  if (a != ompt_set_always)
    fprintf(stderr,
            "bench_tool: event %d: ompt_set_callback answered %d, not "
            "ompt_set_always (5)\n",
            event, a);
}

static int initialize(ompt_function_lookup_t lookup, int device,
                      ompt_data_t *tool_data) {
  (void)device, (void)tool_data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  (void)set, (void)reg;
#if BENCH_TOOL == BENCH_DISPATCH
  int answer = set ? set(ompt_callback_dispatch, (ompt_callback_t)on_dispatch)
                   : ompt_set_error;
  if (answer < ompt_set_sometimes)
    fprintf(stderr, "bench_tool: cannot register ompt_callback_dispatch\n");
  return answer >= ompt_set_sometimes;
#else
#if BENCH_TOOL == BENCH_LOOP
  reg(set, ext_callback_loop, (ompt_callback_t)on_loop);
#elif BENCH_TOOL == BENCH_CHUNK
  reg(set, ext_callback_chunk, (ompt_callback_t)on_chunk);
#elif BENCH_TOOL == BENCH_CHUNKTIME
  /* the clock first: with it the chunk registration asks for chunk ends */
  reg(set, ext_tool_time, (ompt_callback_t)cycles);
  reg(set, ext_callback_chunk, (ompt_callback_t)on_chunk);
#elif BENCH_TOOL == BENCH_TASKSTD
  reg(set, ompt_callback_task_create, (ompt_callback_t)on_task_create);
#elif BENCH_TOOL == BENCH_TASK84
  reg(set, ext_callback_task_create, (ompt_callback_t)on_ext_task);
#elif BENCH_TOOL == BENCH_TASK84TIME
  reg(set, ext_tool_time, (ompt_callback_t)cycles);
  reg(set, ext_callback_task_create, (ompt_callback_t)on_ext_task);
#endif
  return 1; /* stay attached, whatever the answers */
#endif
}

static void finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  unsigned long total = 0;
  double duration = 0;
  (void)total, (void)duration;
  for (int t = 0; t <= MAX_THREADS; t++) {
    total += counter[t].events;
    duration += counter[t].duration;
  }
#if BENCH_TOOL == BENCH_NOCB
  fprintf(stderr, "bench_tool: no callbacks registered\n");
#elif BENCH_TOOL == BENCH_DISPATCH
  fprintf(stderr, "bench_tool: saw %lu loop chunks\n", total);
#else
  char list[64];
  int n = 0;
  for (int i = 0; i < nanswers; i++)
    n += snprintf(list + n, sizeof list - (size_t)n, "%s%d=%d", i ? "," : "",
                  answers[i].event, answers[i].answer);
  int loops = BENCH_TOOL == BENCH_LOOP;
  int chunks = BENCH_TOOL == BENCH_CHUNK || BENCH_TOOL == BENCH_CHUNKTIME;
  fprintf(stderr,
          "bench_tool: %s answers %s loops %lu chunks %lu tasks %lu "
          "duration_sum %.0f\n",
          variant_names[BENCH_TOOL], list, loops ? total : 0,
          chunks ? total : 0, loops || chunks ? 0 : total, duration);
#endif
}

ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version,
                                          const char *runtime_version) {
  (void)omp_version, (void)runtime_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
