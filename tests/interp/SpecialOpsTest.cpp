// tl.histogram, tl.gather, argmax/argmin with tie_break_left=False, tl.debug_barrier,
// tl.device_assert(mask=), tl.assume and tl.inline_asm_elementwise on the interpreter, from
// tests/gpu/special_ops.tl (the kernels the GPU checks compare with Triton), against references
// written here.
#include "SeedKernelTestUtil.h"

#include <cstdint>

using namespace tilec;
using namespace tilec::seedtest;
using interp::HostBuffer;
using interp::InterpError;
using interp::KernelArg;
using tir::DType;
using tir::ScalarKind;

namespace {

std::string specialOps() {
  return std::string(TILEC_GPU_KERNELS_DIR) + "/special_ops.tl";
}

/// This file's inputs: seedtest::noise's sequence 777.
int64_t noise(int64_t i, int64_t range) {
  return seedtest::noise(i, range, 777);
}

} // namespace

TEST_CASE("tl.histogram: values outside [0, num_bins) wrap modulo max(num_bins, 32) (as "
          "Triton's GPU code), those landing past num_bins and masked-off lanes are not counted",
          "[language][histogram]") {
  const int64_t n = 256, valid = 200;
  for (int64_t bins : {32, 8}) {
    for (int masked = 0; masked < 2; ++masked) {
      INFO("bins=" << bins << " masked=" << masked);
      auto module = compile(specialOps(), "histogram_kernel",
                            "*i32,*i32,i32,256," + std::to_string(bins) + "," +
                                std::to_string(masked));
      HostBuffer x(i32, n), out(i32, bins);
      for (int64_t i = 0; i < n; ++i)
        x.setInt(i, noise(i, 40)); // about half outside [0, 32), negative ones included
      launch(*module->functions.at(0),
             {KernelArg::pointer(x), KernelArg::pointer(out), KernelArg::integer(valid)}, 1);
      std::vector<double> want(static_cast<size_t>(bins), 0.0);
      for (int64_t i = 0; i < (masked ? valid : n); ++i) {
        uint64_t bin = static_cast<uint64_t>(x.getInt(i)) & 31;
        if (bin < static_cast<uint64_t>(bins))
          want[bin] += 1;
      }
      CHECK(worst(out, want, 0, 0) == 0);
    }
  }
}

TEST_CASE("tl.gather along either axis", "[language][gather]") {
  const int64_t m = 8, n = 16;
  for (int axis = 0; axis < 2; ++axis) {
    const int64_t k = 4; // the index's length along the axis differs from the source's
    INFO("axis=" << axis);
    auto module =
        compile(specialOps(), "gather_kernel", "*fp32,*i64,*fp32,8,16,4," + std::to_string(axis));
    int64_t rows = axis == 0 ? k : m, cols = axis == 0 ? n : k;
    HostBuffer src(f32, m * n), idx(i64, rows * cols), out(f32, rows * cols);
    for (int64_t i = 0; i < m * n; ++i)
      src.setDouble(i, static_cast<double>(noise(i, 1000)) / 8);
    int64_t length = axis == 0 ? m : n;
    for (int64_t i = 0; i < rows * cols; ++i)
      idx.setInt(i, (noise(i + 99, 1000) + 1000) % length);
    launch(*module->functions.at(0),
           {KernelArg::pointer(src), KernelArg::pointer(idx), KernelArg::pointer(out)}, 1);
    std::vector<double> want(static_cast<size_t>(rows * cols));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        int64_t j = idx.getInt(r * cols + c);
        want[r * cols + c] = axis == 0 ? src.getDouble(j * n + c) : src.getDouble(r * n + j);
      }
    CHECK(worst(out, want, 0, 0) == 0);
  }
}

TEST_CASE("tl.gather reports an index out of range", "[language][gather]") {
  auto module = compile(specialOps(), "gather_kernel", "*fp32,*i64,*fp32,8,16,4,1");
  HostBuffer src(f32, 8 * 16), idx(i64, 8 * 4), out(f32, 8 * 4);
  idx.setInt(5, 16);
  try {
    launch(*module->functions.at(0),
           {KernelArg::pointer(src), KernelArg::pointer(idx), KernelArg::pointer(out)}, 1);
    FAIL("expected an error");
  } catch (const InterpError &e) {
    CHECK(std::string(e.what()).find("out of range") != std::string::npos);
  }
}

TEST_CASE("argmax/argmin with tie_break_left=False return an index of the extreme",
          "[language][argmax]") {
  const int64_t m = 8, n = 64;
  auto module = compile(specialOps(), "arg_fast_kernel", "*fp32,*i32,*i32,*fp32,8,64");
  HostBuffer x(f32, m * n), amax(i32, m), amin(i32, m), vmax(f32, m);
  for (int64_t i = 0; i < m * n; ++i)
    x.setDouble(i, static_cast<double>(noise(i, 20))); // many ties
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(amax), KernelArg::pointer(amin),
          KernelArg::pointer(vmax)},
         1);
  for (int64_t r = 0; r < m; ++r) {
    double hi = x.getDouble(r * n), lo = hi;
    for (int64_t c = 0; c < n; ++c) {
      hi = std::max(hi, x.getDouble(r * n + c));
      lo = std::min(lo, x.getDouble(r * n + c));
    }
    // Any index of a tied extreme is Triton's contract; both backends give the leftmost.
    CHECK(x.getDouble(r * n + amax.getInt(r)) == hi);
    CHECK(x.getDouble(r * n + amin.getInt(r)) == lo);
    CHECK(vmax.getDouble(r) == hi);
  }
}

TEST_CASE("tl.device_assert(mask=), tl.debug_barrier and tl.assume", "[language][debug]") {
  const int64_t n = 100;
  auto module = compile(specialOps(), "debug_ops_kernel", "*fp32,*fp32,i32,128");
  HostBuffer x(f32, n), y(f32, n);
  for (int64_t i = 0; i < n; ++i)
    x.setDouble(i, static_cast<double>(i));
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(n)}, 1);
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i)
    want[i] = 2.0 * static_cast<double>(i);
  CHECK(worst(y, want, 0, 0) == 0);
  // A negative value inside the mask still fails.
  x.setDouble(7, -1.0);
  try {
    launch(*module->functions.at(0),
           {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(n)}, 1);
    FAIL("expected the assertion to fail");
  } catch (const InterpError &e) {
    CHECK(std::string(e.what()).find("x must be non-negative") != std::string::npos);
  }
}

TEST_CASE("tl.inline_asm_elementwise is a located error on the interpreter",
          "[language][inline_asm]") {
  auto module = compile(specialOps(), "inline_asm_kernel", "*i32,*i32,*u8,*i32,*i32,64");
  HostBuffer x(i32, 64), y(i32, 64), b(u8, 128), s(i32, 64), d(i32, 64);
  try {
    launch(*module->functions.at(0),
           {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::pointer(b),
            KernelArg::pointer(s), KernelArg::pointer(d)},
           1);
    FAIL("expected an error");
  } catch (const InterpError &e) {
    CHECK(std::string(e.what()).find("not supported on the "
                                     "interpreter") != std::string::npos);
    CHECK(e.loc().line > 0);
  }
}
