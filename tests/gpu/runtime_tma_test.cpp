//===- runtime_tma_test.cpp - TMA tensor maps on a GPU ---------------------===//
//
//   tilec_gpu_runtime_tma_test runtime_tma.ptx runtime_tma.json
//
// The kernels of runtime_tma.ptx (runtime_tma.ptx.in) take a tensor descriptor and its CUtensorMap
// (metadata member tensor_maps), which the runtime encodes with the real driver and appends to the
// parameters. Each loads one fp32[8, 16] box of the descriptor with TMA and copies it out as it
// lies in shared memory, which shows that the map describes the tensor (dimensions, strides, box,
// in the driver's innermost-first order), fills out-of-bounds elements with zeros or NaN as asked,
// and swizzles as asked. Also: the real driver's refusal of a bad encoding is a clear error. Exits
// 0 when all checks pass, 1 otherwise, 77 (skipped) without a GPU or on one before sm_90.
//
//===----------------------------------------------------------------------===//

#include "GpuChecks.h"
#include "tilec/runtime.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace rt = tilec::rt;

namespace {

using gpu_checks::expect;
using gpu_checks::Failures;
using gpu_checks::section;

// The tensor: Rows x Cols fp32, rows Stride elements apart (the padding is never read).
constexpr int Rows = 20, Cols = 24, Stride = 32, BoxRows = 8, BoxCols = 16;

float valueAt(int row, int col) {
  return static_cast<float>(row * 100 + col);
}

/// Launches \p kernel on the box at (row0, col0) and checks out[]: element s of shared memory is
/// the box element (s / 16, s % 16), after undoing the 64-byte swizzle when \p swizzled.
void checkBox(const rt::Kernel &kernel, const rt::DeviceBuffer &tensor, int row0, int col0,
              float fill, bool swizzled, bool asDescriptor, int line) {
  rt::DeviceBuffer out(BoxRows * BoxCols * sizeof(float));
  out.copyFromHost(std::vector<float>(BoxRows * BoxCols, -1.0f));
  bool nan = std::isnan(fill);
  if (asDescriptor) {
    rt::TensorDescriptor a{tensor.as<float>(),
                           {Rows, Cols},
                           {Stride, 1},
                           {BoxRows, BoxCols},
                           nan ? rt::TensorDescriptor::Padding::Nan
                               : rt::TensorDescriptor::Padding::Zero};
    kernel.launch(rt::Grid{1}, nullptr, out.as<float>(), a, row0, col0);
  } else {
    kernel.launch(rt::Grid{1}, nullptr, out.as<float>(), tensor.as<float>(), Rows, Cols, Stride, 1,
                  nan, row0, col0);
  }
  rt::synchronize();
  std::vector<float> got(BoxRows * BoxCols);
  out.copyToHost(got);
  int wrong = 0;
  for (int s = 0; s < BoxRows * BoxCols; ++s) {
    unsigned offset = static_cast<unsigned>(s) * 4;
    if (swizzled) // 64-byte swizzle: 16-byte chunk c (of 4) of 128-byte line l is at c ^ (l % 4)
      offset ^= ((offset >> 7) & 3) << 4;
    int element = static_cast<int>(offset / 4);
    int row = row0 + element / BoxCols, col = col0 + element % BoxCols;
    bool inside = row >= 0 && row < Rows && col >= 0 && col < Cols;
    float expected = inside ? valueAt(row, col) : fill;
    bool same = std::isnan(expected) ? std::isnan(got[s]) : got[s] == expected;
    if (!same && wrong++ < 4)
      std::printf("  shared element %d (box (%d, %d)): got %g, expected %g\n", s, element / BoxCols,
                  element % BoxCols, got[s], expected);
  }
  expect(wrong == 0,
         kernel.info().Name + " at (" + std::to_string(row0) + ", " + std::to_string(col0) +
             "): " + std::to_string(wrong) + " wrong elements",
         line);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s runtime_tma.ptx runtime_tma.json\n", argv[0]);
    return 2;
  }
  std::string whyNoDevice;
  try {
    if (rt::deviceCount(&whyNoDevice) == 0) {
      std::printf("runtime_tma_test: SKIPPED (no GPU: %s)\n", whyNoDevice.c_str());
      return 77;
    }
  } catch (const rt::Error &error) {
    std::printf("runtime_tma_test: FAILED: %s\n", error.what());
    return 1;
  }
  rt::PrimaryContext context(0);
  std::string device = context.deviceDescription();
  std::printf("device: %s\n", device.c_str());
  if (device.find("(sm_9") == std::string::npos && device.find("(sm_1") == std::string::npos) {
    std::printf("runtime_tma_test: SKIPPED (TMA needs sm_90 or later)\n");
    return 77;
  }

  rt::Module module = rt::Module::loadFile(argv[1], argv[2]);
  rt::DeviceBuffer tensor(Rows * Stride * sizeof(float));
  std::vector<float> host(Rows * Stride, -7.0f);
  for (int r = 0; r < Rows; ++r)
    for (int c = 0; c < Cols; ++c)
      host[r * Stride + c] = valueAt(r, c);
  tensor.copyFromHost(host);

  // Every column offset is a multiple of 4 fp32: TMA traps (CUDA_ERROR_ILLEGAL_INSTRUCTION, seen
  // on H100 with driver 580) when the innermost coordinate is not a multiple of 16 bytes.
  const float nan = std::nanf("");
  section("zero fill", [&] {
    rt::Kernel k = module.kernel("tma_copy_zero");
    checkBox(k, tensor, 0, 0, 0.0f, false, false, __LINE__);
    checkBox(k, tensor, 8, 8, 0.0f, false, true, __LINE__);
    checkBox(k, tensor, 16, 16, 0.0f, false, false, __LINE__); // past both ends
    checkBox(k, tensor, -3, -4, 0.0f, false, true, __LINE__);  // before both
  });
  section("NaN fill", [&] {
    rt::Kernel k = module.kernel("tma_copy_nan");
    checkBox(k, tensor, 0, 0, nan, false, false, __LINE__);
    checkBox(k, tensor, 16, 16, nan, false, true, __LINE__);
    checkBox(k, tensor, -3, 20, nan, false, false, __LINE__);
  });
  section("64-byte swizzle", [&] {
    // This map has no "fill" (as the compiler writes it): the padding_nan argument decides.
    rt::Kernel k = module.kernel("tma_copy_swizzle");
    checkBox(k, tensor, 0, 0, 0.0f, true, false, __LINE__);
    checkBox(k, tensor, 15, 12, 0.0f, true, true, __LINE__);
    checkBox(k, tensor, 15, 12, nan, true, false, __LINE__);
    checkBox(k, tensor, -3, -4, nan, true, true, __LINE__);
  });
  section("launch-time checks", [&] {
    rt::Kernel k = module.kernel("tma_copy_zero");
    rt::DeviceBuffer out(BoxRows * BoxCols * sizeof(float));
    try {
      k.launch(rt::Grid{1}, nullptr, out.as<float>(), tensor.as<float>(), 0, Cols, Stride, 1, false,
               0, 0);
      EXPECT(false && "an empty dimension is refused");
    } catch (const rt::Error &error) {
      std::printf("  error as expected: %s\n", error.what());
      EXPECT(std::strstr(error.what(), "cannot have an empty dimension") != nullptr);
    }
  });
  section("the driver's refusal", [&] {
    // A box of 300 elements (TMA allows 256): the metadata reader refuses it, so encode directly.
    rt::TensorMapEncodeArgs args;
    args.DataType = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    args.Rank = 2;
    args.GlobalAddress = tensor.address();
    args.GlobalDim = {Cols, Rows, 0, 0, 0};
    args.GlobalStrides = {Stride * 4, 0, 0, 0};
    args.BoxDim = {300, 8, 0, 0, 0};
    args.ElementStrides = {1, 1, 0, 0, 0};
    CUtensorMap map;
    try {
      rt::encodeTensorMap(args, map, "a bad map");
      EXPECT(false && "the driver refuses a box of 300");
    } catch (const rt::Error &error) {
      std::printf("  error as expected: %s\n", error.what());
      EXPECT(error.cudaResult() == CUDA_ERROR_INVALID_VALUE);
      EXPECT(std::strstr(error.what(), "cuTensorMapEncodeTiled failed") != nullptr);
      EXPECT(std::strstr(error.what(), "box [300, 8]") != nullptr);
    }
    args.BoxDim = {16, 8, 0, 0, 0};
    rt::encodeTensorMap(args, map, "a good map"); // and the same with a valid box works
  });

  std::printf("runtime_tma_test: %s (%d failure(s))\n", Failures ? "FAILED" : "ok", Failures);
  return Failures ? 1 : 0;
}
