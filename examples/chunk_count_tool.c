/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A minimal OMPT tool of the kind grainchunk serves, unaware of grainchunk:
 * it counts the loop chunks it is told about (ompt_dispatch_ws_loop_chunk)
 * and the iterations in them, per thread, and prints them at the end.
 *
 *   clang -shared -fPIC -O2 chunk_count_tool.c -o libchunk_count_tool.so
 *   OMP_TOOL_LIBRARIES=./libchunk_count_tool.so ./app
 */
#include <omp-tools.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#define MAX_THREADS 256
static atomic_ulong chunks[MAX_THREADS], iterations[MAX_THREADS];
static atomic_uint next_thread;
static ompt_get_thread_data_t get_thread_data;

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data) {
  thread_data->value = atomic_fetch_add(&next_thread, 1);
}

static void on_dispatch(ompt_data_t *parallel_data, ompt_data_t *task_data,
                        ompt_dispatch_t kind, ompt_data_t instance) {
  /* OpenMP 5.2's ompt_dispatch_ws_loop_chunk and ompt_dispatch_chunk_t,
   * spelled out: libomp 14's omp-tools.h (OpenMP 5.0) has neither. */
  if (kind != 3 /* ompt_dispatch_ws_loop_chunk */)
    return;
  const struct { uint64_t start, iterations; } *chunk = instance.ptr;
  unsigned t = get_thread_data()->value % MAX_THREADS;
  atomic_fetch_add_explicit(&chunks[t], 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&iterations[t], chunk->iterations,
                            memory_order_relaxed);
}

static int initialize(ompt_function_lookup_t lookup, int device,
                      ompt_data_t *tool_data) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  get_thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
  if (!set || !get_thread_data ||
      set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin) !=
          ompt_set_always ||
      set(ompt_callback_dispatch, (ompt_callback_t)on_dispatch) <
          ompt_set_sometimes) {
    fprintf(stderr, "chunk_count_tool: cannot register callbacks\n");
    return 0;
  }
  return 1;
}

static void finalize(ompt_data_t *tool_data) {
  unsigned long total = 0;
  for (unsigned t = 0; t < MAX_THREADS; t++)
    total += chunks[t];
  fprintf(stderr, "chunk_count_tool: saw %lu loop chunks\n", total);
  unsigned n = next_thread < MAX_THREADS ? next_thread : MAX_THREADS;
  for (unsigned t = 0; t < n; t++)
    fprintf(stderr, "chunk_count_tool:   thread %u: %lu chunks, %lu iterations\n",
            t, (unsigned long)chunks[t], (unsigned long)iterations[t]);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version,
                                          const char *runtime_version) {
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
