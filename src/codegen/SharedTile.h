// How a tensor is laid out in shared memory while it changes hands between threads (a layout
// conversion, the operands of an FMA dot).
//
// The tile is stored by rows along one "fast" dimension F: an element's row is the row-major
// index of its other coordinates, and a row holds shape[F] elements plus `pad`. Along F the
// elements are grouped in units of `unit` consecutive elements (up to 16 bytes, the widest vector
// any accessor uses), and unit u of row r is stored at unit position
//   u ^ ((r >> swizzleShift) & swizzleMask)
// so that accessors that walk across rows (a transpose) hit distinct banks.
//
// wgmma reads its operands from tiles in the NVMMA layouts (Triton's name; the PTX ISA's
// canonical layouts with 32/64/128-byte swizzling): the fast dimension is cut into blocks of the
// swizzle width, each block stored whole (all rows of it) before the next, its rows one swizzle
// width apart. Every accessor reads or writes whole vectors of its consecutive elements along F;
// the planner picks F, the padding and the swizzle that give the fewest shared-memory wavefronts
// for the accessors' warp 0, simulated at compile time.
#pragma once

#include "codegen/Distribution.h"
#include "tir/IR.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tilec::codegen {

/// Where the 32 lanes of warp 0 of `dist` access each of a thread's elements: the coordinates
/// of every (element, lane), and each element's index along the tile's fast dimension. They do
/// not depend on the shared layout, so the planner computes them once for all its candidates.
struct WarpAccesses {
  WarpAccesses(const Distribution &dist, unsigned fastDim);

  const Distribution *dist;
  /// Per element: its index (in the thread's elements) along the fast dimension.
  std::vector<unsigned> fastIndex;
  /// Per element, per lane: the element's coordinates, rank values each.
  std::vector<int64_t> coords;
};

struct SharedTilePlan {
  std::vector<int64_t> shape;
  unsigned elemBytes = 4;
  unsigned fastDim = 0;
  unsigned unit = 1; // elements
  unsigned pad = 0;  // elements added to each row
  unsigned swizzleShift = 0;
  unsigned swizzleMask = 0;
  /// Elements of a block along F (NVMMA layouts); 0: rows are not cut into blocks.
  int64_t blockLength = 0;

  int64_t rowLength() const { return shape[fastDim]; }
  int64_t rowStride() const { return blockLength ? blockLength : rowLength() + pad; }
  /// Bytes between a block's rows (the swizzle width), for NVMMA layouts.
  unsigned swizzleBytes() const { return static_cast<unsigned>(blockLength * elemBytes); }
  int64_t numRows() const;
  unsigned bytes() const;

  /// Elements `dist`'s thread accesses at once along F (a power of two dividing `unit`).
  unsigned vectorWidth(const Distribution &dist) const;
  /// The row of an element (row-major index of its coordinates other than F).
  int64_t row(const std::vector<int64_t> &coords) const;
  /// Offset in elements of the element at `coords`.
  int64_t offset(const std::vector<int64_t> &coords) const;
  /// Shared-memory wavefronts all of `dist`'s vector accesses take, for warp 0.
  unsigned wavefronts(const Distribution &dist) const;
  /// The same for accesses already computed for this plan's fast dimension.
  unsigned wavefronts(const WarpAccesses &accesses) const;
};

/// A compile-time step between two addresses of a shared tile: to = (from ^ xorBytes) + addBytes.
struct SharedAddressStep {
  uint32_t xorBytes = 0;
  int64_t addBytes = 0;
};

/// The step from the address of a 2-D tile's element (row, fast) to that of (row + dRow,
/// fast + dFast) that holds for every row and every fast coordinate in `fastValues` (along the
/// plan's fast dimension), where the tile starts at a multiple of `baseAlignment` bytes; none
/// when no step holds for all of them. A step of whole swizzle periods of rows adds whole rows; a
/// step along the row whose unit bits no thread's unit number has (unit u + d is u | d) moves the
/// swizzled unit u ^ phase to (u ^ phase) ^ d: an XOR of the address, which is the XOR of the
/// offset where the tile starts at a multiple of a power of two above it. The step is checked
/// against the plan's own offsets, for one swizzle period of rows.
std::optional<SharedAddressStep> sharedAddressStep(const SharedTilePlan &plan,
                                                   uint64_t baseAlignment,
                                                   const std::vector<int64_t> &fastValues,
                                                   int64_t dRow, int64_t dFast);

/// The plan for a tile of `shape` with elements of `elemBytes` bytes, written and read by the
/// threads of `accessors` (all distributions of that shape).
SharedTilePlan planSharedTile(const std::vector<int64_t> &shape, unsigned elemBytes,
                              const std::vector<const Distribution *> &accessors);

/// Bytes an element of `type` takes in shared memory (booleans as bytes, pointers as 64 bits).
unsigned sharedElementBytes(const tir::DType &type);

/// A layout conversion too large for shared memory goes through it in pieces, one after another.
/// The pieces split one dimension `dim` by some bits of the coordinate along it (`bits`, a mask):
/// piece p holds the elements whose coordinate has p's values in those bits, at the coordinate
/// with the bits removed. Every bit is one that each thread's registers decide in both layouts
/// (neither lanes nor warps): a bit of a thread's consecutive elements, of its warp's repeats, or
/// above the layout's tile. Which piece an element belongs to is then known at compile time, and
/// a piece is a tensor of two layouts of the same kind (conversionPieceType). Triton's conversions
/// go through shared memory in repetitions of this kind; tilec converts in one piece wherever
/// that fits.
struct ConversionPieces {
  unsigned dim = 0;
  uint64_t bits = 0;
  /// How many pieces: 2 to the number of bits.
  unsigned count() const;
  /// Which piece the element whose compile-time coordinate part along `dim` is `offset` is in.
  unsigned pieceOf(int64_t offset) const;
  /// `offset` with the piece's bits removed.
  int64_t withinPiece(int64_t offset) const;
};

/// The pieces SplitLargeConversions chose for a convert_layout (one piece unless it set them).
ConversionPieces conversionPieces(const tir::Operation &convert);

/// The type of one piece of `type` (its shape and layout along the pieces' dimension without
/// their bits).
tir::Type conversionPieceType(const tir::Type &type, const ConversionPieces &pieces);

/// The coordinate bits along `dim` that the registers of each thread of `type` decide (neither
/// lanes nor warps), as a mask; none where the layout's tile is longer than the tensor there.
uint64_t registerBits(const tir::Type &type, unsigned dim);

/// The plan of (each piece of) a layout conversion from `from` to `to`.
SharedTilePlan conversionPlan(const tir::Type &from, const tir::Type &to,
                              const ConversionPieces &pieces = {});
SharedTilePlan conversionPlan(const tir::Operation &convert);

/// The layout in which the FMA dot's threads read operand `operand` (0: a [(B,)M,K], 1: b
/// [(B,)K,N]): the accumulator's blocked layout with the whole of K in each thread.
gpu::LayoutPtr dotOperandLayout(const gpu::Layout &acc, unsigned operand, int64_t k);

/// The FMA dot stages a in shared memory at offset 0 and b at `offsetB` bytes.
struct DotPlans {
  SharedTilePlan operands[2];
  unsigned offsetB = 0;
  unsigned bytes() const { return offsetB + operands[1].bytes(); }
};
DotPlans dotPlans(const tir::Operation &dot);

/// The shared tile an mma.sync operand is staged in: rows along the operand layout's fastest
/// dimension, in 16-byte units, XOR-swizzled as Triton's swizzled shared layouts for mma
/// operands (perPhase = 128 bytes / row bytes, maxPhase = units per row, up to 8) so that the
/// eight 16-byte row addresses of each ldmatrix phase, and 16-byte stores along rows, fall in
/// distinct banks.
SharedTilePlan mmaOperandPlan(const tir::Type &operand);

/// The NVMMA shared tile a wgmma operand is read from: rows along the operand layout's fastest
/// dimension, cut into blocks of 128 bytes (or the whole row when it is 32 or 64 bytes), each
/// block swizzled as its width says (16-byte unit u of row r at u ^ (r / (128 / width)) % (width
/// / 16)).
SharedTilePlan wgmmaOperandPlan(const tir::Type &operand);

/// The NVMMA tile a TMA store reads `tile` from: rows along the last dimension, as the tensor
/// descriptor's; boxes as tmaBoxOffset says.
SharedTilePlan tmaStorePlan(const tir::Type &tile);

/// The NVMMA tile of `tile` with rows along `fastDim` (wgmmaOperandPlan, tmaStorePlan).
SharedTilePlan nvmmaTilePlan(const tir::Type &tile, unsigned fastDim);

/// The plan of the tile a tensor-core dot reads its operand `index` (0: a, 1: b) from
/// (mmaOperandPlan or wgmmaOperandPlan, as the dot's engine says). wgmma reads 8-bit and tf32
/// operands along K only: their tiles have rows along K whatever their registers' order.
SharedTilePlan tensorCoreOperandPlan(const tir::Operation &dot, unsigned index);

/// Where a TMA copy writes the box of `boxRows` rows from row `rowStart` and of block `block`
/// (the block's elements along the fast dimension) of `plan`'s tile, in bytes from the tile's
/// start, if that is where `plan` keeps those elements; none otherwise. TMA stores a box densely,
/// by rows of the swizzle width, and moves the 16-byte unit at byte b of the tile (from a
/// 1024-byte aligned start) to unit ((b >> 4) ^ (b >> 7)) & (width / 16 - 1): the NVMMA
/// layouts' swizzle (wgmmaOperandPlan), provided the box's rows are consecutive there.
std::optional<int64_t> tmaBoxOffset(const SharedTilePlan &plan, int64_t boxRows, int64_t rowStart,
                                    int64_t block);

/// The plan of a slot of pipeline buffer `buffer` of `function`.
SharedTilePlan pipelineSlotPlan(const tir::Function &function, unsigned buffer);

/// The local_load whose pipeline slot holds `operand`: the operand itself, or its transpose (a
/// slot read along the other dimension is the same memory under mmaOperandPlan of the transposed
/// type: the plan depends on the row length and the fast dimension only). Null otherwise.
const tir::Operation *bufferedTile(const tir::Value *operand);

/// Where an mma.sync dot reads its operands: a from registers (aInRegisters), an operand a
/// local_load gives from a pipeline buffer (inBuffer), or else staged in the scratch area at
/// `offsets[i]`; the plans are tensorCoreOperandPlan's for all of them.
struct MmaDotPlans {
  bool aInRegisters = false;
  bool inBuffer[2] = {false, false};
  SharedTilePlan operands[2];
  unsigned offsets[2] = {0, 0};
  unsigned stagedBytes = 0;
  bool staged(unsigned i) const { return !inBuffer[i] && !(i == 0 && aInRegisters); }
  unsigned bytes() const { return stagedBytes; }
};
MmaDotPlans mmaDotPlans(const tir::Operation &dot);

/// Whether a tensor-core dot with accumulator layout `acc` can take its operand a, of type `a`,
/// from the registers that hold it: a is 16-bit and laid out as the accumulator, with all warps
/// along M (so that each thread holds whole rows of a, as the A fragments need them); for wgmma,
/// a wgmma accumulator layout with all warps along M whose warps hold the rows they hold in
/// `acc` (whose warps may also go along N). Attention's second product meets this, the softmax
/// of the first product's accumulator as its a.
bool mmaTakesAFromRegisters(const tir::Type &a, const gpu::Layout &acc);

} // namespace tilec::codegen
