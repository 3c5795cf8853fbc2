//===- FaultInjectionTest.cpp - The runtime when driver calls fail --------===//
//
// Run against the fake driver (FakeDriver.c, through TILEC_CUDA_DRIVER) with one call set to
// fail (FAKE_CUDA_FAIL, FAKE_CUDA_FAIL_RESULT; see CMakeLists.txt). Each mode makes the failing
// operation happen through the public API, checks that it is an Error naming the operation and
// the CUDA error, with the CUresult, and then checks that the process is still usable: the same
// operation succeeds when tried again, and so do the others.
//   module_load:   cuModuleLoadDataEx fails (an invalid image); the module cache keeps nothing.
//   out_of_memory: cuMemAlloc fails.
//   launch:        cuLaunchKernel fails.
//   trap:          a kernel fails while it runs: the launch succeeds, cuCtxSynchronize fails.
//   sticky_trap:   the same with the error sticky (FAKE_CUDA_STICKY), as on a real GPU, where it
//                  lasts for the rest of the process: every later operation fails with a clear
//                  Error naming it, and nothing crashes (the destructors included).
//   tensor_map:    cuTensorMapEncodeTiled fails (a kernel with a TMA tensor map, metadata member
//                  tensor_maps); then the launch builds the map from the descriptor and passes
//                  it after the other parameters, 64-byte aligned (the fake kernel "tma_probe"
//                  copies it out, and the fake encoding holds the encode call's arguments).
//   global_scratch: cuMemAllocAsync fails (a kernel with global scratch, metadata version 4);
//                  then the launch allocates grid * size bytes on its stream, passes them last
//                  and frees them (the fake kernel "scratch_probe" reports what it got).
//
//===----------------------------------------------------------------------===//

#include "tilec/runtime.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace {

int Failures = 0;

void expect(bool condition, const std::string &what, int line) {
  if (condition)
    return;
  std::fprintf(stderr, "FaultInjectionTest.cpp:%d: FAILED: %s\n", line, what.c_str());
  ++Failures;
}
#define EXPECT(condition) expect((condition), #condition, __LINE__)

/// Runs \p body, which must throw a tilec::rt::Error with the CUresult \p result whose message
/// contains each of \p needles.
void expectError(const std::function<void()> &body, CUresult result,
                 const std::vector<std::string> &needles, int line) {
  try {
    body();
  } catch (const tilec::rt::Error &error) {
    std::printf("  error as expected: %s\n", error.what());
    for (const std::string &needle : needles)
      expect(std::string(error.what()).find(needle) != std::string::npos,
             "message contains \"" + needle + "\"", line);
    expect(error.cudaResult() == result,
           "the CUresult is " + std::to_string(result) + ", not " +
               std::to_string(error.cudaResult()),
           line);
    return;
  }
  expect(false, "an Error was thrown", line);
}

/// Runs \p body, which must not throw.
void expectSuccess(const std::function<void()> &body, const char *what, int line) {
  try {
    body();
  } catch (const std::exception &error) {
    expect(false, std::string(what) + " succeeds, but: " + error.what(), line);
  }
}

const char *const Metadata = R"({"schema": "tilec-metadata", "version": 1, "target": "sm_90",
  "kernels": [{"name": "fill", "entry": "fill", "num_warps": 4, "threads_per_block": 128,
               "shared_memory_bytes": 0,
               "params": [{"name": "out", "type": "*fp32"}, {"name": "n", "type": "i32"}]}]})";
const char *const Ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                        ".visible .entry fill(.param .u64 out, .param .u32 n)\n{\n  ret;\n}\n";

constexpr int N = 16;

/// Fills a buffer through the kernel and checks what it wrote (the fake's "fill" writes 42s).
void fillAndCheck(const tilec::rt::Kernel &kernel, int line) {
  expectSuccess(
      [&] {
        tilec::rt::DeviceBuffer buffer(N * sizeof(float));
        buffer.copyFromHost(std::vector<float>(N, 0.0f));
        kernel.launch(tilec::rt::Grid{1}, nullptr, buffer.as<float>(), N);
        tilec::rt::synchronize();
        std::vector<float> result(N);
        buffer.copyToHost(result);
        expect(result == std::vector<float>(N, 42.0f), "the kernel wrote its output", line);
      },
      "a launch", line);
}

void testModuleLoad() {
  tilec::rt::ModuleCache &cache = tilec::rt::ModuleCache::global();
  static const tilec::rt::CachedKernel cached(Ptx, Metadata, "fill.ptx", "fill");
  expectError([] { cached.get(); }, CUDA_ERROR_INVALID_IMAGE,
              {"cuModuleLoadDataEx failed", "CUDA_ERROR_INVALID_IMAGE", "while loading fill.ptx",
               "fake driver: injected failure 200"},
              __LINE__);
  // Nothing of the failed load is remembered: the next use loads the module.
  EXPECT(cache.size() == 0);
  EXPECT(cached.contexts() == 0);
  expectSuccess([] { fillAndCheck(cached.get(), __LINE__); }, "the load tried again", __LINE__);
  EXPECT(cache.size() == 1);
  EXPECT(cached.contexts() == 1);
  // And a module loaded directly.
  expectSuccess(
      [] {
        tilec::rt::Module module = tilec::rt::Module::loadFromMemory(Ptx, Metadata);
        fillAndCheck(module.kernel("fill"), __LINE__);
      },
      "another load", __LINE__);
}

void testOutOfMemory() {
  expectError([] { tilec::rt::DeviceBuffer buffer(1 << 20); }, CUDA_ERROR_OUT_OF_MEMORY,
              {"cuMemAlloc failed", "CUDA_ERROR_OUT_OF_MEMORY", "1048576 bytes"}, __LINE__);
  expectSuccess([] { tilec::rt::DeviceBuffer buffer(1 << 20); }, "the allocation tried again",
                __LINE__);
  tilec::rt::Module module = tilec::rt::Module::loadFromMemory(Ptx, Metadata);
  fillAndCheck(module.kernel("fill"), __LINE__);
}

void testLaunch() {
  tilec::rt::Module module = tilec::rt::Module::loadFromMemory(Ptx, Metadata);
  tilec::rt::Kernel kernel = module.kernel("fill");
  tilec::rt::DeviceBuffer buffer(N * sizeof(float));
  expectError([&] { kernel.launch(tilec::rt::Grid{3}, nullptr, buffer.as<float>(), N); },
              CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
              {"cuLaunchKernel failed", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "kernel fill",
               "grid (3, 1, 1)", "block (128, 1, 1)"},
              __LINE__);
  fillAndCheck(kernel, __LINE__);
}

void testTrap() {
  tilec::rt::Module module = tilec::rt::Module::loadFromMemory(Ptx, Metadata);
  tilec::rt::Kernel kernel = module.kernel("fill");
  tilec::rt::DeviceBuffer buffer(N * sizeof(float));
  expectSuccess([&] { kernel.launch(tilec::rt::Grid{1}, nullptr, buffer.as<float>(), N); },
                "the launch of the kernel that traps", __LINE__);
  expectError([] { tilec::rt::synchronize(); }, CUDA_ERROR_LAUNCH_FAILED,
              {"cuCtxSynchronize failed", "CUDA_ERROR_LAUNCH_FAILED",
               "a kernel launched earlier failed", "restart the process"},
              __LINE__);
  // The fake's error is not sticky (a real driver's is: see the message), so the context works.
  fillAndCheck(kernel, __LINE__);
}

void testStickyTrap() {
  tilec::rt::Module module = tilec::rt::Module::loadFromMemory(Ptx, Metadata);
  tilec::rt::Kernel kernel = module.kernel("fill");
  auto buffer = std::make_unique<tilec::rt::DeviceBuffer>(N * sizeof(float));
  expectSuccess([&] { kernel.launch(tilec::rt::Grid{1}, nullptr, buffer->as<float>(), N); },
                "the launch of the kernel that traps", __LINE__);
  expectError([] { tilec::rt::synchronize(); }, CUDA_ERROR_LAUNCH_FAILED,
              {"cuCtxSynchronize failed", "a kernel launched earlier failed",
               "for the rest of the process", "restart the process"},
              __LINE__);
  // Sticky: every later operation fails the same way, with an Error that names it.
  expectError([] { tilec::rt::DeviceBuffer other(64); }, CUDA_ERROR_LAUNCH_FAILED,
              {"failed: CUDA_ERROR_LAUNCH_FAILED"}, __LINE__);
  expectError([&] { buffer->copyFromHost(std::vector<float>(N, 0.0f)); },
              CUDA_ERROR_LAUNCH_FAILED, {"cuMemcpyHtoD failed"}, __LINE__);
  expectError([&] { kernel.launch(tilec::rt::Grid{1}, nullptr, buffer->as<float>(), N); },
              CUDA_ERROR_LAUNCH_FAILED, {"cuLaunchKernel failed", "kernel fill"}, __LINE__);
  expectError([] { tilec::rt::synchronize(); }, CUDA_ERROR_LAUNCH_FAILED,
              {"restart the process"}, __LINE__);
  buffer.reset(); // destroying what the context held does not crash
}

// (out: *u8, a: tensordesc<fp16[32, 64]>), with a tensor map of a: a box of the whole block,
// 128-byte swizzle, NaN fill.
const char *const TmaMetadata = R"({"schema": "tilec-metadata", "version": 3, "target": "sm_90a",
  "kernels": [{"name": "tma_probe", "entry": "tma_probe", "num_warps": 4, "threads_per_block": 128,
    "shared_memory_bytes": 0,
    "params": [{"name": "out", "type": "*u8"},
               {"name": "a.base", "type": "*fp16", "alignment": 16},
               {"name": "a.shape.0", "type": "i64"}, {"name": "a.shape.1", "type": "i64"},
               {"name": "a.strides.0", "type": "i64", "divisibility": 8},
               {"name": "a.strides.1", "type": "i64"}, {"name": "a.padding_nan", "type": "i1"}],
    "tensor_descriptors": [{"name": "a", "dtype": "fp16", "block_shape": [32, 64],
                            "first_param": 1}],
    "tensor_maps": [{"descriptor": 0, "box": [32, 64], "swizzle": 128, "element": "fp16",
                     "fill": "nan"}]}]})";
const char *const TmaPtx = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                           ".visible .entry tma_probe()\n{\n  ret;\n}\n";

void testTensorMap() {
  using tilec::rt::TensorDescriptor;
  tilec::rt::Module module = tilec::rt::Module::loadFromMemory(TmaPtx, TmaMetadata);
  tilec::rt::Kernel kernel = module.kernel("tma_probe");
  tilec::rt::DeviceBuffer out(256), a(4096);
  TensorDescriptor desc{a.as<tilec::rt::fp16>(), {100, 72}, {80, 1}, {32, 64}};
  expectError([&] { kernel.launch(tilec::rt::Grid{1}, nullptr, out.as<uint8_t>(), desc); },
              CUDA_ERROR_INVALID_VALUE,
              {"cuTensorMapEncodeTiled failed", "CUDA_ERROR_INVALID_VALUE",
               "kernel tma_probe, tensor map 0 of descriptor a", "dims (innermost first) [72, 100]",
               "strides [160] bytes", "box [64, 32]"},
              __LINE__);
  // A descriptor TMA cannot describe: refused before the driver is asked.
  TensorDescriptor empty{a.as<tilec::rt::fp16>(), {0, 72}, {80, 1}, {32, 64}};
  expectError([&] { kernel.launch(tilec::rt::Grid{1}, nullptr, out.as<uint8_t>(), empty); },
              CUDA_SUCCESS,
              {"tma_probe: argument 2 (a.shape.0: i64) is 0", "load tensor descriptor a with TMA",
               "cannot have an empty dimension"},
              __LINE__);
  // An empty grid launches nothing, and so builds no map.
  expectSuccess([&] { kernel.launch(tilec::rt::Grid{0}, nullptr, out.as<uint8_t>(), empty); },
                "an empty grid", __LINE__);

  // Passed one by one, the same; the fake kernel copies the map it got to out.
  expectSuccess(
      [&] {
        std::vector<uint8_t> zeros(256, 0);
        out.copyFromHost(zeros);
        kernel.launch(tilec::rt::Grid{1}, nullptr, out.as<uint8_t>(), a.as<tilec::rt::fp16>(), 100,
                      72, 80, 1, true);
        std::vector<uint64_t> map(17);
        out.copyToHost(map.data(), 136);
        EXPECT(std::memcmp(&map[0], "tilecTMA", 8) == 0);
        // fp16 (6), rank 2, no interleave, 128-byte swizzle (3), L2 128B (2), NaN fill (1).
        EXPECT(map[1] == (6 | 2 << 8 | 0 << 16 | 3 << 24 | 2ull << 32 | 1ull << 40));
        EXPECT(map[2] == a.address());
        EXPECT(map[3] == 72 && map[4] == 100 && map[5] == 0);
        EXPECT(map[8] == 160 && map[9] == 0);
        EXPECT(map[12] == (64 | 32 << 16));
        EXPECT(map[13] == (1 << 16 | 1 << 24));
        EXPECT((map[16] & 0xff) == 1); // the map's address was 64-byte aligned
      },
      "a launch with a tensor map", __LINE__);
}

// (out: *u64, n: i32) with 256 bytes of global scratch per program (metadata version 4).
const char *const ScratchMetadata =
    R"({"schema": "tilec-metadata", "version": 4, "target": "sm_90a",
  "kernels": [{"name": "scratch_probe", "entry": "scratch_probe", "num_warps": 4,
    "threads_per_block": 128, "shared_memory_bytes": 0,
    "params": [{"name": "out", "type": "*u64"}, {"name": "n", "type": "i32"}],
    "global_scratch": {"size": 256, "align": 128}}]})";
const char *const ScratchPtx = ".version 8.3\n.target sm_90a\n.address_size 64\n"
                               ".visible .entry scratch_probe()\n{\n  ret;\n}\n";

void testGlobalScratch() {
  tilec::rt::Module module = tilec::rt::Module::loadFromMemory(ScratchPtx, ScratchMetadata);
  tilec::rt::Kernel kernel = module.kernel("scratch_probe");
  tilec::rt::DeviceBuffer out(24);
  auto stream = reinterpret_cast<CUstream>(uintptr_t(0x5));
  // The allocation fails (injected once): an error that names the kernel and the size.
  expectError(
      [&] {
        kernel.launch(tilec::rt::Grid{3, 2}, stream, out.as<uint64_t>(), 1);
      },
      CUDA_ERROR_OUT_OF_MEMORY,
      {"cuMemAllocAsync failed", "global scratch of kernel scratch_probe, 1536 bytes"}, __LINE__);
  // Then the scratch, 256 bytes for each of the 6 programs, on the launch's stream, comes last
  // and is freed after the launch.
  expectSuccess(
      [&] {
        kernel.launch(tilec::rt::Grid{3, 2}, stream, out.as<uint64_t>(), 1);
        std::vector<uint64_t> seen(3);
        out.copyToHost(seen.data(), 24);
        EXPECT(seen[0] != 0 && seen[0] != out.address());
        EXPECT(seen[1] == 6 * 256);
        EXPECT(seen[2] == 0x5);
        // The fake driver the runtime loaded tells how many are still allocated.
        void *driver = dlopen(std::getenv("TILEC_CUDA_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
        auto live = driver ? reinterpret_cast<int (*)()>(dlsym(driver, "fakeLiveAsyncAllocations"))
                           : nullptr;
        EXPECT(live && live() == 0);
        if (driver)
          dlclose(driver);
      },
      "a launch with global scratch", __LINE__);
}

} // namespace

int main(int argc, char **argv) {
  const char *modes[] = {"module_load", "out_of_memory", "launch",        "trap",
                         "sticky_trap", "tensor_map",    "global_scratch"};
  const char *mode = argc == 2 ? argv[1] : "";
  if (std::find_if(std::begin(modes), std::end(modes), [&](const char *known) {
        return std::strcmp(known, mode) == 0;
      }) == std::end(modes)) {
    std::fprintf(stderr,
                 "usage: %s module_load|out_of_memory|launch|trap|sticky_trap|tensor_map|"
                 "global_scratch\n",
                 argv[0]);
    return 2;
  }
  const char *driver = std::getenv("TILEC_CUDA_DRIVER");
  const char *fail = std::getenv("FAKE_CUDA_FAIL");
  std::printf("TILEC_CUDA_DRIVER=%s FAKE_CUDA_FAIL=%s\n", driver ? driver : "(unset)",
              fail ? fail : "(unset)");
  if (!driver || !fail) {
    std::fprintf(stderr, "TILEC_CUDA_DRIVER and FAKE_CUDA_FAIL must be set: this test runs on "
                         "the fake driver\n");
    return 2;
  }

  std::string whyNone;
  if (tilec::rt::deviceCount(&whyNone) != 1) {
    std::fprintf(stderr, "the fake driver has no device: %s\n", whyNone.c_str());
    return 1;
  }
  tilec::rt::PrimaryContext context;
  if (std::strcmp(mode, "module_load") == 0)
    testModuleLoad();
  else if (std::strcmp(mode, "out_of_memory") == 0)
    testOutOfMemory();
  else if (std::strcmp(mode, "launch") == 0)
    testLaunch();
  else if (std::strcmp(mode, "trap") == 0)
    testTrap();
  else if (std::strcmp(mode, "tensor_map") == 0)
    testTensorMap();
  else if (std::strcmp(mode, "global_scratch") == 0)
    testGlobalScratch();
  else
    testStickyTrap();
  tilec::rt::ModuleCache::global().clear();
  std::printf("%s: %d failure(s)\n", mode, Failures);
  return Failures ? 1 : 0;
}
