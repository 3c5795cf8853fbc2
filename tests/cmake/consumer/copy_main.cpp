//===- copy_main.cpp - samples/copy.tl from an installed tilec ------------===//
//
// The second target of the consumer project: its kernel comes from the `# tilec: -s` comment in
// copy.tl. Prints "consumer_copy: ... OK"; exits 77 (skipped) without a GPU.
//
//===----------------------------------------------------------------------===//

#include "copy.tilec.h"

#include <cstdio>
#include <vector>

namespace rt = tilec::rt;

int main() {
  try {
    std::string whyNone;
    if (rt::deviceCount(&whyNone) == 0) {
      std::printf("consumer_copy: SKIPPED (no GPU: %s)\n", whyNone.c_str());
      return 77;
    }
    rt::PrimaryContext context(0);
    const int n = 5000;
    std::vector<float> x(n), z(n, 0.0f);
    for (int i = 0; i < n; ++i)
      x[i] = static_cast<float>(i) * 1.5f;
    rt::DeviceBuffer dx(n * sizeof(float)), dz(n * sizeof(float));
    dx.copyFromHost(x);
    dz.copyFromHost(z);
    const int64_t block = tilec::copy_k_constexprs::bs;
    tilec::copy_k(nullptr, rt::Grid{static_cast<unsigned>((n + block - 1) / block)},
                  dx.as<float>(), dz.as<float>(), n);
    rt::synchronize();
    dz.copyToHost(z);
    bool ok = z == x;
    std::printf("consumer_copy: n=%d %s\n", n, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
  } catch (const std::exception &error) {
    std::printf("consumer_copy: FAILED: %s\n", error.what());
    return 1;
  }
}
