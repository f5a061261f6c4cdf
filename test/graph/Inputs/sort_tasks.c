/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A merge sort as BOTS sort makes its tasks: each call sorts its four
 * quarters in four tasks, waits, merges them pairwise in two tasks, waits,
 * and merges the halves in a third; a merge splits itself into two tasks
 * above a cut-off. Several task sites, each with its own join points, at
 * every depth of the tree (report-graph-layout.test: the grain graph is
 * drawn down from start).
 * Usage: sort_tasks [N (default 20000)] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { Cut = 512 };

static void seqsort(long *a, long n) {
  for (long i = 1; i < n; i++) {
    long v = a[i], j = i;
    for (; j > 0 && a[j - 1] > v; j--)
      a[j] = a[j - 1];
    a[j] = v;
  }
}

static long lowerBound(const long *a, long n, long v) {
  long lo = 0, hi = n;
  while (lo < hi) {
    long mid = (lo + hi) / 2;
    if (a[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Merges a[0..na) and b[0..nb) into out. */
static void merge(const long *a, long na, const long *b, long nb, long *out) {
  if (na + nb < Cut || na == 0 || nb == 0) {
    long i = 0, j = 0, k = 0;
    while (i < na && j < nb)
      out[k++] = a[i] <= b[j] ? a[i++] : b[j++];
    while (i < na)
      out[k++] = a[i++];
    while (j < nb)
      out[k++] = b[j++];
    return;
  }
  long ma = na / 2, mb = lowerBound(b, nb, a[ma]);
#pragma omp task
  merge(a, ma, b, mb, out);
#pragma omp task
  merge(a + ma, na - ma, b + mb, nb - mb, out + ma + mb);
#pragma omp taskwait
}

static void sort(long *a, long *tmp, long n) {
  if (n < Cut) {
    seqsort(a, n);
    return;
  }
  long q = n / 4, r = n - 3 * q;
#pragma omp task
  sort(a, tmp, q);
#pragma omp task
  sort(a + q, tmp + q, q);
#pragma omp task
  sort(a + 2 * q, tmp + 2 * q, q);
#pragma omp task
  sort(a + 3 * q, tmp + 3 * q, r);
#pragma omp taskwait
#pragma omp task
  merge(a, q, a + q, q, tmp);
#pragma omp task
  merge(a + 2 * q, q, a + 3 * q, r, tmp + 2 * q);
#pragma omp taskwait
#pragma omp task
  merge(tmp, 2 * q, tmp + 2 * q, q + r, a);
#pragma omp taskwait
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 20000;
  long *a = malloc(n * sizeof *a), *tmp = malloc(n * sizeof *tmp);
  unsigned s = 12345;
  for (long i = 0; i < n; i++)
    a[i] = (s = s * 1103515245u + 12345u) % 100000;
#pragma omp parallel
#pragma omp single
  sort(a, tmp, n);
  for (long i = 1; i < n; i++)
    if (a[i - 1] > a[i]) {
      printf("not sorted at %ld\n", i);
      return 1;
    }
  printf("sorted %ld\n", n);
  return 0;
}
