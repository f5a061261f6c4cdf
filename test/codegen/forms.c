// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loop forms in C: combined and orphaned `for`, `nowait`, descending and
// strided loops, constant and run-time chunk sizes, at -O0 and -O2. Each is
// instrumented (remark at the pragma) and carries exactly one chunk call.
//
// RUN: %clang -fopenmp -fplugin=%plugin -O0 -S -emit-llvm -Rpass=grainchunk %s -o %t.O0.ll 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.O0.ll
// RUN: %clang -fopenmp -fplugin=%plugin -O2 -S -emit-llvm -Rpass=grainchunk %s -o %t.O2.ll 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.O2.ll
// RUN: opt -passes=verify -disable-output %t.O0.ll
// RUN: opt -passes=verify -disable-output %t.O2.ll

void work(long);

void combined(int n) {
  // REMARK: forms.c:[[@LINE+1]]:{{[0-9]+}}: remark: schedule(static, 4) loop instrumented: every chunk is reported to OMPT tools
#pragma omp parallel for schedule(static, 4)
  for (int i = 0; i < n; i++)
    work(i);
}
// CHECK-LABEL: define internal void @{{(combined)?}}.omp_outlined{{[.0-9]*}}(
// CHECK: call void @__kmpc_for_static_chunk_4(
// CHECK: call void @__kmpc_for_static_chunk_end(
// CHECK-NOT: call void @__kmpc_for_static_chunk_
// CHECK-LABEL: {{^}}}

void orphaned(int n) {
  // REMARK: forms.c:[[@LINE+1]]:{{[0-9]+}}: remark: schedule(static, 3) loop instrumented
#pragma omp for schedule(static, 3) nowait
  for (int i = 0; i < n; i++)
    work(i);
  // REMARK: forms.c:[[@LINE+1]]:{{[0-9]+}}: remark: schedule(static, 5) loop instrumented
#pragma omp for schedule(static, 5)
  for (long i = 0; i < n; i++)
    work(i);
}
// CHECK-LABEL: define {{.*}}void @orphaned(
// CHECK: call void @__kmpc_for_static_chunk_4(
// CHECK-NOT: call void @__kmpc_for_static_chunk_4(
// CHECK: call void @__kmpc_for_static_chunk_8(
// CHECK: call void @__kmpc_for_static_chunk_end(
// CHECK-NOT: call void @__kmpc_for_static_chunk_
// CHECK-LABEL: {{^}}}

void descending_strided(long a, long b, int chunk) {
  // REMARK: forms.c:[[@LINE+1]]:{{[0-9]+}}: remark: schedule(static, N) loop instrumented
#pragma omp parallel for schedule(static, chunk)
  for (long i = a; i > b; i -= 7)
    work(i);
}
// CHECK-LABEL: define internal void @{{(descending_strided)?}}.omp_outlined{{[.0-9]*}}(
// CHECK: call void @__kmpc_for_static_chunk_8u(
// CHECK: call void @__kmpc_for_static_chunk_end(
// CHECK-NOT: call void @__kmpc_for_static_chunk_
// CHECK-LABEL: {{^}}}

void unsigned_le(unsigned a, unsigned b) {
  // REMARK: forms.c:[[@LINE+1]]:{{[0-9]+}}: remark: schedule(static, 2) loop instrumented
#pragma omp parallel for schedule(static, 2)
  for (unsigned i = a; i <= b; i += 3)
    work(i);
}
// CHECK-LABEL: define internal void @{{(unsigned_le)?}}.omp_outlined{{[.0-9]*}}(
// CHECK: call void @__kmpc_for_static_chunk_4u(
// CHECK-LABEL: {{^}}}

void signed_le_long_long(long long a, long long b) {
  // REMARK: forms.c:[[@LINE+1]]:{{[0-9]+}}: remark: schedule(static, 2) loop instrumented
#pragma omp parallel for schedule(static, 2)
  for (long long i = a; i <= b; i++)
    work(i);
}
// CHECK-LABEL: define internal void @{{(signed_le_long_long)?}}.omp_outlined{{[.0-9]*}}(
// CHECK: call void @__kmpc_for_static_chunk_8u(
// CHECK-LABEL: {{^}}}
