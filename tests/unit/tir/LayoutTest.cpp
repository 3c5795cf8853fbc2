#include "gpu/Layout.h"

#include <catch2/catch.hpp>

using namespace tilec::gpu;

TEST_CASE("default 1-D layout gives each thread a 128-bit vector", "[layout]") {
  LayoutPtr l = defaultBlockedLayout({1024}, 4, 4);
  CHECK(l->sizePerThread == std::vector<unsigned>{4});
  CHECK(l->threadsPerWarp == std::vector<unsigned>{32});
  CHECK(l->warpsPerCTA == std::vector<unsigned>{4});
  CHECK(l->order == std::vector<unsigned>{0});
  CHECK(l->numWarps() == 4);
}

TEST_CASE("small tensors replicate instead of giving threads nothing", "[layout]") {
  LayoutPtr l = defaultBlockedLayout({16}, 4, 4);
  // 16 elements cannot fill 32 lanes with 4-wide vectors: vector width shrinks to 1 and the
  // left-over lanes and warps replicate.
  CHECK(l->sizePerThread == std::vector<unsigned>{1});
  CHECK(l->threadsPerWarp == std::vector<unsigned>{32});
  CHECK(l->warpsPerCTA == std::vector<unsigned>{4});
}

TEST_CASE("2-D layout spreads lanes along the fastest dimension first", "[layout]") {
  LayoutPtr l = defaultBlockedLayout({64, 64}, 4, 4);
  CHECK(l->order == std::vector<unsigned>{1, 0});
  CHECK(l->sizePerThread == std::vector<unsigned>{1, 4});
  CHECK(l->threadsPerWarp == std::vector<unsigned>{2, 16});
  CHECK(l->warpsPerCTA == std::vector<unsigned>{4, 1});
}

TEST_CASE("layouts print and compare structurally", "[layout]") {
  LayoutPtr a = makeBlocked({4}, {32}, {4}, {0});
  LayoutPtr b = makeBlocked({4}, {32}, {4}, {0});
  CHECK(*a == *b);
  CHECK(a->str() == "#blocked<{spt=[4], tpw=[32], wpc=[4], order=[0]}>");
  LayoutPtr s = makeSlice(1, makeBlocked({1, 4}, {2, 16}, {4, 1}, {1, 0}));
  CHECK(s->rank() == 1);
  CHECK(*s != *a);
}
