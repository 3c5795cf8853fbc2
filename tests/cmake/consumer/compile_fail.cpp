//===- compile_fail.cpp - Uses of a typed launcher that must not compile --===//
//
// COMPILE_FAIL_CASE selects one use of tilec::add_kernel(stream, grid, float *x, float *y,
// float *out, int32 n). Case 0 is correct and must compile (so a failure of the others is the
// types' doing, not the build's); consumer_test.cmake expects each other case to fail with an
// error that names the parameter type it breaks.
//
//===----------------------------------------------------------------------===//

#include "vector_add.tilec.h"

namespace rt = tilec::rt;

int main() {
  rt::DevicePtr<float> x{0}, y{0}, out{0};
  rt::Grid grid{1};
#if COMPILE_FAIL_CASE == 0
  tilec::add_kernel(nullptr, grid, x, y, out, 1024);
  float *raw = nullptr;
  tilec::add_kernel(nullptr, grid, raw, y, out, static_cast<int64_t>(7)); // value checked at launch
#elif COMPILE_FAIL_CASE == 1
  rt::DevicePtr<double> wrongElement{0}; // *fp64 for *fp32
  tilec::add_kernel(nullptr, grid, wrongElement, y, out, 1024);
#elif COMPILE_FAIL_CASE == 2
  CUdeviceptr untyped = 0; // an address says nothing of what it points to
  tilec::add_kernel(nullptr, grid, x, untyped, out, 1024);
#elif COMPILE_FAIL_CASE == 3
  tilec::add_kernel(nullptr, grid, x, y, out, 1024.0f); // fp32 for i32
#elif COMPILE_FAIL_CASE == 4
  tilec::add_kernel(nullptr, grid, x, y, out); // n missing
#elif COMPILE_FAIL_CASE == 5
  int *wrongPointer = nullptr; // *i32 for *fp32
  tilec::add_kernel(nullptr, grid, x, y, wrongPointer, 1024);
#endif
  return 0;
}
