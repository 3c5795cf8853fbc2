//===- multifile_main.cpp - kernels split over several files --------------===//
//
// twofile.tl (with common.tl) or, with MULTIFILE_THREE, threefile.tl (with mid.tl and common.tl)
// through their launchers: out = 2 x, or 2 x + 1. Prints "consumer_...: ... OK"; exits 77
// (skipped) without a GPU.
//
//===----------------------------------------------------------------------===//

#ifdef MULTIFILE_THREE
#include "threefile.tilec.h"
#define NAME "consumer_threefile"
#define KERNEL tilec::threefile_kernel
#define OFFSET 1.0f
#else
#include "twofile.tilec.h"
#define NAME "consumer_twofile"
#define KERNEL tilec::twofile_kernel
#define OFFSET 0.0f
#endif

#include <cstdio>
#include <vector>

namespace rt = tilec::rt;

int main() {
  try {
    std::string whyNone;
    if (rt::deviceCount(&whyNone) == 0) {
      std::printf(NAME ": SKIPPED (no GPU: %s)\n", whyNone.c_str());
      return 77;
    }
    rt::PrimaryContext context(0);
    const int n = 1000, block = 256; // common.tl's BLOCK
    std::vector<float> x(n), out(n, 0.0f);
    for (int i = 0; i < n; ++i)
      x[i] = static_cast<float>(i) * 0.5f;
    rt::DeviceBuffer dx(n * sizeof(float)), dout(n * sizeof(float));
    dx.copyFromHost(x);
    dout.copyFromHost(out);
    KERNEL(nullptr, rt::Grid{static_cast<unsigned>((n + block - 1) / block)}, dx.as<float>(),
           dout.as<float>(), n);
    rt::synchronize();
    dout.copyToHost(out);
    bool ok = true;
    for (int i = 0; i < n; ++i)
      ok = ok && out[i] == 2.0f * x[i] + OFFSET;
    std::printf(NAME ": n=%d %s\n", n, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
  } catch (const std::exception &error) {
    std::printf(NAME ": FAILED: %s\n", error.what());
    return 1;
  }
}
