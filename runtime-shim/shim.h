/*===- shim.h - libgrainchunk-rt's internal declarations ------------------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * What the runtime library's files share: the per-thread record of open
 * loops (shim.c keeps it from the runtime's work events), and the hooks
 * between the standard-event part (shim.c) and the extension events
 * (extensions.c). Nothing here is visible outside the library.
 *===----------------------------------------------------------------------===*/
#ifndef GRAINCHUNK_SHIM_H
#define GRAINCHUNK_SHIM_H

#include "grainchunk.h"

#include <omp-tools.h>
#include <stdint.h>

#define GC_HIDDEN __attribute__((visibility("hidden")))
#define GC_EXPORT __attribute__((visibility("default")))
#define GC_LIKELY(x) __builtin_expect(!!(x), 1)
#define GC_UNLIKELY(x) __builtin_expect(!!(x), 0)

typedef struct { /* OpenMP 5.2 ompt_dispatch_chunk_t (not in libomp 14's
                    omp-tools.h) */
  uint64_t start;
  uint64_t iterations;
} gc_dispatch_chunk;

/* Loop records kept in the thread's TLS block; deeper nests move the stack
 * to the heap (at a loop's work begin, never per chunk). */
#define GC_INLINE_FRAMES 8

/* What the extension events know of a loop, from the entry point the
 * program called (extensions.c's forwarders). */
typedef struct {
  int sched;     /* ext_loop_sched_t; 0: the loop did not come through a
                    forwarder, no extension events for it */
  int is_signed; /* the entry point's signedness */
  int dynamic;   /* chunks come from __kmpc_dispatch_next_* */
  int blocks;    /* static: the thread's chunks are stride apart */
  int bits;      /* 32 or 64 */
  int64_t step;  /* incr/st as passed */
  double mark;   /* the tool's time when the next chunk's making began; < 0:
                    not known */
} gc_loop_ext;

/* One open loop of the thread (any loop the runtime announced with a work
 * begin event, instrumented or not). */
/* The dispatch kinds of chunks (OpenMP 5.2's ompt_dispatch_t values). */
#define GC_DISPATCH_WS_LOOP_CHUNK 3
#define GC_DISPATCH_DISTRIBUTE_CHUNK 5

typedef struct {
  ompt_data_t *parallel_data;
  ompt_data_t *task_data;
  int kind;  /* the dispatch kind of its chunks: ws_loop or distribute */
  int owned; /* instrumented: its code announced itself (should_callback) */
  const void *codeptr_ra;
  gc_loop_ext ext;
} gc_frame;

typedef struct {
  gc_frame *top;    /* innermost open loop, or NULL: all the hot path reads */
  gc_frame *frames; /* inline_frames or a heap block of cap records */
  int depth;        /* open loops (records beyond cap were not stored) */
  int cap;
  int expect; /* should_callback said yes; the loop's work begin is next */
  ompt_data_t *suppress_task; /* drop the runtime's first-chunk report */
  /* While report() delivers a chunk to the tool's dispatch callback: the
   * chunk (instance.ptr), its loop's ident and its last flag; grainchunk_
   * get_chunk_info fills its answer from them. chunk is NULL otherwise. */
  const gc_dispatch_chunk *chunk;
  const ident_t *chunk_loc;
  int32_t chunk_last;
  /* extensions.c: a forwarder's loop, until the runtime's work begin for it
   * opens its record; the return address the runtime would have seen had
   * the forwarder jumped to it (standard events carry it); when the
   * thread's next task began being made. */
  gc_loop_ext pending;
  int pending_opened; /* the work begin took pending: depth of its record */
  const void *ra_override;
  double task_mark;
  gc_frame inline_frames[GC_INLINE_FRAMES];
} gc_thread;

extern __thread gc_thread gc_tls GC_HIDDEN
    __attribute__((tls_model("initial-exec")));

/*===------------------------- extensions.c -----------------------------===*/

extern _Atomic(ext_callback_loop_t) gc_ext_loop GC_HIDDEN;
extern _Atomic(ext_callback_chunk_t) gc_ext_chunk GC_HIDDEN;
extern _Atomic(ext_tool_time_t) gc_ext_time GC_HIDDEN;

/* ompt_set_callback/ompt_get_callback for 81-84 and the events the
 * extensions share with the tool (task_create, task_schedule): *handled is
 * set to 1 if the event was one of those. */
int gc_ext_set_callback(int event, ompt_callback_t cb, int *handled) GC_HIDDEN;
int gc_ext_get_callback(int event, ompt_callback_t *cb, int *handled) GC_HIDDEN;
/* The extension events need the runtime's work events (loop begin/end). */
int gc_ext_needs_work(void) GC_HIDDEN;
/* A loop's work begin (after its record is open) and end (before). */
void gc_ext_work(const gc_frame *f, ompt_scope_endpoint_t endpoint,
                 const void *codeptr_ra) GC_HIDDEN;
/* An instrumented static chunk (the hot path; only with a chunk callback);
 * last: the plugin's flag (the chunk holds the loop's last iteration). */
void gc_ext_static_chunk(gc_frame *f, ext_callback_chunk_t cb, int32_t last,
                         uint64_t lower, uint64_t upper) GC_HIDDEN;
/* Forget everything (tool finalized, or the unit tests' reset). */
void gc_ext_reset(void) GC_HIDDEN;
/* Resolves the runtime's entry points the library forwards to. */
void gc_ext_init(void) GC_HIDDEN;

/*===----------------------------- shim.c -------------------------------===*/

/* The runtime's ompt_set_callback (NULL before the tool is initialized). */
extern ompt_set_callback_t gc_rt_set_callback GC_HIDDEN;
/* Recomputes whether instrumented code should report chunks, and registers
 * the shim's work callback iff someone needs it; returns the runtime's
 * answer for the work callback (ompt_set_error before initialization). */
int gc_sync_callbacks(void) GC_HIDDEN;
/* The worksharing constructs whose chunks grainchunk reports. */
int gc_is_loop(ompt_work_t wstype) GC_HIDDEN;

#endif
