// OptimizeReshapeLayout: a reshape that may reorder its elements (tl.sum(x) and tl.max(x)
// without an axis flatten x this way, as Triton's semantic.reduction does) and feeds only a
// reduction takes the 1-D blocked layout one element a thread a turn, and keeps each thread's
// registers as they are ("reinterpret": no data moves). The reduction then folds each thread's
// registers in their order, then the warp's lanes, then the warps: the order of Triton's, whose
// OptimizeThreadLocality pass gives such a reshape the same layout and reinterprets its
// registers too. Only where no element is held twice (the operand's blocked tile divides its
// shape) and tilec numbers a thread's elements as Triton numbers its registers (Distribution.h:
// each dimension's consecutive elements and repeats together, fastest dimension first; Triton
// takes every dimension's consecutive elements before any repeat: the same where only the
// fastest dimension has several, or where only the slowest one repeats); otherwise the reshape
// stays a row-major copy through shared memory.
//
// A dot's accumulator (and what is computed from it in the same layout) is Triton's NVIDIA MMA
// layout, whose registers Triton numbers per instruction tile: a row's two columns, the same
// columns 8 rows down, then the next 8 columns, then the next 16 rows. tilec's blocked numbering
// takes all of a row's columns first, so such a reshape is marked register_order = "mma": the
// lowering hands the registers over in Triton's order.
#include "gpu/Layout.h"
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"

namespace tilec::gpu {

using tir::OpCode;
using tir::Operation;

namespace {

/// Whether every element of a tensor of `shape` in `layout` is held by exactly one thread.
bool holdsEachElementOnce(const Layout &layout, const std::vector<int64_t> &shape) {
  if (layout.kind != LayoutKind::Blocked)
    return false;
  for (unsigned d = 0; d < shape.size(); ++d) {
    int64_t tile = int64_t(layout.sizePerThread[d]) * layout.threadsPerWarp[d] * layout.reps(d) *
                   layout.warpsPerCTA[d];
    if (shape[d] % tile != 0)
      return false;
  }
  return true;
}

/// Whether tilec's numbering of a thread's elements in `layout`, for a tensor of `shape`, is
/// Triton's register order: where only the fastest dimension holds several consecutive elements,
/// or where only the slowest dimension repeats the tile (an FMA dot's [4, 4] accumulator on two
/// tiles of rows): tilec numbers a dimension's repeats with its consecutive elements, Triton
/// numbers the whole tile first, and the two agree there.
bool numbersElementsAsTriton(const Layout &layout, const std::vector<int64_t> &shape) {
  bool onlyFastestWide = true, onlySlowestRepeats = true;
  for (unsigned d = 0; d < layout.rank(); ++d) {
    if (d != layout.order[0] && layout.sizePerThread[d] != 1)
      onlyFastestWide = false;
    int64_t tile = int64_t(layout.sizePerThread[d]) * layout.threadsPerWarp[d] * layout.reps(d) *
                   layout.warpsPerCTA[d];
    if (d != layout.order.back() && shape[d] != tile)
      onlySlowestRepeats = false;
  }
  return onlyFastestWide || (onlySlowestRepeats && layout.repsInWarp.empty());
}

/// Whether `layout` is the accumulator layout of one of `function`'s tensor-core dots.
bool isDotAccumulator(tir::Function &function, const Layout &layout) {
  if (!isMmaV2AccumulatorLayout(layout) && !isMmaV3AccumulatorLayout(layout))
    return false;
  bool found = false;
  tir::walk(function, [&](Operation &op) {
    if (op.code() != OpCode::Dot || !op.hasAttr("engine"))
      return;
    LayoutPtr result = layoutOf(op.result());
    if (result && *result == layout)
      found = true;
  });
  return found;
}

} // namespace

void runOptimizeReshapeLayout(tir::Function &function) {
  std::map<const tir::Value *, std::vector<Operation *>> users = usersOf(function);
  tir::walk(function, [&](Operation &op) {
    if (op.code() != OpCode::Reshape || !op.hasAttr("can_reorder") ||
        op.result()->type().rank() != 1)
      return;
    const tir::Type &from = op.operand(0)->type();
    LayoutPtr source = layoutOf(op.operand(0));
    // A 1-D tensor flattened to itself in the layout it already has (tl.sum(x) of a 1-D x) moves
    // nothing, even where its layout holds elements twice: Triton's view of the same type.
    LayoutPtr result = layoutOf(op.result());
    if (source && result && from.shape == op.result()->type().shape && *source == *result) {
      op.setAttr("reinterpret", true);
      return;
    }
    const std::vector<Operation *> &readers = users[op.result()];
    if (!source || readers.size() != 1 || readers[0]->code() != OpCode::Reduce ||
        !holdsEachElementOnce(*source, from.shape) || !numbersElementsAsTriton(*source, from.shape))
      return;
    const unsigned numWarps = source->numWarps();
    if (from.numElements() % (32 * int64_t(numWarps)) != 0)
      return;
    op.result()->setType(op.result()->type().withLayout(makeBlocked({1}, {32}, {numWarps}, {0})));
    op.setAttr("reinterpret", true);
    if (isDotAccumulator(function, *source))
      op.setAttr("register_order", std::string("mma"));
  });
}

} // namespace tilec::gpu
