// Distribution: which elements a thread holds, for blocked layouts whose warps repeat their rows
// (Layout.h, repsInWarp): the wgmma accumulator layout must give each thread exactly the rows and
// columns the wgmma instructions write for it.
#include "codegen/Distribution.h"

#include "gpu/Layout.h"

#include <catch2/catch.hpp>
#include <set>

using tilec::codegen::Distribution;
using tilec::codegen::distributionOf;
namespace gpu = tilec::gpu;
namespace tir = tilec::tir;

namespace {

Distribution distribution(const gpu::LayoutPtr &layout, std::vector<int64_t> shape) {
  tir::Type type(tir::DType::scalar(tir::ScalarKind::F32), std::move(shape));
  return distributionOf(type.withLayout(layout));
}

} // namespace

TEST_CASE("the wgmma accumulator layout holds the rows wgmma writes", "[codegen][distribution]") {
  // 8 warps (two warpgroups) on a 128 x 256 tile: warp w holds rows 16w + g and 16w + 8 + g
  // (g = lane / 4) and columns 8j + 2 (lane % 4) + {0, 1}.
  gpu::LayoutPtr layout = gpu::mmaV3AccumulatorLayout(8);
  CHECK(layout->str() ==
        "#blocked<{spt=[1, 2], tpw=[8, 4], wpc=[8, 1], order=[1, 0], rep=[2, 1]}>");
  CHECK(gpu::isMmaV3AccumulatorLayout(*layout));
  CHECK_FALSE(gpu::isMmaV2AccumulatorLayout(*layout));
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
