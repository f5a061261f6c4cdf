/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* appendcost.c - what putting the recorder's records into a file costs,
 * alone (docs/performance.md, "The recording tool: the per-grain path"):
 * writes a 196 KiB block (one ring of 6,144 32-byte records) with write(2)
 * again and again, BYTES in all, and prints the elapsed and CPU time per
 * 32 bytes.
 *
 *   appendcost FILE MODE BYTES [AHEAD]
 *     MODE 0: append (a file that grows, as thread-N.bin does);
 *          1: append, the space reserved AHEAD bytes ahead (default 1 MiB)
 *             with fallocate(FALLOC_FL_KEEP_SIZE), as the recorder does
 *             off tmpfs;
 *          2: overwrite the first block (the page cache's pages exist:
 *             the copy alone).
 *   FILE is removed at the end.
 *
 *   clang -O2 bench/appendcost.c -o appendcost
 *   ./appendcost build/appendcost.tmp 0 200000000
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: appendcost FILE MODE BYTES [AHEAD]\n");
    return 2;
  }
  int mode = atoi(argv[2]);
  long total = atol(argv[3]), ahead = argc > 4 ? atol(argv[4]) : 1L << 20;
  const size_t block = 6144 * 32;
  char *buf = aligned_alloc(4096, block);
  int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!buf || fd < 0) {
    perror(argv[1]);
    return 1;
  }
  memset(buf, 1, block);
  double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
  off_t end = 0, reserved = 0;
  for (long done = 0; done < total; done += (long)block) {
    if (mode == 1 && end + (off_t)block > reserved &&
        !fallocate(fd, FALLOC_FL_KEEP_SIZE, reserved, ahead))
      reserved += ahead;
    ssize_t w = mode == 2 ? pwrite(fd, buf, block, 0) : write(fd, buf, block);
    if (w != (ssize_t)block) {
      perror("write");
      break;
    }
    end += w;
  }
  double t1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
  printf("mode %d: %.2f ns per 32 bytes elapsed, %.2f ns CPU time\n", mode,
         (t1 - t0) * 1e9 / ((double)total / 32),
         (c1 - c0) * 1e9 / ((double)total / 32));
  close(fd);
  unlink(argv[1]);
  free(buf);
  return 0;
}
