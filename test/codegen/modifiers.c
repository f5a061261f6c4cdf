// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Schedule modifiers. monotonic/nonmonotonic set high bits of the schedule
// kind (1<<29, 1<<30) and do not change a static schedule: instrumented like
// schedule(static, N). schedule(simd: static, N) is kmp_sch_static_balanced_
// chunked (45): Clang emits the loop over chunks, the runtime gives each
// thread one chunk, so it is instrumented without the one-thread chunk walk.
//
// RUN: %clang -fopenmp -fplugin=%plugin -O0 -S -emit-llvm %s -o - -Rpass=grainchunk 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

void work(long);

void mono(int n) {
#pragma omp parallel for schedule(monotonic: static, 4)
  for (int i = 0; i < n; i++)
    work(i);
}
// REMARK: modifiers.c:[[@LINE-4]]:1: remark: schedule(static, 4) loop instrumented
// CHECK-LABEL: define internal void @{{(mono)?}}.omp_outlined{{[.0-9]*}}(
// CHECK:       call void @__kmpc_for_static_init_4({{(ptr|[^ ,()]+\*)}} {{[^,]+}}, i32 {{[^,]+}}, i32 536870945,
// A one-thread team walks chunks of 4 (when a tool asks):
// CHECK-NEXT:  br i1 %{{[0-9a-zA-Z._]+}}, label
// CHECK:       call void @__kmpc_for_static_chunk_4(
// CHECK-LABEL: }

void nonmono(int n) {
#pragma omp parallel for schedule(nonmonotonic: static, 4)
  for (int i = 0; i < n; i++)
    work(i);
}
// REMARK: modifiers.c:[[@LINE-4]]:1: remark: schedule(static, 4) loop instrumented
// CHECK-LABEL: define internal void @{{(nonmono)?}}.omp_outlined{{[.0-9]*}}(
// CHECK:       call void @__kmpc_for_static_init_4({{(ptr|[^ ,()]+\*)}} {{[^,]+}}, i32 {{[^,]+}}, i32 1073741857,
// CHECK:       call void @__kmpc_for_static_chunk_4(
// CHECK-LABEL: }

void simd_static(int n) {
#pragma omp parallel for simd schedule(simd: static, 4)
  for (int i = 0; i < n; i++)
    work(i);
}
// REMARK: modifiers.c:[[@LINE-4]]:1: remark: schedule(simd: static, N) loop instrumented: each thread's chunk is reported
// CHECK-LABEL: define internal void @{{(simd_static)?}}.omp_outlined{{[.0-9]*}}(
// CHECK:       call void @__kmpc_for_static_init_4({{(ptr|[^ ,()]+\*)}} {{[^,]+}}, i32 {{[^,]+}}, i32 45,
// CHECK-NEXT:  br label %
// CHECK:       call void @__kmpc_for_static_chunk_4(
// CHECK-LABEL: }
