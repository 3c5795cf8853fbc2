//===- bench/launch_overhead.cpp - Launch cost of the runtime vs cuLaunchKernel ---------------===//
//
// Times launches of one tiny kernel (tilec's vector add on 1024 elements: one block) three ways:
//
//   plain     cuLaunchKernel with a prepared argument array (the floor);
//   runtime   tilec::rt::Kernel::launch(grid, stream, x, y, out, n): argument checks against the
//             metadata, packing, cuLaunchKernel;
//   cached    tilec::rt::CachedKernel::get() then launch: what the generated launchers of
//             `tilec --emit header` do on every call (context lookup, then the same launch).
//
// For each: `host` = host time per launch call, launches issued in bursts of kBurst (well below
// the driver's queue depth, so that the host never waits for the GPU) with a synchronize between
// bursts that is not timed; `end-to-end` = launch + cuStreamSynchronize per iteration (from the
// call to the kernel's completion as the host sees it). Medians over kRounds rounds.
//
//   tilec_launch_overhead PTX JSON [--csv OUT.csv]
//
// PTX/JSON: tilec's bench_vector_add (bench.py --compile), whose add_kernel is
// "*fp32:16,*fp32:16,*fp32:16,i32:16,1024". Exit 77 without a GPU.
//
//===----------------------------------------------------------------------------------------===//

#include "tilec/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kBurst = 256;
constexpr int kRounds = 41;
constexpr int kEndToEnd = 2000;

void check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr;
  cuGetErrorName(result, &name);
  std::fprintf(stderr, "%s failed: %s\n", what, name ? name : "?");
  std::exit(1);
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

using Clock = std::chrono::steady_clock;

/// Host microseconds per call of \p launch, launched in bursts.
double hostTime(CUstream stream, const std::function<void()> &launch) {
  std::vector<double> rounds;
  for (int round = 0; round < kRounds; ++round) {
    check(cuStreamSynchronize(stream), "cuStreamSynchronize");
    auto start = Clock::now();
    for (int i = 0; i < kBurst; ++i)
      launch();
    auto stop = Clock::now();
    rounds.push_back(std::chrono::duration<double, std::micro>(stop - start).count() / kBurst);
  }
  check(cuStreamSynchronize(stream), "cuStreamSynchronize");
  return median(rounds);
}

/// Microseconds from the launch call to the end of cuStreamSynchronize, per launch.
double endToEnd(CUstream stream, const std::function<void()> &launch) {
  std::vector<double> times;
  for (int i = 0; i < kEndToEnd; ++i) {
    auto start = Clock::now();
    launch();
    check(cuStreamSynchronize(stream), "cuStreamSynchronize");
    times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  return median(times);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3 && !(argc == 5 && std::string(argv[3]) == "--csv")) {
    std::fprintf(stderr, "usage: %s PTX JSON [--csv OUT.csv]\n", argv[0]);
    return 2;
  }
  int devices = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&devices) != CUDA_SUCCESS || devices == 0) {
    std::fprintf(stderr, "no CUDA device: skipped\n");
    return 77;
  }
  try {
    tilec::rt::PrimaryContext context(0);
    CUstream stream = nullptr;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");

    std::string ptx = readFile(argv[1]), metadata = readFile(argv[2]);
    tilec::rt::Module module = tilec::rt::Module::loadFromMemory(ptx, metadata, argv[1], argv[2]);
    tilec::rt::Kernel kernel = module.kernel("add_kernel");
    tilec::rt::CachedKernel cached(ptx, metadata, argv[1], "add_kernel");

    const int n = 1024;
    CUdeviceptr x = 0, y = 0, out = 0;
    for (CUdeviceptr *p : {&x, &y, &out}) {
      check(cuMemAlloc(p, n * sizeof(float)), "cuMemAlloc");
      check(cuMemsetD32(*p, 0, n), "cuMemsetD32");
    }
    tilec::rt::Grid grid{1};

    // The plain call: the function handle and argument array prepared once.
    CUfunction function = kernel.handle();
    int count = n;
    void *params[] = {&x, &y, &out, &count};
    unsigned threads = kernel.blockSize(), shared = kernel.dynamicSharedBytes();
    auto plain = [&] {
      check(cuLaunchKernel(function, 1, 1, 1, threads, 1, 1, shared, stream, params, nullptr),
            "cuLaunchKernel");
    };
    auto runtime = [&] { kernel.launch(grid, stream, x, y, out, n); };
    auto viaCache = [&] { cached.get().launch(grid, stream, x, y, out, n); };

    struct Way {
      const char *name;
      std::function<void()> launch;
    };
    std::vector<Way> ways = {{"plain cuLaunchKernel", plain},
                             {"tilec runtime Kernel::launch", runtime},
                             {"tilec CachedKernel (generated launcher)", viaCache}};
    for (Way &way : ways) // warm up: module loads, first-launch costs
      for (int i = 0; i < 100; ++i)
        way.launch();
    check(cuStreamSynchronize(stream), "cuStreamSynchronize");

    std::vector<double> host, e2e;
    // Interleave the ways over three passes so that clock drift affects all alike; keep the best.
    host.assign(ways.size(), 1e30);
    e2e.assign(ways.size(), 1e30);
    for (int pass = 0; pass < 3; ++pass)
      for (size_t i = 0; i < ways.size(); ++i) {
        host[i] = std::min(host[i], hostTime(stream, ways[i].launch));
        e2e[i] = std::min(e2e[i], endToEnd(stream, ways[i].launch));
      }

    std::printf("%-42s %14s %14s %14s\n", "launch path", "host us/launch", "vs plain",
                "end-to-end us");
    for (size_t i = 0; i < ways.size(); ++i)
      std::printf("%-42s %14.3f %+14.3f %14.3f\n", ways[i].name, host[i], host[i] - host[0],
                  e2e[i]);
    bool within = host[1] - host[0] <= 0.5 && host[2] - host[0] <= 0.5;
    std::printf("runtime within 0.5 us of the plain call: %s\n", within ? "yes" : "NO");
    if (argc == 5) {
      std::ofstream csv(argv[4]);
      csv << "path,host_us_per_launch,host_us_over_plain,end_to_end_us\n";
      for (size_t i = 0; i < ways.size(); ++i)
        csv << ways[i].name << "," << host[i] << "," << host[i] - host[0] << "," << e2e[i] << "\n";
    }
    for (CUdeviceptr p : {x, y, out})
      cuMemFree(p);
    cuStreamDestroy(stream);
    return within ? 0 : 1;
  } catch (const std::exception &error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
