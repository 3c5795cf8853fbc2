//===- vector_add_main.cpp - samples/vector_add.tl from an installed tilec ===//
//
// Runs add_kernel through the launcher tilec_add_kernels generated (vector_add.tilec.h): no PTX
// file at run time, typed arguments. Prints "consumer_vector_add: n=... max_abs_err=0 OK";
// exits 77 (skipped) without a GPU.
//
//===----------------------------------------------------------------------===//

#include "vector_add.tilec.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace rt = tilec::rt;

int main() {
  try {
    std::string whyNone;
    if (rt::deviceCount(&whyNone) == 0) {
      std::printf("consumer_vector_add: SKIPPED (no GPU: %s)\n", whyNone.c_str());
      return 77;
    }
    rt::PrimaryContext context(0);
    const int n = 1000003; // not a multiple of the block: the mask matters
    std::vector<float> x(n), y(n), out(n, -1.0f);
    for (int i = 0; i < n; ++i) {
      x[i] = 0.5f * static_cast<float>(i % 1013);
      y[i] = -0.25f * static_cast<float>(i % 77);
    }
    rt::DeviceBuffer dx(n * sizeof(float)), dy(n * sizeof(float)), dout(n * sizeof(float));
    dx.copyFromHost(x);
    dy.copyFromHost(y);
    const int64_t block = tilec::add_kernel_constexprs::BLOCK_SIZE;
    const unsigned blocks = static_cast<unsigned>((n + block - 1) / block);
    // Twice: the second launch finds the kernel the first looked up (rt::CachedKernel).
    for (int repeat = 0; repeat < 2; ++repeat)
      tilec::add_kernel(nullptr, rt::Grid{blocks}, dx.as<float>(), dy.as<float>(),
                        dout.as<float>(), n);
    rt::synchronize();
    // The launcher's kernel is the same object on every call in this context.
    bool sameKernel = tilec::add_kernel_kernel().handle() == tilec::add_kernel_kernel().handle() &&
                      &tilec::add_kernel_kernel().info() == &tilec::add_kernel_kernel().info();
    dout.copyToHost(out);
    double maxError = 0;
    for (int i = 0; i < n; ++i)
      maxError = std::fmax(maxError, std::fabs(static_cast<double>(out[i]) - (x[i] + y[i])));
    bool ok = maxError == 0 && rt::ModuleCache::global().size() == 1 && sameKernel;
    std::printf("consumer_vector_add: n=%d max_abs_err=%g modules=%zu same_kernel=%d %s\n", n,
                maxError, rt::ModuleCache::global().size(), sameKernel ? 1 : 0,
                ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
  } catch (const std::exception &error) {
    std::printf("consumer_vector_add: FAILED: %s\n", error.what());
    return 1;
  }
}
