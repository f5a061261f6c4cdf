/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A test-only stand-in for grainchunk's runtime library, linked into the
 * program (test/e2e/chunk-end.test): it asks for chunk and chunk-end calls
 * (answer 3) and checks, per thread, what the plugin's code calls:
 * - every loop's instance is bracketed by __kmpc_for_static_init_* and
 *   __kmpc_for_static_fini (defined here, forwarding to libomp's), and
 *   instances nest (a distribute chunk forks the inner loop's team);
 * - in a loop over chunks (schedule kinds 33, 45, 91) the calls strictly
 *   alternate chunk, end, chunk, end, ..., ending with an end before the
 *   fini; a single range (34, 92) gets at most one chunk call and no end;
 * - the chunks are exactly this thread's share of the loop, in order: the
 *   runtime's first chunk stepped by its stride and clamped to the loop's
 *   last iteration (for a thread the runtime gave the whole range, also the
 *   walk in chunks of N), so the threads' chunks tile the loop;
 * - gc_iteration(i), called from a loop body, lies in the open chunk, and
 *   a chunk whose body calls it runs exactly the chunk's iterations; with
 *   gc_expect_iterations(n), all n iterations ran in such chunks.
 * At exit it writes one summary line to $CHUNKEND_OUT (default stderr). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct ident ident_t;
typedef __int128 wide;

enum { MaxDepth = 16, MaxErrors = 10 };

struct instance {
  int sched, chunked, open;
  int walk; /* -1 undecided; 0 the runtime's chunks; 1 chunks of N from the
               loop's start */
  wide lo0, hi0, lb, ub, st, n; /* loop range; runtime's chunk and stride */
  wide next;                    /* index of the next expected chunk */
  wide open_lo, open_hi;        /* the open chunk */
  long long body;               /* its iterations gc_iteration saw */
};

static __thread struct instance stack[MaxDepth];
static __thread int depth;
static long long loops, chunks, ends, iterations, chunk_iterations, errors;
static long long covered, expected = -1;

static void fail(const char *what, const struct instance *in) {
  long long e = __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
  if (e < MaxErrors)
    fprintf(stderr,
            "chunkend: error: %s (depth %d, schedule %d, chunk %lld; loop "
            "[%lld, %lld], runtime's chunk [%lld, %lld] stride %lld, N %lld)\n",
            what, depth, in ? in->sched : -1, in ? (long long)in->next : -1,
            in ? (long long)in->lo0 : 0, in ? (long long)in->hi0 : 0,
            in ? (long long)in->lb : 0, in ? (long long)in->ub : 0,
            in ? (long long)in->st : 0, in ? (long long)in->n : 0);
}

static struct instance *top(void) {
  return depth > 0 && depth <= MaxDepth ? &stack[depth - 1] : NULL;
}

static wide min_w(wide a, wide b) { return a < b ? a : b; }

static void close_chunk(struct instance *in);

static void *real(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  if (!f) {
    fprintf(stderr, "chunkend: no %s in libomp\n", name);
    abort();
  }
  return f;
}

static void begin(int sched, wide lo0, wide hi0, wide lb, wide ub, wide st,
                  wide n) {
  __atomic_fetch_add(&loops, 1, __ATOMIC_RELAXED);
  if (++depth > MaxDepth) {
    fail("loops nested too deep", NULL);
    return;
  }
  struct instance *in = top();
  int s = sched & ~(3 << 29); /* (non)monotonic modifiers */
  *in = (struct instance){.sched = s,
                          .chunked = s == 33 || s == 45 || s == 91,
                          .walk = -1,
                          .lo0 = lo0,
                          .hi0 = hi0,
                          .lb = lb,
                          .ub = ub,
                          .st = st,
                          .n = n};
}

/* __kmpc_for_static_init_X: the loop's range as the program passes it, the
 * thread's first chunk and stride as libomp answers. */
#define DEFINE_INIT(SFX, T, CT)                                                \
  void __kmpc_for_static_init_##SFX(ident_t *loc, int32_t gtid, int32_t sched, \
                                    int32_t *last, T *lb, T *ub, CT *st,       \
                                    CT incr, CT n) {                           \
    static void (*f)(ident_t *, int32_t, int32_t, int32_t *, T *, T *, CT *,   \
                     CT, CT);                                                  \
    if (!f)                                                                    \
      f = real("__kmpc_for_static_init_" #SFX);                                \
    wide lo0 = *lb, hi0 = *ub;                                                 \
    f(loc, gtid, sched, last, lb, ub, st, incr, n);                            \
    begin(sched, lo0, hi0, *lb, *ub, *st, n);                                  \
  }
DEFINE_INIT(4, int32_t, int32_t)
DEFINE_INIT(4u, uint32_t, int32_t)
DEFINE_INIT(8, int64_t, int64_t)
DEFINE_INIT(8u, uint64_t, int64_t)

void __kmpc_for_static_fini(ident_t *loc, int32_t gtid) {
  static void (*f)(ident_t *, int32_t);
  if (!f)
    f = real("__kmpc_for_static_fini");
  struct instance *in = top();
  if (!in) {
    fail("fini without a loop", NULL);
  } else {
    if (in->open)
      fail("the loop ends with a chunk that got no end call", in);
    if (!in->chunked)
      close_chunk(in);
    /* Every chunk of this thread's share was reported. */
    wide start =
        in->walk == 1 ? in->lo0 + in->next * in->n : in->lb + in->next * in->st;
    /* Except in `distribute parallel for schedule(static, 1)` in a
     * one-thread team: Clang steps its single iteration by the runtime's
     * stride, the whole range, and runs only the first (stock too). */
    int stock_one = in->walk == 1 && in->n == 1 && in->next == 1 &&
                    in->st == in->hi0 - in->lo0 + 1;
    if (in->chunked ? start <= in->hi0 && in->lb <= in->hi0 && !stock_one
                    : in->next == 0 && in->lb <= min_w(in->ub, in->hi0))
      fail("a chunk of the thread's share was not reported", in);
  }
  if (depth > 0)
    --depth;
  f(loc, gtid);
}

int32_t __kmpc_should_callback_per_chunk(ident_t *loc) { return 3; }

static void chunk(wide lo, wide hi) {
  __atomic_fetch_add(&chunks, 1, __ATOMIC_RELAXED);
  struct instance *in = top();
  if (!in) {
    fail("chunk call outside a loop", NULL);
    return;
  }
  if (in->open)
    fail("chunk call while the previous chunk is open (no end call)", in);
  if (!in->chunked && in->next > 0)
    fail("a second chunk in a single-range loop", in);
  /* The thread whose runtime chunk is the whole range may walk it in
   * chunks of N; decided by the first chunk. */
  if (in->walk < 0)
    in->walk = in->chunked && in->lb == in->lo0 && in->ub >= in->hi0 &&
               in->n > 0 && hi != min_w(in->ub, in->hi0);
  wide elo, ehi;
  if (in->walk) {
    elo = in->lo0 + in->next * in->n;
    ehi = min_w(elo + in->n - 1, in->hi0);
  } else {
    elo = in->lb + in->next * in->st;
    ehi = min_w(in->ub + in->next * in->st, in->hi0);
  }
  if (lo != elo || hi != ehi || lo > hi)
    fail("the chunk is not the thread's next chunk of the schedule", in);
  __atomic_fetch_add(&chunk_iterations, (long long)(hi - lo + 1),
                     __ATOMIC_RELAXED);
  in->next++;
  in->open = in->chunked;
  in->open_lo = lo;
  in->open_hi = hi;
  in->body = 0;
}

/* A chunk is over: if the loop body reported its iterations, it ran
 * exactly the chunk's. */
static void close_chunk(struct instance *in) {
  if (in->body == 0)
    return;
  if (in->body != in->open_hi - in->open_lo + 1)
    fail("the chunk's body ran another number of iterations", in);
  __atomic_fetch_add(&covered, in->body, __ATOMIC_RELAXED);
  in->body = 0;
}

#define DEFINE_CHUNK(SFX, T)                                                   \
  void __kmpc_for_static_chunk_##SFX(ident_t *loc, int32_t gtid, int32_t last, \
                                     T lower, T upper) {                       \
    chunk(lower, upper);                                                       \
  }
DEFINE_CHUNK(4, int32_t)
DEFINE_CHUNK(4u, uint32_t)
DEFINE_CHUNK(8, int64_t)
DEFINE_CHUNK(8u, uint64_t)

void __kmpc_for_static_chunk_end(ident_t *loc, int32_t gtid) {
  __atomic_fetch_add(&ends, 1, __ATOMIC_RELAXED);
  struct instance *in = top();
  if (!in)
    fail("end call outside a loop", NULL);
  else if (!in->chunked)
    fail("end call in a single-range loop", in);
  else if (!in->open)
    fail("end call without an open chunk (a second end call)", in);
  else {
    close_chunk(in);
    in->open = 0;
  }
}

/* From a loop body over logical iterations 0, 1, ...: the iteration runs
 * inside the open chunk of the innermost loop. */
void gc_iteration(long long i) {
  __atomic_fetch_add(&iterations, 1, __ATOMIC_RELAXED);
  struct instance *in = top();
  int inside = in && (in->chunked ? in->open : in->next == 1);
  if (!inside || i < in->open_lo || i > in->open_hi)
    fail("an iteration runs outside an open chunk", in);
  else
    in->body++;
}

/* The number of gc_iteration calls the program makes in all. */
void gc_expect_iterations(long long n) { expected = n; }

__attribute__((destructor)) static void summary(void) {
  if (expected >= 0 && (iterations != expected || covered != expected))
    fail("the bodies' iterations are not the chunks' iterations", NULL);
  const char *path = getenv("CHUNKEND_OUT");
  FILE *out = path ? fopen(path, "a") : stderr;
  if (!out)
    out = stderr;
  fprintf(out,
          "chunkend: %s, %lld loops, %lld chunks, %lld end calls, %lld "
          "chunk iterations, %lld body iterations in chunks of their size, "
          "%lld expected, %lld errors\n",
          errors ? "FAILED" : "OK", loops, chunks, ends, chunk_iterations,
          covered, expected, errors);
  if (out != stderr)
    fclose(out);
}
