#include "codegen/WarpShuffleConversion.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace tilec::codegen {
namespace {

using Coordinates = std::vector<int64_t>;

/// A layout as the coordinates each bit of its register, lane and warp indices adds.
struct Bases {
  std::vector<Coordinates> reg, lane, warp;
};

bool isZero(const Coordinates &c) {
  for (int64_t x : c)
    if (x)
      return false;
  return true;
}

/// Zero, or a single power of two along one dimension.
bool isOneHot(const Coordinates &c) {
  unsigned nonZero = 0;
  for (int64_t x : c) {
    if (!x)
      continue;
    if (x < 0 || !llvm::has_single_bit(static_cast<uint64_t>(x)))
      return false;
    ++nonZero;
  }
  return nonZero <= 1;
}

Coordinates xorInto(Coordinates a, const Coordinates &b) {
  for (size_t d = 0; d < a.size(); ++d)
    a[d] ^= b[d];
  return a;
}

/// The bases of `dist`, when its coordinates are the XOR of the bases of the set bits of the
/// register, lane and warp indices (true of blocked layouts and their slices over power-of-two
/// shapes, which is all Triton has).
std::optional<Bases> basesOf(const Distribution &dist) {
  const unsigned numElements = dist.numElements(), numWarps = dist.root->numWarps();
  if (!llvm::has_single_bit(numElements) || !llvm::has_single_bit(numWarps))
    return std::nullopt;
  Bases bases;
  for (unsigned e = 1; e < numElements; e <<= 1)
    bases.reg.push_back(dist.coordinates(0, 0, e));
  for (unsigned lane = 1; lane < 32; lane <<= 1)
    bases.lane.push_back(dist.coordinates(lane, 0, 0));
  for (unsigned warp = 1; warp < numWarps; warp <<= 1)
    bases.warp.push_back(dist.coordinates(0, warp, 0));
  for (const auto *group : {&bases.reg, &bases.lane, &bases.warp})
    for (const Coordinates &c : *group)
      if (!isOneHot(c))
        return std::nullopt;
  // Linear in the register and lane bits (the warp bits are compared between the layouts).
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned e = 0; e < numElements; ++e) {
      Coordinates expected(dist.rank(), 0);
      for (unsigned b = 0; b < bases.reg.size(); ++b)
        if (e >> b & 1)
          expected = xorInto(expected, bases.reg[b]);
      for (unsigned b = 0; b < 5; ++b)
        if (lane >> b & 1)
          expected = xorInto(expected, bases.lane[b]);
      if (dist.coordinates(lane, 0, e) != expected)
        return std::nullopt;
    }
  return bases;
}

/// A bit of the (register, lane) index: registers first, then the 5 lane bits.
struct HardwareBits {
  std::vector<Coordinates> bits; // the coordinates each bit adds
  std::vector<unsigned> element; // for a register bit, its bit of tilec's element number
  unsigned numRegisterBits = 0;
  bool isLane(unsigned bit) const { return bit >= numRegisterBits; }
};

/// The register bits that add coordinates (Triton removes the others, registers holding the
/// same element twice), padded with zero bits to `numRegisterBits`, then the lane bits.
HardwareBits hardwareBits(const Bases &bases, unsigned numRegisterBits) {
  HardwareBits hw;
  hw.numRegisterBits = numRegisterBits;
  for (unsigned b = 0; b < bases.reg.size(); ++b)
    if (!isZero(bases.reg[b])) {
      hw.bits.push_back(bases.reg[b]);
      hw.element.push_back(1u << b);
    }
  const Coordinates zero(bases.lane.front().size(), 0);
  while (hw.bits.size() < numRegisterBits) {
    hw.bits.push_back(zero);
    hw.element.push_back(0);
  }
  for (const Coordinates &c : bases.lane)
    hw.bits.push_back(c);
  return hw;
}

unsigned countNonZero(const std::vector<Coordinates> &bases) {
  unsigned n = 0;
  for (const Coordinates &c : bases)
    n += !isZero(c);
  return n;
}

} // namespace

std::optional<WarpShufflePlan> planWarpShuffle(const Distribution &src, const Distribution &dst) {
  std::optional<Bases> s = basesOf(src), d = basesOf(dst);
  if (!s || !d || s->warp != d->warp) // data that changes warps goes through shared memory
    return std::nullopt;
  const unsigned numRegisterBits = std::max(countNonZero(s->reg), countNonZero(d->reg));
  HardwareBits from = hardwareBits(*s, numRegisterBits), to = hardwareBits(*d, numRegisterBits);
  const unsigned numBits = static_cast<unsigned>(from.bits.size());

  // P: each source bit goes to the destination bit that adds the same coordinates; the bits of
  // copies pair in order, source with destination.
  std::vector<int> permutation(numBits, -1);
  std::vector<unsigned> sourceCopies, destinationCopies;
  for (unsigned i = 0; i < numBits; ++i) {
    bool fromZero = isZero(from.bits[i]), toZero = isZero(to.bits[i]);
    if (fromZero && toZero)
      permutation[i] = static_cast<int>(i);
    else if (fromZero)
      sourceCopies.push_back(i);
    else if (toZero)
      destinationCopies.push_back(i);
    if (fromZero)
      continue;
    for (unsigned j = 0; j < numBits; ++j)
      if (from.bits[i] == to.bits[j]) {
        if (permutation[i] >= 0)
          return std::nullopt; // two destination bits add the same coordinates
        permutation[i] = static_cast<int>(j);
      }
    if (permutation[i] < 0)
      return std::nullopt; // an element the destination holds in another warp
  }
  if (sourceCopies.size() != destinationCopies.size())
    return std::nullopt;
  for (size_t k = 0; k < sourceCopies.size(); ++k)
    permutation[sourceCopies[k]] = static_cast<int>(destinationCopies[k]);

  // Triton shuffles when lanes move and at most one lane bit goes to a register bit.
  unsigned laneToRegister = 0;
  bool lanesMove = false;
  for (unsigned i = from.numRegisterBits; i < numBits; ++i) {
    laneToRegister += !to.isLane(static_cast<unsigned>(permutation[i]));
    lanesMove |= permutation[i] != static_cast<int>(i);
  }
  if (!lanesMove || laneToRegister >= 2)
    return std::nullopt;

  // Invert P: the source bit each destination bit comes from.
  std::vector<unsigned> inverse(numBits);
  for (unsigned i = 0; i < numBits; ++i)
    inverse[static_cast<unsigned>(permutation[i])] = i;

  WarpShufflePlan plan;
  unsigned selectElement = 0;
  for (unsigned b = 0; b < 5; ++b) {
    unsigned source = inverse[numRegisterBits + b];
    if (from.isLane(source))
      plan.laneBitFrom[source - numRegisterBits] = static_cast<int>(b);
    else {
      plan.selectBit = static_cast<int>(b);
      selectElement = from.element[source];
    }
  }
  for (unsigned e = 0; e < dst.numElements(); ++e) {
    WarpShufflePlan::Source source;
    for (unsigned r = 0; r < numRegisterBits; ++r) {
      if (!to.element[r] || !(e & to.element[r]))
        continue;
      unsigned bit = inverse[r];
      if (from.isLane(bit))
        source.laneXor ^= 1u << (bit - numRegisterBits);
      else
        source.element ^= from.element[bit];
    }
    source.otherElement = source.element ^ selectElement;
    plan.sources.push_back(source);
  }
  return plan;
}

/// The source's register bits in Triton's order: the elements of one vector (sizePerThread) of
/// each dimension, fastest first, then the repetitions of each dimension; as bits of tilec's
/// element numbers (which number a dimension's vector and repetitions together), each a power of
/// two.
static std::vector<unsigned> registerBitsInTritonOrder(const Distribution &dist) {
  std::vector<unsigned> vectorBits, repetitionBits;
  for (unsigned d : dist.order) {
    const unsigned inVector = std::min(dist.spt(d), dist.elemsPerThread[d]);
    for (unsigned k = 1; k < dist.elemsPerThread[d]; k <<= 1) {
      std::vector<unsigned> index(dist.rank(), 0);
      index[d] = k;
      (k < inVector ? vectorBits : repetitionBits).push_back(dist.linearIndex(index));
    }
  }
  vectorBits.insert(vectorBits.end(), repetitionBits.begin(), repetitionBits.end());
  return vectorBits;
}

std::optional<KeptCopy> copyTritonKeeps(const Distribution &src, const Distribution &dst,
                                        unsigned elemBits) {
  if (elemBits < 32)
    return std::nullopt;
  std::optional<Bases> s = basesOf(src), d = basesOf(dst);
  if (!s || !d)
    return std::nullopt;
  KeptCopy kept;
  for (unsigned b = 0; b < 5; ++b)
    if (isZero(s->lane[b]))
      kept.copyBits |= 1u << b;
  if (!kept.copyBits)
    return std::nullopt;

  // Triton's vector (getVbasis): the source registers the destination also holds in registers,
  // then source registers the destination holds in lanes, in the source's register order.
  auto nonZeroInTritonOrder = [](const Distribution &dist, const Bases &bases) {
    std::vector<Coordinates> regs;
    for (unsigned bit : registerBitsInTritonOrder(dist))
      if (const Coordinates &c = bases.reg[llvm::Log2_32(bit)]; !isZero(c))
        regs.push_back(c);
    return regs;
  };
  std::vector<Coordinates> srcRegs = nonZeroInTritonOrder(src, *s),
                           dstRegs = nonZeroInTritonOrder(dst, *d);
  auto contains = [](const std::vector<Coordinates> &set, const Coordinates &c) {
    return std::find(set.begin(), set.end(), c) != set.end();
  };
  const unsigned maxVectorBases = llvm::Log2_32(128 / elemBits);
  std::vector<Coordinates> vector;
  for (const Coordinates &r : srcRegs)
    if (vector.size() < maxVectorBases && contains(dstRegs, r))
      vector.push_back(r);
  unsigned extra = 0;
  for (const Coordinates &r : srcRegs) {
    if (extra == maxVectorBases)
      break;
    if (!contains(vector, r) && contains(d->lane, r)) {
      vector.push_back(r);
      ++extra;
    }
  }
  // The store covers the registers where the vector follows the source's register order.
  unsigned contiguous = 0;
  while (contiguous < vector.size() && contiguous < srcRegs.size() &&
         vector[contiguous] == srcRegs[contiguous])
    ++contiguous;
  const unsigned storeBytes = std::min(16u, (1u << contiguous) * elemBits / 8);
  const unsigned phases = std::max(1u, storeBytes / 4), lanesPerPhase = 32 / phases;
  kept.keptBits = kept.copyBits & ~(lanesPerPhase - 1) & 31u;
  return kept;
}

} // namespace tilec::codegen
