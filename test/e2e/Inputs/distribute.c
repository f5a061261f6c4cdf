/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Host `teams distribute` loops: dist_schedule(static, N), dist_schedule(static)
 * and the default (static), in leagues of 2 to 4 teams. Prints "TEAMS" and
 * "LOOP" lines for check_chunks.py (chunk 0: no chunk size), then a checksum
 * of what each loop computed. */
#include <stdio.h>
#include <string.h>

static long long acc[1000];

static void loop_line(int teams, long long trip, int chunk) {
  printf("TEAMS %d\nLOOP %lld %d\n", teams, trip, chunk);
  memset(acc, 0, sizeof acc);
}

static void sum(long long trip) {
  long long s = 0;
  for (long long k = 0; k < trip; k++)
    s = s * 31 + acc[k];
  printf("sum %lld\n", s);
}

static void chunked(int teams, int n, int chunk) {
  loop_line(teams, n, chunk);
#pragma omp teams distribute dist_schedule(static, chunk) num_teams(teams)
  for (int i = 0; i < n; i++)
    acc[i] = 3 * i + 1;
  sum(n);
}

static void descending(int teams, long long hi, long long lo, int chunk) {
  long long trip = (hi - lo) / 3 + 1;
  loop_line(teams, trip, chunk);
#pragma omp teams distribute dist_schedule(static, chunk) num_teams(teams)
  for (long long i = hi; i >= lo; i -= 3)
    acc[(hi - i) / 3] = i;
  sum(trip);
}

static void nochunk(int teams, unsigned n) {
  loop_line(teams, n, 0);
#pragma omp teams distribute dist_schedule(static) num_teams(teams)
  for (unsigned i = 0; i < n; i++)
    acc[i] = i * i;
  sum(n);
  loop_line(teams, n, 0);
#pragma omp teams distribute num_teams(teams)
  for (unsigned i = 0; i < n; i++)
    acc[i] = i + 7;
  sum(n);
}

/* distribute parallel for: each of a team's distribute chunks (one per team
 * with dist_schedule(static)) forks a region of two threads for the inner
 * loop. */
static void combined(int teams, int n, int chunk) {
  printf("TEAMS %d\nLOOP %d 0 2 %d\n", teams, n, chunk);
  memset(acc, 0, sizeof acc);
#pragma omp teams distribute parallel for num_teams(teams) thread_limit(2) \
    schedule(static, chunk)
  for (int i = 0; i < n; i++)
    acc[i] = 5 * i + 2;
  sum(n);
  printf("TEAMS %d\nLOOP %d 8 2 %d\n", teams, n, chunk);
  memset(acc, 0, sizeof acc);
#pragma omp teams distribute parallel for num_teams(teams) thread_limit(2) \
    dist_schedule(static, 8) schedule(static, chunk)
  for (int i = 0; i < n; i++)
    acc[i] = 3 * i + 9;
  sum(n);
  printf("TEAMS %d\nLOOP %d 0 2 1\n", teams, n);
  memset(acc, 0, sizeof acc);
#pragma omp teams distribute parallel for num_teams(teams) thread_limit(2) \
    schedule(static, 1)
  for (int i = 0; i < n; i++)
    acc[i] = 11 * i;
  sum(n);
  printf("TEAMS %d\nLOOP %d 0 2 0\n", teams, n);
  memset(acc, 0, sizeof acc);
#pragma omp teams distribute parallel for num_teams(teams) thread_limit(2) \
    schedule(static)
  for (int i = 0; i < n; i++)
    acc[i] = 7 * i;
  sum(n);
}

int main(void) {
  /* Leagues of 2 to 4 teams. (libomp runs a league of one team as a plain
   * parallel region of the initial thread, without a team task to tie the
   * team's events to, so check_chunks.py cannot place them.) */
  for (int t = 2; t <= 4; t++) {
    chunked(t, 30, 4);
    chunked(t, 30, 7);
    chunked(t, 3, 2);
    descending(t, 1000, 700, 5);
    nochunk(t, 30);
    nochunk(t, 3);
    combined(t, 50, 3);
  }
  return 0;
}
