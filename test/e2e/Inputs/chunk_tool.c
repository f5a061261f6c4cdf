/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Test OMPT tool: logs parallel regions, implicit tasks, loops and chunks.
 * It knows nothing of grainchunk except the optional grainchunk_get_chunk_info
 * extension, which it finds with dlsym like any tool would.
 *
 * CHUNK_TOOL_OUT=<file>      where to write the log (default stderr)
 * CHUNK_TOOL_NO_DISPATCH=1   register no dispatch callback; log only counts
 * CHUNK_TOOL_PSOURCE=1       after each C line, an S line with the chunk's
 *                            psource (grainchunk_get_chunk_info)
 *
 * Log lines:
 *   P <pid> <requested team size> <encountering tid>    parallel begin
 *   I <pid> <tid> <thread_num> <team_size>              implicit task begin
 *     (for a league of teams: a team's initial task, its team number and
 *     the number of teams)
 *   W <b|e> <pid> <tid> <wstype>                        loop work begin/end
 *   C <pid> <tid> <start> <iterations> <last|-> <ptrs> <kind>  loop chunk
 *     (kind 3: ws_loop_chunk, 5: distribute_chunk)
 *   S <psource|-> (CHUNK_TOOL_PSOURCE)                   the chunk's loop
 *   D <pid> <tid> <kind>                                other dispatch
 *   SET dispatch <answer>                               registration answer
 * <ptrs> is "same" when parallel_data/task_data are the pointers the runtime
 * gave this thread's implicit task, else "DIFFERENT".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp-tools.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grainchunk.h"

/* The multiplex test builds this tool twice into one process. */
#ifndef CHUNK_TOOL_OUT_VAR
#define CHUNK_TOOL_OUT_VAR "CHUNK_TOOL_OUT"
#endif

static FILE *out;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_ulong next_pid = 1, next_tid = 1;
static atomic_ulong n_parallel, n_implicit, n_work, n_dispatch;
static grainchunk_get_chunk_info_t get_info;
static ompt_get_thread_data_t get_thread_data;
static int no_dispatch, log_psource;

/* The implicit tasks this thread is in, innermost last (nested regions). */
#define MAX_NEST 64
static __thread ompt_data_t *stack_pd[MAX_NEST], *stack_td[MAX_NEST];
static __thread int depth;
static __thread ompt_data_t *cur_pd, *cur_td;

#define LOG(...)                                                               \
  do {                                                                         \
    pthread_mutex_lock(&mu);                                                   \
    fprintf(out, __VA_ARGS__);                                                 \
    pthread_mutex_unlock(&mu);                                                 \
  } while (0)

static void on_parallel_begin(ompt_data_t *etd, const ompt_frame_t *ef,
                              ompt_data_t *pd, unsigned req, int flags,
                              const void *ra) {
  atomic_fetch_add(&n_parallel, 1);
  pd->value = atomic_fetch_add(&next_pid, 1);
  if (!no_dispatch)
    LOG("P %lu %u %lu\n", (unsigned long)pd->value, req,
        etd ? (unsigned long)etd->value : 0ul);
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *pd,
                             ompt_data_t *td, unsigned team_size,
                             unsigned thread_num, int flags) {
  atomic_fetch_add(&n_implicit, 1);
  if (ep != ompt_scope_begin) {
    if (depth > 0 && stack_td[depth - 1] == td) {
      --depth;
      cur_pd = depth ? stack_pd[depth - 1] : NULL;
      cur_td = depth ? stack_td[depth - 1] : NULL;
    }
    return;
  }
  /* Initial tasks matter only as the tasks of a league's teams (the
   * program's own initial task belongs to no region the tool saw begin). */
  if ((flags & ompt_task_initial) && (!pd || pd->value == 0))
    return;
  td->value = atomic_fetch_add(&next_tid, 1);
  cur_pd = pd;
  cur_td = td;
  if (depth < MAX_NEST) {
    stack_pd[depth] = pd;
    stack_td[depth] = td;
    ++depth;
  }
  if (!no_dispatch)
    LOG("I %lu %lu %u %u\n", (unsigned long)pd->value, (unsigned long)td->value,
        thread_num, team_size);
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t ep,
                    ompt_data_t *pd, ompt_data_t *td, uint64_t count,
                    const void *ra) {
  atomic_fetch_add(&n_work, 1);
  if (!no_dispatch)
    LOG("W %c %lu %lu %d\n", ep == ompt_scope_begin ? 'b' : 'e',
        (unsigned long)pd->value, (unsigned long)td->value, (int)wstype);
}

static void on_dispatch(ompt_data_t *pd, ompt_data_t *td, ompt_dispatch_t kind,
                        ompt_data_t instance) {
  atomic_fetch_add(&n_dispatch, 1);
  if (kind != 3 /* ompt_dispatch_ws_loop_chunk */ &&
      kind != 5 /* ompt_dispatch_distribute_chunk */) {
    LOG("D %lu %lu %d\n", (unsigned long)pd->value, (unsigned long)td->value,
        (int)kind);
    return;
  }
  /* OpenMP 5.2's ompt_dispatch_chunk_t, which libomp 14's header lacks. */
  const struct { uint64_t start, iterations; } *c = instance.ptr;
  grainchunk_chunk_info_t info;
  char last[8] = "-";
  const char *psource = NULL;
  if (get_info && get_info(&info)) {
    snprintf(last, sizeof last, "%d", info.is_last);
    psource = info.psource;
  }
  pthread_mutex_lock(&mu);
  fprintf(out, "C %lu %lu %llu %llu %s %s %d\n", (unsigned long)pd->value,
          (unsigned long)td->value, (unsigned long long)c->start,
          (unsigned long long)c->iterations, last,
          pd == cur_pd && td == cur_td ? "same" : "DIFFERENT", (int)kind);
  if (log_psource)
    fprintf(out, "S %s\n", psource ? psource : "-");
  pthread_mutex_unlock(&mu);
}

static int initialize(ompt_function_lookup_t lookup, int dev,
                      ompt_data_t *tool_data) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  get_thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
  get_info = (grainchunk_get_chunk_info_t)dlsym(RTLD_DEFAULT,
                                                "grainchunk_get_chunk_info");
  int ok = set(ompt_callback_parallel_begin,
               (ompt_callback_t)on_parallel_begin) == ompt_set_always &&
           set(ompt_callback_implicit_task,
               (ompt_callback_t)on_implicit_task) == ompt_set_always &&
           set(ompt_callback_work, (ompt_callback_t)on_work) == ompt_set_always;
  if (!no_dispatch) {
    /* libomp 14 answers ompt_set_never: a tool still runs, without chunks.
     * The answer is logged for the tests. */
    int rc = set(ompt_callback_dispatch, (ompt_callback_t)on_dispatch);
    ok = ok && rc != ompt_set_error;
    LOG("SET dispatch %d\n", rc);
  }
  if (!ok) {
    fprintf(stderr, "chunk_tool: a callback could not be registered\n");
    return 0;
  }
  return 1;
}

static void finalize(ompt_data_t *tool_data) {
  fprintf(out, "COUNTS parallel=%lu implicit_task=%lu work=%lu dispatch=%lu\n",
          n_parallel, n_implicit, n_work, n_dispatch);
  if (out != stderr)
    fclose(out);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned v, const char *rt) {
  static ompt_start_tool_result_t res = {initialize, finalize, {0}};
  const char *path = getenv(CHUNK_TOOL_OUT_VAR);
  out = path ? fopen(path, "w") : stderr;
  if (!out) {
    fprintf(stderr, "chunk_tool: cannot open %s\n", path);
    return NULL;
  }
  const char *nd = getenv("CHUNK_TOOL_NO_DISPATCH");
  no_dispatch = nd && *nd == '1';
  const char *ps = getenv("CHUNK_TOOL_PSOURCE");
  log_psource = ps && *ps == '1';
  return &res;
}
