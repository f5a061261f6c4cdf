//===- GrainChunkPass.cpp - Per-chunk OMPT events for static loops --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// WHAT IT DOES
//   For `#pragma omp for schedule(static, N)` Clang emits a block-cyclic loop:
//   `__kmpc_for_static_init_*` gives each thread its first chunk and a stride,
//   and the compiled code steps through the later chunks by itself, so the
//   OpenMP runtime (and any OMPT tool) never hears of them. This pass drives
//   the fix: for every call of a runtime loop entry point in a function it
//   decides whether the loop is one grainchunk handles (static schedules;
//   not sections, dynamic, guided, taskloop), has StaticLoopMatch.cpp prove
//   the loop's shape and ChunkRewrite.cpp insert the calls, and emits a
//   remark for each loop: instrumented, or left exactly as Clang made it and
//   why. It also registers itself at the pipeline-start extension point
//   (and, for -save-temps, before the first pass Clang runs). The kill
//   switch (-fplugin-arg-grainchunk-disable) is in ClangPlugin.cpp: with it,
//   the pass is not registered at all.
//
// HOW TO RUN IT
//   clang -fplugin=libgrainchunk.so -fopenmp -Rpass=grainchunk \
//         -Rpass-missed=grainchunk -c app.c
//   opt -load-pass-plugin=libGrainChunkPass.so -passes=grainchunk -S in.ll
//
//===----------------------------------------------------------------------===//

#include "GrainChunkPass.h"
#include "ChunkRewrite.h"
#include "StaticLoopMatch.h"

#include "llvm/ADT/Any.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

using namespace llvm;

#define DEBUG_TYPE "grainchunk"

namespace {

using namespace grainchunk;

std::string scheduleName(unsigned Sched) {
  switch (Sched) {
  case SchedStaticChunked:
    return "schedule(static, N)";
  case SchedStatic:
    return "schedule(static)";
  case SchedSimdStatic:
    return "schedule(simd: static, N)";
  case SchedDistChunked:
    return "dist_schedule(static, N)";
  case SchedDist:
    return "dist_schedule(static)";
  default:
    return "schedule kind " + std::to_string(Sched);
  }
}

} // namespace

namespace grainchunk {

PreservedAnalyses GrainChunkPass::run(Function &F,
                                      FunctionAnalysisManager &FAM) {
  SmallVector<std::pair<CallInst *, Entry>, 4> Calls;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *CI = dyn_cast<CallInst>(&I)) {
        Entry E = classify(*CI);
        if (E.Kind != EntryKind::None && !CI->getMetadata(DoneMD))
          Calls.push_back({CI, E});
      }
  if (Calls.empty())
    return PreservedAnalyses::all();

  auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(F);
  const TargetLibraryInfo &TLI = FAM.getResult<TargetLibraryAnalysis>(F);
  auto Missed = [&](CallInst *CI, StringRef Key, const std::string &Why) {
    ORE.emit([&]() {
      return OptimizationRemarkMissed(DEBUG_TYPE, Key, callLocation(CI),
                                      CI->getParent())
             << "loop not instrumented: " << Why;
    });
  };

  bool Changed = false;
  for (auto &Item : Calls) {
    CallInst *CI = Item.first;
    const Entry &E = Item.second;
    switch (E.Kind) {
    case EntryKind::DispatchInit:
      Missed(CI, "DynamicSchedule",
             "its chunks are handed out by the OpenMP runtime "
             "(dynamic, guided, auto, runtime or ordered schedule), which "
             "reports each of them itself");
      continue;
    case EntryKind::Taskloop:
      Missed(CI, "Taskloop",
             "a taskloop's tasks are created by the OpenMP runtime, which "
             "reports each task's iterations itself");
      continue;
    case EntryKind::DistForStaticInit:
    case EntryKind::DistributeStaticInit:
      Missed(CI, "Distribute", "distribute loops are not yet supported");
      continue;
    default:
      break;
    }
    int64_t Flags = CI->arg_size() > 0 ? identFlags(CI->getArgOperand(0)) : -1;
    if (Flags >= 0 && (Flags & IdentWorkSections)) {
      Missed(CI, "Sections",
             "a sections construct (Clang lowers it to a static loop over "
             "the sections) is not a loop grainchunk reports");
      continue;
    }
    auto *SchedC = CI->arg_size() > 2
                       ? dyn_cast<ConstantInt>(CI->getArgOperand(2))
                       : nullptr;
    if (!SchedC) {
      Missed(CI, "UnknownSchedule", "the schedule kind is not a constant");
      continue;
    }
    // monotonic/nonmonotonic do not change a static schedule.
    unsigned Sched = SchedC->getZExtValue() & ~SchedModifiers;
    if (Sched != SchedStaticChunked && Sched != SchedStatic &&
        Sched != SchedSimdStatic && Sched != SchedDistChunked &&
        Sched != SchedDist) {
      Missed(CI, "UnknownSchedule",
             scheduleName(Sched) + " is not a schedule grainchunk handles");
      continue;
    }
    // Fresh dominator tree: earlier rewrites in this function split blocks.
    DominatorTree DT(F);
    StaticLoop L;
    // schedule(simd: static, N) gives each thread one chunk (N rounded to
    // the SIMD width) but Clang still emits the loop over chunks for it.
    // A distribute loop (dist_schedule) has the same shapes as a worksharing
    // loop, with teams in place of threads; the runtime tells the shim which
    // it is (the work event's type).
    bool Chunked = Sched != SchedStatic && Sched != SchedDist;
    bool BlockCyclic = Sched == SchedStaticChunked || Sched == SchedDistChunked;
    std::optional<Rejection> Rejected = matchStaticLoop(
        CI, E.Suffix, Chunked, Sched == SchedDistChunked, DT, L);
    L.WalkOneThread = BlockCyclic && L.Shape != LoopShape::OneIterationWalk;
    if (Rejected) {
      Missed(CI, "UnrecognizedShape",
             scheduleName(Sched) +
                 " loop with an unrecognized code shape: " + Rejected->Reason);
      continue;
    }
    // Remarks and the inserted calls name the loop's location.
    L.Where = loopLocation(L);
    if (!rewrite(L, TLI)) {
      Missed(CI, "ConflictingDeclaration",
             "the module already declares a grainchunk entry point with a "
             "different type");
      continue;
    }
    Changed = true;
    ORE.emit([&]() {
      OptimizationRemark R(DEBUG_TYPE, "Instrumented", L.Where,
                           CI->getParent());
      bool Dist = Sched == SchedDistChunked || Sched == SchedDist;
      if (!BlockCyclic) {
        R << scheduleName(Sched) << " loop instrumented: each "
          << (Dist ? "team" : "thread") << "'s chunk is reported to OMPT tools";
        return R;
      }
      R << (Dist ? "dist_schedule(static, " : "schedule(static, ");
      if (auto *Chunk = dyn_cast<ConstantInt>(CI->getArgOperand(8)))
        R << std::to_string(Chunk->getSExtValue());
      else
        R << "N";
      R << ") loop instrumented: every chunk is reported to OMPT tools";
      return R;
    });
  }
  if (!Changed)
    return PreservedAnalyses::all();
  if (verifyFunction(F, &errs()))
    report_fatal_error("grainchunk: instrumented function '" + F.getName() +
                       "' does not verify; please report this as a bug");
  return PreservedAnalyses::none();
}

bool InstrumentWithoutPipeline = false;

/// Runs the pass over every function of \p M, outside any pipeline.
static void instrumentModule(Module &M) {
  PassBuilder PB;
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  GrainChunkPass Pass;
  for (Function &F : M)
    if (!F.isDeclaration())
      Pass.run(F, FAM);
}

void registerAtPipelineStart(PassBuilder &PB) {
  // Set once the pipeline is built (before any of its passes runs).
  auto Started = std::make_shared<bool>(false);
  PB.registerPipelineStartEPCallback(
      [Started](ModulePassManager &MPM, OptimizationLevel) {
        *Started = true;
        MPM.addPass(createModuleToFunctionPassAdaptor(GrainChunkPass()));
      });
  // Clang may write bitcode without building LLVM's pipeline: -save-temps
  // compiles to bitcode with -disable-llvm-passes and optimizes it in a
  // second step from IR, where frontend plugins do not run. Then the pass
  // runs on the module right before the first pass Clang does run (the
  // bitcode writer), so the bitcode carries the instrumented loops.
  PassInstrumentationCallbacks *PIC = PB.getPassInstrumentationCallbacks();
  if (!InstrumentWithoutPipeline || !PIC)
    return;
  PIC->registerBeforeNonSkippedPassCallback([Started](StringRef, Any IR) {
    if (*Started)
      return;
    *Started = true;
#if LLVM_VERSION_MAJOR < 16
    if (!any_isa<const Module *>(IR))
      return;
    const Module *M = any_cast<const Module *>(IR);
#else
    const Module *const *MP = any_cast<const Module *>(&IR);
    if (!MP)
      return;
    const Module *M = *MP;
#endif
    // The callback sees the module as const; the pass manager that is about
    // to run the next pass holds it mutable.
    instrumentModule(const_cast<Module &>(*M));
  });
}

} // namespace grainchunk