// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Issue 34's example of debug info under the plugin, in C++: a parallel
// region in a function template over a std::vector, with an `omp for`
// (schedule(static, 4)), a `single` and a second `omp for`
// (schedule(static)). check_frames.py compares the frames of its runtime
// calls between a stock and a grainchunk build.
#include <cstdio>
#include <vector>
template <typename T> static T fill(std::vector<T> &a) {
  T first = 0;
#pragma omp parallel
  {
#pragma omp for schedule(static, 4)
    for (long i = 0; i < (long)a.size(); i++)
      a[i] = T(i);
#pragma omp single
    first = a[0] + a[a.size() - 1];
#pragma omp for
    for (long i = 0; i < (long)a.size(); i++)
      a[i] += first;
  }
  return first;
}
int main() {
  std::vector<long> a(1000);
  long first = fill(a);
  std::printf("%ld %ld\n", first, a[999]);
  return 0;
}
