#include "codegen/SharedTile.h"

#include "gpu/Mma.h"

#include <algorithm>
#include <llvm/ADT/bit.h>
#include <llvm/Support/MathExtras.h>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace tilec::codegen {

int64_t SharedTilePlan::numRows() const {
  int64_t rows = 1;
  for (unsigned d = 0; d < shape.size(); ++d)
    if (d != fastDim)
      rows *= shape[d];
  return rows;
}

unsigned SharedTilePlan::bytes() const {
  if (blockLength) // whole blocks of numRows rows
    return static_cast<unsigned>((rowLength() + blockLength - 1) / blockLength * blockLength *
                                 numRows() * elemBytes);
  return static_cast<unsigned>(numRows() * rowStride() * elemBytes);
}

static unsigned largestPowerOfTwoDividing(unsigned n, unsigned limit) {
  unsigned v = 1;
  while (v * 2 <= limit && n % (v * 2) == 0)
    v *= 2;
  return v;
}

/// Elements the thread holds consecutively along d, capped at 16 bytes and the dimension.
static unsigned contiguousAlong(const Distribution &dist, unsigned d, unsigned elemBytes) {
  unsigned limit = std::max(1u, 16 / elemBytes);
  limit = static_cast<unsigned>(std::min<int64_t>(limit, dist.shape[d]));
  limit = std::min(limit, dist.elemsPerThread[d]);
  return largestPowerOfTwoDividing(dist.spt(d), limit);
}

unsigned SharedTilePlan::vectorWidth(const Distribution &dist) const {
  return std::min(unit, contiguousAlong(dist, fastDim, elemBytes));
}

int64_t SharedTilePlan::row(const std::vector<int64_t> &coords) const {
  int64_t r = 0;
  for (unsigned d = 0; d < shape.size(); ++d)
    if (d != fastDim)
      r = r * shape[d] + coords[d];
  return r;
}

int64_t SharedTilePlan::offset(const std::vector<int64_t> &coords) const {
  int64_t r = row(coords);
  int64_t f = coords[fastDim];
  int64_t block = 0;
  if (blockLength) {
    block = f / blockLength;
    f %= blockLength;
  }
  int64_t u = (f / unit) ^ ((r >> swizzleShift) & swizzleMask);
  return block * numRows() * blockLength + r * rowStride() + u * unit + f % unit;
}

WarpAccesses::WarpAccesses(const Distribution &dist, unsigned fastDim) : dist(&dist) {
  unsigned rank = static_cast<unsigned>(dist.shape.size());
  for (unsigned e = 0; e < dist.numElements(); ++e) {
    fastIndex.push_back(dist.multiIndex(e)[fastDim]);
    for (unsigned lane = 0; lane < 32; ++lane) {
      std::vector<int64_t> c = dist.coordinates(lane, 0, e);
      coords.insert(coords.end(), c.begin(), c.begin() + rank);
    }
  }
}

unsigned SharedTilePlan::wavefronts(const Distribution &dist) const {
  return wavefronts(WarpAccesses(dist, fastDim));
}

unsigned SharedTilePlan::wavefronts(const WarpAccesses &accesses) const {
  const Distribution &dist = *accesses.dist;
  unsigned vec = vectorWidth(dist);
  unsigned accessBytes = vec * elemBytes;
  // A warp's access is served in phases of 128 bytes' worth of lanes; within a phase, the lanes
  // that hit one bank in different 4-byte words serialise.
  unsigned lanesPerPhase = std::max(1u, std::min(32u, 128 / std::max(4u, accessBytes)));
  unsigned total = 0;
  size_t rank = dist.shape.size();
  // The planner calls this for every candidate layout of every tile: one buffer of the phase's
  // 4-byte words, sorted, instead of a map of sets per phase.
  std::vector<int64_t> words;
  std::vector<int64_t> coords(rank);
  for (size_t e = 0; e < accesses.fastIndex.size(); ++e) {
    if (accesses.fastIndex[e] % vec != 0)
      continue;
    for (unsigned phase = 0; phase < 32; phase += lanesPerPhase) {
      words.clear();
      for (unsigned lane = phase; lane < phase + lanesPerPhase; ++lane) {
        const int64_t *laneCoords = &accesses.coords[(e * 32 + lane) * rank];
        coords.assign(laneCoords, laneCoords + rank);
        int64_t byte = offset(coords) * elemBytes;
        for (int64_t w = byte / 4; w <= (byte + accessBytes - 1) / 4; ++w)
          words.push_back(w);
      }
      // Distinct words, ordered by bank: the longest run of one bank is the phase's cost.
      std::sort(words.begin(), words.end());
      words.erase(std::unique(words.begin(), words.end()), words.end());
      std::stable_sort(words.begin(), words.end(),
                       [](int64_t a, int64_t b) { return a % 32 < b % 32; });
      unsigned worst = 1, run = 0;
      for (size_t i = 0; i < words.size(); ++i) {
        run = i && words[i] % 32 == words[i - 1] % 32 ? run + 1 : 1;
        worst = std::max(worst, run);
      }
      total += worst;
    }
  }
  return total;
}

SharedTilePlan planSharedTile(const std::vector<int64_t> &shape, unsigned elemBytes,
                              const std::vector<const Distribution *> &accessors) {
  SharedTilePlan best;
  unsigned bestCost = ~0u;
  std::vector<unsigned> fastDims;
  for (const Distribution *dist : accessors)
    if (!dist->order.empty() &&
        std::find(fastDims.begin(), fastDims.end(), dist->order[0]) == fastDims.end())
      fastDims.push_back(dist->order[0]);
  if (fastDims.empty())
    fastDims.push_back(static_cast<unsigned>(shape.size()) - 1);
  for (unsigned fast : fastDims) {
    // Where warp 0's lanes access each element does not depend on the candidate layout: computed
    // once per accessor, not once per candidate (a 128x128 FMA dot's operands have about a
    // hundred candidates and thousands of elements a thread).
    std::vector<WarpAccesses> accesses;
    for (const Distribution *dist : accessors)
      accesses.emplace_back(*dist, fast);
    unsigned widest = 1;
    for (const Distribution *dist : accessors)
      widest = std::max(widest, contiguousAlong(*dist, fast, elemBytes));
    // Narrower units too: a 16-byte unit confines an accessor that reads few elements of each
    // unit to a fraction of the banks, and two 8-byte accesses cost what one 16-byte one does.
    for (unsigned unit = widest; unit >= 1; unit /= 2) {
      SharedTilePlan plan;
      plan.shape = shape;
      plan.elemBytes = elemBytes;
      plan.fastDim = fast;
      plan.unit = unit;
      int64_t unitsPerRow = std::max<int64_t>(1, plan.rowLength() / plan.unit);
      int64_t rows = plan.numRows();
      // Candidates, simplest first: plain rows, padded rows, then XOR swizzles of growing reach.
      std::vector<SharedTilePlan> candidates{plan};
      SharedTilePlan padded = plan;
      padded.pad = plan.unit;
      candidates.push_back(padded);
      for (unsigned mask = 1; mask < unitsPerRow; mask = mask * 2 + 1)
        for (unsigned shift = 0; (int64_t(1) << shift) < rows; ++shift) {
          SharedTilePlan swizzled = plan;
          swizzled.swizzleMask = mask;
          swizzled.swizzleShift = shift;
          candidates.push_back(swizzled);
        }
      for (const SharedTilePlan &candidate : candidates) {
        unsigned cost = 0;
        for (const WarpAccesses &access : accesses)
          cost += candidate.wavefronts(access);
        if (cost < bestCost) {
          bestCost = cost;
          best = candidate;
        }
      }
    }
  }
  return best;
}

} // namespace tilec::codegen

namespace tilec::codegen {

unsigned sharedElementBytes(const tir::DType &type) {
  if (type.isPointer())
    return 8;
  return std::max(1u, type.bytes());
}

unsigned ConversionPieces::count() const {
  return 1u << llvm::popcount(bits);
}

unsigned ConversionPieces::pieceOf(int64_t offset) const {
  unsigned piece = 0, i = 0;
  for (unsigned b = 0; b < 64; ++b)
    if (bits >> b & 1)
      piece |= static_cast<unsigned>(offset >> b & 1) << i++;
  return piece;
}

int64_t ConversionPieces::withinPiece(int64_t offset) const {
  for (unsigned b = 64; b-- > 0;)
    if (bits >> b & 1)
      offset = (offset >> (b + 1) << b) | (offset & ((int64_t(1) << b) - 1));
  return offset;
}

ConversionPieces conversionPieces(const tir::Operation &convert) {
  if (!convert.hasAttr("piece_bits"))
    return {};
  return {static_cast<unsigned>(convert.intAttr("piece_dim")),
          static_cast<uint64_t>(convert.intAttr("piece_bits"))};
}

uint64_t registerBits(const tir::Type &type, unsigned dim) {
  Distribution dist = distributionOf(type);
  if (dist.wraps(dim))
    return 0;
  uint64_t bits = 0;
  int64_t spt = dist.spt(dim), lanes = spt * dist.tpw(dim), warp = dist.perWarp(dim);
  for (unsigned b = 0; (int64_t(1) << b) < dist.shape[dim]; ++b) {
    int64_t bit = int64_t(1) << b;
    if (bit < spt || (bit >= lanes && bit < warp) || bit >= dist.tile(dim))
      bits |= uint64_t(1) << b;
  }
  return bits;
}

/// `layout` (blocked, or slices of one) with half the elements per thread (`alongSpt`) or half the
/// warp's repeats along root dimension `rootDim`.
static gpu::LayoutPtr halved(const gpu::LayoutPtr &layout, unsigned rootDim, bool alongSpt) {
  if (layout->kind == gpu::LayoutKind::Slice)
    return gpu::makeSlice(layout->dim, halved(layout->parent, rootDim, alongSpt));
  std::vector<unsigned> spt = layout->sizePerThread, reps(layout->rank());
  for (unsigned d = 0; d < layout->rank(); ++d)
    reps[d] = layout->reps(d);
  (alongSpt ? spt : reps)[rootDim] /= 2;
  return gpu::makeBlocked(spt, layout->threadsPerWarp, layout->warpsPerCTA, layout->order, reps,
                          layout->warpOrder);
}

tir::Type conversionPieceType(const tir::Type &type, const ConversionPieces &pieces) {
  // Highest bit first, so that the bits below a removed one keep their meaning.
  tir::Type piece = type;
  for (unsigned b = 64; b-- > 0;) {
    if (!(pieces.bits >> b & 1))
      continue;
    Distribution dist = distributionOf(piece);
    int64_t bit = int64_t(1) << b;
    std::vector<int64_t> shape = piece.shape;
    shape[pieces.dim] /= 2;
    gpu::LayoutPtr layout = piece.layout;
    if (bit < dist.tile(pieces.dim)) // else whole tiles: the layout stays
      layout = halved(layout, dist.rootDim[pieces.dim], bit < int64_t(dist.spt(pieces.dim)));
    piece = piece.withShape(shape).withLayout(layout);
  }
  return piece;
}

SharedTilePlan conversionPlan(const tir::Type &from, const tir::Type &to,
                              const ConversionPieces &pieces) {
  // The planner simulates every candidate's bank accesses, and the shared-memory accounting, the
  // metadata and the lowering all ask for the same conversions: plan each one once per process.
  static std::mutex mutex;
  static std::map<std::string, SharedTilePlan> plans;
  std::string key = from.str() + " -> " + to.str();
  if (pieces.bits)
    key +=
        " in pieces of bits " + std::to_string(pieces.bits) + " of " + std::to_string(pieces.dim);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = plans.find(key);
  if (it != plans.end())
    return it->second;
  tir::Type pieceFrom = conversionPieceType(from, pieces),
            pieceTo = conversionPieceType(to, pieces);
  Distribution src = distributionOf(pieceFrom), dst = distributionOf(pieceTo);
  return plans[key] = planSharedTile(pieceFrom.shape, sharedElementBytes(from.elem), {&src, &dst});
}

SharedTilePlan conversionPlan(const tir::Operation &convert) {
  return conversionPlan(convert.operand(0)->type(), convert.result()->type(),
                        conversionPieces(convert));
}

gpu::LayoutPtr dotOperandLayout(const gpu::Layout &acc, unsigned operand, int64_t k) {
  // a replaces the accumulator's N by K, b its M (the last two dimensions; a batched dot's
  // leading batch dimension is the accumulator's).
  std::vector<unsigned> spt = acc.sizePerThread;
  unsigned rank = static_cast<unsigned>(spt.size());
  spt[operand == 0 ? rank - 1 : rank - 2] = static_cast<unsigned>(k);
  std::vector<unsigned> reps(rank);
  for (unsigned d = 0; d < rank; ++d)
    reps[d] = acc.reps(d);
  reps[operand == 0 ? rank - 1 : rank - 2] = 1;
  return gpu::makeBlocked(spt, acc.threadsPerWarp, acc.warpsPerCTA, acc.order, reps, acc.warpOrder);
}

DotPlans dotPlans(const tir::Operation &dot) {
  const tir::Type &acc = dot.operand(2)->type();
  int64_t k = dot.operand(0)->type().shape.back();
  // As conversionPlan: the accounting, the limit check and the lowering ask for every dot's plans,
  // and simulating the candidates of two large fp32 tiles took seconds per kernel.
  static std::mutex mutex;
  static std::map<std::string, DotPlans> cache;
  std::string key =
      dot.operand(0)->type().str() + " * " + dot.operand(1)->type().str() + " -> " + acc.str();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second;
  DotPlans plans;
  for (unsigned i = 0; i < 2; ++i) {
    const tir::Type &operand = dot.operand(i)->type();
    Distribution writer = distributionOf(operand);
    Distribution reader = distributionOf(operand.withLayout(dotOperandLayout(*acc.layout, i, k)));
    plans.operands[i] =
        planSharedTile(operand.shape, sharedElementBytes(operand.elem), {&writer, &reader});
  }
  plans.offsetB = (plans.operands[0].bytes() + 15) / 16 * 16;
  return cache[key] = plans;
}

std::optional<SharedAddressStep> sharedAddressStep(const SharedTilePlan &plan,
                                                   uint64_t baseAlignment,
                                                   const std::vector<int64_t> &fastValues,
                                                   int64_t dRow, int64_t dFast) {
  if (plan.shape.size() != 2 || plan.blockLength || fastValues.empty())
    return std::nullopt;
  const unsigned f = plan.fastDim;
  auto bytesAt = [&](int64_t row, int64_t fast) {
    std::vector<int64_t> coords(2);
    coords[f] = fast;
    coords[1 - f] = row;
    return plan.offset(coords) * plan.elemBytes;
  };
  const int64_t period =
      plan.swizzleMask ? (int64_t(1) << plan.swizzleShift) * (plan.swizzleMask + 1) : 1;
  const int64_t rows = std::min(period, plan.shape[1 - f] - dRow);
  if (rows <= 0 || dRow < 0 || dFast < 0)
    return std::nullopt;
  auto holds = [&](const SharedAddressStep &step) {
    for (int64_t u : fastValues) {
      if (u < 0 || u + dFast >= plan.shape[f])
        return false;
      for (int64_t r = 0; r < rows; ++r)
        if (bytesAt(r + dRow, u + dFast) != (bytesAt(r, u) ^ step.xorBytes) + step.addBytes)
          return false;
    }
    return true;
  };
  // A plain add, which ptxas folds into the instruction's immediate offset.
  SharedAddressStep add{0, bytesAt(dRow, fastValues[0] + dFast) - bytesAt(0, fastValues[0])};
  if (holds(add))
    return add;
  SharedAddressStep xorAdd{static_cast<uint32_t>(dFast * plan.elemBytes),
                           dRow * plan.rowStride() * plan.elemBytes};
  if (xorAdd.xorBytes < baseAlignment && holds(xorAdd))
    return xorAdd;
  return std::nullopt;
}

SharedTilePlan mmaOperandPlan(const tir::Type &operand) {
  SharedTilePlan plan;
  plan.shape = operand.shape;
  plan.elemBytes = sharedElementBytes(operand.elem);
  plan.fastDim = distributionOf(operand).order[0];
  plan.unit = 16 / plan.elemBytes;
  int64_t rowBytes = plan.rowLength() * plan.elemBytes;
  unsigned unitsPerRow = static_cast<unsigned>(std::max<int64_t>(1, rowBytes / 16));
  unsigned perPhase = static_cast<unsigned>(std::max<int64_t>(1, 128 / rowBytes));
  unsigned maxPhase = std::min(8u, unitsPerRow);
  plan.swizzleShift = llvm::Log2_32(perPhase);
  plan.swizzleMask = maxPhase - 1;
  return plan;
}

SharedTilePlan wgmmaOperandPlan(const tir::Type &operand) {
  return nvmmaTilePlan(operand, distributionOf(operand).order[0]);
}

SharedTilePlan tmaStorePlan(const tir::Type &tile) {
  return nvmmaTilePlan(tile, tile.rank() - 1);
}

SharedTilePlan nvmmaTilePlan(const tir::Type &tile, unsigned fastDim) {
  SharedTilePlan plan;
  plan.shape = tile.shape;
  plan.elemBytes = sharedElementBytes(tile.elem);
  plan.fastDim = fastDim;
  plan.unit = 16 / plan.elemBytes;
  int64_t rowBytes = plan.rowLength() * plan.elemBytes;
  int64_t swizzleBytes = std::min<int64_t>(128, rowBytes);
  plan.blockLength = swizzleBytes / plan.elemBytes;
  // 128-byte swizzling XORs the 16-byte unit with the row mod 8, 64-byte with (row / 2) mod 4,
  // 32-byte with (row / 4) mod 2: bits 4.. of the byte address with bits 7.. of it.
  plan.swizzleMask = static_cast<unsigned>(swizzleBytes / 16 - 1);
  plan.swizzleShift = llvm::Log2_32(static_cast<unsigned>(128 / swizzleBytes));
  return plan;
}

std::optional<int64_t> tmaBoxOffset(const SharedTilePlan &plan, int64_t boxRows, int64_t rowStart,
                                    int64_t block) {
  if (plan.shape.size() != 2 || plan.fastDim != 1 || !plan.blockLength)
    return std::nullopt;
  const int64_t width = plan.swizzleBytes(), elemBytes = plan.elemBytes;
  const int64_t firstColumn = block * plan.blockLength;
  if (rowStart + boxRows > plan.shape[0] || firstColumn + plan.blockLength > plan.shape[1])
    return std::nullopt;
  // The box's first row, unswizzled: the start of the width-byte row holding its element 0.
  const int64_t start = plan.offset({rowStart, firstColumn}) * elemBytes / width * width;
  const int64_t unitMask = width / 16 - 1;
  for (int64_t i = 0; i < boxRows; ++i)
    for (int64_t j = 0; j < plan.blockLength; ++j) {
      int64_t dense = start + i * width + j * elemBytes;
      int64_t swizzled = dense ^ (((dense >> 7) & unitMask) << 4);
      if (plan.offset({rowStart + i, firstColumn + j}) * elemBytes != swizzled)
        return std::nullopt;
    }
  return start;
}

SharedTilePlan tensorCoreOperandPlan(const tir::Operation &dot, unsigned index) {
  const tir::Type &operand = dot.operand(index)->type();
  if (!gpu::isWgmmaDot(dot))
    return mmaOperandPlan(operand);
  if (sharedElementBytes(operand.elem) != 2)
    return nvmmaTilePlan(operand, index == 0 ? 1 : 0); // K: a's columns, b's rows
  return wgmmaOperandPlan(operand);
}

SharedTilePlan pipelineSlotPlan(const tir::Function &function, unsigned buffer) {
  const tir::Function::PipelineBuffer &b = function.pipelineBuffers.at(buffer);
  if (b.wgmmaOperand < 0)
    return mmaOperandPlan(b.tile);
  return wgmmaOperandPlan(b.tile);
}

bool mmaTakesAFromRegisters(const tir::Type &a, const gpu::Layout &acc) {
  if (!a.layout || sharedElementBytes(a.elem) != 2)
    return false;
  // Each warp's registers must hold whole rows of a (every warp along M in a's layout), the rows
  // its instructions compute.
  unsigned warpsN = 0;
  if (gpu::isMmaV2AccumulatorLayout(acc, nullptr, &warpsN))
    return warpsN == 1 && *a.layout == acc;
  unsigned aWarpsN = 0;
  if (!gpu::isMmaV3AccumulatorLayout(acc) ||
      !gpu::isMmaV3AccumulatorLayout(*a.layout, nullptr, &aWarpsN) || aWarpsN != 1)
    return false;
  if (*a.layout == acc)
    return true;
  // wgmma: a's layout may differ from the accumulator's along N only. Attention's first product
  // of 64 rows on 8 warps has every warp along M, warps 4-7 copying warps 0-3's rows, and the
  // second product its warpgroups side by side along N, both computing rows 0-63: each warp holds
  // the rows of P it multiplies (as Triton, whose conversion between the two moves no data).
  const Distribution aDist = distributionOf(a);
  const Distribution accRows =
      distributionOf(a.withLayout(std::make_shared<const gpu::Layout>(acc)));
  if (aDist.elemsPerThread[0] != accRows.elemsPerThread[0])
    return false;
  for (unsigned warp = 0; warp < acc.numWarps(); ++warp)
    for (unsigned lane = 0; lane < 32; lane += 4)
      for (unsigned i = 0; i < aDist.elemsPerThread[0]; ++i)
        if (aDist.coordinates(lane, warp, aDist.linearIndex({i, 0}))[0] !=
            accRows.coordinates(lane, warp, accRows.linearIndex({i, 0}))[0])
          return false;
  return true;
}

const tir::Operation *bufferedTile(const tir::Value *operand) {
  const tir::Operation *producer = operand->definingOp();
  if (producer && producer->code() == tir::OpCode::Trans)
    producer = producer->operand(0)->definingOp();
  if (!producer || producer->code() != tir::OpCode::LocalLoad)
    return nullptr;
  return producer;
}

MmaDotPlans mmaDotPlans(const tir::Operation &dot) {
  MmaDotPlans plans;
  // A chained dot's registers hold a's K in the accumulator's order, not interleaved.
  const std::optional<gpu::MmaV2Instruction> v2 =
      gpu::isMmaV2Dot(dot) ? gpu::mmaV2InstructionFor(dot) : std::nullopt;
  plans.aInRegisters =
      mmaTakesAFromRegisters(dot.operand(0)->type(), *dot.operand(2)->type().layout) &&
      !(v2 && v2->interleavesK());
  for (unsigned i = 0; i < 2; ++i) {
    plans.inBuffer[i] = bufferedTile(dot.operand(i)) != nullptr;
    if (i == 0 && plans.aInRegisters)
      continue;
    plans.operands[i] = tensorCoreOperandPlan(dot, i);
    if (!plans.staged(i))
      continue;
    // NVMMA tiles start at a multiple of their swizzle pattern's 1024 bytes (the hardware
    // swizzles address bits, not tile offsets).
    unsigned align = gpu::isWgmmaDot(dot) ? 1024 : 128;
    plans.offsets[i] = (plans.stagedBytes + align - 1) / align * align;
    plans.stagedBytes = plans.offsets[i] + plans.operands[i].bytes();
  }
  return plans;
}

} // namespace tilec::codegen
