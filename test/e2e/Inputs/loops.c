/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Static loops of every IV type, direction and step, run under team sizes
 * 1, 2, 3, 4 and 7. Prints, per parallel region, the team size and each
 * loop's trip count and chunk ("REGION"/"LOOP" lines, read by
 * check_chunks.py), then a checksum of what the loop computed. */
#include <stdio.h>
#include <string.h>
#define MAXN 5000
static long long acc[MAXN], acc2[MAXN];

static void begin_loop(long long trip, long long chunk) {
  memset(acc, 0, sizeof acc);
  printf("LOOP %lld %lld\n", trip, chunk);
}

static void end_loop(long long trip) {
  unsigned long long s = 0; /* wraps: defined, also under -fsanitize */
  for (long long k = 0; k < trip; k++)
    s = s * 31 + (unsigned long long)acc[k];
  printf("sum %llu\n", s);
}

/* Ascending/descending loop over TYPE from A towards B with step S. */
#define DEFINE_LOOP(NAME, TYPE, INIT, COND, INC, IDX)                          \
  static void NAME(TYPE a, TYPE b, TYPE s, int chunk, int threads) {           \
    long long trip = 0;                                                        \
    for (TYPE i = INIT; COND; INC)                                             \
      trip++;                                                                  \
    printf("REGION %d\n", threads);                                            \
    begin_loop(trip, chunk);                                                   \
    _Pragma("omp parallel for schedule(static, chunk) num_threads(threads)")   \
    for (TYPE i = INIT; COND; INC)                                             \
      acc[IDX] += (long long)i * 7 + 1;                                        \
    end_loop(trip);                                                            \
  }

DEFINE_LOOP(up_i32, int, a, i < b, i += s, (i - a) / s)
DEFINE_LOOP(down_i32, int, a, i > b, i -= s, (a - i) / s)
DEFINE_LOOP(up_u32, unsigned, a, i < b, i += s, (i - a) / s)
DEFINE_LOOP(down_u32, unsigned, a, i > b, i -= s, (a - i) / s)
DEFINE_LOOP(up_i64, long long, a, i <= b, i += s, (i - a) / s)
DEFINE_LOOP(down_i64, long long, a, i >= b, i -= s, (a - i) / s)
DEFINE_LOOP(up_u64, unsigned long long, a, i < b, i += s, (i - a) / s)

/* Orphaned worksharing loops in a called function, the first one nowait. */
static void orphan(int n, int chunk1, int chunk2) {
#pragma omp for schedule(static, chunk1) nowait
  for (int i = 0; i < n; i++)
    acc[i] += i;
#pragma omp for schedule(static, chunk2)
  for (long long i = 0; i < n; i++)
    acc2[i] = 2 * i; /* not acc: the first loop may still run (nowait) */
}

static void orphaned(int n, int chunk1, int chunk2, int threads) {
  printf("REGION %d\n", threads);
  memset(acc, 0, sizeof acc);
  printf("LOOP %d %d\nLOOP %d %d\n", n, chunk1, n, chunk2);
#pragma omp parallel num_threads(threads)
  orphan(n, chunk1, chunk2);
  for (int k = 0; k < n; k++)
    acc[k] += acc2[k];
  end_loop(n);
}

/* schedule(static) without a chunk (reported as chunk 0), and the default
 * schedule, which Clang makes static too. */
static void nochunk(long long n, int threads) {
  printf("REGION %d\n", threads);
  begin_loop(n, 0);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long long i = 0; i < n; i++)
    acc[i] = 3 * i;
  end_loop(n);
  printf("REGION %d\n", threads);
  begin_loop(n, 0);
#pragma omp parallel for num_threads(threads)
  for (unsigned i = 0; i < n; i++)
    acc[i] = i + 5;
  end_loop(n);
}

/* Monotonic and nonmonotonic static schedules are plain static ones. (Not
 * here: schedule(simd: static, N), which Clang 22 with libomp 19 runs wrongly
 * even without grainchunk; see docs/loop-forms.md.) Clang 14 and 15 with
 * their own libomp run such loops wrongly too (every thread runs every
 * iteration, measured without grainchunk), so with them these are plain
 * static loops of the same shape. */
#if defined(__clang_major__) && __clang_major__ < 16
#define MONOTONIC_STATIC static
#define NONMONOTONIC_STATIC static
#else
#define MONOTONIC_STATIC monotonic : static
#define NONMONOTONIC_STATIC nonmonotonic : static
#endif
#define PRAGMA(x) _Pragma(#x)
static void modifiers(int n, int threads) {
  printf("REGION %d\n", threads);
  begin_loop(n, 3);
  PRAGMA(omp parallel for schedule(MONOTONIC_STATIC, 3) num_threads(threads))
  for (int i = 0; i < n; i++)
    acc[i] = 4 * i;
  end_loop(n);
  printf("REGION %d\n", threads);
  begin_loop(n, 5);
  PRAGMA(omp parallel for schedule(NONMONOTONIC_STATIC, 5) num_threads(threads))
  for (int i = 0; i < n; i++)
    acc[i] = 6 * i;
  end_loop(n);
}

static void serialized(int n, int chunk) {
  printf("REGION 1\n");
  begin_loop(n, chunk);
#pragma omp parallel for schedule(static, chunk) if (0)
  for (int i = 0; i < n; i++)
    acc[i] = i;
  end_loop(n);
}

int main(void) {
  static const int teams[] = {1, 2, 3, 4, 7};
  for (unsigned t = 0; t < sizeof teams / sizeof *teams; t++) {
    int T = teams[t];
    up_i32(0, 40, 1, 4, T);      /* trip a multiple of the chunk */
    up_i32(0, 41, 1, 4, T);      /* and not */
    up_i32(-5, 100, 3, 5, T);    /* strided */
    up_i32(0, 3, 1, 10, T);      /* chunk larger than the trip */
    down_i32(100, -3, 1, 7, T);  /* descending */
    down_i32(1000, 0, 9, 2, T);  /* descending, strided */
    up_u32(10, 1010, 1, 64, T);
    down_u32(4000000000u, 3999999000u, 3, 16, T);
    up_i64(-3000000000LL, -2999999000LL, 1, 100, T);
    down_i64(5000000000LL, 4999999999LL - 999, 2, 1, T);
    up_u64(1ULL << 40, (1ULL << 40) + 777, 1, 33, T);
    orphaned(100, 3, 8, T);
    nochunk(10, T);
    nochunk(5, T); /* fewer iterations than some teams have threads */
    modifiers(37, T);
  }
  serialized(30, 4);
  return 0;
}
