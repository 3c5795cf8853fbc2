// Every kernel of the seed documents that the samples hold (beyond SamplesTest.cpp's), compiled by
// tilec and run on the interpreter against references written here in plain C++, on shapes that
// are not multiples of the block sizes. Where a seed has a bug, its version (the sample with the
// fix undone) must fail: wrong numbers, an out-of-bounds access, or a compile error.
#include "SeedKernelTestUtil.h"

#include <cstdint>
#include <cstring>

using namespace tilec::seedtest;
using tilec::interp::HostBuffer;
using tilec::interp::InterpError;
using tilec::interp::KernelArg;
using tilec::tir::DType;
using tilec::tir::ScalarKind;

namespace {

/// C = A @ B for row-major A [m, k] and B [k, n], in double; `round` is applied to the inputs.
std::vector<double> matmulReference(const HostBuffer &a, const HostBuffer &b, int64_t m, int64_t n,
                                    int64_t k, double (*round)(double) = nullptr) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      double x = a.getDouble(i * k + p);
      if (round)
        x = round(x);
      for (int64_t j = 0; j < n; ++j) {
        double y = b.getDouble(p * n + j);
        c[i * n + j] += x * (round ? round(y) : y);
      }
    }
  return c;
}

/// tf32 as the tensor cores see an fp32 value: 10 mantissa bits, to nearest, ties away from zero.
/// Written independently of the interpreter's: through frexp/ldexp.
double toTF32(double x) {
  if (x == 0 || !std::isfinite(x))
    return x;
  int exponent;
  double mantissa = std::frexp(x, &exponent); // |mantissa| in [0.5, 1): 11 significant bits
  double scaled = std::ldexp(mantissa, 11);
  double rounded = std::trunc(scaled + (scaled > 0 ? 0.5 : -0.5));
  return std::ldexp(rounded, exponent - 11);
}

/// Runs a 2-D GEMM kernel with the seeds' parameter order (a, b, c, m, n, k, the six strides)
/// on row-major matrices.
void runGemm(const tilec::tir::Function &kernel, HostBuffer &a, HostBuffer &b, HostBuffer &c,
             int64_t m, int64_t n, int64_t k, unsigned gx, unsigned gy) {
  launch(kernel,
         {KernelArg::pointer(a), KernelArg::pointer(b), KernelArg::pointer(c),
          KernelArg::integer(m), KernelArg::integer(n), KernelArg::integer(k),
          KernelArg::integer(k), KernelArg::integer(1), KernelArg::integer(n),
          KernelArg::integer(1), KernelArg::integer(n), KernelArg::integer(1)},
         gx, gy);
}

/// Whether a GEMM kernel computes A @ B: false on wrong numbers or a failed run.
bool gemmMatches(const tilec::tir::Function &kernel, int64_t m, int64_t n, int64_t k, unsigned gx,
                 unsigned gy, DType type = f32) {
  HostBuffer a(type, m * k), b(type, k * n), c(type, m * n);
  a.fillRandom(11);
  b.fillRandom(12);
  try {
    runGemm(kernel, a, b, c, m, n, k, gx, gy);
  } catch (const InterpError &e) {
    UNSCOPED_INFO("run failed: " << e.what());
    return false;
  }
  double w = worst(c, matmulReference(a, b, m, n, k), 1e-5, 1e-5);
  UNSCOPED_INFO("worst error ratio " << w);
  return w <= 1;
}

const std::string gemmSignature = "*fp32,*fp32,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32";

} // namespace

//===----------------------------------------------------------------------===//
// seeds/000
//===----------------------------------------------------------------------===//

TEST_CASE("seed 000 matmul_kernel: masked K loop, and the seed's swapped store mask fails",
          "[seeds]") {
  const int64_t m = 70, n = 45, k = 53; // not square, not multiples of 32 x 32 x 16
  auto module = compile(samplePath("matmul"), "matmul_kernel", gemmSignature + ",32,32,16");
  CHECK(gemmMatches(*module->functions.at(0), m, n, k, cdiv(m, 32), cdiv(n, 32)));

  std::string buggy = patchedCopy(
      samplePath("matmul"), "mask_C = (off_n[None, :] < n) & (off_m[:, None] < m)",
      "mask_C = (off_n[None, :] < m) & (off_m[:, None] < n)", "seed_matmul_swapped_mask.tl");
  auto seed = compile(buggy, "matmul_kernel", gemmSignature + ",32,32,16");
  CHECK_FALSE(gemmMatches(*seed->functions.at(0), m, n, k, cdiv(m, 32), cdiv(n, 32)));
  // On a square matrix the swap goes unnoticed: that is how the seed got away with it.
  CHECK(gemmMatches(*seed->functions.at(0), 40, 40, k, cdiv(40, 32), cdiv(40, 32)));
}

TEST_CASE("seed 000 grouped_matmul_kernel: tl.swizzle2d over tl.num_programs", "[seeds]") {
  const int64_t m = 150, n = 77, k = 40;
  auto module =
      compile(samplePath("matmul"), "grouped_matmul_kernel", gemmSignature + ",16,16,16,4");
  CHECK(gemmMatches(*module->functions.at(0), m, n, k, cdiv(m, 16), cdiv(n, 16)));

  // The seed's kernel uses group_sz without declaring it.
  std::string buggy =
      patchedCopy(samplePath("matmul"),
                  "    group_sz: tl.constexpr\n):", "):", "seed_grouped_matmul_no_group_sz.tl");
  std::string error;
  CHECK_FALSE(tryCompile(buggy, "grouped_matmul_kernel", gemmSignature + ",16,16,16", error));
  CHECK_THAT(error, Catch::Contains("undefined name 'group_sz'"));
}

namespace {

/// matmul_kernel1: A [batch, M, K] @ B [K, N] + bias [N]; matmul_kernel2: A [M, K] @
/// B [batch, K, N] + bias [batch]. Returns whether the kernel matches.
bool batchedMatches(const std::string &path, bool batchedA, bool addBias) {
  const int64_t batch = 3, m = 37, n = 29, k = 41;
  std::string signature = std::string("*fp32,*fp32,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32,") +
                          "i32,i32," + (addBias ? "*fp32,True" : "None,False") +
                          ",None,False,16,16,16,4";
  auto module = compile(path, batchedA ? "matmul_kernel1" : "matmul_kernel2", signature);
  HostBuffer a(f32, (batchedA ? batch : 1) * m * k), b(f32, (batchedA ? 1 : batch) * k * n),
      c(f32, batch * m * n), bias(f32, batchedA ? n : batch);
  a.fillRandom(21);
  b.fillRandom(22);
  bias.fillRandom(23);
  std::vector<KernelArg> args = {KernelArg::pointer(a), KernelArg::pointer(b),
                                 KernelArg::pointer(c), KernelArg::integer(m),
                                 KernelArg::integer(n), KernelArg::integer(k)};
  std::vector<int64_t> strides = batchedA ? std::vector<int64_t>{m * k, k, 1, n, 1, m * n, n, 1}
                                          : std::vector<int64_t>{k, 1, k * n, n, 1, m * n, n, 1};
  for (int64_t s : strides)
    args.push_back(KernelArg::integer(s));
  if (addBias)
    args.push_back(KernelArg::pointer(bias));
  try {
    launch(*module->functions.at(0), args, batch, cdiv(m, 16), cdiv(n, 16));
  } catch (const InterpError &e) {
    UNSCOPED_INFO("run failed: " << e.what());
    return false;
  }
  std::vector<double> want(batch * m * n, 0.0);
  for (int64_t z = 0; z < batch; ++z)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum += a.getDouble((batchedA ? z * m * k : 0) + i * k + p) *
                 b.getDouble((batchedA ? 0 : z * k * n) + p * n + j);
        if (addBias)
          sum += bias.getDouble(batchedA ? j : z);
        want[(z * m + i) * n + j] = sum;
      }
  double w = worst(c, want, 1e-5, 1e-5);
  UNSCOPED_INFO("worst error ratio " << w);
  return w <= 1;
}

} // namespace

TEST_CASE("seed 000 batched GEMMs: batch strides, constexpr add_bias, broadcast bias", "[seeds]") {
  const std::string path = samplePath("batched_matmul");
  CHECK(batchedMatches(path, true, true));
  CHECK(batchedMatches(path, true, false));
  CHECK(batchedMatches(path, false, true));
  CHECK(batchedMatches(path, false, false));

  // The seed's prose offsets the batch by batch_idx + batch_stride.
  CHECK_FALSE(batchedMatches(patchedCopy(path, "A_offset_batch = batch_idx * A_stride_batch",
                                         "A_offset_batch = batch_idx + A_stride_batch",
                                         "seed_batched_offset1.tl"),
                             true, true));
  CHECK_FALSE(batchedMatches(patchedCopy(path, "B_offset_batch = batch_idx * B_stride_batch",
                                         "B_offset_batch = batch_idx + B_stride_batch",
                                         "seed_batched_offset2.tl"),
                             false, true));
}

TEST_CASE("seed 000 transpose_kernel: tl.trans, and the stride trick", "[seeds]") {
  const int64_t m = 50, n = 37;
  HostBuffer x(f16, m * n);
  x.fillRandom(31);
  for (const char *name : {"transpose", "transpose_strides"}) {
    INFO(name);
    // bm and bn keep their defaults (16).
    auto module =
        compile(samplePath(name), "transpose_kernel", "*fp16,*fp16,i32,i32,i32,i32,i32,i32");
    HostBuffer y(f16, n * m);
    launch(*module->functions.at(0),
           {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(m),
            KernelArg::integer(n), KernelArg::integer(n), KernelArg::integer(1),
            KernelArg::integer(m), KernelArg::integer(1)},
           cdiv(m, 16), cdiv(n, 16));
    std::vector<double> want(n * m);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        want[j * m + i] = x.getDouble(i * n + j);
    CHECK(worst(y, want, 0, 0) <= 1);
  }
}

TEST_CASE("seed 000 conv2d_kernel: run-time loops, tl.sum into a scalar, scalar stores",
          "[seeds]") {
  const int64_t batch = 2, cin = 3, cout = 4, h = 9, w = 10, kh = 3, kw = 2;
  const int64_t hout = h / kh, wout = w / kw;
  const std::string signature = "*fp32,i32,i32,i32,i32,i32,i32,i32,*fp32,i32,i32,i32,i32,i32,i32,"
                                "*fp32,*fp32,i32,i32,i32,i32,i32,4,2"; // next_power_of_2(3), (2)
  HostBuffer input(f32, batch * cin * h * w), kernel(f32, cout * cin * kh * kw), bias(f32, cout),
      output(f32, batch * cout * hout * wout);
  input.fillRandom(41);
  kernel.fillRandom(42);
  bias.fillRandom(43);
  auto module = compile(samplePath("conv2d"), "conv2d_kernel", signature);
  launch(*module->functions.at(0),
         {KernelArg::pointer(input),
          KernelArg::integer(cin * h * w),
          KernelArg::integer(h * w),
          KernelArg::integer(w),
          KernelArg::integer(1),
          KernelArg::integer(h),
          KernelArg::integer(w),
          KernelArg::integer(cin),
          KernelArg::pointer(kernel),
          KernelArg::integer(kh),
          KernelArg::integer(kw),
          KernelArg::integer(cin * kh * kw),
          KernelArg::integer(kh * kw),
          KernelArg::integer(kw),
          KernelArg::integer(1),
          KernelArg::pointer(bias),
          KernelArg::pointer(output),
          KernelArg::integer(wout),
          KernelArg::integer(cout * hout * wout),
          KernelArg::integer(hout * wout),
          KernelArg::integer(wout),
          KernelArg::integer(1)},
         batch, cout, hout);
  std::vector<double> want(batch * cout * hout * wout);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t o = 0; o < cout; ++o)
      for (int64_t r = 0; r < hout; ++r)
        for (int64_t col = 0; col < wout; ++col) {
          double sum = bias.getDouble(o);
          for (int64_t c = 0; c < cin; ++c)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j)
                sum += input.getDouble(((b * cin + c) * h + r * kh + i) * w + col * kw + j) *
                       kernel.getDouble(((o * cin + c) * kh + i) * kw + j);
          want[((b * cout + o) * hout + r) * wout + col] = sum;
        }
  CHECK(worst(output, want, 1e-5, 1e-5) <= 1);

  // The seed takes BLOCK_SIZE_ROW input columns: with a 3 x 2 kernel the tiles do not match.
  std::string buggy =
      patchedCopy(samplePath("conv2d"),
                  "input_col_offset = col_idx * kernel_width + tl.arange(0, BLOCK_SIZE_COL)",
                  "input_col_offset = col_idx * kernel_width + tl.arange(0, BLOCK_SIZE_ROW)",
                  "seed_conv2d_block_cols.tl");
  std::string error;
  CHECK_FALSE(tryCompile(buggy, "conv2d_kernel", signature, error));
  CHECK_THAT(error, Catch::Contains("broadcast"));
}

namespace {

/// Runs the int4 matmul with SPLIT_K programs along K; returns whether C = A @ dequant(B).
bool int4MatmulMatches(const std::string &path, int splitK) {
  const int64_t m = 45, n = 70, k = 200, groupSize = 32;
  const int64_t kPacked = (k + 7) / 8, groups = (k + groupSize - 1) / groupSize,
                nPacked = (n + 7) / 8;
  auto module = compile(path, "int4_matmul_kernel",
                        "*fp16,*i32,*fp32,*fp16,*i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,"
                        "i32,i32,i32,32,32,32," +
                            std::to_string(splitK) + ",2");
  HostBuffer a(f16, m * k), b(i32, kPacked * n), c(f32, m * n), scales(f16, groups * n),
      zeros(i32, groups * nPacked);
  a.fillRandom(51);
  scales.fillRandom(52);
  // 4-bit weights and zero points, packed eight to an int32.
  std::vector<int> q(k * n), z(groups * n);
  uint64_t state = 12345;
  auto next4 = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>(state >> 60);
  };
  for (int &v : q)
    v = next4();
  for (int &v : z)
    v = next4();
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j)
      b.setInt(p / 8 * n + j,
               static_cast<int32_t>(static_cast<uint32_t>(b.getInt(p / 8 * n + j)) |
                                    (static_cast<uint32_t>(q[p * n + j]) << (4 * (p % 8)))));
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t j = 0; j < n; ++j)
      zeros.setInt(g * nPacked + j / 8,
                   static_cast<int32_t>(static_cast<uint32_t>(zeros.getInt(g * nPacked + j / 8)) |
                                        (static_cast<uint32_t>(z[g * n + j]) << (4 * (j % 8)))));
  try {
    launch(*module->functions.at(0),
           {KernelArg::pointer(a), KernelArg::pointer(b), KernelArg::pointer(c),
            KernelArg::pointer(scales), KernelArg::pointer(zeros), KernelArg::integer(m),
            KernelArg::integer(n), KernelArg::integer(k), KernelArg::integer(k),
            KernelArg::integer(1), KernelArg::integer(n), KernelArg::integer(1),
            KernelArg::integer(n), KernelArg::integer(1), KernelArg::integer(n),
            KernelArg::integer(1), KernelArg::integer(nPacked), KernelArg::integer(1),
            KernelArg::integer(groupSize)},
           cdiv(m, 32) * cdiv(n, 32), splitK);
  } catch (const InterpError &e) {
    UNSCOPED_INFO("run failed: " << e.what());
    return false;
  }
  // The dequantized weight is rounded to fp16, as the kernel's fp16 multiply does.
  HostBuffer w(f16, k * n);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j)
      w.setDouble(p * n + j, (q[p * n + j] - z[p / groupSize * n + j]) *
                                 scales.getDouble(p / groupSize * n + j));
  double worstRatio = worst(c, matmulReference(a, w, m, n, k), 1e-4, 1e-4);
  UNSCOPED_INFO("worst error ratio " << worstRatio);
  return worstRatio <= 1;
}

} // namespace

TEST_CASE("seed 000 low-bit matmul: int4 unpacking, per-group scales and zeros, split-K",
          "[seeds]") {
  const std::string path = samplePath("lowbit_matmul");
  CHECK(int4MatmulMatches(path, 1));
  CHECK(int4MatmulMatches(path, 2));
  CHECK(int4MatmulMatches(path, 3));
  // The seed's warning: with split-K, a plain store keeps one program's partial sum only.
  std::string stored = patchedCopy(path, "tl.atomic_add(c_ptrs, acc, mask=c_mask)",
                                   "tl.store(c_ptrs, acc, mask=c_mask)", "seed_lowbit_store.tl");
  CHECK(int4MatmulMatches(stored, 1));
  CHECK_FALSE(int4MatmulMatches(stored, 2));
}

//===----------------------------------------------------------------------===//
// seeds/001
//===----------------------------------------------------------------------===//

TEST_CASE("seed 001 naive_matmul_k and grouped_matmul_k: keyword-argument helpers, and the "
          "unmasked loads fail",
          "[seeds]") {
  const int64_t m = 70, n = 45, k = 53;
  const std::string path = samplePath("grouped_matmul");
  auto naive = compile(path, "naive_matmul_k", gemmSignature + ",32,32,16");
  CHECK(gemmMatches(*naive->functions.at(0), m, n, k, cdiv(m, 32), cdiv(n, 32)));
  auto grouped = compile(path, "grouped_matmul_k", gemmSignature + ",16,16,16,3");
  CHECK(gemmMatches(*grouped->functions.at(0), m, n, k, cdiv(m, 16), cdiv(n, 16)));

  // The seed loads without masks ("todo umer: don't we need mask..."): past the last block of a
  // and b the interpreter reports the out-of-bounds access.
  std::string fixed =
      "        a = tl.load(offs_a, mask=get_2d_mask(rm, k_start + rk, m, k), other=0.0)\n"
      "        b = tl.load(offs_b, mask=get_2d_mask(k_start + rk, rn, k, n), other=0.0)\n";
  std::string seed = "        a = tl.load(offs_a)\n        b = tl.load(offs_b)\n";
  auto buggy = compile(patchedCopy(path, fixed, seed, "seed_naive_matmul_unmasked.tl"),
                       "naive_matmul_k", gemmSignature + ",32,32,16");
  HostBuffer a(f32, m * k), b(f32, k * n), c(f32, m * n);
  CHECK_THROWS_WITH(runGemm(*buggy->functions.at(0), a, b, c, m, n, k, cdiv(m, 32), cdiv(n, 32)),
                    Catch::Contains("out-of-bounds load"));
  // With multiples of the block sizes the seed's version is right.
  CHECK(gemmMatches(*buggy->functions.at(0), 64, 64, 32, 2, 2));
}

TEST_CASE("seed 001 swizzle_k: tl.swizzle2d on a 5 x 4 grid", "[seeds]") {
  const int64_t bm = 5, bn = 4, group = 3;
  auto module = compile(samplePath("grouped_matmul"), "swizzle_k", "*i64,*i64,3");
  HostBuffer x(i64, bm * bn), z(i64, bm * bn);
  x.fillRange();
  z.fill(-1);
  launch(*module->functions.at(0), {KernelArg::pointer(x), KernelArg::pointer(z)}, bm, bn);
  // Triton's swizzle2d, computed here: column-major order within groups of `group` rows.
  std::vector<double> want(bm * bn);
  for (int64_t i = 0; i < bm; ++i)
    for (int64_t j = 0; j < bn; ++j) {
      int64_t ij = i * bn + j, sizeGj = group * bn, groupId = ij / sizeGj, offI = groupId * group;
      int64_t sizeG = std::min(bm - offI, group);
      int64_t newI = offI + (ij % sizeGj) % sizeG, newJ = (ij % sizeGj) / sizeG;
      want[newI * bn + newJ] = static_cast<double>(ij);
    }
  CHECK(worst(z, want, 0, 0) <= 1);
  // The seed's picture: 0 3 6 9 / 1 4 7 10 / 2 5 8 11 / 12 14 16 18 / 13 15 17 19.
  CHECK(z.getInt(1) == 3);
  CHECK(z.getInt(4) == 1);
  CHECK(z.getInt(13) == 14);
}

TEST_CASE("seed 001 grouped_autotuned_matmul_k: every @triton.autotune config", "[seeds]") {
  const int64_t m = 150, n = 130, k = 70;
  auto module = compile(samplePath("grouped_matmul"), "grouped_autotuned_matmul_k", gemmSignature);
  REQUIRE(module->functions.size() == 8);
  for (const auto &variant : module->functions) {
    INFO(variant->name());
    int64_t bm = constexprValue(*variant, "bm"), bn = constexprValue(*variant, "bn");
    CHECK(gemmMatches(*variant, m, n, k, cdiv(m, bm), cdiv(n, bn)));
  }
}

//===----------------------------------------------------------------------===//
// seeds/004
//===----------------------------------------------------------------------===//

TEST_CASE("seed 004 concepts_demo, kernel_2d and kernel_with_autotune", "[seeds]") {
  const std::string path = samplePath("concepts");
  const int64_t n = 3000;
  HostBuffer data(f32, n);
  data.fillRandom(61);
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i)
    want[i] = std::max(std::exp(static_cast<float>(data.getDouble(i)) * 2.0f + 1.0f), 0.0f);
  auto demo = compile(path, "concepts_demo", "*fp32,i32,1024");
  launch(*demo->functions.at(0), {KernelArg::pointer(data), KernelArg::integer(n)}, cdiv(n, 1024));
  CHECK(worst(data, want, 0, 1e-6) <= 1);

  // kernel_2d only loads (the seed stops there): it must stay inside the buffer.
  const int64_t rows = 50, cols = 70;
  HostBuffer matrix(f32, rows * cols);
  auto twoD = compile(path, "kernel_2d", "*fp32,i32,i32,32,64");
  CHECK_NOTHROW(
      launch(*twoD->functions.at(0),
             {KernelArg::pointer(matrix), KernelArg::integer(rows), KernelArg::integer(cols)},
             cdiv(rows, 32), cdiv(cols, 64)));

  auto tuned = compile(path, "kernel_with_autotune", "*fp32,*fp32,i32");
  REQUIRE(tuned->functions.size() == 5);
  HostBuffer x(f32, n);
  x.fillRandom(62);
  for (const auto &variant : tuned->functions) {
    INFO(variant->name());
    HostBuffer y(f32, n);
    launch(*variant, {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(n)},
           cdiv(n, constexprValue(*variant, "BLOCK_SIZE")));
    std::vector<double> twice(n);
    for (int64_t i = 0; i < n; ++i)
      twice[i] = 2 * x.getDouble(i);
    CHECK(worst(y, twice, 0, 0) <= 1);
  }
}

TEST_CASE("seed 004 matmul_kernel: fp16 exactly, fp32 through tf32 by default", "[seeds]") {
  const int64_t m = 70, n = 45, k = 53;
  const std::string path = samplePath("tiled_matmul");
  auto half = compile(path, "matmul_kernel",
                      "*fp16,*fp16,*fp16,i32,i32,i32,i32,i32,i32,i32,i32,i32,32,32,16");
  {
    HostBuffer a(f16, m * k), b(f16, k * n), c(f16, m * n);
    a.fillRandom(71);
    b.fillRandom(72);
    runGemm(*half->functions.at(0), a, b, c, m, n, k, cdiv(m, 32), cdiv(n, 32));
    // fp32 accumulation, one rounding to fp16 at the store.
    CHECK(worst(c, matmulReference(a, b, m, n, k), 1e-3, 1e-3) <= 1);
  }
  // fp32 inputs with the default input_precision: the products are of tf32-rounded inputs.
  auto single = compile(path, "matmul_kernel", gemmSignature + ",32,32,16");
  HostBuffer a(f32, m * k), b(f32, k * n), c(f32, m * n);
  a.fillRandom(73);
  b.fillRandom(74);
  runGemm(*single->functions.at(0), a, b, c, m, n, k, cdiv(m, 32), cdiv(n, 32));
  CHECK(worst(c, matmulReference(a, b, m, n, k, toTF32), 1e-5, 1e-5) <= 1);
  CHECK(worst(c, matmulReference(a, b, m, n, k), 1e-5, 1e-5) > 1); // not IEEE fp32
}

TEST_CASE("seed 004 matmul_kernel_autotune: min() of run-time scalars, every config", "[seeds]") {
  const int64_t m = 150, n = 130, k = 70;
  auto module = compile(samplePath("tiled_matmul"), "matmul_kernel_autotune",
                        "*fp16,*fp16,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32");
  REQUIRE(module->functions.size() == 8);
  HostBuffer a(f16, m * k), b(f16, k * n);
  a.fillRandom(81);
  b.fillRandom(82);
  std::vector<double> want = matmulReference(a, b, m, n, k);
  for (const auto &variant : module->functions) {
    INFO(variant->name());
    HostBuffer c(f32, m * n);
    unsigned programs =
        cdiv(m, constexprValue(*variant, "BLOCK_M")) * cdiv(n, constexprValue(*variant, "BLOCK_N"));
    runGemm(*variant, a, b, c, m, n, k, programs, 1);
    CHECK(worst(c, want, 1e-5, 1e-5) <= 1);
  }
}

namespace {

/// Runs flash_attention_kernel on [batch, heads, len, dim] fp16 tensors; returns whether Out and
/// the log-sum-exp match softmax(Q K^T * scale) V.
bool flashAttentionMatches(const std::string &path) {
  const int64_t batch = 2, heads = 3, lenQ = 50, lenK = 37, dim = 24;
  const int64_t blockM = 16, blockN = 16, blockK = 32;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
  auto module = compile(path, "flash_attention_kernel",
                        "*fp16,*fp16,*fp16,*fp16,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,"
                        "i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,i32,fp32," +
                            std::to_string(blockM) + "," + std::to_string(blockN) + "," +
                            std::to_string(blockK));
  HostBuffer q(f16, batch * heads * lenQ * dim), k(f16, batch * heads * lenK * dim),
      v(f16, batch * heads * lenK * dim), out(f16, batch * heads * lenQ * dim),
      lse(f32, batch * heads * lenQ);
  q.fillRandom(91);
  k.fillRandom(92);
  v.fillRandom(93);
  std::vector<KernelArg> args = {KernelArg::pointer(q), KernelArg::pointer(k),
                                 KernelArg::pointer(v), KernelArg::pointer(out),
                                 KernelArg::pointer(lse)};
  for (int64_t len : {lenQ, lenK, lenK, lenQ})
    for (int64_t s : {heads * len * dim, len * dim, dim, int64_t{1}})
      args.push_back(KernelArg::integer(s));
  for (int64_t s : {heads * lenQ, lenQ, int64_t{1}})
    args.push_back(KernelArg::integer(s));
  for (int64_t d : {batch, heads, lenQ, lenK, dim})
    args.push_back(KernelArg::integer(d));
  args.push_back(KernelArg::floating(scale));
  launch(*module->functions.at(0), args, cdiv(lenQ, blockM), heads, batch);

  std::vector<double> wantOut(out.size()), wantLse(lse.size());
  for (int64_t bh = 0; bh < batch * heads; ++bh)
    for (int64_t i = 0; i < lenQ; ++i) {
      std::vector<double> s(lenK);
      double mx = -INFINITY;
      for (int64_t j = 0; j < lenK; ++j) {
        double dotQK = 0;
        for (int64_t d = 0; d < dim; ++d)
          dotQK += q.getDouble((bh * lenQ + i) * dim + d) * k.getDouble((bh * lenK + j) * dim + d);
        s[j] = dotQK * scale;
        mx = std::max(mx, s[j]);
      }
      double sum = 0;
      for (double &x : s)
        sum += (x = std::exp(x - mx));
      for (int64_t d = 0; d < dim; ++d) {
        double o = 0;
        for (int64_t j = 0; j < lenK; ++j)
          o += s[j] * v.getDouble((bh * lenK + j) * dim + d);
        wantOut[(bh * lenQ + i) * dim + d] = o / sum;
      }
      wantLse[bh * lenQ + i] = mx + std::log(sum);
    }
  // P is rounded to fp16 before P @ V and Out is fp16: about 1e-3 relative.
  double wOut = worst(out, wantOut, 2e-3, 1e-2), wLse = worst(lse, wantLse, 1e-4, 1e-4);
  UNSCOPED_INFO("worst error ratios: out " << wOut << ", lse " << wLse);
  return wOut <= 1 && wLse <= 1;
}

} // namespace

TEST_CASE("seed 004 flash_attention_kernel: dot with trans(k), p.to(fp16), 3-D grid", "[seeds]") {
  const std::string path = samplePath("flash_attention");
  CHECK(flashAttentionMatches(path));
  // The seed lets keys past N into the softmax with score 0.
  std::string buggy =
      patchedCopy(path, "        s = tl.where(offs_n[None, :] < N, s, float('-inf'))\n", "\n",
                  "seed_flash_attention_unmasked.tl");
  CHECK_FALSE(flashAttentionMatches(buggy));
}
