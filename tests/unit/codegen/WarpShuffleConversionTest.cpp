// planWarpShuffle: which layout conversions move by warp shuffles, as Triton's
// transferWithinWarp, and which lane each element of the result is read from.
#include "codegen/WarpShuffleConversion.h"

#include "LayoutDistribution.h"
#include "gpu/Layout.h"

#include <catch2/catch.hpp>

using tilec::codegen::Distribution;
using tilec::codegen::planWarpShuffle;
using tilec::codegen::WarpShufflePlan;
using tilec::codegen::testing::distribution;
namespace gpu = tilec::gpu;

namespace {

/// The lane that lane `lane` reads element e of the result from, and the source element.
std::pair<unsigned, unsigned> sourceOf(const WarpShufflePlan &plan, unsigned lane, unsigned e) {
  unsigned mapped = 0;
  for (unsigned c = 0; c < 5; ++c)
    if (plan.laneBitFrom[c] >= 0)
      mapped |= (lane >> plan.laneBitFrom[c] & 1) << c;
  const WarpShufflePlan::Source &source = plan.sources.at(e);
  bool other = plan.selectBit >= 0 && (lane >> plan.selectBit & 1);
  return {mapped ^ source.laneXor, other ? source.otherElement : source.element};
}

/// Every lane reads, for each of its elements, a source register that holds that element.
void checkMovesEveryElement(const WarpShufflePlan &plan, const Distribution &src,
                            const Distribution &dst) {
  for (unsigned warp = 0; warp < dst.root->numWarps(); ++warp)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned e = 0; e < dst.numElements(); ++e) {
        auto [fromLane, fromElement] = sourceOf(plan, lane, e);
        INFO("lane " << lane << " element " << e);
        CHECK(src.coordinates(fromLane, warp, fromElement) == dst.coordinates(lane, warp, e));
      }
}

// A row reduction's result over 8 rows of a [4 x 8 lanes] warp, stored from a 1-D layout (the
// shape of TritonBench's fused_recurrent_rwkv6_fwd_kernel at 1 warp).
const gpu::LayoutPtr rowsByLanes = gpu::makeBlocked({1, 1}, {4, 8}, {1, 1}, {1, 0});
const gpu::LayoutPtr oneDimension = gpu::makeBlocked({1}, {32}, {1}, {0});

} // namespace

TEST_CASE("a reduction's rows reach the 1-D layout by shuffles from Triton's lanes",
          "[codegen][shuffle]") {
  Distribution src = distribution(gpu::makeSlice(1, rowsByLanes), {8});
  Distribution dst = distribution(oneDimension, {8});
  auto plan = planWarpShuffle(src, dst);
  REQUIRE(plan);
  checkMovesEveryElement(*plan, src, dst);
  // The lanes Triton 3.6's PTX for that kernel reads from (shfl.sync.idx from lane r or r ^ 1,
  // r = (lane << 3 & 24) | (lane >> 2 & 7), the second where lane bit 2 is set). Lanes 0-7, the
  // ones that store, read the lowest copy of their row; the copies in lanes 8-31 read others.
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned r = (lane << 3 & 24) | (lane >> 2 & 7);
    INFO("lane " << lane);
    CHECK(sourceOf(*plan, lane, 0).first == ((lane & 4) ? r ^ 1 : r));
  }
}

TEST_CASE("conversions Triton does not shuffle have no plan", "[codegen][shuffle]") {
  // Two lane bits of the conversion go to registers (TritonBench fused_recurrent_fwd_kernel's
  // row sums, 4 rows per thread): Triton goes through shared memory.
  auto fourRows = gpu::makeBlocked({4, 1}, {2, 16}, {1, 1}, {0, 1});
  CHECK_FALSE(planWarpShuffle(distribution(gpu::makeSlice(1, fourRows), {8}),
                              distribution(oneDimension, {8})));
  // Data that changes warps.
  auto rowsByWarps = gpu::makeBlocked({1, 1}, {1, 32}, {4, 1}, {1, 0});
  auto columnsByWarps = gpu::makeBlocked({1, 1}, {32, 1}, {1, 4}, {0, 1});
  CHECK_FALSE(
      planWarpShuffle(distribution(rowsByWarps, {32, 32}), distribution(columnsByWarps, {32, 32})));
  // Every thread already holds its elements: a register permutation, not a shuffle.
  CHECK_FALSE(
      planWarpShuffle(distribution(rowsByLanes, {8, 8}), distribution(rowsByLanes, {8, 8})));
}

TEST_CASE("a conversion between two 2-D layouts of one warp moves every element",
          "[codegen][shuffle]") {
  // [8 x 8] on one warp, 2 elements per thread: lanes along columns, then along rows.
  auto lanesAlongColumns = gpu::makeBlocked({1, 1}, {4, 8}, {1, 1}, {1, 0});
  auto lanesAlongRows = gpu::makeBlocked({1, 1}, {8, 4}, {1, 1}, {0, 1});
  Distribution src = distribution(lanesAlongColumns, {8, 8});
  Distribution dst = distribution(lanesAlongRows, {8, 8});
  auto plan = planWarpShuffle(src, dst);
  REQUIRE(plan);
  checkMovesEveryElement(*plan, src, dst);
  auto back = planWarpShuffle(dst, src);
  REQUIRE(back);
  checkMovesEveryElement(*back, dst, src);
}

/// The copy bits and the kept copy's bits when a row reduction's result (the slice of `rows`
/// along dimension 1, `numRows` rows of `elemBits` bits) is converted to the 1-D layout.
std::pair<unsigned, unsigned> keptCopyOfRowSums(const gpu::LayoutPtr &rows, int64_t numRows,
                                                unsigned elemBits) {
  auto kept = tilec::codegen::copyTritonKeeps(distribution(gpu::makeSlice(1, rows), {numRows}),
                                              distribution(oneDimension, {numRows}), elemBits);
  REQUIRE(kept);
  return {kept->copyBits, kept->keptBits};
}

TEST_CASE("the copy Triton's shared-memory conversion keeps", "[codegen][shuffle]") {
  // 16 rows, one per lane bit 4 and three per register, the copies along lane bits 0-3
  // (fused_recurrent_retention_fwd_kernel): Triton stores 4 rows per lane at once (v4, Triton's
  // PTX), in four quarter-warps; lanes 8-15 and 24-31 store last, lane 8 or 24 is kept.
  auto rowsByRegisters = gpu::makeBlocked({1, 1}, {2, 16}, {1, 1}, {1, 0});
  CHECK(keptCopyOfRowSums(rowsByRegisters, 16, 32) == std::pair(0xfu, 0x8u));
  // 4 rows per thread (sizePerThread), copies along lane bits 1-4 (fused_recurrent_fwd_kernel):
  // v4 again, lanes 24 and 25.
  auto fourRows = gpu::makeBlocked({4, 1}, {2, 16}, {1, 1}, {0, 1});
  CHECK(keptCopyOfRowSums(fourRows, 8, 32) == std::pair(0x1eu, 0x18u));
  // One row per thread: 32-bit stores, the lowest lane.
  auto rowsByLaneBits = gpu::makeBlocked({1, 1}, {8, 4}, {1, 1}, {1, 0});
  CHECK(keptCopyOfRowSums(rowsByLaneBits, 8, 32) == std::pair(0x3u, 0u));
  // 64-bit elements, 2 rows per v2.b64 store: 16 bytes a lane, four quarter-warps again.
  auto twoRows = gpu::makeBlocked({2, 1}, {4, 8}, {1, 1}, {0, 1});
  CHECK(keptCopyOfRowSums(twoRows, 8, 64) == std::pair(0x1cu, 0x18u));
  // No copies in lanes, or elements narrower than 32 bits: not modelled.
  using tilec::codegen::copyTritonKeeps;
  CHECK_FALSE(
      copyTritonKeeps(distribution(oneDimension, {32}), distribution(rowsByLanes, {4, 8}), 32));
  CHECK_FALSE(copyTritonKeeps(distribution(gpu::makeSlice(1, fourRows), {8}),
                              distribution(oneDimension, {8}), 16));
}
