/*===- fake_runtime.h - libomp's tool search, for the unit tests ----------===*/
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef GRAINCHUNK_FAKE_RUNTIME_H
#define GRAINCHUNK_FAKE_RUNTIME_H

#include <omp-tools.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What libomp's ompt_pre_init does: returns the result it would keep. */
ompt_start_tool_result_t *fake_runtime_search(void);

/* The runtime's own loop and task entry points (fake_runtime.c): the
 * hooks play libomp's part; ra is the return address libomp would record. */
typedef void (*fake_static_init_hook_t)(int32_t schedtype, int32_t *plower,
                                        int32_t *pupper, int32_t *pstride,
                                        int32_t incr, int32_t chunk,
                                        const void *ra);
typedef int (*fake_dispatch_next_hook_t)(int32_t *plast, int32_t *plb,
                                         int32_t *pub, int32_t *pst,
                                         const void *ra);
typedef void (*fake_dispatch_init_hook_t)(int32_t schedule, int32_t lb,
                                          int32_t ub, int32_t st, int32_t chunk,
                                          const void *ra);
extern fake_static_init_hook_t fake_static_init_hook;
extern fake_dispatch_init_hook_t fake_dispatch_init_hook;
void __kmpc_dispatch_init_4(void *loc, int32_t gtid, int32_t schedule,
                            int32_t lb, int32_t ub, int32_t st, int32_t chunk);
extern fake_dispatch_next_hook_t fake_dispatch_next_hook;
extern int fake_task_allocs;
/* What omp_get_cancellation answers (the cancel-var ICV). */
extern int fake_cancellation;
int omp_get_cancellation(void);
void __kmpc_for_static_init_4(void *loc, int32_t gtid, int32_t schedtype,
                              int32_t *plast, int32_t *plower, int32_t *pupper,
                              int32_t *pstride, int32_t incr, int32_t chunk);
int __kmpc_dispatch_next_4(void *loc, int32_t gtid, int32_t *plast,
                           int32_t *plb, int32_t *pub, int32_t *pst);
void *__kmpc_omp_task_alloc(void *loc, int32_t gtid, int32_t flags,
                            size_t sizeof_task, size_t sizeof_shareds,
                            void *entry);

#ifdef __cplusplus
}
#endif

#endif
