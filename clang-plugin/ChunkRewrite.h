//===- ChunkRewrite.h - Insert the per-chunk calls --------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Declares the rewrite of a recognized static loop. See ChunkRewrite.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GRAINCHUNK_CHUNKREWRITE_H
#define GRAINCHUNK_CHUNKREWRITE_H

namespace llvm {
class TargetLibraryInfo;
} // namespace llvm

namespace grainchunk {

struct StaticLoop;

/// Metadata on an init call whose loop the pass instrumented.
constexpr const char *DoneMD = "grainchunk";

/// Inserts the calls into the loop \p L (recognized by matchStaticLoop).
/// Returns false (and changes nothing) if the entry points cannot be declared.
bool rewrite(StaticLoop &L, const llvm::TargetLibraryInfo &TLI);

} // namespace grainchunk

#endif // GRAINCHUNK_CHUNKREWRITE_H
