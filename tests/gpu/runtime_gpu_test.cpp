//===- runtime_gpu_test.cpp - The runtime on a GPU ------------------------===//
//
//   tilec_gpu_runtime_test runtime_kernels.ptx runtime_kernels.json [runtime_kernels.fatbin]
//
// Loads the hand-written kernels of runtime_kernels.ptx.in through the runtime and checks what
// only a GPU can show: launches pass every kind of argument right, shared memory is set up,
// bad arguments are refused before anything runs, and the driver's failures (bad PTX, PTX that
// does not match its metadata, impossible launches) come back as clear errors.
// With a fatbin (the same kernels as machine code for sm_80 and sm_90a, no PTX: loading it cannot
// JIT), the same kernels run from it too.
// Exits 0 when all checks pass, 1 otherwise, 77 (skipped) without a GPU.
//
//===----------------------------------------------------------------------===//

#include "GpuChecks.h"
#include "tilec/runtime.h"
#include "tilec/runtime.hpp"

#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rt = tilec::rt;

namespace {

using gpu_checks::Checks;
using gpu_checks::expect;
using gpu_checks::Failures;
using gpu_checks::section;

/// \p body must throw an rt::Error whose message contains every one of \p needles.
void expectError(const std::function<void()> &body, const std::vector<std::string> &needles,
                 int line, CUresult result = CUDA_SUCCESS) {
  try {
    body();
  } catch (const rt::Error &error) {
    std::string message = error.what();
    std::printf("  error as expected: %s\n", message.c_str());
    for (const std::string &needle : needles)
      expect(message.find(needle) != std::string::npos, "the message contains \"" + needle + "\"",
             line);
    expect(error.cudaResult() == result,
           "cudaResult() is " + std::to_string(result) + ", not " +
               std::to_string(error.cudaResult()),
           line);
    return;
  }
  expect(false, "an rt::Error was thrown", line);
}

std::string Ptx, PtxPath, MetadataPath;

const char *const BrokenPtx = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry broken(.param .u64 p)
{
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	bogus_instruction.f32 %rd1;
	ret;
}
)";

/// Metadata for the single kernel scale_kernel of runtime_kernels.ptx, with \p params as its
/// parameter list and \p entry as its entry.
std::string scaleMetadata(const std::string &params, const std::string &entry = "scale_kernel") {
  return R"({"schema": "tilec-metadata", "version": 1, "target": "sm_80", "kernels": [
    {"name": "scale", "entry": ")" +
         entry + R"(", "num_warps": 4, "threads_per_block": 128,
     "shared_memory_bytes": 0, "params": [)" +
         params + "]}]}";
}

const char *const ScaleParams = R"({"name": "out", "type": "*fp32", "alignment": 16},
  {"name": "in", "type": "*fp32", "alignment": 16}, {"name": "a", "type": "fp32"},
  {"name": "n", "type": "i32"})";

void testScale(const rt::Module &module) {
  rt::Kernel scale = module.kernel("scale");
  EXPECT(scale.blockSize() == 128);
  EXPECT(scale.dynamicSharedBytes() == 0);
  EXPECT(scale.info().Entry == "scale_kernel");

  const int n = 1000; // not a multiple of the block size
  std::vector<float> input(n), output(n + 128, -1.0f);
  for (int i = 0; i < n; ++i)
    input[i] = 0.25f * static_cast<float>(i) - 17.0f;
  rt::DeviceBuffer in(n * sizeof(float)), out(output.size() * sizeof(float));
  in.copyFromHost(input);
  out.copyFromHost(output);

  const float a = 2.5f;
  const unsigned blocks = (n + scale.blockSize() - 1) / scale.blockSize();
  scale.launch(rt::Grid{blocks}, nullptr, out.as<float>(), in.as<float>(), a, n);
  rt::synchronize();
  out.copyToHost(output);
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += output[i] != a * input[i];
  for (size_t i = n; i < output.size(); ++i)
    wrong += output[i] != -1.0f;
  expect(wrong == 0, std::to_string(wrong) + " wrong elements after scale", __LINE__);

  // A run-time argument list: n as size_t (u64) fits in i32.
  out.copyFromHost(std::vector<float>(output.size(), 0.0f));
  scale.launchArgs(rt::Grid{blocks}, nullptr,
                   {out.address(), in.address(), 1.0f, static_cast<size_t>(n)});
  rt::synchronize();
  out.copyToHost(output);
  wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += output[i] != input[i];
  expect(wrong == 0, std::to_string(wrong) + " wrong elements after launchArgs", __LINE__);
}

void testBadArguments(const rt::Module &module) {
  rt::Kernel scale = module.kernel("scale");
  const int n = 256;
  rt::DeviceBuffer in(n * sizeof(float) + 16), out(n * sizeof(float) + 16);
  std::vector<float> sentinel(n, 42.0f);
  out.copyFromHost(sentinel);
  rt::Grid grid{2};

  expectError([&] { scale.launch(grid, nullptr, out.as<float>(), in.as<float>(), 1.0f); },
              {"scale: expected 4 arguments (out: *fp32, in: *fp32, a: fp32, n: i32), got 3"},
              __LINE__);
  expectError([&] { scale.launch(grid, nullptr, out.as<float>(), in.as<float>(), 1.0f, n, n); },
              {"expected 4 arguments", "got 5"}, __LINE__);
  expectError([&] { scale.launch(grid, nullptr, out.as<float>(), in.as<float>(), 1.0f, 256.0f); },
              {"argument 3 (n: i32): expected i32, got fp32 value"}, __LINE__);
  expectError([&] { scale.launch(grid, nullptr, out.as<float>(), in.as<float>(), 2, n); },
              {"argument 2 (a: fp32): expected fp32, got i32 value"}, __LINE__);
  expectError([&] { scale.launch(grid, nullptr, out.as<float>(), in.as<float>(), 2.0, n); },
              {"argument 2 (a: fp32): expected fp32, got an fp64 value"}, __LINE__);
  expectError([&] { scale.launch(grid, nullptr, out.as<float>(), in.as<int>(), 1.0f, n); },
              {"argument 1 (in: *fp32): expected a pointer to fp32, got pointer to i32"}, __LINE__);
  expectError(
      [&] {
        scale.launch(grid, nullptr, out.as<float>(), rt::DevicePtr<float>{in.address() + 4}, 1.0f,
                     n);
      },
      {"argument 1 (in: *fp32): the kernel was compiled for 16-byte aligned pointers"}, __LINE__);
  expectError(
      [&] { scale.launch(grid, nullptr, out.as<float>(), in.as<float>(), 1.0f, int64_t(1) << 33); },
      {"argument 3 (n: i32): the i64 value 8589934592 does not fit in i32"}, __LINE__);
  expectError([&] { scale.launch(grid, nullptr, 1.0f, in.as<float>(), 1.0f, n); },
              {"argument 0 (out: *fp32): expected a device pointer"}, __LINE__);

  // None of them ran: the output is untouched.
  rt::synchronize();
  std::vector<float> output(n);
  out.copyToHost(output);
  EXPECT(output == sentinel);

  // An empty grid launches nothing, as in Triton, after checking the arguments.
  scale.launch(rt::Grid{0}, nullptr, out.as<float>(), in.as<float>(), 0.0f, n);
  rt::synchronize();
  out.copyToHost(output);
  EXPECT(output == sentinel);
  expectError([&] { scale.launch(rt::Grid{0}, nullptr, out.as<float>()); },
              {"expected 4 arguments"}, __LINE__);
}

void testScalars(const rt::Module &module) {
  rt::Kernel kernel = module.kernel("store_scalars");
  rt::DeviceBuffer out(3 * sizeof(int64_t));
  std::vector<int64_t> result(3, 0);

  // An int32 widens to i64 (sign-extended); bool goes to i1; fp16 goes through Arg::exact.
  kernel.launch(rt::Grid{1}, nullptr, out.as<int64_t>(), int32_t(-5), true,
                rt::Arg::exact(rt::DType::FP16, 0x3c00));
  rt::synchronize();
  out.copyToHost(result);
  EXPECT(result[0] == -5);
  EXPECT(result[1] == 1);
  EXPECT(result[2] == 0x3c00);

  kernel.launch(rt::Grid{1}, nullptr, out.as<int64_t>(), int64_t(-(int64_t(1) << 40)), false,
                rt::Arg::exact(rt::DType::FP16, 0xfbff));
  rt::synchronize();
  out.copyToHost(result);
  EXPECT(result[0] == -(int64_t(1) << 40));
  EXPECT(result[1] == 0);
  EXPECT(result[2] == 0xfbff);
}

void testSharedMemory(const rt::Module &module) {
  std::vector<uint32_t> result(32, 0);
  rt::DeviceBuffer out(result.size() * sizeof(uint32_t));

  // 64 KiB, all dynamic: needs the opt-in attribute the runtime sets when loading.
  rt::Kernel dynamicSmem = module.kernel("dynamic_smem");
  EXPECT(dynamicSmem.dynamicSharedBytes() == 65536);
  dynamicSmem.launch(rt::Grid{1}, nullptr, out.as<uint32_t>());
  rt::synchronize();
  out.copyToHost(result);
  int wrong = 0;
  for (uint32_t t = 0; t < 32; ++t)
    wrong += result[t] != 32 - t;
  expect(wrong == 0, std::to_string(wrong) + " wrong values from dynamic_smem", __LINE__);

  // 1 KiB, declared statically in the PTX: nothing to add at launch.
  rt::Kernel staticSmem = module.kernel("static_smem");
  EXPECT(staticSmem.dynamicSharedBytes() == 0);
  staticSmem.launch(rt::Grid{1}, nullptr, out.as<uint32_t>());
  rt::synchronize();
  out.copyToHost(result);
  wrong = 0;
  for (uint32_t t = 0; t < 32; ++t)
    wrong += result[t] != 1031 - t;
  expect(wrong == 0, std::to_string(wrong) + " wrong values from static_smem", __LINE__);
}

void testLoadErrors() {
  expectError(
      [] {
        rt::Module::loadFromMemory(BrokenPtx, scaleMetadata("", "broken"), "broken.ptx",
                                   "broken.json");
      },
      {"cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX", "while loading broken.ptx",
       "JIT error log:", "bogus_instruction"},
      __LINE__, CUDA_ERROR_INVALID_PTX);
  expectError([] { rt::Module::loadFromMemory(Ptx, scaleMetadata(ScaleParams, "nope"), "k.ptx"); },
              {"k.ptx: no .entry nope (the metadata's kernel scale)"}, __LINE__,
              CUDA_ERROR_NOT_FOUND);
  // The PTX's parameters against the metadata's (cuFuncGetParamInfo). Extra trailing .entry
  // parameters are not detected: querying past the metadata's last one would be a failing driver
  // call, which compute-sanitizer reports in the user's program.
  expectError(
      [] {
        rt::Module::loadFromMemory(
            Ptx, scaleMetadata(R"({"name": "out", "type": "*fp32"}, {"name": "in", "type": "*fp32"},
                                  {"name": "a", "type": "fp32"}, {"name": "n", "type": "i32"},
                                  {"name": "extra", "type": "i32"})"),
            "k.ptx");
      },
      {"k.ptx: the .entry scale_kernel has 4 parameters, and the metadata lists 5"}, __LINE__);
  expectError(
      [] {
        rt::Module::loadFromMemory(
            Ptx, scaleMetadata(R"({"name": "out", "type": "*fp32"}, {"name": "in", "type": "*fp32"},
                                  {"name": "a", "type": "fp32"}, {"name": "n", "type": "i64"})"),
            "k.ptx");
      },
      {"k.ptx: parameter 3 (n: i64) of .entry scale_kernel is 4 bytes in the PTX, and i64 is 8"},
      __LINE__);
  expectError([] { rt::Module::loadFile("/nonexistent/k.ptx", MetadataPath); },
              {"cannot open PTX file '/nonexistent/k.ptx'"}, __LINE__);
}

void testModuleLifetime() {
  // A kernel keeps its module loaded after the Module object is gone.
  rt::Kernel scale = [] {
    rt::Module module = rt::Module::loadFile(PtxPath, MetadataPath);
    return module.kernel("scale");
  }();
  const int n = 64;
  rt::DeviceBuffer in(n * sizeof(float)), out(n * sizeof(float));
  in.copyFromHost(std::vector<float>(n, 3.0f));
  scale.launch(rt::Grid{1}, nullptr, out.as<float>(), in.as<float>(), 2.0f, n);
  rt::synchronize();
  std::vector<float> output(n);
  out.copyToHost(output);
  EXPECT(output == std::vector<float>(n, 6.0f));
}

void testLaunchFailure(const rt::Module &module) {
  // Valid arguments, impossible grid (gridDim.y is at most 65535): the driver refuses, and the
  // error names the call, the CUDA error and the launch.
  rt::Kernel scale = module.kernel("scale");
  rt::DeviceBuffer buffer(1024);
  expectError(
      [&] {
        scale.launch(rt::Grid{1, 70000, 1}, nullptr, buffer.as<float>(), buffer.as<float>(), 1.0f,
                     1);
      },
      {"cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE",
       "kernel scale (entry scale_kernel), grid (1, 70000, 1), block (128, 1, 1)"},
      __LINE__, CUDA_ERROR_INVALID_VALUE);
  rt::synchronize(); // the context survived
}

void testCApi() {
  tilec_module *module = nullptr;
  tilec_kernel *kernel = nullptr;
  EXPECT(tilec_module_load_file(PtxPath.c_str(), MetadataPath.c_str(), &module) == TILEC_SUCCESS);
  EXPECT(tilec_module_get_kernel(module, "scale", &kernel) == TILEC_SUCCESS);
  EXPECT(tilec_module_get_kernel(module, "nope", &kernel) == TILEC_ERROR);
  EXPECT(std::strstr(tilec_last_error(), "available: scale, store_scalars, dynamic_smem, "
                                         "static_smem") != nullptr);
  EXPECT(tilec_module_get_kernel(module, "scale", &kernel) == TILEC_SUCCESS);
  tilec_module_destroy(module); // the kernel keeps it loaded
  EXPECT(tilec_kernel_block_size(kernel) == 128);

  const int n = 300;
  rt::DeviceBuffer in(n * sizeof(float)), out(n * sizeof(float));
  in.copyFromHost(std::vector<float>(n, 1.5f));
  tilec_arg args[] = {tilec_arg_pointer(out.address()), tilec_arg_pointer(in.address()),
                      tilec_arg_f32(-2.0f), tilec_arg_i32(n)};
  EXPECT(tilec_kernel_launch(kernel, 3, 1, 1, nullptr, args, 4) == TILEC_SUCCESS);
  rt::synchronize();
  std::vector<float> output(n);
  out.copyToHost(output);
  EXPECT(output == std::vector<float>(n, -3.0f));

  EXPECT(tilec_kernel_launch(kernel, 3, 1, 1, nullptr, args, 3) == TILEC_ERROR);
  EXPECT(std::strstr(tilec_last_error(), "expected 4 arguments") != nullptr);
  EXPECT(tilec_last_cuda_result() == CUDA_SUCCESS);
  args[3] = tilec_arg_f64(1.0);
  EXPECT(tilec_kernel_launch(kernel, 3, 1, 1, nullptr, args, 4) == TILEC_ERROR);
  EXPECT(std::strstr(tilec_last_error(), "argument 3 (n: i32): expected i32, got fp64 value") !=
         nullptr);
  tilec_kernel_destroy(kernel);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s runtime_kernels.ptx runtime_kernels.json [FATBIN]\n", argv[0]);
    return 2;
  }
  PtxPath = argv[1];
  MetadataPath = argv[2];
  std::string fatbinPath = argc == 4 ? argv[3] : "";

  std::string whyNoDevice;
  try {
    if (rt::deviceCount(&whyNoDevice) == 0) {
      std::printf("runtime_gpu_test: SKIPPED (no GPU: %s)\n", whyNoDevice.c_str());
      return 77;
    }
  } catch (const rt::Error &error) {
    std::printf("runtime_gpu_test: FAILED: %s\n", error.what());
    return 1;
  }

  // Before any context exists on this thread.
  section("no current context", [] {
    expectError([] { rt::Module::loadFile(PtxPath, MetadataPath); },
                {"no current CUDA context to load " + PtxPath}, __LINE__);
  });

  rt::PrimaryContext context(0);
  std::printf("device: %s\n", context.deviceDescription().c_str());
  std::optional<rt::Module> module;
  section("load", [&] {
    module = rt::Module::loadFile(PtxPath, MetadataPath);
    EXPECT(module->metadata().Target == "sm_80");
    EXPECT(module->metadata().Kernels.size() == 4);
    expectError(
        [&] { module->kernel("add_kernel"); },
        {"no kernel named 'add_kernel' in the metadata of tests/gpu/runtime_kernels.ptx.in; "
         "available: scale, store_scalars, dynamic_smem, static_smem"},
        __LINE__);
  });
  if (!module) {
    std::printf("runtime_gpu_test: FAILED (the test kernels did not load)\n");
    return 1;
  }
  {
    // The PTX text, for the tests that load variants of it from memory.
    FILE *file = std::fopen(PtxPath.c_str(), "rb");
    char buffer[4096];
    size_t read = 0;
    Ptx.clear();
    while (file && (read = std::fread(buffer, 1, sizeof buffer, file)) > 0)
      Ptx.append(buffer, read);
    if (file)
      std::fclose(file);
  }

  section("scale: fp32 and i32 arguments", [&] { testScale(*module); });
  section("bad arguments are refused before launching", [&] { testBadArguments(*module); });
  section("i64, i1 and fp16 arguments", [&] { testScalars(*module); });
  section("shared memory", [&] { testSharedMemory(*module); });
  section("load errors", [] { testLoadErrors(); });
  section("kernels keep their module", [] { testModuleLifetime(); });
  section("launch failures", [&] { testLaunchFailure(*module); });
  section("C API", [] { testCApi(); });
  if (!fatbinPath.empty())
    section("a fatbin (sm_80 + sm_90a machine code, no PTX)", [&] {
      // No PTX in it: it loads only if the driver takes an image as it is, without JIT.
      rt::Module fatbin = rt::Module::loadFile(fatbinPath, MetadataPath);
      EXPECT(fatbin.metadata().Kernels.size() == 4);
      testScale(fatbin);
      testSharedMemory(fatbin);
    });

  std::printf("runtime_gpu_test: %d checks, %d failed: %s\n", Checks, Failures,
              Failures ? "FAILED" : "OK");
  return Failures ? 1 : 0;
}
