// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loops grainchunk must leave exactly as Clang made them: the runtime already
// reports their chunks (dynamic, guided, runtime, auto, ordered), or they are
// not OpenMP loops. The module is byte-identical with and without the plugin
// (its line tables off: line-tables.test) and each OpenMP loop gets a
// missed-remark saying why. (distribute loops, not handled yet: distribute.c)
//
// RUN: %clang -fopenmp -O0 -S -emit-llvm %s -o %t.stock.O0.ll
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O0 -S -emit-llvm %s -o %t.gc.O0.ll
// RUN: cmp %t.stock.O0.ll %t.gc.O0.ll
// Remarks turn on location tracking, so compare those builds separately.
// RUN: %clang -fopenmp -O0 -S -emit-llvm %s -o %t.stock.R.ll -Rpass-missed=grainchunk
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O0 -S -emit-llvm %s -o %t.gc.R.ll -Rpass-missed=grainchunk 2> %t.remarks
// RUN: cmp %t.stock.R.ll %t.gc.R.ll
// RUN: FileCheck %s < %t.remarks
// RUN: %clang -fopenmp -O2 -S -emit-llvm %s -o %t.stock.O2.ll
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O2 -S -emit-llvm %s -o %t.gc.O2.ll
// RUN: cmp %t.stock.O2.ll %t.gc.O2.ll
// Nothing of the plugin's is in the module: no helper, value or metadata
// named grainchunk, no call of the runtime library's entry points. The text
// of a module also holds the source's path (ModuleID, source_filename, the
// OpenMP location strings), and a clone is often named grainchunk: %ir_code
// drops quoted strings and comments before the search.
// RUN: %ir_code %t.gc.O2.ll | not grep -E '%gc_marks'
// The search finds what the plugin adds and no path, wherever the tree is:
// the same sources under a directory named grainchunk.
// RUN: rm -rf %t.d && mkdir -p %t.d/grainchunk
// RUN: cp %s %S/Inputs/static4.c %t.d/grainchunk/
// RUN: %clang -fopenmp -fplugin=%plugin -O2 -S -emit-llvm %t.d/grainchunk/negative.c -o %t.d/negative.ll
// RUN: grep -q 'source_filename = ".*/grainchunk/negative.c"' %t.d/negative.ll
// RUN: %ir_code %t.d/negative.ll | not grep -E '%gc_marks'
// RUN: %clang -fopenmp -fplugin=%plugin -O2 -S -emit-llvm %t.d/grainchunk/static4.c -o %t.d/static4.ll
// RUN: %ir_code %t.d/static4.ll | grep -E '%gc_marks' | FileCheck %s --check-prefix=MARKS
// MARKS: @grainchunk.ask
// MARKS: @__kmpc_for_static_chunk_4
// -fopenmp-simd: simd only, no runtime calls, nothing to do.
// RUN: %clang -fopenmp-simd -O2 -S -emit-llvm %s -o %t.simd.stock.ll
// RUN: %clang -fopenmp-simd -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O2 -S -emit-llvm %s -o %t.simd.gc.ll
// RUN: cmp %t.simd.stock.ll %t.simd.gc.ll
// Without -fopenmp there is nothing to do either.
// RUN: %clang -O2 -S -emit-llvm %s -o %t.noomp.stock.ll
// RUN: %clang -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O2 -S -emit-llvm %s -o %t.noomp.gc.ll
// RUN: cmp %t.noomp.stock.ll %t.noomp.gc.ll

void work(long);

void dynamic(int n) {
  // CHECK: negative.c:[[@LINE+1]]:{{[0-9]+}}: remark: loop not instrumented: its chunks are handed out by the OpenMP runtime
#pragma omp parallel for schedule(dynamic, 4)
  for (int i = 0; i < n; i++)
    work(i);
}

void guided(int n) {
  // CHECK: negative.c:[[@LINE+1]]:{{[0-9]+}}: remark: loop not instrumented: its chunks are handed out by the OpenMP runtime
#pragma omp parallel for schedule(guided, 2)
  for (int i = 0; i < n; i++)
    work(i);
}

void runtime(int n) {
  // CHECK: negative.c:[[@LINE+1]]:{{[0-9]+}}: remark: loop not instrumented: its chunks are handed out by the OpenMP runtime
#pragma omp parallel for schedule(runtime)
  for (int i = 0; i < n; i++)
    work(i);
}

void autosched(int n) {
  // CHECK: negative.c:[[@LINE+1]]:{{[0-9]+}}: remark: loop not instrumented: its chunks are handed out by the OpenMP runtime
#pragma omp parallel for schedule(auto)
  for (int i = 0; i < n; i++)
    work(i);
}

void ordered(int n) {
  // CHECK: negative.c:[[@LINE+1]]:{{[0-9]+}}: remark: loop not instrumented: its chunks are handed out by the OpenMP runtime
#pragma omp parallel for schedule(static, 4) ordered
  for (int i = 0; i < n; i++) {
#pragma omp ordered
    work(i);
  }
}

void taskloop(int n) {
#pragma omp parallel
#pragma omp single
  // CHECK: negative.c:[[@LINE+1]]:{{[0-9]+}}: remark: loop not instrumented: a taskloop's tasks are created by the OpenMP runtime
#pragma omp taskloop
  for (int i = 0; i < n; i++)
    work(i);
}

void sections(void) {
  // CHECK: negative.c:[[@LINE+1]]:{{[0-9]+}}: remark: loop not instrumented: a sections construct
#pragma omp parallel sections
  {
#pragma omp section
    work(1);
#pragma omp section
    work(2);
  }
}

long serial(long n) {
  long s = 0;
  for (long i = 0; i < n; i += 4)
    s += i;
  return s;
}
