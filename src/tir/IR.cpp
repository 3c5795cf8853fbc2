#include "tir/IR.h"

#include <algorithm>

namespace tilec::tir {

const char *opName(OpCode code) {
  switch (code) {
#define TILEC_NAME(name, str)                                                                      \
  case OpCode::name:                                                                               \
    return str;
    TILEC_TIR_OPCODES(TILEC_NAME)
#undef TILEC_NAME
  }
  return "?";
}

bool isElementwise(OpCode code) {
  switch (code) {
  case OpCode::Add:
  case OpCode::Sub:
  case OpCode::Mul:
  case OpCode::Div:
  case OpCode::Rem:
  case OpCode::And:
  case OpCode::Or:
  case OpCode::Xor:
  case OpCode::Shl:
  case OpCode::Shr:
  case OpCode::MulHi:
  case OpCode::Maximum:
  case OpCode::Minimum:
  case OpCode::Cmp:
  case OpCode::Select:
  case OpCode::AddPtr:
  case OpCode::Cast:
  case OpCode::Bitcast:
  case OpCode::Neg:
  case OpCode::Not:
  case OpCode::Exp:
  case OpCode::Exp2:
  case OpCode::Log:
  case OpCode::Log2:
  case OpCode::Sqrt:
  case OpCode::Rsqrt:
  case OpCode::Sin:
  case OpCode::Cos:
  case OpCode::Abs:
  case OpCode::Floor:
  case OpCode::Ceil:
  case OpCode::Erf:
  case OpCode::Fma:
  case OpCode::Libdevice:
    return true;
  default:
    return false;
  }
}

bool isAtomic(OpCode code) {
  return code == OpCode::AtomicRMW || code == OpCode::AtomicCAS;
}

bool isStoreOrAtomic(OpCode code) {
  return code == OpCode::Store || isAtomic(code);
}

bool sharesOneLayout(OpCode code) {
  switch (code) {
  case OpCode::Load:
  case OpCode::Store:
  case OpCode::AtomicRMW:
  case OpCode::AtomicCAS:
  case OpCode::Broadcast:
  case OpCode::InlineAsm:      // elementwise, with several results
  case OpCode::MapElementwise: // the same, computed by its region
    return true;
  default:
    return isElementwise(code);
  }
}

bool isTerminator(OpCode code) {
  return code == OpCode::Yield || code == OpCode::Return || code == OpCode::Condition;
}

Value *Operation::addResult(Type type) {
  results_.push_back(
      std::make_unique<Value>(std::move(type), this, nullptr, static_cast<unsigned>(results_.size())));
  return results_.back().get();
}

void Operation::eraseResult(unsigned i) {
  results_.erase(results_.begin() + i);
  for (unsigned r = i; r < results_.size(); ++r)
    results_[r]->index_ = r;
}

Region &Operation::addRegion() {
  regions_.push_back(std::make_unique<Region>(this));
  return *regions_.back();
}

Value *Block::addArgument(Type type) {
  args_.push_back(
      std::make_unique<Value>(std::move(type), nullptr, this, static_cast<unsigned>(args_.size())));
  return args_.back().get();
}

void Block::eraseArgument(unsigned i) {
  args_.erase(args_.begin() + i);
  for (unsigned a = i; a < args_.size(); ++a)
    args_[a]->index_ = a;
}

Operation *Block::insert(OpList::iterator pos, std::unique_ptr<Operation> op) {
  Operation *inserted = op.get();
  inserted->parent_ = this;
  inserted->position_ = ops_.insert(pos, std::move(op));
  return inserted;
}

Block::OpList::iterator Block::find(Operation *op) {
  return op->parent_ == this ? op->position_ : ops_.end();
}

std::unique_ptr<Operation> Block::remove(Operation *op) {
  auto it = find(op);
  if (it == ops_.end())
    return nullptr;
  std::unique_ptr<Operation> owned = std::move(*it);
  ops_.erase(it);
  owned->parent_ = nullptr;
  return owned;
}

Operation *Block::parentOp() const { return parent_ ? parent_->parentOp() : nullptr; }

Function *Module::addFunction(std::string name, SourceLoc loc) {
  functions.push_back(std::make_unique<Function>(std::move(name), loc));
  return functions.back().get();
}

bool hasPositiveConstantStep(const Operation &forOp) {
  const Operation *def = forOp.operand(2)->definingOp();
  if (!def || def->code() != OpCode::Constant)
    return false;
  auto *step = std::get_if<int64_t>(&def->attr("value"));
  return step && *step > 0;
}

void walk(Block &block, const std::function<void(Operation &)> &fn) {
  for (auto &op : block.ops()) {
    fn(*op);
    for (unsigned r = 0; r < op->numRegions(); ++r)
      walk(op->region(r).block(), fn);
  }
}

void walk(Function &function, const std::function<void(Operation &)> &fn) {
  walk(function.body(), fn);
}

} // namespace tilec::tir
