// Removal of layout conversions that are not needed. A conversion goes through shared memory with
// two barriers; most of those AssignLayouts leaves behind are avoidable:
//   - a conversion to the layout its operand already has is the operand;
//   - a conversion of a conversion converts the original value;
//   - a conversion of a value that is cheap to compute (a constant, make_range, splat, and the
//     elementwise/broadcast/expand_dims trees over them and over values already available in the
//     wanted layout) is replaced by recomputing that value directly in the wanted layout.
// Producers left without users are erased.
#include "gpu/Layout.h"
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"
#include "tir/Builder.h"

#include <map>

namespace tilec::gpu {
namespace {

using tir::OpCode;
using tir::Operation;
using tir::Value;

/// How deep a tree of producers is recomputed: far enough for index arithmetic such as
/// `ptr + (pid * BLOCK + arange)[:, None] * stride + arange[None, :]`.
constexpr unsigned kMaxRematerialisationDepth = 12;

bool isRematerialisable(const Operation &op) {
  switch (op.code()) {
  case OpCode::Constant:
  case OpCode::MakeRange:
  case OpCode::Splat:
  case OpCode::Broadcast:
  case OpCode::ExpandDims:
    return true;
  default:
    return tir::isElementwise(op.code());
  }
}

/// The layout operand `i` of a rematerialised `op` must have for its result to have `layout`.
LayoutPtr operandLayoutFor(const Operation &op, unsigned i, const LayoutPtr &layout) {
  if (op.code() == OpCode::ExpandDims)
    return makeSlice(static_cast<unsigned>(op.intAttr("axis")), layout);
  return layout;
}

class ConversionRemover {
public:
  explicit ConversionRemover(tir::Function &function) : function_(function) {}

  void run() {
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<Operation *> converts;
      tir::walk(function_, [&](Operation &op) {
        if (op.code() == OpCode::ConvertLayout)
          converts.push_back(&op);
      });
      for (Operation *convert : converts)
        changed |= simplify(*convert);
      eraseDeadPureOps(function_);
    }
  }

private:
  tir::Function &function_;

  bool simplify(Operation &convert) {
    Value *source = convert.operand(0);
    LayoutPtr target = layoutOf(convert.result());
    if (sameLayout(layoutOf(source), target)) {
      replaceAllUses(function_, convert.result(), source);
      return true;
    }
    Operation *producer = source->definingOp();
    if (producer && producer->code() == OpCode::ConvertLayout) {
      convert.setOperand(0, producer->operand(0));
      return true;
    }
    if (!canRematerialise(source, target, kMaxRematerialisationDepth))
      return false;
    std::map<std::pair<const Value *, std::string>, Value *> done;
    Value *replacement = rematerialise(source, target, &convert, done);
    replaceAllUses(function_, convert.result(), replacement);
    return true;
  }

  /// The value `v` already in `layout` without a conversion, or null.
  static Value *availableIn(Value *v, const LayoutPtr &layout) {
    if (sameLayout(layoutOf(v), layout))
      return v;
    Operation *producer = v->definingOp();
    if (producer && producer->code() == OpCode::ConvertLayout &&
        sameLayout(layoutOf(producer->operand(0)), layout))
      return producer->operand(0);
    return nullptr;
  }

  bool canRematerialise(Value *v, const LayoutPtr &layout, unsigned depth) {
    if (!v->type().isTensor() || availableIn(v, layout))
      return true;
    Operation *producer = v->definingOp();
    if (!producer || depth == 0 || !isRematerialisable(*producer))
      return false;
    for (unsigned i = 0; i < producer->numOperands(); ++i)
      if (!canRematerialise(producer->operand(i), operandLayoutFor(*producer, i, layout),
                            depth - 1))
        return false;
    return true;
  }

  Value *rematerialise(Value *v, const LayoutPtr &layout, Operation *before,
                       std::map<std::pair<const Value *, std::string>, Value *> &done) {
    if (!v->type().isTensor())
      return v;
    if (Value *available = availableIn(v, layout))
      return available;
    auto key = std::make_pair(static_cast<const Value *>(v), layout->str());
    if (auto it = done.find(key); it != done.end())
      return it->second;
    Operation *producer = v->definingOp();
    std::vector<Value *> operands;
    for (unsigned i = 0; i < producer->numOperands(); ++i)
      operands.push_back(rematerialise(producer->operand(i), operandLayoutFor(*producer, i, layout),
                                       before, done));
    tir::Builder b;
    b.setInsertionPoint(before);
    b.setLoc(producer->loc());
    Operation *clone = b.create(producer->code(), operands, {v->type().withLayout(layout)});
    for (const auto &[name, value] : producer->attrs())
      clone->setAttr(name, value);
    clone->result()->setNameHint(v->nameHint());
    done[key] = clone->result();
    return clone->result();
  }
};

} // namespace

void runRemoveRedundantConversions(tir::Function &function) {
  ConversionRemover(function).run();
}

} // namespace tilec::gpu
