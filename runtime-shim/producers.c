/*===- producers.c - Layer 3: the events the tool gets ---------------------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Everything that makes an event for the tool, on the layers below (the
 * thread's loop stack, the registry's callbacks and flags):
 *
 * - The per-chunk path. Code built with the grainchunk plugin asks
 *   __kmpc_should_callback_per_chunk once per static loop per thread and
 *   then calls __kmpc_for_static_chunk_* at the top of every chunk; each
 *   call becomes the tool's own ompt_callback_dispatch
 *   (ompt_dispatch_ws_loop_chunk) with the loop's parallel_data/task_data,
 *   and extension event 82 where registered. No locks, allocation or
 *   runtime inquiry on it: a thread-local read, two atomic loads, the call.
 * - The OMPT callbacks the library registers with the runtime (start-up
 *   does, as the registry routes): work (every loop's begin opens a record
 *   on the thread's stack, its end closes it; a chunk belongs to the
 *   innermost; an instrumented loop's begin follows the thread's
 *   should_callback call), dispatch (the runtime's own report of the first
 *   chunk, from __kmpc_for_static_init, only for teams of more than one
 *   thread and with unclamped bounds, is dropped for instrumented loops, so
 *   every chunk arrives exactly once with exact bounds), and task_create/
 *   task_schedule for extension event 84.
 * - The forwarders: the extension events of Langdal's TR4E runtime and
 *   grainchunk's task creation event (include/grainchunk.h,
 *   docs/extensions.md):
 *     81 loop begin/end   82 chunk (with its making time and flags)
 *     83 the tool's clock 84 task creation (with its making time)
 *   libomp knows nothing of them. This library learns what it needs by
 *   defining the libomp entry points involved and forwarding each to
 *   libomp's own (it comes before libomp in symbol lookup when the program
 *   is linked with it or it is preloaded):
 *
 *   __kmpc_for_static_init_{4,4u,8,8u}   schedule, signedness, step, the
 *                                        loop's bounds, the thread's stride
 *   __kmpc_dispatch_init_{4,4u,8,8u}     dynamic/guided/runtime/auto loops
 *   __kmpc_dispatch_next_{4,4u,8,8u}     each dynamic chunk, timed
 *   __kmpc_omp_task_alloc, __kmpc_omp_target_task_alloc,
 *   __kmpc_taskloop, __kmpc_taskloop_5   when a task's making starts
 *
 *   Each forwarder is one indirect jump through a slot that holds libomp's
 *   function while no tool registered an event that needs it, so a program
 *   pays nothing else. While one is registered the slot holds a wrapper.
 *   Wrappers that must see the call's results (static init, dispatch next)
 *   call libomp instead of jumping to it; the return address libomp records
 *   for the standard work events would then point into this library, so
 *   the work callback hands the tool the program's own
 *   (gc_thread.ra_override). The others note the time and jump, so libomp
 *   sees the program's call as before. A forwarder leaves what it learned in
 *   the thread's pending record (layer 1), and the runtime's work begin,
 *   which it raises inside the init call, moves it into the loop's record.
 *
 * Extension chunks (82):
 * - instrumented static loops: the plugin's per-chunk call, timed from the
 *   end of the previous chunk's iterations (the plugin's chunk-end call) or
 *   the start of the init call;
 * - static loops built without the plugin: every chunk of the thread is
 *   known when the init call returns (block-cyclic from the runtime's
 *   first chunk and stride), and is reported then, before any runs; only
 *   the first has a making time (the init call). The others are marked
 *   GRAINCHUNK_CHUNK_AHEAD, and where cancellation is on (the cancel-var
 *   ICV, read once) also GRAINCHUNK_CHUNK_MAY_NOT_RUN: the program makes
 *   no call between them that would tell which ran, so the library does
 *   not guess. A thread that leaves a loop early gets the standard
 *   ompt_callback_cancel (ompt_cancel_loop) from the runtime itself, which
 *   is all anyone can know of it; the library need not stand in
 *   __kmpc_cancel or __kmpc_cancellationpoint for it;
 * - dynamic, guided, runtime, auto, ordered: each chunk __kmpc_dispatch_next
 *   hands out, timed over that call.
 *
 * Depends on libc and libdl; reaches libomp only through the entry points
 * it forwards to and the callbacks the runtime calls.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "producers.h"
#include "got_hook.h"
#include "loops.h"
#include "registry.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef void kmp_task_t;
typedef int32_t (*kmp_routine_entry_t)(int32_t, void *);

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

/*===------------------------ the thread's record -------------------------===*/

typedef struct {
  int expect; /* should_callback said yes; the loop's work begin is next */
  ompt_data_t *suppress_task; /* drop the runtime's first-chunk report */
  /* While report() delivers a chunk to the tool's dispatch callback: the
   * chunk (instance.ptr), its loop's ident and its last flag; grainchunk_
   * get_chunk_info fills its answer from them. chunk is NULL otherwise. */
  const gc_dispatch_chunk *chunk;
  const ident_t *chunk_loc;
  int32_t chunk_last;
  /* The return address the runtime would have seen had a forwarder jumped
   * to it (standard events carry it); when the thread's next task began
   * being made. */
  const void *ra_override;
  double task_mark;
  gc_loops loops; /* the thread's open loops (layer 1) */
} gc_thread;

static __thread gc_thread gc_tls __attribute__((tls_model("initial-exec")));

/* The registry's callbacks, typed. */
static inline ompt_callback_dispatch_t tool_dispatch(void) {
  return (ompt_callback_dispatch_t)gc_registry_get(GC_CB_DISPATCH);
}
static inline ext_callback_loop_t ext_loop(void) {
  return (ext_callback_loop_t)gc_registry_get(GC_CB_EXT_LOOP);
}
static inline ext_callback_chunk_t ext_chunk(void) {
  return (ext_callback_chunk_t)gc_registry_get(GC_CB_EXT_CHUNK);
}
static inline ext_tool_time_t ext_time(void) {
  return (ext_tool_time_t)gc_registry_get(GC_CB_EXT_TIME);
}

static inline double clock_now(ext_tool_time_t now) { return now ? now() : -1; }

/*===------------------ extension loop and chunk events -------------------===*/

/* A loop's work begin (after its record is open) and end (before). */
static void ext_loop_event(const gc_frame *f, ompt_scope_endpoint_t endpoint,
                           const void *codeptr_ra) {
  ext_callback_loop_t cb = ext_loop();
  if (cb && f->ext.sched)
    cb((ext_loop_sched_t)f->ext.sched, endpoint, f->parallel_data, f->task_data,
       f->ext.is_signed, f->ext.step, codeptr_ra);
}

/* An instrumented static chunk (only with a chunk callback); last: the
 * plugin's flag (the chunk holds the loop's last iteration). */
static void ext_static_chunk(gc_frame *f, ext_callback_chunk_t cb, int32_t last,
                             uint64_t lower, uint64_t upper) {
  if (!f->ext.sched)
    return; /* its init call did not come through this library */
  double d = 0;
  ext_tool_time_t now = ext_time();
  if (now) {
    double n = now();
    if (f->ext.mark >= 0)
      d = n - f->ext.mark;
    f->ext.mark = -1; /* the chunk-end call sets it again */
  }
  cb(f->task_data, (int64_t)lower, (int64_t)upper, d,
     last ? GRAINCHUNK_CHUNK_LAST : 0);
}

/*===------------------------- per-chunk hot path -------------------------===*/

/* Hands the chunk to the tool's dispatch callback, if it has one. What
 * grainchunk_get_chunk_info answers is kept as pointers into this frame and
 * the loop's ident, read only if the tool asks. */
static inline void deliver(gc_frame *f, ident_t *loc, int32_t last,
                           uint64_t start, uint64_t iterations) {
  ompt_callback_dispatch_t cb = tool_dispatch();
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
  ext_static_chunk(f, ext, last, lower, upper);
  deliver(f, loc, last, lower, iterations);
}

/* lower/upper: the chunk's bounds as the bits of the entry point's type,
 * sign- or zero-extended to 64 bits. */
static inline void report(ident_t *loc, int32_t last, uint64_t lower,
                          uint64_t upper, uint64_t iterations) {
  gc_frame *f = gc_loops_top(&gc_tls.loops);
  if (GC_UNLIKELY(!f || !f->owned))
    return;
  ext_callback_chunk_t ext = ext_chunk();
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
  gc_frame *f = gc_loops_top(&gc_tls.loops);
  ext_tool_time_t now = ext_time();
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

/*===---------------------- once per loop per thread ----------------------===*/

static atomic_int warned_unused; /* one-time warning given */

static void warn_not_started(void) {
  if (atomic_load(&gc_tool_search_started)) { /* no tool accepted */
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
  if (!atomic_load_explicit(&gc_chunks_enabled, memory_order_acquire)) {
    if (GC_UNLIKELY(
            !atomic_load_explicit(&warned_unused, memory_order_relaxed)))
      warn_not_started();
    return 0;
  }
  gc_tls.expect = 1;
  return atomic_load_explicit(&gc_chunks_flags, memory_order_relaxed);
}

/*===------------------ callbacks the library registers -------------------===*/

/* Worksharing constructs whose chunks grainchunk reports. */
static int is_loop(ompt_work_t wstype) {
  return wstype == GC_WORK_LOOP || wstype == GC_WORK_DISTRIBUTE ||
         (wstype >= GC_WORK_LOOP_STATIC && wstype <= GC_WORK_LOOP_OTHER);
}

static void shim_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint,
                      ompt_data_t *parallel_data, ompt_data_t *task_data,
                      uint64_t count, const void *codeptr_ra) {
  gc_thread *t = &gc_tls;
  /* Inside a forwarder that had to call the runtime: the address the
   * runtime would have seen without it. */
  if (t->ra_override)
    codeptr_ra = t->ra_override;
  ompt_callback_work_t cb = (ompt_callback_work_t)gc_registry_get(GC_CB_WORK);
  if (is_loop(wstype)) {
    if (endpoint == ompt_scope_begin) {
      gc_frame *f = gc_loops_open(
          &t->loops,
          wstype == GC_WORK_DISTRIBUTE ? GC_DISPATCH_DISTRIBUTE_CHUNK
                                       : GC_DISPATCH_WS_LOOP_CHUNK,
          t->expect, parallel_data, task_data, codeptr_ra);
      t->suppress_task = t->expect ? task_data : NULL;
      t->expect = 0;
      if (cb)
        cb(wstype, endpoint, parallel_data, task_data, count, codeptr_ra);
      if (f)
        ext_loop_event(f, ompt_scope_begin, codeptr_ra);
      return;
    }
    if (endpoint == ompt_scope_end) {
      const gc_frame *f = gc_loops_ending(&t->loops, parallel_data, task_data);
      if (f)
        ext_loop_event(f, ompt_scope_end, codeptr_ra);
      gc_loops_close(&t->loops, parallel_data, task_data);
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
    gc_tls.suppress_task = NULL; /* the library reports this chunk itself */
    return;
  }
  ompt_callback_dispatch_t cb = tool_dispatch();
  if (cb)
    cb(parallel_data, task_data, kind, instance);
}

static void shim_task_create(ompt_data_t *parent_task_data,
                             const ompt_frame_t *parent_frame,
                             ompt_data_t *new_task_data, int flags,
                             int has_dependences, const void *codeptr_ra) {
  gc_thread *t = &gc_tls;
  ext_tool_time_t now = ext_time();
  double at = clock_now(now);
  ompt_callback_task_create_t std =
      (ompt_callback_task_create_t)gc_registry_get(GC_CB_TASK_CREATE);
  if (std)
    std(parent_task_data, parent_frame, new_task_data, flags, has_dependences,
        codeptr_ra);
  ext_callback_task_create_t cb =
      (ext_callback_task_create_t)gc_registry_get(GC_CB_EXT_TASK_CREATE);
  /* Explicit and target tasks; not the initial task, nor taskwait's. */
  if (cb && (flags & (ompt_task_explicit | ompt_task_target)) &&
      !(flags & 0x10)) {
    double d = now && t->task_mark >= 0 ? at - t->task_mark : 0;
    cb(parent_task_data, parent_frame, new_task_data, flags, has_dependences, d,
       codeptr_ra);
  }
  /* A taskloop makes its next task right after this one. */
  if (now)
    t->task_mark = now();
}

static void shim_task_schedule(ompt_data_t *prior_task_data,
                               ompt_task_status_t prior_task_status,
                               ompt_data_t *next_task_data) {
  ompt_callback_task_schedule_t std =
      (ompt_callback_task_schedule_t)gc_registry_get(GC_CB_TASK_SCHEDULE);
  if (std)
    std(prior_task_data, prior_task_status, next_task_data);
  /* A task that makes tasks (a taskloop's split) starts now. */
  ext_tool_time_t now = ext_time();
  if (now)
    gc_tls.task_mark = now();
}

/* The library's callback the registry routes a runtime event to. */
ompt_callback_t gc_producer_callback(int runtime_event) {
  switch (runtime_event) {
  case ompt_callback_work:
    return (ompt_callback_t)shim_work;
  case ompt_callback_dispatch:
    return (ompt_callback_t)shim_dispatch;
  case ompt_callback_task_create:
    return (ompt_callback_t)shim_task_create;
  case ompt_callback_task_schedule:
    return (ompt_callback_t)shim_task_schedule;
  default:
    return NULL;
  }
}

/*===------------------ schedules, as the tool sees them ------------------===*/

/* libomp's enum sched_type, without the (non)monotonic modifier bits. */
enum {
  SCH_STATIC_CHUNKED = 33,
  SCH_STATIC = 34,
  SCH_DYNAMIC = 35,
  SCH_GUIDED = 36,
  SCH_RUNTIME = 37,
  SCH_AUTO = 38,
  SCH_TRAPEZOIDAL = 39,
  SCH_STATIC_GREEDY = 40,
  SCH_STATIC_BALANCED = 41,
  SCH_GUIDED_ITERATIVE = 42,
  SCH_GUIDED_ANALYTICAL = 43,
  SCH_STATIC_STEAL = 44,
  SCH_STATIC_BALANCED_CHUNKED = 45,
  SCH_GUIDED_SIMD = 46,
  SCH_RUNTIME_SIMD = 47,
  SCH_DIST_STATIC_CHUNKED = 91,
  SCH_DIST_STATIC = 92
};

/* The unordered, merging schedule a libomp schedule value stands for. */
static int base_schedule(int32_t s) {
  s &= ~(3 << 29);         /* monotonic / nonmonotonic */
  if (s >= 160 && s < 224) /* kmp_nm_* (no merge) */
    s -= 128;
  if (s >= 65 && s <= 71) /* kmp_ord_* */
    s -= 32;
  return s;
}

typedef int (*get_schedule_fn)(int *kind, int *chunk);
static get_schedule_fn omp_get_schedule_fn;
typedef int (*get_cancellation_fn)(void);
static get_cancellation_fn omp_get_cancellation_fn;

/* Whether cancellation can end a worksharing loop early: the cancel-var
 * ICV (OMP_CANCELLATION), fixed when the runtime starts, so asked once
 * (from a loop's init wrapper: the runtime is up by then). -1: not asked
 * yet. A runtime that cannot say is taken to allow it. */
static atomic_int cancellation = -1;
static int cancellation_on(void) {
  int c = atomic_load_explicit(&cancellation, memory_order_relaxed);
  if (GC_UNLIKELY(c < 0)) {
    c = !omp_get_cancellation_fn || omp_get_cancellation_fn() != 0;
    atomic_store_explicit(&cancellation, c, memory_order_relaxed);
  }
  return c;
}

/* The schedule the runtime uses for a loop with schedule value s: runtime
 * reads the run-sched-var (omp_get_schedule), auto is libomp's guided. */
static int tool_schedule(int32_t s) {
  switch (base_schedule(s)) {
  case SCH_STATIC_CHUNKED:
  case SCH_STATIC:
  case SCH_STATIC_GREEDY:
  case SCH_STATIC_BALANCED:
  case SCH_STATIC_BALANCED_CHUNKED:
  case SCH_DIST_STATIC_CHUNKED:
  case SCH_DIST_STATIC:
    return ext_loop_sched_static;
  case SCH_DYNAMIC:
  case SCH_STATIC_STEAL: /* nonmonotonic:dynamic */
    return ext_loop_sched_dynamic;
  case SCH_RUNTIME:
  case SCH_RUNTIME_SIMD: {
    int kind = 1, chunk = 0;
    if (omp_get_schedule_fn)
      omp_get_schedule_fn(&kind, &chunk);
    kind &= ~(int)0x80000000u; /* omp_sched_monotonic */
    return kind == 1   ? ext_loop_sched_static
           : kind == 2 ? ext_loop_sched_dynamic
                       : ext_loop_sched_guided; /* guided, auto */
  }
  default: /* guided, auto, trapezoidal, guided simd */
    return ext_loop_sched_guided;
  }
}

/*===------------------- finding libomp's entry points --------------------===*/

static int is_own(void *p) {
  Dl_info a, b;
  return p && dladdr(p, &a) && dladdr((void *)gc_forwarders_init, &b) &&
         a.dli_fbase == b.dli_fbase;
}

typedef struct {
  const char *name;
  void *found;
} find_ctx;

static int find_in_object(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  find_ctx *c = arg;
  void *h = dlopen(info->dlpi_name && *info->dlpi_name ? info->dlpi_name : NULL,
                   RTLD_LAZY | RTLD_NOLOAD);
  if (!h)
    return 0;
  void *p = dlsym(h, c->name);
  dlclose(h);
  Dl_info di;
  if (!p || is_own(p) || !dladdr(p, &di) ||
      di.dli_fbase != (void *)info->dlpi_addr)
    return 0;
  c->found = p;
  return 1;
}

/* The definition of name that this library's would hide: the next one in
 * lookup order, else (everywhere) any loaded object's (the runtime was
 * loaded first, or with RTLD_LOCAL). */
static void *find_real(const char *name, int everywhere) {
  void *p = dlsym(RTLD_NEXT, name);
  if (p && !is_own(p))
    return p;
  if (!everywhere)
    return NULL;
  find_ctx c = {name, NULL};
  dl_iterate_phdr(find_in_object, &c);
  return c.found;
}

/*===----------------------------- forwarders -----------------------------===*/

typedef struct {
  const char *name;
  void **real;
  void *_Atomic *slot;
  void *lazy, *wrapper;
  int need;
} entry;

static void resolve(int everywhere);

static void missing(const char *name) {
  fprintf(stderr,
          "grainchunk: the program called %s, but no OpenMP runtime in the "
          "process defines it (libgrainchunk-rt forwards it to the runtime's "
          "own); link the program with the OpenMP runtime too.\n",
          name);
  abort();
}

/* For each entry point: libomp's function, the slot the exported forwarder
 * jumps through, and a first target that resolves the slots. */
#define GC_FORWARD(RET, NAME, PARAMS, ARGS)                                    \
  typedef RET(*NAME##_fn) PARAMS;                                              \
  static NAME##_fn NAME##_real;                                                \
  static RET NAME##_lazy PARAMS;                                               \
  static void *_Atomic NAME##_slot = (void *)NAME##_lazy;                      \
  GC_EXPORT RET NAME PARAMS {                                                  \
    NAME##_fn f =                                                              \
        (NAME##_fn)atomic_load_explicit(&NAME##_slot, memory_order_relaxed);   \
    __attribute__((musttail)) return f ARGS;                                   \
  }                                                                            \
  static RET NAME##_lazy PARAMS {                                              \
    resolve(1);                                                                \
    NAME##_fn f =                                                              \
        (NAME##_fn)atomic_load_explicit(&NAME##_slot, memory_order_relaxed);   \
    if (f == NAME##_lazy)                                                      \
      missing(#NAME);                                                          \
    __attribute__((musttail)) return f ARGS;                                   \
  }

#define GC_STATIC_INIT_PARAMS(T, ST)                                           \
  (ident_t * loc, int32_t gtid, int32_t schedtype, int32_t * plast,            \
   T * plower, T * pupper, ST * pstride, ST incr, ST chunk)
#define GC_STATIC_INIT_ARGS                                                    \
  (loc, gtid, schedtype, plast, plower, pupper, pstride, incr, chunk)
#define GC_DISPATCH_INIT_PARAMS(T, ST)                                         \
  (ident_t * loc, int32_t gtid, int32_t schedule, T lb, T ub, ST st, ST chunk)
#define GC_DISPATCH_INIT_ARGS (loc, gtid, schedule, lb, ub, st, chunk)
#define GC_DISPATCH_NEXT_PARAMS(T, ST)                                         \
  (ident_t * loc, int32_t gtid, int32_t * plast, T * plb, T * pub, ST * pst)
#define GC_DISPATCH_NEXT_ARGS (loc, gtid, plast, plb, pub, pst)
#define GC_TASK_ALLOC_PARAMS                                                   \
  (ident_t * loc, int32_t gtid, int32_t flags, size_t sizeof_task,             \
   size_t sizeof_shareds, kmp_routine_entry_t entry)
#define GC_TASK_ALLOC_ARGS                                                     \
  (loc, gtid, flags, sizeof_task, sizeof_shareds, entry)
#define GC_TARGET_TASK_ALLOC_PARAMS                                            \
  (ident_t * loc, int32_t gtid, int32_t flags, size_t sizeof_task,             \
   size_t sizeof_shareds, kmp_routine_entry_t entry, int64_t device)
#define GC_TARGET_TASK_ALLOC_ARGS                                              \
  (loc, gtid, flags, sizeof_task, sizeof_shareds, entry, device)
#define GC_TASKLOOP_PARAMS                                                     \
  (ident_t * loc, int gtid, kmp_task_t *task, int if_val, uint64_t *lb,        \
   uint64_t *ub, int64_t st, int nogroup, int sched, uint64_t grainsize,       \
   void *task_dup)
#define GC_TASKLOOP_ARGS                                                       \
  (loc, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, task_dup)
#define GC_TASKLOOP5_PARAMS                                                    \
  (ident_t * loc, int gtid, kmp_task_t *task, int if_val, uint64_t *lb,        \
   uint64_t *ub, int64_t st, int nogroup, int sched, uint64_t grainsize,       \
   int modifier, void *task_dup)
#define GC_TASKLOOP5_ARGS                                                      \
  (loc, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, modifier,   \
   task_dup)

GC_FORWARD(void, __kmpc_for_static_init_4,
           GC_STATIC_INIT_PARAMS(int32_t, int32_t), GC_STATIC_INIT_ARGS)
GC_FORWARD(void, __kmpc_for_static_init_4u,
           GC_STATIC_INIT_PARAMS(uint32_t, int32_t), GC_STATIC_INIT_ARGS)
GC_FORWARD(void, __kmpc_for_static_init_8,
           GC_STATIC_INIT_PARAMS(int64_t, int64_t), GC_STATIC_INIT_ARGS)
GC_FORWARD(void, __kmpc_for_static_init_8u,
           GC_STATIC_INIT_PARAMS(uint64_t, int64_t), GC_STATIC_INIT_ARGS)
GC_FORWARD(void, __kmpc_dispatch_init_4,
           GC_DISPATCH_INIT_PARAMS(int32_t, int32_t), GC_DISPATCH_INIT_ARGS)
GC_FORWARD(void, __kmpc_dispatch_init_4u,
           GC_DISPATCH_INIT_PARAMS(uint32_t, int32_t), GC_DISPATCH_INIT_ARGS)
GC_FORWARD(void, __kmpc_dispatch_init_8,
           GC_DISPATCH_INIT_PARAMS(int64_t, int64_t), GC_DISPATCH_INIT_ARGS)
GC_FORWARD(void, __kmpc_dispatch_init_8u,
           GC_DISPATCH_INIT_PARAMS(uint64_t, int64_t), GC_DISPATCH_INIT_ARGS)
GC_FORWARD(int, __kmpc_dispatch_next_4,
           GC_DISPATCH_NEXT_PARAMS(int32_t, int32_t), GC_DISPATCH_NEXT_ARGS)
GC_FORWARD(int, __kmpc_dispatch_next_4u,
           GC_DISPATCH_NEXT_PARAMS(uint32_t, int32_t), GC_DISPATCH_NEXT_ARGS)
GC_FORWARD(int, __kmpc_dispatch_next_8,
           GC_DISPATCH_NEXT_PARAMS(int64_t, int64_t), GC_DISPATCH_NEXT_ARGS)
GC_FORWARD(int, __kmpc_dispatch_next_8u,
           GC_DISPATCH_NEXT_PARAMS(uint64_t, int64_t), GC_DISPATCH_NEXT_ARGS)
GC_FORWARD(kmp_task_t *, __kmpc_omp_task_alloc, GC_TASK_ALLOC_PARAMS,
           GC_TASK_ALLOC_ARGS)
GC_FORWARD(kmp_task_t *, __kmpc_omp_target_task_alloc,
           GC_TARGET_TASK_ALLOC_PARAMS, GC_TARGET_TASK_ALLOC_ARGS)
GC_FORWARD(void, __kmpc_taskloop, GC_TASKLOOP_PARAMS, GC_TASKLOOP_ARGS)
GC_FORWARD(void, __kmpc_taskloop_5, GC_TASKLOOP5_PARAMS, GC_TASKLOOP5_ARGS)

/*===------------------------------ wrappers ------------------------------===*/

/* The flags of a static chunk reported ahead (not its thread's first): in a
 * worksharing loop, cancellation may end the thread's part before it. A
 * distribute loop cannot be cancelled. */
static int ahead_flags(const gc_frame *f) {
  int may_skip = f->kind == GC_DISPATCH_WS_LOOP_CHUNK && cancellation_on();
  return GRAINCHUNK_CHUNK_AHEAD | (may_skip ? GRAINCHUNK_CHUNK_MAY_NOT_RUN : 0);
}

/* Static init: what the loop is, its bounds and the thread's stride. For a
 * loop built without the plugin, every chunk of the thread is reported
 * here. B: bits; S: signed; T/UT/ST: its types. */
#define GC_STATIC_WRAPPER(SFX, T, UT, ST, S, B)                                \
  static void static_init_##SFX##_ext GC_STATIC_INIT_PARAMS(T, ST) {           \
    gc_thread *t = &gc_tls;                                                    \
    ext_tool_time_t now = ext_time();                                          \
    int base = base_schedule(schedtype);                                       \
    gc_loop_ext *p = gc_loops_pend(&t->loops);                                 \
    p->sched = ext_loop_sched_static;                                          \
    p->is_signed = S;                                                          \
    p->bits = B;                                                               \
    p->step = incr;                                                            \
    p->blocks = base == SCH_STATIC_CHUNKED || base == SCH_DIST_STATIC_CHUNKED; \
    T glb = *plower, gub = *pupper;                                            \
    p->mark = clock_now(now);                                                  \
    const void *saved = t->ra_override;                                        \
    t->ra_override = __builtin_return_address(0);                              \
    __kmpc_for_static_init_##SFX##_real GC_STATIC_INIT_ARGS;                   \
    t->ra_override = saved;                                                    \
    gc_loops_unpend(&t->loops);                                                \
    gc_frame *f = gc_loops_took_pending(&t->loops);                            \
    if (!f)                                                                    \
      return;                                                                  \
    T lb = *plower, ub = *pupper;                                              \
    int up = incr > 0;                                                         \
    UT span = up ? (UT)ub - (UT)lb : (UT)lb - (UT)ub;                          \
    UT stride = up ? (UT)*pstride : (UT)0 - (UT)*pstride;                      \
    ext_callback_chunk_t cb = ext_chunk();                                     \
    if (f->owned || !cb || incr == 0)                                          \
      return;                                                                  \
    /* Built without the plugin: the thread's chunks, in distances from the    \
     * loop's first iteration; the first one at its start, the others ahead.   \
     */                                                                        \
    if (up ? (gub < glb || lb < glb || lb > gub)                               \
           : (gub > glb || lb > glb || lb < gub))                              \
      return;                                                                  \
    UT total = up ? (UT)gub - (UT)glb : (UT)glb - (UT)gub;                     \
    UT s = up ? (UT)lb - (UT)glb : (UT)glb - (UT)lb;                           \
    double d = 0;                                                              \
    if (now && f->ext.mark >= 0)                                               \
      d = now() - f->ext.mark;                                                 \
    f->ext.mark = -1;                                                          \
    int flags = 0;                                                             \
    for (;;) {                                                                 \
      UT e = total - s <= span ? total : s + span;                             \
      int thread_last = !f->ext.blocks || stride == 0 || total - s < stride;   \
      T lo = (T)(up ? (UT)glb + s : (UT)glb - s);                              \
      T hi = (T)(up ? (UT)glb + e : (UT)glb - e);                              \
      cb(f->task_data, S ? (int64_t)lo : (int64_t)(uint64_t)lo,                \
         S ? (int64_t)hi : (int64_t)(uint64_t)hi, d,                           \
         flags | (e == total ? GRAINCHUNK_CHUNK_LAST : 0));                    \
      if (thread_last)                                                         \
        break;                                                                 \
      if (!flags)                                                              \
        flags = ahead_flags(f);                                                \
      d = 0;                                                                   \
      s += stride;                                                             \
    }                                                                          \
  }

GC_STATIC_WRAPPER(4, int32_t, uint32_t, int32_t, 1, 32)
GC_STATIC_WRAPPER(4u, uint32_t, uint32_t, int32_t, 0, 32)
GC_STATIC_WRAPPER(8, int64_t, uint64_t, int64_t, 1, 64)
GC_STATIC_WRAPPER(8u, uint64_t, uint64_t, int64_t, 0, 64)

/* Dispatch init: what the loop is; the runtime's work begin, inside the
 * call, opens its record. The call itself is a jump. */
#define GC_DISPATCH_INIT_WRAPPER(SFX, T, ST, S, B)                             \
  static void dispatch_init_##SFX##_ext GC_DISPATCH_INIT_PARAMS(T, ST) {       \
    gc_loop_ext *p = gc_loops_pend(&gc_tls.loops);                             \
    p->sched = tool_schedule(schedule);                                        \
    p->is_signed = S;                                                          \
    p->bits = B;                                                               \
    p->step = st;                                                              \
    p->dynamic = 1;                                                            \
    p->mark = -1;                                                              \
    __attribute__((musttail)) return __kmpc_dispatch_init_##SFX##_real         \
        GC_DISPATCH_INIT_ARGS;                                                 \
  }

GC_DISPATCH_INIT_WRAPPER(4, int32_t, int32_t, 1, 32)
GC_DISPATCH_INIT_WRAPPER(4u, uint32_t, int32_t, 0, 32)
GC_DISPATCH_INIT_WRAPPER(8, int64_t, int64_t, 1, 64)
GC_DISPATCH_INIT_WRAPPER(8u, uint64_t, int64_t, 0, 64)

/* Dispatch next: each chunk the runtime hands out, timed over the call. */
#define GC_DISPATCH_NEXT_WRAPPER(SFX, T, ST, S)                                \
  static int dispatch_next_##SFX##_ext GC_DISPATCH_NEXT_PARAMS(T, ST) {        \
    gc_thread *t = &gc_tls;                                                    \
    ext_tool_time_t now = ext_time();                                          \
    gc_loops_unpend(&t->loops);                                                \
    double t0 = clock_now(now);                                                \
    const void *saved = t->ra_override;                                        \
    t->ra_override = __builtin_return_address(0);                              \
    int32_t last = 0;                                                          \
    int32_t *pl = plast ? plast : &last;                                       \
    int rc = __kmpc_dispatch_next_##SFX##_real(loc, gtid, pl, plb, pub, pst);  \
    t->ra_override = saved;                                                    \
    const gc_frame *f = gc_loops_top(&t->loops);                               \
    ext_callback_chunk_t cb = ext_chunk();                                     \
    if (rc && cb && f && f->ext.dynamic)                                       \
      cb(f->task_data, S ? (int64_t)*plb : (int64_t)(uint64_t)*plb,            \
         S ? (int64_t)*pub : (int64_t)(uint64_t)*pub, now ? now() - t0 : 0,    \
         *pl ? GRAINCHUNK_CHUNK_LAST : 0);                                     \
    return rc;                                                                 \
  }

GC_DISPATCH_NEXT_WRAPPER(4, int32_t, int32_t, 1)
GC_DISPATCH_NEXT_WRAPPER(4u, uint32_t, int32_t, 0)
GC_DISPATCH_NEXT_WRAPPER(8, int64_t, int64_t, 1)
GC_DISPATCH_NEXT_WRAPPER(8u, uint64_t, int64_t, 0)

/* Task allocation and taskloop: a task's making starts now. */
static inline void mark_task_start(void) {
  ext_tool_time_t now = ext_time();
  gc_tls.task_mark = clock_now(now);
}
static kmp_task_t *task_alloc_ext GC_TASK_ALLOC_PARAMS {
  mark_task_start();
  __attribute__((
      musttail)) return __kmpc_omp_task_alloc_real GC_TASK_ALLOC_ARGS;
}
static kmp_task_t *target_task_alloc_ext GC_TARGET_TASK_ALLOC_PARAMS {
  mark_task_start();
  __attribute__((musttail)) return __kmpc_omp_target_task_alloc_real
      GC_TARGET_TASK_ALLOC_ARGS;
}
static void taskloop_ext GC_TASKLOOP_PARAMS {
  mark_task_start();
  __attribute__((musttail)) return __kmpc_taskloop_real GC_TASKLOOP_ARGS;
}
static void taskloop5_ext GC_TASKLOOP5_PARAMS {
  mark_task_start();
  __attribute__((musttail)) return __kmpc_taskloop_5_real GC_TASKLOOP5_ARGS;
}

#define GC_ENTRY(NAME, WRAPPER, NEED)                                          \
  {                                                                            \
#NAME, (void **)&NAME##_real, &NAME##_slot, (void *)NAME##_lazy,           \
        (void *)WRAPPER, NEED                                                  \
  }

static entry entries[] = {
    GC_ENTRY(__kmpc_for_static_init_4, static_init_4_ext, GC_NEED_LOOP),
    GC_ENTRY(__kmpc_for_static_init_4u, static_init_4u_ext, GC_NEED_LOOP),
    GC_ENTRY(__kmpc_for_static_init_8, static_init_8_ext, GC_NEED_LOOP),
    GC_ENTRY(__kmpc_for_static_init_8u, static_init_8u_ext, GC_NEED_LOOP),
    GC_ENTRY(__kmpc_dispatch_init_4, dispatch_init_4_ext, GC_NEED_LOOP),
    GC_ENTRY(__kmpc_dispatch_init_4u, dispatch_init_4u_ext, GC_NEED_LOOP),
    GC_ENTRY(__kmpc_dispatch_init_8, dispatch_init_8_ext, GC_NEED_LOOP),
    GC_ENTRY(__kmpc_dispatch_init_8u, dispatch_init_8u_ext, GC_NEED_LOOP),
    GC_ENTRY(__kmpc_dispatch_next_4, dispatch_next_4_ext, GC_NEED_CHUNK),
    GC_ENTRY(__kmpc_dispatch_next_4u, dispatch_next_4u_ext, GC_NEED_CHUNK),
    GC_ENTRY(__kmpc_dispatch_next_8, dispatch_next_8_ext, GC_NEED_CHUNK),
    GC_ENTRY(__kmpc_dispatch_next_8u, dispatch_next_8u_ext, GC_NEED_CHUNK),
    GC_ENTRY(__kmpc_omp_task_alloc, task_alloc_ext, GC_NEED_TASK_TIME),
    GC_ENTRY(__kmpc_omp_target_task_alloc, target_task_alloc_ext,
             GC_NEED_TASK_TIME),
    GC_ENTRY(__kmpc_taskloop, taskloop_ext, GC_NEED_TASK_TIME),
    GC_ENTRY(__kmpc_taskloop_5, taskloop5_ext, GC_NEED_TASK_TIME),
};
#define GC_NUM_ENTRIES (sizeof entries / sizeof entries[0])

/* Points every slot at libomp's function, or at its wrapper while a
 * registered event needs it. */
void gc_forwarders_point(void) {
  int need = gc_registry_forwarders();
  for (size_t i = 0; i < GC_NUM_ENTRIES; ++i) {
    entry *e = &entries[i];
    void *target = !*e->real          ? e->lazy
                   : (e->need & need) ? e->wrapper
                                      : *e->real;
    atomic_store_explicit(e->slot, target, memory_order_release);
  }
}

static atomic_int resolved;

/* Finds libomp's functions (everywhere: also where lookup order does not
 * lead to them, which costs a walk over the loaded objects per name) and
 * points the slots. */
static void resolve(int everywhere) {
  if (!atomic_load(&resolved)) {
    int all = 1;
    for (size_t i = 0; i < GC_NUM_ENTRIES; ++i)
      if (!*entries[i].real &&
          !(*entries[i].real = find_real(entries[i].name, everywhere)))
        all = 0;
    if (!omp_get_schedule_fn)
      omp_get_schedule_fn =
          (get_schedule_fn)find_real("omp_get_schedule", everywhere);
    if (!omp_get_cancellation_fn)
      omp_get_cancellation_fn =
          (get_cancellation_fn)find_real("omp_get_cancellation", everywhere);
    if (all && omp_get_schedule_fn && omp_get_cancellation_fn)
      atomic_store(&resolved, 1);
  }
  gc_forwarders_point();
}

/* At load time: only what lookup order gives, which is cheap; the rest when
 * a forwarder is first called or a tool registers an event. */
void gc_forwarders_init(void) { resolve(0); }

int gc_forwarders_in_effect(void) {
  resolve(1);
  void *p = dlsym(RTLD_DEFAULT, "__kmpc_for_static_init_4");
  return is_own(p) && __kmpc_for_static_init_4_real &&
         __kmpc_dispatch_next_4_real && __kmpc_omp_task_alloc_real;
}

void gc_forwarders_reset(void) {
  atomic_store(&cancellation, -1);
  gc_forwarders_point();
}

#ifdef GRAINCHUNK_TESTING
void gc_producers_testing_reset(void) {
  atomic_store(&warned_unused, 0);
  memset(&gc_tls, 0, sizeof gc_tls);
}
#endif
