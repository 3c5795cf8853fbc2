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
// differently in the two lanes it pairs. Through shared memory, the copy kept is whichever lane's
// store the hardware keeps. So where Triton shuffles, tilec shuffles the same way.
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
  /// in the lanes whose lane bit `selectBit` is set (selectBit < 0: always `element`).
  struct Source {
    unsigned element = 0, otherElement = 0;
    int selectBit = -1;
    unsigned laneXor = 0;
  };
  std::vector<Source> sources;
  /// Bit c of mappedLane is bit laneBitFrom[c] of the lane index (-1: 0).
  std::array<int, 5> laneBitFrom{-1, -1, -1, -1, -1};
};

/// The shuffles that convert `src` to `dst` as Triton's transferWithinWarp does; nullopt where
/// Triton does not shuffle (the data crosses warps, stays in each thread, or needs two or more
/// mixed transpositions) or where a layout is not the linear kind this models.
std::optional<WarpShufflePlan> planWarpShuffle(const Distribution &src, const Distribution &dst);

} // namespace tilec::codegen
