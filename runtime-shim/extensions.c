/*===- extensions.c - TR4E's extension events on a stock libomp -----------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * A tool registers, through the ompt_set_callback its initialize receives,
 * the extension events of Langdal's TR4E runtime and grainchunk's task
 * creation event (include/grainchunk.h, docs/extensions.md):
 *   81 loop begin/end   82 chunk (with its making time and flags)
 *   83 the tool's clock 84 task creation (with its making time)
 * libomp knows nothing of them. This library learns what it needs by
 * defining the libomp entry points involved and forwarding each to
 * libomp's own (it comes before libomp in symbol lookup when the program is
 * linked with it or it is preloaded):
 *
 *   __kmpc_for_static_init_{4,4u,8,8u}   schedule, signedness, step, the
 *                                        loop's bounds, the thread's stride
 *   __kmpc_dispatch_init_{4,4u,8,8u}     dynamic/guided/runtime/auto loops
 *   __kmpc_dispatch_next_{4,4u,8,8u}     each dynamic chunk, timed
 *   __kmpc_omp_task_alloc, __kmpc_omp_target_task_alloc,
 *   __kmpc_taskloop, __kmpc_taskloop_5   when a task's making starts
 *
 * Each forwarder is one indirect jump through a slot that holds libomp's
 * function while no tool registered an event that needs it, so a program
 * pays nothing else. While one is registered the slot holds a wrapper.
 * Wrappers that must see the call's results (static init, dispatch next)
 * call libomp instead of jumping to it; the return address libomp records
 * for the standard work events would then point into this library, so
 * shim.c hands the tool the program's own (gc_thread.ra_override). The
 * others note the time and jump, so libomp sees the program's call as
 * before.
 *
 * Loop events hang off the records shim.c keeps of each thread's open loops
 * (from the runtime's work begin/end events): a forwarder leaves what it
 * learned in the thread's pending record, and the runtime's work begin,
 * which it raises inside the init call, moves it into the loop's record.
 *
 * Chunks:
 * - instrumented static loops: the plugin's per-chunk call (shim.c's
 *   report), timed from the end of the previous chunk's iterations (the
 *   plugin's chunk-end call) or the start of the init call;
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
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "shim.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void kmp_task_t;
typedef int32_t (*kmp_routine_entry_t)(int32_t, void *);

_Atomic(ext_callback_loop_t) gc_ext_loop;
_Atomic(ext_callback_chunk_t) gc_ext_chunk;
_Atomic(ext_tool_time_t) gc_ext_time;
static _Atomic(ext_callback_task_create_t) ext_task;
/* The tool's own standard task events, which the library may stand between
 * the runtime and the tool for. */
static _Atomic(ompt_callback_task_create_t) tool_task_create;
static _Atomic(ompt_callback_task_schedule_t) tool_task_schedule;
static atomic_int warned_order;

static inline double clock_now(ext_tool_time_t now) { return now ? now() : -1; }

/*===--------------------- schedules, as the tool sees them --------------===*/

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

/*===------------------ finding libomp's entry points -------------------===*/

static int is_own(void *p) {
  Dl_info a, b;
  return p && dladdr(p, &a) && dladdr((void *)gc_ext_init, &b) &&
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

/*===----------------------------- forwarders ---------------------------===*/

/* Which registered events a wrapper serves. */
enum { NEED_LOOP = 1, NEED_CHUNK = 2, NEED_TASK_TIME = 4 };

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
  (ident_t * loc, int32_t gtid, int32_t schedtype, int32_t *plast, T *plower,  \
   T *pupper, ST *pstride, ST incr, ST chunk)
#define GC_STATIC_INIT_ARGS                                                    \
  (loc, gtid, schedtype, plast, plower, pupper, pstride, incr, chunk)
#define GC_DISPATCH_INIT_PARAMS(T, ST)                                         \
  (ident_t * loc, int32_t gtid, int32_t schedule, T lb, T ub, ST st, ST chunk)
#define GC_DISPATCH_INIT_ARGS (loc, gtid, schedule, lb, ub, st, chunk)
#define GC_DISPATCH_NEXT_PARAMS(T, ST)                                         \
  (ident_t * loc, int32_t gtid, int32_t *plast, T *plb, T *pub, ST *pst)
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

/*===------------------------------ wrappers ----------------------------===*/

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
    ext_tool_time_t now =                                                      \
        atomic_load_explicit(&gc_ext_time, memory_order_acquire);              \
    int base = base_schedule(schedtype);                                       \
    gc_loop_ext *p = &t->pending;                                              \
    memset(p, 0, sizeof *p);                                                   \
    p->sched = ext_loop_sched_static;                                          \
    p->is_signed = S;                                                          \
    p->bits = B;                                                               \
    p->step = incr;                                                            \
    p->blocks = base == SCH_STATIC_CHUNKED || base == SCH_DIST_STATIC_CHUNKED; \
    T glb = *plower, gub = *pupper;                                            \
    p->mark = clock_now(now);                                                  \
    t->pending_opened = 0;                                                     \
    const void *saved = t->ra_override;                                        \
    t->ra_override = __builtin_return_address(0);                              \
    __kmpc_for_static_init_##SFX##_real GC_STATIC_INIT_ARGS;                   \
    t->ra_override = saved;                                                    \
    p->sched = 0;                                                              \
    if (!t->pending_opened || t->pending_opened != t->depth ||                 \
        t->depth > t->cap)                                                     \
      return;                                                                  \
    gc_frame *f = &t->frames[t->depth - 1];                                    \
    T lb = *plower, ub = *pupper;                                              \
    int up = incr > 0;                                                         \
    UT span = up ? (UT)ub - (UT)lb : (UT)lb - (UT)ub;                          \
    UT stride = up ? (UT) * pstride : (UT)0 - (UT) * pstride;                  \
    ext_callback_chunk_t cb =                                                  \
        atomic_load_explicit(&gc_ext_chunk, memory_order_acquire);             \
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
    gc_loop_ext *p = &gc_tls.pending;                                          \
    memset(p, 0, sizeof *p);                                                   \
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
    ext_tool_time_t now =                                                      \
        atomic_load_explicit(&gc_ext_time, memory_order_acquire);              \
    t->pending.sched = 0;                                                      \
    double t0 = clock_now(now);                                                \
    const void *saved = t->ra_override;                                        \
    t->ra_override = __builtin_return_address(0);                              \
    int32_t last = 0;                                                          \
    int32_t *pl = plast ? plast : &last;                                       \
    int rc = __kmpc_dispatch_next_##SFX##_real(loc, gtid, pl, plb, pub, pst);  \
    t->ra_override = saved;                                                    \
    const gc_frame *f = t->top;                                                \
    ext_callback_chunk_t cb =                                                  \
        atomic_load_explicit(&gc_ext_chunk, memory_order_acquire);             \
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
  ext_tool_time_t now =
      atomic_load_explicit(&gc_ext_time, memory_order_acquire);
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
  {#NAME,           (void **)&NAME##_real,                                     \
   &NAME##_slot,    (void *)NAME##_lazy,                                       \
   (void *)WRAPPER, NEED}

static entry entries[] = {
    GC_ENTRY(__kmpc_for_static_init_4, static_init_4_ext, NEED_LOOP),
    GC_ENTRY(__kmpc_for_static_init_4u, static_init_4u_ext, NEED_LOOP),
    GC_ENTRY(__kmpc_for_static_init_8, static_init_8_ext, NEED_LOOP),
    GC_ENTRY(__kmpc_for_static_init_8u, static_init_8u_ext, NEED_LOOP),
    GC_ENTRY(__kmpc_dispatch_init_4, dispatch_init_4_ext, NEED_LOOP),
    GC_ENTRY(__kmpc_dispatch_init_4u, dispatch_init_4u_ext, NEED_LOOP),
    GC_ENTRY(__kmpc_dispatch_init_8, dispatch_init_8_ext, NEED_LOOP),
    GC_ENTRY(__kmpc_dispatch_init_8u, dispatch_init_8u_ext, NEED_LOOP),
    GC_ENTRY(__kmpc_dispatch_next_4, dispatch_next_4_ext, NEED_CHUNK),
    GC_ENTRY(__kmpc_dispatch_next_4u, dispatch_next_4u_ext, NEED_CHUNK),
    GC_ENTRY(__kmpc_dispatch_next_8, dispatch_next_8_ext, NEED_CHUNK),
    GC_ENTRY(__kmpc_dispatch_next_8u, dispatch_next_8u_ext, NEED_CHUNK),
    GC_ENTRY(__kmpc_omp_task_alloc, task_alloc_ext, NEED_TASK_TIME),
    GC_ENTRY(__kmpc_omp_target_task_alloc, target_task_alloc_ext,
             NEED_TASK_TIME),
    GC_ENTRY(__kmpc_taskloop, taskloop_ext, NEED_TASK_TIME),
    GC_ENTRY(__kmpc_taskloop_5, taskloop5_ext, NEED_TASK_TIME),
};
#define GC_NUM_ENTRIES (sizeof entries / sizeof entries[0])

static int needs(void) {
  int loop = atomic_load(&gc_ext_loop) != NULL;
  int chunk = atomic_load(&gc_ext_chunk) != NULL;
  int task_time = atomic_load(&ext_task) && atomic_load(&gc_ext_time);
  return (loop || chunk ? NEED_LOOP : 0) | (chunk ? NEED_CHUNK : 0) |
         (task_time ? NEED_TASK_TIME : 0);
}

/* Points every slot at libomp's function, or at its wrapper while a
 * registered event needs it. */
static void update_slots(void) {
  int need = needs();
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
  update_slots();
}

/* At load time: only what lookup order gives, which is cheap; the rest when
 * a forwarder is first called or a tool registers an event. */
void gc_ext_init(void) { resolve(0); }

/* Whether the program's calls reach the forwarders: this library's
 * definitions come first in symbol lookup, and libomp's were found. */
static int forwarders_in_effect(void) {
  resolve(1);
  void *p = dlsym(RTLD_DEFAULT, "__kmpc_for_static_init_4");
  return is_own(p) && __kmpc_for_static_init_4_real &&
         __kmpc_dispatch_next_4_real && __kmpc_omp_task_alloc_real;
}

/*===------------------------------ events ------------------------------===*/

void gc_ext_work(const gc_frame *f, ompt_scope_endpoint_t endpoint,
                 const void *codeptr_ra) {
  ext_callback_loop_t cb =
      atomic_load_explicit(&gc_ext_loop, memory_order_acquire);
  if (cb && f->ext.sched)
    cb((ext_loop_sched_t)f->ext.sched, endpoint, f->parallel_data, f->task_data,
       f->ext.is_signed, f->ext.step, codeptr_ra);
}

void gc_ext_static_chunk(gc_frame *f, ext_callback_chunk_t cb, int32_t last,
                         uint64_t lower, uint64_t upper) {
  if (!f->ext.sched)
    return; /* its init call did not come through this library */
  double d = 0;
  ext_tool_time_t now =
      atomic_load_explicit(&gc_ext_time, memory_order_acquire);
  if (now) {
    double n = now();
    if (f->ext.mark >= 0)
      d = n - f->ext.mark;
    f->ext.mark = -1; /* the chunk-end call sets it again */
  }
  cb(f->task_data, (int64_t)lower, (int64_t)upper, d,
     last ? GRAINCHUNK_CHUNK_LAST : 0);
}

static void shim_task_create(ompt_data_t *parent_task_data,
                             const ompt_frame_t *parent_frame,
                             ompt_data_t *new_task_data, int flags,
                             int has_dependences, const void *codeptr_ra) {
  gc_thread *t = &gc_tls;
  ext_tool_time_t now =
      atomic_load_explicit(&gc_ext_time, memory_order_acquire);
  double at = clock_now(now);
  ompt_callback_task_create_t std =
      atomic_load_explicit(&tool_task_create, memory_order_acquire);
  if (std)
    std(parent_task_data, parent_frame, new_task_data, flags, has_dependences,
        codeptr_ra);
  ext_callback_task_create_t cb =
      atomic_load_explicit(&ext_task, memory_order_acquire);
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
      atomic_load_explicit(&tool_task_schedule, memory_order_acquire);
  if (std)
    std(prior_task_data, prior_task_status, next_task_data);
  /* A task that makes tasks (a taskloop's split) starts now. */
  ext_tool_time_t now =
      atomic_load_explicit(&gc_ext_time, memory_order_acquire);
  if (now)
    gc_tls.task_mark = now();
}

/* Stands between the runtime and the tool's task events only while event
 * 84 needs it; returns the runtime's answer for ev. */
static int sync_task_callbacks(int ev) {
  int ext = atomic_load(&ext_task) != NULL;
  int timed = ext && atomic_load(&gc_ext_time);
  ompt_callback_t create =
      ext ? (ompt_callback_t)shim_task_create
          : (ompt_callback_t)atomic_load(&tool_task_create);
  ompt_callback_t sched =
      timed ? (ompt_callback_t)shim_task_schedule
            : (ompt_callback_t)atomic_load(&tool_task_schedule);
  int rc_create = gc_rt_set_callback(ompt_callback_task_create, create);
  int rc_sched = gc_rt_set_callback(ompt_callback_task_schedule, sched);
  return ev == ompt_callback_task_schedule ? rc_sched : rc_create;
}

/* After a change of the extension callbacks: the forwarders' slots, the
 * runtime's work callback (returns its answer), the task callbacks. */
static int sync_all(void) {
  update_slots();
  int wrc = gc_sync_callbacks();
  sync_task_callbacks(ompt_callback_task_create);
  return wrc;
}

int gc_ext_set_callback(int event, ompt_callback_t cb, int *handled) {
  *handled = 1;
  switch (event) {
  case ompt_callback_task_create:
    atomic_store(&tool_task_create, (ompt_callback_task_create_t)cb);
    return sync_task_callbacks(event);
  case ompt_callback_task_schedule:
    atomic_store(&tool_task_schedule, (ompt_callback_task_schedule_t)cb);
    return sync_task_callbacks(event);
  case ext_tool_time:
    atomic_store(&gc_ext_time, (ext_tool_time_t)cb);
    sync_all();
    return ompt_set_always;
  case ext_callback_loop:
  case ext_callback_chunk:
  case ext_callback_task_create:
    break;
  default:
    *handled = 0;
    return ompt_set_error;
  }
  if (cb && !forwarders_in_effect()) {
    if (!atomic_exchange(&warned_order, 1))
      fprintf(stderr,
              "grainchunk: the tool asked for extension event %d, but the "
              "program's calls to the OpenMP runtime do not pass through "
              "libgrainchunk-rt (it must come before the OpenMP runtime in "
              "the program's NEEDED entries: link the program itself with "
              "`grainchunk-config --ldflags` or grainchunk::grainchunk, "
              "before any explicit -lomp, or LD_PRELOAD it); extension "
              "events are off.\n",
              event);
    return ompt_set_never;
  }
  if (event == ext_callback_loop)
    atomic_store(&gc_ext_loop, (ext_callback_loop_t)cb);
  else if (event == ext_callback_chunk)
    atomic_store(&gc_ext_chunk, (ext_callback_chunk_t)cb);
  else
    atomic_store(&ext_task, (ext_callback_task_create_t)cb);
  int wrc = sync_all();
  if (cb && event != ext_callback_task_create &&
      (wrc == ompt_set_error || wrc == ompt_set_never)) {
    /* The runtime cannot tell where loops begin and end. */
    if (event == ext_callback_loop)
      atomic_store(&gc_ext_loop, NULL);
    else
      atomic_store(&gc_ext_chunk, NULL);
    sync_all();
    return ompt_set_never;
  }
  return ompt_set_always;
}

int gc_ext_get_callback(int event, ompt_callback_t *cb, int *handled) {
  ompt_callback_t c;
  switch (event) {
  case ompt_callback_task_create:
    c = (ompt_callback_t)atomic_load(&tool_task_create);
    break;
  case ompt_callback_task_schedule:
    c = (ompt_callback_t)atomic_load(&tool_task_schedule);
    break;
  case ext_callback_loop:
    c = (ompt_callback_t)atomic_load(&gc_ext_loop);
    break;
  case ext_callback_chunk:
    c = (ompt_callback_t)atomic_load(&gc_ext_chunk);
    break;
  case ext_tool_time:
    c = (ompt_callback_t)atomic_load(&gc_ext_time);
    break;
  case ext_callback_task_create:
    c = (ompt_callback_t)atomic_load(&ext_task);
    break;
  default:
    *handled = 0;
    return 0;
  }
  *handled = 1;
  if (!c)
    return 0;
  if (cb)
    *cb = c;
  return 1;
}

int gc_ext_needs_work(void) {
  return atomic_load(&gc_ext_loop) || atomic_load(&gc_ext_chunk);
}

void gc_ext_reset(void) {
  atomic_store(&gc_ext_loop, NULL);
  atomic_store(&gc_ext_chunk, NULL);
  atomic_store(&gc_ext_time, NULL);
  atomic_store(&ext_task, NULL);
  atomic_store(&tool_task_create, NULL);
  atomic_store(&tool_task_schedule, NULL);
  atomic_store(&warned_order, 0);
  atomic_store(&cancellation, -1);
  update_slots();
}
