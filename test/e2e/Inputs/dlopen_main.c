/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Starts the OpenMP runtime, then dlopens argv[1] (loops.c built as a
 * library with its main renamed loops_main) and runs it: a library that
 * links libgrainchunk-rt, loaded after the runtime looked for its tool. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int n = 0;
#pragma omp parallel num_threads(2) reduction(+ : n)
  n += 1;
  if (argc < 2 || n != 2)
    return 2;
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  int (*loops_main)(void) = (int (*)(void))dlsym(h, "loops_main");
  return loops_main ? loops_main() : 1;
}
