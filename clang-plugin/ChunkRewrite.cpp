//===- ChunkRewrite.cpp - Insert the per-chunk calls ----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// WHAT IT DOES
//   Rewrites a loop StaticLoopMatch.cpp recognized, as in Langdal's thesis
//   (Listing 3.5). For Clang's dispatch loop of schedule(static, N):
//
//     flags = grainchunk.ask(loc);   // once per loop: an out-of-line
//         // `&__kmpc_should_callback_per_chunk ? it(loc) : 0` (ChunkCost.cpp)
//     __kmpc_for_static_init_X(loc, gtid, 33, &last, &lb, &ub, &st, 1, N);
//     for (;;) {                                   // omp.dispatch.cond
//       ub = min(ub, GlobalUB); iv = lb;
//       if ((flags & 1) && iv <= ub)  // one branch per chunk, unlikely
//         __kmpc_for_static_chunk_X(loc, gtid, ub == GlobalUB, lb, ub);
//         // (convergent: no pass clones the loop around it)
//       if (!(iv <= ub)) break;       // Clang's test, as it was
//       ...the chunk's iterations...
//       if (flags & 2)              // the latch: once per chunk, unlikely
//         __kmpc_for_static_chunk_end(loc, gtid);  // (convergent too)
//       lb += st; ub += st;
//     }
//
//   Every loop over chunks gets the chunk-end call where the matcher found
//   the only path from the end of a chunk's iterations to the next chunk's
//   test: the top of Clang's dispatch latch (omp.dispatch.inc; also when a
//   one-thread team walks its range in chunks), of the latch of
//   `distribute parallel for dist_schedule(static, N)`'s distribute loop and
//   of `distribute parallel for schedule(static, 1)`'s one-iteration walk,
//   and of OpenMPIRBuilder's dispatch latch. So each chunk that got a chunk
//   call gets exactly one end call after its last iteration, before the next
//   chunk's call, the last chunk included. The single range of
//   schedule(static) gets none: nothing follows it, and the runtime library
//   sees its end at __kmpc_for_static_fini. A `cancel for` leaves the loop
//   without passing the latch: that chunk gets no end call (no chunk
//   follows it either).
//
//   A team of one thread gets its whole range from the runtime as one chunk;
//   when a tool wants chunks, it walks that range in chunks of N instead.
//   The dispatch loop then works on private copies of lb/ub taken right
//   after the init call, so they can stay in registers (ChunkCost.cpp).
//   The runtime entry points are declared extern_weak: a program built with
//   the plugin links and runs without the grainchunk runtime and then behaves
//   exactly like a stock build.
//
//===----------------------------------------------------------------------===//

#include "ChunkRewrite.h"
#include "ChunkCost.h"
#include "GrainChunkPass.h"
#include "StaticLoopMatch.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <string>

using namespace llvm;

namespace {

constexpr const char *ShouldCallbackName = "__kmpc_should_callback_per_chunk";
constexpr const char *ChunkEndName = "__kmpc_for_static_chunk_end";
// Bits of its answer (GRAINCHUNK_WANT_* in include/grainchunk.h).
constexpr uint64_t WantChunks = 1, WantChunkEnd = 2;

/// Declares (or finds) a runtime entry point as extern_weak.
Function *getEntryPoint(Module &M, StringRef Name, FunctionType *FT) {
  if (Function *F = M.getFunction(Name))
    return F->getFunctionType() == FT ? F : nullptr;
  if (M.getNamedValue(Name))
    return nullptr;
  Function *F =
      Function::Create(FT, GlobalValue::ExternalWeakLinkage, Name, &M);
  F->addFnAttr(Attribute::NoUnwind);
  return F;
}

void addExt(Function *F, int ArgNo, Attribute::AttrKind K) {
  if (K == Attribute::None)
    return;
  if (ArgNo < 0)
    F->addRetAttr(K);
  else
    F->addParamAttr(ArgNo, K);
}

/// The entry points one loop's rewrite calls, declared on demand; until
/// keep(), the ones this rewrite declared are removed again on destruction,
/// so that a rewrite that gives up leaves the module as it was.
class EntryPoints {
  Module &M;
  SmallVector<Function *, 3> Declared;

public:
  explicit EntryPoints(Module &M) : M(M) {}
  ~EntryPoints() {
    for (Function *F : Declared)
      F->eraseFromParent();
  }
  /// The declaration of \p Name, or null if the name is taken by something
  /// else. \p AddAttrs sets up a new declaration's attributes.
  Function *get(StringRef Name, FunctionType *FT,
                function_ref<void(Function *)> AddAttrs) {
    bool Had = M.getFunction(Name) != nullptr;
    Function *F = getEntryPoint(M, Name, FT);
    if (F && !Had) {
      AddAttrs(F);
      Declared.push_back(F);
    }
    return F;
  }
  void keep() { Declared.clear(); }
};

/// The conditional branch into the chunk's first block, if the per-chunk
/// call of a loop over chunks whose bounds are at hand where the chunk
/// starts can go right before it: the block starts at the report point and has
/// that branch's block as its only predecessor, and every value the call
/// takes is available there. Null otherwise (the call stays in the block).
Instruction *hoistableTest(const grainchunk::StaticLoop &L) {
  BasicBlock *Chunk = L.ReportAt->getParent();
  if (!L.Chunked || L.OneIterIV || L.LoadBounds || L.TripCount ||
      !Chunk->phis().empty())
    return nullptr;
  for (Instruction &I : *Chunk) {
    if (isa<DbgInfoIntrinsic>(I))
      continue;
    if (&I != L.ReportAt)
      return nullptr;
    break;
  }
  BasicBlock *Pred = Chunk->getSinglePredecessor();
  auto *Br = Pred ? dyn_cast<BranchInst>(Pred->getTerminator()) : nullptr;
  if (!Br || !Br->isConditional() || Br->getSuccessor(0) == Br->getSuccessor(1))
    return nullptr;
  // Values defined outside the chunk's block that reach its start dominate
  // its only predecessor's end.
  for (Value *V : {L.Lower, L.Upper, L.LastIter, L.Init->getArgOperand(0),
                   L.Init->getArgOperand(1)}) {
    auto *I = dyn_cast_or_null<Instruction>(V);
    if (!V || (I && I->getParent() == Chunk))
      return nullptr;
  }
  return Br;
}

/// The branch weights of the guard of a report inserted before \p At: the
/// report is unlikely, but only inside a loop may the optimizer know it.
/// Without profile data the block placement keeps a loop's unlikely blocks in
/// the loop's chain, before the code after the loop; an unlikely block
/// outside any loop goes after the function's return instead. Where the
/// function is an outlined region Clang's wrapper inlined, that return is the
/// wrapper's, and a report after it splits the inlined region's address range
/// in two: DWARF 5 then describes it with a range list (DW_FORM_rnglistx),
/// which libbfd (binutils' addr2line, and tools that look addresses up
/// through it, such as Score-P) does not read, and every instruction of the
/// region loses its inline frame there (test/e2e/debug-frames.test).
/// The report outside a loop (a single range's, once per loop and thread)
/// runs where it is, with no weights.
MDNode *reportWeights(Instruction *At) {
  Function &F = *At->getFunction();
  DominatorTree DT(F);
  LoopInfo LI(DT);
  if (!LI.getLoopFor(At->getParent()))
    return nullptr;
  return MDBuilder(F.getContext())
      .createBranchWeights(1, grainchunk::UnlikelyReportWeight);
}

/// The ident_t the chunk calls pass (the runtime library answers its psource
/// in grainchunk_get_chunk_info): the init call's, unless flang's psource
/// misnames the loop at \p Where (loopLocation): it names no place
/// (";unknown;unknown;0;0;;", flang's when the call has no location), or
/// no file (";FIRModule;f;LINE;COL;;": OpenMPIRBuilder names the file after
/// the module, which flang calls "FIRModule"), or another line or column
/// than the loop's (the procedure's first line for loops with user-defined
/// reductions). Then a copy whose psource is ";file;function;line;column;;"
/// from \p Where (the function: flang's name, or the outlined region's up
/// to "..omp_par").
Value *chunkIdent(CallInst *CI, const DebugLoc &Where) {
  Value *Loc = CI->getArgOperand(0);
  if (!Where || grainchunk::LineTablesAdded)
    return Loc;
  auto *GV = dyn_cast<GlobalVariable>(Loc->stripPointerCasts());
  if (!GV || !GV->hasDefinitiveInitializer())
    return Loc;
  auto *CS = dyn_cast<ConstantStruct>(GV->getInitializer());
  if (!CS || CS->getNumOperands() != 5)
    return Loc;
  auto *Str = dyn_cast<GlobalVariable>(CS->getOperand(4)->stripPointerCasts());
  if (!Str || !Str->hasDefinitiveInitializer())
    return Loc;
  auto *Data = dyn_cast<ConstantDataSequential>(Str->getInitializer());
  if (!Data || !Data->isCString())
    return Loc;
  // ;file;function;line;column;;
  SmallVector<StringRef, 7> Parts;
  Data->getAsCString().split(Parts, ';');
  if (Parts.size() < 5 || (Parts[1] != "unknown" && Parts[1] != "FIRModule"))
    return Loc;
  const DILocation *DIL = Where.get();
  std::string Line = std::to_string(DIL->getLine());
  std::string Col = std::to_string(DIL->getColumn());
  if (Parts[1] == "FIRModule" && Parts[3] == Line && Parts[4] == Col &&
      DIL->getFilename().empty())
    return Loc;
  StringRef Fn = Parts[2];
  if (Fn == "unknown") {
    Fn = DIL->getScope()->getSubprogram()->getName();
    Fn = Fn.substr(0, Fn.find("..omp_par"));
  }
  std::string PS = ";" + DIL->getFilename().str() + ";" + Fn.str() + ";" +
                   Line + ";" + Col + ";;";
  Module &M = *CI->getModule();
  Constant *Text = ConstantDataArray::getString(M.getContext(), PS);
  auto *TextGV = new GlobalVariable(M, Text->getType(), /*isConstant=*/true,
                                    GlobalValue::PrivateLinkage, Text,
                                    "grainchunk.psource");
  TextGV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  SmallVector<Constant *, 5> Ops;
  for (unsigned I = 0; I < 4; ++I)
    Ops.push_back(CS->getOperand(I));
  Ops.push_back(
      ConstantExpr::getPointerCast(TextGV, CS->getOperand(4)->getType()));
  auto *Ident = new GlobalVariable(
      M, CS->getType(), /*isConstant=*/true, GlobalValue::PrivateLinkage,
      ConstantStruct::get(CS->getType(), Ops), "grainchunk.ident");
  Ident->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  Ident->setAlignment(GV->getAlign());
  return ConstantExpr::getPointerCast(Ident, Loc->getType());
}

} // namespace

namespace grainchunk {

bool LineTablesAdded = false;

bool rewrite(StaticLoop &L, const TargetLibraryInfo &TLI) {
  CallInst *CI = L.Init;
  Module &Mod = *CI->getModule();
  LLVMContext &Ctx = Mod.getContext();
  Type *I32 = Type::getInt32Ty(Ctx);
  Type *IVTy = CI->getArgOperand(7)->getType();
  Type *PtrTy = CI->getArgOperand(0)->getType();
  bool Signed = L.Suffix == "4" || L.Suffix == "8";

  auto *ShouldTy = FunctionType::get(I32, {PtrTy}, false);
  auto *ChunkTy = FunctionType::get(Type::getVoidTy(Ctx),
                                    {PtrTy, I32, I32, IVTy, IVTy}, false);
  std::string ChunkName = ("__kmpc_for_static_chunk_" + L.Suffix).str();
  EntryPoints EP(Mod);
  Function *Should = EP.get(ShouldCallbackName, ShouldTy, [&](Function *F) {
    addExt(F, -1, TLI.getExtAttrForI32Return(true));
  });
  Function *Chunk =
      Should ? EP.get(ChunkName, ChunkTy,
                      [&](Function *F) {
                        addExt(F, 1, TLI.getExtAttrForI32Param(true));
                        addExt(F, 2, TLI.getExtAttrForI32Param(true));
                        if (IVTy->isIntegerTy(32)) {
                          addExt(F, 3, TLI.getExtAttrForI32Param(Signed));
                          addExt(F, 4, TLI.getExtAttrForI32Param(Signed));
                        }
                      })
             : nullptr;
  // Loops over chunks: __kmpc_for_static_chunk_end(loc, gtid).
  Function *ChunkEnd = nullptr;
  if (Chunk && L.EndAt) {
    auto *EndTy = FunctionType::get(Type::getVoidTy(Ctx), {PtrTy, I32}, false);
    ChunkEnd = EP.get(ChunkEndName, EndTy, [&](Function *F) {
      addExt(F, 1, TLI.getExtAttrForI32Param(true));
    });
  }
  if (!Should || !Chunk || (L.EndAt && !ChunkEnd))
    return false;

  // The debug locations of the inserted code. Among the loop's own
  // instructions (before the init call, at the report point) it takes the
  // loop's location as the compiler gave it, or none if it gave none: then
  // every instruction there, the init call included, reads in the line table
  // what it reads in a stock build. The blocks of their own (the report, the
  // chunk end, the one-thread walk) would read line 0 without one: they take
  // newBlockLocation's.
  DebugLoc DL = L.Where;
  DebugLoc BlockDL = grainchunk::newBlockLocation(L);
  Value *Loc = chunkIdent(CI, L.Where);
  Value *GTid = CI->getArgOperand(1);

  // Once per loop per thread: ask the shim (if linked) whether a tool wants
  // chunk events, through one out-of-line helper per module (see getAsk).
  Function *AskFn = grainchunk::getAsk(Mod, Should);
  Function *WalkFn =
      L.WalkOneThread ? grainchunk::getWalk(Mod, IVTy, Signed) : nullptr;
  if (!AskFn || (L.WalkOneThread && !WalkFn))
    return false;
  EP.keep();
  IRBuilder<> B(CI);
  B.SetCurrentDebugLocation(DL);
  CallInst *Flags = B.CreateCall(AskFn, {Loc}, "grainchunk.flags");
  Flags->setAttributes(AskFn->getAttributes());
  Value *Want = B.CreateICmpNE(B.CreateAnd(Flags, WantChunks),
                               ConstantInt::get(I32, 0), "grainchunk.want");
  Value *WantEnd =
      ChunkEnd ? B.CreateICmpNE(B.CreateAnd(Flags, WantChunkEnd),
                                ConstantInt::get(I32, 0), "grainchunk.wantend")
               : nullptr;

  // A team of one thread (also a serialized one) gets the whole iteration
  // space as a single range from the runtime. When a tool wants chunks, walk
  // it in chunks of the requested size instead: the same thread runs the
  // same iterations in the same order, and the tool sees the schedule's
  // chunks. Clang's latch then steps both bounds by the chunk size, so the
  // walk is taken only where that cannot wrap: the start of the chunk after
  // the last one, lb + ((ub - lb) / chunk + 1) * chunk, must fit in the
  // iteration variable's type (every earlier bound is smaller). Otherwise
  // the runtime's single range stays, exactly as in a stock build.
  //   if (want) { ub' = grainchunk.walk(lb, ub, chunk);   // ChunkCost.cpp
  //               if (ub' != ub) { ub = ub'; st = chunk; } }
  // The walk is out of line (one per module and type), so each loop pays
  // for a call in a block that runs only when a tool wants chunks.
  if (L.WalkOneThread) {
    Instruction *AfterInit = CI->getNextNode();
    Instruction *Term = SplitBlockAndInsertIfThen(Want, AfterInit, false);
    Term->setDebugLoc(BlockDL);
    Term->getParent()->setName("grainchunk.onethread");
    IRBuilder<> OB(Term);
    OB.SetCurrentDebugLocation(BlockDL);
    Value *PLB = CI->getArgOperand(4), *PUB = CI->getArgOperand(5),
          *PST = CI->getArgOperand(6), *Size = CI->getArgOperand(8);
    Value *LB = OB.CreateLoad(IVTy, PLB);
    Value *UB = OB.CreateLoad(IVTy, PUB);
    Value *ST = OB.CreateLoad(IVTy, PST);
    CallInst *NewUB =
        OB.CreateCall(WalkFn, {LB, UB, Size}, "grainchunk.walkub");
    NewUB->setAttributes(WalkFn->getAttributes());
    OB.CreateStore(NewUB, PUB);
    OB.CreateStore(OB.CreateSelect(OB.CreateICmpNE(NewUB, UB), Size, ST), PST);
  }

  // Top of every chunk: if (want) __kmpc_for_static_chunk_X(...). The
  // single chunk of schedule(static) may be empty (more threads than
  // iterations): then there is nothing to report.
  if (L.OneIterIV) {
    IRBuilder<> IB(L.ReportAt);
    IB.SetCurrentDebugLocation(DL);
    L.Lower = L.Upper = IB.CreateLoad(IVTy, L.OneIterIV, "grainchunk.iv");
  }
  if (L.LoadBounds) {
    IRBuilder<> LB(L.ReportAt);
    LB.SetCurrentDebugLocation(DL);
    L.Lower = LB.CreateLoad(IVTy, CI->getArgOperand(4), "grainchunk.lb");
    L.Upper = LB.CreateLoad(IVTy, CI->getArgOperand(5), "grainchunk.ub");
  }
  if (L.TripCount) {
    IRBuilder<> TB(L.ReportAt);
    TB.SetCurrentDebugLocation(DL);
    Value *One = ConstantInt::get(IVTy, 1);
    L.Upper =
        TB.CreateSub(TB.CreateAdd(L.Lower, L.TripCount), One, "grainchunk.ub");
    L.LastIter = TB.CreateSub(L.Count, One, "grainchunk.lastiter");
  }
  Value *Guard = Want;
  if (L.RangeCount) {
    // OpenMPIRBuilder's single range runs (ub - lb) + 1 iterations, in the
    // iteration variable's type: none when that is 0, as for an empty loop
    // (ub = count - 1 is all ones, lb is 0: lb <= ub holds, yet nothing
    // runs). Its own test, not lb <= ub.
    IRBuilder<> GB(L.ReportAt);
    GB.SetCurrentDebugLocation(DL);
    Guard = GB.CreateAnd(
        Want,
        GB.CreateICmpNE(L.RangeCount,
                        ConstantInt::get(L.RangeCount->getType(), 0)),
        "grainchunk.nonempty");
  } else if (!L.Chunked) {
    IRBuilder<> GB(L.ReportAt);
    GB.SetCurrentDebugLocation(DL);
    Guard = GB.CreateAnd(
        Want,
        GB.CreateICmp(Signed ? ICmpInst::ICMP_SLE : ICmpInst::ICMP_ULE, L.Lower,
                      L.Upper),
        "grainchunk.nonempty");
  }
  // Where the chunk's first block has a single predecessor that branches on
  // whether the chunk runs (Clang's dispatch test), the call goes before that
  // branch, guarded by the same condition: it runs exactly when it would
  // have, but the chunk's block keeps its single predecessor, so the
  // optimizer still sees the dispatch test right above Clang's test of the
  // chunk's first iteration and folds the second one, as in a stock build.
  Instruction *ReportAt = L.ReportAt;
  if (Instruction *Test = hoistableTest(L)) {
    auto *Br = cast<BranchInst>(Test);
    IRBuilder<> HB(Br);
    HB.SetCurrentDebugLocation(DL);
    Value *Runs = Br->getSuccessor(0) == L.ReportAt->getParent()
                      ? Br->getCondition()
                      : HB.CreateNot(Br->getCondition());
    Guard = HB.CreateAnd(Guard, Runs, "grainchunk.runs");
    ReportAt = Br;
  }
  // The report is unlikely (no tool in the common case; the weights say so
  // inside a loop, see reportWeights), and the call is `convergent` so that
  // no pass clones the loop around it (see hardenReport).
  Instruction *ReportTerm = SplitBlockAndInsertIfThen(Guard, ReportAt, false,
                                                      reportWeights(ReportAt));
  ReportTerm->setDebugLoc(BlockDL);
  ReportTerm->getParent()->setName("grainchunk.report");
  IRBuilder<> RB(ReportTerm);
  RB.SetCurrentDebugLocation(BlockDL);
  Value *IsLast = RB.CreateZExt(
      RB.CreateICmpEQ(L.Upper, L.LastIter, "grainchunk.islast"), I32);
  CallInst *Report =
      RB.CreateCall(Chunk, {Loc, GTid, IsLast, L.Lower, L.Upper});
  Report->setAttributes(Chunk->getAttributes());
  grainchunk::hardenReport(Report);

  // The end of every chunk of a loop over chunks: if (flags & 2)
  // __kmpc_for_static_chunk_end(loc, gtid), where the chunk's iterations are
  // done and before the step to the next chunk (the matcher proved that
  // every chunk ends there once). Unlikely and convergent, like the report.
  if (ChunkEnd) {
    Instruction *EndTerm = SplitBlockAndInsertIfThen(WantEnd, L.EndAt, false,
                                                     reportWeights(L.EndAt));
    EndTerm->setDebugLoc(BlockDL);
    EndTerm->getParent()->setName("grainchunk.chunkend");
    IRBuilder<> EB(EndTerm);
    EB.SetCurrentDebugLocation(BlockDL);
    CallInst *End = EB.CreateCall(ChunkEnd, {Loc, GTid});
    End->setAttributes(ChunkEnd->getAttributes());
    grainchunk::hardenReport(End);
  }

  grainchunk::privatizeBounds(CI);
  CI->setMetadata(DoneMD, MDNode::get(Ctx, {}));
  return true;
}

} // namespace grainchunk
