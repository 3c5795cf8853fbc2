// LLVM 19's VectorCombine rewrites a vector load whose users are all extractelements into one
// scalar load per extract (scalarizeLoadExtract). Each rewrite invalidates the block's
// instruction numbering, and the next load's comesBefore renumbers the whole block: quadratic in
// the block's size, 75 s of TritonBench's chunk_retention_bwd_kernel_dqkv (one 50 000-instruction
// block of FMA dots) at --num-warps 1. optimizeModule (PTXEmitter.cpp) runs this rewrite just
// before each VectorCombinePass, with VectorCombine's decisions and output, so that it finds
// nothing of that kind left. tests/unit/codegen/ScalarizeLoadExtractsTest.cpp compares the two.
#include "codegen/ScalarizeLoadExtracts.h"

#include <algorithm>
#include <llvm/Analysis/InstSimplifyFolder.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <vector>

namespace tilec::codegen {

bool scalarizeLoadExtracts(llvm::Function &function, const llvm::TargetTransformInfo &tti,
                           const llvm::DominatorTree &dominators) {
  constexpr unsigned kMaxInstrsToScan = 30; // VectorCombine's -vector-combine-max-scan-instrs
  if (!tti.getNumberOfRegisters(tti.getRegisterClassForType(/*Vector=*/true)))
    return false;
  const llvm::DataLayout &layout = function.getParent()->getDataLayout();
  // LLVM 19's VectorCombine builds with a plain IRBuilder: lane 0's address is a getelementptr
  // too, not the vector's pointer (the unit test compares the two). LLVM 22's folds it.
#if LLVM_VERSION_MAJOR >= 21
  llvm::IRBuilder<llvm::InstSimplifyFolder> builder(function.getContext(),
                                                    llvm::InstSimplifyFolder(layout));
#else
  llvm::IRBuilder<> builder(function.getContext());
#endif
  std::vector<llvm::Instruction *> window;
  llvm::SmallVector<llvm::ExtractElementInst *, 16> extracts;
  std::vector<llvm::LoadInst *> loads;
  bool changed = false;
  for (llvm::BasicBlock &block : function) {
    if (!dominators.isReachableFromEntry(&block))
      continue;
    // The vector loads first: a rewrite erases the instructions after the one it is at.
    loads.clear();
    for (llvm::Instruction &inst : block)
      if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&inst))
        if (llvm::isa<llvm::FixedVectorType>(load->getType()))
          loads.push_back(load);
    for (llvm::LoadInst *load : loads) {
      auto *vecType = llvm::cast<llvm::FixedVectorType>(load->getType());
      if (load->isVolatile() || !layout.typeSizeEqualsStoreSize(vecType->getScalarType()))
        continue;
      // The instructions after the load that VectorCombine may scan; an extract further away
      // fails its scan.
      window.clear();
      for (auto it = std::next(load->getIterator());
           it != block.end() && window.size() <= kMaxInstrsToScan; ++it)
        window.push_back(&*it);
      auto positionOf = [&](const llvm::Instruction *user) -> unsigned {
        auto found = std::find(window.begin(), window.end(), user);
        return found == window.end() ? 0 : unsigned(found - window.begin()) + 1;
      };
      llvm::Type *elemType = vecType->getElementType();
      const unsigned space = load->getPointerAddressSpace();
      llvm::InstructionCost originalCost =
          tti.getMemoryOpCost(llvm::Instruction::Load, vecType, load->getAlign(), space);
      llvm::InstructionCost scalarizedCost = 0;
      unsigned lastChecked = 0, numChecked = 0;
      bool ok = true;
      // In VectorCombine's order (the use list), with its cumulative scan count.
      for (llvm::User *user : load->users()) {
        auto *extract = llvm::dyn_cast<llvm::ExtractElementInst>(user);
        auto *lane =
            extract ? llvm::dyn_cast<llvm::ConstantInt>(extract->getIndexOperand()) : nullptr;
        unsigned position = extract ? positionOf(extract) : 0;
        // LLVM 22 also leaves a load alone while one of its extracts is unused.
        const bool unusedExtract = LLVM_VERSION_MAJOR >= 21 && extract && extract->use_empty();
        if (!lane || !position || !lane->getValue().ult(vecType->getNumElements()) ||
            unusedExtract) {
          ok = false;
          break;
        }
        if (lastChecked < position) {
          for (unsigned k = 0; ok && k + 1 < position; ++k) {
            if (numChecked == kMaxInstrsToScan || window[k]->mayWriteToMemory())
              ok = false;
            ++numChecked;
          }
          lastChecked = position;
        }
        if (!ok)
          break;
        originalCost += tti.getVectorInstrCost(llvm::Instruction::ExtractElement, vecType,
                                               llvm::TargetTransformInfo::TCK_RecipThroughput,
                                               lane->getZExtValue());
        scalarizedCost +=
            tti.getMemoryOpCost(llvm::Instruction::Load, elemType, llvm::Align(1), space);
#if LLVM_VERSION_MAJOR >= 21
        scalarizedCost +=
            tti.getAddressComputationCost(load->getPointerOperandType(), nullptr, nullptr,
                                          llvm::TargetTransformInfo::TCK_RecipThroughput);
#else
        scalarizedCost += tti.getAddressComputationCost(elemType);
#endif
      }
      if (!ok || load->use_empty() || scalarizedCost >= originalCost)
        continue;
      extracts.clear();
      for (llvm::User *user : load->users()) {
        auto *extract = llvm::cast<llvm::ExtractElementInst>(user);
        llvm::Value *lane = extract->getIndexOperand();
        builder.SetInsertPoint(extract);
        llvm::Value *address = builder.CreateInBoundsGEP(vecType, load->getPointerOperand(),
                                                         {builder.getInt32(0), lane});
        auto *scalar = llvm::cast<llvm::LoadInst>(
            builder.CreateLoad(elemType, address, extract->getName() + ".scalar"));
        scalar->setAlignment(llvm::commonAlignment(
            load->getAlign(), llvm::cast<llvm::ConstantInt>(lane)->getZExtValue() *
                                  layout.getTypeStoreSize(elemType)));
        extract->replaceAllUsesWith(scalar);
        scalar->takeName(extract);
        extracts.push_back(extract);
      }
      for (llvm::ExtractElementInst *extract : extracts)
        extract->eraseFromParent();
      load->eraseFromParent();
      changed = true;
    }
  }
  return changed;
}

} // namespace tilec::codegen
