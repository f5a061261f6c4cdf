// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// -fplugin-arg-grainchunk-*: unknown arguments are an error, `disable` is a
// kill switch that leaves the module exactly as stock Clang makes it (no
// instrumented loop, no line tables), `no-line-tables` keeps the pass but
// adds no line tables to a build without -g (line-tables.test), `help`
// lists the options.
//
// RUN: not %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-bogus -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: grainchunk: unknown plugin argument 'bogus' (known: disable, no-line-tables, help
//
// RUN: %clang -fopenmp -O2 -S -emit-llvm %s -o %t.stock.ll
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-disable -O2 -S -emit-llvm %s -o %t.off.ll
// RUN: cmp %t.stock.ll %t.off.ll
// RUN: %clang -fopenmp -fplugin=%plugin -O2 -S -emit-llvm %s -o %t.on.ll
// RUN: grep -q __kmpc_for_static_chunk_4 %t.on.ll
//
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-help -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=HELP
// HELP: -fplugin-arg-grainchunk-disable
// HELP: -fplugin-arg-grainchunk-no-line-tables
// HELP: -Rpass-missed=grainchunk
//
// The pass-only library works from Clang too (-fpass-plugin=), as the
// plugin does without its line tables.
// RUN: %clang -fopenmp -fpass-plugin=%passlib -O2 -S -emit-llvm %s -o %t.pp.ll
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -O2 -S -emit-llvm %s -o %t.nolt.ll
// RUN: cmp %t.nolt.ll %t.pp.ll
//
// -fplugin= alone is enough on every Clang (before Clang 18 the plugin adds
// itself to the pass plugins, see ClangPlugin.cpp), also when named by a
// relative path; with the pass-only library loaded too, loops are still
// instrumented once. (Line tables name the directory a compilation ran in,
// and lit stays in %t.dir: these are compared without them.)
// RUN: rm -rf %t.dir && mkdir %t.dir && cp %plugin %t.dir/
// RUN: cd %t.dir && %clang -fopenmp -fplugin=./libgrainchunk.so -fplugin-arg-grainchunk-no-line-tables -O2 -S -emit-llvm %s -o %t.rel.ll
// RUN: cmp %t.nolt.ll %t.rel.ll
// RUN: %clang -fopenmp -fplugin=%plugin -fplugin-arg-grainchunk-no-line-tables -fpass-plugin=%passlib -O2 -S -emit-llvm %s -o %t.both.ll
// RUN: cmp %t.nolt.ll %t.both.ll

void work(int);
void f(int n) {
#pragma omp parallel for schedule(static, 4)
  for (int i = 0; i < n; i++)
    work(i);
}
