#include "gpu/PassUtils.h"

#include "tir/Builder.h"

#include <set>

namespace tilec::gpu {

using tir::OpCode;
using tir::Operation;

void replaceAllUses(tir::Function &function, tir::Value *from, tir::Value *to,
                    const Operation *except) {
  tir::walk(function, [&](Operation &op) {
    if (&op == except)
      return;
    for (unsigned i = 0; i < op.numOperands(); ++i)
      if (op.operand(i) == from)
        op.setOperand(i, to);
  });
}

void retypeResult(tir::Function &function, Operation &op, unsigned r, const LayoutPtr &wanted) {
  tir::Value *result = op.result(r);
  LayoutPtr old = layoutOf(result);
  if (sameLayout(old, wanted))
    return;
  result->setType(result->type().withLayout(wanted));
  Operation *next = std::next(op.parentBlock()->find(&op))->get();
  tir::Value *converted = insertConvert(result, old, next);
  replaceAllUses(function, result, converted, converted->definingOp());
}

std::map<const tir::Value *, std::vector<Operation *>> usersOf(tir::Function &function) {
  std::map<const tir::Value *, std::vector<Operation *>> users;
  tir::walk(function, [&](Operation &op) {
    for (tir::Value *operand : op.operands())
      users[operand].push_back(&op);
  });
  return users;
}

static bool isPure(const Operation &op) {
  switch (op.code()) {
  case OpCode::Constant:
  case OpCode::MakeRange:
  case OpCode::Splat:
  case OpCode::Broadcast:
  case OpCode::ExpandDims:
  case OpCode::ConvertLayout:
  case OpCode::ProgramId:
  case OpCode::NumPrograms:
    return true;
  default:
    return tir::isElementwise(op.code()) && op.numRegions() == 0;
  }
}

void eraseDeadPureOps(tir::Function &function) {
  for (bool changed = true; changed;) {
    changed = false;
    std::set<const tir::Value *> used;
    tir::walk(function, [&](Operation &op) {
      for (tir::Value *v : op.operands())
        used.insert(v);
    });
    std::vector<Operation *> dead;
    tir::walk(function, [&](Operation &op) {
      if (!isPure(op))
        return;
      for (unsigned r = 0; r < op.numResults(); ++r)
        if (used.count(op.result(r)))
          return;
      dead.push_back(&op);
    });
    for (Operation *op : dead) {
      op->parentBlock()->remove(op);
      changed = true;
    }
  }
}

tir::Value *insertConvert(tir::Value *value, LayoutPtr layout, Operation *before) {
  tir::Builder b;
  b.setInsertionPoint(before);
  b.setLoc(before->loc());
  tir::Value *converted =
      b.createValue(OpCode::ConvertLayout, {value}, value->type().withLayout(std::move(layout)));
  converted->setNameHint(value->nameHint());
  return converted;
}

} // namespace tilec::gpu
