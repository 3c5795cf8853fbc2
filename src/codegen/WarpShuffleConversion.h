// Layout conversions that stay within warps, moved by warp shuffles as Triton moves them.
//
// Triton converts a layout through shared memory unless the data stays within each warp; then,
// when the conversion is simple enough, it moves it with shfl.sync.idx (ConvertLayoutOpToLLVM's
// transferWithinWarp). Both layouts are linear maps from the bits of (register, lane) to
// coordinate bits, and the conversion is a permutation P of those bits: a source bit goes where
// the destination has the same coordinate bit. Bits that map to no coordinate (copies: lanes
// that hold the same elements, or registers padded to equal counts) are paired in order, source
// copy bits with destination copy bits. Triton shuffles when at most one lane bit of P goes to a
// register bit (getWarpLayoutConvertDecomposition's mixed transpositions); otherwise it goes
// through shared memory.
//
// The pairing decides which copy each destination lane receives, and the copies need not be
// equal: the first step of a warp reduction's butterfly fuses into an fma, which rounds
// differently in the two lanes it pairs. So where Triton shuffles, tilec shuffles the same way;
// where Triton goes through shared memory, every copy stores and the hardware keeps one, and
// tilec stores only that one (copyTritonKeeps).
#pragma once

#include "codegen/Distribution.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace tilec::codegen {

struct WarpShufflePlan {
  /// Where element e of the destination comes from, in every lane: the source lane is
  /// mappedLane ^ laneXor (mappedLane below), the source element `element`, or `otherElement`
  /// in the lanes whose lane bit `selectBit` is set.
  struct Source {
    unsigned element = 0, otherElement = 0;
    unsigned laneXor = 0;
  };
  std::vector<Source> sources;
  /// The lane bit that chooses between a source's two elements; -1: always `element`.
  int selectBit = -1;
  /// Bit c of mappedLane is bit laneBitFrom[c] of the lane index (-1: 0).
  std::array<int, 5> laneBitFrom{-1, -1, -1, -1, -1};
};

/// The shuffles that convert `src` to `dst` as Triton's transferWithinWarp does; nullopt where
/// Triton does not shuffle (the data crosses warps, stays in each thread, or needs two or more
/// mixed transpositions) or where a layout is not the linear kind this models.
std::optional<WarpShufflePlan> planWarpShuffle(const Distribution &src, const Distribution &dst);

/// Where Triton converts through shared memory, every copy of an element stores it, and the
/// hardware keeps one lane's store: of a 32-bit store, the lowest lane's; a wider store is done
/// in phases of lanes (two half-warps for 64 bits, four quarter-warps for 128 bits), the last
/// phase's store wins, and the lowest lane within it (measured on an H200). Returns the lane bits
/// along which `src` holds copies, and the value of those bits in the copy whose store Triton's
/// conversion keeps: its stores are as wide as the source registers that its shared layout
/// (Triton's optimalSwizzlingLdSt) makes contiguous. nullopt where the source holds no copies in
/// lanes or for elements narrower than 32 bits, which this does not model.
struct KeptCopy {
  unsigned copyBits = 0, keptBits = 0;
};
std::optional<KeptCopy> copyTritonKeeps(const Distribution &src, const Distribution &dst,
                                        unsigned elemBits);

} // namespace tilec::codegen
