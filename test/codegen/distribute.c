// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host `teams distribute` loops. dist_schedule(static, N) (91) has the shape
// of schedule(static, N) and dist_schedule(static) (92) that of
// schedule(static), with teams for threads: both are instrumented, and the
// runtime's work event tells the shim to report distribute chunks. In
// `distribute parallel for`, the inner worksharing loop runs over the
// distribute chunk (its bounds start from, and are clamped to, the chunk's,
// passed in as 64-bit values): instrumented. The distribute loop with
// dist_schedule(static) forks the inner region once for the team's one
// chunk: instrumented; with dist_schedule(static, N) its loop over chunks
// re-clamps the bounds in its latch, and each run of its body is one chunk:
// instrumented, with the bounds read from LB/UB where the body starts. With
// schedule(static, 1), Clang's inner loop walks single iterations with no
// loop over chunks: each run of its body is a chunk [IV, IV].
//
// RUN: %clang -fopenmp -fplugin=%plugin -O0 -S -emit-llvm %s -o %t.ll -Rpass=grainchunk -Rpass-missed=grainchunk 2>%t.remarks
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: opt -passes=verify -disable-output %t.ll

void work(long);

void chunked(int n) {
#pragma omp teams distribute dist_schedule(static, 4)
  for (int i = 0; i < n; i++)
    work(i);
}
// REMARK: distribute.c:[[@LINE-4]]:1: remark: dist_schedule(static, 4) loop instrumented: every chunk is reported to OMPT tools
// CHECK-LABEL: define internal void @{{(chunked)?}}.omp_outlined{{[.0-9]*}}(
// CHECK:       call void @__kmpc_for_static_init_4({{(ptr|[^ ,()]+\*)}} {{[^,]+}}, i32 {{[^,]+}}, i32 91,
// CHECK-NEXT:  br i1 %{{[0-9a-zA-Z._]+}}, label
// CHECK:       call void @__kmpc_for_static_chunk_4(
// CHECK:       call void @__kmpc_for_static_chunk_end(
// CHECK-LABEL: }

void nochunk(unsigned long n) {
#pragma omp teams distribute
  for (unsigned long i = 0; i < n; i++)
    work(i);
}
// REMARK: distribute.c:[[@LINE-4]]:1: remark: dist_schedule(static) loop instrumented: each team's chunk is reported to OMPT tools
// CHECK-LABEL: define internal void @{{(nochunk)?}}.omp_outlined{{[.0-9]*}}(
// CHECK:       call void @__kmpc_for_static_init_8u({{(ptr|[^ ,()]+\*)}} {{[^,]+}}, i32 {{[^,]+}}, i32 92,
// CHECK:       call void @__kmpc_for_static_chunk_8u(
// No end call for a single range:
// CHECK-NOT:   @__kmpc_for_static_chunk_end
// CHECK-LABEL: }

void combined(int n) {
#pragma omp teams distribute parallel for schedule(static, 4)
  for (int i = 0; i < n; i++)
    work(i);
}
// REMARK: distribute.c:[[@LINE-4]]:1: remark: dist_schedule(static) loop instrumented: each team's chunk is reported to OMPT tools
// REMARK: distribute.c:[[@LINE-5]]:1: remark: schedule(static, 4) loop instrumented: every chunk is reported to OMPT tools
// CHECK-LABEL: define internal void @{{(combined)?}}.omp_outlined{{[.0-9]*}}(
// CHECK:       call void @__kmpc_for_static_init_4({{(ptr|[^ ,()]+\*)}} {{[^,]+}}, i32 {{[^,]+}}, i32 92,
// CHECK:       call void @__kmpc_for_static_chunk_4(
// CHECK:       call void {{.*}}@__kmpc_fork_call(
// CHECK-LABEL: }
// The inner loop: its bounds start from the distribute chunk's and are
// clamped to its upper bound.
// CHECK-LABEL: define internal void @{{(combined.omp_outlined)?}}.omp_outlined{{[.0-9]*}}(
// CHECK:       call void @__kmpc_for_static_init_4({{(ptr|[^ ,()]+\*)}} {{[^,]+}}, i32 {{[^,]+}}, i32 33,
// CHECK:       call void @__kmpc_for_static_chunk_4(
// CHECK-LABEL: }

void combined_chunked(int n) {
#pragma omp teams distribute parallel for dist_schedule(static, 8)
  for (int i = 0; i < n; i++)
    work(i);
}
// REMARK: distribute.c:[[@LINE-4]]:1: remark: dist_schedule(static, 8) loop instrumented: every chunk is reported to OMPT tools
// REMARK: distribute.c:[[@LINE-5]]:1: remark: schedule(static) loop instrumented: each thread's chunk is reported
// CHECK-LABEL: define internal void @{{(combined_chunked)?}}.omp_outlined{{[.0-9]*}}(
// CHECK:       call void @__kmpc_for_static_init_4({{(ptr|[^ ,()]+\*)}} [[LOC:@[0-9a-zA-Z._]+]], i32 {{[^,]+}}, i32 91, {{(ptr|[^ ,()]+\*)}} {{[^,]+}}, {{(ptr|[^ ,()]+\*)}} [[LB:%[0-9a-zA-Z._]+]], {{(ptr|[^ ,()]+\*)}} [[UB:%[0-9a-zA-Z._]+]],
// At the top of the body (which forks the inner region), the chunk's
// bounds are read from LB and UB:
// CHECK:       icmp slt i32
// CHECK:       [[LO:%[0-9a-zA-Z._]+]] = load i32, {{(ptr|[^ ,()]+\*)}} [[LB]]
// CHECK-NEXT:  [[HI:%[0-9a-zA-Z._]+]] = load i32, {{(ptr|[^ ,()]+\*)}} [[UB]]
// CHECK-NEXT:  br i1
// CHECK:       call void @__kmpc_for_static_chunk_4({{(ptr|[^ ,()]+\*)}} [[LOC]], i32 {{[^,]+}}, i32 {{[^,]+}}, i32 [[LO]], i32 [[HI]])
// CHECK:       call void {{.*}}@__kmpc_fork_call(
// The chunk ends at the top of the latch, before IV, LB and UB step:
// CHECK:       br i1 %{{[0-9a-zA-Z._]+}}, label %[[END:[0-9a-zA-Z._]+]], label %[[STEP:[0-9a-zA-Z._]+]], {{.*}}!prof
// CHECK:       [[END]]:
// CHECK-NEXT:  call void @__kmpc_for_static_chunk_end({{(ptr|[^ ,()]+\*)}} [[LOC]], i32 {{[^,]+}})
// CHECK:       [[STEP]]:
// CHECK-NEXT:  load i32
// CHECK-NEXT:  load i32
// CHECK-NEXT:  add nsw i32
// CHECK-NOT:   @__kmpc_for_static_chunk_
// CHECK-LABEL: }
// CHECK-LABEL: define internal void @{{(combined_chunked.omp_outlined)?}}.omp_outlined{{[.0-9]*}}(
// CHECK:       call void @__kmpc_for_static_init_4({{(ptr|[^ ,()]+\*)}} {{[^,]+}}, i32 {{[^,]+}}, i32 34,
// CHECK:       call void @__kmpc_for_static_chunk_4(
// CHECK-LABEL: }

void combined_one(int n) {
#pragma omp teams distribute parallel for schedule(static, 1)
  for (int i = 0; i < n; i++)
    work(i);
}
// REMARK: distribute.c:[[@LINE-4]]:1: remark: dist_schedule(static) loop instrumented
// REMARK: distribute.c:[[@LINE-5]]:1: remark: schedule(static, 1) loop instrumented: every chunk is reported to OMPT tools
// CHECK-LABEL: define internal void @{{(combined_one)?}}.omp_outlined{{[.0-9]*}}(
// CHECK:       call void @__kmpc_for_static_init_4({{(ptr|[^ ,()]+\*)}} {{[^,]+}}, i32 {{[^,]+}}, i32 92,
// CHECK-LABEL: define internal void @{{(combined_one.omp_outlined)?}}.omp_outlined{{[.0-9]*}}(
// CHECK:       call void @__kmpc_for_static_init_4({{(ptr|[^ ,()]+\*)}} {{[^,]+}}, i32 {{[^,]+}}, i32 33, {{.*}}, i32 1, i32 1)
// No one-thread chunk walk: every chunk is one iteration already.
// CHECK-NEXT:  load i32
// At the top of the body, the iteration is the chunk:
// CHECK:       br i1 %{{[0-9a-zA-Z._]+}}, label %[[BODY:[0-9a-zA-Z._]+]], label
// CHECK:       [[BODY]]:
// CHECK-NEXT:  [[IV:%[0-9a-zA-Z._]+]] = load i32
// CHECK-NEXT:  br i1
// CHECK:       call void @__kmpc_for_static_chunk_4({{(ptr|[^ ,()]+\*)}} {{[^,]+}}, i32 {{[^,]+}}, i32 {{[^,]+}}, i32 [[IV]], i32 [[IV]])
// ...and ends at the top of the latch, before IV += ST:
// CHECK:       call void @__kmpc_for_static_chunk_end(
// CHECK-NEXT:  br label %[[STEP:[0-9a-zA-Z._]+]]
// CHECK:       [[STEP]]:
// CHECK-NEXT:  load i32
// CHECK-NEXT:  load i32
// CHECK-NEXT:  add nsw i32
// CHECK-LABEL: }
