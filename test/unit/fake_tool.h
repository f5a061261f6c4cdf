/*===- fake_tool.h - What the unit tests' fake OMPT tool records ----------===*/
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef GRAINCHUNK_FAKE_TOOL_H
#define GRAINCHUNK_FAKE_TOOL_H

#include "grainchunk.h"

#include <omp-tools.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FAKE_TOOL_MAX_EVENTS 64

/* OpenMP 5.2's ompt_dispatch_chunk_t (libomp 14's omp-tools.h lacks it). */
typedef struct {
  uint64_t start, iterations;
} fake_chunk_t;

typedef struct {
  ompt_data_t *parallel_data, *task_data;
  int kind;
  uint64_t start, iterations;
  int has_info; /* grainchunk_get_chunk_info answered inside the callback */
  int32_t is_last;
  const char *psource;
} fake_tool_event_t;

typedef struct {
  int started, initialized, finalized;
  int dispatch_answer, work_answer; /* what ompt_set_callback said; -1: not
                                       asked */
  ompt_function_lookup_t lookup;    /* what the tool was handed */
  int n_work;
  int n_events;
  int n_dropped; /* events beyond FAKE_TOOL_MAX_EVENTS */
  fake_tool_event_t events[FAKE_TOOL_MAX_EVENTS];
} fake_tool_state_t;

/* The tool entry point (libomp 14's omp-tools.h does not declare it). */
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                          const char *runtime_version);

typedef fake_tool_state_t *(*fake_tool_state_fn)(void);
fake_tool_state_t *fake_tool_state(void);
void *fake_tool_dispatch_callback(void);

#ifdef __cplusplus
}
#endif

#endif
