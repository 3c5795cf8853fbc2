//===- runtime_trap_test.cpp - A kernel that traps on a real GPU ----------===//
//
//   tilec_gpu_runtime_trap_test
//
// A kernel that executes `trap` breaks the CUDA context for the rest of the process: the error
// is sticky, and CUDA documents it as unrecoverable (on driver 580 even a reset of the primary
// context, followed by a new retain, answers with it). This checks, on a real GPU, what the fake
// driver's runtime.fault.sticky_trap checks without one: synchronize() reports the fault, says
// that it lasts for the rest of the process and to restart it; every later operation fails with
// a clear Error instead of crashing or hanging, through the C++ and the C API; destroying what
// was made before is safe. Exits 77 (skipped) without a GPU.
//
//===----------------------------------------------------------------------===//

#include "GpuChecks.h"
#include "tilec/runtime.h"
#include "tilec/runtime.hpp"

#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rt = tilec::rt;

namespace {

using gpu_checks::expect;
using gpu_checks::Failures;

/// Runs \p body, which must throw an rt::Error whose message contains each of \p needles; returns
/// its CUresult.
CUresult expectError(const std::function<void()> &body, const std::vector<std::string> &needles,
                     int line) {
  try {
    body();
  } catch (const rt::Error &error) {
    std::printf("  error as expected: %s\n", error.what());
    for (const std::string &needle : needles)
      expect(std::string(error.what()).find(needle) != std::string::npos,
             "message contains \"" + needle + "\"", line);
    return error.cudaResult();
  }
  expect(false, "an Error was thrown", line);
  return CUDA_SUCCESS;
}

// fill(out, n): out[tid] = 42 for tid < n (one block). trap_kernel(out): executes trap.
const char *const Ptx = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry fill(.param .u64 fill_out, .param .u32 fill_n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	.reg .f32 %f<2>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [fill_out];
	ld.param.u32 %r1, [fill_n];
	mov.u32 %r2, %tid.x;
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.s32 %rd3, %r2, 4;
	add.s64 %rd2, %rd2, %rd3;
	mov.f32 %f1, 0f42280000;
	st.global.f32 [%rd2], %f1;
DONE:
	ret;
}

.visible .entry trap_kernel(.param .u64 trap_out)
{
	trap;
	ret;
}
)";

const char *const Metadata = R"({"schema": "tilec-metadata", "version": 1, "target": "sm_80",
  "kernels": [
    {"name": "fill", "entry": "fill", "num_warps": 1, "threads_per_block": 32,
     "shared_memory_bytes": 0,
     "params": [{"name": "out", "type": "*fp32"}, {"name": "n", "type": "i32"}]},
    {"name": "trap", "entry": "trap_kernel", "num_warps": 1, "threads_per_block": 32,
     "shared_memory_bytes": 0, "params": [{"name": "out", "type": "*fp32"}]}]})";

constexpr int N = 16;

/// A full round trip in the current context: allocate, launch fill, synchronize, read back.
bool fillWorks(const rt::Kernel &fill) {
  try {
    rt::DeviceBuffer buffer(N * sizeof(float));
    buffer.copyFromHost(std::vector<float>(N, 0.0f));
    fill.launch(rt::Grid{1}, nullptr, buffer.as<float>(), N);
    rt::synchronize();
    std::vector<float> result(N);
    buffer.copyToHost(result);
    return result == std::vector<float>(N, 42.0f);
  } catch (const std::exception &error) {
    std::fprintf(stderr, "  round trip failed: %s\n", error.what());
    return false;
  }
}

bool isKernelFault(CUresult result) {
  return result == CUDA_ERROR_LAUNCH_FAILED || result == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
         result == CUDA_ERROR_ASSERT;
}

void testC();

void testCpp() {
  std::printf("C++ API\n");
  rt::PrimaryContext context(0);
  std::printf("device: %s\n", context.deviceDescription().c_str());
  rt::Module module = rt::Module::loadFromMemory(Ptx, Metadata, "trap_test.ptx");
  rt::Kernel fill = module.kernel("fill");
  EXPECT(fillWorks(fill));

  auto buffer = std::make_unique<rt::DeviceBuffer>(N * sizeof(float));
  module.kernel("trap").launch(rt::Grid{1}, nullptr, buffer->as<float>());
  CUresult fault = expectError([] { rt::synchronize(); },
                               {"cuCtxSynchronize failed", "a kernel launched earlier failed",
                                "for the rest of the process", "restart the process"},
                               __LINE__);
  expect(isKernelFault(fault), "a kernel fault, not CUresult " + std::to_string(fault), __LINE__);
  // Sticky: every later operation fails with an Error that names it; nothing crashes or hangs.
  expectError([] { rt::DeviceBuffer other(64); }, {"failed: CUDA_ERROR_"}, __LINE__);
  expectError([&] { buffer->copyFromHost(std::vector<float>(N, 0.0f)); },
              {"cuMemcpyHtoD failed"}, __LINE__);
  expectError([&] { fill.launch(rt::Grid{1}, nullptr, buffer->as<float>(), N); },
              {"failed: CUDA_ERROR_"}, __LINE__);
  expectError([] { rt::synchronize(); }, {"restart the process"}, __LINE__);
  testC();
  buffer.reset(); // destroying what the broken context held is safe
}

/// The C API in the same broken context: the same fault, reported as clearly.
void testC() {
  std::printf("C API\n");
  CUdeviceptr out = 0;
  EXPECT(tilec_mem_alloc(&out, N * sizeof(float)) == TILEC_ERROR);
  std::printf("  error as expected: %s\n", tilec_last_error());
  EXPECT(isKernelFault(tilec_last_cuda_result()));
  EXPECT(tilec_synchronize() == TILEC_ERROR);
  std::printf("  error as expected: %s\n", tilec_last_error());
  EXPECT(std::strstr(tilec_last_error(), "restart the process") != nullptr);
}

} // namespace

int main() {
  std::string whyNoDevice;
  try {
    if (rt::deviceCount(&whyNoDevice) == 0) {
      std::printf("runtime_trap_test: SKIPPED (no GPU: %s)\n", whyNoDevice.c_str());
      return 77;
    }
    testCpp();
  } catch (const std::exception &error) {
    std::fprintf(stderr, "runtime_trap_test: unexpected error: %s\n", error.what());
    ++Failures;
  }
  std::printf("runtime_trap_test: %d failure(s)\n", Failures);
  return Failures ? 1 : 0;
}
