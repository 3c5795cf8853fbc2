// Distribution: which elements a thread holds, for blocked layouts whose warps repeat their rows
// (Layout.h, repsInWarp): the wgmma accumulator layout must give each thread exactly the rows and
// columns the wgmma instructions write for it.
#include "codegen/Distribution.h"

#include "LayoutDistribution.h"
#include "gpu/Layout.h"

#include <catch2/catch.hpp>
#include <set>

using tilec::codegen::Distribution;
using tilec::codegen::testing::distribution;
namespace gpu = tilec::gpu;

TEST_CASE("the wgmma accumulator layout holds the rows wgmma writes", "[codegen][distribution]") {
  // 8 warps (two warpgroups) on a 128 x 256 tile: warp w holds rows 16w + g and 16w + 8 + g
  // (g = lane / 4) and columns 8j + 2 (lane % 4) + {0, 1}.
  gpu::LayoutPtr layout = gpu::mmaV3AccumulatorLayout(8);
  CHECK(layout->str() ==
        "#blocked<{spt=[1, 2], tpw=[8, 4], wpc=[8, 1], order=[1, 0], rep=[2, 1]}>");
  CHECK(gpu::isMmaV3AccumulatorLayout(*layout));
  // mma.sync's accumulator on the same warps holds the same rows (Triton's MMA v2 and v3 layouts
  // agree there): the layouts are equal.
  CHECK(*layout == *gpu::mmaV2AccumulatorLayout(8, 1));
  Distribution dist = distribution(layout, {128, 256});
  CHECK(dist.elemsPerThread == std::vector<unsigned>{2, 64});
  CHECK(dist.tile(0) == 128);
  const unsigned lane = 6, warp = 5; // g = 1, lane % 4 = 2
  CHECK(dist.coordinates(lane, warp, dist.linearIndex({0, 0})) == std::vector<int64_t>{81, 4});
  CHECK(dist.coordinates(lane, warp, dist.linearIndex({1, 0})) == std::vector<int64_t>{89, 4});
  CHECK(dist.coordinates(lane, warp, dist.linearIndex({1, 3})) == std::vector<int64_t>{89, 13});
  // Every element once.
  std::set<std::vector<int64_t>> seen;
  for (unsigned w = 0; w < 8; ++w)
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned e = 0; e < dist.numElements(); ++e)
        seen.insert(dist.coordinates(l, w, e));
  CHECK(seen.size() == 128 * 256);
}

TEST_CASE("the mma.sync accumulator gives each warp 16 consecutive rows, as Triton's",
          "[codegen][distribution]") {
  // 2 x 2 warps on 64 x 32: warp (m, n) holds rows 16m + g + {0, 8, 32, 40}, each instruction
  // tile's rows g and g + 8 (g = lane / 4); with one warp along M, the plain blocked layout.
  gpu::LayoutPtr layout = gpu::mmaV2AccumulatorLayout(2, 2);
  CHECK(layout->str() ==
        "#blocked<{spt=[1, 2], tpw=[8, 4], wpc=[2, 2], order=[1, 0], rep=[2, 1]}>");
  CHECK(gpu::isMmaV2AccumulatorLayout(*layout));
  CHECK(gpu::mmaV2AccumulatorLayout(1, 4)->repsInWarp.empty());
  Distribution dist = distribution(layout, {64, 32});
  std::vector<int64_t> rows;
  for (unsigned i = 0; i < 4; ++i)
    rows.push_back(dist.coordinates(/*lane=*/4, /*warp=*/2, dist.linearIndex({i, 0}))[0]);
  CHECK(rows == std::vector<int64_t>{17, 25, 49, 57});
}

TEST_CASE("a tile of two instruction blocks per warpgroup repeats after 16 rows per warp",
          "[codegen][distribution]") {
  // 4 warps on 128 rows: rows 16w + g + {0, 8, 64, 72}.
  Distribution dist = distribution(gpu::mmaV3AccumulatorLayout(4), {128, 64});
  CHECK(dist.elemsPerThread[0] == 4);
  std::vector<int64_t> rows;
  for (unsigned i = 0; i < 4; ++i)
    rows.push_back(dist.coordinates(/*lane=*/4, /*warp=*/2, dist.linearIndex({i, 0}))[0]);
  CHECK(rows == std::vector<int64_t>{33, 41, 97, 105});
}

TEST_CASE("a broadcast row in the wgmma layout holds its one row once", "[codegen][distribution]") {
  Distribution row = distribution(gpu::mmaV3AccumulatorLayout(4), {1, 64});
  CHECK(row.elemsPerThread == std::vector<unsigned>{1, 16});
  CHECK(row.coordinates(31, 3, 0)[0] == 0);
}

TEST_CASE("without the repeats, the same threads step by whole tiles", "[codegen][distribution]") {
  gpu::LayoutPtr v3 = gpu::mmaV3AccumulatorLayout(4);
  gpu::LayoutPtr plain = gpu::withoutRepsInWarp(v3);
  CHECK(*plain != *v3);
  CHECK(gpu::isMmaV2AccumulatorLayout(*plain));
  CHECK(*gpu::withoutRepsInWarp(plain) == *plain);
  // The slice of a row reduction keeps its parent's repeats, and loses them with it.
  gpu::LayoutPtr rows = gpu::makeSlice(1, v3);
  CHECK(*gpu::withoutRepsInWarp(rows) == *gpu::makeSlice(1, plain));
  Distribution dist = distribution(plain, {128, 64});
  std::vector<int64_t> columnZero;
  for (unsigned i = 0; i < 4; ++i)
    columnZero.push_back(dist.coordinates(4, 2, dist.linearIndex({i, 0}))[0]);
  CHECK(columnZero == std::vector<int64_t>{17, 49, 81, 113});
}

namespace {

/// Where Triton 3.6's MMA v3 layout (LinearLayoutConversions.cpp: nvidiaMmaTile on the [16, n]
/// instruction tile, then the warps column-major, M first) puts register r of instruction
/// (mi, ni) of lane `lane` of warp `warp`, on a grid of warpsM x warpsN warps.
std::vector<int64_t> tritonV3Coordinates(unsigned warpsM, unsigned warpsN, unsigned n,
                                         unsigned lane, unsigned warp, unsigned mi, unsigned ni,
                                         unsigned r) {
  unsigned g = lane / 4, q = lane % 4;
  unsigned warpM = warp % warpsM, warpN = warp / warpsM % warpsN;
  int64_t row = 16 * warpM + g + 8 * ((r % 4) / 2) + int64_t(mi) * 16 * warpsM;
  int64_t column = int64_t(n) * warpN + 8 * (r / 4) + 2 * q + r % 2 + int64_t(ni) * n * warpsN;
  return {row, column};
}

/// Checks that every register of every wgmma instruction of every thread is, in `layout`, the
/// element Triton's layout has there, when LowerDotWgmma numbers it: thread element
/// (2 mi + (r % 4) / 2, 2 (ni n / 8 + r / 4) + r % 2).
void checkAgainstTriton(const gpu::LayoutPtr &layout, std::vector<int64_t> shape, unsigned warpsM,
                        unsigned warpsN, unsigned n) {
  Distribution dist = distribution(layout, shape);
  unsigned blocksM = dist.elemsPerThread[0] / 2;
  unsigned tilesN = static_cast<unsigned>(shape[1] / (int64_t(n) * warpsN));
  CHECK(dist.elemsPerThread[1] == tilesN * n / 4);
  std::set<std::vector<int64_t>> seen;
  for (unsigned warp = 0; warp < warpsM * warpsN; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned mi = 0; mi < blocksM; ++mi)
        for (unsigned ni = 0; ni < tilesN; ++ni)
          for (unsigned r = 0; r < n / 2; ++r) {
            unsigned element =
                dist.linearIndex({2 * mi + (r % 4) / 2, 2 * (ni * n / 8 + r / 4) + r % 2});
            std::vector<int64_t> expected =
                tritonV3Coordinates(warpsM, warpsN, n, lane, warp, mi, ni, r);
            expected[0] %= shape[0];
            REQUIRE(dist.coordinates(lane, warp, element) == expected);
            seen.insert(expected);
          }
  CHECK(seen.size() == static_cast<size_t>(shape[0] * shape[1]));
}

} // namespace

TEST_CASE("warpgroups along N hold the columns Triton's MMA v3 layout gives them",
          "[codegen][distribution]") {
  // 64 x 128 on 8 warps: 4 x 2, m64n64 per warpgroup; warps 0-3 the first 64 columns.
  gpu::LayoutPtr layout = gpu::mmaV3AccumulatorLayout(4, 2, 64);
  CHECK(layout->str() == "#blocked<{spt=[1, 2], tpw=[8, 4], wpc=[4, 2], order=[1, 0], "
                         "rep=[2, 8], warp_order=[0, 1]}>");
  unsigned warpsM = 0, warpsN = 0;
  CHECK(gpu::isMmaV3AccumulatorLayout(*layout, &warpsM, &warpsN));
  CHECK((warpsM == 4 && warpsN == 2));
  CHECK_FALSE(gpu::isMmaV2AccumulatorLayout(*layout));
  checkAgainstTriton(layout, {64, 128}, 4, 2, 64);
  // Two instructions along N per warpgroup (64 x 256 with n = 64), 16 warps on 128 rows (8 x 2),
  // four warpgroups along N (64 x 128 on 16 warps, n = 32).
  checkAgainstTriton(layout, {64, 256}, 4, 2, 64);
  checkAgainstTriton(gpu::mmaV3AccumulatorLayout(8, 2, 64), {128, 128}, 8, 2, 64);
  checkAgainstTriton(gpu::mmaV3AccumulatorLayout(4, 4, 32), {64, 128}, 4, 4, 32);
  // The warp order survives a transposition and the removal of the repeats; a layout with warps
  // along one dimension only has none to keep.
  CHECK(gpu::permuteLayout(layout, {1, 0})->warpsOrder() == std::vector<unsigned>{1, 0});
  CHECK(gpu::withoutRepsInWarp(layout)->warpOrder == std::vector<unsigned>{0, 1});
  CHECK(gpu::mmaV3AccumulatorLayout(8)->warpOrder.empty());
  CHECK(*gpu::mmaV3AccumulatorLayout(8) == *gpu::mmaV3AccumulatorLayout(8, 1, 128));
}

TEST_CASE("warps past a chained dot's rows compute copies of the first warpgroup's",
          "[codegen][distribution]") {
  // Attention's first product, 64 rows on 8 warps all along M: warps 4-7 hold warps 0-3's rows.
  gpu::LayoutPtr layout = gpu::mmaV3AccumulatorLayout(8);
  Distribution dist = distribution(layout, {64, 64});
  CHECK(dist.wraps(0));
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned e = 0; e < dist.numElements(); ++e)
      CHECK(dist.coordinates(lane, 5, e) == dist.coordinates(lane, 1, e));
  checkAgainstTriton(layout, {64, 64}, 8, 1, 32);
}
