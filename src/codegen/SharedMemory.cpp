#include "codegen/SharedMemory.h"

#include "codegen/Distribution.h"
#include "codegen/SharedTile.h"
#include "codegen/WarpShuffleConversion.h"
#include "frontend/SourceManager.h"
#include "gpu/Arch.h"
#include "gpu/Mma.h"

#include <algorithm>
#include <climits>
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
  if (tir::isAtomic(op.code()))
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
      !(*op.operand(0)->type().layout == *op.result()->type().layout)) {
    if (planWarpShuffle(distributionOf(op.operand(0)->type()), distributionOf(op.result()->type())))
      return 0; // by warp shuffles
    return conversionPlan(op).bytes();
  }
  if (op.code() == OpCode::Reshape && op.operand(0)->type().layout && !op.hasAttr("reinterpret")) {
    const tir::Type &type = op.operand(0)->type();
    if (keepsRowMajorRegisters(distributionOf(type), distributionOf(op.result()->type())))
      return 0; // no data moves
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
    bool atomic = tir::isAtomic(op.code());
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
  return planPipelineBuffers(function).end;
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

/// Numbers the ops of `block` in program order (an op before the ops of its regions) from
/// ops.size(): `ops` gets them in that order, `lastInside` the position of the last op inside each
/// (its own where it has no regions).
static void numberOps(const tir::Block &block, std::vector<const tir::Operation *> &ops,
                      std::vector<unsigned> &lastInside) {
  for (const auto &op : block.ops()) {
    unsigned position = static_cast<unsigned>(ops.size());
    ops.push_back(op.get());
    lastInside.push_back(position);
    for (unsigned r = 0; r < op->numRegions(); ++r)
      numberOps(op->region(r).block(), ops, lastInside);
    lastInside[position] = static_cast<unsigned>(ops.size()) - 1;
  }
}

static bool isLoop(const tir::Operation &op) {
  return op.code() == OpCode::For || op.code() == OpCode::While;
}

PipelineBufferPlan planPipelineBuffers(const tir::Function &function) {
  PipelineBufferPlan plan;
  const unsigned count = static_cast<unsigned>(function.pipelineBuffers.size());
  if (count == 0)
    return plan;
  std::vector<const tir::Operation *> ops;
  std::vector<unsigned> lastInside;
  numberOps(function.body(), ops, lastInside);

  // Live ranges in program order: from the first copy into the buffer (the prologue's, before
  // its loop) to its last use.
  plan.live.assign(count, {UINT_MAX, 0});
  for (unsigned position = 0; position < ops.size(); ++position) {
    const tir::Operation &op = *ops[position];
    if (op.code() != OpCode::AsyncCopy && op.code() != OpCode::TmaCopy &&
        op.code() != OpCode::LocalLoad)
      continue;
    auto &[first, last] = plan.live.at(static_cast<unsigned>(op.intAttr("buffer")));
    first = std::min(first, position);
    last = std::max(last, position);
  }
  // A buffer that is live where a loop starts or ends and used inside it is live in all of it
  // (the next iteration reads what this one wrote); loops around that loop may extend it again.
  for (auto &[first, last] : plan.live) {
    if (first == UINT_MAX)
      continue;
    for (bool changed = true; changed;) {
      changed = false;
      for (unsigned loop = 0; loop < ops.size(); ++loop) {
        if (!isLoop(*ops[loop]))
          continue;
        unsigned end = lastInside[loop];
        if (first < loop && last >= loop && last < end) {
          last = end;
          changed = true;
        }
        if (first > loop && first <= end && last > end) {
          first = loop;
          changed = true;
        }
      }
    }
  }

  // Each buffer goes above the scratch area of the ops that run while it is live, and above the
  // buffers placed before it that are live at the same time. The others were done with it
  // before it is first written, or start after its last use: the pipelined loop that reads it
  // is followed by async_wait(0), which waits for every copy and synchronises the threads
  // (bar.sync) after the last read, and the scratch ops outside its live range wait for a
  // barrier before they write (KernelLowering::beginSharedWrite), as the copies do after them.
  // So the buffers of pipelined loops that run one after another share their bytes, as
  // Triton's allocation reuses them.
  std::vector<unsigned> scratch(ops.size());
  for (unsigned position = 0; position < ops.size(); ++position)
    scratch[position] = sharedMemoryBytes(*ops[position]);
  plan.offsets.assign(count, 0);
  for (unsigned b = 0; b < count; ++b) {
    auto [first, last] = plan.live[b];
    if (first == UINT_MAX) // no op uses it
      continue;
    unsigned offset = 0;
    for (unsigned position = first; position <= last; ++position)
      offset = std::max(offset, scratch[position]);
    for (unsigned p = 0; p < b; ++p) {
      auto [otherFirst, otherLast] = plan.live[p];
      if (otherFirst != UINT_MAX && otherFirst <= last && first <= otherLast)
        offset = std::max(offset, plan.offsets[p] + function.pipelineBuffers[p].slots *
                                                        pipelineSlotBytes(function, p));
    }
    plan.offsets[b] = alignTo(offset, pipelineSlotAlignment(function, b));
    plan.end = std::max(plan.end, plan.offsets[b] + function.pipelineBuffers[b].slots *
                                                        pipelineSlotBytes(function, b));
  }
  return plan;
}

unsigned pipelineBufferOffset(const tir::Function &function, unsigned buffer) {
  return planPipelineBuffers(function).offsets.at(buffer);
}

std::string describeSharedMemory(const tir::Function &function) {
  unsigned scratch = 0;
  largestSharedMemoryUser(function, scratch);
  std::string text = "// ----- shared memory of " + function.name() + ": " +
                     std::to_string(sharedMemoryBytes(function)) + " bytes -----\n";
  text += "// scratch area: 0.." + std::to_string(scratch) + "\n";
  PipelineBufferPlan plan = planPipelineBuffers(function);
  for (unsigned b = 0; b < plan.offsets.size(); ++b) {
    unsigned bytes = function.pipelineBuffers[b].slots * pipelineSlotBytes(function, b);
    text += "// pipeline buffer " + std::to_string(b) + ": " + std::to_string(plan.offsets[b]) +
            ".." + std::to_string(plan.offsets[b] + bytes) + " (" +
            std::to_string(function.pipelineBuffers[b].slots) + " slots)";
    auto [first, last] = plan.live[b];
    if (first == UINT_MAX)
      text += ", unused\n";
    else
      text += ", live at ops " + std::to_string(first) + ".." + std::to_string(last) + "\n";
  }
  if (function.numTmaBarriers)
    text += "// mbarriers: " + std::to_string(tmaBarrierOffset(function)) + ".." +
            std::to_string(tmaBarrierOffset(function) + 8 * function.numTmaBarriers) + "\n";
  return text;
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
  // The pipeline buffer that ends highest, and how many live with it (its loop's tiles).
  PipelineBufferPlan buffers = planPipelineBuffers(function);
  unsigned pipelined = buffers.end + 8 * function.numTmaBarriers;
  unsigned highest = 0, tiles = 0;
  if (pipelined > bytes) {
    bytes = pipelined;
    for (unsigned b = 0; b < buffers.offsets.size(); ++b)
      if (buffers.offsets[b] + function.pipelineBuffers[b].slots * pipelineSlotBytes(function, b) ==
          buffers.end)
        highest = b;
    auto [first, last] = buffers.live[highest];
    for (auto [otherFirst, otherLast] : buffers.live)
      tiles += otherFirst <= last && first <= otherLast;
    largest = firstCopyInto(function, highest);
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
    what = "the software pipeline of this loop's loads (" + std::to_string(tiles) + " tiles, " +
           std::to_string(function.pipelineBuffers[highest].slots) + " slots each)";
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
