/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A fuzzer program (seed scale14-7, program 266) that clang-14 -O1
 * -fsanitize=undefined built wrongly with grainchunk: its parallel for simd
 * loop with bounds kept in registers was vectorized with its reduction
 * variable in memory under the simd loop's access-group tag. */
#include <stdio.h>
static unsigned long long mix(unsigned long long u) {
  return (u * 0x9E3779B97F4A7C15ULL) ^ (u >> 7);
}
static int team_members;

static volatile int chunk_2_0 = 2;
static volatile int chunk_3_0 = 64;
int main(void) {
  {
    unsigned long long s0 = 0;
    unsigned long long last = 0;
    (void)last;
#pragma omp parallel for num_threads(2) schedule(static, 16) reduction(+ : s0) \
    lastprivate(last)
    for (unsigned long long i = (unsigned long long)0ULL;
         i <= (unsigned long long)10ULL; i += 1) {
      s0 += mix((unsigned long long)i);
      last = (unsigned long long)i;
    }

    printf("sum %llu\n", s0);
    printf("sum %llu\n", last);
  }
  {
    unsigned long long s0 = 0;
    unsigned long long last = 0;
    (void)last;
#pragma omp parallel for num_threads(3) schedule(static, 7) reduction(+ : s0)
    for (unsigned long i = (unsigned long)0ULL; i < (unsigned long)35ULL;
         i += 5) {
      s0 += mix((unsigned long long)i);
    }

    printf("sum %llu\n", s0);
  }
  {
    unsigned long long s0 = 0;
    unsigned long long last = 0;
    (void)last;
#pragma omp parallel for simd num_threads(1) schedule(static, chunk_2_0)       \
    reduction(+ : s0)
    for (unsigned short i = (unsigned short)0ULL; i <= (unsigned short)7ULL;
         i += 1) {
      s0 += mix((unsigned long long)i);
    }

    printf("sum %llu\n", s0);
  }
  {
    unsigned long long s0 = 0;
    unsigned long long last = 0;
    (void)last;
#pragma omp parallel for simd num_threads(2) schedule(static, chunk_3_0)       \
    reduction(+ : s0)
    for (long i = (long)-9223372036854775486LL;
         i >= (long)-9223372036854775806LL; i -= 64) {
      s0 += mix((unsigned long long)i);
    }

    printf("sum %llu\n", s0);
  }
  printf("team members %d\n", team_members);
  return 0;
}
