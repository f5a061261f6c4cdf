//===- StaticLoopMatch.cpp - Recognize Clang's static loops ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// WHAT IT DOES
//   Proves, from the IR alone, that a call of `__kmpc_for_static_init_*` starts
//   one of the static loops Clang (or OpenMPIRBuilder) emits, and records in a
//   StaticLoop where its chunks start and what their bounds are. It changes
//   nothing: ChunkRewrite.cpp inserts the calls, GrainChunkPass.cpp decides
//   which loops to try and says why one is left alone.
//
//   The shapes it knows:
//   - Clang's dispatch loop of schedule(static, N) (and of dist_schedule(
//     static, N) in `teams distribute`): a header that clamps UB to the
//     loop's last iteration and sets IV = LB, the test iv <= ub, the chunk's
//     iterations, a latch that steps LB and UB by the stride.
//   - The distribute loop of `distribute parallel for dist_schedule(static,
//     N)`: the clamp after the init call, a loop whose body forks the inner
//     region, a latch that steps IV, LB, UB and re-clamps.
//   - `distribute parallel for schedule(static, 1)`: no loop over chunks, one
//     iteration per chunk, IV stepped by the stride.
//   - OpenMPIRBuilder's loop over chunks (and its single range).
//   - schedule(static) / dist_schedule(static): one range per thread.
//   Every write to the bounds must be one the shape explains; anything else
//   is not recognized, with the reason.
//
// HOW
//   matchStaticLoop checks the init call's arguments (matchInitCall), lets
//   the instructions right after the call pick the one shape the loop can
//   be (candidateShape), and runs that shape's matcher (matchDispatchLoop,
//   matchDistributeLoop, matchOneIterationWalk, matchIRBuilderLoop,
//   matchSingleRange); Clang's own shapes then share the checks of every
//   use of the bounds (checkClangBounds). Every matcher and check returns a
//   Rejection, whose reason ends the missed-remark, or std::nullopt.
//
//===----------------------------------------------------------------------===//

#include "StaticLoopMatch.h"
#include "ChunkCost.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PatternMatch.h"

using namespace llvm;

namespace grainchunk {

Entry classify(const CallInst &CI) {
  const Function *Callee = CI.getCalledFunction();
  if (!Callee)
    return {};
  StringRef Name = Callee->getName();
  if (Name == "__kmpc_taskloop" || Name == "__kmpc_taskloop_5")
    return {EntryKind::Taskloop, ""};
  static const std::pair<StringRef, EntryKind> Prefixes[] = {
      {"__kmpc_for_static_init_", EntryKind::ForStaticInit},
      {"__kmpc_dispatch_init_", EntryKind::DispatchInit},
      {"__kmpc_dist_dispatch_init_", EntryKind::DispatchInit},
      {"__kmpc_dist_for_static_init_", EntryKind::DistForStaticInit},
      {"__kmpc_distribute_static_init_", EntryKind::DistributeStaticInit}};
  for (const auto &P : Prefixes) {
    if (Name.substr(0, P.first.size()) != P.first)
      continue;
    StringRef Sfx = Name.drop_front(P.first.size());
    if (Sfx == "4" || Sfx == "4u" || Sfx == "8" || Sfx == "8u")
      return {P.second, Sfx};
  }
  return {};
}

/// The flags of the ident_t \p Loc points to, or -1 if they are not known.
int64_t identFlags(const Value *Loc) {
  const auto *GV = dyn_cast<GlobalVariable>(Loc->stripPointerCasts());
  if (!GV || !GV->hasDefinitiveInitializer())
    return -1;
  const auto *CS = dyn_cast<ConstantStruct>(GV->getInitializer());
  if (!CS || CS->getNumOperands() < 2)
    return -1;
  const auto *F = dyn_cast<ConstantInt>(CS->getOperand(1));
  return F ? F->getSExtValue() : -1;
}

/// Whether \p DL names a line in \p SP's own code (a function inlined into
/// it has its own subprogram).
static bool isLineOf(const DebugLoc &DL, const DISubprogram *SP) {
  return DL && DL.getLine() && DL->getScope()->getSubprogram() == SP;
}

DebugLoc loopLocation(const StaticLoop &L) {
  const DISubprogram *SP = L.Init->getFunction()->getSubprogram();
  if (SP && (L.Shape == LoopShape::IRBuilderChunkLoop ||
             L.Shape == LoopShape::IRBuilderRange)) {
    // The loop's count (the chunk loop's, or, for the single range, the
    // count whose last iteration, count - 1, is the upper bound set before
    // the call), else (a constant count) the chunk's trip count: the chunk
    // loop's select, the single range's (ub - lb) + 1 right before ReportAt.
    Value *Count = L.Count;
    if (!Count && L.LastIter)
      PatternMatch::match(L.LastIter,
                          PatternMatch::m_Sub(PatternMatch::m_Value(Count),
                                              PatternMatch::m_One()));
    Value *Chunk = L.TripCount;
    if (!Chunk && L.Shape == LoopShape::IRBuilderRange && L.ReportAt)
      Chunk = L.ReportAt->getPrevNode();
    for (Value *V : {Count, Chunk})
      if (auto *I = dyn_cast_or_null<Instruction>(V)) {
        if (isLineOf(I->getDebugLoc(), SP))
          return I->getDebugLoc();
      }
  }
  return callLocation(L.Init);
}

DebugLoc newBlockLocation(const StaticLoop &L) {
  if (L.Where)
    return L.Where;
  const DISubprogram *SP = L.Init->getFunction()->getSubprogram();
  if (!SP || !L.Lower)
    return DebugLoc();
  // iv + lb, with iv the body's counter (a phi).
  SmallPtrSet<const Instruction *, 2> Steps;
  for (const User *U : L.Lower->users()) {
    const auto *Add = dyn_cast<BinaryOperator>(U);
    if (Add && Add->getOpcode() == Instruction::Add &&
        isLineOf(Add->getDebugLoc(), SP) &&
        (isa<PHINode>(Add->getOperand(0)) || isa<PHINode>(Add->getOperand(1))))
      Steps.insert(Add);
  }
  if (Steps.size() == 1)
    return (*Steps.begin())->getDebugLoc();
  // More than one: the first in the function, so that the choice does not
  // depend on the order of the use list.
  if (!Steps.empty())
    for (const Instruction &I : instructions(*L.Init->getFunction()))
      if (Steps.count(&I))
        return I.getDebugLoc();
  return DebugLoc();
}

DebugLoc callLocation(const CallInst *CI) {
  if (const DebugLoc &DL = CI->getDebugLoc())
    return DL;
  const DISubprogram *SP = CI->getFunction()->getSubprogram();
  if (!SP)
    return DebugLoc();
  for (const Value *Arg : CI->args())
    if (const auto *I = dyn_cast<Instruction>(Arg)) {
      if (isLineOf(I->getDebugLoc(), SP))
        return I->getDebugLoc();
    }
  return DebugLoc();
}

} // namespace grainchunk

namespace {

using grainchunk::LoopShape;
using grainchunk::Rejection;
using grainchunk::StaticLoop;

bool isOne(const Value *V) {
  const auto *C = dyn_cast<ConstantInt>(V);
  return C && C->isOne();
}

/// Next instruction after \p I that is not a debug intrinsic.
const Instruction *nextReal(const Instruction *I) {
  for (I = I->getNextNode(); I && isa<DbgInfoIntrinsic>(I);
       I = I->getNextNode())
    ;
  return I;
}

/// Non-debug, non-lifetime instructions of \p BB, in order.
SmallVector<Instruction *, 12> realInstructions(BasicBlock &BB) {
  SmallVector<Instruction *, 12> R;
  for (Instruction &I : BB)
    if (!isa<DbgInfoIntrinsic>(I) && !I.isLifetimeStartOrEnd())
      R.push_back(&I);
  return R;
}

bool isLoadFrom(const Value *V, const Value *Ptr) {
  const auto *L = dyn_cast<LoadInst>(V);
  return L && L->getPointerOperand() == Ptr;
}

/// A bound Clang reads from memory: a load, or a load converted to the
/// iteration variable's type (`distribute parallel for` passes the
/// distribute chunk's bounds to the inner loop as 64-bit values).
bool isBoundRead(const Value *V) {
  if (const auto *C = dyn_cast<CastInst>(V))
    if (isa<TruncInst>(C) || isa<ZExtInst>(C) || isa<SExtInst>(C))
      V = C->getOperand(0);
  const auto *L = dyn_cast<LoadInst>(V);
  return L && !L->isVolatile();
}

/// True if \p A and \p B are both Clang's reading of the loop's global upper
/// bound: the same value, equal constants, or (converted) loads of the same
/// location.
bool sameBound(const Value *A, const Value *B) {
  if (A == B)
    return true;
  const auto *CA = dyn_cast<ConstantInt>(A);
  const auto *CB = dyn_cast<ConstantInt>(B);
  if (CA && CB)
    return CA->getValue() == CB->getValue();
  const auto *XA = dyn_cast<CastInst>(A);
  const auto *XB = dyn_cast<CastInst>(B);
  if (XA || XB)
    return XA && XB && XA->getOpcode() == XB->getOpcode() &&
           XA->getType() == XB->getType() && isBoundRead(XA) &&
           isBoundRead(XB) && sameBound(XA->getOperand(0), XB->getOperand(0));
  const auto *LA = dyn_cast<LoadInst>(A);
  const auto *LB = dyn_cast<LoadInst>(B);
  return LA && LB && LA->getPointerOperand() == LB->getPointerOperand() &&
         LA->getType() == LB->getType() && !LA->isVolatile() &&
         !LB->isVolatile();
}

/// True if \p S runs before the init call \p CI on every path to it and
/// cannot run again between them: in CI's block before CI, or in a block
/// that dominates CI's. Clang sets the bounds before it constructs the
/// loop's private copies; in C++ the constructors of class-type privates
/// (invokes, which end a block, under exceptions) and the copy loops of
/// private arrays put blocks between those stores and the call.
bool precedesInit(const StoreInst *S, const CallInst *CI,
                  const DominatorTree &DT) {
  return S->getParent() == CI->getParent()
             ? S->comesBefore(CI)
             : DT.properlyDominates(S->getParent(), CI->getParent());
}

/// Checks that the bound \p V (a constant or a captured value, see
/// isBoundRead) holds the same value wherever Clang reads it: a read must be
/// of a local variable whose address is never taken and that is written
/// only before the read, so that nothing between the bounds' set-up and the
/// loop (a private copy's constructor, a user-defined reduction's
/// initializer, the runtime call) can change it. Rejects a bound that may
/// change.
std::optional<Rejection> checkCapturedBound(const Value *V,
                                            const DominatorTree &DT) {
  if (const auto *C = dyn_cast<CastInst>(V))
    V = C->getOperand(0);
  const auto *Ld = dyn_cast<LoadInst>(V);
  if (!Ld) {
    if (isa<ConstantInt>(V))
      return std::nullopt;
    return Rejection{"a loop bound is not a captured value"};
  }
  const auto *P = dyn_cast<AllocaInst>(Ld->getPointerOperand());
  if (!P)
    return Rejection{"the loop's bound is read from memory that is not a local "
                     "variable"};
  for (const User *U : P->users()) {
    const auto *I = dyn_cast<Instruction>(U);
    if (!I)
      return Rejection{"the address of the loop's bound escapes"};
    if (isa<LoadInst>(I) || I->isLifetimeStartOrEnd() ||
        grainchunk::isLifetimeCast(I))
      continue;
    const auto *S = dyn_cast<StoreInst>(I);
    if (!S || S->getPointerOperand() != P || S->getValueOperand() == P)
      return Rejection{"the address of the loop's bound escapes"};
    if (!DT.dominates(S, Ld))
      return Rejection{"the loop's bound is written after it is read"};
  }
  return std::nullopt;
}

/// Clang's step of a bound, `A + B`, computed in blocks \p InLatch accepts:
/// `add (load A), (load B)`, or, where Clang checks the addition for
/// overflow (-fsanitize=undefined, -fsanitize=integer, -ftrapv),
/// `extractvalue ({s,u}add.with.overflow(load A, load B)), 0`.
bool isStepOf(const Value *V, const Value *A, const Value *B,
              function_ref<bool(const BasicBlock *)> InLatch) {
  const Instruction *Sum = nullptr;
  const Value *X = nullptr, *Y = nullptr;
  if (const auto *Add = dyn_cast<BinaryOperator>(V)) {
    if (Add->getOpcode() != Instruction::Add)
      return false;
    Sum = Add;
    X = Add->getOperand(0);
    Y = Add->getOperand(1);
  } else if (const auto *EV = dyn_cast<ExtractValueInst>(V)) {
    const auto *II = dyn_cast<IntrinsicInst>(EV->getAggregateOperand());
    if (EV->getNumIndices() != 1 || EV->getIndices()[0] != 0 || !II ||
        (II->getIntrinsicID() != Intrinsic::sadd_with_overflow &&
         II->getIntrinsicID() != Intrinsic::uadd_with_overflow) ||
        !InLatch(II->getParent()))
      return false;
    Sum = EV;
    X = II->getArgOperand(0);
    Y = II->getArgOperand(1);
  } else {
    return false;
  }
  return InLatch(Sum->getParent()) && isLoadFrom(X, A) && isLoadFrom(Y, B) &&
         InLatch(cast<Instruction>(X)->getParent()) &&
         InLatch(cast<Instruction>(Y)->getParent());
}

/// The bounds the runtime call fills in, and the loop they belong to.
struct Bounds {
  AllocaInst *PLB = nullptr, *PUB = nullptr, *PST = nullptr;
  bool Signed = false;
};

/// Hands \p Check every instruction that uses one of the bounds \p B,
/// except the init call \p CI and lifetime markers. Returns why the loop is
/// not recognized: a bound used by something other than an instruction
/// (escapes), or the first reason \p Check gives.
std::optional<Rejection> checkBoundUses(
    const CallInst *CI, const Bounds &B,
    function_ref<std::optional<Rejection>(AllocaInst *, Instruction *)> Check) {
  for (AllocaInst *A : {B.PLB, B.PUB, B.PST})
    for (User *U : A->users()) {
      auto *I = dyn_cast<Instruction>(U);
      if (!I)
        return Rejection{"a loop bound escapes"};
      if (I == CI || I->isLifetimeStartOrEnd() || grainchunk::isLifetimeCast(I))
        continue;
      if (std::optional<Rejection> R = Check(A, I))
        return R;
    }
  return std::nullopt;
}

/// Clang's chunk header, from the block \p Cond that ends in the clamp:
///   %a = load UB; G; %c = icmp sgt|ugt %a, G; br %c, T, F
///   T: [load G]; br M          F: load UB; br M
///   M: phi [G, T], [UB, F]; store UB; %lb = load LB; store IV, %lb; Rest...
struct ChunkHeader {
  Value *G = nullptr;
  PHINode *Phi = nullptr;
  StoreInst *StUB = nullptr;
  LoadInst *Lower = nullptr;
  Value *PIV = nullptr;
  BasicBlock *M = nullptr;
  SmallVector<Instruction *, 12> Rest; // M's instructions after `store IV`
};

std::optional<Rejection> matchHeader(BasicBlock *Cond, const Bounds &B,
                                     ChunkHeader &H) {
  auto *CondBr = dyn_cast<BranchInst>(Cond->getTerminator());
  if (!CondBr || !CondBr->isConditional())
    return Rejection{
        "the dispatch loop header does not end in the bound clamp"};
  auto *Clamp = dyn_cast<ICmpInst>(CondBr->getCondition());
  if (!Clamp || Clamp->getParent() != Cond ||
      Clamp->getPredicate() !=
          (B.Signed ? ICmpInst::ICMP_SGT : ICmpInst::ICMP_UGT) ||
      !isLoadFrom(Clamp->getOperand(0), B.PUB))
    return Rejection{
        "the upper bound is not clamped to the loop's global bound"};
  Value *G = Clamp->getOperand(1);
  if (!isa<ConstantInt>(G) && !isBoundRead(G))
    return Rejection{
        "the loop's global upper bound is neither a constant nor a "
        "captured value"};
  if (isLoadFrom(G, B.PLB) || isLoadFrom(G, B.PUB) || isLoadFrom(G, B.PST))
    return Rejection{"the loop's global upper bound aliases the chunk bounds"};

  BasicBlock *T = CondBr->getSuccessor(0), *F = CondBr->getSuccessor(1);
  if (T == F || T->getSinglePredecessor() != Cond ||
      F->getSinglePredecessor() != Cond)
    return Rejection{"the bound clamp is not a two-way branch"};
  auto *TBr = dyn_cast<BranchInst>(T->getTerminator());
  auto *FBr = dyn_cast<BranchInst>(F->getTerminator());
  if (!TBr || !FBr || TBr->isConditional() || FBr->isConditional() ||
      TBr->getSuccessor(0) != FBr->getSuccessor(0))
    return Rejection{"the bound clamp does not rejoin"};
  BasicBlock *M = TBr->getSuccessor(0);
  if (M == Cond || M == T || M == F)
    return Rejection{"the bound clamp does not rejoin"};
  auto MI = realInstructions(*M);
  if (MI.size() < 5)
    return Rejection{"the chunk header is not in the expected form"};
  auto *Phi = dyn_cast<PHINode>(MI[0]);
  if (!Phi || Phi->getNumIncomingValues() != 2 ||
      !sameBound(Phi->getIncomingValueForBlock(T), G) ||
      !isLoadFrom(Phi->getIncomingValueForBlock(F), B.PUB) ||
      cast<Instruction>(Phi->getIncomingValueForBlock(F))->getParent() != F)
    return Rejection{"the clamped upper bound is not min(UB, global bound)"};
  if (auto *TL = dyn_cast<Instruction>(Phi->getIncomingValueForBlock(T)))
    if (TL != G && TL->getParent() != T)
      return Rejection{"the clamped upper bound is not min(UB, global bound)"};
  auto *StUB = dyn_cast<StoreInst>(MI[1]);
  if (!StUB || StUB->getValueOperand() != Phi ||
      StUB->getPointerOperand() != B.PUB)
    return Rejection{"the clamped upper bound is not stored back"};
  auto *Lower = dyn_cast<LoadInst>(MI[2]);
  if (!Lower || Lower->getPointerOperand() != B.PLB)
    return Rejection{"the chunk does not start at the lower bound"};
  auto *StIV = dyn_cast<StoreInst>(MI[3]);
  if (!StIV || StIV->getValueOperand() != Lower ||
      !isa<AllocaInst>(StIV->getPointerOperand()))
    return Rejection{"the iteration variable is not set to the lower bound"};
  Value *PIV = StIV->getPointerOperand();
  if (PIV == B.PLB || PIV == B.PUB || PIV == B.PST)
    return Rejection{"the iteration variable is not set to the lower bound"};
  H.G = G;
  H.Phi = Phi;
  H.StUB = StUB;
  H.Lower = Lower;
  H.PIV = PIV;
  H.M = M;
  H.Rest.assign(MI.begin() + 4, MI.end());
  return std::nullopt;
}

/// The header that follows the runtime call in its own block (schedule
/// (static), and the distribute loop of `distribute parallel for`): the
/// clamp of UB after the call, then IV = LB and a jump, returned in
/// \p ToTest, to the loop's test.
std::optional<Rejection> matchHeaderAfterInit(CallInst *CI, const Bounds &B,
                                              ChunkHeader &H,
                                              BranchInst *&ToTest) {
  BasicBlock *InitBB = CI->getParent();
  if (std::optional<Rejection> R = matchHeader(InitBB, B, H))
    return R;
  auto *ClampLoad = cast<Instruction>(
      cast<ICmpInst>(cast<BranchInst>(InitBB->getTerminator())->getCondition())
          ->getOperand(0));
  if (!CI->comesBefore(ClampLoad))
    return Rejection{"the upper bound is clamped before the runtime sets it"};
  ToTest = H.Rest.size() == 1 ? dyn_cast<BranchInst>(H.Rest[0]) : nullptr;
  if (!ToTest || ToTest->isConditional())
    return Rejection{"the chunk header is not in the expected form"};
  return std::nullopt;
}

/// Clang's test `iv <= ub` (or `iv < ub + 1`) and the branch it guards:
///   load IV; load UB; [add UB, 1]; icmp; br %c, Body, Exit
/// Sets \p Body to the block entered when the test holds.
std::optional<Rejection> matchChunkTest(ArrayRef<Instruction *> I, Value *PIV,
                                        const Bounds &B, BasicBlock *&Body,
                                        const Value *G = nullptr) {
  const Rejection NotLE{"the chunk test is not iv <= ub"};
  size_t N = I.size();
  // Against a constant bound G, Clang folds the test: iv <= G, iv < G + 1.
  const auto *CG = dyn_cast_or_null<ConstantInt>(G);
  if (N == 3 && CG && isLoadFrom(I[0], PIV)) {
    auto *Test = dyn_cast<ICmpInst>(I[1]);
    auto *C = Test ? dyn_cast<ConstantInt>(Test->getOperand(1)) : nullptr;
    auto *Br = dyn_cast<BranchInst>(I[2]);
    if (!Test || Test->getOperand(0) != I[0] || !C || !Br ||
        !Br->isConditional() || Br->getCondition() != Test ||
        Br->getSuccessor(0) == Br->getSuccessor(1))
      return NotLE;
    ICmpInst::Predicate LE = B.Signed ? ICmpInst::ICMP_SLE : ICmpInst::ICMP_ULE;
    ICmpInst::Predicate LT = B.Signed ? ICmpInst::ICMP_SLT : ICmpInst::ICMP_ULT;
    bool OK = (Test->getPredicate() == LE && C->getValue() == CG->getValue()) ||
              (Test->getPredicate() == LT && !CG->isMaxValue(B.Signed) &&
               C->getValue() == CG->getValue() + 1);
    if (!OK)
      return NotLE;
    Body = Br->getSuccessor(0);
    return std::nullopt;
  }
  if (N != 4 && N != 5)
    return NotLE;
  bool PlusOne = N == 5;
  // The bound is UB, or (distribute parallel for) the loop's own bound G.
  if (!isLoadFrom(I[0], PIV) ||
      !(isLoadFrom(I[1], B.PUB) || (G && sameBound(I[1], G))))
    return NotLE;
  auto *Test = dyn_cast<ICmpInst>(I[N - 2]);
  if (!Test || Test->getOperand(0) != I[0])
    return NotLE;
  if (PlusOne) {
    auto *Add = dyn_cast<BinaryOperator>(I[2]);
    auto *One = Add ? dyn_cast<ConstantInt>(Add->getOperand(1)) : nullptr;
    if (!Add || Add->getOpcode() != Instruction::Add ||
        Add->getOperand(0) != I[1] || !One || !One->isOne() ||
        Test->getPredicate() !=
            (B.Signed ? ICmpInst::ICMP_SLT : ICmpInst::ICMP_ULT) ||
        Test->getOperand(1) != Add)
      return Rejection{"the chunk test is not iv < ub + 1"};
  } else if (Test->getPredicate() !=
                 (B.Signed ? ICmpInst::ICMP_SLE : ICmpInst::ICMP_ULE) ||
             Test->getOperand(1) != I[1]) {
    return NotLE;
  }
  auto *Br = dyn_cast<BranchInst>(I[N - 1]);
  if (!Br || !Br->isConditional() || Br->getCondition() != Test)
    return Rejection{"the chunk test does not guard the chunk"};
  if (Br->getSuccessor(0) == Br->getSuccessor(1))
    return Rejection{"the chunk test does not guard the chunk"};
  Body = Br->getSuccessor(0);
  return std::nullopt;
}

/// The static chunked loop OpenMPIRBuilder emits (Clang >= 19 with
/// -fopenmp-enable-irbuilder, for a `for` outside a combined construct):
/// it reads the runtime's first chunk once and walks the chunks with its
/// own counters instead of LB/UB:
///   init(..., &LB, &UB, &ST, 1, N); lb = LB; ub = UB; range = ub + 1 - lb;
///   st = ST; for (k = 0; k < dispatch trips; k++) {
///     start = k * st + lb;
///     tc = start + range >= count ? count - start : range;
///     for (j = 0; j < tc; j++) body(start + j); }
/// The chunk is [start, start + tc - 1]; the report goes right after tc.
std::optional<Rejection> matchIRBuilderLoop(CallInst *CI, const Bounds &B,
                                            bool Chunked, DominatorTree &DT,
                                            StaticLoop &L) {
  // The reads of the runtime's answer, right after the call (the stride
  // only for a loop over chunks).
  LoadInst *LdLB = nullptr, *LdUB = nullptr, *LdST = nullptr;
  StoreInst *InitUB = nullptr;
  std::optional<Rejection> R = checkBoundUses(
      CI, B, [&](AllocaInst *A, Instruction *I) -> std::optional<Rejection> {
        if (auto *S = dyn_cast<StoreInst>(I)) {
          if (S->getPointerOperand() == A && !S->isVolatile() &&
              S->getParent() == CI->getParent() && S->comesBefore(CI)) {
            if (A == B.PUB && (!InitUB || InitUB->comesBefore(S)))
              InitUB = S;
            return std::nullopt;
          }
          return Rejection{"a loop bound is written after the runtime call"};
        }
        auto *Ld = dyn_cast<LoadInst>(I);
        LoadInst *&Slot = A == B.PLB ? LdLB : A == B.PUB ? LdUB : LdST;
        if (!Ld || Ld->isVolatile() || Ld->getParent() != CI->getParent() ||
            !CI->comesBefore(Ld) || Slot)
          return Rejection{
              "the runtime's chunk is not read once after the call"};
        Slot = Ld;
        return std::nullopt;
      });
  if (R)
    return R;
  if (!LdLB || !LdUB || (Chunked && !LdST))
    return Rejection{"the runtime's chunk is not read once after the call"};
  using namespace PatternMatch;
  if (!Chunked) {
    // schedule(static): one range, tc = (ub - lb) + 1 iterations from lb;
    // the loop's last iteration is the upper bound set before the call.
    for (User *U : LdUB->users())
      for (User *TC : U->users())
        if (InitUB && match(TC, m_Add(m_Sub(m_Specific(LdUB), m_Specific(LdLB)),
                                      m_One()))) {
          L.Shape = grainchunk::LoopShape::IRBuilderRange;
          L.RangeCount = TC;
          L.ReportAt = cast<Instruction>(TC)->getNextNode();
          L.Lower = LdLB;
          L.Upper = LdUB;
          L.LastIter = InitUB->getValueOperand();
          return std::nullopt;
        }
    return Rejection{"the chunk size is not computed from the runtime's chunk"};
  }
  // range = (ub + 1) - lb
  Value *Range = nullptr;
  for (User *U : LdLB->users())
    if (match(U, m_Sub(m_Add(m_Specific(LdUB), m_One()), m_Specific(LdLB))))
      Range = U;
  if (!Range)
    return Rejection{"the chunk size is not computed from the runtime's chunk"};
  // start = k * st + lb, with k the dispatch loop's counter (a phi); the
  // chunk's trip count select(start + range >= count, count - start, range).
  SelectInst *TC = nullptr;
  Value *Start = nullptr, *Count = nullptr;
  PHINode *DispatchIV = nullptr;
  for (User *U : LdLB->users()) {
    Value *K = nullptr;
    if (!match(U, m_c_Add(m_Mul(m_Value(K), m_Specific(LdST)),
                          m_Specific(LdLB))) ||
        !isa<PHINode>(K))
      continue;
    for (User *EndU : U->users())
      for (User *CmpU : EndU->users())
        for (User *SelU : CmpU->users()) {
          Value *Cond = nullptr, *Cnt = nullptr;
          auto *Cmp = dyn_cast<ICmpInst>(CmpU);
          if (!Cmp || Cmp->getPredicate() != ICmpInst::ICMP_UGE ||
              !match(Cmp->getOperand(0),
                     m_Add(m_Specific(U), m_Specific(Range))) ||
              !match(Cmp->getOperand(1), m_Value(Cnt)) ||
              !match(SelU, m_Select(m_Value(Cond),
                                    m_Sub(m_Specific(Cnt), m_Specific(U)),
                                    m_Specific(Range))) ||
              Cond != Cmp)
            continue;
          if (TC && TC != SelU)
            return Rejection{"the chunk's trip count is computed twice"};
          TC = cast<SelectInst>(SelU);
          Start = U;
          Count = Cnt;
          DispatchIV = cast<PHINode>(K);
        }
  }
  if (!TC)
    return Rejection{
        "the static init call is not followed by a jump to the loop"};
  // The chunk ends where the loop over chunks steps its counter: the latch,
  // `k.next = k + 1; br header`, the header's only other predecessor.
  BasicBlock *Header = DispatchIV->getParent();
  BasicBlock *Latch = nullptr;
  unsigned NumPreds = 0;
  for (BasicBlock *P : predecessors(Header)) {
    ++NumPreds;
    Value *In = DispatchIV->getIncomingValueForBlock(P);
    if (match(In, m_Add(m_Specific(DispatchIV), m_One())))
      Latch = P;
  }
  auto *LBr = Latch ? dyn_cast<BranchInst>(Latch->getTerminator()) : nullptr;
  if (NumPreds != 2 || DispatchIV->getNumIncomingValues() != 2 || !LBr ||
      LBr->isConditional() || Latch == TC->getParent() ||
      !DT.dominates(TC->getParent(), Latch))
    return Rejection{
        "the loop over chunks has no latch that every chunk ends in"};
  L.Shape = grainchunk::LoopShape::IRBuilderChunkLoop;
  L.EndAt = &*Latch->getFirstInsertionPt();
  L.ReportAt = TC->getNextNode();
  L.Lower = Start;
  L.TripCount = TC;
  L.Count = Count;
  return std::nullopt;
}

/// The checks every shape ends with: \p CI's loc and gtid and the values
/// \p AtChunk are available where the chunk starts (and ends), and a chunk
/// does not end in the block it starts in. Then records \p CI in \p L.
std::optional<Rejection> finishMatch(CallInst *CI, StringRef Suffix,
                                     bool Chunked, ArrayRef<Value *> AtChunk,
                                     DominatorTree &DT, StaticLoop &L) {
  SmallVector<Value *, 4> Used = {CI->getArgOperand(0), CI->getArgOperand(1)};
  Used.append(AtChunk.begin(), AtChunk.end());
  for (Value *V : Used)
    if (auto *I = dyn_cast_or_null<Instruction>(V))
      if (!DT.dominates(I, L.ReportAt) ||
          (L.EndAt && !DT.dominates(I, L.EndAt)))
        return Rejection{
            "the loop's location or thread id is not available in the "
            "chunk"};
  if (L.EndAt && L.EndAt->getParent() == L.ReportAt->getParent())
    return Rejection{"a chunk starts and ends in the same block"};
  L.Init = CI;
  L.Suffix = Suffix;
  L.Chunked = Chunked;
  return std::nullopt;
}

/// The init call a loop starts with, and what every shape reads from it.
struct InitCall {
  CallInst *CI = nullptr;
  StringRef Suffix;
  bool Chunked = true;
  Bounds B;
  BasicBlock *BB = nullptr;       // the call's block
  const BranchInst *Br = nullptr; // the instruction after the call, if a
                                  // branch
};

/// What Clang's own shapes leave for the checks they share
/// (checkClangBounds).
struct ClangLoop {
  ChunkHeader H;
  BasicBlock *Body = nullptr;     // where a chunk's iterations start
  BasicBlock *Latch = nullptr;    // loops over chunks: where they step LB/UB
  StoreInst *ExtraStUB = nullptr; // the distribute loop latch's clamp
};

/// The init call's arguments: an increment of 1, and LB/UB/ST in distinct
/// local variables of the iteration variable's type. Fills \p S.
std::optional<Rejection> matchInitCall(CallInst *CI, StringRef Suffix,
                                       bool Chunked, InitCall &S) {
  if (CI->arg_size() != 9)
    return Rejection{"unexpected number of arguments to the static init call"};
  Bounds &B = S.B;
  B.Signed = Suffix == "4" || Suffix == "8";
  Type *IVTy = CI->getArgOperand(7)->getType();
  auto *Incr = dyn_cast<ConstantInt>(CI->getArgOperand(7));
  if (!Incr || !Incr->isOne())
    return Rejection{"the loop increment passed to the runtime is not 1"};
  auto *PLast = dyn_cast<AllocaInst>(CI->getArgOperand(3));
  B.PLB = dyn_cast<AllocaInst>(CI->getArgOperand(4));
  B.PUB = dyn_cast<AllocaInst>(CI->getArgOperand(5));
  B.PST = dyn_cast<AllocaInst>(CI->getArgOperand(6));
  if (!PLast || !B.PLB || !B.PUB || !B.PST || B.PLB == B.PUB ||
      B.PLB == B.PST || B.PUB == B.PST)
    return Rejection{"the loop bounds are not in distinct local variables"};
  for (AllocaInst *A : {B.PLB, B.PUB, B.PST})
    if (A->getAllocatedType() != IVTy || A->isArrayAllocation())
      return Rejection{
          "the loop bounds do not have the iteration variable's type"};
  S.CI = CI;
  S.Suffix = Suffix;
  S.Chunked = Chunked;
  S.BB = CI->getParent();
  S.Br = dyn_cast_or_null<BranchInst>(nextReal(CI));
  return std::nullopt;
}

/// The shape the code after the init call can only be, from its first
/// instructions; its matcher then proves it or says why not.
enum class Candidate {
  DistributeLoop,
  OneIterationWalk,
  IRBuilder, // either of OpenMPIRBuilder's shapes
  DispatchLoop,
  SingleRange
};

Candidate candidateShape(const InitCall &S, bool CombinedDist) {
  // OpenMPIRBuilder reads the runtime's LB and UB right after the call (and
  // uses unsigned iteration variables); Clang's own code jumps to its loop.
  const Instruction *Next = nextReal(S.CI);
  const Instruction *Next2 = Next ? nextReal(Next) : nullptr;
  bool IRBuilderLoop = !S.B.Signed && !CombinedDist && Next && Next2 &&
                       isLoadFrom(Next, S.B.PLB) && isLoadFrom(Next2, S.B.PUB);
  if (S.Chunked && CombinedDist && !(S.Br && S.Br->isUnconditional()))
    return Candidate::DistributeLoop;
  if (S.Chunked && !S.Br && !IRBuilderLoop && isOne(S.CI->getArgOperand(8)))
    return Candidate::OneIterationWalk;
  if (IRBuilderLoop)
    return Candidate::IRBuilder;
  return S.Chunked ? Candidate::DispatchLoop : Candidate::SingleRange;
}

/// The clamp right after the init call, then a jump (\p ToTest) to the
/// chunk test (matchHeaderAfterInit, matchChunkTest; \p TestAgainstG: the
/// test may compare with the loop's own bound G). Fills C.H and C.Body.
std::optional<Rejection> matchClampThenTest(const InitCall &S,
                                            bool TestAgainstG, ClangLoop &C,
                                            BranchInst *&ToTest) {
  if (std::optional<Rejection> R = matchHeaderAfterInit(S.CI, S.B, C.H, ToTest))
    return R;
  return matchChunkTest(realInstructions(*ToTest->getSuccessor(0)), C.H.PIV,
                        S.B, C.Body, TestAgainstG ? C.H.G : nullptr);
}

/// The distribute loop of `distribute parallel for dist_schedule(static,
/// N)`: UB = min(UB, G); IV = LB; then while (IV <= G) { body over [LB, UB]
/// (it forks the inner loop); IV += ST; LB += ST; UB += ST; UB = min(UB, G);
/// IV = LB; }. Each run of the body is one chunk, whose bounds are in LB/UB
/// when the body starts.
std::optional<Rejection> matchDistributeLoop(const InitCall &S,
                                             DominatorTree &DT, ClangLoop &C,
                                             StaticLoop &L) {
  BranchInst *ToTest = nullptr;
  if (std::optional<Rejection> R = matchClampThenTest(S, true, C, ToTest))
    return R;
  BasicBlock *Cond = ToTest->getSuccessor(0);
  if (C.Body->getSinglePredecessor() != Cond || C.Body->isEHPad() ||
      isa<PHINode>(C.Body->front()))
    return Rejection{"the chunk body has more than one entry"};
  BasicBlock *M2 = nullptr;
  unsigned NumPreds = 0;
  for (BasicBlock *P : predecessors(Cond)) {
    ++NumPreds;
    if (P != C.H.M)
      M2 = P;
  }
  if (NumPreds != 2 || !M2)
    return Rejection{"the distribute loop header does not have the expected "
                     "predecessors"};
  // The latch ends in the same clamp as the header: find it from M2.
  auto *Phi2 = M2->empty() ? nullptr : dyn_cast<PHINode>(&M2->front());
  BasicBlock *T2 = Phi2 && Phi2->getNumIncomingValues() == 2
                       ? Phi2->getIncomingBlock(0)
                       : nullptr;
  C.Latch = T2 ? T2->getSinglePredecessor() : nullptr;
  ChunkHeader H2;
  if (!C.Latch || matchHeader(C.Latch, S.B, H2) || H2.M != M2 ||
      H2.PIV != C.H.PIV || H2.Rest.size() != 1 ||
      !isa<BranchInst>(H2.Rest[0]) ||
      cast<BranchInst>(H2.Rest[0])->isConditional() ||
      cast<BranchInst>(H2.Rest[0])->getSuccessor(0) != Cond ||
      !sameBound(H2.G, C.H.G))
    return Rejection{"the distribute loop latch does not re-clamp the bounds"};
  C.ExtraStUB = H2.StUB;
  if (!DT.dominates(Cond, C.Latch) || !DT.dominates(S.BB, Cond) ||
      !DT.dominates(C.Body, C.Latch))
    return Rejection{"the dispatch loop is not a single-entry loop"};
  // Every run of the body ends in the latch, which leads only back to the
  // test: the chunk ends at the top of the latch, before the step.
  L.Shape = LoopShape::DistributeLoop;
  L.ReportAt = &*C.Body->getFirstInsertionPt();
  L.EndAt = &*C.Latch->getFirstInsertionPt();
  L.LoadBounds = true;
  return std::nullopt;
}

/// `distribute parallel for schedule(static, 1)`: chunks of one iteration,
/// walked without a loop over chunks: IV = LB; while (IV <= bound) {
/// body(IV); IV += ST; }. Each run of the body is one chunk.
std::optional<Rejection> matchOneIterationWalk(const InitCall &S,
                                               DominatorTree &DT, ClangLoop &C,
                                               StaticLoop &L) {
  const Bounds &B = S.B;
  SmallVector<Instruction *, 4> Init;
  for (Instruction *I = S.CI->getNextNode(); I; I = I->getNextNode())
    if (!isa<DbgInfoIntrinsic>(I))
      Init.push_back(I);
  auto *LdLB = Init.size() == 3 ? dyn_cast<LoadInst>(Init[0]) : nullptr;
  auto *StIV = Init.size() == 3 ? dyn_cast<StoreInst>(Init[1]) : nullptr;
  auto *ToCond = Init.size() == 3 ? dyn_cast<BranchInst>(Init[2]) : nullptr;
  if (!LdLB || LdLB->getPointerOperand() != B.PLB || !StIV ||
      StIV->getValueOperand() != LdLB ||
      !isa<AllocaInst>(StIV->getPointerOperand()) || !ToCond ||
      ToCond->isConditional())
    return Rejection{
        "the static init call is not followed by a jump to the loop"};
  auto *PIV = cast<AllocaInst>(StIV->getPointerOperand());
  if (PIV == B.PLB || PIV == B.PUB || PIV == B.PST)
    return Rejection{"the iteration variable is not set to the lower bound"};
  BasicBlock *Cond = ToCond->getSuccessor(0);
  auto CondI = realInstructions(*Cond);
  auto *CondBr = dyn_cast<BranchInst>(Cond->getTerminator());
  auto *Test = CondBr && CondBr->isConditional()
                   ? dyn_cast<ICmpInst>(CondBr->getCondition())
                   : nullptr;
  Value *TestIV = Test ? Test->getOperand(0) : nullptr;
  if (auto *Cast = dyn_cast_or_null<CastInst>(TestIV))
    TestIV = Cast->getOperand(0);
  if (CondI.empty() || !isLoadFrom(CondI[0], PIV) || !Test ||
      TestIV != CondI[0] || !Test->isRelational() ||
      CondBr->getSuccessor(0) == CondBr->getSuccessor(1))
    return Rejection{"the chunk test is not iv <= ub"};
  BasicBlock *Body = C.Body = CondBr->getSuccessor(0);
  if (Body->getSinglePredecessor() != Cond || Body->isEHPad() ||
      isa<PHINode>(Body->front()))
    return Rejection{"the chunk body has more than one entry"};
  // The only writes to IV: IV = LB before the loop, IV += ST in the latch.
  BasicBlock *IVLatch = nullptr;
  for (User *U : PIV->users()) {
    auto *I = dyn_cast<Instruction>(U);
    if (!I)
      return Rejection{"the iteration variable escapes"};
    auto *St = dyn_cast<StoreInst>(I);
    if (St == StIV || isa<LoadInst>(I) || I->isLifetimeStartOrEnd() ||
        grainchunk::isLifetimeCast(I))
      continue;
    auto InIVLatch = [&](const BasicBlock *BB) {
      return St && DT.dominates(Body, BB) && DT.dominates(BB, St->getParent());
    };
    if (St && St->getPointerOperand() == PIV && !IVLatch &&
        isStepOf(St->getValueOperand(), PIV, B.PST, InIVLatch)) {
      IVLatch = St->getParent();
      continue;
    }
    return Rejection{"the iteration variable is written in the loop"};
  }
  auto *LBr =
      IVLatch ? dyn_cast<BranchInst>(IVLatch->getTerminator()) : nullptr;
  if (!LBr || LBr->isConditional() || LBr->getSuccessor(0) != Cond ||
      !DT.dominates(Body, IVLatch) || !DT.dominates(S.BB, Cond))
    return Rejection{"the loop latch does not advance the iteration variable "
                     "by the stride"};
  // The test's predecessors: the init block and the latch, so every run of
  // the body (one chunk) ends in the latch.
  unsigned NumPreds = 0;
  for (BasicBlock *P : predecessors(Cond))
    if (++NumPreds, P != S.BB && P != IVLatch)
      return Rejection{"the loop test has another predecessor than the latch"};
  if (NumPreds != 2)
    return Rejection{"the loop test has another predecessor than the latch"};
  C.H.PIV = PIV;
  L.Shape = LoopShape::OneIterationWalk;
  L.ReportAt = &*Body->getFirstInsertionPt();
  L.EndAt = &*IVLatch->getFirstInsertionPt();
  L.OneIterIV = PIV;
  return std::nullopt;
}

/// Clang's loop over chunks (schedule(static, N), and dist_schedule(static,
/// N) in `teams distribute`): init block -> header (clamp, IV = LB, test)
/// -> body -> latch (LB += ST; UB += ST) -> header.
std::optional<Rejection> matchDispatchLoop(const InitCall &S, DominatorTree &DT,
                                           ClangLoop &C, StaticLoop &L) {
  if (!S.Br || S.Br->isConditional())
    return Rejection{
        "the static init call is not followed by a jump to the loop"};
  BasicBlock *Cond = S.Br->getSuccessor(0);
  // Header predecessors: the init block and the latch.
  unsigned NumPreds = 0;
  for (BasicBlock *P : predecessors(Cond)) {
    ++NumPreds;
    if (P != S.BB)
      C.Latch = P;
  }
  if (NumPreds != 2 || !C.Latch || C.Latch == Cond)
    return Rejection{"the dispatch loop header does not have the expected "
                     "predecessors"};
  if (std::optional<Rejection> R = matchHeader(Cond, S.B, C.H))
    return R;
  if (std::optional<Rejection> R =
          matchChunkTest(C.H.Rest, C.H.PIV, S.B, C.Body))
    return R;
  if (C.Body->getSinglePredecessor() != C.H.M || C.Body->isEHPad() ||
      isa<PHINode>(C.Body->front()))
    return Rejection{"the chunk body has more than one entry"};
  // Latch: LB = LB + ST; UB = UB + ST; br Cond.
  auto *LBr = dyn_cast<BranchInst>(C.Latch->getTerminator());
  if (!LBr || LBr->isConditional() || LBr->getSuccessor(0) != Cond)
    return Rejection{"the dispatch loop latch is not in the expected form"};
  if (!DT.dominates(Cond, C.Latch) || !DT.dominates(S.BB, Cond) ||
      !DT.dominates(C.H.M, C.Body))
    return Rejection{"the dispatch loop is not a single-entry loop"};
  // The latch is the header's only other predecessor and leads only to it:
  // if every chunk (every run of the body) ends in it, the chunk-end call at
  // its top follows each chunk's iterations exactly once.
  if (!DT.dominates(C.Body, C.Latch))
    return Rejection{"the dispatch loop latch is reached without a chunk"};
  L.Shape = LoopShape::DispatchLoop;
  L.ReportAt = &*C.Body->getFirstInsertionPt();
  L.EndAt = &*C.Latch->getFirstInsertionPt();
  return std::nullopt;
}

/// schedule(static): the clamp follows the call in the same block, then one
/// run of the inner loop over [LB, UB].
std::optional<Rejection> matchSingleRange(const InitCall &S, ClangLoop &C,
                                          StaticLoop &L) {
  BranchInst *ToTest = nullptr;
  if (std::optional<Rejection> R = matchClampThenTest(S, false, C, ToTest))
    return R;
  L.Shape = LoopShape::SingleRange;
  L.ReportAt = ToTest;
  return std::nullopt;
}

/// What Clang's shapes must all show once matched: every write to LB/UB/ST
/// is one the shape explains or an initial store before the init call, no
/// pointer to them escapes, and the bounds start where the shape's loop
/// does and hold one value throughout. Then records the loop in \p L.
std::optional<Rejection> checkClangBounds(const InitCall &S, const ClangLoop &C,
                                          DominatorTree &DT, StaticLoop &L) {
  const Bounds &B = S.B;
  const ChunkHeader &H = C.H;
  StoreInst *InitLB = nullptr, *InitUB = nullptr, *FirstUB = nullptr,
            *StLB = nullptr, *StUBInc = nullptr;
  std::optional<Rejection> R = checkBoundUses(
      S.CI, B, [&](AllocaInst *A, Instruction *I) -> std::optional<Rejection> {
        if (auto *St = dyn_cast<StoreInst>(I)) {
          if (St->getPointerOperand() != A || St->isVolatile())
            return Rejection{"a loop bound escapes"};
          if (precedesInit(St, S.CI, DT)) {
            // The last store before the call is the bound the runtime reads
            // (of two such stores, the later is dominated by the earlier).
            StoreInst *&Init = A == B.PLB ? InitLB : InitUB;
            if (A != B.PST && (!Init || DT.dominates(Init, St)))
              Init = St;
            if (A == B.PUB && (!FirstUB || DT.dominates(St, FirstUB)))
              FirstUB = St;
            return std::nullopt;
          }
          if (St == H.StUB || (C.ExtraStUB && St == C.ExtraStUB))
            return std::nullopt;
          // The latch: the blocks from the end of the chunk to the jump back
          // (one block, or several where Clang checks the step for
          // overflow).
          auto InLatch = [&](const BasicBlock *BB) {
            return BB == C.Latch || (C.Body && DT.dominates(C.Body, BB) &&
                                     DT.dominates(BB, C.Latch));
          };
          if (C.Latch && InLatch(St->getParent()) && A != B.PST &&
              isStepOf(St->getValueOperand(), A, B.PST, InLatch)) {
            if ((A == B.PLB ? StLB : StUBInc) != nullptr)
              return Rejection{"a loop bound is updated twice in the latch"};
            (A == B.PLB ? StLB : StUBInc) = St;
            return std::nullopt;
          }
          return Rejection{"a loop bound is written outside the dispatch loop"};
        }
        // Reads (the chunk loop tests iv <= ub) cannot change the bounds.
        auto *Ld = dyn_cast<LoadInst>(I);
        if (!Ld || Ld->isVolatile() || Ld->getPointerOperand() != A)
          return Rejection{"a loop bound escapes"};
        return std::nullopt;
      });
  if (R)
    return R;
  if (S.Chunked && L.Shape != LoopShape::OneIterationWalk &&
      (!StLB || !StUBInc))
    return Rejection{"the dispatch loop latch does not advance both bounds by "
                     "the stride"};
  // The loop starts at 0, or, inside `distribute parallel for`, at the
  // bounds of the enclosing distribute chunk, which also bound its chunks.
  auto *Zero =
      InitLB ? dyn_cast<ConstantInt>(InitLB->getValueOperand()) : nullptr;
  if (!InitLB ||
      (!(Zero && Zero->isZero()) && !isBoundRead(InitLB->getValueOperand())))
    return Rejection{
        "the lower bound does not start at 0 or at a captured value"};
  // Inside `distribute parallel for`, UB starts at the distribute chunk's
  // upper bound (for schedule(static), Clang still clamps to the whole
  // loop's); otherwise at the bound it is clamped to.
  bool FromChunk = !(Zero && Zero->isZero());
  if (L.Shape == LoopShape::OneIterationWalk && !FromChunk)
    return Rejection{"the lower bound does not start at a distribute chunk's"};
  if (!InitUB || !(FromChunk ? isBoundRead(InitUB->getValueOperand())
                             : sameBound(InitUB->getValueOperand(), H.G)))
    return Rejection{
        "the upper bound does not start at the loop's global bound"};
  // `last` means the whole loop's last iteration. Inside `distribute
  // parallel for`, Clang first sets UB to it and then to the distribute
  // chunk's bound: take the first store.
  Value *LastIter = H.G;
  if (FromChunk) {
    Value *V = FirstUB ? FirstUB->getValueOperand() : nullptr;
    if (!V || V == InitUB->getValueOperand() ||
        !(isa<ConstantInt>(V) || isBoundRead(V)))
      return Rejection{"the loop's last iteration is not known inside the "
                       "distribute chunk"};
    LastIter = V;
  }

  // The bounds the runtime and the loop read hold one value throughout.
  for (Value *V : {InitUB->getValueOperand(), H.G, LastIter})
    if (V)
      if (std::optional<Rejection> R = checkCapturedBound(V, DT))
        return R;

  // The rewrite uses G where the chunk starts.
  if (std::optional<Rejection> R =
          finishMatch(S.CI, S.Suffix, S.Chunked, {H.G, LastIter}, DT, L))
    return R;
  L.Lower = H.Lower;
  L.Upper = H.Phi;
  L.LastIter = LastIter;
  return std::nullopt;
}

} // namespace

namespace grainchunk {

std::optional<Rejection> matchStaticLoop(CallInst *CI, StringRef Suffix,
                                         bool Chunked, bool CombinedDist,
                                         DominatorTree &DT, StaticLoop &L) {
  InitCall S;
  if (std::optional<Rejection> R = matchInitCall(CI, Suffix, Chunked, S))
    return R;
  ClangLoop C;
  std::optional<Rejection> R;
  switch (candidateShape(S, CombinedDist)) {
  case Candidate::DistributeLoop:
    R = matchDistributeLoop(S, DT, C, L);
    break;
  case Candidate::OneIterationWalk:
    R = matchOneIterationWalk(S, DT, C, L);
    break;
  case Candidate::IRBuilder:
    // OpenMPIRBuilder's loop: everything it needs is checked there.
    if ((R = matchIRBuilderLoop(CI, S.B, Chunked, DT, L)))
      return R;
    return finishMatch(CI, Suffix, Chunked, {L.Count, L.LastIter}, DT, L);
  case Candidate::DispatchLoop:
    R = matchDispatchLoop(S, DT, C, L);
    break;
  case Candidate::SingleRange:
    R = matchSingleRange(S, C, L);
    break;
  }
  if (R)
    return R;
  return checkClangBounds(S, C, DT, L);
}

} // namespace grainchunk
