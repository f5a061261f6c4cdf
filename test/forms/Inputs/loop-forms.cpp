// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Every loop form docs/loop-forms.md lists, one function each. A
// "// FORM: <name>" line starts an entry; the grainchunk remarks Clang gives
// for the lines up to the next entry are that form's status. loop_forms.py
// turns them into the table (see loop-forms.test).
#include <complex>
#include <deque>
#include <string>
#include <vector>

void work(long);

// FORM: `parallel for schedule(static, N)`
void static_chunked(int n) {
#pragma omp parallel for schedule(static, 4)
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: `for schedule(static, N)` in a parallel region, also `nowait`
void for_in_region(int n) {
#pragma omp parallel
  {
#pragma omp for schedule(static, 4) nowait
    for (int i = 0; i < n; i++)
      work(i);
  }
}

// FORM: orphaned `for schedule(static, N)` (in a called function)
void orphaned(int n) {
#pragma omp for schedule(static, 4)
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: chunk size computed at run time
void runtime_chunk(int n, int c) {
#pragma omp parallel for schedule(static, c)
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: descending and strided loops, any integer IV type
void descending(unsigned long long hi) {
#pragma omp parallel for schedule(static, 3)
  for (unsigned long long i = hi; i > 7; i -= 5)
    work((long)i);
}

// FORM: `schedule(static)` without a chunk
void static_nochunk(int n) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: no `schedule` clause (Clang's default is static)
void default_schedule(int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: `schedule(monotonic: static, N)`, `schedule(nonmonotonic: static, N)`
void modifiers(int n) {
#pragma omp parallel for schedule(monotonic : static, 4)
  for (int i = 0; i < n; i++)
    work(i);
#pragma omp parallel for schedule(nonmonotonic : static, 4)
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: `parallel for simd` / `for simd` with a static schedule
void for_simd(int n) {
#pragma omp parallel for simd schedule(static, 8)
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: `schedule(simd: static, N)`
void simd_static(int n) {
#pragma omp parallel for simd schedule(simd : static, 8)
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: `collapse(2)`, `collapse(3)`
void collapse(int n, int m) {
#pragma omp parallel for collapse(2) schedule(static, 4)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      work(i * m + j);
#pragma omp parallel for collapse(3) schedule(static)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      for (int k = 0; k < 3; k++)
        work(i + j + k);
}

// FORM: `lastprivate`, `reduction`, `linear`
long clauses(int n) {
  long s = 0, j = 0, last = 0;
#pragma omp parallel for schedule(static, 2) reduction(+ : s) lastprivate(last) linear(j : 1)
  for (int i = 0; i < n; i++) {
    s += i + j;
    last = i;
    j++;
  }
  return s + last;
}

// FORM: C++ class-type data: `private`/`firstprivate`/`lastprivate` objects with constructors, `reduction` of `std::complex`
struct Obj {
  long v;
  Obj() : v(0) {}
  Obj(const Obj &o) : v(o.v) {}
  ~Obj() {}
  Obj &operator=(const Obj &o) {
    v = o.v;
    return *this;
  }
};
std::complex<double> objects(int n, Obj &p, std::string &tag) {
  std::complex<double> z = 0;
#pragma omp parallel for schedule(static, 4) reduction(+ : z) private(p)
  for (int i = 0; i < n; i++) {
    p.v = i;
    z += std::complex<double>(p.v, 1);
  }
#pragma omp parallel for schedule(static, 4) firstprivate(tag) lastprivate(p)
  for (int i = 0; i < n; i++) {
    p.v = i + (long)tag.size();
    work(p.v);
  }
  return z;
}

// FORM: C++ user-defined reduction with an `initializer`
struct Sum {
  long v;
  Sum() : v(0) {}
};
#pragma omp declare reduction(add : Sum : omp_out.v += omp_in.v)               \
    initializer(omp_priv = Sum())
long udr(int n) {
  Sum s;
#pragma omp parallel for schedule(static, 2) reduction(add : s)
  for (int i = 0; i < n; i++)
    s.v += i;
  return s.v;
}

// FORM: C++ template, lambda
template <typename T> void tmpl(T n) {
#pragma omp parallel for schedule(static, 3)
  for (T i = 0; i < n; i++)
    work((long)i);
}
template void tmpl<short>(short);
void lambda(int n) {
  auto f = [&] {
#pragma omp parallel for schedule(static, 3)
    for (int i = 0; i < n; i++)
      work(i);
  };
  f();
}

// FORM: C++ range-for over `std::vector`, iterator loops over `std::deque`
void containers(std::vector<int> &v, std::deque<int> &d) {
#pragma omp parallel for schedule(static, 4)
  for (int &x : v)
    work(x);
#pragma omp parallel for schedule(static, 4)
  for (auto it = d.begin(); it != d.end(); ++it)
    work(*it);
}

// FORM: `#pragma omp loop` (Clang lowers it to a static worksharing loop)
void omp_loop(int n) {
#pragma omp parallel loop
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: `teams distribute` with `dist_schedule(static, N)`
void distribute_chunked(int n) {
#pragma omp teams distribute dist_schedule(static, 4)
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: `teams distribute` with `dist_schedule(static)` or none
void distribute(int n) {
#pragma omp teams distribute
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: `teams distribute parallel for` (dist_schedule(static) or none)
void distribute_parallel_for(int n) {
#pragma omp teams distribute parallel for schedule(static, 4)
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: `teams distribute parallel for schedule(static, 1)`
void distribute_parallel_for_one(int n) {
#pragma omp teams distribute parallel for schedule(static, 1)
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: `teams distribute parallel for dist_schedule(static, N)`
void distribute_parallel_for_chunked(int n) {
#pragma omp teams distribute parallel for dist_schedule(static, 8)
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: `schedule(dynamic)`, `schedule(guided)`
void dynamic(int n) {
#pragma omp parallel for schedule(dynamic, 4)
  for (int i = 0; i < n; i++)
    work(i);
#pragma omp parallel for schedule(guided)
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: `schedule(runtime)`, `schedule(auto)`
void runtime_auto(int n) {
#pragma omp parallel for schedule(runtime)
  for (int i = 0; i < n; i++)
    work(i);
#pragma omp parallel for schedule(auto)
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: `ordered` loops (an `ordered` region in the loop body)
void ordered(int n) {
#pragma omp parallel for schedule(static, 4) ordered
  for (int i = 0; i < n; i++) {
#pragma omp ordered
    work(i);
  }
}

// FORM: `ordered(n)` doacross loops with a static schedule
void doacross(int n) {
#pragma omp parallel for schedule(static, 4) ordered(1)
  for (int i = 1; i < n; i++) {
#pragma omp ordered depend(sink : i - 1)
    work(i);
#pragma omp ordered depend(source)
  }
}

// FORM: `taskloop`
void taskloop(int n) {
#pragma omp parallel
#pragma omp single
#pragma omp taskloop
  for (int i = 0; i < n; i++)
    work(i);
}

// FORM: `sections`
void sections() {
#pragma omp parallel sections
  {
#pragma omp section
    work(1);
#pragma omp section
    work(2);
  }
}
