/*===- fake_runtime.c - libomp's tool search, for the unit tests ----------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * A stand-in for the OpenMP runtime's part that libgrainchunk-rt hooks: like
 * libomp it exports a weak ompt_start_tool that looks for the next one with
 * dlsym(RTLD_NEXT), calls ompt_start_tool through its PLT (so a definition
 * earlier in the process wins), then tries OMP_TOOL_LIBRARIES with dlopen +
 * dlsym(handle), closing libraries whose tool declines. OMP_TOOL=disabled
 * skips the search.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "fake_runtime.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef ompt_start_tool_result_t *(*start_fn)(unsigned, const char *);

__attribute__((weak)) ompt_start_tool_result_t *
ompt_start_tool(unsigned omp_version, const char *runtime_version) {
  start_fn next = (start_fn)dlsym(RTLD_NEXT, "ompt_start_tool");
  return next ? next(omp_version, runtime_version) : NULL;
}

ompt_start_tool_result_t *fake_runtime_search(void) {
  const char *tool = getenv("OMP_TOOL");
  if (tool && !strcmp(tool, "disabled"))
    return NULL;
  ompt_start_tool_result_t *res = ompt_start_tool(202011, "fake runtime");
  if (res)
    return res;
  const char *libs = getenv("OMP_TOOL_LIBRARIES");
  if (!libs)
    return NULL;
  char *copy = strdup(libs), *save = NULL;
  for (char *lib = strtok_r(copy, ":", &save); lib && !res;
       lib = strtok_r(NULL, ":", &save)) {
    void *h = dlopen(lib, RTLD_LAZY);
    if (!h)
      continue;
    start_fn start = (start_fn)dlsym(h, "ompt_start_tool");
    if (start)
      res = start(202011, "fake runtime");
    if (!res)
      dlclose(h);
  }
  free(copy);
  return res;
}

/* The loop and task entry points libgrainchunk-rt forwards to the runtime
 * (producers.c): each calls the test's hook, if set, with what it got and
 * its own return address (libomp reports that as codeptr_ra), as libomp
 * would run the loop and raise its events. */
fake_static_init_hook_t fake_static_init_hook;
fake_dispatch_next_hook_t fake_dispatch_next_hook;
fake_dispatch_init_hook_t fake_dispatch_init_hook;
int fake_task_allocs;

void __kmpc_for_static_init_4(void *loc, int32_t gtid, int32_t schedtype,
                              int32_t *plast, int32_t *plower, int32_t *pupper,
                              int32_t *pstride, int32_t incr, int32_t chunk) {
  (void)loc, (void)gtid, (void)plast;
  if (fake_static_init_hook)
    fake_static_init_hook(schedtype, plower, pupper, pstride, incr, chunk,
                          __builtin_return_address(0));
}

void __kmpc_dispatch_init_4(void *loc, int32_t gtid, int32_t schedule,
                            int32_t lb, int32_t ub, int32_t st, int32_t chunk) {
  (void)loc, (void)gtid;
  if (fake_dispatch_init_hook)
    fake_dispatch_init_hook(schedule, lb, ub, st, chunk,
                            __builtin_return_address(0));
}

int __kmpc_dispatch_next_4(void *loc, int32_t gtid, int32_t *plast,
                           int32_t *plb, int32_t *pub, int32_t *pst) {
  (void)loc, (void)gtid;
  return fake_dispatch_next_hook
             ? fake_dispatch_next_hook(plast, plb, pub, pst,
                                       __builtin_return_address(0))
             : 0;
}

void *__kmpc_omp_task_alloc(void *loc, int32_t gtid, int32_t flags,
                            size_t sizeof_task, size_t sizeof_shareds,
                            void *entry) {
  (void)loc, (void)gtid, (void)flags, (void)sizeof_task, (void)sizeof_shareds,
      (void)entry;
  fake_task_allocs++;
  return &fake_task_allocs;
}

int fake_cancellation;
int omp_get_cancellation(void) { return fake_cancellation; }
