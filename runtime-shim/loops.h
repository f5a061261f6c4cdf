/*===- loops.h - Layer 1: a thread's stack of open loops -------------------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * libgrainchunk-rt is built in four layers, each one file, each using only
 * the layers below it:
 *
 *   4 startup.c    finding and chaining the tool (libomp's tool search)
 *   3 producers.c  the events: per-chunk path, forwarders, OMPT callbacks
 *   2 registry.c   every callback the tool registered, and what derives
 *                  from them: the runtime's registrations, hot-path flags
 *   1 loops.c      a thread's stack of open loops
 *
 * (got_hook.c, which rewrites the runtime's imports, stands apart: it knows
 * none of them.) This layer is the record of one thread's open loops: the
 * runtime's work begin event opens a record, its end event closes it, and a
 * chunk belongs to the innermost open record. What the stack keeps of each
 * loop is plain data; the producers (layer 3) hold one stack per thread and
 * fill what the forwarders learn through the pending record. The stack
 * calls nothing above it.
 *===----------------------------------------------------------------------===*/
#ifndef GRAINCHUNK_LOOPS_H
#define GRAINCHUNK_LOOPS_H

#include "grainchunk.h"

#include <omp-tools.h>
#include <stdint.h>

#define GC_HIDDEN __attribute__((visibility("hidden")))
#define GC_EXPORT __attribute__((visibility("default")))
#define GC_LIKELY(x) __builtin_expect(!!(x), 1)
#define GC_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* OpenMP 5.2's ompt_dispatch_chunk_t (not in libomp 14's omp-tools.h). */
typedef struct {
  uint64_t start;
  uint64_t iterations;
} gc_dispatch_chunk;

/* The dispatch kinds of chunks (OpenMP 5.2's ompt_dispatch_t values). */
#define GC_DISPATCH_WS_LOOP_CHUNK 3
#define GC_DISPATCH_DISTRIBUTE_CHUNK 5

/* What the extension events know of a loop, from the entry point the
 * program called (the forwarders, layer 3). */
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
typedef struct {
  ompt_data_t *parallel_data;
  ompt_data_t *task_data;
  int kind;  /* the dispatch kind of its chunks: ws_loop or distribute */
  int owned; /* instrumented: its code announced itself (should_callback) */
  const void *codeptr_ra;
  gc_loop_ext ext;
} gc_frame;

/* Loop records kept inline (in the thread's TLS block); deeper nests move
 * the stack to the heap (when a loop opens, never per chunk). */
#define GC_INLINE_FRAMES 8

/* One thread's open loops. Zero-initialized it is an empty stack. */
typedef struct {
  gc_frame *top;    /* innermost open loop, or NULL: all the hot path reads */
  gc_frame *frames; /* inline_frames or a heap block of cap records */
  int depth;        /* open loops (records beyond cap were not stored) */
  int cap;
  /* A forwarder's loop, until the runtime's work begin for it opens its
   * record; pending_opened: the depth of the record that took it. */
  gc_loop_ext pending;
  int pending_opened;
  gc_frame inline_frames[GC_INLINE_FRAMES];
} gc_loops;

/* The innermost open loop, or NULL (none, or its record was not stored). */
static inline gc_frame *gc_loops_top(const gc_loops *s) { return s->top; }

/* Opens a record for a loop the runtime announced; it takes the pending
 * record, if any. Returns the record, or NULL if the heap had no room (the
 * loop then goes unreported, the stack stays balanced). */
gc_frame *gc_loops_open(gc_loops *s, int kind, int owned,
                        ompt_data_t *parallel_data, ompt_data_t *task_data,
                        const void *codeptr_ra) GC_HIDDEN;

/* The record the end event of the loop with these pointers closes if it is
 * the innermost one, else NULL (see gc_loops_close). */
gc_frame *gc_loops_ending(const gc_loops *s, const ompt_data_t *parallel_data,
                          const ompt_data_t *task_data) GC_HIDDEN;

/* Closes the innermost loop. Begin and end events of loops nest on a thread,
 * so that is the one ending; its pointers are compared only to survive an
 * end the runtime never sends (a cancelled dynamic loop): then the records
 * above the innermost one with these pointers are dropped too. */
void gc_loops_close(gc_loops *s, const ompt_data_t *parallel_data,
                    const ompt_data_t *task_data) GC_HIDDEN;

/* Starts a pending record (cleared) for the loop whose entry point a
 * forwarder is in; the next record opened takes it. */
gc_loop_ext *gc_loops_pend(gc_loops *s) GC_HIDDEN;

/* Forgets the pending record: the next record opened takes nothing. */
static inline void gc_loops_unpend(gc_loops *s) { s->pending.sched = 0; }

/* The record that took the pending record since gc_loops_pend, if it is
 * still the innermost one and was stored; else NULL. */
gc_frame *gc_loops_took_pending(const gc_loops *s) GC_HIDDEN;

#endif
