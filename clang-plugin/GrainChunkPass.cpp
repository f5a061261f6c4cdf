//===- GrainChunkPass.cpp - Per-chunk OMPT events for static loops --------===//
//
// WHAT IT DOES
//   For `#pragma omp for schedule(static, N)` Clang emits a block-cyclic loop:
//   `__kmpc_for_static_init_*` gives each thread its first chunk and a stride,
//   and the compiled code steps through the later chunks by itself, so the
//   OpenMP runtime (and any OMPT tool) never hears of them. This pass finds
//   that loop by its structure and rewrites it as in Langdal's thesis
//   (Listing 3.5):
//
//     flags = grainchunk.ask(loc);   // once per loop: an out-of-line
//         // `&__kmpc_should_callback_per_chunk ? it(loc) : 0` (ChunkCost.cpp)
//     __kmpc_for_static_init_X(loc, gtid, 33, &last, &lb, &ub, &st, 1, N);
//     for (;;) {                                   // omp.dispatch.cond
//       ub = min(ub, GlobalUB); iv = lb;
//       if (!(iv <= ub)) break;
//       if (flags & 1)              // one branch per chunk, marked unlikely
//         __kmpc_for_static_chunk_X(loc, gtid, ub == GlobalUB, lb, ub);
//         // (convergent: no pass clones the loop around it)
//       ...the chunk's iterations...
//       lb += st; ub += st;
//     }
//
//   The dispatch loop then works on private copies of lb/ub taken right
//   after the init call, so they can stay in registers (ChunkCost.cpp).
//   The runtime entry points are declared extern_weak: a program built with
//   the plugin links and runs without the grainchunk runtime and then behaves
//   exactly like a stock build. Anything that is not exactly Clang's static
//   chunked dispatch loop is left untouched, with a missed-remark saying why.
//
// HOW TO RUN IT
//   clang -fplugin=libgrainchunk.so -fopenmp -Rpass=grainchunk \
//         -Rpass-missed=grainchunk -c app.c
//   opt -load-pass-plugin=libGrainChunkPass.so -passes=grainchunk -S in.ll
//
//===----------------------------------------------------------------------===//

#include "GrainChunkPass.h"
#include "ChunkCost.h"

#include "llvm/ADT/Any.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <memory>
#include <string>

using namespace llvm;

#define DEBUG_TYPE "grainchunk"

namespace {

constexpr unsigned SchedStaticChunked = 33;   // kmp_sch_static_chunked
constexpr unsigned SchedStatic = 34;          // kmp_sch_static
constexpr unsigned SchedSimdStatic = 45;      // kmp_sch_static_balanced_chunked
constexpr unsigned SchedModifiers = 3u << 29; // (non)monotonic bits
constexpr int64_t IdentWorkSections = 0x400;  // OMP_IDENT_WORK_SECTIONS
constexpr unsigned SchedDistChunked = 91;     // kmp_distribute_static_chunked
constexpr unsigned SchedDist = 92;            // kmp_distribute_static

constexpr const char *ShouldCallbackName = "__kmpc_should_callback_per_chunk";
constexpr const char *DoneMD = "grainchunk";

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
  StringRef Suffix; // "4", "4u", "8" or "8u"
};

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

/// Everything the rewrite needs about one recognized loop.
struct StaticLoop {
  CallInst *Init = nullptr;
  StringRef Suffix;
  bool Chunked = true;             // schedule(static, N): a loop over chunks
  bool WalkOneThread = true;       // a one-thread team walks chunks of size N
  Instruction *ReportAt = nullptr; // the per-chunk call goes before this
  bool LoadBounds = false;    // read the chunk's bounds from LB/UB at ReportAt
  Value *OneIterIV = nullptr; // chunks of one iteration: [IV, IV]
  Value *Lower = nullptr;     // chunk lower bound (load of LB in the header)
  Value *Upper = nullptr;     // clamped chunk upper bound
  Value *LastIter = nullptr;  // the loop's last logical iteration
  // OpenMPIRBuilder's chunk loop: the chunk has TripCount iterations from
  // Lower, and the loop Count (LastIter = Count - 1, made at ReportAt).
  Value *TripCount = nullptr;
  Value *Count = nullptr;
};

/// The bounds the runtime call fills in, and the loop they belong to.
struct Bounds {
  AllocaInst *PLB = nullptr, *PUB = nullptr, *PST = nullptr;
  bool Signed = false;
};

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

std::string matchHeader(BasicBlock *Cond, const Bounds &B, ChunkHeader &H) {
  auto *CondBr = dyn_cast<BranchInst>(Cond->getTerminator());
  if (!CondBr || !CondBr->isConditional())
    return "the dispatch loop header does not end in the bound clamp";
  auto *Clamp = dyn_cast<ICmpInst>(CondBr->getCondition());
  if (!Clamp || Clamp->getParent() != Cond ||
      Clamp->getPredicate() !=
          (B.Signed ? ICmpInst::ICMP_SGT : ICmpInst::ICMP_UGT) ||
      !isLoadFrom(Clamp->getOperand(0), B.PUB))
    return "the upper bound is not clamped to the loop's global bound";
  Value *G = Clamp->getOperand(1);
  if (!isa<ConstantInt>(G) && !isBoundRead(G))
    return "the loop's global upper bound is neither a constant nor a "
           "captured value";
  if (isLoadFrom(G, B.PLB) || isLoadFrom(G, B.PUB) || isLoadFrom(G, B.PST))
    return "the loop's global upper bound aliases the chunk bounds";

  BasicBlock *T = CondBr->getSuccessor(0), *F = CondBr->getSuccessor(1);
  if (T == F || T->getSinglePredecessor() != Cond ||
      F->getSinglePredecessor() != Cond)
    return "the bound clamp is not a two-way branch";
  auto *TBr = dyn_cast<BranchInst>(T->getTerminator());
  auto *FBr = dyn_cast<BranchInst>(F->getTerminator());
  if (!TBr || !FBr || TBr->isConditional() || FBr->isConditional() ||
      TBr->getSuccessor(0) != FBr->getSuccessor(0))
    return "the bound clamp does not rejoin";
  BasicBlock *M = TBr->getSuccessor(0);
  if (M == Cond || M == T || M == F)
    return "the bound clamp does not rejoin";
  auto MI = realInstructions(*M);
  if (MI.size() < 5)
    return "the chunk header is not in the expected form";
  auto *Phi = dyn_cast<PHINode>(MI[0]);
  if (!Phi || Phi->getNumIncomingValues() != 2 ||
      !sameBound(Phi->getIncomingValueForBlock(T), G) ||
      !isLoadFrom(Phi->getIncomingValueForBlock(F), B.PUB) ||
      cast<Instruction>(Phi->getIncomingValueForBlock(F))->getParent() != F)
    return "the clamped upper bound is not min(UB, global bound)";
  if (auto *TL = dyn_cast<Instruction>(Phi->getIncomingValueForBlock(T)))
    if (TL != G && TL->getParent() != T)
      return "the clamped upper bound is not min(UB, global bound)";
  auto *StUB = dyn_cast<StoreInst>(MI[1]);
  if (!StUB || StUB->getValueOperand() != Phi ||
      StUB->getPointerOperand() != B.PUB)
    return "the clamped upper bound is not stored back";
  auto *Lower = dyn_cast<LoadInst>(MI[2]);
  if (!Lower || Lower->getPointerOperand() != B.PLB)
    return "the chunk does not start at the lower bound";
  auto *StIV = dyn_cast<StoreInst>(MI[3]);
  if (!StIV || StIV->getValueOperand() != Lower ||
      !isa<AllocaInst>(StIV->getPointerOperand()))
    return "the iteration variable is not set to the lower bound";
  Value *PIV = StIV->getPointerOperand();
  if (PIV == B.PLB || PIV == B.PUB || PIV == B.PST)
    return "the iteration variable is not set to the lower bound";
  H.G = G;
  H.Phi = Phi;
  H.StUB = StUB;
  H.Lower = Lower;
  H.PIV = PIV;
  H.M = M;
  H.Rest.assign(MI.begin() + 4, MI.end());
  return "";
}

/// The header that follows the runtime call in its own block (schedule
/// (static), and the distribute loop of `distribute parallel for`): the
/// clamp of UB after the call, then IV = LB and a jump, returned in
/// \p ToTest, to the loop's test.
std::string matchHeaderAfterInit(CallInst *CI, const Bounds &B, ChunkHeader &H,
                                 BranchInst *&ToTest) {
  BasicBlock *InitBB = CI->getParent();
  std::string Why = matchHeader(InitBB, B, H);
  if (!Why.empty())
    return Why;
  auto *ClampLoad = cast<Instruction>(
      cast<ICmpInst>(cast<BranchInst>(InitBB->getTerminator())->getCondition())
          ->getOperand(0));
  if (!CI->comesBefore(ClampLoad))
    return "the upper bound is clamped before the runtime sets it";
  ToTest = H.Rest.size() == 1 ? dyn_cast<BranchInst>(H.Rest[0]) : nullptr;
  if (!ToTest || ToTest->isConditional())
    return "the chunk header is not in the expected form";
  return "";
}

/// Clang's test `iv <= ub` (or `iv < ub + 1`) and the branch it guards:
///   load IV; load UB; [add UB, 1]; icmp; br %c, Body, Exit
/// Returns the block entered when the test holds, or null with \p Why set.
BasicBlock *matchChunkTest(ArrayRef<Instruction *> I, Value *PIV,
                           const Bounds &B, std::string &Why,
                           const Value *G = nullptr) {
  Why = "the chunk test is not iv <= ub";
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
      return nullptr;
    ICmpInst::Predicate LE = B.Signed ? ICmpInst::ICMP_SLE : ICmpInst::ICMP_ULE;
    ICmpInst::Predicate LT = B.Signed ? ICmpInst::ICMP_SLT : ICmpInst::ICMP_ULT;
    bool OK = (Test->getPredicate() == LE && C->getValue() == CG->getValue()) ||
              (Test->getPredicate() == LT && !CG->isMaxValue(B.Signed) &&
               C->getValue() == CG->getValue() + 1);
    if (!OK)
      return nullptr;
    Why.clear();
    return Br->getSuccessor(0);
  }
  if (N != 4 && N != 5)
    return nullptr;
  bool PlusOne = N == 5;
  // The bound is UB, or (distribute parallel for) the loop's own bound G.
  if (!isLoadFrom(I[0], PIV) ||
      !(isLoadFrom(I[1], B.PUB) || (G && sameBound(I[1], G))))
    return nullptr;
  auto *Test = dyn_cast<ICmpInst>(I[N - 2]);
  if (!Test || Test->getOperand(0) != I[0])
    return nullptr;
  if (PlusOne) {
    auto *Add = dyn_cast<BinaryOperator>(I[2]);
    auto *One = Add ? dyn_cast<ConstantInt>(Add->getOperand(1)) : nullptr;
    if (!Add || Add->getOpcode() != Instruction::Add ||
        Add->getOperand(0) != I[1] || !One || !One->isOne() ||
        Test->getPredicate() !=
            (B.Signed ? ICmpInst::ICMP_SLT : ICmpInst::ICMP_ULT) ||
        Test->getOperand(1) != Add) {
      Why = "the chunk test is not iv < ub + 1";
      return nullptr;
    }
  } else if (Test->getPredicate() !=
                 (B.Signed ? ICmpInst::ICMP_SLE : ICmpInst::ICMP_ULE) ||
             Test->getOperand(1) != I[1]) {
    return nullptr;
  }
  auto *Br = dyn_cast<BranchInst>(I[N - 1]);
  if (!Br || !Br->isConditional() || Br->getCondition() != Test) {
    Why = "the chunk test does not guard the chunk";
    return nullptr;
  }
  BasicBlock *Body = Br->getSuccessor(0);
  if (Body == Br->getSuccessor(1)) {
    Why = "the chunk test does not guard the chunk";
    return nullptr;
  }
  Why.clear();
  return Body;
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
std::string matchIRBuilderLoop(CallInst *CI, const Bounds &B, bool Chunked,
                               StaticLoop &L) {
  // The reads of the runtime's answer, right after the call (the stride
  // only for a loop over chunks).
  LoadInst *LdLB = nullptr, *LdUB = nullptr, *LdST = nullptr;
  StoreInst *InitUB = nullptr;
  for (AllocaInst *A : {B.PLB, B.PUB, B.PST})
    for (User *U : A->users()) {
      auto *I = dyn_cast<Instruction>(U);
      if (!I)
        return "a loop bound escapes";
      if (I == CI || I->isLifetimeStartOrEnd() || grainchunk::isLifetimeCast(I))
        continue;
      if (auto *S = dyn_cast<StoreInst>(I)) {
        if (S->getPointerOperand() == A && !S->isVolatile() &&
            S->getParent() == CI->getParent() && S->comesBefore(CI)) {
          if (A == B.PUB && (!InitUB || InitUB->comesBefore(S)))
            InitUB = S;
          continue;
        }
        return "a loop bound is written after the runtime call";
      }
      auto *Ld = dyn_cast<LoadInst>(I);
      LoadInst *&Slot = A == B.PLB ? LdLB : A == B.PUB ? LdUB : LdST;
      if (!Ld || Ld->isVolatile() || Ld->getParent() != CI->getParent() ||
          !CI->comesBefore(Ld) || Slot)
        return "the runtime's chunk is not read once after the call";
      Slot = Ld;
    }
  if (!LdLB || !LdUB || (Chunked && !LdST))
    return "the runtime's chunk is not read once after the call";
  using namespace PatternMatch;
  if (!Chunked) {
    // schedule(static): one range, tc = (ub - lb) + 1 iterations from lb;
    // the loop's last iteration is the upper bound set before the call.
    for (User *U : LdUB->users())
      for (User *TC : U->users())
        if (InitUB && match(TC, m_Add(m_Sub(m_Specific(LdUB), m_Specific(LdLB)),
                                      m_One()))) {
          L.ReportAt = cast<Instruction>(TC)->getNextNode();
          L.Lower = LdLB;
          L.Upper = LdUB;
          L.LastIter = InitUB->getValueOperand();
          return "";
        }
    return "the chunk size is not computed from the runtime's chunk";
  }
  // range = (ub + 1) - lb
  Value *Range = nullptr;
  for (User *U : LdLB->users())
    if (match(U, m_Sub(m_Add(m_Specific(LdUB), m_One()), m_Specific(LdLB))))
      Range = U;
  if (!Range)
    return "the chunk size is not computed from the runtime's chunk";
  // start = k * st + lb, with k the dispatch loop's counter (a phi); the
  // chunk's trip count select(start + range >= count, count - start, range).
  SelectInst *TC = nullptr;
  Value *Start = nullptr, *Count = nullptr;
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
            return "the chunk's trip count is computed twice";
          TC = cast<SelectInst>(SelU);
          Start = U;
          Count = Cnt;
        }
  }
  if (!TC)
    return "the static init call is not followed by a jump to the loop";
  L.ReportAt = TC->getNextNode();
  L.Lower = Start;
  L.TripCount = TC;
  L.Count = Count;
  return "";
}

/// Checks that \p CI starts exactly one of Clang's static worksharing loops:
/// the dispatch loop over chunks of schedule(static, N) (\p Chunked), or the
/// single chunk of schedule(static). Returns an empty string on success,
/// else why the loop is not recognized.
std::string matchStaticLoop(CallInst *CI, StringRef Suffix, bool Chunked,
                            bool CombinedDist, DominatorTree &DT,
                            StaticLoop &L) {
  if (CI->arg_size() != 9)
    return "unexpected number of arguments to the static init call";
  Bounds B;
  B.Signed = Suffix == "4" || Suffix == "8";
  Type *IVTy = CI->getArgOperand(7)->getType();
  auto *Incr = dyn_cast<ConstantInt>(CI->getArgOperand(7));
  if (!Incr || !Incr->isOne())
    return "the loop increment passed to the runtime is not 1";
  auto *PLast = dyn_cast<AllocaInst>(CI->getArgOperand(3));
  B.PLB = dyn_cast<AllocaInst>(CI->getArgOperand(4));
  B.PUB = dyn_cast<AllocaInst>(CI->getArgOperand(5));
  B.PST = dyn_cast<AllocaInst>(CI->getArgOperand(6));
  if (!PLast || !B.PLB || !B.PUB || !B.PST || B.PLB == B.PUB ||
      B.PLB == B.PST || B.PUB == B.PST)
    return "the loop bounds are not in distinct local variables";
  for (AllocaInst *A : {B.PLB, B.PUB, B.PST})
    if (A->getAllocatedType() != IVTy || A->isArrayAllocation())
      return "the loop bounds do not have the iteration variable's type";

  BasicBlock *InitBB = CI->getParent();
  ChunkHeader H;
  BasicBlock *Latch = nullptr;
  BasicBlock *Body = nullptr;
  std::string Why;
  StoreInst *ExtraStUB = nullptr; // the latch's clamp (CombinedDist)
  const auto *InitBr = dyn_cast_or_null<BranchInst>(nextReal(CI));
  // OpenMPIRBuilder reads the runtime's LB and UB right after the call (and
  // uses unsigned iteration variables); Clang's own code jumps to its loop.
  const Instruction *Next = nextReal(CI);
  const Instruction *Next2 = Next ? nextReal(Next) : nullptr;
  bool IRBuilderLoop = !B.Signed && !CombinedDist && Next && Next2 &&
                       isLoadFrom(Next, B.PLB) && isLoadFrom(Next2, B.PUB);
  if (Chunked && CombinedDist && !(InitBr && InitBr->isUnconditional())) {
    // The distribute loop of `distribute parallel for dist_schedule(static,
    // N)`: UB = min(UB, G); IV = LB; then while (IV <= G) { body over
    // [LB, UB] (it forks the inner loop); IV += ST; LB += ST; UB += ST;
    // UB = min(UB, G); IV = LB; }. Each run of the body is one chunk, whose
    // bounds are in LB/UB when the body starts.
    BranchInst *ToTest = nullptr;
    Why = matchHeaderAfterInit(CI, B, H, ToTest);
    if (!Why.empty())
      return Why;
    BasicBlock *Cond = ToTest->getSuccessor(0);
    Body = matchChunkTest(realInstructions(*Cond), H.PIV, B, Why, H.G);
    if (!Body)
      return Why;
    if (Body->getSinglePredecessor() != Cond || Body->isEHPad() ||
        isa<PHINode>(Body->front()))
      return "the chunk body has more than one entry";
    BasicBlock *M2 = nullptr;
    unsigned NumPreds = 0;
    for (BasicBlock *P : predecessors(Cond)) {
      ++NumPreds;
      if (P != H.M)
        M2 = P;
    }
    if (NumPreds != 2 || !M2)
      return "the distribute loop header does not have the expected "
             "predecessors";
    // The latch ends in the same clamp as the header: find it from M2.
    auto *Phi2 = M2->empty() ? nullptr : dyn_cast<PHINode>(&M2->front());
    BasicBlock *T2 = Phi2 && Phi2->getNumIncomingValues() == 2
                         ? Phi2->getIncomingBlock(0)
                         : nullptr;
    Latch = T2 ? T2->getSinglePredecessor() : nullptr;
    ChunkHeader H2;
    if (!Latch || !matchHeader(Latch, B, H2).empty() || H2.M != M2 ||
        H2.PIV != H.PIV || H2.Rest.size() != 1 ||
        !isa<BranchInst>(H2.Rest[0]) ||
        cast<BranchInst>(H2.Rest[0])->isConditional() ||
        cast<BranchInst>(H2.Rest[0])->getSuccessor(0) != Cond ||
        !sameBound(H2.G, H.G))
      return "the distribute loop latch does not re-clamp the bounds";
    ExtraStUB = H2.StUB;
    if (!DT.dominates(Cond, Latch) || !DT.dominates(InitBB, Cond) ||
        !DT.dominates(Body, Latch))
      return "the dispatch loop is not a single-entry loop";
    L.ReportAt = &*Body->getFirstInsertionPt();
    L.LoadBounds = true;
  } else if (Chunked && !InitBr && !IRBuilderLoop &&
             isOne(CI->getArgOperand(8))) {
    // `distribute parallel for schedule(static, 1)`: chunks of one
    // iteration, walked without a loop over chunks: IV = LB; while (IV <=
    // bound) { body(IV); IV += ST; }. Each run of the body is one chunk.
    SmallVector<Instruction *, 4> Init;
    for (Instruction *I = CI->getNextNode(); I; I = I->getNextNode())
      if (!isa<DbgInfoIntrinsic>(I))
        Init.push_back(I);
    auto *LdLB = Init.size() == 3 ? dyn_cast<LoadInst>(Init[0]) : nullptr;
    auto *StIV = Init.size() == 3 ? dyn_cast<StoreInst>(Init[1]) : nullptr;
    auto *ToCond = Init.size() == 3 ? dyn_cast<BranchInst>(Init[2]) : nullptr;
    if (!LdLB || LdLB->getPointerOperand() != B.PLB || !StIV ||
        StIV->getValueOperand() != LdLB ||
        !isa<AllocaInst>(StIV->getPointerOperand()) || !ToCond ||
        ToCond->isConditional())
      return "the static init call is not followed by a jump to the loop";
    auto *PIV = cast<AllocaInst>(StIV->getPointerOperand());
    if (PIV == B.PLB || PIV == B.PUB || PIV == B.PST)
      return "the iteration variable is not set to the lower bound";
    BasicBlock *Cond = ToCond->getSuccessor(0);
    auto CondI = realInstructions(*Cond);
    auto *CondBr = dyn_cast<BranchInst>(Cond->getTerminator());
    auto *Test = CondBr && CondBr->isConditional()
                     ? dyn_cast<ICmpInst>(CondBr->getCondition())
                     : nullptr;
    Value *TestIV = Test ? Test->getOperand(0) : nullptr;
    if (auto *C = dyn_cast_or_null<CastInst>(TestIV))
      TestIV = C->getOperand(0);
    if (CondI.empty() || !isLoadFrom(CondI[0], PIV) || !Test ||
        TestIV != CondI[0] || !Test->isRelational() ||
        CondBr->getSuccessor(0) == CondBr->getSuccessor(1))
      return "the chunk test is not iv <= ub";
    Body = CondBr->getSuccessor(0);
    if (Body->getSinglePredecessor() != Cond || Body->isEHPad() ||
        isa<PHINode>(Body->front()))
      return "the chunk body has more than one entry";
    // The only writes to IV: IV = LB before the loop, IV += ST in the latch.
    BasicBlock *IVLatch = nullptr;
    for (User *U : PIV->users()) {
      auto *I = dyn_cast<Instruction>(U);
      if (!I)
        return "the iteration variable escapes";
      auto *S = dyn_cast<StoreInst>(I);
      if (S == StIV || isa<LoadInst>(I) || I->isLifetimeStartOrEnd() ||
          grainchunk::isLifetimeCast(I))
        continue;
      auto InIVLatch = [&](const BasicBlock *BB) {
        return S && DT.dominates(Body, BB) && DT.dominates(BB, S->getParent());
      };
      if (S && S->getPointerOperand() == PIV && !IVLatch &&
          isStepOf(S->getValueOperand(), PIV, B.PST, InIVLatch)) {
        IVLatch = S->getParent();
        continue;
      }
      return "the iteration variable is written in the loop";
    }
    auto *LBr =
        IVLatch ? dyn_cast<BranchInst>(IVLatch->getTerminator()) : nullptr;
    if (!LBr || LBr->isConditional() || LBr->getSuccessor(0) != Cond ||
        !DT.dominates(Body, IVLatch) || !DT.dominates(InitBB, Cond))
      return "the loop latch does not advance the iteration variable by "
             "the stride";
    H.PIV = PIV;
    L.ReportAt = &*Body->getFirstInsertionPt();
    L.OneIterIV = PIV;
  } else if (IRBuilderLoop) {
    // OpenMPIRBuilder's loop: everything it needs is checked there.
    std::string Why = matchIRBuilderLoop(CI, B, Chunked, L);
    if (!Why.empty())
      return Why;
    for (Value *V :
         {CI->getArgOperand(0), CI->getArgOperand(1), L.Count, L.LastIter})
      if (auto *I = dyn_cast_or_null<Instruction>(V))
        if (!DT.dominates(I, L.ReportAt))
          return "the loop's location or thread id is not available in the "
                 "chunk";
    L.Init = CI;
    L.Suffix = Suffix;
    L.Chunked = Chunked;
    return "";
  } else if (Chunked) {
    const auto *Br = InitBr;
    if (!Br || Br->isConditional())
      return "the static init call is not followed by a jump to the loop";
    BasicBlock *Cond = Br->getSuccessor(0);
    // Header predecessors: the init block and the latch.
    unsigned NumPreds = 0;
    for (BasicBlock *P : predecessors(Cond)) {
      ++NumPreds;
      if (P != InitBB)
        Latch = P;
    }
    if (NumPreds != 2 || !Latch || Latch == Cond)
      return "the dispatch loop header does not have the expected "
             "predecessors";
    Why = matchHeader(Cond, B, H);
    if (!Why.empty())
      return Why;
    Body = matchChunkTest(H.Rest, H.PIV, B, Why);
    if (!Body)
      return Why;
    if (Body->getSinglePredecessor() != H.M || Body->isEHPad() ||
        isa<PHINode>(Body->front()))
      return "the chunk body has more than one entry";
    // Latch: LB = LB + ST; UB = UB + ST; br Cond.
    auto *LBr = dyn_cast<BranchInst>(Latch->getTerminator());
    if (!LBr || LBr->isConditional() || LBr->getSuccessor(0) != Cond)
      return "the dispatch loop latch is not in the expected form";
    if (!DT.dominates(Cond, Latch) || !DT.dominates(InitBB, Cond) ||
        !DT.dominates(H.M, Body))
      return "the dispatch loop is not a single-entry loop";
    L.ReportAt = &*Body->getFirstInsertionPt();
  } else {
    // schedule(static): the clamp follows the call in the same block, then
    // one run of the inner loop over [LB, UB].
    BranchInst *ToTest = nullptr;
    Why = matchHeaderAfterInit(CI, B, H, ToTest);
    if (!Why.empty())
      return Why;
    BasicBlock *TestBB = ToTest->getSuccessor(0);
    Body = matchChunkTest(realInstructions(*TestBB), H.PIV, B, Why);
    if (!Body)
      return Why;
    L.ReportAt = ToTest;
  }

  // Every write to LB/UB/ST is one of the above or an initial store in the
  // init block; no pointer to them escapes.
  StoreInst *InitLB = nullptr, *InitUB = nullptr, *StLB = nullptr,
            *StUBInc = nullptr;
  for (AllocaInst *A : {B.PLB, B.PUB, B.PST}) {
    for (User *U : A->users()) {
      auto *I = dyn_cast<Instruction>(U);
      if (!I)
        return "a loop bound escapes";
      if (I == CI || I->isLifetimeStartOrEnd() || grainchunk::isLifetimeCast(I))
        continue;
      if (auto *S = dyn_cast<StoreInst>(I)) {
        if (S->getPointerOperand() != A || S->isVolatile())
          return "a loop bound escapes";
        if (S->getParent() == InitBB && S->comesBefore(CI)) {
          // The last store before the call is the bound the runtime reads.
          StoreInst *&Init = A == B.PLB ? InitLB : InitUB;
          if (A != B.PST && (!Init || Init->comesBefore(S)))
            Init = S;
          continue;
        }
        if (S == H.StUB || (ExtraStUB && S == ExtraStUB))
          continue;
        // The latch: the blocks from the end of the chunk to the jump back
        // (one block, or several where Clang checks the step for overflow).
        auto InLatch = [&](const BasicBlock *BB) {
          return BB == Latch ||
                 (Body && DT.dominates(Body, BB) && DT.dominates(BB, Latch));
        };
        if (Latch && InLatch(S->getParent()) && A != B.PST &&
            isStepOf(S->getValueOperand(), A, B.PST, InLatch)) {
          if ((A == B.PLB ? StLB : StUBInc) != nullptr)
            return "a loop bound is updated twice in the latch";
          (A == B.PLB ? StLB : StUBInc) = S;
          continue;
        }
        return "a loop bound is written outside the dispatch loop";
      }
      // Reads (the chunk loop tests iv <= ub) cannot change the bounds.
      auto *Ld = dyn_cast<LoadInst>(I);
      if (!Ld || Ld->isVolatile() || Ld->getPointerOperand() != A)
        return "a loop bound escapes";
    }
  }
  if (Chunked && !L.OneIterIV && (!StLB || !StUBInc))
    return "the dispatch loop latch does not advance both bounds by the "
           "stride";
  // The loop starts at 0, or, inside `distribute parallel for`, at the
  // bounds of the enclosing distribute chunk, which also bound its chunks.
  auto *Zero =
      InitLB ? dyn_cast<ConstantInt>(InitLB->getValueOperand()) : nullptr;
  if (!InitLB ||
      (!(Zero && Zero->isZero()) && !isBoundRead(InitLB->getValueOperand())))
    return "the lower bound does not start at 0 or at a captured value";
  // Inside `distribute parallel for`, UB starts at the distribute chunk's
  // upper bound (for schedule(static), Clang still clamps to the whole
  // loop's); otherwise at the bound it is clamped to.
  bool FromChunk = !(Zero && Zero->isZero());
  if (L.OneIterIV && !FromChunk)
    return "the lower bound does not start at a distribute chunk's";
  if (!InitUB || !(FromChunk ? isBoundRead(InitUB->getValueOperand())
                             : sameBound(InitUB->getValueOperand(), H.G)))
    return "the upper bound does not start at the loop's global bound";
  // `last` means the whole loop's last iteration. Inside `distribute
  // parallel for`, Clang first sets UB to it and then to the distribute
  // chunk's bound: take the first store.
  Value *LastIter = H.G;
  if (FromChunk) {
    StoreInst *FirstUB = nullptr;
    for (Instruction &I : *InitBB) {
      if (&I == CI)
        break;
      if (auto *S = dyn_cast<StoreInst>(&I))
        if (S->getPointerOperand() == B.PUB) {
          FirstUB = S;
          break;
        }
    }
    Value *V = FirstUB ? FirstUB->getValueOperand() : nullptr;
    if (!V || V == InitUB->getValueOperand() ||
        !(isa<ConstantInt>(V) || isBoundRead(V)))
      return "the loop's last iteration is not known inside the distribute "
             "chunk";
    LastIter = V;
  }

  // Dominance: the rewrite uses gtid, loc and G where the chunk starts.
  for (Value *V : {CI->getArgOperand(0), CI->getArgOperand(1), H.G, LastIter})
    if (auto *I = dyn_cast_or_null<Instruction>(V))
      if (!DT.dominates(I, L.ReportAt))
        return "the loop's location or thread id is not available in the "
               "chunk";

  L.Init = CI;
  L.Suffix = Suffix;
  L.Chunked = Chunked;
  L.Lower = H.Lower;
  L.Upper = H.Phi;
  L.LastIter = LastIter;
  return "";
}

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

/// Returns false (and changes nothing) if the entry points cannot be declared.
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
  bool HadShould = Mod.getFunction(ShouldCallbackName) != nullptr;
  bool HadChunk = Mod.getFunction(ChunkName) != nullptr;
  Function *Should = getEntryPoint(Mod, ShouldCallbackName, ShouldTy);
  Function *Chunk = Should ? getEntryPoint(Mod, ChunkName, ChunkTy) : nullptr;
  if (!Should || !Chunk) {
    if (Should && !HadShould)
      Should->eraseFromParent();
    if (Chunk && !HadChunk)
      Chunk->eraseFromParent();
    return false;
  }
  if (!HadShould)
    addExt(Should, -1, TLI.getExtAttrForI32Return(true));
  if (!HadChunk) {
    addExt(Chunk, 1, TLI.getExtAttrForI32Param(true));
    addExt(Chunk, 2, TLI.getExtAttrForI32Param(true));
    if (IVTy->isIntegerTy(32)) {
      addExt(Chunk, 3, TLI.getExtAttrForI32Param(Signed));
      addExt(Chunk, 4, TLI.getExtAttrForI32Param(Signed));
    }
  }

  DebugLoc DL = CI->getDebugLoc();
  Value *Loc = CI->getArgOperand(0);
  Value *GTid = CI->getArgOperand(1);

  // Once per loop per thread: ask the shim (if linked) whether a tool wants
  // chunk events, through one out-of-line helper per module (see getAsk).
  Function *AskFn = grainchunk::getAsk(Mod, Should);
  if (!AskFn) {
    if (!HadShould)
      Should->eraseFromParent();
    if (!HadChunk)
      Chunk->eraseFromParent();
    return false;
  }
  IRBuilder<> B(CI);
  B.SetCurrentDebugLocation(DL);
  CallInst *Flags = B.CreateCall(AskFn, {Loc}, "grainchunk.flags");
  Flags->setAttributes(AskFn->getAttributes());
  Value *Want = B.CreateICmpNE(B.CreateAnd(Flags, 1), ConstantInt::get(I32, 0),
                               "grainchunk.want");

  // A team of one thread (also a serialized one) gets the whole iteration
  // space as a single range from the runtime. When a tool wants chunks, walk
  // it in chunks of the requested size instead: the same thread runs the
  // same iterations in the same order, and the tool sees the schedule's
  // chunks. Clang's latch then steps both bounds by the chunk size, so the
  // walk is taken only where that cannot wrap: the start of the chunk after
  // the last one, lb + ((ub - lb) / chunk + 1) * chunk, must fit in the
  // iteration variable's type (every earlier bound is smaller). Otherwise
  // the runtime's single range stays, exactly as in a stock build.
  //   if (want && chunk > 0 && ub - lb >= chunk &&
  //       lb + (ub - lb) / chunk * chunk <= MAX - chunk)
  //     { ub = lb + chunk - 1; st = chunk; }
  if (L.WalkOneThread) {
    Instruction *AfterInit = CI->getNextNode();
    Instruction *Term = SplitBlockAndInsertIfThen(Want, AfterInit, false);
    Term->setDebugLoc(DL);
    Term->getParent()->setName("grainchunk.onethread");
    IRBuilder<> OB(Term);
    OB.SetCurrentDebugLocation(DL);
    Value *PLB = CI->getArgOperand(4), *PUB = CI->getArgOperand(5),
          *PST = CI->getArgOperand(6), *Size = CI->getArgOperand(8);
    Value *LB = OB.CreateLoad(IVTy, PLB);
    Value *UB = OB.CreateLoad(IVTy, PUB);
    Value *ST = OB.CreateLoad(IVTy, PST);
    Value *Span = OB.CreateSub(UB, LB);
    Value *Whole =
        OB.CreateAnd(OB.CreateICmpSGT(Size, ConstantInt::get(IVTy, 0)),
                     OB.CreateICmpUGE(Span, Size), "grainchunk.whole");
    // Once per loop: the last chunk's start, then the check above. The
    // divisor is 1 where the walk is not taken anyway (chunk <= 0).
    Value *Div = OB.CreateSelect(Whole, Size, ConstantInt::get(IVTy, 1));
    Value *LastStart =
        OB.CreateAdd(LB, OB.CreateMul(OB.CreateUDiv(Span, Div), Div));
    unsigned Bits = IVTy->getIntegerBitWidth();
    Value *Max = ConstantInt::get(IVTy, Signed ? APInt::getSignedMaxValue(Bits)
                                               : APInt::getMaxValue(Bits));
    Value *Fits =
        OB.CreateICmp(Signed ? ICmpInst::ICMP_SLE : ICmpInst::ICMP_ULE,
                      LastStart, OB.CreateSub(Max, Div), "grainchunk.fits");
    Whole = OB.CreateAnd(Whole, Fits, "grainchunk.walk");
    OB.CreateStore(OB.CreateSelect(Whole,
                                   OB.CreateSub(OB.CreateAdd(LB, Size),
                                                ConstantInt::get(IVTy, 1)),
                                   UB),
                   PUB);
    OB.CreateStore(OB.CreateSelect(Whole, Size, ST), PST);
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
  if (!L.Chunked) {
    IRBuilder<> GB(L.ReportAt);
    GB.SetCurrentDebugLocation(DL);
    Guard = GB.CreateAnd(
        Want,
        GB.CreateICmp(Signed ? ICmpInst::ICMP_SLE : ICmpInst::ICMP_ULE, L.Lower,
                      L.Upper),
        "grainchunk.nonempty");
  }
  // The report is unlikely (no tool in the common case), and the call is
  // `convergent` so that no pass clones the loop around it (see hardenReport).
  Instruction *ReportTerm = SplitBlockAndInsertIfThen(
      Guard, L.ReportAt, false,
      MDBuilder(Ctx).createBranchWeights(1, grainchunk::UnlikelyReportWeight));
  ReportTerm->setDebugLoc(DL);
  ReportTerm->getParent()->setName("grainchunk.report");
  IRBuilder<> RB(ReportTerm);
  RB.SetCurrentDebugLocation(DL);
  Value *IsLast = RB.CreateZExt(
      RB.CreateICmpEQ(L.Upper, L.LastIter, "grainchunk.islast"), I32);
  CallInst *Report =
      RB.CreateCall(Chunk, {Loc, GTid, IsLast, L.Lower, L.Upper});
  Report->setAttributes(Chunk->getAttributes());
  grainchunk::hardenReport(Report);

  grainchunk::privatizeBounds(CI);
  CI->setMetadata(DoneMD, MDNode::get(Ctx, {}));
  return true;
}

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
      return OptimizationRemarkMissed(DEBUG_TYPE, Key, CI)
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
    std::string Why = matchStaticLoop(CI, E.Suffix, Chunked,
                                      Sched == SchedDistChunked, DT, L);
    L.WalkOneThread = BlockCyclic && !L.OneIterIV;
    if (!Why.empty()) {
      Missed(CI, "UnrecognizedShape",
             scheduleName(Sched) +
                 " loop with an unrecognized code shape: " + Why);
      continue;
    }
    if (!rewrite(L, TLI)) {
      Missed(CI, "ConflictingDeclaration",
             "the module already declares a grainchunk entry point with a "
             "different type");
      continue;
    }
    Changed = true;
    ORE.emit([&]() {
      OptimizationRemark R(DEBUG_TYPE, "Instrumented", CI);
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
