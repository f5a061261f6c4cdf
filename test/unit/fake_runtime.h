/*===- fake_runtime.h - libomp's tool search, for the unit tests ----------===*/
#ifndef GRAINCHUNK_FAKE_RUNTIME_H
#define GRAINCHUNK_FAKE_RUNTIME_H

#include <omp-tools.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What libomp's ompt_pre_init does: returns the result it would keep. */
ompt_start_tool_result_t *fake_runtime_search(void);

#ifdef __cplusplus
}
#endif

#endif
