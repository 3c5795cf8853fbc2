//===- vector_add.cpp - Run samples/vector_add.tl's add_kernel ------------===//
//
//   vector_add [-n N] [vector_add.ptx vector_add.json]
//
// Loads the PTX tilec wrote for samples/vector_add.tl, adds two random vectors on the GPU and
// compares with the CPU. Prints one line, "vector_add: n=1000000 max_abs_err=0 OK", and exits 0;
// 1 on a wrong result or an error; 77 (skipped) when there is no GPU or no PTX to run.
//
//===----------------------------------------------------------------------===//

#include "tilec/runtime.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#ifndef TILEC_SAMPLE_PTX
#define TILEC_SAMPLE_PTX ""
#endif
#ifndef TILEC_SAMPLE_METADATA
#define TILEC_SAMPLE_METADATA ""
#endif

namespace {

constexpr int ExitSkipped = 77;

int usage(const char *program) {
  std::fprintf(stderr, "usage: %s [-n N] [vector_add.ptx vector_add.json]\n", program);
  return 2;
}

int run(size_t n, const std::string &ptxPath, const std::string &metadataPath) {
  namespace rt = tilec::rt;
  rt::PrimaryContext context(0);
  rt::Module module = rt::Module::loadFile(ptxPath, metadataPath);
  rt::Kernel kernel = module.kernel("add_kernel");

  // The block size the kernel was compiled for, as the metadata records it.
  const rt::ConstexprInfo *blockSizeInfo = kernel.info().findConstexpr("BLOCK_SIZE");
  if (!blockSizeInfo)
    throw rt::Error(metadataPath + ": add_kernel has no BLOCK_SIZE constexpr");
  const size_t blockSize = std::stoul(blockSizeInfo->Value);

  std::mt19937 generator(20240601);
  std::uniform_real_distribution<float> distribution(-1.0f, 1.0f);
  std::vector<float> x(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = distribution(generator);
    y[i] = distribution(generator);
  }

  // The output has a guard band after element n, filled with a sentinel: the kernel's mask must
  // keep the last block from writing there.
  const size_t guard = blockSize;
  const uint32_t sentinelBits = 0x7fc0dead; // a NaN no addition produces
  float sentinel;
  std::memcpy(&sentinel, &sentinelBits, sizeof sentinel);
  std::vector<float> output(n + guard, sentinel);

  rt::DeviceBuffer xBuffer(n * sizeof(float)), yBuffer(n * sizeof(float));
  rt::DeviceBuffer outputBuffer(output.size() * sizeof(float));
  xBuffer.copyFromHost(x);
  yBuffer.copyFromHost(y);
  outputBuffer.copyFromHost(output);

  const unsigned blocks = static_cast<unsigned>((n + blockSize - 1) / blockSize); // cdiv
  kernel.launch(rt::Grid{blocks}, nullptr, xBuffer.as<float>(), yBuffer.as<float>(),
                outputBuffer.as<float>(), n);
  rt::synchronize();
  outputBuffer.copyToHost(output);

  double maxAbsError = 0;
  size_t mismatches = 0;
  for (size_t i = 0; i < n; ++i) {
    float expected = x[i] + y[i];
    double error = std::fabs(static_cast<double>(output[i]) - expected);
    if (error != 0 || std::isnan(error))
      ++mismatches;
    // A NaN result makes the maximum NaN, and it stays NaN.
    if (!std::isnan(maxAbsError) && (std::isnan(error) || error > maxAbsError))
      maxAbsError = error;
  }
  size_t guardWrites = 0;
  for (size_t i = n; i < n + guard; ++i)
    if (std::memcmp(&output[i], &sentinelBits, sizeof sentinelBits) != 0)
      ++guardWrites;

  bool ok = mismatches == 0 && guardWrites == 0;
  std::printf("vector_add: n=%zu max_abs_err=%g %s", n, maxAbsError, ok ? "OK" : "FAILED");
  if (mismatches)
    std::printf(" (%zu wrong elements)", mismatches);
  if (guardWrites)
    std::printf(" (%zu writes past element n)", guardWrites);
  std::printf("\n");
  return ok ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  size_t n = 1000000;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
      char *end = nullptr;
      unsigned long long value = std::strtoull(argv[++i], &end, 10);
      if (*end || value == 0 || value > INT32_MAX) // n_elements is an i32
        return usage(argv[0]);
      n = value;
    } else if (argv[i][0] == '-') {
      return usage(argv[0]);
    } else {
      paths.push_back(argv[i]);
    }
  }
  if (paths.empty() && *TILEC_SAMPLE_PTX) {
    paths = {TILEC_SAMPLE_PTX, TILEC_SAMPLE_METADATA};
  }
  if (paths.empty()) {
    std::printf("vector_add: SKIPPED (no PTX: this build has neither the compiler nor "
                "-DTILEC_PREBUILT_PTX_DIR; pass vector_add.ptx vector_add.json)\n");
    return ExitSkipped;
  }
  if (paths.size() != 2)
    return usage(argv[0]);

  try {
    std::string whyNoDevice;
    if (tilec::rt::deviceCount(&whyNoDevice) == 0) {
      std::printf("vector_add: SKIPPED (no GPU: %s)\n", whyNoDevice.c_str());
      return ExitSkipped;
    }
    return run(n, paths[0], paths[1]);
  } catch (const std::exception &error) {
    std::printf("vector_add: n=%zu FAILED\n", n);
    std::fprintf(stderr, "vector_add: error: %s\n", error.what());
    return 1;
  }
}
