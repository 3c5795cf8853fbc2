// Tensor descriptors (tl.make_tensor_descriptor, desc.load / desc.store, the free functions, and
// `tensordesc<...>` kernel arguments), compiled from kernels/tensor_desc.tl and run on the
// interpreter against plain loops: elements outside the shape read as the padding and are not
// written.
#include "SeedKernelTestUtil.h"

#include <algorithm>
#include <cmath>
#include <tuple>

using namespace tilec;
using namespace tilec::seedtest;
using interp::HostBuffer;
using interp::KernelArg;
using tir::DType;
using tir::ScalarKind;

namespace {

std::string kernelPath() {
  return std::string(TILEC_LANGUAGE_KERNELS_DIR) + "/tensor_desc.tl";
}

/// The parameters a `tensordesc<...>` argument expands to (docs/metadata.md): the base, the
/// shape, the strides and the padding flag.
void appendDescriptor(std::vector<KernelArg> &args, HostBuffer &base,
                      const std::vector<int64_t> &shape, const std::vector<int64_t> &strides,
                      bool paddingNan = false) {
  args.push_back(KernelArg::pointer(base));
  for (int64_t d : shape)
    args.push_back(KernelArg::integer(d));
  for (int64_t s : strides)
    args.push_back(KernelArg::integer(s));
  args.push_back(KernelArg::integer(paddingNan ? 1 : 0));
}

} // namespace

TEST_CASE("tensor descriptors: a 2-D copy on shapes the blocks do not divide", "[tensor_desc]") {
  auto module = compile(kernelPath(), "scale_2d", "*fp32,*fp32,i32,i32,i32,i32,16,32");
  const int64_t m = 37, n = 50, ldx = 64, ldy = 56;
  HostBuffer x(f32, m * ldx), y(f32, m * ldy);
  for (int64_t i = 0; i < m * ldx; ++i)
    x.setDouble(i, noise(i, 100, 1));
  y.fill(-5);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(m),
          KernelArg::integer(n), KernelArg::integer(ldx), KernelArg::integer(ldy)},
         cdiv(m, 16), cdiv(n, 32));
  std::vector<double> want(m * ldy);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < ldy; ++c)
      want[r * ldy + c] = c < n ? x.getDouble(r * ldx + c) * 2 + 1 : -5; // past N: untouched
  CHECK(worst(y, want, 0, 0) == 0);
}

TEST_CASE("tensor descriptors: padding zero and nan, negative offsets", "[tensor_desc]") {
  auto module = compile(kernelPath(), "padding", "*fp32,*fp32,*fp32,i32,i32,8");
  // The block's corner is (-2, n - 4) of a 5 x 6 matrix: see paddingMismatches.
  CHECK(paddingMismatches(*module->functions.at(0)) == 0);
}

TEST_CASE("tensor descriptors: a 3-D descriptor loaded in a loop", "[tensor_desc]") {
  auto module = compile(kernelPath(), "row_sums_3d", "*fp32,*fp32,i32,i32,i32,4,16");
  const int64_t a = 3, m = 10, n = 37;
  HostBuffer x(f32, a * m * n), out(f32, a * m);
  for (int64_t i = 0; i < a * m * n; ++i)
    x.setDouble(i, noise(i, 9, 2));
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(out), KernelArg::integer(a),
          KernelArg::integer(m), KernelArg::integer(n)},
         a, cdiv(m, 4));
  std::vector<double> want(a * m, 0.0);
  for (int64_t i = 0; i < a * m; ++i)
    for (int64_t c = 0; c < n; ++c)
      want[i] += x.getDouble(i * n + c);
  CHECK(worst(out, want, 0, 0) == 0);
}

TEST_CASE("tensor descriptors: tensordesc<...> kernel arguments", "[tensor_desc]") {
  auto module =
      compile(kernelPath(), "desc_args", "tensordesc<fp16[16, 64]>,tensordesc<fp16[16, 64]>,16");
  const tir::Function &kernel = *module->functions.at(0);
  // Two descriptors of rank 2: 6 parameters each.
  REQUIRE(kernel.params.size() == 12);
  REQUIRE(kernel.tensorDescriptors.size() == 2);
  CHECK(kernel.tensorDescriptors[1].firstParam == 6);
  CHECK(kernel.params[0].alignment == 16);
  CHECK(kernel.params[3].divisibility == 8); // 16 bytes of fp16
  const int64_t m = 45, n = 40, ld = 48;     // N < the block: columns past it are masked
  HostBuffer x(f16, m * ld), y(f16, m * ld);
  for (int64_t i = 0; i < m * ld; ++i)
    x.setDouble(i, noise(i, 50, 3) / 4.0);
  y.fill(7);
  std::vector<KernelArg> args;
  appendDescriptor(args, x, {m, n}, {ld, 1});
  appendDescriptor(args, y, {m, n}, {ld, 1});
  launch(kernel, args, cdiv(m, 16));
  std::vector<double> want(m * ld);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < ld; ++c)
      want[r * ld + c] = c < n ? x.getDouble(r * ld + c) * 3 : 7;
  CHECK(worst(y, want, 0, 0) == 0);
}

TEST_CASE("tensor descriptors: a kernel argument's padding flag", "[tensor_desc]") {
  auto module =
      compile(kernelPath(), "desc_args", "tensordesc<fp32[8, 16]>,tensordesc<fp32[8, 16]>,8");
  const int64_t m = 5, n = 12;
  HostBuffer x(f32, m * 16), y(f32, 8 * 16);
  x.fillRange();
  std::vector<KernelArg> args;
  appendDescriptor(args, x, {m, n}, {16, 1}, /*paddingNan=*/true);
  appendDescriptor(args, y, {8, 16}, {16, 1});
  launch(*module->functions.at(0), args, 1);
  int64_t wrong = 0;
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 16; ++c) {
      double got = y.getDouble(r * 16 + c);
      wrong += r < m && c < n ? got != (r * 16 + c) * 3 : !std::isnan(got);
    }
  CHECK(wrong == 0);
}

TEST_CASE("tensor descriptors: shape and strides of an argument", "[tensor_desc]") {
  auto module = compile(kernelPath(), "desc_shape", "tensordesc<i32[4, 8]>,*i32");
  HostBuffer x(i32, 64), out(i32, 4);
  std::vector<KernelArg> args;
  appendDescriptor(args, x, {7, 9}, {16, 1});
  args.push_back(KernelArg::pointer(out));
  launch(*module->functions.at(0), args, 1);
  CHECK(out.getInt(0) == 7);
  CHECK(out.getInt(1) == 9);
  CHECK(out.getInt(2) == 16);
  CHECK(out.getInt(3) == 1);
}

TEST_CASE("tensor descriptors: atomic_add, atomic_max and atomic_xor through arguments",
          "[tensor_desc]") {
  auto module = compile(kernelPath(), "desc_atomics",
                        "tensordesc<fp32[16, 32]>,tensordesc<i32[16, 32]>,16,32");
  const int64_t m = 20, n = 24, ld = 32; // the blocks run past both dimensions
  HostBuffer f(DType::scalar(ScalarKind::F32), m * ld), x(i32, m * ld);
  f.fill(1);
  x.fill(2);
  std::vector<KernelArg> args;
  appendDescriptor(args, f, {m, n}, {ld, 1});
  appendDescriptor(args, x, {m, n}, {ld, 1});
  launch(*module->functions.at(0), args, cdiv(m, 16));
  std::vector<double> wantF(m * ld), wantX(m * ld);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < ld; ++c) {
      int64_t inTile = (r % 16) * 32 + c;
      bool in = c < n;
      wantF[r * ld + c] = in ? 1 + inTile * 0.5 : 1;
      wantX[r * ld + c] = in ? (std::max<int64_t>(2, inTile - 8) ^ 1) : 2;
    }
  CHECK(worst(f, wantF, 0, 0) == 0);
  CHECK(worst(x, wantX, 0, 0) == 0);
}

TEST_CASE("tensor descriptors: made anew in run-time ifs inside for and while loops",
          "[tensor_desc]") {
  auto module = compile(kernelPath(), "desc_rebuilt", "*fp32:16,*fp32:16,i32,i32,8,16");
  const int64_t m = 20, n = 48; // 3 column blocks; the last row block runs past M
  HostBuffer x(DType::scalar(ScalarKind::F32), m * n), y(DType::scalar(ScalarKind::F32), m * n);
  for (int64_t i = 0; i < m * n; ++i) {
    x.setDouble(i, i % 17);
    y.setDouble(i, 1000 + i % 13);
  }
  launch(
      *module->functions.at(0),
      {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(m), KernelArg::integer(n)},
      cdiv(m, 8));
  std::vector<double> wantX(m * n), wantY(m * n);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c) {
      int64_t i = r * n + c;
      double vx = i % 17, vy = 1000 + i % 13;
      int64_t block = c / 16;
      // The for loop: blocks 0 and 2 through x, block 1 through y.
      if (block == 1)
        vy = vy * 2 + 1;
      else
        vx = vx * 2 + 1;
      wantX[i] = vx;
      wantY[i] = vy;
    }
  // The while loop: block 0 through the last descriptor of the for loop (x's), blocks 1 and 2
  // through one made from the program's first row of y.
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c)
      (c < 16 ? wantX : wantY)[r * n + c] += 100;
  CHECK(worst(x, wantX, 0, 0) == 0);
  CHECK(worst(y, wantY, 0, 0) == 0);
}

TEST_CASE("tensor descriptors: atomic_min and atomic_max of fp16 and bf16", "[tensor_desc]") {
  // tests/gpu/tensor_desc.tl's tensor_desc_reduce_half: y = min(y, x, -x) (or max) inside the
  // 21 x 33 shape, the rest of each 48-element row untouched.
  const int64_t m = 21, n = 33, ld = 48;
  for (auto [kind, dtype, name] :
       {std::tuple{"min", ScalarKind::F16, "fp16"}, std::tuple{"max", ScalarKind::BF16, "bf16"}}) {
    INFO(kind << " " << name);
    auto module = compile(
        std::string(TILEC_GPU_KERNELS_DIR) + "/tensor_desc.tl", "tensor_desc_reduce_half",
        std::string("*") + name + ":16,*" + name + ":16,i32,i32,i32:16,16,32,\"" + kind + "\"");
    HostBuffer x(DType::scalar(dtype), m * ld), y(DType::scalar(dtype), m * ld);
    std::vector<double> want(m * ld);
    for (int64_t i = 0; i < m * ld; ++i) {
      x.setDouble(i, (noise(i, 401, 3) - 200) / 64.0);
      y.setDouble(i, (noise(i, 401, 5) - 200) / 64.0);
      double a = x.getDouble(i), b = y.getDouble(i);
      bool inside = i % ld < n;
      want[i] = !inside                      ? b
                : std::string(kind) == "min" ? std::min({b, a, -a})
                                             : std::max({b, a, -a});
    }
    launch(*module->functions.at(0),
           {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(m),
            KernelArg::integer(n), KernelArg::integer(ld)},
           cdiv(m, 16), cdiv(n, 32), 2);
    CHECK(worst(y, want, 0, 0) == 0);
  }
}
