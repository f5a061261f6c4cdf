/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Static loops whose logical iteration space ends next to the limit of its
 * type (32-bit signed and unsigned, 64-bit signed and unsigned), with chunk
 * sizes that make a chunk walk pass that limit. Each loop prints how many
 * iterations ran and the sum of the loop variable over them, so a skipped,
 * repeated or out-of-range iteration changes the output. The loop bodies
 * fold to a constant per chunk at -O1 and above, so a loop of 2^62
 * iterations takes as long as its few chunks.
 *
 * usage: limits [serial]   (serial: every region gets if(0))
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

static int serial;

#define LOOP(NAME, T, LO, CMP, HI, CHUNK)                                      \
  static void NAME(void) {                                                     \
    unsigned long long cnt = 0, sum = 0;                                       \
    const T chunk = CHUNK;                                                     \
    _Pragma("omp parallel for schedule(static, chunk) reduction(+ : cnt, sum) \
             if (!serial)")                                                    \
    for (T i = LO; i CMP HI; i++) {                                            \
      cnt++;                                                                   \
      sum += (unsigned long long)i;                                            \
    }                                                                          \
    printf("%-10s cnt=%llu sum=%llu\n", #NAME, cnt, sum);                      \
  }

/* The loops: INT_MAX iterations in chunks of 1000; 2^30 + 1 in
 * chunks of 2^30 (signed 32-bit); 3 * 2^30 + 6 unsigned in chunks of 2^30. */
LOOP(int_max, int, 0, <, INT_MAX, 1000)
LOOP(int_2p30, int, 0, <=, 1 << 30, 1 << 30)
LOOP(uns_3p30, unsigned, 0u, <, 3u * (1u << 30) + 6u, 1 << 30)
/* Around 2^31 and 2^32. */
LOOP(int_2p31m, int, 1, <, INT_MAX, (1 << 30) + 7)
LOOP(uns_2p32m, unsigned, 0u, <, UINT_MAX - 2u, (1 << 30) + 1)
LOOP(uns_2p31, unsigned, 0u, <, 1u << 31, 1000003)
/* 64-bit: 2^62 + 3 and 2^63 - 2 iterations, 2^64 - 3 unsigned. */
LOOP(long_2p62, long, 0L, <, (1L << 62) + 3, 1L << 62)
LOOP(long_2p63m, long, 1L, <, LONG_MAX, (1L << 62) + 5)
LOOP(ulong_2p64m, unsigned long, 0UL, <, ULONG_MAX - 2UL, (1UL << 62) + 3)
LOOP(ulong_2p63, unsigned long, 0UL, <, 1UL << 63, LONG_MAX)
/* A loop whose walk fits (control): chunks end exactly at the limit. */
LOOP(int_fits, int, 0, <, (1 << 30) + 6, 1 << 29)

int main(int argc, char **argv) {
  serial = argc > 1 && !strcmp(argv[1], "serial");
  int_max();
  int_2p30();
  uns_3p30();
  int_2p31m();
  uns_2p32m();
  uns_2p31();
  long_2p62();
  long_2p63m();
  ulong_2p64m();
  ulong_2p63();
  int_fits();
  return 0;
}
