// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// schedule(static) without a chunk (and the default schedule, which Clang
// makes static): the runtime hands each thread at most one chunk, [LB, UB]
// after the clamp. The pass reports it once, where the chunk starts, if it
// is not empty (more threads than iterations leave some threads none). No
// chunk walking is added: a one-thread team's one chunk is the schedule's.
//
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O0 -S -emit-llvm -DTYPE=int %s -o - | FileCheck %s -DSFX=4 -DTY=i32 -DLE=sle
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O0 -S -emit-llvm -DTYPE=unsigned %s -o - | FileCheck %s -DSFX=4u -DTY=i32 -DLE=ule
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O0 -S -emit-llvm -DTYPE=long %s -o - | FileCheck %s -DSFX=8 -DTY=i64 -DLE=sle
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O0 -S -emit-llvm "-DTYPE=unsigned long" %s -o - | FileCheck %s -DSFX=8u -DTY=i64 -DLE=ule
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O0 -S -emit-llvm -DTYPE=int %s -o /dev/null -Rpass=grainchunk 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: for o in -O0 -O1 -O2 -O3 -Os; do %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables $o -S -emit-llvm -DTYPE=long %s -o %t.$o.ll && opt -passes=verify -disable-output %t.$o.ll && test $(grep -c 'call void @__kmpc_for_static_chunk_8(' %t.$o.ll) -eq 2 && ! grep -q __kmpc_for_static_chunk_end %t.$o.ll || exit 1; done
void work(long);

void loop(TYPE n) {
#pragma omp parallel for schedule(static)
  for (TYPE i = 0; i < n; i++)
    work(i);
}

void default_schedule(TYPE n) {
#pragma omp parallel for
  for (TYPE i = 0; i < n; i++)
    work(i);
}

// REMARK: static-nochunk.c:17:1: remark: schedule(static) loop instrumented: each thread's chunk is reported to OMPT tools
// REMARK: static-nochunk.c:23:1: remark: schedule(static) loop instrumented: each thread's chunk is reported to OMPT tools

// CHECK-LABEL: define internal void @{{(loop)?}}.omp_outlined{{[.0-9]*}}(
// CHECK:      call {{.*}}i32 @grainchunk.ask({{(ptr|[^ ,()]+\*)}} [[LOC:@[0-9a-zA-Z._]+]])
// CHECK:      [[WANT:%[0-9a-zA-Z._]+]] = icmp ne i32 %{{[0-9a-zA-Z._]+}}, 0
// CHECK-NEXT: call void @__kmpc_for_static_init_[[SFX]]({{(ptr|[^ ,()]+\*)}} [[LOC]], i32 [[GTID:%[0-9a-zA-Z._]+]], i32 34, {{(ptr|[^ ,()]+\*)}} %{{[0-9a-zA-Z._]+}}, {{(ptr|[^ ,()]+\*)}} [[LB:%[0-9a-zA-Z._]+]], {{(ptr|[^ ,()]+\*)}} [[UB:%[0-9a-zA-Z._]+]], {{(ptr|[^ ,()]+\*)}} {{%[0-9a-zA-Z._]+}}, [[TY]] 1, [[TY]] 1), !grainchunk
// No one-thread chunk walking for schedule(static):
// CHECK-NOT:  br i1 [[WANT]]
// CHECK:      [[CL:%[0-9a-zA-Z._]+]] = phi [[TY]]
// CHECK-NEXT: store [[TY]] [[CL]], {{(ptr|[^ ,()]+\*)}} [[UB]]
// CHECK-NEXT: [[LO:%[0-9a-zA-Z._]+]] = load [[TY]], {{(ptr|[^ ,()]+\*)}} [[LB]]
// CHECK-NEXT: store [[TY]] [[LO]], {{(ptr|[^ ,()]+\*)}}
// CHECK-NEXT: [[NE:%[0-9a-zA-Z._]+]] = icmp [[LE]] [[TY]] [[LO]], [[CL]]
// CHECK-NEXT: [[GUARD:%[0-9a-zA-Z._]+]] = and i1 [[WANT]], [[NE]]
// CHECK-NEXT: br i1 [[GUARD]], label %[[REPORT:[0-9a-zA-Z._]+]], label
// CHECK:      [[REPORT]]:
// CHECK-NEXT: [[EQ:%[0-9a-zA-Z._]+]] = icmp eq [[TY]] [[CL]], {{%[0-9a-zA-Z._]+}}
// CHECK-NEXT: [[LAST:%[0-9a-zA-Z._]+]] = zext i1 [[EQ]] to i32
// CHECK-NEXT: call void @__kmpc_for_static_chunk_[[SFX]]({{(ptr|[^ ,()]+\*)}} [[LOC]], i32 [[GTID]], i32 [[LAST]], [[TY]] [[LO]], [[TY]] [[CL]])
// CHECK-NOT:  call void @__kmpc_for_static_chunk_
// CHECK:      call void @__kmpc_for_static_fini(
// CHECK-LABEL: }
// CHECK-LABEL: define internal void @{{(default_schedule)?}}.omp_outlined{{[.0-9]*}}(
// CHECK:      call void @__kmpc_for_static_init_[[SFX]]({{(ptr|[^ ,()]+\*)}} {{[^,]+}}, i32 {{[^,]+}}, i32 34,
// CHECK:      call void @__kmpc_for_static_chunk_[[SFX]](
