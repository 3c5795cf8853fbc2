#include "codegen/SharedMemory.h"

#include "codegen/Distribution.h"
#include "codegen/SharedTile.h"
#include "gpu/Mma.h"

#include <algorithm>
#include <set>

namespace tilec::codegen {

using tir::OpCode;

/// Bytes one element takes in shared memory (booleans as bytes, pointers as 64-bit integers).
static unsigned elementBytes(const tir::DType &type) {
  if (type.isPointer())
    return 8;
  return std::max(1u, type.bytes());
}

unsigned distinctWarpsAlongAxis(const tir::Operation &reduce) {
  const tir::Type &type = reduce.operand(0)->type();
  Distribution dist = distributionOf(type);
  unsigned axis = static_cast<unsigned>(reduce.intAttr("axis"));
  int64_t perWarp = int64_t(dist.spt(axis)) * dist.tpw(axis);
  int64_t warps = std::max<int64_t>(1, dist.shape[axis] / perWarp);
  return static_cast<unsigned>(std::min<int64_t>(dist.wpc(axis), warps));
}

bool atomicResultIsReplicated(const Distribution &dist) {
  if (!dist.removedRootDims.empty())
    return true;
  for (unsigned d = 0; d < dist.rank(); ++d)
    if (dist.wraps(d))
      return true;
  return false;
}

/// Slots of a reduction's partial results: one per result element and warp along the axis.
static int64_t reductionSlots(const tir::Operation &op) {
  const tir::Type &result = op.result()->type();
  return (result.isScalar() ? 1 : result.numElements()) * distinctWarpsAlongAxis(op);
}

unsigned argReduceIndexOffset(const tir::Operation &argReduce) {
  int64_t bytes = reductionSlots(argReduce) * elementBytes(argReduce.operand(0)->type().elem);
  return static_cast<unsigned>((bytes + 7) / 8 * 8);
}

/// Bytes the broadcast of an atomic's result takes, when several threads hold its elements.
static unsigned atomicResultBytes(const tir::Operation &op) {
  if (op.numResults() != 1)
    return 0;
  const tir::Type &type = op.result()->type();
  if (type.isTensor() && (!type.layout || !atomicResultIsReplicated(distributionOf(type))))
    return 0;
  return static_cast<unsigned>((type.isScalar() ? 1 : type.numElements()) *
                               elementBytes(type.elem));
}

unsigned sharedMemoryBytes(const tir::Operation &op) {
  if (op.code() == OpCode::AtomicRMW || op.code() == OpCode::AtomicCAS)
    return atomicResultBytes(op);
  if (op.code() == OpCode::ArgReduce && op.operand(0)->type().layout) {
    if (distinctWarpsAlongAxis(op) <= 1)
      return 0;
    return argReduceIndexOffset(op) + static_cast<unsigned>(reductionSlots(op) * 4);
  }
  if (op.code() == OpCode::Reduce && op.operand(0)->type().layout) {
    unsigned warps = distinctWarpsAlongAxis(op);
    if (warps <= 1)
      return 0;
    const tir::Type &result = op.result()->type();
    int64_t slots = result.isScalar() ? 1 : result.numElements();
    return static_cast<unsigned>(slots * warps * elementBytes(result.elem));
  }
  if (op.code() == OpCode::ConvertLayout && op.operand(0)->type().layout &&
      !(*op.operand(0)->type().layout == *op.result()->type().layout))
    return conversionPlan(op.operand(0)->type(), op.result()->type()).bytes();
  if (op.code() == OpCode::Reshape && op.operand(0)->type().layout) {
    const tir::Type &type = op.operand(0)->type();
    return static_cast<unsigned>(type.numElements() * elementBytes(type.elem));
  }
  if (op.code() == OpCode::Dot && op.operand(2)->type().layout)
    return gpu::isMmaV2Dot(op) ? mmaDotPlans(op).bytes() : dotPlans(op).bytes();
  return 0;
}

unsigned sharedMemoryBytes(const tir::Function &function) {
  // An atomic's result is broadcast only when something uses it.
  std::set<const tir::Value *> used;
  tir::walk(const_cast<tir::Function &>(function), [&](tir::Operation &op) {
    for (const tir::Value *v : op.operands())
      used.insert(v);
  });
  unsigned bytes = 0;
  tir::walk(const_cast<tir::Function &>(function), [&](tir::Operation &op) {
    bool atomic = op.code() == OpCode::AtomicRMW || op.code() == OpCode::AtomicCAS;
    if (atomic && (op.numResults() != 1 || !used.count(op.result())))
      return;
    bytes = std::max(bytes, sharedMemoryBytes(op));
  });
  if (!function.pipelineBuffers.empty()) {
    unsigned last = static_cast<unsigned>(function.pipelineBuffers.size()) - 1;
    bytes = std::max(bytes,
                     pipelineBufferOffset(function, last) +
                         function.pipelineBuffers[last].stages * pipelineSlotBytes(function, last));
  }
  return (bytes + 15) / 16 * 16;
}

/// The scratch area the ops of pipelined loops use. The pipeline buffers are live only around
/// those loops (from the prologue's copies to the wait after the loop, which synchronises), so
/// the scratch of every other op (the epilogue's conversion of the accumulator, typically) may
/// overlap them.
static unsigned pipelinedLoopScratchBytes(const tir::Function &function) {
  unsigned bytes = 0;
  tir::walk(const_cast<tir::Function &>(function), [&](tir::Operation &loop) {
    if (loop.code() != OpCode::For)
      return;
    bool pipelined = false;
    for (const auto &op : loop.region(0).block().ops())
      pipelined |= op->code() == OpCode::AsyncCopy;
    if (!pipelined)
      return;
    tir::walk(loop.region(0).block(),
              [&](tir::Operation &op) { bytes = std::max(bytes, sharedMemoryBytes(op)); });
  });
  return bytes;
}

unsigned pipelineSlotBytes(const tir::Function &function, unsigned buffer) {
  return (mmaOperandPlan(function.pipelineBuffers.at(buffer).tile).bytes() + 127) / 128 * 128;
}

unsigned pipelineBufferOffset(const tir::Function &function, unsigned buffer) {
  unsigned offset = (pipelinedLoopScratchBytes(function) + 127) / 128 * 128;
  for (unsigned b = 0; b < buffer; ++b)
    offset += function.pipelineBuffers[b].stages * pipelineSlotBytes(function, b);
  return offset;
}

} // namespace tilec::codegen
