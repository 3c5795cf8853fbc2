// How much shared memory a laid-out kernel needs: the largest of what its cross-warp reductions
// and its layout conversions use (they run one after another, separated by barriers, and share
// one scratch area at offset 0), and the software pipeline's buffers, which share their bytes
// with the scratch of the ops and the buffers not live at the same time (planPipelineBuffers).
// The lowering and the metadata ask the same functions, so they agree.
#pragma once

#include "codegen/Distribution.h"
#include "codegen/TargetOptions.h"
#include "tir/IR.h"

namespace tilec::codegen {

/// Bytes of shared memory one operation uses (0 for most).
unsigned sharedMemoryBytes(const tir::Operation &op);
/// Bytes of shared memory `function` needs, a multiple of 16: the scratch area the ops above share
/// (they run one after another, separated by barriers), the pipeline buffers, the mbarriers.
unsigned sharedMemoryBytes(const tir::Function &function);

/// Bytes of one slot of pipeline buffer `buffer` (Function::pipelineBuffers), and where the
/// buffer starts (planPipelineBuffers), each slot aligned to pipelineSlotAlignment.
unsigned pipelineSlotBytes(const tir::Function &function, unsigned buffer);
/// Where slots of `buffer` start: at multiples of 1024 bytes for wgmma's NVMMA tiles (the
/// hardware swizzles shared-memory address bits 4-6 with bits 7-9), else of 128 bytes or of the
/// tile's row where that is a larger power of two (up to 1024).
unsigned pipelineSlotAlignment(const tir::Function &function, unsigned buffer);
unsigned pipelineBufferOffset(const tir::Function &function, unsigned buffer);

/// Where the pipeline buffers lie. Each buffer is live from the first copy into it to its last
/// use, over the whole of any loop it is used in and live around; it lies above the scratch area
/// of the ops in that range and above the buffers before it that are live at the same time, and
/// shares its bytes with the others (those of pipelined loops that run one after another).
struct PipelineBufferPlan {
  /// Where each buffer's first slot starts (Function::pipelineBuffers order).
  std::vector<unsigned> offsets;
  /// Each buffer's live range: the positions of its first and last op in program order (an op
  /// before the ops of its regions); {UINT_MAX, 0} for a buffer no op uses.
  std::vector<std::pair<unsigned, unsigned>> live;
  /// Where the last of them ends (0 without any).
  unsigned end = 0;
};
PipelineBufferPlan planPipelineBuffers(const tir::Function &function);
/// The layout of `function`'s shared memory in words (the scratch area, each pipeline buffer's
/// offset, bytes and live range, the mbarriers), for --print-after-all.
std::string describeSharedMemory(const tir::Function &function);
/// Where the TMA copies' mbarriers (Function::numTmaBarriers, 8 bytes each) start: after
/// everything else, so that no other use of shared memory overlaps them.
unsigned tmaBarrierOffset(const tir::Function &function);
/// The most shared memory one block can use on `arch` ("sm_90a"), opting in to the maximum.
unsigned maxSharedMemoryPerBlock(const std::string &arch);
/// Marks each layout conversion of `function` that needs more shared memory than a block can use
/// on `arch` to go through it in pieces (ConversionPieces, SharedTile.h): the fewest pieces that
/// fit. A conversion no split makes fit is left whole, for checkSharedMemoryLimit to report.
void splitLargeConversions(tir::Function &function, const std::string &arch);
/// Reports a located error at the operation that needs the most shared memory when `function`
/// needs more than its target allows (ptxas or the launch would fail later, less clearly).
void checkSharedMemoryLimit(const tir::Function &function, const TargetOptions &options);

/// Number of warps along the reduced axis that hold distinct partial results of `reduce`
/// (1 when the reduction finishes within a warp).
unsigned distinctWarpsAlongAxis(const tir::Operation &reduce);

/// Whether several threads hold copies of some element of `dist` (it wraps or is a slice): the
/// result of an atomic on it is broadcast from its owner through shared memory.
bool atomicResultIsReplicated(const Distribution &dist);

/// Bytes at which an argmin/argmax's index slots start (its value slots come first).
unsigned argReduceIndexOffset(const tir::Operation &argReduce);

/// Where the partial results of operand `operand` of a reduction of several operands start.
unsigned reduceOperandOffset(const tir::Operation &reduce, unsigned operand);

/// How a scan's axis is spread (LowerScan.cpp): per thread, `chunks` runs of `inThread`
/// consecutive distinct elements; `lanes` lanes and `warps` warps hold distinct runs; `lines`
/// is the number of independent scans (the elements of the other dimensions).
struct ScanShape {
  unsigned inThread = 1, lanes = 1, warps = 1, chunks = 1, lines = 1;
};
ScanShape scanShape(const tir::Operation &scan);
/// Where operand `operand`'s warp totals start in shared memory (operand N: the bytes needed).
unsigned scanOperandOffset(const tir::Operation &scan, unsigned operand);

} // namespace tilec::codegen
