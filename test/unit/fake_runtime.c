/*===- fake_runtime.c - libomp's tool search, for the unit tests ----------===*
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
