/* nocb_tool.c - benchmark OMPT tool that attaches and registers no callbacks
 * (the thesis's "tool without callbacks" scenario). Prints one line at
 * finalize so bench/run.py can check it was loaded.
 *
 *   clang -shared -fPIC -O2 nocb_tool.c -o libnocb_tool.so
 *   OMP_TOOL_LIBRARIES=./libnocb_tool.so ./schedbench ...
 */
#include <omp-tools.h>
#include <stdio.h>

static int initialize(ompt_function_lookup_t lookup, int device,
                      ompt_data_t *tool_data) {
  (void)lookup, (void)device, (void)tool_data;
  return 1; /* stay attached, ask for nothing */
}

static void finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  fprintf(stderr, "bench_tool: no callbacks registered\n");
}

ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version,
                                          const char *runtime_version) {
  (void)omp_version, (void)runtime_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
