//===- ChunkCost.h - Keep instrumented loops as cheap as stock ones -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Helpers the rewrite uses so that the code it adds does not make the
// optimizer clone loops, duplicate the runtime's init call, or keep the loop
// bounds in memory. See ChunkCost.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GRAINCHUNK_CHUNKCOST_H
#define GRAINCHUNK_CHUNKCOST_H

#include <cstdint>

namespace llvm {
class CallInst;
class Instruction;
class Function;
class Module;
class Type;
} // namespace llvm

namespace grainchunk {

/// Branch weight of the not-taken side of the per-chunk guard (the taken
/// side, the report, has weight 1): the weights llvm.expect gives. Only
/// guards inside a loop carry them (ChunkRewrite.cpp, reportWeights).
constexpr uint32_t UnlikelyReportWeight = 2000;

/// The module's out-of-line `grainchunk.ask(loc)`: `&Should ? Should(loc) :
/// 0`. Null if the name is taken by something else.
llvm::Function *getAsk(llvm::Module &M, llvm::Function *Should);

/// The module's out-of-line one-thread walk for iteration variables of type
/// \p IVTy: `walk(lb, ub, chunk)` returns the upper bound of the first chunk
/// of the single range [lb, ub] walked in chunks of \p chunk, or \p ub where
/// the walk must not be taken (chunk <= 0, a range of one chunk, or a walk
/// whose last step would wrap). Null if the name is taken by something else.
llvm::Function *getWalk(llvm::Module &M, llvm::Type *IVTy, bool Signed);

/// Marks the per-chunk (or per-chunk-end) call \p Report so that no pass
/// duplicates it: loop unswitching cannot clone the chunk loop on the
/// loop-invariant flag, and jump threading cannot copy the blocks around it.
void hardenReport(llvm::CallInst *Report);

/// After the runtime's init call \p Init has filled in the loop's bounds,
/// copies the lower and upper bound into fresh local variables that never
/// escape and points the dispatch loop at those, so that the optimizer can
/// keep them in registers across the per-chunk call. Leaves a bound alone
/// when some read of it might not see the copy. Does nothing in optnone
/// (-O0) functions.
void privatizeBounds(llvm::CallInst *Init);

/// With typed pointers (LLVM 14), lifetime markers take an i8* cast of an
/// alloca: such a cast is harmless if lifetime markers are all it feeds.
bool isLifetimeCast(const llvm::Instruction *I);

} // namespace grainchunk

#endif // GRAINCHUNK_CHUNKCOST_H
