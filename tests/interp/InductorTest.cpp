// Kernels in the form PyTorch Inductor generates (kernels/inductor.tl): torch's triton_helpers
// (Welford, NaN-propagating max/min, argmax with the lowest index on ties, prod, any, floor
// division) run on the interpreter against references written here.
#include "SeedKernelTestUtil.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace tilec;
using namespace tilec::seedtest;
using interp::HostBuffer;
using interp::KernelArg;
using tir::DType;
using tir::ScalarKind;

namespace {

const DType f32 = DType::scalar(ScalarKind::F32);
const DType i32 = DType::scalar(ScalarKind::I32);
const DType i64 = DType::scalar(ScalarKind::I64);

std::string inductorKernels() {
  return std::string(TILEC_LANGUAGE_KERNELS_DIR) + "/inductor.tl";
}

int64_t noise(int64_t i, int64_t range) {
  return seedtest::noise(i, range, 4242);
}

} // namespace

TEST_CASE("Inductor: var_mean in a loop through welford_reduce and welford",
          "[language][inductor]") {
  const int64_t rows = 3, n = 100;
  // torch 2.3+'s form (first_iteration), and torch 2.1's (counts from zero, no first_iteration).
  const char *kernel = GENERATE("triton_red_fused_var_mean_0", "triton_red_fused_var_mean_1");
  INFO(kernel);
  auto module = compile(inductorKernels(), kernel, "*fp32:16,*fp32:16,*fp32:16,i32,i32,2,32");
  HostBuffer x(f32, rows * n), mean(f32, rows), var(f32, rows);
  for (int64_t i = 0; i < rows * n; ++i)
    x.setDouble(i, noise(i, 1000) / 64.0);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(mean), KernelArg::pointer(var),
          KernelArg::integer(rows), KernelArg::integer(n)},
         2);
  std::vector<double> wantMean(rows), wantVar(rows);
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0, squares = 0;
    for (int64_t i = 0; i < n; ++i)
      sum += x.getDouble(r * n + i);
    wantMean[r] = sum / n;
    for (int64_t i = 0; i < n; ++i)
      squares += (x.getDouble(r * n + i) - wantMean[r]) * (x.getDouble(r * n + i) - wantMean[r]);
    wantVar[r] = squares / n;
  }
  CHECK(worst(mean, wantMean, 1e-5, 1e-5) <= 1);
  CHECK(worst(var, wantVar, 1e-5, 1e-5) <= 1);
}

TEST_CASE("Inductor: max2, min2, max/min_with_index (NaN, ties), prod and any in one block",
          "[language][inductor]") {
  const int64_t rows = 5, n = 16;
  auto module =
      compile(inductorKernels(), "triton_per_fused_max_min_0", "*fp32:16,*fp32:16,i32,16,4");
  HostBuffer x(f32, rows * n), out(f32, rows * 6);
  // +-0.5, +-1, +-2: every product is exact, whatever the order of the reduction.
  for (int64_t i = 0; i < rows * n; ++i)
    x.setDouble(i, (noise(i, 2) < 0 ? -1 : 1) *
                       std::ldexp(1.0, static_cast<int>(noise(i + 99, 1) + (i % 2))));
  x.setDouble(3, 9.0); // a tie for the maximum: the lower index wins; any(x > 2.5) in row 0 only
  x.setDouble(7, 9.0);
  x.setDouble(16 + 4, std::numeric_limits<double>::quiet_NaN()); // row 1: NaN wins both ways
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(out), KernelArg::integer(rows)}, 2);
  std::vector<double> want(rows * 6);
  for (int64_t r = 0; r < rows; ++r) {
    double hi = x.getDouble(r * n), lo = hi, product = 1;
    int64_t argHi = 0, argLo = 0;
    bool any = false;
    for (int64_t i = 0; i < n; ++i) {
      double v = x.getDouble(r * n + i);
      if (std::isnan(v) && !std::isnan(hi)) {
        hi = lo = v;
        argHi = argLo = i;
      }
      if (!std::isnan(hi) && v > hi) {
        hi = v;
        argHi = i;
      }
      if (!std::isnan(lo) && v < lo) {
        lo = v;
        argLo = i;
      }
      product *= v;
      any = any || v > 2.5;
    }
    want[r * 6 + 0] = hi;
    want[r * 6 + 1] = lo;
    want[r * 6 + 2] = static_cast<double>(argHi);
    want[r * 6 + 3] = static_cast<double>(argLo);
    want[r * 6 + 4] = product;
    want[r * 6 + 5] = any ? 1.0 : 0.0;
  }
  REQUIRE(std::isnan(want[6]));
  REQUIRE(want[2] == 3);
  REQUIRE(want[5] == 1);
  REQUIRE(want[11] == 0);
  for (int64_t i = 0; i < rows * 6; ++i) {
    INFO("row " << i / 6 << " result " << i % 6);
    if (std::isnan(want[i]))
      CHECK(std::isnan(out.getDouble(i)));
    else
      CHECK(out.getDouble(i) == want[i]);
  }
}

TEST_CASE("Inductor: argmax in a loop through maximum_with_index, then max_with_index",
          "[language][inductor]") {
  const int64_t rows = 3, n = 100;
  auto module =
      compile(inductorKernels(), "triton_red_fused_argmax_0", "*fp32:16,*i64:16,i32,i32,2,32");
  HostBuffer x(f32, rows * n), arg(i64, rows);
  for (int64_t i = 0; i < rows * n; ++i)
    x.setDouble(i, static_cast<double>(noise(i, 40))); // many ties: the first index wins
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(arg), KernelArg::integer(rows),
          KernelArg::integer(n)},
         2);
  std::vector<double> want(rows);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t best = 0;
    for (int64_t i = 1; i < n; ++i)
      if (x.getDouble(r * n + i) > x.getDouble(r * n + best))
        best = i;
    want[r] = static_cast<double>(best);
  }
  CHECK(worst(arg, want, 0, 0) == 0);
}

TEST_CASE("Inductor: floor division and Python's remainder, NaN-propagating maximum/minimum",
          "[language][inductor]") {
  const int64_t n = 50;
  auto module = compile(inductorKernels(), "triton_poi_fused_div_rem_maximum_0",
                        "*i32:16,*i32:16,*fp32:16,*fp32:16,*i32:16,*fp32:16,i32,64");
  HostBuffer a(i32, n), b(i32, n), x(f32, n), y(f32, n), ints(i32, 2 * n), floats(f32, 3 * n);
  for (int64_t i = 0; i < n; ++i) {
    a.setInt(i, noise(i, 50));
    int64_t d = noise(i + 1000, 7);
    b.setInt(i, d == 0 ? -3 : d);
    x.setDouble(i, noise(i + 2000, 16) / 4.0);
    y.setDouble(i, noise(i + 3000, 16) / 4.0);
  }
  x.setDouble(5, std::numeric_limits<double>::quiet_NaN());
  y.setDouble(9, std::numeric_limits<double>::quiet_NaN());
  launch(*module->functions.at(0),
         {KernelArg::pointer(a), KernelArg::pointer(b), KernelArg::pointer(x),
          KernelArg::pointer(y), KernelArg::pointer(ints), KernelArg::pointer(floats),
          KernelArg::integer(n)},
         1);
  for (int64_t i = 0; i < n; ++i) {
    int64_t p = a.getInt(i), q = b.getInt(i);
    int64_t floorQuotient = static_cast<int64_t>(std::floor(static_cast<double>(p) / q));
    INFO("i=" << i << " a=" << p << " b=" << q);
    CHECK(ints.getInt(2 * i) == floorQuotient);
    CHECK(ints.getInt(2 * i + 1) == p - floorQuotient * q);
    double u = x.getDouble(i), v = y.getDouble(i);
    if (std::isnan(u) || std::isnan(v)) {
      CHECK(std::isnan(floats.getDouble(3 * i)));
      CHECK(std::isnan(floats.getDouble(3 * i + 1)));
    } else {
      CHECK(floats.getDouble(3 * i) == std::max(u, v));
      CHECK(floats.getDouble(3 * i + 1) == std::min(u, v));
      CHECK(floats.getDouble(3 * i + 2) ==
            Approx(std::tanh(u) + std::exp(v * 0.125)).epsilon(1e-5));
    }
  }
}

TEST_CASE("Inductor: a triton_helpers function tilec does not have is named in the error",
          "[language][inductor]") {
  std::string error;
  auto module = tryCompile(inductorKernels(), "uses_missing_helper", "*fp32:16,4", error);
  CHECK(!module);
  CHECK(error.find("triton_helpers.bucketize_binary_search is not supported yet") !=
        std::string::npos);
}

TEST_CASE("Inductor: online softmax's max and sum in a loop, combined then reduced",
          "[language][inductor]") {
  const int64_t rows = 3, n = 100;
  auto module = compile(inductorKernels(), "triton_red_fused__softmax_online_0",
                        "*fp32:16,*fp32:16,*fp32:16,i32,i32,2,32");
  HostBuffer x(f32, rows * n), max(f32, rows), sum(f32, rows);
  for (int64_t i = 0; i < rows * n; ++i)
    x.setDouble(i, noise(i, 400) / 64.0);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(max), KernelArg::pointer(sum),
          KernelArg::integer(rows), KernelArg::integer(n)},
         2);
  std::vector<double> wantMax(rows), wantSum(rows);
  for (int64_t r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int64_t i = 0; i < n; ++i)
      m = std::max(m, x.getDouble(r * n + i));
    for (int64_t i = 0; i < n; ++i)
      s += std::exp(x.getDouble(r * n + i) - m);
    wantMax[r] = m;
    wantSum[r] = s;
  }
  CHECK(worst(max, wantMax, 0, 0) == 0);
  CHECK(worst(sum, wantSum, 1e-5, 1e-5) <= 1);
}

TEST_CASE("Inductor: pow_integer is exact on integers, wrapping as integer products do",
          "[language][inductor]") {
  const int64_t n = 40;
  auto module =
      compile(inductorKernels(), "triton_poi_fused_pow_0", "*i64:16,*i32:16,*i64:16,i32,64");
  HostBuffer base(i64, n), exponent(i32, n), out(i64, n);
  for (int64_t i = 0; i < n; ++i) {
    base.setInt(i, noise(i, 9));
    exponent.setInt(i, i % 20);
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(base), KernelArg::pointer(exponent), KernelArg::pointer(out),
          KernelArg::integer(n)},
         1);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t want = 1;
    for (int64_t k = 0; k < i % 20; ++k)
      want *= static_cast<uint64_t>(base.getInt(i));
    INFO("base " << base.getInt(i) << " exponent " << i % 20);
    CHECK(out.getInt(i) == static_cast<int64_t>(want));
  }
}
