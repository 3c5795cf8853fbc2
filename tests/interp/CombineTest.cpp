// Scans and reductions with combine functions, and the shape ops built on them, run on the
// interpreter from tests/gpu/scan_ops.tl (the kernels the GPU checks compare with Triton) against
// references written here.
#include "SeedKernelTestUtil.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

using namespace tilec;
using namespace tilec::seedtest;
using interp::HostBuffer;
using interp::KernelArg;
using tir::DType;
using tir::ScalarKind;

namespace {

std::string scanOps() {
  return std::string(TILEC_GPU_KERNELS_DIR) + "/scan_ops.tl";
}

std::string combineKernels() {
  return std::string(TILEC_LANGUAGE_KERNELS_DIR) + "/combine.tl";
}

/// This file's inputs: seedtest::noise's sequence 12345.
int64_t noise(int64_t i, int64_t range) {
  return seedtest::noise(i, range, 12345);
}

} // namespace

TEST_CASE("tl.cumsum and tl.associative_scan on both axes, forwards and reversed",
          "[language][scan]") {
  const int64_t m = 8, n = 16;
  for (const char *kernel : {"cumsum_2d", "user_scan"})
    for (int axis = 0; axis < 2; ++axis)
      for (int reverse = 0; reverse < 2; ++reverse) {
        INFO(kernel << " axis=" << axis << " reverse=" << reverse);
        auto module =
            compile(scanOps(), kernel,
                    "*i32,*i32,8,16," + std::to_string(axis) + "," + std::to_string(reverse));
        HostBuffer x(i32, m * n), y(i32, m * n);
        for (int64_t i = 0; i < m * n; ++i)
          x.setInt(i, noise(i, 1000));
        launch(*module->functions.at(0), {KernelArg::pointer(x), KernelArg::pointer(y)}, 1);
        std::vector<double> want(m * n);
        for (int64_t line = 0; line < (axis ? m : n); ++line) {
          int64_t length = axis ? n : m, running = 0;
          for (int64_t s = 0; s < length; ++s) {
            int64_t k = reverse ? length - 1 - s : s;
            int64_t index = axis ? line * n + k : k * n + line;
            running += x.getInt(index);
            want[index] = static_cast<double>(running);
          }
        }
        CHECK(worst(y, want, 0, 0) == 0);
      }
}

TEST_CASE("tl.associative_scan of a pair: a linear recurrence, both directions",
          "[language][scan]") {
  const int64_t m = 4, n = 32;
  for (int reverse = 0; reverse < 2; ++reverse) {
    INFO("reverse=" << reverse);
    auto module =
        compile(scanOps(), "linear_scan", "*fp32,*fp32,*fp32,4,32," + std::to_string(reverse));
    HostBuffer a(f32, m * n), b(f32, m * n), h(f32, m * n);
    for (int64_t i = 0; i < m * n; ++i) {
      a.setDouble(i, 0.5 + std::fabs(noise(i, 64)) / 128.0);
      b.setDouble(i, noise(i + 7, 100) / 50.0);
    }
    launch(*module->functions.at(0),
           {KernelArg::pointer(a), KernelArg::pointer(b), KernelArg::pointer(h)}, 1);
    std::vector<double> want(m * n);
    for (int64_t r = 0; r < m; ++r) {
      double state = 0;
      for (int64_t s = 0; s < n; ++s) {
        int64_t c = reverse ? n - 1 - s : s;
        state = a.getDouble(r * n + c) * state + b.getDouble(r * n + c);
        want[r * n + c] = state;
      }
    }
    CHECK(worst(h, want, 1e-5, 1e-5) <= 1);
  }
}

TEST_CASE("tl.cumprod on both axes", "[language][scan]") {
  const int64_t m = 4, n = 8;
  for (int axis = 0; axis < 2; ++axis) {
    auto module =
        compile(scanOps(), "cumprod_2d", "*fp32,*fp32,4,8," + std::to_string(axis) + ",1");
    HostBuffer x(f32, m * n), y(f32, m * n);
    for (int64_t i = 0; i < m * n; ++i)
      x.setDouble(i, 0.75 + (noise(i, 16) + 16) / 64.0);
    launch(*module->functions.at(0), {KernelArg::pointer(x), KernelArg::pointer(y)}, 1);
    std::vector<double> want(m * n);
    for (int64_t line = 0; line < (axis ? m : n); ++line) {
      int64_t length = axis ? n : m;
      double p = 1;
      for (int64_t k = length - 1; k >= 0; --k) {
        int64_t index = axis ? line * n + k : k * n + line;
        p *= x.getDouble(index);
        want[index] = p;
      }
    }
    CHECK(worst(y, want, 0, 1e-5) <= 1);
  }
}

TEST_CASE("tl.reduce with a user function, of one and two operands; tl.xor_sum; keep_dims",
          "[language][reduce]") {
  const int64_t m = 8, n = 16;
  for (int axis = 0; axis < 2; ++axis) {
    INFO("axis=" << axis);
    auto module =
        compile(scanOps(), "user_reduce", "*i32,*i32,*i32,*i32,*i32,8,16," + std::to_string(axis));
    int64_t lines = axis ? m : n, length = axis ? n : m;
    HostBuffer x(i32, m * n), sums(i32, lines), maxes(i32, lines), indices(i32, lines),
        xors(i32, lines);
    for (int64_t i = 0; i < m * n; ++i)
      x.setInt(i, noise(i, 20)); // small values: ties of the maximum
    launch(*module->functions.at(0),
           {KernelArg::pointer(x), KernelArg::pointer(sums), KernelArg::pointer(maxes),
            KernelArg::pointer(indices), KernelArg::pointer(xors)},
           1);
    std::vector<double> wantSum(lines), wantMax(lines), wantIndex(lines), wantXor(lines);
    for (int64_t line = 0; line < lines; ++line) {
      int64_t sum = 0, best = std::numeric_limits<int64_t>::min(), bestAt = -1, bits = 0;
      for (int64_t k = 0; k < length; ++k) {
        int64_t v = x.getInt(axis ? line * n + k : k * n + line);
        sum += v;
        bits ^= v;
        if (v > best) {
          best = v;
          bestAt = k;
        }
      }
      wantSum[line] = static_cast<double>(sum);
      wantMax[line] = static_cast<double>(best);
      wantIndex[line] = static_cast<double>(bestAt);
      wantXor[line] = static_cast<double>(static_cast<int32_t>(bits));
    }
    CHECK(worst(sums, wantSum, 0, 0) == 0);
    CHECK(worst(maxes, wantMax, 0, 0) == 0);
    CHECK(worst(indices, wantIndex, 0, 0) == 0);
    CHECK(worst(xors, wantXor, 0, 0) == 0);
  }
}

TEST_CASE("tl.join, tl.interleave, tl.split and tl.flip", "[language][shape]") {
  const int64_t m = 4, n = 8;
  auto module = compile(scanOps(), "join_split", "*i32,*i32,*i32,*i32,*i32,*i32,*i32,4,8");
  HostBuffer x(i32, m * n), y(i32, m * n), joined(i32, 2 * m * n), inter(i32, 2 * m * n),
      a(i32, m * n), b(i32, m * n), flipped(i32, m * n);
  for (int64_t i = 0; i < m * n; ++i) {
    x.setInt(i, noise(i, 1000));
    y.setInt(i, noise(i + 99, 1000));
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::pointer(joined),
          KernelArg::pointer(inter), KernelArg::pointer(a), KernelArg::pointer(b),
          KernelArg::pointer(flipped)},
         1);
  std::vector<double> wantJoined(2 * m * n), wantA(m * n), wantB(m * n), wantFlip(m * n);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c) {
      int64_t i = r * n + c;
      wantJoined[2 * i] = static_cast<double>(x.getInt(i));
      wantJoined[2 * i + 1] = static_cast<double>(y.getInt(i));
      wantA[i] = static_cast<double>(x.getInt(i) * 2);
      wantB[i] = static_cast<double>(y.getInt(i) + 1);
      wantFlip[i] = static_cast<double>(x.getInt(r * n + n - 1 - c));
    }
  CHECK(worst(joined, wantJoined, 0, 0) == 0);
  CHECK(worst(inter, wantJoined, 0, 0) == 0); // [M, 2N] row-major is the [M, N, 2] join's order
  CHECK(worst(a, wantA, 0, 0) == 0);
  CHECK(worst(b, wantB, 0, 0) == 0);
  CHECK(worst(flipped, wantFlip, 0, 0) == 0);
}

TEST_CASE("tl.split and tl.flip keep floats bit for bit, -0.0 and NaN included",
          "[language][shape]") {
  auto module = compile(combineKernels(), "float_shapes", "*fp32,*fp32,*fp32,*fp32,16");
  const int64_t n = 16;
  HostBuffer x(f32, n), lo(f32, n), hi(f32, n), flipped(f32, n);
  for (int64_t i = 0; i < n; ++i)
    x.setDouble(i, i % 3 == 0 ? -0.0 : (i - 8) / 3.0);
  x.setDouble(5, std::numeric_limits<double>::quiet_NaN());
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(lo), KernelArg::pointer(hi),
          KernelArg::pointer(flipped)},
         1);
  for (int64_t i = 0; i < n; ++i) {
    INFO("i=" << i);
    double v = x.getDouble(i);
    double l = lo.getDouble(i), h = hi.getDouble(i), f = flipped.getDouble(n - 1 - i);
    for (double got : {l, h, f}) {
      if (std::isnan(v)) {
        CHECK(std::isnan(got));
      } else {
        CHECK(got == v);
        CHECK(std::signbit(got) == std::signbit(v));
      }
    }
  }
}

TEST_CASE("tl.clamp with and without NaN propagation; tl.div_rn and tl.fdiv", "[language]") {
  auto module = compile(combineKernels(), "clamp_div", "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,8");
  const int64_t n = 8;
  HostBuffer x(f32, n), y(f32, n), c(f32, n), cn(f32, n), d(f32, n), f(f32, n);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double xs[n] = {-2, -0.5, 0.25, 0.75, 3, nan, 1, -1};
  for (int64_t i = 0; i < n; ++i) {
    x.setDouble(i, xs[i]);
    y.setDouble(i, 3.0 + i);
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::pointer(c),
          KernelArg::pointer(cn), KernelArg::pointer(d), KernelArg::pointer(f)},
         1);
  for (int64_t i = 0; i < n; ++i) {
    INFO("x=" << xs[i]);
    if (std::isnan(xs[i])) {
      // clamp(x, -0.5, 0.5) is Triton's clip from sm_90 (tilec's default target):
      // min.xorsign.abs(x, 0.5) gives 0.5 with the NaN's sign (+ here).
      CHECK(c.getDouble(i) == 0.5);
      // With propagation, Triton's maximum then minimum (max.NaN, min.NaN): the canonical NaN.
      uint32_t bits;
      std::memcpy(&bits, cn.data() + 4 * i, 4);
      CHECK(bits == 0x7FFFFFFFu);
    } else {
      double want = std::fmin(std::fmax(xs[i], -0.5), 0.5);
      CHECK(c.getDouble(i) == want);
      CHECK(cn.getDouble(i) == want);
    }
    float q = static_cast<float>(xs[i]) / static_cast<float>(3.0 + i); // IEEE, round to nearest
    if (!std::isnan(xs[i])) {
      CHECK(d.getDouble(i) == q);
      CHECK(f.getDouble(i) == q);
    }
  }
}

TEST_CASE("tl.permute and tl.trans of a rank-3 tensor in any order", "[language][shape]") {
  const int64_t a = 2, b = 4, c = 8;
  auto module = compile(scanOps(), "permute3", "*i32,*i32,*i32,2,4,8");
  HostBuffer x(i32, a * b * c), y(i32, a * b * c), t(i32, a * b * c);
  for (int64_t i = 0; i < a * b * c; ++i)
    x.setInt(i, noise(i, 1000));
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::pointer(t)}, 1);
  std::vector<double> wantY(a * b * c), wantT(a * b * c);
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < c; ++k) {
        double v = static_cast<double>(x.getInt((i * b + j) * c + k));
        wantY[(k * a + i) * b + j] = v; // y[k, i, j] = x[i, j, k]
        wantT[(j * c + k) * a + i] = v; // t[j, k, i] = x[i, j, k]
      }
  CHECK(worst(y, wantY, 0, 0) == 0);
  CHECK(worst(t, wantT, 0, 0) == 0);
}

TEST_CASE("tl.sort ascending and descending, tl.topk", "[language][sort]") {
  const int64_t m = 4, n = 32, k = 8;
  for (int descending = 0; descending < 2; ++descending) {
    INFO("descending=" << descending);
    auto module = compile(scanOps(), "sort_rows",
                          "*fp32,*fp32,*fp32,4,32," + std::to_string(descending) + ",8");
    HostBuffer x(f32, m * n), y(f32, m * n), top(f32, m * k);
    for (int64_t i = 0; i < m * n; ++i)
      x.setDouble(i, noise(i, 50) / 4.0); // repeated values too
    launch(*module->functions.at(0),
           {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::pointer(top)}, 1);
    std::vector<double> want(m * n), wantTop(m * k);
    for (int64_t r = 0; r < m; ++r) {
      std::vector<double> row;
      for (int64_t c = 0; c < n; ++c)
        row.push_back(x.getDouble(r * n + c));
      std::sort(row.begin(), row.end());
      for (int64_t c = 0; c < n; ++c)
        want[r * n + c] = descending ? row[n - 1 - c] : row[c];
      for (int64_t c = 0; c < k; ++c)
        wantTop[r * k + c] = row[n - 1 - c];
    }
    CHECK(worst(y, want, 0, 0) == 0);
    CHECK(worst(top, wantTop, 0, 0) == 0);
  }
}
