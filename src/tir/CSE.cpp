#include "tir/Passes.h"

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

namespace tilec::tir {
namespace {

bool isPure(const Operation &op) {
  if (op.numRegions() != 0 || op.numResults() != 1 || hasSideEffects(op))
    return false;
  switch (op.code()) {
  case OpCode::Load: // memory may change between two loads
    return false;
  default:
    return true;
  }
}

/// Ops MLIR marks commutative (arith.addf/addi, mulf/muli, andi, ori, xori, the maximum and
/// minimum ops): its CSE takes `a * b` and `b * a` for one value (OperationEquivalence sorts
/// their operands), so Triton computes fla's `b_kg * b_dkgb * b_b` from `b_dkgb * b_kg` stored
/// just before, in that product's layout, and the backend fuses it otherwise.
bool isCommutative(OpCode code) {
  switch (code) {
  case OpCode::Add:
  case OpCode::Mul:
  case OpCode::And:
  case OpCode::Or:
  case OpCode::Xor:
  case OpCode::Maximum:
  case OpCode::Minimum:
    return true;
  default:
    return false;
  }
}

std::string keyOf(const Operation &op) {
  std::ostringstream os;
  os << op.name();
  std::vector<const Value *> operands(op.operands().begin(), op.operands().end());
  if (isCommutative(op.code()))
    std::sort(operands.begin(), operands.end(), std::less<const Value *>());
  for (const Value *v : operands)
    os << " " << v;
  for (const auto &[k, a] : op.attrs()) {
    os << " " << k << "=";
    if (auto *i = std::get_if<int64_t>(&a))
      os << "i" << *i;
    else if (auto *d = std::get_if<double>(&a))
      os << "d" << std::hexfloat << *d << std::defaultfloat;
    else if (auto *b = std::get_if<bool>(&a))
      os << "b" << *b;
    else if (auto *s = std::get_if<std::string>(&a))
      os << "s" << s->size() << ":" << *s;
    else if (auto *v = std::get_if<std::vector<int64_t>>(&a))
      for (int64_t x : *v)
        os << x << ",";
  }
  os << " : " << op.result()->type().str();
  return os.str();
}

class CSE {
public:
  void run(Block &block) {
    scopes_.emplace_back();
    auto &ops = block.ops();
    for (auto it = ops.begin(); it != ops.end();) {
      Operation &op = **it;
      for (unsigned i = 0; i < op.numOperands(); ++i) {
        auto r = replaced_.find(op.operand(i));
        if (r != replaced_.end())
          op.setOperand(i, r->second);
      }
      for (unsigned r = 0; r < op.numRegions(); ++r)
        run(op.region(r).block());
      if (!isPure(op)) {
        ++it;
        continue;
      }
      std::string key = keyOf(op);
      if (Value *existing = find(key)) {
        replaced_[op.result()] = existing;
        it = ops.erase(it);
        continue;
      }
      scopes_.back()[key] = op.result();
      ++it;
    }
    scopes_.pop_back();
  }

private:
  std::vector<std::map<std::string, Value *>> scopes_;
  std::map<const Value *, Value *> replaced_;

  Value *find(const std::string &key) {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      auto it = s->find(key);
      if (it != s->end())
        return it->second;
    }
    return nullptr;
  }
};

} // namespace

void runCSE(Function &function) { CSE().run(function.body()); }

} // namespace tilec::tir
