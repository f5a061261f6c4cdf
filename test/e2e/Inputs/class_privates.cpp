// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Static loops whose private data are class-type objects, each run with 1,
// 2, 3 and 4 threads: a std::complex reduction, private/firstprivate/
// lastprivate objects with constructors (and a copy constructor, a
// destructor, copy assignment), a user-defined reduction with an
// initializer, an array of such objects, schedule(static) without a chunk,
// a `for` inside a region with `nowait`, and an orphaned `for` in a member
// function, a `for` run three times from a sequential loop in one region.
// Clang constructs these copies between its set-up of the loop
// bounds and the runtime call (with exceptions, as invokes), which the
// plugin must see through. Prints REGION/LOOP lines for check_chunks.py
// (chunk 0: schedule(static) without a chunk) and what each loop computed.
#include <atomic>
#include <complex>
#include <cstdio>
#include <string>

static void region(int threads, long long trip, int chunk) {
  std::printf("REGION %d\nLOOP %lld %d\n", threads, trip, chunk);
}

struct Counter { // a default constructor, nothing else
  long v;
  Counter() : v(7) {}
};

struct Tracked { // copy constructor, destructor and copy assignment
  long v;
  static std::atomic<long> live; // objects alive (threads make and end them)
  Tracked() : v(1) { ++live; }
  Tracked(const Tracked &o) : v(o.v + 10) { ++live; }
  ~Tracked() { --live; }
  Tracked &operator=(const Tracked &o) {
    v = o.v;
    return *this;
  }
};
std::atomic<long> Tracked::live{0};

struct Sum {
  long v;
  Sum() : v(0) {}
};
#pragma omp declare reduction(add : Sum : omp_out.v += omp_in.v)              \
    initializer(omp_priv = Sum())

static long acc; // shared: a reduction variable of an orphaned loop

struct Mesh {
  long n;
  long out[300];
  // An orphaned loop: the region is the caller's.
  void sweep() {
    Counter c;
#pragma omp for schedule(static, 9) private(c) reduction(+ : acc)
    for (long i = 0; i < n; i++) {
      c.v = i % 5;
      out[i] = c.v;
      acc += c.v;
    }
  }
};

static void forms(int n, int threads) {
  std::complex<double> z = 0;
  region(threads, n, 4);
#pragma omp parallel for schedule(static, 4) reduction(+ : z) num_threads(threads)
  for (int i = 0; i < n; i++)
    z += std::complex<double>(i, 1);
  std::printf("complex %.1f %.1f\n", z.real(), z.imag());

  Counter c;
  long s = 0;
  region(threads, n, 3);
#pragma omp parallel for schedule(static, 3) private(c) reduction(+ : s) num_threads(threads)
  for (int i = 0; i < n; i++) {
    c.v += i;
    s += c.v;
  }
  // Each thread's copy starts at 7 and carries over between its iterations,
  // so s depends on the schedule: the same in both builds.
  std::printf("private %ld\n", s);

  Tracked t;
  s = 0;
  region(threads, n, 5);
#pragma omp parallel for schedule(static, 5) firstprivate(t) reduction(+ : s) num_threads(threads)
  for (int i = 0; i < n; i++)
    s += t.v + i;
  std::printf("firstprivate %ld live %ld\n", s, Tracked::live.load());

  region(threads, n, 6);
#pragma omp parallel for schedule(static, 6) lastprivate(t) num_threads(threads)
  for (int i = 0; i < n; i++)
    t.v = 3 * i;
  std::printf("lastprivate %ld live %ld\n", t.v, Tracked::live.load());

  Sum u;
  region(threads, n, 2);
#pragma omp parallel for schedule(static, 2) reduction(add : u) num_threads(threads)
  for (int i = 0; i < n; i++)
    u.v += i * i;
  std::printf("declare-reduction %ld\n", u.v);

  Tracked arr[3];
  s = 0;
  region(threads, n, 7);
#pragma omp parallel for schedule(static, 7) firstprivate(arr) reduction(+ : s) num_threads(threads)
  for (int i = 0; i < n; i++) {
    arr[i % 3].v += i;
    s += arr[i % 3].v;
  }
  std::printf("array %ld live %ld\n", s, Tracked::live.load());

  std::string tag = "x";
  s = 0;
  region(threads, n, 0);
#pragma omp parallel for schedule(static) firstprivate(tag) reduction(+ : s) num_threads(threads)
  for (int i = 0; i < n; i++) {
    tag += 'y';
    s += (long)tag.size();
  }
  std::printf("static %ld\n", s);

  Mesh m;
  m.n = n;
  acc = 0;
  region(threads, n, 9);
  std::printf("LOOP %d %d\n", n, 8);
#pragma omp parallel num_threads(threads)
  {
    m.sweep();
    Counter d;
#pragma omp for schedule(static, 8) nowait private(d)
    for (int i = 0; i < n; i++)
      m.out[i] += d.v;
  }
  long h = 0;
  for (int i = 0; i < n; i++)
    h = h * 31 + m.out[i];
  std::printf("orphaned %ld %ld\n", acc, h);

  // The same loop three times in one region, from a sequential loop: the
  // bounds are set up again before each run.
  std::printf("REGION %d\n", threads);
  for (int r = 0; r < 3; r++)
    std::printf("LOOP %d %d\n", n - r, 10);
  Tracked shared_t;
#pragma omp parallel num_threads(threads)
  for (int r = 0; r < 3; r++) {
    Counter q;
#pragma omp for schedule(static, 10) private(q) firstprivate(shared_t)
    for (int i = 0; i < n - r; i++) {
      q.v = i;
      m.out[i] += q.v * shared_t.v + r;
    }
  }
  h = 0;
  for (int i = 0; i < n; i++)
    h = h * 31 + m.out[i];
  std::printf("repeated %ld live %ld\n", h, Tracked::live.load());
}

int main() {
  for (int t = 1; t <= 4; t++)
    forms(101, t);
  return 0;
}
