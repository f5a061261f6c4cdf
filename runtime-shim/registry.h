/*===- registry.h - Layer 2: every callback the tool registered ------------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * One table of every event whose callback libgrainchunk-rt keeps instead of
 * passing it to the runtime: the standard events it stands between the
 * runtime and the tool for (dispatch, work, task_create, task_schedule) and
 * the extension events 81-84. Everything that follows from which of them
 * are set is derived here, in one place: what to register with the runtime
 * for each standard event, which forwarders must stand in the program's
 * calls, and the flags the per-chunk path reads. The registry only stores
 * and derives; start-up (layer 4) applies the registrations with the
 * producers' functions (layer 3). A new event is one row of the table and
 * its producer.
 *===----------------------------------------------------------------------===*/
#ifndef GRAINCHUNK_REGISTRY_H
#define GRAINCHUNK_REGISTRY_H

#include "loops.h"

#include <omp-tools.h>
#include <stdatomic.h>

/* The callbacks the registry keeps, by index. */
typedef enum {
  GC_CB_DISPATCH,        /* ompt_callback_dispatch */
  GC_CB_WORK,            /* ompt_callback_work */
  GC_CB_TASK_CREATE,     /* ompt_callback_task_create */
  GC_CB_TASK_SCHEDULE,   /* ompt_callback_task_schedule */
  GC_CB_EXT_LOOP,        /* 81 ext_callback_loop */
  GC_CB_EXT_CHUNK,       /* 82 ext_callback_chunk */
  GC_CB_EXT_TIME,        /* 83 ext_tool_time */
  GC_CB_EXT_TASK_CREATE, /* 84 ext_callback_task_create */
  GC_NUM_CALLBACKS
} gc_cb_id;

/* What a change of an event's callback re-derives, applied in this order. */
enum {
  GC_SYNC_FORWARDERS = 1, /* the forwarders' slots */
  GC_SYNC_DISPATCH = 2,   /* the runtime's dispatch callback */
  GC_SYNC_WORK = 4,       /* the runtime's work callback, the chunk flags */
  GC_SYNC_TASKS = 8       /* the runtime's task_create and task_schedule */
};

/* One event of the table. */
typedef struct {
  int event;          /* ompt_callbacks_t, or 81-84 */
  gc_cb_id id;        /* where its callback is kept */
  int forwarded;      /* served by the forwarders: the program's calls must
                         pass through the library */
  int needs_work;     /* nothing without the runtime's work events */
  int syncs;          /* GC_SYNC_* */
  int runtime_answer; /* the tool is answered what the runtime answered for
                         this event's own registration, else
                         ompt_set_always */
} gc_event;

/* The table's row for event, or NULL if the library does not keep it. */
const gc_event *gc_registry_event(int event) GC_HIDDEN;

/* The callbacks, read on hot paths through gc_registry_get. */
extern _Atomic(ompt_callback_t) gc_callbacks[GC_NUM_CALLBACKS] GC_HIDDEN;

static inline ompt_callback_t gc_registry_get(gc_cb_id id) {
  return atomic_load_explicit(&gc_callbacks[id], memory_order_acquire);
}
void gc_registry_set(gc_cb_id id, ompt_callback_t cb) GC_HIDDEN;

/*===------------------------------ derived -------------------------------===*/

/* What the runtime gets for one of its events the library stands between
 * (dispatch, work, task_create, task_schedule). */
typedef enum {
  GC_ROUTE_NONE,   /* nothing */
  GC_ROUTE_TOOL,   /* the tool's own callback (gc_registry_tool_callback) */
  GC_ROUTE_LIBRARY /* the library's callback (layer 3) */
} gc_route;
gc_route gc_registry_route(int runtime_event) GC_HIDDEN;
/* The tool's callback for a standard event the registry keeps, or NULL. */
ompt_callback_t gc_registry_tool_callback(int runtime_event) GC_HIDDEN;

/* Which forwarders' wrappers the registered events need. */
enum { GC_NEED_LOOP = 1, GC_NEED_CHUNK = 2, GC_NEED_TASK_TIME = 4 };
int gc_registry_forwarders(void) GC_HIDDEN;

/* The per-loop flags (__kmpc_should_callback_per_chunk's answer): chunks
 * are reported iff gc_chunks_enabled, and what is asked for is
 * gc_chunks_flags (GRAINCHUNK_WANT_*). Derived from the callbacks and the
 * runtime's answer for the work callback. */
extern atomic_int gc_chunks_enabled GC_HIDDEN;
extern atomic_int gc_chunks_flags GC_HIDDEN;
void gc_registry_derive_flags(int work_answer) GC_HIDDEN;

/* Forgets the tool's callbacks (it declined in initialize, or finalized)
 * and turns chunk events off; the work callback is kept. */
void gc_registry_forget_tool(void) GC_HIDDEN;

/* Set once libomp called an ompt_start_tool through the library (its tool
 * search ran); what the per-loop entry point tells apart when chunk events
 * are off. */
extern atomic_int gc_tool_search_started GC_HIDDEN;

#ifdef GRAINCHUNK_TESTING
void gc_registry_testing_reset(void) GC_HIDDEN;
#endif

#endif
