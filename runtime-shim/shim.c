/*===- shim.c - grainchunk runtime: chunk events to an unmodified tool ----===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * libgrainchunk-rt.so sits between libomp and the user's OMPT tool:
 *
 *   libomp --its own ompt_start_tool/dlsym GOT entries--> shim
 *          --the same call, once--> user's tool's ompt_start_tool
 *
 * - The shim takes no part in libomp's search for a tool: it defines no
 *   ompt_start_tool. When it is loaded it redirects the OpenMP runtime's own
 *   imports of ompt_start_tool and dlsym (got_hook.c), so that whichever
 *   ompt_start_tool libomp calls (one in the executable, in a library, in
 *   OMP_TOOL_LIBRARIES, Archer) is called exactly once, by libomp, as without
 *   grainchunk; only an accepting tool's result is replaced by the shim's,
 *   whose initialize hands the tool a lookup function whose
 *   ompt_set_callback/ompt_get_callback the shim observes; everything else is
 *   the runtime's own.
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
 * observes ompt_callback_work: every loop's begin event (instrumented or not)
 * opens a record on the thread's own stack, which grows without limit, and
 * its end event closes it; a chunk belongs to the innermost open record. An
 * instrumented loop's begin follows the thread's
 * __kmpc_should_callback_per_chunk call.
 *
 * Environment: GRAINCHUNK_VERBOSE=stderr|stdout|<file> logs each
 * ompt_start_tool libomp called and its answer; OMP_TOOL=disabled (libomp's)
 * turns everything off.
 *
 * Depends on libc and libdl only; it calls libomp only through the OMPT
 * lookup function libomp hands it (and redirects two of libomp's own
 * imports, see got_hook.c).
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "shim.h"
#include "got_hook.h"

#include <dlfcn.h>
#include <link.h>
#include <omp-tools.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* OpenMP 5.2 values; older omp-tools.h headers lack some of them (libomp
 * 14's has neither ompt_dispatch_ws_loop_chunk nor ompt_dispatch_chunk_t), and
 * the tool may be built against a newer header than the runtime's. */
#define GC_WORK_LOOP 1
#define GC_WORK_DISTRIBUTE 6
#define GC_WORK_LOOP_STATIC 10
#define GC_WORK_LOOP_OTHER 13

struct gc_ident { /* libomp's ident_t */
  int32_t reserved_1, flags, reserved_2, reserved_3;
  const char *psource;
};

typedef ompt_start_tool_result_t *(*gc_start_tool_fn)(unsigned, const char *);

/* Our own definitions' addresses. Plain `ompt_start_tool` in this file means
 * the process's first definition, which may be another library's. */
void gc_self_chunk_4(ident_t *, int32_t, int32_t, int32_t, int32_t)
    __attribute__((visibility("hidden")));

__thread gc_thread gc_tls __attribute__((tls_model("initial-exec")));

/* Set once while the runtime initializes the tool, read concurrently after. */
static ompt_start_tool_result_t *tool_result; /* the user's tool */
static ompt_function_lookup_t rt_lookup;
ompt_set_callback_t gc_rt_set_callback;
static ompt_get_callback_t rt_get_callback;
static _Atomic(ompt_callback_dispatch_t) tool_dispatch;
static _Atomic(ompt_callback_work_t) tool_work;
static atomic_int chunks_enabled;
static atomic_int chunks_flags;  /* GRAINCHUNK_WANT_* while enabled */
static atomic_int started;       /* libomp called an ompt_start_tool */
static atomic_int warned_unused; /* one-time warning given */
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

/* Hands the chunk to the tool's dispatch callback, if it has one. What
 * grainchunk_get_chunk_info answers is kept as pointers into this frame and
 * the loop's ident, read only if the tool asks. */
static inline void deliver(gc_frame *f, ident_t *loc, int32_t last,
                           uint64_t start, uint64_t iterations) {
  ompt_callback_dispatch_t cb =
      atomic_load_explicit(&tool_dispatch, memory_order_acquire);
  if (!cb)
    return;
  gc_dispatch_chunk chunk = {start, iterations};
  ompt_data_t instance;
  instance.ptr = &chunk;
  gc_thread *t = &gc_tls;
  t->suppress_task = NULL; /* the runtime has had its chance to report */
  t->chunk = &chunk;
  t->chunk_loc = loc;
  t->chunk_last = last;
  cb(f->parallel_data, f->task_data, (ompt_dispatch_t)f->kind, instance);
  gc_tls.chunk = NULL;
}

/* The extension chunk event (82) first, then the standard one: kept out of
 * line so that the standard path saves no registers. */
__attribute__((noinline)) static void
report_ext(gc_frame *f, ext_callback_chunk_t ext, ident_t *loc, int32_t last,
           uint64_t lower, uint64_t upper, uint64_t iterations) {
  gc_ext_static_chunk(f, ext, last, lower, upper);
  deliver(f, loc, last, lower, iterations);
}

/* lower/upper: the chunk's bounds as the bits of the entry point's type,
 * sign- or zero-extended to 64 bits. */
static inline void report(ident_t *loc, int32_t last, uint64_t lower,
                          uint64_t upper, uint64_t iterations) {
  gc_frame *f = gc_tls.top;
  if (GC_UNLIKELY(!f || !f->owned))
    return;
  ext_callback_chunk_t ext =
      atomic_load_explicit(&gc_ext_chunk, memory_order_acquire);
  if (GC_UNLIKELY(ext != NULL)) {
    report_ext(f, ext, loc, last, lower, upper, iterations);
    return;
  }
  deliver(f, loc, last, lower, iterations);
}

GC_EXPORT void __kmpc_for_static_chunk_4(ident_t *loc, int32_t gtid,
                                         int32_t last, int32_t lower,
                                         int32_t upper) {
  (void)gtid;
  report(loc, last, (uint64_t)(int64_t)lower, (uint64_t)(int64_t)upper,
         (uint64_t)((int64_t)upper - (int64_t)lower) + 1);
}

GC_EXPORT void __kmpc_for_static_chunk_4u(ident_t *loc, int32_t gtid,
                                          int32_t last, uint32_t lower,
                                          uint32_t upper) {
  (void)gtid;
  report(loc, last, lower, upper, (uint64_t)upper - lower + 1);
}

GC_EXPORT void __kmpc_for_static_chunk_8(ident_t *loc, int32_t gtid,
                                         int32_t last, int64_t lower,
                                         int64_t upper) {
  (void)gtid;
  report(loc, last, (uint64_t)lower, (uint64_t)upper,
         (uint64_t)upper - (uint64_t)lower + 1);
}

GC_EXPORT void __kmpc_for_static_chunk_8u(ident_t *loc, int32_t gtid,
                                          int32_t last, uint64_t lower,
                                          uint64_t upper) {
  (void)gtid;
  report(loc, last, lower, upper, upper - lower + 1);
}

/* The end of a chunk's iterations (asked for only when the tool has a chunk
 * callback and a time function): the next chunk's making starts now. */
GC_EXPORT void __kmpc_for_static_chunk_end(ident_t *loc, int32_t gtid) {
  (void)loc, (void)gtid;
  gc_frame *f = gc_tls.top;
  ext_tool_time_t now =
      atomic_load_explicit(&gc_ext_time, memory_order_acquire);
  if (GC_LIKELY(f && f->owned && now))
    f->ext.mark = now();
}

GC_EXPORT int grainchunk_get_chunk_info(grainchunk_chunk_info_t *info) {
  const gc_thread *t = &gc_tls;
  const gc_dispatch_chunk *c = t->chunk;
  if (!c || !info)
    return 0;
  info->start = c->start;
  info->iterations = c->iterations;
  info->is_last = t->chunk_last;
  info->psource =
      t->chunk_loc
          ? ((const struct gc_ident *)(const void *)t->chunk_loc)->psource
          : NULL;
  return 1;
}

/*===--------------------- once per loop per thread ----------------------===*/

static void warn_not_started(void) {
  if (atomic_load(&started)) { /* libomp searched: no tool accepted */
    atomic_store(&warned_unused, 1);
    return;
  }
  const char *omp_tool = getenv("OMP_TOOL");
  if (omp_tool && !strcasecmp(omp_tool, "disabled"))
    return;
  gc_hook_status st = gc_hook_status_get();
  if (st.patched && !st.late)
    return; /* libomp may not have started yet (an orphaned loop): ask later */
  atomic_store(&warned_unused, 1);
  if (!st.patched)
    fprintf(stderr,
            "grainchunk: no OpenMP runtime was loaded when libgrainchunk-rt "
            "was (%s), so it cannot see the tool and no chunk events will be "
            "delivered. Link the program with libgrainchunk-rt and the "
            "OpenMP runtime, or LD_PRELOAD both.\n",
            st.reason);
  else
    fprintf(stderr,
            "grainchunk: libgrainchunk-rt was loaded after the OpenMP runtime "
            "had looked for its tool (it came with %s, loaded later with "
            "dlopen), so no chunk events will be delivered. Link the program "
            "itself with libgrainchunk-rt, or LD_PRELOAD it.\n",
            st.loaded_by[0] ? st.loaded_by : "a library");
}

GC_EXPORT int32_t __kmpc_should_callback_per_chunk(ident_t *loc) {
  (void)loc;
  if (!atomic_load_explicit(&chunks_enabled, memory_order_acquire)) {
    if (GC_UNLIKELY(
            !atomic_load_explicit(&warned_unused, memory_order_relaxed)))
      warn_not_started();
    return 0;
  }
  gc_tls.expect = 1;
  return atomic_load_explicit(&chunks_flags, memory_order_relaxed);
}

/*===------------------------ the thread's open loops --------------------===*/

static pthread_key_t heap_key;
static pthread_once_t heap_key_once = PTHREAD_ONCE_INIT;

static void free_frames(void *p) { free(p); }
static void make_heap_key(void) {
  if (pthread_key_create(&heap_key, free_frames))
    heap_key = (pthread_key_t)-1;
}

/* Room for one more record; 0 if the heap refused (the loop then goes
 * unreported, the stack stays balanced). */
static int grow(gc_thread *t) {
  if (!t->frames) {
    t->frames = t->inline_frames;
    t->cap = GC_INLINE_FRAMES;
  }
  if (t->depth < t->cap)
    return 1;
  if (t->depth > t->cap)
    return 0;
  int cap = t->cap * 2;
  gc_frame *f;
  if (t->frames == t->inline_frames) {
    f = malloc(sizeof *f * (size_t)cap);
    if (f)
      memcpy(f, t->inline_frames, sizeof t->inline_frames);
  } else {
    f = realloc(t->frames, sizeof *f * (size_t)cap);
  }
  if (!f)
    return 0;
  pthread_once(&heap_key_once, make_heap_key);
  if (heap_key != (pthread_key_t)-1)
    pthread_setspecific(heap_key, f); /* freed when the thread ends */
  t->frames = f;
  t->cap = cap;
  return 1;
}

static void set_top(gc_thread *t) {
  t->top = t->depth > 0 && t->depth <= t->cap ? &t->frames[t->depth - 1] : NULL;
}

/* Returns the new record, or NULL if it could not be stored. A loop whose
 * entry point a forwarder saw (extensions.c) takes what it learned there. */
static gc_frame *open_loop(gc_thread *t, int kind, int owned,
                           ompt_data_t *parallel_data, ompt_data_t *task_data,
                           const void *codeptr_ra) {
  gc_frame *f = NULL;
  if (grow(t)) {
    f = &t->frames[t->depth];
    f->parallel_data = parallel_data;
    f->task_data = task_data;
    f->kind = kind;
    f->owned = owned;
    f->codeptr_ra = codeptr_ra;
    f->ext = t->pending;
  }
  t->pending.sched = 0;
  t->depth++;
  t->pending_opened = t->depth;
  set_top(t);
  return f;
}

/* Closes the innermost loop. Begin and end events of loops nest on a thread,
 * so that is the one ending; its pointers are compared only to survive an
 * end the runtime never sends (a cancelled dynamic loop): then the records
 * above the innermost one with these pointers are dropped too. */
static void close_loop(gc_thread *t, ompt_data_t *parallel_data,
                       ompt_data_t *task_data, const void *codeptr_ra) {
  if (t->depth > t->cap) { /* a record the heap had no room for */
    t->depth--;
    set_top(t);
    return;
  }
  for (int i = t->depth - 1; i >= 0; --i) {
    if (t->frames[i].parallel_data == parallel_data &&
        t->frames[i].task_data == task_data) {
      if (i == t->depth - 1)
        gc_ext_work(&t->frames[i], ompt_scope_end, codeptr_ra);
      t->depth = i;
      set_top(t);
      return;
    }
  }
  /* No open loop of this task: one that began before the shim watched. */
}

/*===------------------- callbacks the shim registers --------------------===*/

/* Worksharing constructs whose chunks grainchunk reports. */
int gc_is_loop(ompt_work_t wstype) {
  return wstype == GC_WORK_LOOP || wstype == GC_WORK_DISTRIBUTE ||
         (wstype >= GC_WORK_LOOP_STATIC && wstype <= GC_WORK_LOOP_OTHER);
}

static void shim_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint,
                      ompt_data_t *parallel_data, ompt_data_t *task_data,
                      uint64_t count, const void *codeptr_ra) {
  gc_thread *t = &gc_tls;
  /* Inside a forwarder that had to call the runtime (extensions.c): the
   * address the runtime would have seen without it. */
  if (t->ra_override)
    codeptr_ra = t->ra_override;
  ompt_callback_work_t cb =
      atomic_load_explicit(&tool_work, memory_order_acquire);
  if (gc_is_loop(wstype)) {
    if (endpoint == ompt_scope_begin) {
      gc_frame *f =
          open_loop(t,
                    wstype == GC_WORK_DISTRIBUTE ? GC_DISPATCH_DISTRIBUTE_CHUNK
                                                 : GC_DISPATCH_WS_LOOP_CHUNK,
                    t->expect, parallel_data, task_data, codeptr_ra);
      t->suppress_task = t->expect ? task_data : NULL;
      t->expect = 0;
      if (cb)
        cb(wstype, endpoint, parallel_data, task_data, count, codeptr_ra);
      if (f)
        gc_ext_work(f, ompt_scope_begin, codeptr_ra);
      return;
    }
    if (endpoint == ompt_scope_end) {
      close_loop(t, parallel_data, task_data, codeptr_ra);
      if (t->suppress_task == task_data)
        t->suppress_task = NULL;
    }
  }
  if (cb)
    cb(wstype, endpoint, parallel_data, task_data, count, codeptr_ra);
}

static void shim_dispatch(ompt_data_t *parallel_data, ompt_data_t *task_data,
                          ompt_dispatch_t kind, ompt_data_t instance) {
  if (((int)kind == GC_DISPATCH_WS_LOOP_CHUNK ||
       (int)kind == GC_DISPATCH_DISTRIBUTE_CHUNK) &&
      task_data && gc_tls.suppress_task == task_data) {
    gc_tls.suppress_task = NULL; /* the shim reports this chunk itself */
    return;
  }
  ompt_callback_dispatch_t cb =
      atomic_load_explicit(&tool_dispatch, memory_order_acquire);
  if (cb)
    cb(parallel_data, task_data, kind, instance);
}

/* Registers shim_work with the runtime iff the tool or the shim needs it. */
static int sync_work_callback(void) {
  int need = atomic_load(&tool_work) || atomic_load(&tool_dispatch) ||
             gc_ext_needs_work();
  return gc_rt_set_callback(ompt_callback_work,
                            need ? (ompt_callback_t)shim_work : NULL);
}

/* Whether instrumented code reports chunks, and what it is asked for. */
static int work_answer = ompt_set_never;
static void sync_chunks(void) {
  int want = atomic_load(&tool_dispatch) || atomic_load(&gc_ext_chunk);
  int ok =
      want && work_answer != ompt_set_error && work_answer != ompt_set_never;
  int flags = GRAINCHUNK_WANT_CHUNKS;
  if (atomic_load(&gc_ext_chunk) && atomic_load(&gc_ext_time))
    flags |= GRAINCHUNK_WANT_CHUNK_END;
  atomic_store(&chunks_flags, flags);
  atomic_store(&chunks_enabled, ok);
}

int gc_sync_callbacks(void) {
  if (!gc_rt_set_callback)
    return ompt_set_error;
  work_answer = sync_work_callback();
  sync_chunks();
  return work_answer;
}

/*===------------------- what the tool sees of the runtime ---------------===*/

static int shim_set_callback(ompt_callbacks_t event, ompt_callback_t cb) {
  if (event == ompt_callback_dispatch) {
    int rc =
        gc_rt_set_callback(event, cb ? (ompt_callback_t)shim_dispatch : NULL);
    atomic_store(&tool_dispatch, (ompt_callback_dispatch_t)cb);
    gc_sync_callbacks();
    int wrc = work_answer;
    int ok = cb && wrc != ompt_set_error && wrc != ompt_set_never;
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
    gc_sync_callbacks();
    return work_answer;
  }
  int handled = 0;
  int rc = gc_ext_set_callback((int)event, cb, &handled);
  return handled ? rc : gc_rt_set_callback(event, cb);
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
  int handled = 0;
  int rc = gc_ext_get_callback((int)event, cb, &handled);
  if (handled)
    return rc;
  return rt_get_callback ? rt_get_callback(event, cb) : 0;
}

static ompt_interface_fn_t shim_lookup(const char *name) {
  if (!strcmp(name, "ompt_set_callback"))
    return gc_rt_set_callback ? (ompt_interface_fn_t)shim_set_callback : NULL;
  if (!strcmp(name, "ompt_get_callback"))
    return (ompt_interface_fn_t)shim_get_callback;
  return rt_lookup(name);
}

static int shim_initialize(ompt_function_lookup_t lookup,
                           int initial_device_num, ompt_data_t *tool_data) {
  (void)tool_data;
  rt_lookup = lookup;
  gc_rt_set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  rt_get_callback = (ompt_get_callback_t)lookup("ompt_get_callback");
  if (!gc_rt_set_callback)
    gc_log("the runtime has no ompt_set_callback; chunk events stay off");
  int rc = tool_result->initialize(shim_lookup, initial_device_num,
                                   &tool_result->tool_data);
  gc_log("tool initialize returned %d; chunk events %s", rc,
         rc && atomic_load(&chunks_enabled) ? "on" : "off");
  if (!rc) {
    atomic_store(&chunks_enabled, 0);
    atomic_store(&tool_dispatch, NULL);
    gc_ext_reset();
  }
  return rc;
}

static void shim_finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  atomic_store(&chunks_enabled, 0);
  atomic_store(&tool_dispatch, NULL);
  gc_ext_reset();
  if (tool_result->finalize)
    tool_result->finalize(&tool_result->tool_data);
}

static ompt_start_tool_result_t shim_result = {
    shim_initialize, shim_finalize, {0}};

/*===--------------------- the tool libomp starts -----------------------===*/

/* libomp calls the ompt_start_tool it found; got_hook.c routes that call
 * here. The tool's function runs exactly once, with libomp's arguments; a
 * NULL answer goes back to libomp untouched, so its search goes on as
 * without the shim. An accepting tool is chained behind the shim. */
static ompt_start_tool_result_t *start_tool(gc_start_tool_fn fn,
                                            unsigned omp_version,
                                            const char *runtime_version) {
  if (!atomic_exchange(&started, 1))
    open_verbose();
  Dl_info di;
  const char *who =
      dladdr((void *)fn, &di) && di.dli_fname ? di.dli_fname : "?";
  ompt_start_tool_result_t *res = fn(omp_version, runtime_version);
  gc_log("%s called the ompt_start_tool of %s: %s",
         runtime_version ? runtime_version : "the runtime", who,
         res ? "accepted" : "declined");
  if (!res || tool_result)
    return res;
  tool_result = res;
  return &shim_result;
}

/* The process's first ompt_start_tool, which libomp's call through its PLT
 * reaches (the executable's, else the first library's, maybe libomp's own
 * weak one that looks further with RTLD_NEXT). */
static ompt_start_tool_result_t *start_first_tool(unsigned omp_version,
                                                  const char *runtime_version) {
  gc_start_tool_fn fn =
      (gc_start_tool_fn)dlsym(RTLD_DEFAULT, "ompt_start_tool");
  return fn ? start_tool(fn, omp_version, runtime_version) : NULL;
}

/* The ompt_start_tool that libomp's last dlsym(handle, "ompt_start_tool")
 * returned (OMP_TOOL_LIBRARIES, Archer); libomp calls it right away. */
static gc_start_tool_fn looked_up;
static ompt_start_tool_result_t *
start_looked_up_tool(unsigned omp_version, const char *runtime_version) {
  return start_tool(looked_up, omp_version, runtime_version);
}

static int is_self(void *handle) {
  struct link_map *lm = NULL;
  Dl_info self;
  return dlinfo(handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name &&
         dladdr((void *)gc_self_chunk_4, &self) && self.dli_fname &&
         !strcmp(lm->l_name, self.dli_fname);
}

/* libomp's dlsym. Anything but a handle's ompt_start_tool is a tail call, so
 * the C library still sees libomp as the caller (RTLD_NEXT). */
static void *runtime_dlsym(void *handle, const char *name) {
  if (handle != RTLD_NEXT && handle != RTLD_DEFAULT && name &&
      !strcmp(name, "ompt_start_tool")) {
    if (is_self(handle))
      fprintf(stderr,
              "grainchunk: libgrainchunk-rt is listed in OMP_TOOL_LIBRARIES, "
              "where the program cannot call it; it is not a tool. Link the "
              "program with it or LD_PRELOAD it, and list only your own tool "
              "in OMP_TOOL_LIBRARIES.\n");
    void *fn = dlsym(handle, name);
    if (!fn)
      return NULL;
    looked_up = (gc_start_tool_fn)fn;
    return (void *)start_looked_up_tool;
  }
  __attribute__((musttail)) return dlsym(handle, name);
}

__attribute__((constructor)) static void hook_runtime(void) {
  gc_hook_runtime((void *)start_first_tool, (void *)runtime_dlsym);
  gc_ext_init();
}

__typeof(gc_self_chunk_4) gc_self_chunk_4
    __attribute__((alias("__kmpc_for_static_chunk_4")));

#ifdef GRAINCHUNK_TESTING
/* Unit tests only: forget everything, as in a fresh process. */
GC_EXPORT void grainchunk_testing_reset(void) {
  tool_result = NULL;
  rt_lookup = NULL;
  gc_rt_set_callback = NULL;
  rt_get_callback = NULL;
  atomic_store(&tool_dispatch, NULL);
  atomic_store(&tool_work, NULL);
  atomic_store(&chunks_enabled, 0);
  atomic_store(&chunks_flags, 0);
  work_answer = ompt_set_never;
  gc_ext_reset();
  atomic_store(&started, 0);
  atomic_store(&warned_unused, 0);
  memset(&gc_tls, 0, sizeof gc_tls);
  if (verbose_out && verbose_out != stderr && verbose_out != stdout)
    fclose(verbose_out);
  verbose_out = NULL;
}
#endif
