// Conversions move above the widening that feeds them, as Triton's
// hoistConvertOnTopOfExtOrBroadcast does after its rematerialisation.
//
// A value loaded as bf16, widened to fp32, scanned and stored as fp32 has two coalesced layouts:
// the load's (8 bf16 a thread) and the store's (4 fp32). Layout assignment lets the load's flow
// forward and converts the fp32 result for the store. Triton instead takes the backward slice of
// that conversion: the ops between it and one widening (an integer or float extension, a
// broadcast or an expand_dims) whose own operand cannot be recomputed (it comes from a load that
// anchors its layout, a dot, a loop). It recomputes the slice in the store's layout and converts
// the narrow operand of the widening instead. That moves fewer bytes through shared memory, and it
// decides the layout of everything in the slice: a scan or a reduction there adds in the store's
// layout's order, so the bits follow.
//
// The slice may hold elementwise ops, scans, reductions (along the slice dimension of the layout
// they must produce), broadcasts, expand_dims, constants, splats, ranges and loads of fewer
// elements than the kernel has threads (Triton repeats those: they hit in the cache); exactly one
// widening must end it where the rest cannot be recomputed, as in Triton. Ops with other users
// are copied, not moved.
//
// Triton hoists a conversion over one widening each time its remove-layout-conversions pass runs:
// three times for the conversions layout propagation makes from the loads' and stores' layouts,
// twice for those AccelerateMatmul's tensor-core layouts cause (they appear after the first run).
// RemoveRedundantConversions here has already moved conversions above the broadcasts and
// expand_dims that follow them; those count. So Liger's `acc * rsqrt(sum(x * x))[:, None]`
// converts the row statistic into the mma layout's slice and keeps the sum in the load's layout
// (two steps: broadcast, expand_dims), as Triton does, while a scanned bf16 load converts as bf16.
#include "gpu/Layout.h"
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"
#include "tir/Builder.h"

#include <map>
#include <set>

namespace tilec::gpu {
namespace {

using tir::OpCode;
using tir::Operation;
using tir::Value;

/// Triton's isExtOrBroadcastOp: integer and float extensions (fp8 to fp16 included), broadcast
/// and expand_dims.
bool isWidening(const Operation &op) {
  if (op.code() == OpCode::Broadcast || op.code() == OpCode::ExpandDims)
    return true;
  if (op.code() != OpCode::Cast)
    return false;
  tir::DType from = op.operand(0)->type().elem, to = op.result()->type().elem;
  bool floats = from.isFloat() && to.isFloat();
  bool integers = from.isInteger() && to.isInteger();
  return (floats || integers) && to.bits() > from.bits();
}

/// Triton's isExpensiveLoadOrStore, negated: a load of a scalar, or of fewer elements than the
/// kernel has threads, hits in the cache and may be repeated in another layout (fla's
/// `b_s + tl.load(dt_bias + o_s)[None, :]` before a scan: the bias comes along, so the
/// conversion still moves above the widening of `b_s`).
bool isCheapLoad(const Operation &op, int64_t numThreads) {
  if (op.code() != OpCode::Load)
    return false;
  const tir::Type &pointers = op.operand(0)->type();
  return !pointers.isTensor() || pointers.numElements() < numThreads;
}

/// Ops the slice may recompute in another layout.
bool isRecomputable(const Operation &op, int64_t numThreads) {
  if (isCheapLoad(op, numThreads))
    return true;
  switch (op.code()) {
  case OpCode::InlineAsm: // elementwise; repeating one with effects would repeat the effects
    return op.boolAttr("pure");
  case OpCode::MapElementwise:
  case OpCode::Constant:
  case OpCode::Splat:
  case OpCode::MakeRange:
  case OpCode::Broadcast:
  case OpCode::ExpandDims:
  case OpCode::Scan:
  case OpCode::Reduce:
    return true;
  default:
    return tir::isElementwise(op.code());
  }
}

/// The backward slice of a conversion: the layout each value must take, the ops to recompute
/// and the one widening above which the conversion moves.
struct Slice {
  std::map<const Value *, LayoutPtr> layout;
  std::set<const Operation *> ops;
  const Operation *widening = nullptr;
  int64_t numThreads = 0; // of the kernel: decides which loads may be repeated
};

bool addOperands(const Operation &op, const LayoutPtr &layout, Slice &slice, bool mayStop);

/// Adds `value` in `layout` to `slice`. With `mayStop`, a widening whose operand cannot be
/// recomputed ends the slice (once); without, everything up to values already in their layout
/// must be recomputable (Triton's getRematerializableSlice).
bool addToSlice(const Value *value, const LayoutPtr &layout, Slice &slice, bool mayStop) {
  if (sameLayout(layoutOf(value), layout))
    return true;
  if (auto it = slice.layout.find(value); it != slice.layout.end())
    return sameLayout(it->second, layout);
  const Operation *op = value->definingOp();
  if (!op || !isRecomputable(*op, slice.numThreads))
    return false;
  if (mayStop && isWidening(*op)) {
    Slice through = slice;
    if (addOperands(*op, layout, through, /*mayStop=*/false)) {
      slice = std::move(through);
      return true;
    }
    if (slice.widening)
      return false; // a second conversion would be needed
    slice.widening = op;
    slice.layout[value] = layout;
    return true;
  }
  return addOperands(*op, layout, slice, mayStop);
}

bool addOperands(const Operation &op, const LayoutPtr &layout, Slice &slice, bool mayStop) {
  for (unsigned r = 0; r < op.numResults(); ++r)
    slice.layout[op.result(r)] = layout; // a scan's results share one layout
  slice.ops.insert(&op);
  for (unsigned i = 0; i < op.numOperands(); ++i) {
    const Value *operand = op.operand(i);
    if (!operand->type().isTensor())
      continue;
    LayoutPtr wanted = operandLayoutFor(op, layout);
    if (!wanted || !addToSlice(operand, wanted, slice, mayStop))
      return false;
  }
  return true;
}

/// A tensor-core accumulator layout or a slice of one.
bool derivesFromTensorCoreLayout(const LayoutPtr &layout) {
  if (layout && layout->kind == LayoutKind::Slice)
    return derivesFromTensorCoreLayout(layout->parent);
  return isTensorCoreLayout(layout);
}

/// How many times Triton's remove-layout-conversions pass would get to hoist a conversion to
/// `target`: see the file comment.
unsigned hoistingRuns(const LayoutPtr &target) {
  return derivesFromTensorCoreLayout(target) ? 2 : 3;
}

class ConversionHoister {
public:
  explicit ConversionHoister(tir::Function &function) : function_(function) {}

  void run() {
    users_ = usersOf(function_);
    std::vector<Operation *> conversions;
    tir::walk(function_, [&](Operation &op) {
      if (op.code() == OpCode::ConvertLayout)
        conversions.push_back(&op);
    });
    bool changed = false;
    for (Operation *conversion : conversions)
      changed |= hoist(*conversion);
    if (changed)
      eraseDeadPureOps(function_);
  }

private:
  tir::Function &function_;
  std::map<const Value *, std::vector<Operation *>> users_;

  /// The broadcasts and expand_dims the conversion's result passes through alone before its
  /// users: the hoisting steps already taken.
  unsigned stepsTaken(const Operation &conversion) {
    unsigned steps = 0;
    const Value *v = conversion.result();
    while (true) {
      auto it = users_.find(v);
      if (it == users_.end() || it->second.size() != 1)
        return steps;
      const Operation *user = it->second.front();
      if (user->code() != OpCode::Broadcast && user->code() != OpCode::ExpandDims)
        return steps;
      ++steps;
      v = user->result();
    }
  }

  bool hoist(Operation &conversion) {
    LayoutPtr target = layoutOf(conversion.result());
    if (!target || isTensorCoreLayout(target) || isTensorCoreLayout(layoutOf(conversion.operand(0))))
      return false;
    if (stepsTaken(conversion) >= hoistingRuns(target))
      return false;
    Slice slice;
    slice.numThreads = 32 * static_cast<int64_t>(function_.numWarps);
    if (!addToSlice(conversion.operand(0), target, slice, /*mayStop=*/true) || !slice.widening)
      return false;

    // Recompute the slice in program order, each copy right after its original; the widening's
    // copy reads a conversion of its operand.
    std::map<const Value *, Value *> copies;
    std::vector<Operation *> order;
    tir::walk(function_, [&](Operation &op) {
      if (&op == slice.widening || slice.ops.count(&op))
        order.push_back(&op);
    });
    for (Operation *op : order) {
      tir::Builder b;
      tir::Block *block = op->parentBlock();
      b.restoreInsertionPoint({block, std::next(block->find(op))});
      b.setLoc(op->loc());
      std::vector<Value *> operands;
      for (unsigned i = 0; i < op->numOperands(); ++i) {
        Value *operand = op->operand(i);
        auto copy = copies.find(operand);
        operands.push_back(copy != copies.end() ? copy->second : operand);
      }
      if (op == slice.widening) {
        LayoutPtr resultLayout = slice.layout.at(op->result());
        Value *narrow = op->operand(0);
        operands[0] = b.createValue(OpCode::ConvertLayout, {narrow},
                                    narrow->type().withLayout(operandLayoutFor(*op, resultLayout)));
      }
      std::vector<tir::Type> types;
      for (unsigned r = 0; r < op->numResults(); ++r)
        types.push_back(op->result(r)->type().withLayout(slice.layout.at(op->result(r))));
      Operation *copy = cloneOp(b, *op, operands, types);
      for (unsigned r = 0; r < op->numResults(); ++r) {
        copy->result(r)->setNameHint(op->result(r)->nameHint());
        copies[op->result(r)] = copy->result(r);
      }
    }
    replaceAllUses(function_, conversion.result(), copies.at(conversion.operand(0)));
    return true;
  }
};

} // namespace

void runHoistConversions(tir::Function &function) {
  ConversionHoister(function).run();
}

} // namespace tilec::gpu
