// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
struct A {
  long v;
  A();
};
void work(int, A &);
void f(int n) {
  A a;
#pragma omp parallel for schedule(static, 4) private(a)
  for (int i = 0; i < n; i++)
    work(i, a);
}
