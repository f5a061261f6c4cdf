/*===- registry.c - Layer 2: every callback the tool registered ------------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * The table of events the library keeps and the derivations from it
 * (registry.h). Callbacks are set while the tool initializes (or later, by
 * the tool) and read concurrently by the runtime's threads: atomics
 * throughout. Depends on libc only; calls no other layer.
 *===----------------------------------------------------------------------===*/
#include "registry.h"

#include <stddef.h>

_Atomic(ompt_callback_t) gc_callbacks[GC_NUM_CALLBACKS];
atomic_int gc_chunks_enabled;
atomic_int gc_chunks_flags;
atomic_int gc_tool_search_started;

/* Extension events re-derive everything: the forwarders they need, the work
 * callback and chunk flags (loop and chunk events hang off the runtime's
 * work events), the task callbacks (84 stands between the runtime and the
 * tool's task_create, with 83 also its task_schedule). */
#define GC_SYNC_ALL (GC_SYNC_FORWARDERS | GC_SYNC_WORK | GC_SYNC_TASKS)

static const gc_event events[] = {
    /* event, id, forwarded, needs_work, syncs, runtime_answer */
    {ompt_callback_dispatch, GC_CB_DISPATCH, 0, 0,
     GC_SYNC_DISPATCH | GC_SYNC_WORK, 1},
    {ompt_callback_work, GC_CB_WORK, 0, 0, GC_SYNC_WORK, 1},
    {ompt_callback_task_create, GC_CB_TASK_CREATE, 0, 0, GC_SYNC_TASKS, 1},
    {ompt_callback_task_schedule, GC_CB_TASK_SCHEDULE, 0, 0, GC_SYNC_TASKS, 1},
    {ext_callback_loop, GC_CB_EXT_LOOP, 1, 1, GC_SYNC_ALL, 0},
    {ext_callback_chunk, GC_CB_EXT_CHUNK, 1, 1, GC_SYNC_ALL, 0},
    {ext_tool_time, GC_CB_EXT_TIME, 0, 0, GC_SYNC_ALL, 0},
    {ext_callback_task_create, GC_CB_EXT_TASK_CREATE, 1, 0, GC_SYNC_ALL, 0},
};

const gc_event *gc_registry_event(int event) {
  for (size_t i = 0; i < sizeof events / sizeof events[0]; ++i)
    if (events[i].event == event)
      return &events[i];
  return NULL;
}

void gc_registry_set(gc_cb_id id, ompt_callback_t cb) {
  atomic_store(&gc_callbacks[id], cb);
}

static int is_set(gc_cb_id id) { return gc_registry_get(id) != NULL; }

gc_route gc_registry_route(int runtime_event) {
  switch (runtime_event) {
  case ompt_callback_dispatch: /* to drop the runtime's first-chunk report */
    return is_set(GC_CB_DISPATCH) ? GC_ROUTE_LIBRARY : GC_ROUTE_NONE;
  case ompt_callback_work: /* to place chunks and loop events */
    return is_set(GC_CB_WORK) || is_set(GC_CB_DISPATCH) ||
                   is_set(GC_CB_EXT_LOOP) || is_set(GC_CB_EXT_CHUNK)
               ? GC_ROUTE_LIBRARY
               : GC_ROUTE_NONE;
  case ompt_callback_task_create: /* 84 */
    return is_set(GC_CB_EXT_TASK_CREATE) ? GC_ROUTE_LIBRARY : GC_ROUTE_TOOL;
  case ompt_callback_task_schedule: /* 84's making time, with 83 */
    return is_set(GC_CB_EXT_TASK_CREATE) && is_set(GC_CB_EXT_TIME)
               ? GC_ROUTE_LIBRARY
               : GC_ROUTE_TOOL;
  default:
    return GC_ROUTE_NONE;
  }
}

ompt_callback_t gc_registry_tool_callback(int runtime_event) {
  const gc_event *e = gc_registry_event(runtime_event);
  return e ? gc_registry_get(e->id) : NULL;
}

int gc_registry_forwarders(void) {
  int loop = is_set(GC_CB_EXT_LOOP);
  int chunk = is_set(GC_CB_EXT_CHUNK);
  int task_time = is_set(GC_CB_EXT_TASK_CREATE) && is_set(GC_CB_EXT_TIME);
  return (loop || chunk ? GC_NEED_LOOP : 0) | (chunk ? GC_NEED_CHUNK : 0) |
         (task_time ? GC_NEED_TASK_TIME : 0);
}

void gc_registry_derive_flags(int work_answer) {
  int want = is_set(GC_CB_DISPATCH) || is_set(GC_CB_EXT_CHUNK);
  int ok =
      want && work_answer != ompt_set_error && work_answer != ompt_set_never;
  int flags = GRAINCHUNK_WANT_CHUNKS;
  if (is_set(GC_CB_EXT_CHUNK) && is_set(GC_CB_EXT_TIME))
    flags |= GRAINCHUNK_WANT_CHUNK_END;
  atomic_store(&gc_chunks_flags, flags);
  atomic_store(&gc_chunks_enabled, ok);
}

void gc_registry_forget_tool(void) {
  atomic_store(&gc_chunks_enabled, 0);
  for (int id = 0; id < GC_NUM_CALLBACKS; ++id)
    if (id != GC_CB_WORK)
      gc_registry_set((gc_cb_id)id, NULL);
}

#ifdef GRAINCHUNK_TESTING
void gc_registry_testing_reset(void) {
  for (int id = 0; id < GC_NUM_CALLBACKS; ++id)
    gc_registry_set((gc_cb_id)id, NULL);
  atomic_store(&gc_chunks_enabled, 0);
  atomic_store(&gc_chunks_flags, 0);
  atomic_store(&gc_tool_search_started, 0);
}
#endif
