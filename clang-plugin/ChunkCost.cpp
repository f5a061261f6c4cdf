//===- ChunkCost.cpp - Keep instrumented loops as cheap as stock ones -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// WHAT IT DOES
//   The rewrite (GrainChunkPass.cpp) adds, per loop, a question to the
//   runtime library and, per chunk, a guarded call. Left to itself, the
//   optimizer turns those into much more code than they are:
//   - The test of the extern_weak `__kmpc_should_callback_per_chunk` against
//     null, right before `__kmpc_for_static_init`, gave a phi of 0 and the
//     answer; jump threading then copied the init call (and everything up to
//     the next use of the flag) into both arms.
//   - The flag is loop-invariant, so at -O3 loop unswitching cloned the whole
//     chunk loop, vectorized body included, into a "tool" and a "no tool"
//     copy.
//   - The bounds Clang keeps in local variables escape into the init call;
//     an unknown call in the chunk loop then forces them to be reloaded and
//     stored back around every chunk.
//   - The one-thread walk (ChunkRewrite.cpp) is two dozen instructions of
//     arithmetic that every loop carried inline although it runs only when a
//     tool wants chunks.
//   Here: the question goes through one out-of-line helper per module (the
//   loop sees an opaque call result, no branch and no phi); so does the walk
//   (one per module and iteration-variable type); the per-chunk call
//   is `convergent` (no pass may make it control-dependent on more values,
//   so neither unswitching nor jump threading can clone around it; inlining
//   is unaffected); and the dispatch loop works on private copies of the
//   lower and upper bound, taken right after the init call, which never
//   escape.
//
//   All are restrictions on the optimizer or changes to code it owns:
//   none claims anything about what the runtime library or a tool does.
//
//===----------------------------------------------------------------------===//

#include "ChunkCost.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

#include <string>

using namespace llvm;

namespace {

/// The module's helper \p Name: the internal definition of type \p FT made
/// for an earlier loop (\p Made false), or a new empty internal function
/// (\p Made true). Null if the name is taken by anything else.
Function *findOrMakeHelper(Module &M, StringRef Name, FunctionType *FT,
                           bool &Made) {
  Made = false;
  if (Function *F = M.getFunction(Name))
    return F->getFunctionType() == FT && F->hasLocalLinkage() &&
                   !F->isDeclaration()
               ? F
               : nullptr;
  if (M.getNamedValue(Name))
    return nullptr;
  Made = true;
  return Function::Create(FT, GlobalValue::InternalLinkage, Name, &M);
}

} // namespace

namespace grainchunk {

Function *getAsk(Module &M, Function *Should) {
  FunctionType *FT = Should->getFunctionType();
  bool Made;
  Function *F = findOrMakeHelper(M, "grainchunk.ask", FT, Made);
  if (!Made)
    return F;
  F->setAttributes(Should->getAttributes()); // nounwind, the return's ext
  // Out of line, so that the loop sees a call result and no branch.
  F->addFnAttr(Attribute::NoInline);
  LLVMContext &C = M.getContext();
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  BasicBlock *Ask = BasicBlock::Create(C, "ask", F);
  BasicBlock *Unlinked = BasicBlock::Create(C, "unlinked", F);
  IRBuilder<> B(Entry);
  Value *Linked = B.CreateICmpNE(
      Should, ConstantPointerNull::get(cast<PointerType>(Should->getType())),
      "linked");
  B.CreateCondBr(Linked, Ask, Unlinked);
  B.SetInsertPoint(Ask);
  CallInst *Answer = B.CreateCall(Should, {F->getArg(0)}, "answer");
  Answer->setAttributes(Should->getAttributes());
  B.CreateRet(Answer);
  B.SetInsertPoint(Unlinked);
  B.CreateRet(ConstantInt::get(FT->getReturnType(), 0));
  return F;
}

Function *getWalk(Module &M, Type *IVTy, bool Signed) {
  unsigned Bits = IVTy->getIntegerBitWidth();
  std::string Name =
      ("grainchunk.walk.i" + Twine(Bits) + (Signed ? "" : "u")).str();
  auto *FT = FunctionType::get(IVTy, {IVTy, IVTy, IVTy}, false);
  bool Made;
  Function *F = findOrMakeHelper(M, Name, FT, Made);
  if (!Made)
    return F;
  // Once per loop and only when a tool wants chunks: out of line, so that
  // each loop carries a call instead of the arithmetic.
  F->addFnAttr(Attribute::NoInline);
  F->addFnAttr(Attribute::NoUnwind);
  F->addFnAttr(Attribute::OptimizeForSize);
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "entry", F));
  Value *LB = F->getArg(0), *UB = F->getArg(1), *Size = F->getArg(2);
  // Walk only a range of more than one chunk, with chunk > 0, whose last
  // chunk's successor, lb + ((ub - lb) / chunk + 1) * chunk, still fits in
  // the type: Clang's latch steps both bounds by the chunk size after every
  // chunk, the last one included. The divisor is 1 where the walk is not
  // taken anyway.
  Value *Span = B.CreateSub(UB, LB);
  Value *Whole = B.CreateAnd(B.CreateICmpSGT(Size, ConstantInt::get(IVTy, 0)),
                             B.CreateICmpUGE(Span, Size), "whole");
  Value *Div = B.CreateSelect(Whole, Size, ConstantInt::get(IVTy, 1));
  Value *LastStart = B.CreateAdd(LB, B.CreateMul(B.CreateUDiv(Span, Div), Div));
  Value *Max = ConstantInt::get(IVTy, Signed ? APInt::getSignedMaxValue(Bits)
                                             : APInt::getMaxValue(Bits));
  Value *Fits = B.CreateICmp(Signed ? ICmpInst::ICMP_SLE : ICmpInst::ICMP_ULE,
                             LastStart, B.CreateSub(Max, Div), "fits");
  Value *Walk = B.CreateAnd(Whole, Fits, "walk");
  B.CreateRet(B.CreateSelect(
      Walk, B.CreateSub(B.CreateAdd(LB, Size), ConstantInt::get(IVTy, 1)), UB));
  return F;
}

void hardenReport(CallInst *Report) {
  // On the declaration too: InstCombine drops `convergent` from a direct call
  // to a function that is not itself convergent.
  if (Function *Callee = Report->getCalledFunction())
    Callee->addFnAttr(Attribute::Convergent);
  Report->addFnAttr(Attribute::Convergent);
}

bool isLifetimeCast(const Instruction *I) {
  if (!isa<BitCastInst>(I) || I->user_empty())
    return false;
  for (const User *U : I->users()) {
    const auto *UI = dyn_cast<Instruction>(U);
    if (!UI || !UI->isLifetimeStartOrEnd())
      return false;
  }
  return true;
}

void privatizeBounds(CallInst *Init) {
  Function &F = *Init->getFunction();
  if (F.hasOptNone() || Init->arg_size() < 7 || Init->isTerminator())
    return;
  // Not in `simd` loops: Clang tags their memory accesses with
  // llvm.access.group and declares them free of loop-carried dependences.
  // With the bounds in registers, LLVM 14's vectorizer vectorized such a
  // loop (`parallel for simd`, -fsanitize=undefined, -O1) whose reduction
  // variable stayed in memory under that tag, and the sum came out wrong
  // (found by the fuzzer). Those loops keep their bounds in memory.
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (I.hasMetadata(LLVMContext::MD_access_group))
        return;
  DominatorTree DT(F);
  Instruction *At = Init->getNextNode();
  // The lower and upper bound only. A private stride as well would make the
  // bounds affine recurrences {lb,+,st} that loop strength reduction then
  // works hard on: on bench/run.py's many-loops file that cost 16% more
  // compile time than leaving the stride in memory (one load per chunk).
  for (unsigned ArgNo : {4u, 5u}) {
    auto *A = dyn_cast<AllocaInst>(Init->getArgOperand(ArgNo));
    if (!A || A->isArrayAllocation())
      continue;
    Type *Ty = A->getAllocatedType();
    IRBuilder<> CB(At);
    CB.SetCurrentDebugLocation(Init->getDebugLoc());
    LoadInst *Filled = CB.CreateLoad(Ty, A, A->getName() + ".filled");
    Filled->setAlignment(A->getAlign());
    IRBuilder<> AB(A->getNextNode());
    AllocaInst *Copy = AB.CreateAlloca(Ty, A->getType()->getAddressSpace(),
                                       nullptr, A->getName() + ".private");
    Copy->setAlignment(A->getAlign());
    StoreInst *Start = CB.CreateStore(Filled, Copy);
    Start->setAlignment(A->getAlign());

    SmallVector<Use *, 8> Redirect;
    bool OK = true;
    for (Use &U : A->uses()) {
      auto *I = dyn_cast<Instruction>(U.getUser());
      if (!I) {
        OK = false;
        break;
      }
      if (I == Init || I == Filled || I->isLifetimeStartOrEnd() ||
          isLifetimeCast(I))
        continue;
      bool Access = (isa<LoadInst>(I) && U.getOperandNo() == 0) ||
                    (isa<StoreInst>(I) &&
                     U.getOperandNo() == StoreInst::getPointerOperandIndex());
      if (!Access) {
        OK = false;
        break;
      }
      if (DT.dominates(Start, I))
        Redirect.push_back(&U);
      else if (isa<LoadInst>(I)) {
        // A read the copy might not reach: leave this bound alone.
        OK = false;
        break;
      }
    }
    if (!OK) {
      Start->eraseFromParent();
      Filled->eraseFromParent();
      Copy->eraseFromParent();
      continue;
    }
    for (Use *U : Redirect)
      U->set(Copy);
  }
}

} // namespace grainchunk
