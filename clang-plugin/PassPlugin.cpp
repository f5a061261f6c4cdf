//===- PassPlugin.cpp - GrainChunkPass as an LLVM pass plugin -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The same pass without any Clang dependency, for tools that load LLVM pass
// plugins:
//   opt -load-pass-plugin=libGrainChunkPass.so -passes=grainchunk in.ll
//   clang -fpass-plugin=libGrainChunkPass.so -fopenmp ...  (pipeline start)
//
//===----------------------------------------------------------------------===//

#include "GrainChunkPass.h"

#include "llvm/Passes/PassBuilder.h"
#if __has_include("llvm/Plugins/PassPlugin.h")
#include "llvm/Plugins/PassPlugin.h" // LLVM >= 22
#else
#include "llvm/Passes/PassPlugin.h"
#endif

using namespace llvm;

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "grainchunk", "0.1", [](PassBuilder &PB) {
            grainchunk::registerAtPipelineStart(PB);
            PB.registerPipelineParsingCallback(
                [](StringRef Name, FunctionPassManager &FPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "grainchunk")
                    return false;
                  FPM.addPass(grainchunk::GrainChunkPass());
                  return true;
                });
          }};
}
