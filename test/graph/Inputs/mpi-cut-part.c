/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* mpi-parts-report.test's fragment damaged on the way: preloaded (LD_PRELOAD)
 * into the MPI ranks' commands with GRAINCHUNK_TEST_CUT=K:FILE, rank K's
 * command, as it puts its done mark in place (rename to <raw>/.rank-K.done),
 * first cuts its part's FILE (<raw>/.rank-K.part/FILE) to half its size; the
 * part is otherwise whole (its digest too). Every other rename, and every
 * other rank, is left alone. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rename(const char *from, const char *to) {
  static int (*real)(const char *, const char *);
  if (!real)
    real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  const char *cut = getenv("GRAINCHUNK_TEST_CUT");
  char mark[64], path[4096];
  int k = -1, at = 0;
  if (cut && sscanf(cut, "%d:%n", &k, &at) == 1 && at > 0) {
    snprintf(mark, sizeof mark, "/.rank-%d.done", k);
    size_t n = strlen(to), m = strlen(mark);
    if (n > m && strcmp(to + n - m, mark) == 0) {
      /* <raw>/.rank-K.done -> <raw>/.rank-K.part/FILE */
      snprintf(path, sizeof path, "%.*spart/%s", (int)(n - 4), to, cut + at);
      struct stat st;
      if (stat(path, &st) == 0 && truncate(path, st.st_size / 2) != 0)
        perror(path);
    }
  }
  return real(from, to);
}
