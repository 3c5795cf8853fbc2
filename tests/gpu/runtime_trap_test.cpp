//===- runtime_trap_test.cpp - A kernel that traps on a real GPU ----------===//
//
//   tilec_gpu_runtime_trap_test
//
// A kernel that executes `trap` leaves the CUDA context broken: the error is sticky, and every
// later call fails the same way. This checks, on a real GPU, what the fake driver's
// runtime.fault.sticky_trap checks without one: synchronize() reports the fault and says that the
// context cannot be used, PrimaryContext::reset() (and tilec_context_reset) bring the process
// back, what was made before the reset fails with a clear error instead of touching memory the
// reset freed, and new modules, buffers and launches work. Exits 77 (skipped) without a GPU.
//
//===----------------------------------------------------------------------===//

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

int Failures = 0;

void expect(bool condition, const std::string &what, int line) {
  if (condition)
    return;
  std::fprintf(stderr, "runtime_trap_test.cpp:%d: FAILED: %s\n", line, what.c_str());
  ++Failures;
}
#define EXPECT(condition) expect((condition), #condition, __LINE__)

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

void testCpp() {
  std::printf("C++ API\n");
  rt::PrimaryContext context(0);
  std::printf("device: %s\n", context.deviceDescription().c_str());
  static const rt::CachedKernel cachedFill(Ptx, Metadata, "trap_test.ptx", "fill");
  rt::Module module = rt::Module::loadFromMemory(Ptx, Metadata, "trap_test.ptx");
  rt::Kernel fill = module.kernel("fill");
  EXPECT(fillWorks(fill));
  EXPECT(fillWorks(cachedFill.get()));

  auto buffer = std::make_unique<rt::DeviceBuffer>(N * sizeof(float));
  module.kernel("trap").launch(rt::Grid{1}, nullptr, buffer->as<float>());
  CUresult fault = expectError([] { rt::synchronize(); },
                               {"cuCtxSynchronize failed", "a kernel launched earlier failed",
                                "context cannot be used", "reset the primary context"},
                               __LINE__);
  expect(isKernelFault(fault), "a kernel fault, not CUresult " + std::to_string(fault), __LINE__);
  // The fault is sticky: an allocation now fails too.
  expectError([] { rt::DeviceBuffer other(64); }, {"failed: CUDA_ERROR_"}, __LINE__);

  context.reset();
  expectError([&] { fill.launch(rt::Grid{1}, nullptr, buffer->as<float>(), N); },
              {"kernel fill was loaded before a reset", "load the module again"}, __LINE__);
  expectError([&] { buffer->copyFromHost(std::vector<float>(N, 0.0f)); },
              {"allocated before a reset"}, __LINE__);
  EXPECT(fillWorks(rt::Module::loadFromMemory(Ptx, Metadata, "trap_test.ptx").kernel("fill")));
  EXPECT(fillWorks(cachedFill.get()));
  // Destroying what was made before the reset frees nothing the reset freed already.
  buffer.reset();
  module = rt::Module::loadFromMemory(Ptx, Metadata, "trap_test.ptx");
  EXPECT(fillWorks(module.kernel("fill")));
}

void testC() {
  std::printf("C API\n");
  tilec_context *context = nullptr;
  EXPECT(tilec_context_create(0, &context) == TILEC_SUCCESS);
  tilec_module *module = nullptr;
  EXPECT(tilec_module_load_data(Ptx, Metadata, &module) == TILEC_SUCCESS);
  tilec_kernel *trap = nullptr;
  EXPECT(tilec_module_get_kernel(module, "trap", &trap) == TILEC_SUCCESS);
  CUdeviceptr out = 0;
  EXPECT(tilec_mem_alloc(&out, N * sizeof(float)) == TILEC_SUCCESS);
  tilec_arg args[] = {tilec_arg_pointer(out), tilec_arg_i32(N)};
  EXPECT(tilec_kernel_launch(trap, 1, 1, 1, nullptr, args, 1) == TILEC_SUCCESS);
  EXPECT(tilec_synchronize() == TILEC_ERROR);
  std::printf("  error as expected: %s\n", tilec_last_error());
  EXPECT(isKernelFault(tilec_last_cuda_result()));
  EXPECT(std::strstr(tilec_last_error(), "context cannot be used") != nullptr);

  EXPECT(tilec_context_reset(context) == TILEC_SUCCESS);
  EXPECT(tilec_kernel_launch(trap, 1, 1, 1, nullptr, args, 1) == TILEC_ERROR);
  EXPECT(std::strstr(tilec_last_error(), "before a reset") != nullptr);
  tilec_kernel_destroy(trap);
  tilec_module_destroy(module); // unloads nothing: the reset did

  // The pointer allocated before the reset is not freed: the reset freed it.
  EXPECT(tilec_module_load_data(Ptx, Metadata, &module) == TILEC_SUCCESS);
  tilec_kernel *fill = nullptr;
  EXPECT(tilec_module_get_kernel(module, "fill", &fill) == TILEC_SUCCESS);
  EXPECT(tilec_mem_alloc(&out, N * sizeof(float)) == TILEC_SUCCESS);
  args[0] = tilec_arg_pointer(out);
  EXPECT(tilec_kernel_launch(fill, 1, 1, 1, nullptr, args, 2) == TILEC_SUCCESS);
  EXPECT(tilec_synchronize() == TILEC_SUCCESS);
  std::vector<float> result(N);
  EXPECT(tilec_memcpy_dtoh(result.data(), out, N * sizeof(float)) == TILEC_SUCCESS);
  EXPECT(result == std::vector<float>(N, 42.0f));
  EXPECT(tilec_mem_free(out) == TILEC_SUCCESS);
  tilec_kernel_destroy(fill);
  tilec_module_destroy(module);
  tilec_context_destroy(context);
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
    testC();
  } catch (const std::exception &error) {
    std::fprintf(stderr, "runtime_trap_test: unexpected error: %s\n", error.what());
    ++Failures;
  }
  std::printf("runtime_trap_test: %d failure(s)\n", Failures);
  return Failures ? 1 : 0;
}
