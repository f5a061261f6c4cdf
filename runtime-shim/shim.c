/*===- shim.c - grainchunk runtime: chunk events to an unmodified tool ----===*
 *
 * libgrainchunk-rt.so sits between libomp and the user's OMPT tool:
 *
 *   libomp --ompt_start_tool--> shim --ompt_start_tool--> user's tool
 *
 * - ompt_start_tool finds the user's tool the way libomp would (a later
 *   ompt_start_tool in the process, then OMP_TOOL_LIBRARIES) and hands it a
 *   lookup function whose ompt_set_callback/ompt_get_callback the shim
 *   observes; everything else is the runtime's own. With no tool it returns
 *   NULL and libomp goes on as if the shim were not there.
 * - Code built with the grainchunk plugin asks __kmpc_should_callback_per_chunk
 *   once per static loop per thread and then calls __kmpc_for_static_chunk_*
 *   at the top of every chunk; the shim turns each call into the tool's own
 *   ompt_callback_dispatch(ompt_dispatch_ws_loop_chunk).
 * - The runtime's own report of the first chunk (from __kmpc_for_static_init,
 *   only for teams of more than one thread, with unclamped bounds) is
 *   dropped for instrumented loops, so every chunk arrives exactly once with
 *   exact bounds.
 *
 * To learn which parallel_data/task_data belong to the loop, the shim always
 * observes ompt_callback_work: the loop's begin event follows the thread's
 * __kmpc_should_callback_per_chunk call, and its end event closes the loop.
 *
 * Environment: GRAINCHUNK_VERBOSE=stderr|stdout|<file> logs how the tool was
 * found (like OMP_TOOL_VERBOSE_INIT); OMP_TOOL=disabled turns everything off.
 *
 * Depends on libc and libdl only; it calls libomp only through the OMPT
 * lookup function libomp hands it.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "grainchunk.h"

#include <dlfcn.h>
#include <omp-tools.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GC_EXPORT __attribute__((visibility("default")))
#define GC_LIKELY(x) __builtin_expect(!!(x), 1)
#define GC_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* OpenMP 5.2 values; older omp-tools.h headers lack some of them (libomp
 * 14's has neither ompt_dispatch_ws_loop_chunk nor ompt_dispatch_chunk_t), and
 * the tool may be built against a newer header than the runtime's. */
#define GC_DISPATCH_WS_LOOP_CHUNK 3
#define GC_DISPATCH_DISTRIBUTE_CHUNK 5
#define GC_WORK_LOOP 1
#define GC_WORK_DISTRIBUTE 6
#define GC_WORK_LOOP_STATIC 10
#define GC_WORK_LOOP_OTHER 13

/* Nesting depth of instrumented loops one thread can be inside at once
 * (each level needs a nested parallel region); deeper loops run unreported. */
#define GC_MAX_DEPTH 16

typedef struct { /* OpenMP 5.2 ompt_dispatch_chunk_t */
  uint64_t start;
  uint64_t iterations;
} gc_dispatch_chunk;

struct gc_ident { /* libomp's ident_t */
  int32_t reserved_1, flags, reserved_2, reserved_3;
  const char *psource;
};

typedef ompt_start_tool_result_t *(*gc_start_tool_fn)(unsigned, const char *);

typedef struct {
  ompt_data_t *parallel_data;
  ompt_data_t *task_data;
  int kind; /* the dispatch kind of its chunks: ws_loop or distribute */
} gc_frame;

typedef struct {
  gc_frame frames[GC_MAX_DEPTH];
  int depth;
  int expect; /* should_callback said yes; the loop's work begin is next */
  ompt_data_t *suppress_task; /* drop the runtime's first-chunk report */
  const grainchunk_chunk_info_t *info;
} gc_thread;

/* Our own definitions' addresses. Plain `ompt_start_tool` in this file means
 * the process's first definition, which may be another library's. */
ompt_start_tool_result_t *gc_self_start_tool(unsigned, const char *)
    __attribute__((visibility("hidden")));
void gc_self_chunk_4(ident_t *, int32_t, int32_t, int32_t, int32_t)
    __attribute__((visibility("hidden")));

static __thread gc_thread tls __attribute__((tls_model("initial-exec")));

/* Set once while the runtime initializes the tool, read concurrently after. */
static ompt_start_tool_result_t *tool_result; /* the user's tool */
static ompt_function_lookup_t rt_lookup;
static ompt_set_callback_t rt_set_callback;
static ompt_get_callback_t rt_get_callback;
static _Atomic(ompt_callback_dispatch_t) tool_dispatch;
static _Atomic(ompt_callback_work_t) tool_work;
static atomic_int chunks_enabled;
static atomic_int started;       /* ompt_start_tool ran */
static atomic_int warned_unused; /* one-time warning given */
static int in_start_tool;
static FILE *verbose_out;

static void gc_log(const char *fmt, ...) {
  if (!verbose_out)
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs("grainchunk: ", verbose_out);
  vfprintf(verbose_out, fmt, ap);
  fputc('\n', verbose_out);
  fflush(verbose_out);
  va_end(ap);
}

static void open_verbose(void) {
  const char *v = getenv("GRAINCHUNK_VERBOSE");
  if (!v || !*v || !strcasecmp(v, "disabled") || !strcmp(v, "0"))
    return;
  if (!strcmp(v, "stderr") || !strcmp(v, "1"))
    verbose_out = stderr;
  else if (!strcmp(v, "stdout"))
    verbose_out = stdout;
  else if (!(verbose_out = fopen(v, "w"))) {
    fprintf(stderr,
            "grainchunk: cannot open GRAINCHUNK_VERBOSE file '%s'; logging to "
            "stderr\n",
            v);
    verbose_out = stderr;
  }
}

/*===------------------------ per-chunk hot path -------------------------===*/

static inline void report(ident_t *loc, int32_t last, uint64_t start,
                          uint64_t iterations) {
  ompt_callback_dispatch_t cb =
      atomic_load_explicit(&tool_dispatch, memory_order_acquire);
  gc_thread *t = &tls;
  int d = t->depth;
  if (GC_UNLIKELY(!cb || d == 0))
    return;
  const gc_frame *f = &t->frames[d - 1];
  gc_dispatch_chunk chunk = {start, iterations};
  grainchunk_chunk_info_t info = {
      start, iterations, last,
      loc ? ((const struct gc_ident *)(const void *)loc)->psource : NULL};
  ompt_data_t instance;
  instance.ptr = &chunk;
  t->suppress_task = NULL; /* the runtime has had its chance to report */
  t->info = &info;
  cb(f->parallel_data, f->task_data, (ompt_dispatch_t)f->kind, instance);
  t->info = NULL;
}

GC_EXPORT void __kmpc_for_static_chunk_4(ident_t *loc, int32_t gtid,
                                         int32_t last, int32_t lower,
                                         int32_t upper) {
  (void)gtid;
  report(loc, last, (uint64_t)(int64_t)lower,
         (uint64_t)((int64_t)upper - (int64_t)lower) + 1);
}

GC_EXPORT void __kmpc_for_static_chunk_4u(ident_t *loc, int32_t gtid,
                                          int32_t last, uint32_t lower,
                                          uint32_t upper) {
  (void)gtid;
  report(loc, last, lower, (uint64_t)upper - lower + 1);
}

GC_EXPORT void __kmpc_for_static_chunk_8(ident_t *loc, int32_t gtid,
                                         int32_t last, int64_t lower,
                                         int64_t upper) {
  (void)gtid;
  report(loc, last, (uint64_t)lower, (uint64_t)upper - (uint64_t)lower + 1);
}

GC_EXPORT void __kmpc_for_static_chunk_8u(ident_t *loc, int32_t gtid,
                                          int32_t last, uint64_t lower,
                                          uint64_t upper) {
  (void)gtid;
  report(loc, last, lower, upper - lower + 1);
}

GC_EXPORT int grainchunk_get_chunk_info(grainchunk_chunk_info_t *info) {
  const grainchunk_chunk_info_t *cur = tls.info;
  if (!cur || !info)
    return 0;
  *info = *cur;
  return 1;
}

/*===--------------------- once per loop per thread ----------------------===*/

static void warn_not_started(void) {
  if (atomic_exchange(&warned_unused, 1) || atomic_load(&started))
    return;
  const char *omp_tool = getenv("OMP_TOOL");
  if (omp_tool && !strcasecmp(omp_tool, "disabled"))
    return;
  /* The runtime asked some other ompt_start_tool first. */
  Dl_info di;
  void *first = dlsym(RTLD_DEFAULT, "ompt_start_tool");
  const char *who = first && first != (void *)gc_self_start_tool &&
                            dladdr(first, &di) && di.dli_fname
                        ? di.dli_fname
                        : "another library";
  fprintf(stderr,
          "grainchunk: the OpenMP runtime never started libgrainchunk-rt "
          "(the ompt_start_tool of %s came first), so no chunk events will "
          "be delivered. Link libgrainchunk-rt before that library, or "
          "LD_PRELOAD it.\n",
          who);
}

GC_EXPORT int32_t __kmpc_should_callback_per_chunk(ident_t *loc) {
  (void)loc;
  if (!atomic_load_explicit(&chunks_enabled, memory_order_acquire)) {
    if (GC_UNLIKELY(
            !atomic_load_explicit(&warned_unused, memory_order_relaxed)))
      warn_not_started();
    return 0;
  }
  gc_thread *t = &tls;
  if (t->depth >= GC_MAX_DEPTH)
    return 0;
  t->expect = 1;
  return GRAINCHUNK_WANT_CHUNKS;
}

/*===------------------- callbacks the shim registers --------------------===*/

/* Worksharing constructs whose chunks grainchunk reports. */
static int is_loop(ompt_work_t wstype) {
  return wstype == GC_WORK_LOOP || wstype == GC_WORK_DISTRIBUTE ||
         (wstype >= GC_WORK_LOOP_STATIC && wstype <= GC_WORK_LOOP_OTHER);
}

static void shim_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint,
                      ompt_data_t *parallel_data, ompt_data_t *task_data,
                      uint64_t count, const void *codeptr_ra) {
  if (is_loop(wstype)) {
    gc_thread *t = &tls;
    if (endpoint == ompt_scope_begin) {
      if (t->expect && t->depth < GC_MAX_DEPTH) {
        t->frames[t->depth].parallel_data = parallel_data;
        t->frames[t->depth].task_data = task_data;
        t->frames[t->depth].kind = wstype == GC_WORK_DISTRIBUTE
                                       ? GC_DISPATCH_DISTRIBUTE_CHUNK
                                       : GC_DISPATCH_WS_LOOP_CHUNK;
        t->depth++;
        t->suppress_task = task_data;
      }
      t->expect = 0;
    } else if (endpoint == ompt_scope_end) {
      if (t->depth > 0 && t->frames[t->depth - 1].task_data == task_data &&
          t->frames[t->depth - 1].parallel_data == parallel_data)
        t->depth--;
      if (t->suppress_task == task_data)
        t->suppress_task = NULL;
    }
  }
  ompt_callback_work_t cb =
      atomic_load_explicit(&tool_work, memory_order_acquire);
  if (cb)
    cb(wstype, endpoint, parallel_data, task_data, count, codeptr_ra);
}

static void shim_dispatch(ompt_data_t *parallel_data, ompt_data_t *task_data,
                          ompt_dispatch_t kind, ompt_data_t instance) {
  if (((int)kind == GC_DISPATCH_WS_LOOP_CHUNK ||
       (int)kind == GC_DISPATCH_DISTRIBUTE_CHUNK) &&
      task_data && tls.suppress_task == task_data) {
    tls.suppress_task = NULL; /* the shim reports this chunk itself */
    return;
  }
  ompt_callback_dispatch_t cb =
      atomic_load_explicit(&tool_dispatch, memory_order_acquire);
  if (cb)
    cb(parallel_data, task_data, kind, instance);
}

/* Registers shim_work with the runtime iff the tool or the shim needs it. */
static int sync_work_callback(void) {
  int need = atomic_load(&tool_work) || atomic_load(&tool_dispatch);
  return rt_set_callback(ompt_callback_work,
                         need ? (ompt_callback_t)shim_work : NULL);
}

/*===------------------- what the tool sees of the runtime ---------------===*/

static int shim_set_callback(ompt_callbacks_t event, ompt_callback_t cb) {
  if (event == ompt_callback_dispatch) {
    int rc = rt_set_callback(event, cb ? (ompt_callback_t)shim_dispatch : NULL);
    atomic_store(&tool_dispatch, (ompt_callback_dispatch_t)cb);
    int wrc = sync_work_callback();
    int ok = cb && wrc != ompt_set_error && wrc != ompt_set_never;
    atomic_store(&chunks_enabled, ok);
    gc_log("tool %s ompt_callback_dispatch (runtime answer %d); chunk events "
           "%s",
           cb ? "registered" : "cleared", rc, ok ? "on" : "off");
    if (cb && !ok)
      gc_log("the runtime refused ompt_callback_work (answer %d), which the "
             "shim needs to place chunks; chunk events stay off",
             wrc);
    /* The shim delivers chunk events itself even if this runtime cannot. */
    if (ok && rc < ompt_set_sometimes)
      rc = ompt_set_sometimes;
    return rc;
  }
  if (event == ompt_callback_work) {
    atomic_store(&tool_work, (ompt_callback_work_t)cb);
    return sync_work_callback();
  }
  return rt_set_callback(event, cb);
}

static int shim_get_callback(ompt_callbacks_t event, ompt_callback_t *cb) {
  if (event == ompt_callback_dispatch || event == ompt_callback_work) {
    ompt_callback_t c = event == ompt_callback_dispatch
                            ? (ompt_callback_t)atomic_load(&tool_dispatch)
                            : (ompt_callback_t)atomic_load(&tool_work);
    if (!c)
      return 0;
    if (cb)
      *cb = c;
    return 1;
  }
  return rt_get_callback ? rt_get_callback(event, cb) : 0;
}

static ompt_interface_fn_t shim_lookup(const char *name) {
  if (!strcmp(name, "ompt_set_callback"))
    return rt_set_callback ? (ompt_interface_fn_t)shim_set_callback : NULL;
  if (!strcmp(name, "ompt_get_callback"))
    return (ompt_interface_fn_t)shim_get_callback;
  return rt_lookup(name);
}

static int shim_initialize(ompt_function_lookup_t lookup,
                           int initial_device_num, ompt_data_t *tool_data) {
  (void)tool_data;
  rt_lookup = lookup;
  rt_set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  rt_get_callback = (ompt_get_callback_t)lookup("ompt_get_callback");
  if (!rt_set_callback)
    gc_log("the runtime has no ompt_set_callback; chunk events stay off");
  int rc = tool_result->initialize(shim_lookup, initial_device_num,
                                   &tool_result->tool_data);
  gc_log("tool initialize returned %d; chunk events %s", rc,
         rc && atomic_load(&chunks_enabled) ? "on" : "off");
  if (!rc) {
    atomic_store(&chunks_enabled, 0);
    atomic_store(&tool_dispatch, NULL);
  }
  return rc;
}

static void shim_finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  atomic_store(&chunks_enabled, 0);
  atomic_store(&tool_dispatch, NULL);
  if (tool_result->finalize)
    tool_result->finalize(&tool_result->tool_data);
}

static ompt_start_tool_result_t shim_result = {
    shim_initialize, shim_finalize, {0}};

/*===------------------------- finding the tool --------------------------===*/

/* OMP_TOOL_LIBRARIES as libomp reads it: ':'-separated, first tool whose
 * ompt_start_tool returns non-NULL wins, the others are closed again. */
static ompt_start_tool_result_t *
try_tool_libraries(unsigned omp_version, const char *runtime_version) {
  const char *libs = getenv("OMP_TOOL_LIBRARIES");
  if (!libs || !*libs) {
    gc_log("OMP_TOOL_LIBRARIES is not set");
    return NULL;
  }
  char *copy = strdup(libs);
  if (!copy)
    return NULL;
  ompt_start_tool_result_t *res = NULL;
  char *save = NULL;
  for (char *lib = strtok_r(copy, ":", &save); lib && !res;
       lib = strtok_r(NULL, ":", &save)) {
    gc_log("opening %s", lib);
    void *h = dlopen(lib, RTLD_LAZY);
    if (!h) {
      gc_log("  cannot open it: %s", dlerror());
      continue;
    }
    gc_start_tool_fn start = (gc_start_tool_fn)dlsym(h, "ompt_start_tool");
    if (!start) {
      gc_log("  it has no ompt_start_tool");
    } else if (start == gc_self_start_tool) {
      gc_log("  it is libgrainchunk-rt itself; skipped");
    } else {
      res = start(omp_version, runtime_version);
      gc_log("  its ompt_start_tool %s", res ? "accepted" : "declined");
    }
    if (!res)
      dlclose(h);
  }
  free(copy);
  return res;
}

GC_EXPORT ompt_start_tool_result_t *
ompt_start_tool(unsigned omp_version, const char *runtime_version) {
  if (in_start_tool)
    return NULL; /* a tool looked us up again */
  in_start_tool = 1;
  open_verbose();
  gc_log("started by %s (OpenMP %u)", runtime_version ? runtime_version : "?",
         omp_version);
  atomic_store(&started, 1);
  ompt_start_tool_result_t *res = NULL;

  const char *omp_tool = getenv("OMP_TOOL");
  if (omp_tool && !strcasecmp(omp_tool, "disabled")) {
    gc_log("OMP_TOOL=disabled: no tool, no chunk events");
    goto done;
  }
  /* The program's weak references reach the shim only if it is in the global
   * scope (linked or LD_PRELOADed), not when libomp dlopens it as a tool. */
  void *program = dlopen(NULL, RTLD_LAZY); /* global scope only */
  void *global = program ? dlsym(program, "__kmpc_for_static_chunk_4") : NULL;
  if (global != (void *)gc_self_chunk_4) {
    fprintf(stderr,
            "grainchunk: libgrainchunk-rt was loaded as an OMPT tool (through "
            "OMP_TOOL_LIBRARIES?), where the program cannot call it. Link the "
            "program with it or LD_PRELOAD it, and list only your own tool in "
            "OMP_TOOL_LIBRARIES. No chunk events will be delivered.\n");
    goto done;
  }
  gc_start_tool_fn next = (gc_start_tool_fn)dlsym(RTLD_NEXT, "ompt_start_tool");
  if (next && next != gc_self_start_tool) {
    Dl_info di;
    int named = dladdr((void *)next, &di) && di.dli_fname;
    gc_log("trying the next ompt_start_tool in the process (%s)",
           named ? di.dli_fname : "?");
    res = next(omp_version, runtime_version);
    gc_log("  it %s", res ? "accepted" : "declined");
  }
  if (!res)
    res = try_tool_libraries(omp_version, runtime_version);
  if (!res) {
    gc_log("no tool found; the runtime goes on without grainchunk");
    goto done;
  }
  tool_result = res;
  res = &shim_result;
done:
  in_start_tool = 0;
  return res;
}

__typeof(gc_self_start_tool) gc_self_start_tool
    __attribute__((alias("ompt_start_tool")));
__typeof(gc_self_chunk_4) gc_self_chunk_4
    __attribute__((alias("__kmpc_for_static_chunk_4")));

#ifdef GRAINCHUNK_TESTING
/* Unit tests only: forget everything, as in a fresh process. */
GC_EXPORT void grainchunk_testing_reset(void) {
  tool_result = NULL;
  rt_lookup = NULL;
  rt_set_callback = NULL;
  rt_get_callback = NULL;
  atomic_store(&tool_dispatch, NULL);
  atomic_store(&tool_work, NULL);
  atomic_store(&chunks_enabled, 0);
  atomic_store(&started, 0);
  atomic_store(&warned_unused, 0);
  memset(&tls, 0, sizeof tls);
  if (verbose_out && verbose_out != stderr && verbose_out != stdout)
    fclose(verbose_out);
  verbose_out = NULL;
}
#endif
