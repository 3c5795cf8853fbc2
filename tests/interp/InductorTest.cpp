// Kernels in the form PyTorch Inductor generates (kernels/inductor.tl): torch's triton_helpers
// (Welford, NaN-propagating max/min, argmax with the lowest index on ties, prod, any, floor
// division, bucketize, sort with indices, the decoupled look-back scan, frexp, the cooperative
// reduction's constexpr_next_power_of_2, if_mask and x_grid_barrier) run on the interpreter
// against references written here; loops that wait for another program are reported.
#include "SeedKernelTestUtil.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

using namespace tilec;
using namespace tilec::seedtest;
using interp::HostBuffer;
using interp::KernelArg;
using tir::DType;
using tir::ScalarKind;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

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
  CHECK(error.find("triton_helpers.not_a_helper_of_torch is not supported yet") !=
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

TEST_CASE("Inductor: bucketize_binary_search as std::lower_bound / upper_bound, NaN last",
          "[language][inductor]") {
  const int64_t n = 50, size = 12;
  auto module = compile(inductorKernels(), "triton_poi_fused_bucketize_0",
                        "*fp32:16,*fp32:16,*i64:16,*i64:16,*i32:16,i32,64");
  // Sorted boundaries with a run of three equal ones (ties: right= decides) and an infinity.
  const std::vector<double> bounds = {-3, -2, -1, -1, -1, -0.5, 0, 0.25, 1, 2, 3.5, INFINITY};
  HostBuffer values(f32, n), boundaries(f32, size), left(i64, n), right(i64, n), old(i32, n);
  for (int64_t k = 0; k < size; ++k)
    boundaries.setDouble(k, bounds[k]);
  for (int64_t i = 0; i < n; ++i)
    values.setDouble(i, noise(i, 20) / 4.0); // every boundary hit exactly, some in between
  values.setDouble(7, kNaN);
  values.setDouble(8, -INFINITY);
  values.setDouble(9, INFINITY);
  values.setDouble(10, -1);
  // Lanes past xnumel are not stored: their sentinel stays.
  const int64_t xnumel = n - 3;
  for (int64_t i = xnumel; i < n; ++i) {
    left.setInt(i, -7);
    right.setInt(i, -7);
    old.setInt(i, -7);
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(values), KernelArg::pointer(boundaries), KernelArg::pointer(left),
          KernelArg::pointer(right), KernelArg::pointer(old), KernelArg::integer(xnumel)},
         1);
  for (int64_t i = 0; i < n; ++i) {
    double v = values.getDouble(i);
    INFO("value " << v);
    if (i >= xnumel) {
      CHECK(left.getInt(i) == -7);
      CHECK(right.getInt(i) == -7);
      CHECK(old.getInt(i) == -7);
      continue;
    }
    int64_t wantLeft =
        std::isnan(v) ? size : std::lower_bound(bounds.begin(), bounds.end(), v) - bounds.begin();
    int64_t wantRight =
        std::isnan(v) ? size : std::upper_bound(bounds.begin(), bounds.end(), v) - bounds.begin();
    CHECK(left.getInt(i) == wantLeft);
    CHECK(right.getInt(i) == wantRight);
    CHECK(old.getInt(i) == wantRight);
  }
  CHECK(left.getInt(10) == 2); // -1: before the run of -1s, or after it
  CHECK(right.getInt(10) == 5);
  CHECK(left.getInt(7) == size);
}

TEST_CASE("Inductor: bucketize_binary_search through a sorter, per row of strided boundaries",
          "[language][inductor]") {
  const int64_t rows = 3, size = 10, perRow = 16, n = rows * perRow;
  auto module = compile(inductorKernels(), "triton_poi_fused_searchsorted_1",
                        "*fp32:16,*fp32:16,*i64:16,*i64:16,i32,64");
  HostBuffer values(f32, n), boundaries(f32, rows * size), sorter(i64, rows * size), out(i64, n);
  std::vector<std::vector<double>> sorted(rows);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> order(size);
    for (int64_t k = 0; k < size; ++k)
      boundaries.setDouble(r * size + k, noise(r * size + k + 500, 8) / 2.0); // unsorted, ties
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return boundaries.getDouble(r * size + a) < boundaries.getDouble(r * size + b);
    });
    for (int64_t k = 0; k < size; ++k) {
      sorter.setInt(r * size + k, order[k]);
      sorted[r].push_back(boundaries.getDouble(r * size + order[k]));
    }
  }
  for (int64_t i = 0; i < n; ++i)
    values.setDouble(i, noise(i + 900, 10) / 2.0);
  values.setDouble(perRow + 3, kNaN);
  launch(*module->functions.at(0),
         {KernelArg::pointer(values), KernelArg::pointer(boundaries), KernelArg::pointer(sorter),
          KernelArg::pointer(out), KernelArg::integer(n)},
         1);
  for (int64_t i = 0; i < n; ++i) {
    const std::vector<double> &row = sorted[i / perRow];
    double v = values.getDouble(i);
    int64_t want = std::isnan(v) ? size : std::lower_bound(row.begin(), row.end(), v) - row.begin();
    INFO("row " << i / perRow << " value " << v);
    CHECK(out.getInt(i) == want);
  }
}

namespace {

/// torch.sort's order: NaN above every number; descending reverses it (NaN first).
bool sortsBefore(double a, double b, bool descending) {
  if (descending)
    std::swap(a, b);
  return !std::isnan(a) && (std::isnan(b) || a < b);
}

bool sameValue(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

} // namespace

TEST_CASE("Inductor: sort_with_index as std::stable_sort (ties, NaN, lanes past rnumel)",
          "[language][inductor]") {
  const int64_t rows = 6, n = 13; // 13 of the block's 16 lanes: three sort past the end
  auto [stable, descending] = GENERATE(std::pair{true, false}, std::pair{true, true},
                                       std::pair{false, false}, std::pair{false, true});
  INFO("stable " << stable << " descending " << descending);
  std::string signature = std::string("*fp32:16,*fp32:16,*i64:16,i32,i32,4,") +
                          (stable ? "1," : "0,") + (descending ? "1" : "0");
  auto module = compile(inductorKernels(), "triton_per_fused_sort_0", signature);
  HostBuffer x(f32, rows * n), values(f32, rows * n), indices(i64, rows * n);
  for (int64_t i = 0; i < rows * n; ++i)
    x.setDouble(i, static_cast<double>(noise(i, 4))); // 8 distinct values over 13: many ties
  x.setDouble(n + 2, kNaN);                           // row 1: two NaNs
  x.setDouble(n + 9, kNaN);
  x.setDouble(2 * n + 0, -INFINITY);
  x.setDouble(2 * n + 5, INFINITY);
  for (int64_t i = 0; i < 3 * n; ++i)
    x.setDouble(3 * n + i, static_cast<double>(-i % 3)); // rows 3-5: runs of ties only
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(values), KernelArg::pointer(indices),
          KernelArg::integer(rows), KernelArg::integer(n)},
         2);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return sortsBefore(x.getDouble(r * n + a), x.getDouble(r * n + b), descending);
    });
    std::vector<bool> seen(n, false);
    for (int64_t k = 0; k < n; ++k) {
      INFO("row " << r << " position " << k);
      double want = x.getDouble(r * n + order[k]);
      double got = values.getDouble(r * n + k);
      CHECK(sameValue(got, want));
      int64_t index = indices.getInt(r * n + k);
      REQUIRE(index >= 0);
      REQUIRE(index < n);
      if (stable)
        CHECK(index == order[k]);
      else
        CHECK(sameValue(x.getDouble(r * n + index), got)); // the value came from there
      CHECK(!seen[index]);
      seen[index] = true;
    }
  }
}

TEST_CASE("Inductor: sort_with_index with torch 2.4's reduction mask, int32, descending stable",
          "[language][inductor]") {
  const int64_t rows = 5, n = 11;
  auto module =
      compile(inductorKernels(), "triton_per_fused_sort_1", "*i32:16,*i32:16,*i64:16,i32,i32,2");
  HostBuffer x(i32, rows * n), values(i32, rows * n), indices(i64, rows * n);
  for (int64_t i = 0; i < rows * n; ++i)
    x.setInt(i, noise(i + 77, 3) * 1000); // masked lanes load 0: the values' ties with them
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(values), KernelArg::pointer(indices),
          KernelArg::integer(rows), KernelArg::integer(n)},
         3);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return x.getInt(r * n + a) > x.getInt(r * n + b);
    });
    for (int64_t k = 0; k < n; ++k) {
      INFO("row " << r << " position " << k);
      CHECK(values.getInt(r * n + k) == x.getInt(r * n + order[k]));
      CHECK(indices.getInt(r * n + k) == order[k]);
    }
  }
}

TEST_CASE("Inductor: split scans through the decoupled look-back, programs one after another",
          "[language][inductor]") {
  // The interpreter runs the programs of a row in order of program_id(0), so each finds its
  // predecessor's inclusive prefix published: cumsum of int32 (a packed word), int64 (three
  // words) and a float forward fill (a combine whose operands must not be swapped).
  const int64_t rows = 2, n = 200, block = 32;
  const unsigned blocks = cdiv(n, block);
  auto module = compile(inductorKernels(), "triton_spl_fused_cumsum_0",
                        "*i32:16,*i64:16,*fp32:16,*i32:16,*i64:16,*fp32:16,*u8:16,i32,i32,32");
  HostBuffer a(i32, rows * n), b(i64, rows * n), c(f32, rows * n), sumA(i32, rows * n),
      sumB(i64, rows * n), fill(f32, rows * n), ws(u8, 8 * 5 * blocks * rows);
  for (int64_t i = 0; i < rows * n; ++i) {
    a.setInt(i, noise(i, 1000));
    b.setInt(i, noise(i + 5000, 1000) * (int64_t(1) << 33)); // beyond 32 bits
    c.setDouble(i, noise(i + 9000, 3) == 0 ? noise(i + 7000, 100) / 8.0 : 0.0);
  }
  for (int64_t i = 40; i < 110; ++i) // a run of zeros across two blocks of row 0
    c.setDouble(i, 0.0);
  launch(*module->functions.at(0),
         {KernelArg::pointer(a), KernelArg::pointer(b), KernelArg::pointer(c),
          KernelArg::pointer(sumA), KernelArg::pointer(sumB), KernelArg::pointer(fill),
          KernelArg::pointer(ws), KernelArg::integer(rows), KernelArg::integer(n)},
         blocks, rows);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t runA = 0, runB = 0;
    double last = 0;
    for (int64_t i = 0; i < n; ++i) {
      INFO("row " << r << " element " << i);
      runA += a.getInt(r * n + i);
      runB += b.getInt(r * n + i);
      if (c.getDouble(r * n + i) != 0)
        last = c.getDouble(r * n + i);
      CHECK(sumA.getInt(r * n + i) == runA);
      CHECK(sumB.getInt(r * n + i) == runB);
      CHECK(fill.getDouble(r * n + i) == last);
    }
  }
  // Every program left its inclusive prefix published (flag 2).
  uint64_t word;
  for (int64_t p = 0; p < blocks * rows; ++p) {
    std::memcpy(&word, ws.data() + 8 * p, 8);
    CHECK((word & 0xFFFFFFFF) == 2);
  }
}

TEST_CASE("Inductor: the look-back combines published aggregates until an inclusive prefix",
          "[language][inductor]") {
  // Blocks 0..4 published as: 0 inclusive (flag 2), 1 to 4 aggregates only (flag 1); block 5
  // scans. Its prefix is the forward fill over blocks 0..4, so the walk must reach block 1 and
  // take block 0's prefix, combining in order: the last nonzero aggregate wins.
  auto module =
      compile(inductorKernels(), "lookback_from_published", "*u64:16,*u64:16,*i64:16,fp32,i32");
  auto pack = [](float value, uint32_t flag) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    return static_cast<int64_t>((static_cast<uint64_t>(bits) << 32) | flag);
  };
  struct Case {
    std::vector<float> published; // blocks 0..4; block 0 inclusive, the others aggregates
    float want;
  };
  for (const Case &c : {Case{{7, 0, 3, 0, 0}, 3}, Case{{7, 0, 0, 0, 0}, 7},
                        Case{{7, 5, 0, 0, 9}, 9}, Case{{0, 0, 0, 0, 0}, 0}}) {
    HostBuffer ws32(u64, 8), ws64(u64, 3 * 8), out(i64, 2);
    for (int64_t k = 0; k < 5; ++k) {
      ws32.setInt(k, pack(c.published[k], k == 0 ? 2 : 1));
      ws64.setInt(3 * k, k == 0 ? 2 : 1);
      ws64.setInt(3 * k + (k == 0 ? 2 : 1), static_cast<int64_t>(c.published[k]) * 1000);
    }
    launch(*module->functions.at(0),
           {KernelArg::pointer(ws32), KernelArg::pointer(ws64), KernelArg::pointer(out),
            KernelArg::floating(4.0), KernelArg::integer(5)},
           1);
    INFO("published " << c.published[0] << " " << c.published[1] << " " << c.published[2] << " "
                      << c.published[3] << " " << c.published[4]);
    CHECK(out.getInt(0) == static_cast<int64_t>(c.want));
    CHECK(out.getInt(1) == static_cast<int64_t>(c.want) * 1000);
    // Block 5 published its inclusive prefix: its own 4 after the fill.
    CHECK(ws32.getInt(5) == pack(4, 2));
    CHECK(ws64.getInt(15) == 2);
    CHECK(ws64.getInt(17) == 4000);
  }
}

TEST_CASE("Inductor: frexp of fp32 and fp64 as std::frexp, subnormals and signed zeros",
          "[language][inductor]") {
  const int64_t n = 40;
  auto module = compile(inductorKernels(), "triton_poi_fused_frexp_0",
                        "*fp32:16,*fp64:16,*fp32:16,*i32:16,*fp64:16,*i32:16,i32,64");
  HostBuffer x(f32, n), y(f64, n), mx(f32, n), ex(i32, n), my(f64, n), ey(i32, n);
  for (int64_t i = 0; i < n; ++i) {
    x.setDouble(i, std::ldexp(noise(i, 1000) / 7.0, static_cast<int>(noise(i + 1, 60))));
    y.setDouble(i, std::ldexp(noise(i + 2, 1000) / 7.0, static_cast<int>(noise(i + 3, 900))));
  }
  const std::vector<double> special = {0.0, -0.0, INFINITY, -INFINITY, kNaN, 1.0, -0.5};
  for (size_t k = 0; k < special.size(); ++k) {
    x.setDouble(k, special[k]);
    y.setDouble(k, special[k]);
  }
  x.setDouble(10, std::numeric_limits<float>::denorm_min());
  x.setDouble(11, -std::numeric_limits<float>::denorm_min() * 12345);
  x.setDouble(12, std::numeric_limits<float>::min());
  x.setDouble(13, std::numeric_limits<float>::max());
  y.setDouble(10, std::numeric_limits<double>::denorm_min());
  y.setDouble(11, -std::numeric_limits<double>::denorm_min() * 987654321);
  y.setDouble(12, std::numeric_limits<double>::max());
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::pointer(mx),
          KernelArg::pointer(ex), KernelArg::pointer(my), KernelArg::pointer(ey),
          KernelArg::integer(n)},
         1);
  auto check = [](double v, double gotMantissa, int64_t gotExponent) {
    INFO("x = " << v);
    if (std::isnan(v)) {
      CHECK(std::isnan(gotMantissa));
      CHECK(gotExponent == 0);
      return;
    }
    int e = 0;
    double m = std::isinf(v) ? v : std::frexp(v, &e); // torch: (inf, 0)
    CHECK(gotMantissa == m);
    CHECK(std::signbit(gotMantissa) == std::signbit(m));
    CHECK(gotExponent == e);
  };
  for (int64_t i = 0; i < n; ++i) {
    check(x.getDouble(i), mx.getDouble(i), ex.getInt(i));
    check(y.getDouble(i), my.getDouble(i), ey.getInt(i));
  }
}

TEST_CASE("Inductor: a cooperative reduction (RSPLIT 1) with constexpr_next_power_of_2, if_mask",
          "[language][inductor]") {
  // One program per row block along axis 1: the workspace and the grid barrier are compiled
  // out (HAS_RSPLIT is False), the partial sum and max are the row's.
  const int64_t rows = 5, n = 300;
  auto module = compile(inductorKernels(), "triton_unk_fused_max_sum_0",
                        "*fp32:16,*fp32:16,*fp32:16,*u32:16,*u8:16,i32,i32,2,64,1");
  HostBuffer x(f32, rows * n), sum(f32, rows), max(f32, rows),
      sem(DType::scalar(ScalarKind::U32), 3), ws(u8, 8);
  for (int64_t i = 0; i < rows * n; ++i)
    x.setDouble(i, noise(i + 300, 64) / 4.0 - (i / n == 3 ? 100 : 0)); // row 3: all negative
  x.setDouble(n + 17, kNaN);                                           // row 1: NaN is the max
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(sum), KernelArg::pointer(max),
          KernelArg::pointer(sem), KernelArg::pointer(ws), KernelArg::integer(rows),
          KernelArg::integer(n)},
         1, cdiv(rows, 2));
  for (int64_t r = 0; r < rows; ++r) {
    INFO("row " << r);
    double s = 0, m = -INFINITY;
    for (int64_t i = 0; i < n; ++i) {
      double v = x.getDouble(r * n + i);
      s += v;
      m = std::isnan(v) || std::isnan(m) ? kNaN : std::max(m, v);
    }
    if (std::isnan(m)) {
      CHECK(std::isnan(max.getDouble(r)));
      CHECK(std::isnan(sum.getDouble(r)));
    } else {
      CHECK(max.getDouble(r) == m); // quarters: every partial sum is exact
      CHECK(sum.getDouble(r) == s);
    }
  }
  CHECK(max.getDouble(3) < -80);
  CHECK(sem.getInt(0) == 0); // no barrier
}

TEST_CASE("Inductor: x_grid_barrier flips bit 31 of its word; it cannot wait on the interpreter",
          "[language][inductor]") {
  const DType u32 = DType::scalar(ScalarKind::U32);
  auto module = compile(inductorKernels(), "grid_barrier_alone", "*u32:16,*u32:16");
  // One program along axis 0 (three semaphores along axis 1): it arrives last and passes.
  HostBuffer sem(u32, 3), out(u32, 3);
  sem.setInt(1, 0x80000000);
  launch(*module->functions.at(0), {KernelArg::pointer(sem), KernelArg::pointer(out)}, 1, 3);
  CHECK(out.getInt(0) == 0x80000000);
  CHECK(out.getInt(1) == 0); // a word left flipped by an earlier barrier flips back
  CHECK(out.getInt(2) == 0x80000000);
  // Two programs along axis 0: program 0 would wait for program 1, which runs after it. A clear
  // error instead of a hang, as for the cooperative reduction with RSPLIT 2.
  HostBuffer sem2(u32, 1), out2(u32, 1);
  CHECK_THROWS_WITH(
      launch(*module->functions.at(0), {KernelArg::pointer(sem2), KernelArg::pointer(out2)}, 2),
      Catch::Contains("this while loop never ends") &&
          Catch::Contains("triton_helpers.x_grid_barrier"));
  CHECK(sem2.getInt(0) == 0x80000000 - 1); // program 0's arrival
  auto coop = compile(inductorKernels(), "triton_unk_fused_max_sum_0",
                      "*fp32:16,*fp32:16,*fp32:16,*u32:16,*u8:16,i32,i32,2,64,2");
  HostBuffer x(f32, 4 * 100), sum(f32, 4), max(f32, 4), sem3(u32, 2), ws(u8, 8 * 2 * 4);
  CHECK_THROWS_WITH(launch(*coop->functions.at(0),
                           {KernelArg::pointer(x), KernelArg::pointer(sum), KernelArg::pointer(max),
                            KernelArg::pointer(sem3), KernelArg::pointer(ws), KernelArg::integer(4),
                            KernelArg::integer(100)},
                           2, 2),
                    Catch::Contains("never ends"));
}

TEST_CASE("Inductor: a look-back on a predecessor that never publishes is an error, not a hang",
          "[language][inductor]") {
  auto module =
      compile(inductorKernels(), "lookback_from_published", "*u64:16,*u64:16,*i64:16,fp32,i32");
  HostBuffer ws32(u64, 8), ws64(u64, 3 * 8), out(i64, 2);
  CHECK_THROWS_WITH(
      launch(*module->functions.at(0),
             {KernelArg::pointer(ws32), KernelArg::pointer(ws64), KernelArg::pointer(out),
              KernelArg::floating(4.0), KernelArg::integer(5)},
             1),
      Catch::Contains("this while loop never ends"));
}

TEST_CASE("Inductor: constexpr_next_power_of_2 is a constexpr, as triton.next_power_of_2",
          "[language][inductor]") {
  for (int64_t n : {0, 1, 2, 3, 5, 16, 17, 1000}) {
    INFO("n = " << n);
    auto module =
        compile(inductorKernels(), "next_power_of_2_constexpr", "*i64:16," + std::to_string(n));
    HostBuffer out(i64, 2);
    launch(*module->functions.at(0), {KernelArg::pointer(out)}, 1);
    int64_t want = 0; // triton.next_power_of_2(0) is 0
    if (n > 0)
      for (want = 1; want < n; want *= 2) {
      }
    CHECK(out.getInt(0) == want);
    CHECK(out.getInt(1) == want); // the sum of a block of `want` ones
  }
  std::string error;
  CHECK(!tryCompile(inductorKernels(), "next_power_of_2_of_tensor", "*i64:16,i32", error));
  CHECK(error.find("constexpr_next_power_of_2 needs a tl.constexpr integer") != std::string::npos);
}

TEST_CASE("Inductor: if_mask gives a load's other, or None where the mask is None",
          "[language][inductor]") {
  auto module = compile(inductorKernels(), "if_mask_other", "*fp32:16,*fp32:16,*fp32:16,i32,8");
  HostBuffer x(f32, 8), masked(f32, 8), whole(f32, 8);
  x.fillRange();
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(masked), KernelArg::pointer(whole),
          KernelArg::integer(5)},
         1);
  for (int64_t i = 0; i < 8; ++i) {
    CHECK(masked.getDouble(i) == (i < 5 ? x.getDouble(i) : -7.0));
    CHECK(whole.getDouble(i) == x.getDouble(i));
  }
}
