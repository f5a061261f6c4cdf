// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// C++: member functions, templates, exceptions enabled, a loop inside a
// try block. Every schedule(static, N) loop is instrumented.
//
// RUN: %clangxx -fopenmp -fplugin=%plugin -O0 -S -emit-llvm -fexceptions -Rpass=grainchunk %s -o %t.O0.ll 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.O0.ll
// RUN: %clangxx -fopenmp -fplugin=%plugin -O2 -S -emit-llvm -fexceptions -Rpass=grainchunk %s -o %t.O2.ll 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.O2.ll
// RUN: opt -passes=verify -disable-output %t.O0.ll
// RUN: opt -passes=verify -disable-output %t.O2.ll
#include <vector>

void work(long);

struct Grid {
  std::vector<double> v;
  void scale(double f) {
    // REMARK-DAG: forms.cpp:[[@LINE+1]]:{{[0-9]+}}: remark: schedule(static, 8) loop instrumented
#pragma omp parallel for schedule(static, 8)
    for (long i = 0; i < (long)v.size(); i++)
      v[i] *= f;
  }
};

template <typename T> void fill(T *p, T n) {
  // REMARK-DAG: forms.cpp:[[@LINE+1]]:{{[0-9]+}}: remark: schedule(static, 16) loop instrumented
#pragma omp parallel for schedule(static, 16)
  for (T i = 0; i < n; i++)
    p[i] = i;
}

void use(Grid &g, unsigned *u, int *s) {
  g.scale(2.0);
  fill(u, 100u);
  fill(s, 100);
  try {
    // REMARK-DAG: forms.cpp:[[@LINE+1]]:{{[0-9]+}}: remark: schedule(static, 1) loop instrumented
#pragma omp parallel for schedule(static, 1)
    for (int i = 0; i < 10; i++)
      work(i);
  } catch (...) {
  }
}
// CHECK-DAG: call void @__kmpc_for_static_chunk_8(
// CHECK-DAG: call void @__kmpc_for_static_chunk_4u(
// CHECK-DAG: call void @__kmpc_for_static_chunk_4(
