/*===- fake_tool.c - OMPT tools for the shim's unit tests -----------------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * One source, several tools (chosen by a macro at build time):
 *   FAKE_TOOL_ACCEPT   ompt_start_tool accepts; initialize registers the
 *                      callbacks listed in FAKE_TOOL_CALLBACKS ('d' dispatch,
 *                      'w' work) and returns 0 if FAKE_TOOL_INIT_FAIL is set
 *   FAKE_TOOL_DECLINE  ompt_start_tool returns NULL
 *   FAKE_TOOL_NOSTART  no ompt_start_tool at all
 * What an accepting tool saw is in fake_tool_state(), which the tests find
 * with dlsym (or link directly when the tool is linked into the test).
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "fake_tool.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#if defined(FAKE_TOOL_ACCEPT)
static fake_tool_state_t state;

fake_tool_state_t *fake_tool_state(void) { return &state; }

static void on_dispatch(ompt_data_t *pd, ompt_data_t *td, ompt_dispatch_t kind,
                        ompt_data_t instance) {
  if (state.n_events >= FAKE_TOOL_MAX_EVENTS && ++state.n_dropped)
    return;
  fake_tool_event_t *e = &state.events[state.n_events++];
  e->parallel_data = pd;
  e->task_data = td;
  e->kind = (int)kind;
  const fake_chunk_t *c = (const fake_chunk_t *)instance.ptr;
  e->start = c->start;
  e->iterations = c->iterations;
  grainchunk_get_chunk_info_t get = (grainchunk_get_chunk_info_t)dlsym(
      RTLD_DEFAULT, "grainchunk_get_chunk_info");
  grainchunk_chunk_info_t info;
  e->has_info = get && get(&info);
  if (e->has_info) {
    e->is_last = info.is_last;
    e->psource = info.psource;
  }
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint,
                    ompt_data_t *pd, ompt_data_t *td, uint64_t count,
                    const void *ra) {
  (void)wstype, (void)endpoint, (void)pd, (void)td, (void)count, (void)ra;
  state.n_work++;
}

static int initialize(ompt_function_lookup_t lookup, int device,
                      ompt_data_t *tool_data) {
  (void)device, (void)tool_data;
  state.initialized++;
  state.lookup = lookup;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  const char *cbs = getenv("FAKE_TOOL_CALLBACKS");
  state.dispatch_answer = state.work_answer = -1;
  if (cbs && strchr(cbs, 'd'))
    state.dispatch_answer =
        set(ompt_callback_dispatch, (ompt_callback_t)on_dispatch);
  if (cbs && strchr(cbs, 'w'))
    state.work_answer = set(ompt_callback_work, (ompt_callback_t)on_work);
  return getenv("FAKE_TOOL_INIT_FAIL") ? 0 : 1;
}

static void finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  state.finalized++;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version,
                                          const char *runtime_version) {
  (void)omp_version, (void)runtime_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  state.started++;
  return &result;
}

void *fake_tool_dispatch_callback(void) { return (void *)on_dispatch; }
#elif defined(FAKE_TOOL_DECLINE)
ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version,
                                          const char *runtime_version) {
  (void)omp_version, (void)runtime_version;
  return NULL;
}
#elif defined(FAKE_TOOL_NOSTART)
int fake_tool_nostart_marker = 1;
#else
#error "define one of FAKE_TOOL_ACCEPT, FAKE_TOOL_DECLINE, FAKE_TOOL_NOSTART"
#endif
