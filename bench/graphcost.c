/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The recording tool's own cost per grain (grainchunk-graph, bench/graph.sh).
 *
 *   graphcost <libgrainchunk-record.so> <dir> <grains>
 *
 * Loads the tool as a runtime would, answers ompt_set_always to everything
 * it registers, and calls its chunk callbacks <grains> times from one
 * thread: the extension chunk event (82) with what grainchunk's runtime
 * does around it for a static chunk (two calls of the tool's clock, 83, to
 * measure the creation time), or with GRAINCHUNK_RECORD_NO_EXT=1 the
 * standard dispatch event (ws_loop_chunk). The records go to <dir> through
 * the tool's real per-thread path (format 4: the thread file's shared
 * mapping, grown by segments; format 3: a buffer and write(2)). Prints ns per
 * grain (elapsed, and the process's CPU time, which a busy machine does not
 * inflate), the bytes written per grain, and the process's peak resident memory
 * before and after, which shows that memory does not grow with the grain count.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "grainchunk.h"

static ompt_callback_t cb[128];

static int set_always(ompt_callbacks_t which, ompt_callback_t fn) {
  if ((int)which <= 0 || (int)which >= 128)
    return ompt_set_error;
  cb[which] = fn;
  return ompt_set_always;
}

static ompt_interface_fn_t lookup(const char *name) {
  return strcmp(name, "ompt_set_callback") ? NULL
                                           : (ompt_interface_fn_t)set_always;
}

static double now(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static long maxrss_kb(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

/* The bytes of thread files 0..n-1: in <dir> (format 3) or in this
 * process's <dir>/<host>.<pid> (format 4). */
static long dir_bytes(const char *dir, int n) {
  long total = 0;
  char host[256] = "", pdir[2048];
  gethostname(host, sizeof host - 1);
  snprintf(pdir, sizeof pdir, "%s/%s.%d", dir, host, (int)getpid());
  struct stat st;
  if (!stat(pdir, &st))
    dir = pdir;
  for (int i = 0; i < n; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/thread-%d.bin", dir, i);
    if (!stat(p, &st))
      total += st.st_size;
  }
  return total;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: graphcost <tool.so> <dir> <grains>\n");
    return 2;
  }
  long n = atol(argv[3]);
  setenv("GRAINCHUNK_RECORD_DIR", argv[2], 1);
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  typedef ompt_start_tool_result_t *(*start_t)(unsigned, const char *);
  ompt_start_tool_result_t *r =
      ((start_t)dlsym(h, "ompt_start_tool"))(201611, "graphcost");
  if (!r || !r->initialize(lookup, 0, &r->tool_data))
    return 1;
  ompt_data_t par = {.value = 1}, task = {.value = 2};
  struct {
    uint64_t start, iterations;
  } chunk = {0, 1}; /* OpenMP 5.2's */
  ompt_callback_dispatch_t dispatch =
      (ompt_callback_dispatch_t)cb[ompt_callback_dispatch];
  ext_callback_chunk_t ext_chunk = (ext_callback_chunk_t)cb[ext_callback_chunk];
  if (!dispatch && !ext_chunk) {
    fprintf(stderr, "graphcost: the tool registered no chunk event\n");
    return 1;
  }
  ext_tool_time_t tool_clock = (ext_tool_time_t)cb[ext_tool_time];
  if (ext_chunk && tool_clock) { /* the clock calls alone, for reference */
    double t0 = now(CLOCK_MONOTONIC), sum = 0;
    for (long i = 0; i < n; i++) {
      double mark = tool_clock();
      sum += tool_clock() - mark;
    }
    printf("two clock calls (83) alone: %.1f ns per grain (mean reading "
           "difference %.1f ticks)\n",
           (now(CLOCK_MONOTONIC) - t0) * 1e9 / n, sum / n);
  }
  long rss0 = maxrss_kb();
  double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
  if (ext_chunk &&
      tool_clock) /* as grainchunk's runtime does per static chunk */
    for (long i = 0; i < n; i++) {
      double mark = tool_clock(); /* the chunk-end call of the chunk before */
      double d = tool_clock() - mark; /* the chunk call */
      ext_chunk(&task, i, i, d, 0);
    }
  else if (ext_chunk)
    for (long i = 0; i < n; i++)
      ext_chunk(&task, i, i, 0, 0);
  else /* GRAINCHUNK_RECORD_NO_EXT=1: the standard event */
    for (long i = 0; i < n; i++) {
      chunk.start = (uint64_t)i;
      dispatch(&par, &task, (ompt_dispatch_t)3 /* ws_loop_chunk */,
               (ompt_data_t){.ptr = &chunk});
    }
  double t1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
  long rss1 = maxrss_kb();
  r->finalize(&r->tool_data);
  printf(
      "%s: %ld grains, %.1f ns per grain (CPU time %.1f ns), %.1f bytes "
      "written per grain, peak resident memory %ld KiB before, %ld KiB after\n",
      ext_chunk ? "extension chunk event (82) and two clock calls (83)"
                : "standard dispatch event",
      n, (t1 - t0) * 1e9 / n, (c1 - c0) * 1e9 / n,
      (double)dir_bytes(argv[2], 4) / n, rss0, rss1);
  return 0;
}
