#include "codegen/SharedMemory.h"

#include "codegen/Distribution.h"
#include "codegen/SharedTile.h"
#include "frontend/SourceManager.h"
#include "gpu/Arch.h"
#include "gpu/Mma.h"

#include <algorithm>
#include <llvm/Support/MathExtras.h>
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
  if (reduce.hasAttr("within_thread")) // each thread's own elements only
    return 1;
  const tir::Type &type = reduce.operand(0)->type();
  Distribution dist = distributionOf(type);
  unsigned axis = static_cast<unsigned>(reduce.intAttr("axis"));
  int64_t warps = std::max<int64_t>(1, dist.shape[axis] / dist.perWarp(axis));
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

unsigned reduceOperandOffset(const tir::Operation &reduce, unsigned operand) {
  int64_t offset = 0;
  for (unsigned i = 0; i < operand; ++i)
    offset += (reductionSlots(reduce) * elementBytes(reduce.operand(i)->type().elem) + 7) / 8 * 8;
  return static_cast<unsigned>(offset);
}

ScanShape scanShape(const tir::Operation &scan) {
  Distribution dist = distributionOf(scan.operand(0)->type());
  unsigned axis = static_cast<unsigned>(scan.intAttr("axis"));
  int64_t length = dist.shape[axis];
  ScanShape s;
  s.inThread = static_cast<unsigned>(std::min<int64_t>(dist.spt(axis), length));
  s.lanes = static_cast<unsigned>(
      std::min<int64_t>(dist.tpw(axis), std::max<int64_t>(1, length / dist.spt(axis))));
  s.warps = distinctWarpsAlongAxis(scan);
  s.chunks = dist.elemsPerThread[axis] / dist.spt(axis);
  int64_t lines = 1;
  for (unsigned d = 0; d < dist.rank(); ++d)
    if (d != axis)
      lines *= dist.shape[d];
  s.lines = static_cast<unsigned>(lines);
  return s;
}

unsigned scanOperandOffset(const tir::Operation &scan, unsigned operand) {
  ScanShape s = scanShape(scan);
  int64_t slots = int64_t(s.lines) * s.chunks * s.warps;
  int64_t offset = 0;
  for (unsigned i = 0; i < operand; ++i)
    offset += (slots * elementBytes(scan.operand(i)->type().elem) + 7) / 8 * 8;
  return static_cast<unsigned>(offset);
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
  if (op.code() == OpCode::Histogram)
    return static_cast<unsigned>(op.intAttr("num_bins") * 4);
  if (op.code() == OpCode::Gather) {
    const tir::Type &src = op.operand(0)->type();
    return static_cast<unsigned>(src.numElements() * elementBytes(src.elem));
  }
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
    if (op.numOperands() == 1)
      return static_cast<unsigned>(slots * warps * elementBytes(result.elem));
    unsigned last = op.numOperands() - 1;
    return reduceOperandOffset(op, last) +
           static_cast<unsigned>(slots * warps * elementBytes(op.operand(last)->type().elem));
  }
  if (op.code() == OpCode::Scan && op.operand(0)->type().layout) {
    if (distinctWarpsAlongAxis(op) <= 1)
      return 0;
    // One slot per line, chunk and warp along the axis: each warp's chunk totals.
    return scanOperandOffset(op, op.numOperands());
  }
  if (op.code() == OpCode::ConvertLayout && op.operand(0)->type().layout &&
      !(*op.operand(0)->type().layout == *op.result()->type().layout))
    return conversionPlan(op.operand(0)->type(), op.result()->type()).bytes();
  if (op.code() == OpCode::Reshape && op.operand(0)->type().layout && !op.hasAttr("reinterpret")) {
    const tir::Type &type = op.operand(0)->type();
    return static_cast<unsigned>(type.numElements() * elementBytes(type.elem));
  }
  if (op.code() == OpCode::TensormapCreate) // the map is built here before it is copied out
    return tir::kKernelTensorMapBytes;
  if (op.code() == OpCode::TmaStore && op.operand(0)->type().layout)
    return tmaStorePlan(op.operand(0)->type()).bytes();
  if (op.code() == OpCode::Dot && op.operand(2)->type().layout)
    return gpu::isTensorCoreDot(op) ? mmaDotPlans(op).bytes() : dotPlans(op).bytes();
  return 0;
}

/// The operation of `function` that needs the most shared memory (null when none needs any),
/// and how much.
static const tir::Operation *largestSharedMemoryUser(const tir::Function &function,
                                                     unsigned &bytes) {
  // An atomic's result is broadcast only when something uses it.
  std::set<const tir::Value *> used;
  tir::walk(const_cast<tir::Function &>(function), [&](tir::Operation &op) {
    for (const tir::Value *v : op.operands())
      used.insert(v);
  });
  bytes = 0;
  const tir::Operation *largest = nullptr;
  tir::walk(const_cast<tir::Function &>(function), [&](tir::Operation &op) {
    bool atomic = op.code() == OpCode::AtomicRMW || op.code() == OpCode::AtomicCAS;
    if (atomic && (op.numResults() != 1 || !used.count(op.result())))
      return;
    unsigned opBytes = sharedMemoryBytes(op);
    if (opBytes > bytes) {
      bytes = opBytes;
      largest = &op;
    }
  });
  return largest;
}

/// The first async copy of pipeline buffer `buffer`: where the diagnostics point.
static const tir::Operation *firstCopyInto(const tir::Function &function, unsigned buffer) {
  const tir::Operation *first = nullptr;
  tir::walk(const_cast<tir::Function &>(function), [&](tir::Operation &op) {
    if (!first && (op.code() == OpCode::AsyncCopy || op.code() == OpCode::TmaCopy) &&
        static_cast<unsigned>(op.intAttr("buffer")) == buffer)
      first = &op;
  });
  return first;
}

/// Where the pipeline buffers end (0 without any).
static unsigned pipelineBuffersEnd(const tir::Function &function) {
  if (function.pipelineBuffers.empty())
    return 0;
  unsigned last = static_cast<unsigned>(function.pipelineBuffers.size()) - 1;
  return pipelineBufferOffset(function, last) +
         function.pipelineBuffers[last].slots * pipelineSlotBytes(function, last);
}

unsigned tmaBarrierOffset(const tir::Function &function) {
  unsigned bytes = 0;
  largestSharedMemoryUser(function, bytes);
  return (std::max(bytes, pipelineBuffersEnd(function)) + 7) / 8 * 8;
}

unsigned sharedMemoryBytes(const tir::Function &function) {
  unsigned bytes = tmaBarrierOffset(function) + 8 * function.numTmaBarriers;
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
      pipelined |= op->code() == OpCode::AsyncCopy || op->code() == OpCode::TmaCopy;
    if (!pipelined)
      return;
    tir::walk(loop.region(0).block(),
              [&](tir::Operation &op) { bytes = std::max(bytes, sharedMemoryBytes(op)); });
  });
  return bytes;
}

unsigned pipelineSlotAlignment(const tir::Function &function, unsigned buffer) {
  if (function.pipelineBuffers.at(buffer).wgmmaOperand >= 0)
    return 1024;
  // A whole number of rows, so that the mma.sync fragment addresses may step along a row by
  // XOR (LowerDotMma.cpp: fragment addresses).
  SharedTilePlan plan = pipelineSlotPlan(function, buffer);
  uint64_t rowBytes = uint64_t(plan.rowStride()) * plan.elemBytes;
  if (llvm::isPowerOf2_64(rowBytes) && rowBytes > 128 && rowBytes <= 1024)
    return static_cast<unsigned>(rowBytes);
  return 128;
}

static unsigned alignTo(unsigned bytes, unsigned alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

unsigned pipelineSlotBytes(const tir::Function &function, unsigned buffer) {
  return alignTo(pipelineSlotPlan(function, buffer).bytes(),
                 pipelineSlotAlignment(function, buffer));
}

unsigned pipelineBufferOffset(const tir::Function &function, unsigned buffer) {
  unsigned offset = pipelinedLoopScratchBytes(function);
  for (unsigned b = 0; b <= buffer; ++b) {
    offset = alignTo(offset, pipelineSlotAlignment(function, b));
    if (b < buffer)
      offset += function.pipelineBuffers[b].slots * pipelineSlotBytes(function, b);
  }
  return offset;
}

unsigned maxSharedMemoryPerBlock(const std::string &arch) {
  unsigned sm = gpu::smVersion(arch);
  // The opt-in maximum of the CUDA programming guide's table of compute capabilities, which a
  // launcher gets with cudaFuncAttributeMaxDynamicSharedMemorySize (Triton's does the same).
  if (sm >= 120)
    return 101376; // 99 KiB
  if (sm >= 90)
    return 232448; // 227 KiB (sm_90, sm_100)
  if (sm == 80 || sm == 87)
    return 166912; // 163 KiB
  if (sm >= 86)
    return 101376; // 99 KiB (sm_86, sm_89)
  if (sm == 75)
    return 65536;
  if (sm >= 70)
    return 98304;
  return 49152;
}

void checkSharedMemoryLimit(const tir::Function &function, const TargetOptions &options) {
  unsigned bytes = 0;
  const tir::Operation *largest = largestSharedMemoryUser(function, bytes);
  unsigned limit = maxSharedMemoryPerBlock(options.arch);
  unsigned pipelined = pipelineBuffersEnd(function) + 8 * function.numTmaBarriers;
  if (pipelined > bytes) {
    bytes = pipelined;
    largest = firstCopyInto(function, 0);
  }
  if (!largest || (bytes + 15) / 16 * 16 <= limit)
    return;
  // Named as the user wrote it where possible; the type without its layout, which says little.
  std::string what;
  switch (largest->code()) {
  case OpCode::ConvertLayout:
    what = "the layout conversion (convert_layout) of " +
           largest->operand(0)->type().withLayout(nullptr).str();
    break;
  case OpCode::Dot:
    what = "tl.dot into " + largest->result()->type().withLayout(nullptr).str();
    break;
  case OpCode::AsyncCopy:
  case OpCode::TmaCopy:
    what = "the software pipeline of this loop's loads (" +
           std::to_string(function.pipelineBuffers.size()) + " tiles, " +
           std::to_string(function.pipelineBuffers[0].slots) + " slots each)";
    break;
  default:
    what = "'" + std::string(largest->name()) + "' of " +
           largest->operand(0)->type().withLayout(nullptr).str();
    break;
  }
  std::string message = what + " needs " + std::to_string(bytes) +
                        " bytes of shared memory, more than the " + std::to_string(limit) +
                        " bytes a block can use on " + options.arch + "; use smaller blocks";
  if (options.sources)
    options.sources->error(largest->loc(), message, CompileError::Kind::OutOfResources);
  throw CompileError(std::to_string(largest->loc().line) + ":" +
                         std::to_string(largest->loc().col) + ": error: " + message,
                     false, CompileError::Kind::OutOfResources);
}

} // namespace tilec::codegen
