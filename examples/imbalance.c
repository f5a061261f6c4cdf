/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A small program with the kind of static loops HPC codes are full of:
 * a triangular loop whose chunks get more expensive towards the end (load
 * imbalance under a static schedule) and a few regular sweeps.
 *
 * Stock build: an OMPT tool sees only each thread's first chunk.
 * grainchunk build: it sees every chunk, so it can show the imbalance. */
#include <stdio.h>
#define N 2000
static double a[N], b[N];

static long chunks(long trip, long chunk) { return (trip + chunk - 1) / chunk; }

int main(void) {
  long scheduled = 0;

  /* Triangular work: iteration i costs i inner steps. */
#pragma omp parallel for schedule(static, 8)
  for (int i = 0; i < N; i++) {
    double s = 0;
    for (int j = 0; j <= i; j++)
      s += (double)j / (i + 1);
    a[i] = s;
  }
  scheduled += chunks(N, 8);

  /* Regular sweeps, several sizes and chunk sizes. */
  for (int step = 0; step < 4; step++) {
#pragma omp parallel for schedule(static, 16)
    for (long i = 1; i < N - 1; i++)
      b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3;
    scheduled += chunks(N - 2, 16);
#pragma omp parallel for schedule(static, 50)
    for (unsigned i = 0; i < N; i++)
      a[i] = b[i] * 0.5 + a[i] * 0.5;
    scheduled += chunks(N, 50);
  }

  double sum = 0;
  for (int i = 0; i < N; i++)
    sum += a[i];
  printf("result %.6f\n", sum);
  printf("static chunks scheduled: %ld\n", scheduled);
  return 0;
}
