//===- StaticLoopMatch.h - Recognize Clang's static loops -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Declares the recognizer of the static worksharing and distribute loops
// Clang and OpenMPIRBuilder emit. See StaticLoopMatch.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GRAINCHUNK_STATICLOOPMATCH_H
#define GRAINCHUNK_STATICLOOPMATCH_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/DebugLoc.h"

#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class CallInst;
class DominatorTree;
class Instruction;
class Value;
} // namespace llvm

namespace grainchunk {

constexpr unsigned SchedStaticChunked = 33;   // kmp_sch_static_chunked
constexpr unsigned SchedStatic = 34;          // kmp_sch_static
constexpr unsigned SchedSimdStatic = 45;      // kmp_sch_static_balanced_chunked
constexpr unsigned SchedModifiers = 3u << 29; // (non)monotonic bits
constexpr int64_t IdentWorkSections = 0x400;  // OMP_IDENT_WORK_SECTIONS
constexpr unsigned SchedDistChunked = 91;     // kmp_distribute_static_chunked
constexpr unsigned SchedDist = 92;            // kmp_distribute_static

/// Which runtime entry point a call is, as far as the pass cares.
enum class EntryKind {
  None,
  Taskloop,
  ForStaticInit,
  DispatchInit,
  DistForStaticInit,
  DistributeStaticInit
};

struct Entry {
  EntryKind Kind = EntryKind::None;
  llvm::StringRef Suffix; // "4", "4u", "8" or "8u"
};

/// The kind and type suffix of the runtime entry point \p CI calls.
Entry classify(const llvm::CallInst &CI);

/// The flags of the ident_t \p Loc points to, or -1 if they are not known.
int64_t identFlags(const llvm::Value *Loc);

/// The loop shapes the recognizer knows (see StaticLoopMatch.cpp).
enum class LoopShape {
  DispatchLoop,     // Clang's loop over chunks (schedule/dist_schedule(static,
                    // N)): the chunk's bounds are LB/UB after the clamp
  DistributeLoop,   // the distribute loop of `distribute parallel for
                    // dist_schedule(static, N)`: one chunk per run of its body
  OneIterationWalk, // `distribute parallel for schedule(static, 1)`'s
                    // walk: each iteration is a chunk
  IRBuilderChunkLoop, // OpenMPIRBuilder's loop over chunks
  IRBuilderRange,     // OpenMPIRBuilder's single range (schedule(static))
  SingleRange         // Clang's single range (schedule/dist_schedule(static))
};

/// Everything the rewrite needs about one recognized loop.
struct StaticLoop {
  LoopShape Shape = LoopShape::SingleRange;
  llvm::CallInst *Init = nullptr;
  llvm::StringRef Suffix;
  bool Chunked = true;       // schedule(static, N): a loop over chunks
  bool WalkOneThread = true; // a one-thread team walks chunks of size N
  llvm::Instruction *ReportAt = nullptr; // where the chunk starts (see rewrite)
  // Loops over chunks: the chunk-end call goes before this, on the only path
  // from the end of a chunk's iterations back to the test for the next chunk.
  llvm::Instruction *EndAt = nullptr;
  bool LoadBounds = false; // read the chunk's bounds from LB/UB at ReportAt
  llvm::Value *OneIterIV = nullptr; // chunks of one iteration: [IV, IV]
  llvm::Value *Lower = nullptr; // chunk lower bound (load of LB in the header)
  llvm::Value *Upper = nullptr; // clamped chunk upper bound
  llvm::Value *LastIter = nullptr; // the loop's last logical iteration
  // OpenMPIRBuilder's chunk loop: the chunk has TripCount iterations from
  // Lower, and the loop Count (LastIter = Count - 1, made at ReportAt).
  llvm::Value *TripCount = nullptr;
  llvm::Value *Count = nullptr;
  // OpenMPIRBuilder's single range: its iterations, (ub - lb) + 1 in the
  // iteration variable's type. The range runs exactly when it is not 0
  // (an empty loop's ub is count - 1 = all ones, and lb <= ub holds).
  llvm::Value *RangeCount = nullptr;
  // The loop's source location (loopLocation): the inserted calls carry it,
  // and a chunk's psource is made from it when the init call's names none.
  llvm::DebugLoc Where;
};

/// The source location of the loop \p L recognized at \p CI: for
/// OpenMPIRBuilder's shapes the location of the loop's trip count (the
/// canonical loop's own; flang leaves the runtime calls of some loops
/// without a location, e.g. array reductions at -O1 and above, or with the
/// procedure's first line, e.g. user-defined reductions), else the init
/// call's, or, if that has none, callLocation's.
llvm::DebugLoc loopLocation(const StaticLoop &L);

/// The location of the blocks the rewrite adds for \p L (the report, the
/// chunk end, the one-thread walk): the loop's (L.Where, loopLocation's),
/// or, where the compiler gave neither the loop's counts nor its runtime
/// calls one (flang-19: the loop over `sections`, a loop after a `single`),
/// that of the loop body's first step, the iteration variable `iv + lb`
/// from the chunk's lower bound, which OpenMPIRBuilder computes at the
/// loop's location. Null if none has a line in the loop's procedure.
llvm::DebugLoc newBlockLocation(const StaticLoop &L);

/// The source location of the runtime call \p CI: its own, or, where it has
/// none (flang-19's `__kmpc_dispatch_init_*` and some of its static loops,
/// even with -g), that of the first of its arguments computed in the same
/// procedure with one (the canonical loop's trip count).
llvm::DebugLoc callLocation(const llvm::CallInst *CI);

/// Why a call does not start a loop the pass can instrument: the reason
/// ends the pass's missed-remark ("... loop with an unrecognized code shape:
/// <Reason>"). A matcher returns one, or std::nullopt when the loop has its
/// shape.
struct Rejection {
  std::string Reason;
};

/// Checks that \p CI starts exactly one of Clang's static worksharing loops:
/// the dispatch loop over chunks of schedule(static, N) (\p Chunked), or the
/// single chunk of schedule(static). \p CombinedDist: the distribute loop of
/// `distribute parallel for dist_schedule(static, N)`. Each shape has its own
/// matcher (StaticLoopMatch.cpp); the first instructions after \p CI choose
/// which one applies. Fills \p L and returns std::nullopt if the loop has
/// that shape, else why not.
std::optional<Rejection>
matchStaticLoop(llvm::CallInst *CI, llvm::StringRef Suffix, bool Chunked,
                bool CombinedDist, llvm::DominatorTree &DT, StaticLoop &L);

} // namespace grainchunk

#endif // GRAINCHUNK_STATICLOOPMATCH_H
