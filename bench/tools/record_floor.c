/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* record_floor.c - the floor under the recording tool's per-grain path
 * (tools/grainchunk-record.c), one part at a time, for bench/recordcost.sh:
 * OMPT tools that take the same chunk events as the recorder and do less
 * and less of its work. One source, one variant per build
 * (-DFLOOR_TOOL=N):
 *
 *   FLOOR_EMPTY      0  an ompt_callback_dispatch that returns at once:
 *                       the dispatch itself (the program's call into the
 *                       runtime library, its call of the tool's callback);
 *   FLOOR_CLOCK      1  the same callback reads the clock (rdtsc) into the
 *                       thread's slot: the dispatch and one clock read;
 *   FLOOR_STORE      2  it reads the clock and stores a 32-byte record into
 *                       a per-thread ring in memory (no file; a full ring
 *                       starts again): dispatch, clock and store, the
 *                       least a recorder of the standard event can do;
 *   FLOOR_EXT_EMPTY  3  the extension events as the recorder registers
 *                       them for chunks: a time function (83, rdtsc) and
 *                       a chunk callback (82) that returns at once;
 *   FLOOR_EXT_STORE  4  83 and 82, the chunk stored as a 32-byte record
 *                       stamped with the time function's last reading
 *                       (what the recorder does with 82).
 * Each prints at finalize "record_floor: VARIANT events N" (N chunk events
 * seen, all threads), so the bench can check the events were delivered.
 *
 *   clang -shared -fPIC -O2 -Iinclude -DFLOOR_TOOL=2 record_floor.c \
 *     -o librecord_floor_store.so
 */
#include <grainchunk.h>
#include <omp-tools.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <x86intrin.h>

#define FLOOR_EMPTY 0
#define FLOOR_CLOCK 1
#define FLOOR_STORE 2
#define FLOOR_EXT_EMPTY 3
#define FLOOR_EXT_STORE 4
#ifndef FLOOR_TOOL
#error "build with -DFLOOR_TOOL=0 ... 4 (see the header)"
#endif
static const char *const names[] = {"empty", "clock", "store", "ext_empty",
                                    "ext_store"};

typedef struct {
  uint64_t t, a, b;
  uint32_t c, kd;
} rec_t; /* the recording's record size */
#define RING 6144

/* Per thread, initial-exec TLS as the recorder's: a ring, its cursor, the
 * clock's last reading and an event count. */
typedef struct {
  rec_t *cur, *end;
  uint64_t last, events;
  rec_t ring[RING];
} slot_t;
static __thread slot_t *me __attribute__((tls_model("initial-exec")));
static slot_t slots[64];
static atomic_int next_slot;

__attribute__((unused)) static inline slot_t *my(void) {
  slot_t *s = me;
  if (__builtin_expect(!s, 0)) {
    int i = atomic_fetch_add(&next_slot, 1);
    s = me = &slots[i < 64 ? i : 63];
    s->cur = s->ring;
    s->end = s->ring + RING;
  }
  return s;
}

__attribute__((unused)) static inline void
store(slot_t *s, uint64_t t, uint64_t a, uint64_t b, uint32_t kd) {
  rec_t *r = s->cur;
  if (__builtin_expect(r == s->end, 0))
    r = s->ring;
  r->t = t;
  r->a = a;
  r->b = b;
  r->c = 0;
  r->kd = kd;
  s->cur = r + 1;
}

static void on_dispatch(ompt_data_t *par, ompt_data_t *task,
                        ompt_dispatch_t kind, ompt_data_t instance) {
  (void)par, (void)task, (void)kind, (void)instance;
#if FLOOR_TOOL == FLOOR_CLOCK
  slot_t *s = my();
  s->last = __rdtsc();
  s->events++;
#elif FLOOR_TOOL == FLOOR_STORE
  const uint64_t *c = instance.ptr; /* ompt_dispatch_chunk_t */
  slot_t *s = my();
  store(s, __rdtsc(), c[0], c[0] + c[1] - 1, 8);
  s->events++;
#endif
}

static double tool_time(void) {
  uint64_t v = __rdtsc();
#if FLOOR_TOOL == FLOOR_EXT_STORE
  my()->last = v;
#endif
  return (double)(int64_t)v; /* below 2^63: one instruction */
}

static void on_chunk(ompt_data_t *task, int64_t lower, int64_t upper,
                     double create_duration, int flags) {
  (void)task, (void)lower, (void)upper, (void)create_duration, (void)flags;
#if FLOOR_TOOL == FLOOR_EXT_STORE
  slot_t *s = my();
  store(s, s->last, (uint64_t)lower, (uint64_t)upper, 8 | (uint32_t)flags << 8);
  s->events++;
#endif
}

static int initialize(ompt_function_lookup_t lookup, int device,
                      ompt_data_t *tool_data) {
  (void)device, (void)tool_data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
#if FLOOR_TOOL <= FLOOR_STORE
  (void)tool_time, (void)on_chunk;
  return set && set(ompt_callback_dispatch, (ompt_callback_t)on_dispatch) >=
                    ompt_set_sometimes;
#else
  (void)on_dispatch;
  return set &&
         set(ext_tool_time, (ompt_callback_t)tool_time) == ompt_set_always &&
         set(ext_callback_chunk, (ompt_callback_t)on_chunk) == ompt_set_always;
#endif
}

static void finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  unsigned long n = 0;
  for (int i = 0; i < 64; i++)
    n += slots[i].events;
  fprintf(stderr, "record_floor: %s events %lu\n", names[FLOOR_TOOL], n);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version,
                                          const char *runtime_version) {
  (void)omp_version, (void)runtime_version;
  static ompt_start_tool_result_t r = {initialize, finalize, {0}};
  return &r;
}
