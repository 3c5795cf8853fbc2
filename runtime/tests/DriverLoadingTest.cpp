//===- DriverLoadingTest.cpp - The runtime without a usable driver --------===//
//
// Run with TILEC_CUDA_DRIVER set (see CMakeLists.txt):
//   missing: the driver library does not exist. There is "no device" (what GPU tests skip on),
//            and everything that needs the driver is an Error that says why.
//   stub:    the toolkit's stub libcuda. It exports every entry point, so this proves that the
//            runtime asks for symbols that exist (cuMemAlloc_v2...), and every call fails, so
//            this shows how a failed CUDA call is reported.
//
//===----------------------------------------------------------------------===//

#include "tilec/runtime.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

namespace {

int Failures = 0;

void expect(bool condition, const char *what, int line) {
  if (condition)
    return;
  std::fprintf(stderr, "DriverLoadingTest.cpp:%d: FAILED: %s\n", line, what);
  ++Failures;
}
#define EXPECT(condition) expect((condition), #condition, __LINE__)

/// Runs \p body, which must throw a tilec::rt::Error whose message contains \p needle.
void expectError(const std::function<void()> &body, const std::string &needle, int line,
                 CUresult result = CUDA_SUCCESS) {
  try {
    body();
  } catch (const tilec::rt::Error &error) {
    std::printf("  error as expected: %s\n", error.what());
    expect(std::string(error.what()).find(needle) != std::string::npos,
           ("message contains \"" + needle + "\"").c_str(), line);
    expect(error.cudaResult() == result, "the CUresult is the expected one", line);
    return;
  }
  expect(false, ("an Error containing \"" + needle + "\" was thrown").c_str(), line);
}

const char *const Metadata = R"({"schema": "tilec-metadata", "version": 1, "target": "sm_90",
  "kernels": [{"name": "k", "entry": "k", "num_warps": 1, "threads_per_block": 32,
               "shared_memory_bytes": 0, "params": []}]})";
const char *const Ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                        ".visible .entry k()\n{\n  ret;\n}\n";

void testMissingDriver() {
  std::string why;
  EXPECT(tilec::rt::deviceCount(&why) == 0);
  std::printf("  no device: %s\n", why.c_str());
  EXPECT(why.find("cannot open the CUDA driver library") != std::string::npos);
  EXPECT(why.find("no-such-libcuda.so.1") != std::string::npos);
  expectError([] { tilec::rt::PrimaryContext context; }, "cannot open the CUDA driver library",
              __LINE__);
  expectError([] { tilec::rt::Module::loadFromMemory(Ptx, Metadata); },
              "cannot open the CUDA driver library", __LINE__);
  // The metadata is read before the driver is needed, so its errors come first.
  expectError([] { tilec::rt::Module::loadFromMemory(Ptx, "{", "k.ptx", "k.json"); },
              "k.json:1:2: invalid JSON", __LINE__);
  expectError([] { tilec::rt::DeviceBuffer buffer(64); }, "cannot open the CUDA driver library",
              __LINE__);
  expectError(
      [] {
        CUtensorMap map;
        tilec::rt::encodeTensorMap(tilec::rt::TensorMapEncodeArgs{}, map, "a map");
      },
      "cannot open the CUDA driver library", __LINE__);
  // A launcher's cached kernel reports the same, and remembers nothing from the failure.
  static const tilec::rt::CachedKernel cached(Ptx, Metadata, "k.ptx", "k");
  expectError([] { cached.get(); }, "cannot open the CUDA driver library", __LINE__);
  EXPECT(cached.contexts() == 0);
}

void testStubDriver() {
  // Every entry point resolved, or this would be "... lacks cuXxx".
  expectError([] { tilec::rt::deviceCount(); }, "cuInit failed: CUDA_ERROR_STUB_LIBRARY", __LINE__,
              CUDA_ERROR_STUB_LIBRARY);
  expectError([] { tilec::rt::PrimaryContext context; }, "cuInit failed: ", __LINE__,
              CUDA_ERROR_STUB_LIBRARY);
  expectError([] { tilec::rt::Module::loadFromMemory(Ptx, Metadata); },
              "cuCtxGetCurrent failed: ", __LINE__, CUDA_ERROR_STUB_LIBRARY);
  // The optional cuTensorMapEncodeTiled resolves too (else: "the CUDA driver lacks ...").
  expectError(
      [] {
        tilec::rt::TensorMapEncodeArgs args;
        args.Rank = 1;
        args.GlobalDim[0] = 64;
        args.BoxDim[0] = 64;
        args.ElementStrides[0] = 1;
        CUtensorMap map;
        tilec::rt::encodeTensorMap(args, map, "a map");
      },
      "cuTensorMapEncodeTiled failed: ", __LINE__, CUDA_ERROR_STUB_LIBRARY);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2 || (std::strcmp(argv[1], "missing") && std::strcmp(argv[1], "stub"))) {
    std::fprintf(stderr, "usage: %s missing|stub (with TILEC_CUDA_DRIVER set)\n", argv[0]);
    return 2;
  }
  const char *driver = std::getenv("TILEC_CUDA_DRIVER");
  std::printf("TILEC_CUDA_DRIVER=%s\n", driver ? driver : "(unset)");
  if (!driver) {
    std::fprintf(stderr, "TILEC_CUDA_DRIVER must be set: this test must not use a real driver\n");
    return 2;
  }
  if (std::strcmp(argv[1], "missing") == 0)
    testMissingDriver();
  else
    testStubDriver();
  std::printf("%s: %d failure(s)\n", argv[1], Failures);
  return Failures ? 1 : 0;
}
