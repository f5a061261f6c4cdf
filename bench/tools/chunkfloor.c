/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* chunkfloor.c - the least any implementation of the per-chunk entry points
 * can do, to measure the floor of the dispatch-callback path: bench/run.py
 * runs the grainchunk build of chunkcost with this library in place of
 * libgrainchunk-rt (LD_LIBRARY_PATH), and the dispatch tool loaded through
 * OMP_TOOL_LIBRARIES as usual. Per chunk: the program's call into the
 * library, and the library's call of the tool's callback with the chunk.
 *
 * It is not a runtime library. It asks libomp for nothing: it finds
 * bench_tool.c's counting callback by name (bench_tool_dispatch, exported
 * by the dispatch variant only), answers every loop "chunks wanted", and
 * passes NULL for parallel_data and task_data. What the real library does
 * on top of it (find the thread's record of the loop for those two
 * pointers, check that the loop announced itself and whether extension
 * events are wanted, keep the chunk for grainchunk_get_chunk_info) is the
 * difference between the two rows.
 *
 *   clang -shared -fPIC -O2 chunkfloor.c -ldl -o floor/libgrainchunk-rt.so.0
 * (the runtime library's SONAME, which the program records as NEEDED)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp-tools.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct ident ident_t;
typedef struct {
  uint64_t start, iterations;
} chunk_t; /* ompt_dispatch_chunk_t (not in libomp 14's omp-tools.h) */

static ompt_callback_dispatch_t tool_cb;

int32_t __kmpc_should_callback_per_chunk(ident_t *loc) {
  (void)loc;
  if (__builtin_expect(!__atomic_load_n(&tool_cb, __ATOMIC_RELAXED), 0)) {
    /* libomp loaded the tool with RTLD_LOCAL: look in the object itself */
    const char *lib = getenv("OMP_TOOL_LIBRARIES");
    void *h = lib ? dlopen(lib, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    ompt_callback_dispatch_t *p =
        h ? (ompt_callback_dispatch_t *)dlsym(h, "bench_tool_dispatch") : NULL;
    if (!p || !*p) {
      fprintf(stderr, "chunkfloor: no bench_tool_dispatch in "
                      "OMP_TOOL_LIBRARIES (the dispatch variant of "
                      "bench_tool.c)\n");
      exit(2);
    }
    __atomic_store_n(&tool_cb, *p, __ATOMIC_RELAXED); /* same in every thread */
  }
  return 1; /* GRAINCHUNK_WANT_CHUNKS */
}

static inline void report(uint64_t start, uint64_t iterations) {
  chunk_t c = {start, iterations};
  ompt_data_t instance;
  instance.ptr = &c;
  /* set before this thread's loop asked for chunks (above) */
  ompt_callback_dispatch_t cb = __atomic_load_n(&tool_cb, __ATOMIC_RELAXED);
  cb(NULL, NULL, ompt_dispatch_ws_loop_chunk, instance);
}

void __kmpc_for_static_chunk_4(ident_t *loc, int32_t gtid, int32_t last,
                               int32_t lower, int32_t upper) {
  (void)loc, (void)gtid, (void)last;
  report((uint64_t)(int64_t)lower,
         (uint64_t)((int64_t)upper - (int64_t)lower) + 1);
}

void __kmpc_for_static_chunk_4u(ident_t *loc, int32_t gtid, int32_t last,
                                uint32_t lower, uint32_t upper) {
  (void)loc, (void)gtid, (void)last;
  report(lower, (uint64_t)upper - lower + 1);
}

void __kmpc_for_static_chunk_8(ident_t *loc, int32_t gtid, int32_t last,
                               int64_t lower, int64_t upper) {
  (void)loc, (void)gtid, (void)last;
  report((uint64_t)lower, (uint64_t)upper - (uint64_t)lower + 1);
}

void __kmpc_for_static_chunk_8u(ident_t *loc, int32_t gtid, int32_t last,
                                uint64_t lower, uint64_t upper) {
  (void)loc, (void)gtid, (void)last;
  report(lower, upper - lower + 1);
}

/* Never asked for (the answer above has no chunk-end bit). */
void __kmpc_for_static_chunk_end(ident_t *loc, int32_t gtid) {
  (void)loc, (void)gtid;
}
