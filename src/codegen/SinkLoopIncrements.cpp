#include "codegen/SinkLoopIncrements.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

namespace tilec::codegen {
namespace {

/// Whether `value` may move later within its block: plain arithmetic (a binary operator, a GEP
/// or a cast: no memory, no calls, no phis) whose users are all phis of `header`.
bool isMovableIncrement(const llvm::Instruction &value, const llvm::BasicBlock &header) {
  if (!llvm::isa<llvm::BinaryOperator>(value) && !llvm::isa<llvm::GetElementPtrInst>(value) &&
      !llvm::isa<llvm::CastInst>(value))
    return false;
  for (const llvm::User *user : value.users()) {
    const auto *phi = llvm::dyn_cast<llvm::PHINode>(user);
    if (!phi || phi->getParent() != &header)
      return false;
  }
  return true;
}

bool sinkInLatch(llvm::BasicBlock &latch) {
  llvm::Instruction *branch = latch.getTerminator();
  if (!branch)
    return false;
  bool moved = false;
  for (llvm::BasicBlock *header : llvm::successors(&latch)) {
    for (llvm::PHINode &phi : header->phis()) {
      auto *next = llvm::dyn_cast<llvm::Instruction>(phi.getIncomingValueForBlock(&latch));
      if (!next || next->getParent() != &latch || !isMovableIncrement(*next, *header))
        continue;
      // Only the next value of a loop-carried one: computed from one of the header's own phis
      // (a block that branches forward to a merge block with phis has nothing to gain).
      bool carried = false;
      for (const llvm::Use &operand : next->operands())
        if (const auto *source = llvm::dyn_cast<llvm::PHINode>(operand.get()))
          carried |= source->getParent() == header;
      if (!carried || next->getNextNode() == branch)
        continue;
      next->moveBefore(branch);
      moved = true;
    }
  }
  return moved;
}

} // namespace

bool sinkLoopIncrements(llvm::Module &module) {
  bool moved = false;
  for (llvm::Function &function : module)
    for (llvm::BasicBlock &block : function)
      moved |= sinkInLatch(block);
  return moved;
}

} // namespace tilec::codegen
