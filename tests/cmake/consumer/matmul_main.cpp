//===- matmul_main.cpp - samples/tiled_matmul.tl's autotuned matmul from a package ---------===//
//
//   consumer_matmul [--expect-cached]
//
// C = A @ B with matmul_kernel_autotune (8 configurations, key M, N, K) on fp16 inputs into an
// fp32 output, on shapes that no block size divides (M=1000, N=1008, K=528; the signature
// promises strides divisible by 16), against a CPU reference in double. C's rows are padded to 1024
// columns and C has guard rows after it, all filled with a sentinel that the kernel's masks
// must leave alone.
//
// With TILEC_CACHE_DIR set, the first run times the variants and stores the choice; a second
// run with --expect-cached must find that choice before its first launch (no timing). Prints the
// chosen variant; exits 77 (skipped) without a GPU.
//
//===----------------------------------------------------------------------===//

#include "tiled_matmul.tilec.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace rt = tilec::rt;

namespace {

/// k / 1024 as fp16 bits, for |k| <= 1024: exactly representable, so no rounding question.
uint16_t fp16FromK(int k) {
  if (k == 0)
    return 0;
  uint16_t sign = k < 0 ? 0x8000 : 0;
  unsigned magnitude = static_cast<unsigned>(k < 0 ? -k : k);
  int e = 0;
  while ((magnitude >> (e + 1)) != 0)
    ++e; // floor(log2(magnitude))
  unsigned mantissa = (magnitude << (10 - e)) & 0x3ff;
  unsigned exponent = static_cast<unsigned>(e - 10 + 15);
  return static_cast<uint16_t>(sign | (exponent << 10) | mantissa);
}

} // namespace

int main(int argc, char **argv) {
  bool expectCached = argc > 1 && std::strcmp(argv[1], "--expect-cached") == 0;
  try {
    std::string whyNone;
    if (rt::deviceCount(&whyNone) == 0) {
      std::printf("consumer_matmul: SKIPPED (no GPU: %s)\n", whyNone.c_str());
      return 77;
    }
    rt::PrimaryContext context(0);
    const int M = 1000, N = 1008, K = 528;
    const int ldc = 1024;      // C's row stride: 16 padding columns after N
    const int guardRows = 8;   // rows after C's last one
    const uint32_t sentinelBits = 0x7fc0dead; // a NaN no matmul produces
    float sentinel;
    std::memcpy(&sentinel, &sentinelBits, sizeof sentinel);

    std::mt19937 generator(20240607);
    std::uniform_int_distribution<int> distribution(-1024, 1024);
    std::vector<int> ak(size_t(M) * K), bk(size_t(K) * N);
    std::vector<rt::fp16> a(ak.size()), b(bk.size());
    for (size_t i = 0; i < ak.size(); ++i)
      a[i].Bits = fp16FromK(ak[i] = distribution(generator));
    for (size_t i = 0; i < bk.size(); ++i)
      b[i].Bits = fp16FromK(bk[i] = distribution(generator));
    std::vector<float> c(size_t(M + guardRows) * ldc, sentinel);

    rt::DeviceBuffer da(a.size() * sizeof(rt::fp16)), db(b.size() * sizeof(rt::fp16));
    rt::DeviceBuffer dc(c.size() * sizeof(float));
    da.copyFromHost(a);
    db.copyFromHost(b);
    dc.copyFromHost(c);

    rt::Kernel kernel = tilec::matmul_kernel_autotune_kernel();
    std::vector<rt::Arg> args = {da.as<rt::fp16>(), db.as<rt::fp16>(), dc.as<float>(), M, N, K,
                                 K, 1, N, 1, ldc, 1};
    std::string before = kernel.chosenEntry(args);
    if (expectCached && before.empty()) {
      const char *dir = std::getenv("TILEC_CACHE_DIR");
      std::printf("consumer_matmul: FAILED: no cached choice before the first launch "
                  "(TILEC_CACHE_DIR=%s)\n", dir ? dir : "");
      return 1;
    }
    // As Triton's grid = lambda META: (cdiv(M, META['BLOCK_M']) * cdiv(N, META['BLOCK_N']),)
    auto grid = [&](const rt::KernelInfo &k) {
      int64_t bm = k.intConstexpr("BLOCK_M"), bn = k.intConstexpr("BLOCK_N");
      return rt::Grid{static_cast<unsigned>(((M + bm - 1) / bm) * ((N + bn - 1) / bn))};
    };
    tilec::matmul_kernel_autotune(nullptr, grid, da.as<rt::fp16>(), db.as<rt::fp16>(),
                                  dc.as<float>(), M, N, K, K, 1, N, 1, ldc, 1);
    rt::synchronize();
    dc.copyToHost(c);

    // The products are exact in fp32; only the order and rounding of the sums differ, by at most
    // K * 2^-24 of the sum of the products' magnitudes (whatever the order).
    size_t wrong = 0, guardWrites = 0;
    double maxError = 0;
    for (int i = 0; i < M; ++i) {
      for (int j = 0; j < N; ++j) {
        double sum = 0, magnitude = 0;
        for (int p = 0; p < K; ++p) {
          double product = double(ak[size_t(i) * K + p]) * double(bk[size_t(p) * N + j]);
          sum += product;
          magnitude += std::fabs(product);
        }
        sum /= 1024.0 * 1024.0;
        magnitude /= 1024.0 * 1024.0;
        double error = std::fabs(double(c[size_t(i) * ldc + j]) - sum);
        if (!(error <= 1e-6 + K * 0x1p-24 * magnitude)) // also catches NaN
          ++wrong;
        if (!(error <= maxError))
          maxError = error;
      }
      for (int j = N; j < ldc; ++j)
        guardWrites += std::memcmp(&c[size_t(i) * ldc + j], &sentinelBits, 4) != 0;
    }
    for (size_t i = size_t(M) * ldc; i < c.size(); ++i)
      guardWrites += std::memcmp(&c[i], &sentinelBits, 4) != 0;

    std::string chosen = kernel.chosenEntry(args);
    bool ok = wrong == 0 && guardWrites == 0 && !chosen.empty() &&
              (before.empty() || before == chosen);
    std::printf("consumer_matmul: M=%d N=%d K=%d fp16->fp32 variants=%zu chosen=%s%s "
                "max_abs_err=%g wrong=%zu guard_writes=%zu %s\n",
                M, N, K, kernel.info().Variants.size(), chosen.c_str(),
                before.empty() ? " (tuned now)" : " (from the cache)", maxError, wrong,
                guardWrites, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
  } catch (const std::exception &error) {
    std::printf("consumer_matmul: FAILED: %s\n", error.what());
    return 1;
  }
}
