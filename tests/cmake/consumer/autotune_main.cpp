//===- autotune_main.cpp - samples/vector_add_autotune.tl from a package --===//
//
//   consumer_autotune [--expect-cached]
//
// Launches the autotuned add_kernel (4 variants) and checks the result. With TILEC_CACHE_DIR set,
// the first run times the variants and stores the choice; a second run with --expect-cached must
// find that choice before its first launch (no timing). Prints the chosen variant; exits 77
// (skipped) without a GPU.
//
//===----------------------------------------------------------------------===//

#include "vector_add_autotune.tilec.h"

#include <cstdio>
#include <cstring>
#include <vector>

namespace rt = tilec::rt;

int main(int argc, char **argv) {
  bool expectCached = argc > 1 && std::strcmp(argv[1], "--expect-cached") == 0;
  try {
    std::string whyNone;
    if (rt::deviceCount(&whyNone) == 0) {
      std::printf("consumer_autotune: SKIPPED (no GPU: %s)\n", whyNone.c_str());
      return 77;
    }
    rt::PrimaryContext context(0);
    const int n = 1 << 22;
    std::vector<float> x(n, 1.25f), y(n, 2.5f), out(n, 0.0f);
    rt::DeviceBuffer dx(n * 4), dy(n * 4), dout(n * 4);
    dx.copyFromHost(x);
    dy.copyFromHost(y);
    rt::Kernel kernel = tilec::add_kernel_kernel();
    std::vector<rt::Arg> args = {dx.as<float>(), dy.as<float>(), dout.as<float>(), n};
    std::string before = kernel.chosenEntry(args);
    if (expectCached && before.empty()) {
      std::printf("consumer_autotune: FAILED: no cached choice before the first launch "
                  "(TILEC_CACHE_DIR=%s)\n", std::getenv("TILEC_CACHE_DIR") ? std::getenv("TILEC_CACHE_DIR") : "");
      return 1;
    }
    auto grid = [&](const rt::KernelInfo &k) {
      int64_t block = k.intConstexpr("BLOCK_SIZE");
      return rt::Grid{static_cast<unsigned>((n + block - 1) / block)};
    };
    tilec::add_kernel(nullptr, grid, dx.as<float>(), dy.as<float>(), dout.as<float>(), n);
    rt::synchronize();
    dout.copyToHost(out);
    bool ok = true;
    for (int i = 0; i < n; ++i)
      ok &= out[i] == 3.75f;
    std::string chosen = kernel.chosenEntry(args);
    ok &= !chosen.empty() && (before.empty() || before == chosen);
    std::printf("consumer_autotune: n=%d variants=%zu chosen=%s%s %s\n", n,
                kernel.info().Variants.size(), chosen.c_str(),
                before.empty() ? " (tuned now)" : " (from the cache)", ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
  } catch (const std::exception &error) {
    std::printf("consumer_autotune: FAILED: %s\n", error.what());
    return 1;
  }
}
