; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; A schedule(static) loop whose runtime calls have no debug location, as
; flang-19 leaves the second loop of test/e2e/Inputs/debug_regions.f90 (a
; `do` after a `single`) with -g: its init call, bounds and trip count have
; none, the loop body's first step (iv + lb) has the loop's line (18). This
; is that loop as flang-19 hands it to the optimizer, cut down to the loop.
; The blocks the plugin adds (the report) carry the body's location: without
; one the chunk call read line 0 (DWARF gives a block's first instruction
; without a location line 0). The call it places right before the init call
; (grainchunk.ask) takes the init call's (none): with a line it would give the
; init call that line in the line table, where the stock build reads the
; line before it (e2e/fortran-frames.test).
; REQUIRES: opaque-pointers
; RUN: %opt -load-pass-plugin=%passlib -passes=grainchunk -S %s -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %opt -passes=verify -disable-output %t.ll
; The whole -O2 pipeline keeps the chunk call's line.
; RUN: %opt -load-pass-plugin=%passlib -passes='default<O2>' -S %s \
; RUN:   | FileCheck %s --check-prefix=O2

; CHECK:      %grainchunk.flags = call i32 @grainchunk.ask(ptr @loop.ident)
; CHECK-NOT:  !dbg
; CHECK-SAME: {{$}}
; CHECK:      call void @__kmpc_for_static_init_4u(ptr @loop.ident, {{.*}}, i32 34, {{.*}}), !grainchunk
; CHECK-NOT:  !dbg
; CHECK-SAME: {{$}}
; CHECK:      grainchunk.report:
; CHECK-NEXT:   %grainchunk.islast = icmp {{.*}}, !dbg [[BODY:![0-9]+]]
; CHECK:        call void @__kmpc_for_static_chunk_4u(ptr @loop.ident, {{.*}}, !dbg [[BODY]]
; CHECK-NEXT:   br label %{{.*}}, !dbg [[BODY]]
; CHECK:      add i32 %omp_loop.iv16, %lb, !dbg [[BODY]]
; CHECK:      [[SP:![0-9]+]] = distinct !DISubprogram(name: "_QQmain..omp_par"
; CHECK:      [[BODY]] = !DILocation(line: 18, column: 9, scope: [[SP]])

; O2: call void @__kmpc_for_static_chunk_4u({{.*}}, !dbg [[BODY:![0-9]+]]
; O2: [[BODY]] = !DILocation(line: 18, column: 9,

source_filename = "FIRModule"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.ident_t = type { i32, i32, i32, i32, ptr }

@_QFEa = internal global [1000 x i32] zeroinitializer
@loop.psource = private unnamed_addr constant [26 x i8] c";FIRModule;_QQmain;18;9;;\00", align 1
@loop.ident = private unnamed_addr constant %struct.ident_t { i32 0, i32 2, i32 0, i32 25, ptr @loop.psource }, align 8
@barrier.ident = private unnamed_addr constant %struct.ident_t { i32 0, i32 66, i32 0, i32 25, ptr @loop.psource }, align 8

define void @_QQmain..omp_par(ptr noalias %tid.addr, ptr noalias %zero.addr) #0 !dbg !30 {
omp.par.entry:
  %p.lastiter21 = alloca i32, align 4
  %p.lowerbound22 = alloca i32, align 4
  %p.upperbound23 = alloca i32, align 4
  %p.stride24 = alloca i32, align 4
  %ivar = alloca i32, i64 1, align 4, !dbg !33
  br label %omp_loop.preheader9

omp_loop.preheader9:
  store i32 0, ptr %p.lowerbound22, align 4
  store i32 999, ptr %p.upperbound23, align 4
  store i32 1, ptr %p.stride24, align 4
  %omp_global_thread_num25 = call i32 @__kmpc_global_thread_num(ptr @loop.ident)
  call void @__kmpc_for_static_init_4u(ptr @loop.ident, i32 %omp_global_thread_num25, i32 34, ptr %p.lastiter21, ptr %p.lowerbound22, ptr %p.upperbound23, ptr %p.stride24, i32 1, i32 0)
  %lb = load i32, ptr %p.lowerbound22, align 4
  %ub = load i32, ptr %p.upperbound23, align 4
  %span = sub i32 %ub, %lb
  %count = add i32 %span, 1
  br label %omp_loop.header10

omp_loop.header10:
  %omp_loop.iv16 = phi i32 [ 0, %omp_loop.preheader9 ], [ %omp_loop.next18, %omp_loop.inc13 ]
  br label %omp_loop.cond11

omp_loop.cond11:
  %omp_loop.cmp17 = icmp ult i32 %omp_loop.iv16, %count
  br i1 %omp_loop.cmp17, label %omp_loop.body12, label %omp_loop.exit14

omp_loop.exit14:
  call void @__kmpc_for_static_fini(ptr @loop.ident, i32 %omp_global_thread_num25)
  %omp_global_thread_num26 = call i32 @__kmpc_global_thread_num(ptr @loop.ident), !dbg !36
  call void @__kmpc_barrier(ptr @barrier.ident, i32 %omp_global_thread_num26), !dbg !36
  ret void

omp_loop.body12:
  %i0 = add i32 %omp_loop.iv16, %lb, !dbg !36
  %i1 = mul i32 %i0, 1
  %i = add i32 %i1, 1
  store i32 %i, ptr %ivar, align 4, !dbg !36
  %iload = load i32, ptr %ivar, align 4, !dbg !39
  %iext = sext i32 %iload to i64, !dbg !39
  %off = sub nsw i64 %iext, 1, !dbg !39
  %addr = getelementptr i32, ptr @_QFEa, i64 %off, !dbg !39
  %old = load i32, ptr %addr, align 4, !dbg !39
  %new = add i32 %old, 1, !dbg !39
  store i32 %new, ptr %addr, align 4, !dbg !39
  br label %omp_loop.inc13, !dbg !36

omp_loop.inc13:
  %omp_loop.next18 = add nuw i32 %omp_loop.iv16, 1
  br label %omp_loop.header10
}

declare i32 @__kmpc_global_thread_num(ptr) #0
declare void @__kmpc_for_static_init_4u(ptr, i32, i32, ptr, ptr, ptr, ptr, i32, i32) #0
declare void @__kmpc_for_static_fini(ptr, i32) #0
declare void @__kmpc_barrier(ptr, i32) #1

attributes #0 = { nounwind }
attributes #1 = { convergent nounwind }

!llvm.module.flags = !{!13, !14}
!llvm.dbg.cu = !{!7}

!3 = !DIFile(filename: "debug_regions.f90", directory: "/work/test/e2e/Inputs")
!4 = !DIFile(filename: "/work/test/e2e/Inputs/debug_regions.f90", directory: "/work")
!6 = !{}
!7 = distinct !DICompileUnit(language: DW_LANG_Fortran95, file: !4, producer: "Debian flang version 19.1.7", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
!13 = !{i32 2, !"Debug Info Version", i32 3}
!14 = !{i32 7, !"openmp", i32 11}
!30 = distinct !DISubprogram(name: "_QQmain..omp_par", linkageName: "_QQmain..omp_par", scope: null, file: !3, type: !31, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !7, retainedNodes: !6)
!31 = !DISubroutineType(types: !6)
!33 = !DILocation(line: 8, column: 23, scope: !30)
!36 = !DILocation(line: 18, column: 9, scope: !30)
!39 = !DILocation(line: 20, column: 5, scope: !30)
