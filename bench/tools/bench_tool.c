/* bench_tool.c - the two OMPT tools of the overhead benchmarks, one source:
 *
 *   -DBENCH_DISPATCH=0  libnocb_tool.so: attaches and registers no callbacks
 *                       (the thesis's "tool without callbacks" scenario);
 *                       prints "bench_tool: no callbacks registered".
 *   -DBENCH_DISPATCH=1  libdispatch_tool.so: registers an (almost) empty
 *                       ompt_callback_dispatch that only counts loop chunks,
 *                       in a per-thread counter on its own cache line
 *                       (initial-exec TLS: no __tls_get_addr call per event);
 *                       prints "bench_tool: saw N loop chunks". With stock
 *                       Clang it sees the runtime's reports (first static
 *                       chunk per thread and loop, dynamic/guided chunks);
 *                       with grainchunk, every chunk.
 *
 *   clang -shared -fPIC -O2 -DBENCH_DISPATCH=1 bench_tool.c -o
 * libdispatch_tool.so OMP_TOOL_LIBRARIES=./libdispatch_tool.so ./schedbench ...
 */
#include <omp-tools.h>
#include <stdatomic.h>
#include <stdio.h>

#ifndef BENCH_DISPATCH
#error "build with -DBENCH_DISPATCH=0 or -DBENCH_DISPATCH=1"
#endif

#define MAX_THREADS 256
static struct {
  _Alignas(64) unsigned long chunks;
} counter[MAX_THREADS + 1]; /* the last slot is shared by any overflow */
static atomic_int next_slot;
static __thread int slot __attribute__((tls_model("initial-exec"))) = -1;

static void on_dispatch(ompt_data_t *parallel_data, ompt_data_t *task_data,
                        ompt_dispatch_t kind, ompt_data_t instance) {
  (void)parallel_data, (void)task_data, (void)instance;
  if (kind != ompt_dispatch_ws_loop_chunk)
    return;
  if (__builtin_expect(slot < 0, 0)) {
    int s = atomic_fetch_add(&next_slot, 1);
    slot = s < MAX_THREADS ? s : MAX_THREADS;
  }
  counter[slot].chunks++;
}

static int initialize(ompt_function_lookup_t lookup, int device,
                      ompt_data_t *tool_data) {
  (void)device, (void)tool_data;
  if (!BENCH_DISPATCH)
    return 1; /* stay attached, ask for nothing */
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  int answer = set ? set(ompt_callback_dispatch, (ompt_callback_t)on_dispatch)
                   : ompt_set_error;
  if (answer < ompt_set_sometimes)
    fprintf(stderr, "bench_tool: cannot register ompt_callback_dispatch\n");
  return answer >= ompt_set_sometimes;
}

static void finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  unsigned long total = 0;
  for (int t = 0; t <= MAX_THREADS; t++)
    total += counter[t].chunks;
  if (BENCH_DISPATCH)
    fprintf(stderr, "bench_tool: saw %lu loop chunks\n", total);
  else
    fprintf(stderr, "bench_tool: no callbacks registered\n");
}

ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version,
                                          const char *runtime_version) {
  (void)omp_version, (void)runtime_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
