//===- GrainChunkPass.h - Per-chunk events for static loops -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Declares the grainchunk function pass. See GrainChunkPass.cpp for what it
// does and how to run it.
//
//===----------------------------------------------------------------------===//

#ifndef GRAINCHUNK_GRAINCHUNKPASS_H
#define GRAINCHUNK_GRAINCHUNKPASS_H

#include "llvm/IR/PassManager.h"

namespace llvm {
class PassBuilder;
} // namespace llvm

namespace grainchunk {

/// Rewrites the dispatch loops Clang emits for `schedule(static, N)` so that
/// every chunk is announced to the grainchunk runtime shim.
class GrainChunkPass : public llvm::PassInfoMixin<GrainChunkPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
  // Runs on optnone (-O0) functions too: the rewrite is not an optimization.
  static bool isRequired() { return true; }
  static llvm::StringRef name() { return "grainchunk"; }
};

/// Adds the pass at the pipeline-start extension point of \p PB, so that it
/// sees Clang's loop shape before any optimization, at every -O level.
/// When Clang skips LLVM's pipeline but writes bitcode (-save-temps), the
/// pass runs on the module before the first pass Clang runs; only the Clang
/// plugin sets this (opt and -fpass-plugin build their own pipelines).
void registerAtPipelineStart(llvm::PassBuilder &PB);
extern bool InstrumentWithoutPipeline;
/// Set by the Clang plugin when the line tables are its own (the user gave
/// no -g): the chunk calls then pass the init call's ident_t as it is, never
/// a copy naming the loop's line, so that the instructions stay those of a
/// build without line tables (tools name the loop by its code address).
extern bool LineTablesAdded;

} // namespace grainchunk

#endif // GRAINCHUNK_GRAINCHUNKPASS_H
