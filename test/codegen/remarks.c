// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Remarks users can turn on, with source locations under -g and
// -gline-tables-only; the inserted calls carry the loop's debug location and
// debug info stays valid.
//
// RUN: %clang -fopenmp -fplugin=%plugin -O2 -g -S -emit-llvm -Rpass=grainchunk -Rpass-missed=grainchunk %s -o %t.g.ll 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %clang -fopenmp -fplugin=%plugin -O2 -gline-tables-only -c -Rpass=grainchunk -Rpass-missed=grainchunk %s -o %t.o 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %clang -fopenmp -fplugin=%plugin -O0 -g -S -emit-llvm %s -o %t.g0.ll
// RUN: FileCheck %s --check-prefix=DBG < %t.g0.ll
// RUN: opt -passes=verify -disable-output %t.g.ll
// RUN: opt -passes=verify -disable-output %t.g0.ll
// Silence without -R flags.
// RUN: %clang -fopenmp -fplugin=%plugin -O2 -c %s -o %t.o 2>&1 | count 0
void work(int);

void f(int n) {
  // REMARK: remarks.c:[[@LINE+1]]:1: remark: schedule(static, 4) loop instrumented: every chunk is reported to OMPT tools [-Rpass=grainchunk]
#pragma omp parallel for schedule(static, 4)
  for (int i = 0; i < n; i++)
    work(i);
  // REMARK: remarks.c:{{2[23]}}:{{[0-9]+}}: remark: loop not instrumented: its chunks are handed out by the OpenMP runtime {{.*}} [-Rpass-missed=grainchunk]
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < n; i++)
    work(i);
}

// DBG: call i32 @grainchunk.ask({{[^)]+}}){{.*}}, !dbg [[LOC:![0-9]+]]
// DBG: call void @__kmpc_for_static_init_4({{.*}}), !dbg [[LOC]]
// DBG: call void @__kmpc_for_static_chunk_4({{.*}}){{.*}}, !dbg [[LOC]]
// DBG: [[LOC]] = !DILocation(line: {{1[89]|20}},
