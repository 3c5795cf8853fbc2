#include "tir/Passes.h"

#include <map>

namespace tilec::tir {

bool hasSideEffects(const Operation &op) {
  switch (op.code()) {
  case OpCode::Store:
  case OpCode::AtomicRMW:
  case OpCode::AtomicCAS:
  case OpCode::Print:
  case OpCode::Assert:
  case OpCode::Barrier:
  case OpCode::AsyncCopy:
  case OpCode::AsyncCommit:
  case OpCode::AsyncWait:
  case OpCode::TmaInit:
  case OpCode::TmaCopy:
  case OpCode::TmaWait:
  case OpCode::TmaInval:
  case OpCode::TmaStore:
  case OpCode::TensormapCreate:
  case OpCode::Return:
  case OpCode::Yield:
  case OpCode::Condition:
    return true;
  case OpCode::While:
    return true; // a loop that may not terminate is not removable
  case OpCode::InlineAsm: // is_pure=False: the asm has effects the IR does not see
    return !op.hasAttr("pure") || !op.boolAttr("pure");
  default:
    break;
  }
  for (unsigned r = 0; r < op.numRegions(); ++r)
    for (const auto &inner : op.region(r).block().ops())
      if (inner->code() != OpCode::Yield && hasSideEffects(*inner))
        return true;
  return false;
}

void replaceAllUsesWith(Block &block, Value *from, Value *to) {
  walk(block, [&](Operation &op) {
    for (unsigned i = 0; i < op.numOperands(); ++i)
      if (op.operand(i) == from)
        op.setOperand(i, to);
  });
}

static void countUses(Block &block, std::map<const Value *, unsigned> &uses) {
  walk(block, [&](Operation &op) {
    for (Value *v : op.operands())
      ++uses[v];
  });
}

// Removes dead operations of `block` (and nested blocks), last to first so that an operation
// whose only user was removed is removed in the same sweep.
static bool sweep(Block &block, std::map<const Value *, unsigned> &uses) {
  bool changed = false;
  auto &ops = block.ops();
  for (auto it = ops.end(); it != ops.begin();) {
    --it;
    Operation &op = **it;
    for (unsigned r = 0; r < op.numRegions(); ++r)
      changed |= sweep(op.region(r).block(), uses);
    bool used = false;
    for (unsigned i = 0; i < op.numResults(); ++i)
      used |= uses[op.result(i)] != 0;
    if (used || hasSideEffects(op))
      continue;
    for (Value *v : op.operands())
      --uses[v];
    // Operands used inside the regions of a removed op lose those uses too.
    for (unsigned r = 0; r < op.numRegions(); ++r)
      walk(op.region(r).block(), [&](Operation &inner) {
        for (Value *v : inner.operands())
          --uses[v];
      });
    it = ops.erase(it);
    changed = true;
  }
  return changed;
}

void runDCE(Function &function) {
  while (true) {
    std::map<const Value *, unsigned> uses;
    countUses(function.body(), uses);
    if (!sweep(function.body(), uses))
      return;
  }
}

} // namespace tilec::tir
