// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// C++ and clause forms of static loops, each run with 1, 2, 3 and 4
// threads: templates, lambdas, range-for over std::vector, iterator loops
// over std::deque and std::vector, `omp loop`, collapse(3), linear,
// lastprivate, reduction, simd. Prints REGION/LOOP lines for
// check_chunks.py (chunk 0: schedule(static) without a chunk) and what each
// loop computed.
#include <cstdio>
#include <deque>
#include <numeric>
#include <vector>

static void region(int threads, long long trip, int chunk) {
  std::printf("REGION %d\nLOOP %lld %d\n", threads, trip, chunk);
}

template <typename T> static void tmpl(T n, int threads) {
  region(threads, n, 3);
  unsigned long long s = 0;
#pragma omp parallel for schedule(static, 3) num_threads(threads) reduction(+ : s)
  for (T i = 0; i < n; i++)
    s += (unsigned long long)i * i;
  std::printf("tmpl %llu\n", s);
}

static void lambda(int n, int threads) {
  region(threads, n, 2);
  long long s = 0;
  auto f = [&]() {
#pragma omp parallel for schedule(static, 2) num_threads(threads) reduction(+ : s)
    for (int i = 0; i < n; i++)
      s += 3 * i;
  };
  f();
  std::printf("lambda %lld\n", s);
}

static void containers(int threads) {
  std::vector<int> v(50);
  std::iota(v.begin(), v.end(), 1);
  std::deque<int> d(v.begin(), v.end());
  region(threads, v.size(), 4);
#pragma omp parallel for schedule(static, 4) num_threads(threads)
  for (int &x : v)
    x *= 2;
  region(threads, d.size(), 4);
#pragma omp parallel for schedule(static, 4) num_threads(threads)
  for (auto it = d.begin(); it != d.end(); ++it)
    *it += 1;
  region(threads, v.size(), 5);
  long long s = 0;
#pragma omp parallel for schedule(static, 5) num_threads(threads) reduction(+ : s)
  for (auto it = v.begin(); it < v.end(); ++it)
    s += *it;
  std::printf("containers %lld %d %d\n", s, d.front(), d.back());
}

static void clauses(int n, int threads) {
  int out[200] = {0};
  region(threads, n, 0);
#pragma omp parallel num_threads(threads)
#if __clang_major__ >= 19
#pragma omp loop
#else // before Clang 19, `omp loop` is no worksharing loop
#pragma omp for
#endif
  for (int i = 0; i < n; i++)
    out[i] = i + 1;
  region(threads, 4 * 5 * 3, 7);
#pragma omp parallel for collapse(3) schedule(static, 7) num_threads(threads)
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++)
      for (int k = 0; k < 3; k++)
        out[i * 15 + j * 3 + k] += i * 100 + j * 10 + k;
  long j = 0;
  region(threads, n, 2);
#pragma omp parallel for schedule(static, 2) linear(j : 2) num_threads(threads)
  for (int i = 0; i < n; i++) {
    out[i] += (int)j;
    j += 2;
  }
  int last = -1;
  region(threads, n, 6);
#pragma omp parallel for simd schedule(static, 6) lastprivate(last) num_threads(threads)
  for (int i = 0; i < n; i++) {
    out[i] *= 3;
    last = i;
  }
  long long s = 0;
  for (int i = 0; i < n; i++)
    s = s * 31 + out[i];
  std::printf("clauses %lld %ld %d\n", s, j, last);
}

// A doacross loop (ordered(1)) with a static schedule: Clang runs it as a
// static loop, and the chunks wait for each other through the runtime.
static void doacross(int n, int threads) {
  unsigned long long a[200] = {0};
  region(threads, n - 1, 3);
#pragma omp parallel for schedule(static, 3) ordered(1) num_threads(threads)
  for (int i = 1; i < n; i++) {
#pragma omp ordered depend(sink : i - 1)
    a[i] = a[i - 1] * 3 + (unsigned long long)i;
#pragma omp ordered depend(source)
  }
  std::printf("doacross %llu\n", a[n - 1]);
}

int main() {
  for (int t = 1; t <= 4; t++) {
    tmpl<long>(25, t);
    tmpl<unsigned char>(200, t);
    lambda(31, t);
    containers(t);
    clauses(77, t);
    doacross(60, t);
  }
  return 0;
}
