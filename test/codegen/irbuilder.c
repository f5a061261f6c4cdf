// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// OpenMPIRBuilder's static loops (-fopenmp-enable-irbuilder, orphaned `for`):
// its loop over chunks gets the chunk call where the chunk's trip count is
// known and, guarded by the answer's second bit, the chunk-end call at the
// top of its dispatch latch, before the chunk counter steps; its single
// range (schedule(static)) gets no end call.
//
// REQUIRES: irbuilder
// RUN: %clang -fopenmp -fopenmp-enable-irbuilder -fno-discard-value-names -fplugin=%plugin -O0 -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: opt -passes=verify -disable-output %t.ll
// RUN: %clang -fopenmp -fopenmp-enable-irbuilder -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=O2

void work(long);

void chunked(int n) {
#pragma omp for schedule(static, 4)
  for (int i = 0; i < n; i++)
    work(i);
}
// CHECK-LABEL: define {{.*}}void @chunked(
// CHECK:       [[FLAGS:%[0-9a-zA-Z._]+]] = call {{.*}}i32 @grainchunk.ask(
// CHECK:       [[EBIT:%[0-9a-zA-Z._]+]] = and i32 [[FLAGS]], 2
// CHECK-NEXT:  %grainchunk.wantend = icmp ne i32 [[EBIT]], 0
// CHECK:       omp_dispatch.inc:
// CHECK-NEXT:  br i1 %grainchunk.wantend, label %grainchunk.chunkend, label %[[STEP:[0-9a-zA-Z._]+]], {{.*}}!prof
// CHECK:       grainchunk.chunkend:
// CHECK-NEXT:  call void @__kmpc_for_static_chunk_end({{(ptr|[^ ,()]+\*)}} @{{[0-9a-zA-Z._]+}}, i32 %omp_global_thread_num)
// CHECK:       [[STEP]]:
// CHECK-NEXT:  %omp_dispatch.next = add nuw i32 %omp_dispatch.iv, 1
// CHECK:       grainchunk.report:
// CHECK:       call void @__kmpc_for_static_chunk_4u(
// CHECK-NOT:   call void @__kmpc_for_static_chunk_
// CHECK-LABEL: {{^}}}

void one(int n) {
#pragma omp for schedule(static, 1)
  for (int i = 0; i < n; i++)
    work(i);
}
// CHECK-LABEL: define {{.*}}void @one(
// CHECK:       omp_dispatch.inc:
// CHECK-NEXT:  br i1 %grainchunk.wantend, label %grainchunk.chunkend, label
// CHECK:       grainchunk.chunkend:
// CHECK-NEXT:  call void @__kmpc_for_static_chunk_end(
// CHECK:       grainchunk.report:
// CHECK:       call void @__kmpc_for_static_chunk_4u(
// CHECK-NOT:   call void @__kmpc_for_static_chunk_
// CHECK-LABEL: {{^}}}

void whole(int n) {
#pragma omp for schedule(static)
  for (int i = 0; i < n; i++)
    work(i);
}
// CHECK-LABEL: define {{.*}}void @whole(
// CHECK-NOT:   grainchunk.wantend
// CHECK:       call void @__kmpc_for_static_chunk_4u(
// CHECK-NOT:   call void @__kmpc_for_static_chunk_
// CHECK-LABEL: {{^}}}

// Optimized: one init call, one chunk call and one end call per loop over
// chunks, none cloned.
// O2-LABEL: define {{.*}}void @chunked(
// O2-NOT:   call void @__kmpc_for_static_init_
// O2:       call void @__kmpc_for_static_init_4u(
// O2-NOT:   call void @__kmpc_for_static_init_
// O2-DAG:   call void @__kmpc_for_static_chunk_4u(
// O2-DAG:   call void @__kmpc_for_static_chunk_end(
// O2-NOT:   call void @__kmpc_for_static_chunk_
// O2-LABEL: define {{.*}}void @one(
// O2-LABEL: define {{.*}}void @whole(
// O2-NOT:   call void @__kmpc_for_static_chunk_end(
// O2:       ret void
