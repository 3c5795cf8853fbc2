#include "gpu/PassUtils.h"

#include "tir/Builder.h"
#include "tir/Passes.h"

#include <algorithm>
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

/// Gives result `r` of `op` layout `wanted` and returns the conversion back to the layout it had,
/// inserted after `op`; null when it has that layout already.
static tir::Value *retypeAndConvertBack(Operation &op, unsigned r, const LayoutPtr &wanted) {
  tir::Value *result = op.result(r);
  LayoutPtr old = layoutOf(result);
  if (sameLayout(old, wanted))
    return nullptr;
  result->setType(result->type().withLayout(wanted));
  Operation *next = std::next(op.parentBlock()->find(&op))->get();
  return insertConvert(result, old, next);
}

void retypeResult(tir::Function &function, Operation &op, unsigned r, const LayoutPtr &wanted) {
  if (tir::Value *converted = retypeAndConvertBack(op, r, wanted))
    replaceAllUses(function, op.result(r), converted, converted->definingOp());
}

void retypeResult(tir::UseIndex &uses, Operation &op, unsigned r, const LayoutPtr &wanted) {
  tir::Value *converted = retypeAndConvertBack(op, r, wanted);
  if (!converted)
    return;
  uses.addUser(*converted->definingOp());
  uses.replaceAllUses(op.result(r), converted, converted->definingOp());
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

void eraseUnusedCarriedValues(tir::Function &function, Operation &loop) {
  tir::Block &body = loop.region(0).block();
  Operation *yield = body.terminator();
  unsigned numCarried = loop.numResults();
  std::set<const tir::Value *> usedOutside;
  tir::walk(function, [&](Operation &op) {
    for (tir::Value *v : op.operands())
      usedOutside.insert(v);
  });

  // Liveness within the body: what has effects, and the next value of every carried value that
  // is used, need their operands; a carried value is used when its result is, or when a needed
  // operation reads its region argument.
  std::vector<bool> needed(numCarried, false);
  std::set<const tir::Value *> live;
  std::set<const Operation *> liveOps;
  std::vector<tir::Value *> work;
  auto markLive = [&](Operation &op) {
    if (!liveOps.insert(&op).second)
      return;
    for (tir::Value *v : op.operands())
      work.push_back(v);
    for (unsigned r = 0; r < op.numRegions(); ++r)
      tir::walk(op.region(r).block(), [&](Operation &inner) {
        for (tir::Value *v : inner.operands())
          work.push_back(v);
      });
  };
  auto needCarried = [&](unsigned i) {
    if (needed[i])
      return;
    needed[i] = true;
    work.push_back(yield->operand(i));
  };
  for (unsigned i = 0; i < numCarried; ++i)
    if (usedOutside.count(loop.result(i)))
      needCarried(i);
  for (auto &op : body.ops())
    if (op.get() != yield && tir::hasSideEffects(*op))
      markLive(*op);
  while (!work.empty()) {
    tir::Value *v = work.back();
    work.pop_back();
    if (!live.insert(v).second)
      continue;
    if (v->isBlockArgument() && v->ownerBlock() == &body && v->index() > 0) {
      needCarried(v->index() - 1);
      continue;
    }
    Operation *producer = v->definingOp();
    if (producer && producer->parentBlock() == &body)
      markLive(*producer);
  }
  if (std::find(needed.begin(), needed.end(), false) == needed.end())
    return;

  // What only computed unneeded values goes first (it reads their region arguments).
  std::vector<Operation *> dead;
  for (auto &op : body.ops())
    if (op.get() != yield && !liveOps.count(op.get()))
      dead.push_back(op.get());
  for (auto it = dead.rbegin(); it != dead.rend(); ++it)
    body.remove(*it);
  for (unsigned i = numCarried; i-- > 0;) {
    if (needed[i])
      continue;
    yield->eraseOperand(i);
    loop.eraseOperand(3 + i);
    body.eraseArgument(i + 1);
    loop.eraseResult(i);
  }
}

LayoutPtr operandLayoutFor(const Operation &op, const LayoutPtr &layout) {
  switch (op.code()) {
  case OpCode::ExpandDims:
    return makeSlice(static_cast<unsigned>(op.intAttr("axis")), layout);
  case OpCode::Reduce:
    if (layout->kind != LayoutKind::Slice ||
        layout->dim != static_cast<unsigned>(op.intAttr("axis")))
      return nullptr;
    return layout->parent;
  case OpCode::Scan:
    return isScanLayout(layout) ? layout : nullptr;
  default:
    return layout;
  }
}

bool isTensorCoreLayout(const LayoutPtr &layout) {
  return layout && layout->kind == LayoutKind::Blocked &&
         (isMmaV2AccumulatorLayout(*layout) || isMmaV3AccumulatorLayout(*layout));
}

bool isScanLayout(const LayoutPtr &layout) {
  return layout && layout->kind == LayoutKind::Blocked && !isMmaV2AccumulatorLayout(*layout) &&
         !isMmaV3AccumulatorLayout(*layout);
}

Operation *cloneOp(tir::Builder &b, const Operation &op, std::vector<tir::Value *> operands,
                   std::vector<tir::Type> types) {
  Operation *copy = b.create(op.code(), std::move(operands), std::move(types));
  for (const auto &[key, value] : op.attrs())
    copy->setAttr(key, value);
  for (unsigned r = 0; r < op.numRegions(); ++r) {
    const tir::Block &from = op.region(r).block();
    tir::Block &to = copy->addRegion().block();
    std::map<const tir::Value *, tir::Value *> map;
    for (unsigned a = 0; a < from.numArguments(); ++a)
      map[from.argument(a)] = to.addArgument(from.argument(a)->type());
    tir::Builder inner(to);
    for (const auto &innerOp : from.ops()) {
      std::vector<tir::Value *> innerOperands;
      for (tir::Value *v : innerOp->operands())
        innerOperands.push_back(map.count(v) ? map[v] : v);
      std::vector<tir::Type> innerTypes;
      for (unsigned i = 0; i < innerOp->numResults(); ++i)
        innerTypes.push_back(innerOp->result(i)->type());
      Operation *innerCopy = cloneOp(inner, *innerOp, innerOperands, innerTypes);
      for (unsigned i = 0; i < innerOp->numResults(); ++i)
        map[innerOp->result(i)] = innerCopy->result(i);
    }
  }
  return copy;
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

std::optional<tir::TensorMap> nvmmaTensorMap(const tir::Type &tile, unsigned descriptor,
                                             const analysis::AxisInfo &column) {
  if (tile.rank() != 2)
    return std::nullopt;
  int64_t elemBytes = std::max(1u, tile.elem.bytes());
  // A box whose innermost coordinate is not a multiple of 16 bytes traps (measured on an H100,
  // driver 580).
  int64_t divisibility = column.divisibility.empty() ? 1 : column.divisibility[0];
  if (divisibility * elemBytes % 16 != 0)
    return std::nullopt;
  int64_t rowBytes = tile.shape[1] * elemBytes;
  int64_t swizzle = std::min<int64_t>(128, rowBytes);
  if ((swizzle != 32 && swizzle != 64 && swizzle != 128) || rowBytes % swizzle != 0)
    return std::nullopt;
  int64_t boxRows = tile.shape[0];
  if (boxRows > 256)
    return std::nullopt;
  return tir::TensorMap{descriptor, {boxRows, swizzle / elemBytes}, static_cast<unsigned>(swizzle)};
}

unsigned addTensorMap(tir::Function &function, const tir::TensorMap &map) {
  std::vector<tir::TensorMap> &maps = function.tensorMaps;
  for (unsigned i = 0; i < maps.size(); ++i)
    if (maps[i].descriptor == map.descriptor && maps[i].box == map.box &&
        maps[i].swizzleBytes == map.swizzleBytes)
      return i;
  maps.push_back(map);
  return static_cast<unsigned>(maps.size() - 1);
}

} // namespace tilec::gpu
