// tl.map_elementwise on the interpreter, from tests/gpu/map_elementwise.tl (the kernels the GPU
// checks compare with Triton), against references written here: scalar functions that branch,
// return early, loop, return tuples of several dtypes, take broadcast arguments of different
// shapes and run-time scalars, and take pack=2 elements a call (diagnostics: tests/lit/sema).
#include "SeedKernelTestUtil.h"

#include <cmath>
#include <cstdint>

using namespace tilec;
using namespace tilec::seedtest;
using interp::HostBuffer;
using interp::KernelArg;
using tir::DType;
using tir::ScalarKind;

namespace {

std::string mapKernels() {
  return std::string(TILEC_GPU_KERNELS_DIR) + "/map_elementwise.tl";
}

/// This file's inputs: seedtest::noise's sequence 4242.
int64_t noise(int64_t i, int64_t range) {
  return seedtest::noise(i, range, 4242);
}

} // namespace

TEST_CASE("tl.map_elementwise: a selu whose negative side alone calls exp, with two run-time "
          "scalars broadcast",
          "[language][map_elementwise]") {
  const int64_t n = 1000, block = 256;
  const float alpha = 1.6732632f, scale = 1.0507010f;
  auto module = compile(mapKernels(), "map_selu_kernel", "*fp32,*fp32,fp32,fp32,i32,256");
  HostBuffer x(f32, n), y(f32, n);
  for (int64_t i = 0; i < n; ++i)
    x.setDouble(i, static_cast<double>(noise(i, 4000)) / 1000); // [-4, 4), zeros included
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::floating(alpha),
          KernelArg::floating(scale), KernelArg::integer(n)},
         cdiv(n, block));
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i) {
    float v = static_cast<float>(x.getDouble(i));
    want[i] = v > 0.0f ? scale * v : scale * alpha * (std::exp(v) - 1.0f);
  }
  CHECK(worst(y, want, 0, 0) == 0);
}

TEST_CASE("tl.map_elementwise: early returns (a three-way comparison of ints, buckets of floats)",
          "[language][map_elementwise]") {
  const int64_t n = 1024;
  auto module = compile(mapKernels(), "map_compare_kernel", "*i32,*i32,*fp32,*i32,*i32,1024");
  HostBuffer a(i32, n), b(i32, n), f(f32, n), cmp(i32, n), bucket(i32, n);
  for (int64_t i = 0; i < n; ++i) {
    a.setInt(i, noise(i, 8));
    b.setInt(i, noise(i + n, 8)); // often equal to a
    f.setDouble(i, static_cast<double>(noise(i + 2 * n, 24)) / 8); // on the bounds too
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(a), KernelArg::pointer(b), KernelArg::pointer(f),
          KernelArg::pointer(cmp), KernelArg::pointer(bucket)},
         1);
  std::vector<double> wantCmp(n), wantBucket(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t x = a.getInt(i), y = b.getInt(i);
    wantCmp[i] = x > y ? 1 : x < y ? -1 : 0;
    double v = f.getDouble(i);
    wantBucket[i] = v < -1.0 ? 0 : v < 0.0 ? 1 : v < 1.0 ? 2 : 3;
  }
  CHECK(worst(cmp, wantCmp, 0, 0) == 0);
  CHECK(worst(bucket, wantBucket, 0, 0) == 0);
}

TEST_CASE("tl.map_elementwise: three results of three dtypes; a zero divisor takes the early "
          "return, so no element divides by zero",
          "[language][map_elementwise]") {
  const int64_t n = 1024;
  auto module = compile(mapKernels(), "map_split_kernel", "*i32,*i32,*i32,*i16,*fp32,1024");
  HostBuffer x(i32, n), d(i32, n), q(i32, n), r(DType::scalar(ScalarKind::I16), n), f(f32, n);
  for (int64_t i = 0; i < n; ++i) {
    x.setInt(i, noise(i, 100000));
    d.setInt(i, i % 7 == 0 ? 0 : noise(i + n, 50)); // zeros, negative divisors
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(d), KernelArg::pointer(q),
          KernelArg::pointer(r), KernelArg::pointer(f)},
         1);
  CHECK(q.elementType() == i32);
  CHECK(r.elementType() == i16);
  std::vector<double> wantQ(n), wantR(n), wantF(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t xv = x.getInt(i), dv = d.getInt(i);
    wantQ[i] = dv == 0 ? 0 : static_cast<double>(xv / dv); // C++ rounds toward zero, as Triton
    wantR[i] = static_cast<int16_t>(dv == 0 ? xv : xv - (xv / dv) * dv);
    wantF[i] = static_cast<double>(static_cast<float>(xv) * 0.25f);
  }
  CHECK(worst(q, wantQ, 0, 0) == 0);
  CHECK(worst(r, wantR, 0, 0) == 0);
  CHECK(worst(f, wantF, 0, 0) == 0);
}

TEST_CASE("tl.map_elementwise: a counted loop and a while loop with per-element trip counts",
          "[language][map_elementwise]") {
  const int64_t n = 512;
  auto module = compile(mapKernels(), "map_loops_kernel", "*i32,*i32,*i32,*i32,512");
  HostBuffer base(i32, n), e(i32, n), pw(i32, n), steps(i32, n);
  for (int64_t i = 0; i < n; ++i) {
    base.setInt(i, noise(i, 6));         // [-6, 6)
    e.setInt(i, (noise(i + n, 6) + 6)); // [0, 12): zero-trip loops too
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(base), KernelArg::pointer(e), KernelArg::pointer(pw),
          KernelArg::pointer(steps)},
         1);
  std::vector<double> wantPow(n), wantSteps(n);
  for (int64_t i = 0; i < n; ++i) {
    int32_t acc = 1;
    for (int64_t k = 0; k < e.getInt(i); ++k)
      acc = static_cast<int32_t>(static_cast<uint32_t>(acc) *
                                 static_cast<uint32_t>(base.getInt(i))); // wraps, as int32 does
    wantPow[i] = acc;
    int32_t v = static_cast<int32_t>(base.getInt(i) * base.getInt(i) + e.getInt(i));
    int32_t count = 0;
    while (v != 1 && count < 300) {
      v = v % 2 == 0 ? v / 2 : 3 * v + 1;
      ++count;
    }
    wantSteps[i] = count;
  }
  CHECK(worst(pw, wantPow, 0, 0) == 0);
  CHECK(worst(steps, wantSteps, 0, 0) == 0);
}

TEST_CASE("tl.map_elementwise: a column of floats, a row of ints and a scalar broadcast to a "
          "matrix, without promotion",
          "[language][map_elementwise]") {
  const int64_t m = 32, n = 64;
  const float s = 0.375f;
  auto module = compile(mapKernels(), "map_broadcast_kernel", "*fp32,*i32,*fp32,fp32,32,64");
  HostBuffer rows(f32, m), cols(i32, n), out(f32, m * n);
  for (int64_t i = 0; i < m; ++i)
    rows.setDouble(i, static_cast<double>(noise(i, 1000)) / 64);
  for (int64_t j = 0; j < n; ++j)
    cols.setInt(j, noise(j + m, 1 << 26)); // beyond fp32's integers: converted, not promoted
  launch(*module->functions.at(0),
         {KernelArg::pointer(rows), KernelArg::pointer(cols), KernelArg::pointer(out),
          KernelArg::floating(s)},
         1);
  std::vector<double> want(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float r = static_cast<float>(rows.getDouble(i));
      int64_t c = cols.getInt(j);
      want[i * n + j] = c % 3 == 0 ? r * s : r + static_cast<float>(c);
    }
  CHECK(worst(out, want, 0, 0) == 0);
}

TEST_CASE("tl.map_elementwise: pack=2 calls the function on two elements of each argument",
          "[language][map_elementwise]") {
  const int64_t n = 1024;
  auto module = compile(mapKernels(), "map_pack_kernel", "*i32,*i32,*i32,*i32,1024");
  HostBuffer a(i32, n), b(i32, n), q(i32, n), r(i32, n);
  for (int64_t i = 0; i < n; ++i) {
    a.setInt(i, noise(i, 1000));
    int64_t d = noise(i + n, 20);
    b.setInt(i, d == 0 ? 7 : d);
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(a), KernelArg::pointer(b), KernelArg::pointer(q),
          KernelArg::pointer(r)},
         1);
  std::vector<double> wantQ(n), wantR(n);
  for (int64_t i = 0; i < n; ++i) {
    wantQ[i] = static_cast<double>(a.getInt(i) / b.getInt(i));
    wantR[i] = static_cast<double>(a.getInt(i) % b.getInt(i));
  }
  CHECK(worst(q, wantQ, 0, 0) == 0);
  CHECK(worst(r, wantR, 0, 0) == 0);
}
