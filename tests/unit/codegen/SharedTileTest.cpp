// sharedAddressStep: when the address of one element of a swizzled shared tile follows from
// another's by an XOR and an add (the mma.sync fragment addresses of LowerDotMma.cpp); and
// tmaBoxOffset: where a TMA box lands in an NVMMA tile (the TMA copies of LowerPipeline.cpp).
#include "codegen/SharedTile.h"

#include <algorithm>
#include <catch2/catch.hpp>

using tilec::codegen::SharedAddressStep;
using tilec::codegen::sharedAddressStep;
using tilec::codegen::SharedTilePlan;
using tilec::codegen::tmaBoxOffset;

namespace {

/// A 64 x 128 fp16 tile stored along its 128 columns (256-byte rows) as mmaOperandPlan stores
/// it: 16-byte units XOR-swizzled with the row mod 8.
SharedTilePlan swizzledRows() {
  SharedTilePlan plan;
  plan.shape = {64, 128};
  plan.elemBytes = 2;
  plan.fastDim = 1;
  plan.unit = 8;
  plan.swizzleShift = 0;
  plan.swizzleMask = 7;
  return plan;
}

/// An NVMMA tile of `rows` x `columns` fp16 as wgmmaOperandPlan lays it out: blocks of up to 64
/// columns (128 bytes), swizzled as their width says.
SharedTilePlan nvmmaTile(int64_t rows, int64_t columns) {
  SharedTilePlan plan;
  plan.shape = {rows, columns};
  plan.elemBytes = 2;
  plan.fastDim = 1;
  plan.unit = 8;
  int64_t width = std::min<int64_t>(128, columns * 2);
  plan.blockLength = width / 2;
  plan.swizzleMask = static_cast<unsigned>(width / 16 - 1);
  plan.swizzleShift = width == 128 ? 0 : width == 64 ? 1 : 2;
  return plan;
}

} // namespace

TEST_CASE("TMA boxes of any rows land where the NVMMA tile keeps them", "[codegen][shared]") {
  // a's rows are in their own order (the wgmma accumulator layout is the instructions'): the
  // whole tile is one box, and so is any run of its rows.
  SharedTilePlan a = nvmmaTile(128, 64);
  CHECK(tmaBoxOffset(a, 128, 0, 0) == 0);
  CHECK(tmaBoxOffset(a, 8, 8, 0) == 8 * 128);
  CHECK(tmaBoxOffset(a, 16, 32, 0) == 32 * 128);
  // Past the tile's rows or columns: none.
  CHECK_FALSE(tmaBoxOffset(a, 128, 8, 0));
  CHECK_FALSE(tmaBoxOffset(a, 8, 0, 1));
}

TEST_CASE("a TMA box covers b's whole block of rows, swizzled as the block is wide",
          "[codegen][shared]") {
  SharedTilePlan b = nvmmaTile(256, 128); // two 128-byte blocks
  CHECK(tmaBoxOffset(b, 256, 0, 0) == 0);
  CHECK(tmaBoxOffset(b, 256, 0, 1) == 256 * 128);
  SharedTilePlan narrow = nvmmaTile(64, 32); // 64-byte rows, 64-byte swizzle
  CHECK(tmaBoxOffset(narrow, 64, 0, 0) == 0);
  SharedTilePlan narrowest = nvmmaTile(64, 16); // 32-byte rows, 32-byte swizzle
  CHECK(tmaBoxOffset(narrowest, 64, 0, 0) == 0);
  // Past the tile, or along a plan without blocks: none.
  CHECK_FALSE(tmaBoxOffset(b, 256, 0, 2));
  CHECK_FALSE(tmaBoxOffset(swizzledRows(), 8, 0, 0));
}

TEST_CASE("a step of whole swizzle periods of rows is an add", "[codegen][shared]") {
  std::optional<SharedAddressStep> step = sharedAddressStep(swizzledRows(), 128, {0, 8}, 16, 0);
  REQUIRE(step);
  CHECK(step->xorBytes == 0);
  CHECK(step->addBytes == 16 * 256);
}

TEST_CASE("a step along the row above every thread's unit bits is an XOR", "[codegen][shared]") {
  // Threads read units 0 and 1 (columns 0 and 8); 16 columns on is unit 2 or 3, swizzled the same.
  std::optional<SharedAddressStep> step = sharedAddressStep(swizzledRows(), 256, {0, 8}, 0, 16);
  REQUIRE(step);
  CHECK(step->xorBytes == 32);
  CHECK(step->addBytes == 0);
  // Both at once: the rows add, the columns XOR.
  step = sharedAddressStep(swizzledRows(), 256, {0, 8}, 32, 112);
  REQUIRE(step);
  CHECK(step->xorBytes == 224);
  CHECK(step->addBytes == 32 * 256);
}

TEST_CASE("an XOR needs the tile to start at a multiple of a power of two above it",
          "[codegen][shared]") {
  CHECK(sharedAddressStep(swizzledRows(), 256, {0, 8}, 0, 112));
  CHECK_FALSE(sharedAddressStep(swizzledRows(), 128, {0, 8}, 0, 112));
}

TEST_CASE("no step where it changes the swizzle phase or overlaps a thread's unit",
          "[codegen][shared]") {
  // 4 rows on is another phase of the XOR: neither an add nor an XOR for every thread.
  CHECK_FALSE(sharedAddressStep(swizzledRows(), 1024, {0, 8}, 4, 0));
  // A thread reading unit 2 (column 16) has the bit the step of 2 units sets.
  CHECK_FALSE(sharedAddressStep(swizzledRows(), 1024, {0, 8, 16}, 0, 16));
  // Past the end of the row.
  CHECK_FALSE(sharedAddressStep(swizzledRows(), 1024, {0, 8}, 0, 128));
  CHECK_FALSE(sharedAddressStep(swizzledRows(), 1024, {}, 16, 0));
}

TEST_CASE("an unswizzled tile steps by adds only", "[codegen][shared]") {
  SharedTilePlan plan;
  plan.shape = {32, 40};
  plan.elemBytes = 4;
  plan.fastDim = 1;
  plan.unit = 4;
  plan.pad = 4; // 44-element rows
  std::optional<SharedAddressStep> step = sharedAddressStep(plan, 16, {0, 3, 17}, 2, 5);
  REQUIRE(step);
  CHECK(step->xorBytes == 0);
  CHECK(step->addBytes == (2 * 44 + 5) * 4);
}
