// Which operations use each value, for passes that replace the uses of many values.
//
// TIR keeps no use lists, so replacing a value's uses walks the whole function. A pass that does
// that once per op (a layout for every load, every conversion removed) is quadratic in the ops,
// which long unrolled kernels (thousands of tl.static_range iterations) made take minutes. A
// UseIndex is built by one walk; each replacement then visits the value's users only.
//
// The pass keeps it up to date by making its operand changes through it (setOperand,
// replaceAllUses) and by telling it of every op it creates (addUser). An op that stopped using a
// value may stay listed under it: replaceAllUses checks the operands. Erasing ops invalidates it
// (build another after).
#pragma once

#include "tir/IR.h"

#include <unordered_map>
#include <vector>

namespace tilec::tir {

class UseIndex {
public:
  /// The uses in `block` and its nested regions (a function's body: all of them).
  explicit UseIndex(Block &block);

  /// Records the operands of `op`, created after the index (not those of its regions' ops).
  void addUser(Operation &op);
  /// Appends `value` to the operands of `op`.
  void addOperand(Operation &op, Value *value);
  /// Sets operand `i` of `op` to `value`.
  void setOperand(Operation &op, unsigned i, Value *value);
  /// Replaces every use of `from` by `to`, except as an operand of `except`.
  void replaceAllUses(Value *from, Value *to, const Operation *except = nullptr);
  /// The ops that use `value` now, each once.
  std::vector<Operation *> usersOf(const Value *value) const;

private:
  std::unordered_map<const Value *, std::vector<Operation *>> users_;
};

} // namespace tilec::tir
