// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// names.test: loops and a task in a plain function, a class template's
// member, a lambda; with -g their outlined functions are named
// plain.omp_outlined_debug__ and the like; grainchunk-graph names the user's.
#include <cstdio>
namespace ns {
template <typename T> struct S {
  T v[64];
  void fill(int n) {
#pragma omp parallel for schedule(static, 4) num_threads(2)
    for (int i = 0; i < n; i++)
      v[i] = i;
  }
};
}
static long data[64];
void plain(int n) {
#pragma omp parallel num_threads(2)
  {
#pragma omp for schedule(static, 2)
    for (int i = 0; i < n; i++)
      data[i] += i;
#pragma omp for schedule(dynamic, 3)
    for (int i = 0; i < n; i++)
      data[i] += 2;
#pragma omp single
    {
#pragma omp task
      data[0]++;
    }
  }
}
int main() {
  ns::S<double> s;
  s.fill(64);
  plain(64);
  auto lam = [&](int n) {
#pragma omp parallel for schedule(static, 8) num_threads(2)
    for (int i = 0; i < n; i++)
      data[i] += 1;
  };
  lam(64);
  std::printf("%g %ld\n", s.v[63], data[63]);
}
