// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Each iteration-variable type gets the matching entry point, with the
// chunk's exact bounds: lower = the LB the chunk starts from, upper = the
// clamped UB, last = (clamped UB == the loop's last iteration), and the same
// loc/gtid as the runtime call. Clang picks _4/_4u/_8/_8u from the IV type.
//
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O0 -S -emit-llvm -DTYPE=int %s -o - | FileCheck %s --check-prefixes=CHECK,%nullcheck -DSFX=4 -DTY=i32 -DGT=sgt -DLE=sle -DMAX=2147483647
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O0 -S -emit-llvm -DTYPE=unsigned %s -o - | FileCheck %s --check-prefixes=CHECK,%nullcheck -DSFX=4u -DTY=i32 -DGT=ugt -DLE=ule -DMAX=-1
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O0 -S -emit-llvm -DTYPE=long %s -o - | FileCheck %s --check-prefixes=CHECK,%nullcheck -DSFX=8 -DTY=i64 -DGT=sgt -DLE=sle -DMAX=9223372036854775807
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O0 -S -emit-llvm "-DTYPE=unsigned long" %s -o - | FileCheck %s --check-prefixes=CHECK,%nullcheck -DSFX=8u -DTY=i64 -DGT=ugt -DLE=ule -DMAX=-1
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O2 -S -emit-llvm -DTYPE=int %s -o - | FileCheck %s --check-prefix=O2 -DSFX=4 -DTY=i32
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O2 -S -emit-llvm -DTYPE=unsigned %s -o - | FileCheck %s --check-prefix=O2 -DSFX=4u -DTY=i32
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O2 -S -emit-llvm -DTYPE=long %s -o - | FileCheck %s --check-prefix=O2 -DSFX=8 -DTY=i64
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O2 -S -emit-llvm "-DTYPE=unsigned long" %s -o - | FileCheck %s --check-prefix=O2 -DSFX=8u -DTY=i64
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O3 -S -emit-llvm -DTYPE=int %s -o - | FileCheck %s --check-prefix=O2 -DSFX=4 -DTY=i32
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O3 -S -emit-llvm -DTYPE=long -DBODY=vectorizable %s -o - | FileCheck %s --check-prefix=O2 -DSFX=8 -DTY=i64
// Every -O level, and the result passes the IR verifier.
// RUN: for o in -O0 -O1 -O2 -O3 -Os; do %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables $o -S -emit-llvm -DTYPE=long %s -o %t.$o.ll && opt -passes=verify -disable-output %t.$o.ll && grep -q '@__kmpc_for_static_chunk_8(' %t.$o.ll || exit 1; done

void work(long);
double *a;

void loop(TYPE n) {
#pragma omp parallel for schedule(static, 4)
  for (TYPE i = 0; i < n; i++)
#ifdef BODY
    a[i] = a[i] * 3 + 1; // small enough for -O3 to unswitch it if it could
#else
    work(i);
#endif
}

// Once per loop per thread, through the module's out-of-line helper (which
// calls the shim only if it is linked: weak symbol). No branch or phi in the
// loop's function, so the optimizer has no reason to copy the init call:
// CHECK-LABEL: define internal void @{{(loop)?}}.omp_outlined{{[.0-9]*}}(
// CHECK:      [[FLAGS:%[0-9a-zA-Z._]+]] = call {{.*}}i32 @grainchunk.ask({{(ptr|[^ ,()]+\*)}} [[LOC:@[0-9a-zA-Z._]+]])
// CHECK-NEXT: [[BIT:%[0-9a-zA-Z._]+]] = and i32 [[FLAGS]], 1
// CHECK-NEXT: [[WANT:%[0-9a-zA-Z._]+]] = icmp ne i32 [[BIT]], 0
// CHECK-NEXT: [[EBIT:%[0-9a-zA-Z._]+]] = and i32 [[FLAGS]], 2
// CHECK-NEXT: [[WANTEND:%[0-9a-zA-Z._]+]] = icmp ne i32 [[EBIT]], 0
// CHECK-NEXT: call void @__kmpc_for_static_init_[[SFX]]({{(ptr|[^ ,()]+\*)}} [[LOC]], i32 [[GTID:%[0-9a-zA-Z._]+]], i32 33, {{(ptr|[^ ,()]+\*)}} %{{[0-9a-zA-Z._]+}}, {{(ptr|[^ ,()]+\*)}} [[LB:%[0-9a-zA-Z._]+]], {{(ptr|[^ ,()]+\*)}} [[UB:%[0-9a-zA-Z._]+]], {{(ptr|[^ ,()]+\*)}} [[ST:%[0-9a-zA-Z._]+]], [[TY]] 1, [[TY]] 4), !grainchunk
// A team of one thread walks the schedule's chunks too (when a tool asks):
// CHECK-NEXT: br i1 [[WANT]], label %[[ONE:[0-9a-zA-Z._]+]], label
// CHECK:      [[ONE]]:
// through the module's out-of-line walk, which returns the first chunk's
// upper bound (or UB itself where the walk is not taken); the stride
// becomes the chunk size where it was taken:
// CHECK:      [[LB0:%[0-9a-zA-Z._]+]] = load [[TY]], {{(ptr|[^ ,()]+\*)}} [[LB]]
// CHECK-NEXT: [[UB0:%[0-9a-zA-Z._]+]] = load [[TY]], {{(ptr|[^ ,()]+\*)}} [[UB]]
// CHECK-NEXT: [[ST0:%[0-9a-zA-Z._]+]] = load [[TY]], {{(ptr|[^ ,()]+\*)}} [[ST]]
// CHECK-NEXT: [[NUB:%[0-9a-zA-Z._]+]] = call [[TY]] @grainchunk.walk.[[TY]]{{u?}}([[TY]] [[LB0]], [[TY]] [[UB0]], [[TY]] 4)
// CHECK-NEXT: store [[TY]] [[NUB]], {{(ptr|[^ ,()]+\*)}} [[UB]]
// CHECK-NEXT: [[TOOK:%[0-9a-zA-Z._]+]] = icmp ne [[TY]] [[NUB]], [[UB0]]
// CHECK-NEXT: [[NST:%[0-9a-zA-Z._]+]] = select i1 [[TOOK]], [[TY]] 4, [[TY]] [[ST0]]
// CHECK-NEXT: store [[TY]] [[NST]], {{(ptr|[^ ,()]+\*)}} [[ST]]
// Clang's chunk header is unchanged: UB = min(UB, G); IV = LB:
// CHECK:      icmp [[GT]] [[TY]] %{{[0-9a-zA-Z._]+}}, [[G:%[0-9a-zA-Z._]+]]
// CHECK:      [[CL:%[0-9a-zA-Z._]+]] = phi [[TY]]
// CHECK-NEXT: store [[TY]] [[CL]], {{(ptr|[^ ,()]+\*)}} [[UB]]
// CHECK-NEXT: [[LO:%[0-9a-zA-Z._]+]] = load [[TY]], {{(ptr|[^ ,()]+\*)}} [[LB]]
// Clang's test whether the chunk runs (IV <= UB; IV < UB + 1 for unsigned
// IVs) ends the header. The call goes right before that branch, guarded by
// the flag and the same test, so that the chunk's first block keeps the
// header as its only predecessor:
// CHECK:      [[RUNS:%[0-9a-zA-Z._]+]] = icmp {{sle|ult}} [[TY]] %{{[0-9a-zA-Z._]+}}, %{{[0-9a-zA-Z._]+}}
// (marked unlikely, and the call convergent: nothing clones the loop on it)
// CHECK-NEXT: [[GUARD:%[0-9a-zA-Z._]+]] = and i1 [[WANT]], [[RUNS]]
// CHECK-NEXT: br i1 [[GUARD]], label %[[REPORT:[0-9a-zA-Z._]+]], label %[[TEST:[0-9a-zA-Z._]+]], !prof [[UNLIKELY:![0-9]+]]
// CHECK:      [[REPORT]]:
// CHECK-NEXT: [[EQ:%[0-9a-zA-Z._]+]] = icmp eq [[TY]] [[CL]], [[G]]
// CHECK-NEXT: [[LAST:%[0-9a-zA-Z._]+]] = zext i1 [[EQ]] to i32
// CHECK-NEXT: call void @__kmpc_for_static_chunk_[[SFX]]({{(ptr|[^ ,()]+\*)}} [[LOC]], i32 [[GTID]], i32 [[LAST]], [[TY]] [[LO]], [[TY]] [[CL]]) [[CONV:#[0-9]+]]
// CHECK-NEXT: br label %[[TEST]]
// CHECK:      [[TEST]]:
// CHECK-NEXT: br i1 [[RUNS]], label
// The end of every chunk, at the top of Clang's latch (before LB += ST):
// one more unlikely branch, on the second bit, guards the chunk-end call.
// CHECK-NOT:  call void @__kmpc_for_static_chunk_{{[48]}}
// CHECK:      br i1 [[WANTEND]], label %[[END:[0-9a-zA-Z._]+]], label %[[STEP:[0-9a-zA-Z._]+]], !prof [[UNLIKELY]]
// CHECK:      [[END]]:
// CHECK-NEXT: call void @__kmpc_for_static_chunk_end({{(ptr|[^ ,()]+\*)}} [[LOC]], i32 [[GTID]]) [[CONV]]
// CHECK-NEXT: br label %[[STEP]]
// CHECK:      [[STEP]]:
// CHECK-NEXT: load [[TY]], {{(ptr|[^ ,()]+\*)}} [[LB]]
// CHECK-NOT:  call void @__kmpc_for_static_chunk_
// CHECK:      call void @__kmpc_for_static_fini(
// CHECK-NOT:  call void @__kmpc_for_static_chunk_
// CHECK-LABEL: }
// CHECK-DAG: declare extern_weak {{.*}}i32 @__kmpc_should_callback_per_chunk({{(ptr|%struct.ident_t\*)}})
// CHECK-DAG: declare extern_weak void @__kmpc_for_static_chunk_end({{(ptr|%struct.ident_t\*)}}, i32{{.*}})
// CHECK-DAG: declare extern_weak void @__kmpc_for_static_chunk_[[SFX]]({{(ptr|%struct.ident_t\*)}}, i32{{.*}}, i32{{.*}}, [[TY]]{{.*}}, [[TY]]{{.*}})
// The helper: &__kmpc_should_callback_per_chunk ? it(loc) : 0, never inlined.
// (Before LLVM 19, IRBuilder folds the null test into an icmp constant
// expression inside the branch.)
// CHECK:       define internal {{.*}}i32 @grainchunk.ask({{(ptr|[^ ,()]+\*)}} {{[^)]*}}) [[NOINLINE:#[0-9]+]]
// INST:        [[LINKED:%[0-9a-zA-Z._]+]] = icmp ne ptr @__kmpc_should_callback_per_chunk, null
// INST-NEXT:   br i1 [[LINKED]], label %[[ASK:[0-9a-zA-Z._]+]], label %[[NO:[0-9a-zA-Z._]+]]
// FOLDED:      br i1 icmp ne ({{[^@]*}}@__kmpc_should_callback_per_chunk, {{[^,]*}}null), label %[[ASK:[0-9a-zA-Z._]+]], label %[[NO:[0-9a-zA-Z._]+]]
// CHECK:      [[ASK]]:
// CHECK-NEXT: [[ANS:%[0-9a-zA-Z._]+]] = call {{.*}}i32 @__kmpc_should_callback_per_chunk({{(ptr|[^ ,()]+\*)}} %{{[0-9a-zA-Z._]+}})
// CHECK-NEXT: ret i32 [[ANS]]
// CHECK:      [[NO]]:
// CHECK-NEXT: ret i32 0
// The walk, never inlined: taken only for chunk > 0 and a range of more than
// one chunk, and only where Clang's chunk loop cannot step past the type's
// limit: the last chunk's start, lb + (ub - lb) / chunk * chunk, is at most
// MAX - chunk.
// CHECK:      define internal [[TY]] @grainchunk.walk.[[TY]]{{u?}}([[TY]] [[WLB:%[0-9a-zA-Z._]+]], [[TY]] [[WUB:%[0-9a-zA-Z._]+]], [[TY]] [[WC:%[0-9a-zA-Z._]+]]) [[NOINLINE2:#[0-9]+]]
// CHECK:      [[SPAN:%[0-9a-zA-Z._]+]] = sub [[TY]] [[WUB]], [[WLB]]
// CHECK:      [[Q:%[0-9a-zA-Z._]+]] = udiv [[TY]] [[SPAN]], [[DIV:%[0-9a-zA-Z._]+]]
// CHECK-NEXT: [[QC:%[0-9a-zA-Z._]+]] = mul [[TY]] [[Q]], [[DIV]]
// CHECK-NEXT: [[LAST0:%[0-9a-zA-Z._]+]] = add [[TY]] [[WLB]], [[QC]]
// CHECK-NEXT: [[LIM:%[0-9a-zA-Z._]+]] = sub [[TY]] [[MAX]], [[DIV]]
// CHECK-NEXT: [[FITS:%[0-9a-zA-Z._]+]] = icmp [[LE]] [[TY]] [[LAST0]], [[LIM]]
// CHECK-NEXT: [[WALK:%[0-9a-zA-Z._]+]] = and i1 %{{[0-9a-zA-Z._]+}}, [[FITS]]
// CHECK:      select i1 [[WALK]], [[TY]] %{{[0-9a-zA-Z._]+}}, [[TY]] [[WUB]]

// O2-LABEL: define internal void @{{(loop)?}}.omp_outlined{{[.0-9]*}}(
// Optimized, still one init call and one chunk call per loop, as Clang wrote
// them: no copy of the init call, no unswitched copy of the chunk loop.
// O2:       call {{.*}}i32 @grainchunk.ask(
// O2-NOT:   call void @__kmpc_for_static_init_
// O2:       call void @__kmpc_for_static_init_[[SFX]](
// O2-NOT:   call void @__kmpc_for_static_init_
// O2-DAG:   call void @__kmpc_for_static_chunk_[[SFX]]({{(ptr|[^ ,()]+\*)}} {{[^,]+}}, i32 {{[^,]+}}, i32 {{[^,]+}}, [[TY]] {{[^,]+}}, [[TY]] {{[^,]+}})
// O2-DAG:   call void @__kmpc_for_static_chunk_end(
// O2-NOT:   call void @__kmpc_for_static_chunk_
// O2-NOT:   call void @__kmpc_for_static_init_
// O2:       call void @__kmpc_for_static_fini(
// O2-DAG:   declare extern_weak {{.*}}i32 @__kmpc_should_callback_per_chunk({{(ptr|%struct.ident_t\*)}}
// O2-DAG:   declare extern_weak void @__kmpc_for_static_chunk_[[SFX]]({{(ptr|%struct.ident_t\*)}}
// CHECK-DAG: attributes [[CONV]] = { {{.*}}convergent{{.*}} }
// CHECK-DAG: attributes [[NOINLINE]] = { {{.*}}noinline{{.*}} }
// CHECK-DAG: attributes [[NOINLINE2]] = { {{.*}}noinline{{.*}} }
// CHECK-DAG: [[UNLIKELY]] = !{!"branch_weights", {{.*}}i32 1, i32 2000}
