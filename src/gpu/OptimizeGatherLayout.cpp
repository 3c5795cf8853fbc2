// Triton's layout for tl.gather (OptimizeThreadLocality's gather rewrite, Triton 3.6): every gather
// runs in a warp-local blocked layout of its own, chosen so that each column along the gathered
// axis lies within one warp, with as many of the warp's lanes along that axis as it has elements:
//
//   threadsPerWarp[axis] = min(shape[axis], 32); the lanes left over go to the other dimensions
//   in the source's thread order, each taking at most its size; warps go to the other dimensions
//   in the source's warp order, as many as fit; one element per thread off the axis, the rest of
//   the axis in each thread; lanes and warps still left over repeat along the axis.
//
// The index and the result take that layout, and the gather is an anchor of layout propagation
// (AssignLayouts): what is computed from its result runs in its layout, and so do the reductions
// of those values. That fixes the order of their floating-point sums (fla's
// chunk_dplr_fwd_A_kernel_intra_sub_intra: `tl.sum(q * gather(k, row) * decay, 1)`), which is why
// tilec follows it even though its gather goes through shared memory, in any layout.
#include "gpu/Layout.h"
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"
#include "tir/IR.h"
#include "tir/UseIndex.h"

#include <algorithm>
#include <numeric>

namespace tilec::gpu {
namespace {

using tir::OpCode;
using tir::Operation;
using tir::Value;

/// The layout that decides the gather's thread and warp orders: the source's, or that of the
/// first value with a layout up its chain of elementwise ops (a load's, from Coalesce), as the
/// source has after Triton's first layout propagation; null when there is none.
LayoutPtr sourceLayout(const Value *source) {
  for (unsigned depth = 0; source && depth < 16; ++depth) {
    if (const LayoutPtr &layout = source->type().layout)
      return layout->kind == LayoutKind::Blocked ? layout : nullptr;
    const Operation *producer = source->definingOp();
    if (!producer || !tir::sharesOneLayout(producer->code()))
      return nullptr;
    const Value *next = nullptr;
    for (const Value *operand : producer->operands())
      if (operand->type().isTensor() && operand->type().shape == source->type().shape) {
        next = operand;
        break;
      }
    source = next;
  }
  return nullptr;
}

LayoutPtr warpLocalGatherLayout(const Operation &gather, unsigned numWarps) {
  const std::vector<int64_t> &shape = gather.operand(0)->type().shape;
  const auto rank = static_cast<unsigned>(shape.size());
  const auto axis = static_cast<unsigned>(gather.intAttr("axis"));
  std::vector<unsigned> threadOrder(rank), warpOrder;
  std::iota(threadOrder.rbegin(), threadOrder.rend(), 0u); // the default: last dimension first
  warpOrder = threadOrder;
  if (LayoutPtr source = sourceLayout(gather.operand(0))) {
    threadOrder = source->order;
    warpOrder = source->warpsOrder();
  }
  std::vector<unsigned> sizePerThread(rank, 1), threadsPerWarp(rank, 1), warpsPerCTA(rank, 1);
  std::vector<unsigned> order{axis};
  const auto size = [&](unsigned d) { return static_cast<unsigned>(shape[d]); };
  threadsPerWarp[axis] = std::min(size(axis), 32u);
  unsigned lanesLeft = 32 / threadsPerWarp[axis];
  for (unsigned d : threadOrder) {
    if (d == axis)
      continue;
    order.push_back(d);
    threadsPerWarp[d] = std::min(size(d), lanesLeft);
    lanesLeft /= threadsPerWarp[d];
  }
  unsigned warpsLeft = numWarps;
  for (unsigned d : warpOrder) {
    if (d == axis)
      continue;
    warpsPerCTA[d] = std::min(std::max(size(d) / threadsPerWarp[d], 1u), warpsLeft);
    warpsLeft /= warpsPerCTA[d];
  }
  sizePerThread[axis] = std::max(size(axis) / threadsPerWarp[axis], 1u);
  threadsPerWarp[axis] *= lanesLeft;
  warpsPerCTA[axis] *= warpsLeft;
  return makeBlocked(sizePerThread, threadsPerWarp, warpsPerCTA, order);
}

} // namespace

void runOptimizeGatherLayout(tir::Function &function) {
  std::vector<Operation *> gathers;
  tir::walk(function, [&](Operation &op) {
    if (op.code() == OpCode::Gather && op.result()->type().isTensor() && !layoutOf(op.result()))
      gathers.push_back(&op);
  });
  if (gathers.empty())
    return;
  // As Coalesce does for memory accesses: the index is converted to the layout, and the result
  // back to none for its users, which AssignLayouts then lets the layout reach.
  tir::UseIndex uses(function.body());
  for (Operation *gather : gathers) {
    LayoutPtr layout = warpLocalGatherLayout(*gather, function.numWarps);
    tir::Value *index = insertConvert(gather->operand(1), layout, gather);
    uses.addUser(*index->definingOp());
    uses.setOperand(*gather, 1, index);
    retypeResult(uses, *gather, 0, layout);
  }
}

} // namespace tilec::gpu
