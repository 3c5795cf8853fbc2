// tl.rand & co. (stdlib/random.tl on tl.umulhi) and block pointers (tl.make_block_ptr, tl.advance,
// boundary_check, padding_option), compiled from kernels/random.tl and kernels/block_ptr.tl and run
// on the interpreter against references written here: a Philox that is checked first against the
// published known-answer vectors, and plain loops for the block-pointer kernels.
#include "SeedKernelTestUtil.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace tilec;
using namespace tilec::seedtest;
using interp::HostBuffer;
using interp::KernelArg;
using tir::DType;
using tir::ScalarKind;

namespace {

std::string kernelPath(const std::string &name) {
  return std::string(TILEC_LANGUAGE_KERNELS_DIR) + "/" + name + ".tl";
}

// --- An independent Philox (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3") ------

struct Words4 {
  uint64_t w[4];
};

/// Philox-4xW-R with W = 32 or 64 bits: the counter c under the key (k0, k1).
Words4 philox(unsigned width, Words4 c, uint64_t k0, uint64_t k1, int rounds = 10) {
  const bool wide = width == 64;
  const uint64_t mask = wide ? ~uint64_t(0) : 0xFFFFFFFFull;
  const uint64_t mulA = wide ? 0xD2E7470EE14C6C93ull : 0xD2511F53ull;
  const uint64_t mulB = wide ? 0xCA5A826395121157ull : 0xCD9E8D57ull;
  const uint64_t weylA = wide ? 0x9E3779B97F4A7C15ull : 0x9E3779B9ull;
  const uint64_t weylB = wide ? 0xBB67AE8584CAA73Bull : 0xBB67AE85ull;
  for (int r = 0; r < rounds; ++r) {
    unsigned __int128 pa = static_cast<unsigned __int128>(mulA) * c.w[0];
    unsigned __int128 pb = static_cast<unsigned __int128>(mulB) * c.w[2];
    uint64_t hiA = static_cast<uint64_t>(pa >> width) & mask,
             loA = static_cast<uint64_t>(pa) & mask;
    uint64_t hiB = static_cast<uint64_t>(pb >> width) & mask,
             loB = static_cast<uint64_t>(pb) & mask;
    c = {{hiB ^ c.w[1] ^ k0, loB, hiA ^ c.w[3] ^ k1, loA}};
    k0 = (k0 + weylA) & mask;
    k1 = (k1 + weylB) & mask;
  }
  return c;
}

/// Triton's keying of Philox-4x32 by a seed: the seed as a uint64 (sign-extended), low word
/// first.
Words4 philox32(int64_t seed, uint32_t offset) {
  uint64_t s = static_cast<uint64_t>(seed);
  return philox(32, {{offset, 0, 0, 0}}, s & 0xFFFFFFFFu, s >> 32);
}

float toUniform(uint32_t bits) {
  int32_t x;
  std::memcpy(&x, &bits, 4);
  if (x < 0)
    x = ~x; // -x - 1 without overflow
  return static_cast<float>(x) * 4.6566127342e-10f;
}

} // namespace

TEST_CASE("the reference Philox gives the published known answers", "[random]") {
  // Random123's kat_vectors for philox4x32_10 and philox4x64_10.
  Words4 zero = philox(32, {{0, 0, 0, 0}}, 0, 0);
  CHECK(zero.w[0] == 0x6627e8d5u);
  CHECK(zero.w[1] == 0xe169c58du);
  CHECK(zero.w[2] == 0xbc57ac4cu);
  CHECK(zero.w[3] == 0x9b00dbd8u);
  Words4 pi =
      philox(32, {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}}, 0xa4093822, 0x299f31d0);
  CHECK(pi.w[0] == 0xd16cfe09u);
  CHECK(pi.w[3] == 0x24126ea1u);
  Words4 wide = philox(64, {{0, 0, 0, 0}}, 0, 0);
  CHECK(wide.w[0] == 0x16554d9eca36314cull);
  CHECK(wide.w[3] == 0x7e68b68aec7ba23bull);
}

TEST_CASE("tl.randint4x gives Philox-4x32-10's four words, keyed like Triton", "[random]") {
  auto module = compile(kernelPath("random"), "philox_streams", "*i32,i32,i32,64");
  const int64_t n = 150;
  for (int64_t seed : {int64_t(42), int64_t(-7), int64_t(0x7fffffff)}) {
    HostBuffer out(i32, 4 * n);
    launch(*module->functions.at(0),
           {KernelArg::pointer(out), KernelArg::integer(seed), KernelArg::integer(n)}, cdiv(n, 64));
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      Words4 want = philox32(seed, static_cast<uint32_t>(i));
      for (int k = 0; k < 4; ++k)
        wrong += static_cast<uint32_t>(out.getInt(k * n + i)) != static_cast<uint32_t>(want.w[k]);
    }
    INFO("seed " << seed);
    CHECK(wrong == 0);
  }
}

TEST_CASE("tl.randint on 2-D offsets with a 64-bit seed", "[random]") {
  auto module = compile(kernelPath("random"), "philox_grid", "*u32,i64,i32,i32,8,16");
  const int64_t m = 13, n = 37, seed = 0x123456789ll;
  HostBuffer out(u32, m * n);
  launch(*module->functions.at(0),
         {KernelArg::pointer(out), KernelArg::integer(seed), KernelArg::integer(m),
          KernelArg::integer(n)},
         cdiv(m, 8), cdiv(n, 16));
  int64_t wrong = 0;
  for (int64_t i = 0; i < m * n; ++i)
    wrong += static_cast<uint64_t>(out.getInt(i)) != philox32(seed, static_cast<uint32_t>(i)).w[0];
  CHECK(wrong == 0);
}

TEST_CASE("tl.randint on 64-bit offsets is Philox-4x32-10 on (low word, high word, 0, 0)",
          "[random]") {
  // Triton 3.6's randint4x always runs Philox-4x32: a 64-bit offset's high word is counter word 1.
  // tests/interp/random64_check.py checks the four streams, tl.rand and tl.randn as well.
  auto module = compile(kernelPath("random"), "wide_offsets", "*i32,i32,i32,64");
  const int64_t n = 150;
  for (int64_t seed : {int64_t(1234), int64_t(-3)}) {
    HostBuffer out(i32, n);
    launch(*module->functions.at(0),
           {KernelArg::pointer(out), KernelArg::integer(seed), KernelArg::integer(n)}, cdiv(n, 64));
    int wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      uint64_t offset = 4294967296ull + static_cast<uint64_t>(i);
      uint64_t s = static_cast<uint64_t>(seed);
      uint64_t want =
          philox(32, {{offset & 0xFFFFFFFFu, offset >> 32, 0, 0}}, s & 0xFFFFFFFFu, s >> 32).w[0];
      wrong += static_cast<uint32_t>(out.getInt(i)) != want;
    }
    INFO("seed " << seed);
    CHECK(wrong == 0);
  }
}

TEST_CASE("tl.philox on uint64 counters is Philox-4x64-10 keyed by the whole seed", "[random]") {
  // The one place Triton 3.6 runs the 64-bit variant: tl.philox called with 64-bit counter words,
  // keyed (seed as a uint64, 0).
  auto module = compile(kernelPath("random"), "philox64_streams", "*i64,i32,i64,i32,64");
  const int64_t n = 150, base = int64_t(1) << 40;
  for (int64_t seed : {int64_t(1234), int64_t(-3)}) {
    HostBuffer out(i64, 4 * n);
    launch(*module->functions.at(0),
           {KernelArg::pointer(out), KernelArg::integer(seed), KernelArg::integer(base),
            KernelArg::integer(n)},
           cdiv(n, 64));
    int wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      uint64_t c = static_cast<uint64_t>(i);
      Words4 want =
          philox(64, {{static_cast<uint64_t>(base) + c, c, ~c, 7}}, static_cast<uint64_t>(seed), 0);
      for (int k = 0; k < 4; ++k)
        wrong += static_cast<uint64_t>(out.getInt(k * n + i)) != want.w[k];
    }
    INFO("seed " << seed);
    CHECK(wrong == 0);
  }
}

TEST_CASE("tl.rand and tl.randn: Triton's uniform conversion and Box-Muller", "[random]") {
  auto module = compile(kernelPath("random"), "uniform_and_normal", "*fp32,*fp32,i32,i32,64");
  const int64_t n = 1000, seed = 1234;
  HostBuffer u(f32, n), z(f32, n);
  launch(*module->functions.at(0),
         {KernelArg::pointer(u), KernelArg::pointer(z), KernelArg::integer(seed),
          KernelArg::integer(n)},
         cdiv(n, 64));
  std::vector<double> wantU(n), wantZ(n);
  double mean = 0;
  for (int64_t i = 0; i < n; ++i) {
    Words4 r = philox32(seed, static_cast<uint32_t>(i));
    float u1 = toUniform(static_cast<uint32_t>(r.w[0]));
    float u2 = toUniform(static_cast<uint32_t>(r.w[1]));
    wantU[i] = u1;
    float radius = std::sqrt(-2.0f * std::log(std::max(1.0e-7f, u1)));
    wantZ[i] = radius * std::cos(6.283185307179586f * u2);
    mean += u.getDouble(i) / n;
    REQUIRE(u.getDouble(i) >= 0.0);
    REQUIRE(u.getDouble(i) < 1.0);
  }
  CHECK(worst(u, wantU, 0, 0) == 0); // the conversion is exact
  CHECK(worst(z, wantZ, 1e-6, 1e-5) <= 1);
  CHECK(std::fabs(mean - 0.5) < 0.05);
}

TEST_CASE("seeded dropout keeps an element where tl.rand(seed, offset) > p", "[random]") {
  auto module = compile(kernelPath("random"), "dropout", "*fp32,*fp32,i32,fp32,i32,64");
  const int64_t n = 500, seed = 99;
  const float p = 0.3f;
  HostBuffer x(f32, n), y(f32, n);
  for (int64_t i = 0; i < n; ++i)
    x.setDouble(i, 1.0 + i * 0.25);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(n),
          KernelArg::floating(p), KernelArg::integer(seed)},
         cdiv(n, 64));
  std::vector<double> want(n);
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool keep = toUniform(static_cast<uint32_t>(philox32(seed, uint32_t(i)).w[0])) > p;
    kept += keep;
    want[i] = keep ? static_cast<float>(x.getDouble(i)) / (1.0f - p) : 0.0;
  }
  CHECK(worst(y, want, 0, 1e-6) <= 1);
  CHECK(kept > n / 2);
  CHECK(kept < n * 9 / 10);
}

TEST_CASE("tl.umulhi: the high half of the unsigned product, 32 and 64 bits", "[random]") {
  auto module = compile(kernelPath("random"), "mulhi", "*i32,*i32,*i32,*i64,i32,64");
  const int64_t n = 100;
  HostBuffer a(i32, n), b(i32, n), hi32(i32, n), hi64(i64, n);
  for (int64_t i = 0; i < n; ++i) {
    a.setInt(i, static_cast<int32_t>(0x9E3779B9u * static_cast<uint32_t>(i + 1)));
    b.setInt(i, static_cast<int32_t>(0x85EBCA6Bu * static_cast<uint32_t>(i + 7)));
  }
  a.setInt(0, -1);
  b.setInt(0, -1);
  launch(*module->functions.at(0),
         {KernelArg::pointer(a), KernelArg::pointer(b), KernelArg::pointer(hi32),
          KernelArg::pointer(hi64), KernelArg::integer(n)},
         cdiv(n, 64));
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t x = static_cast<uint32_t>(a.getInt(i)), y = static_cast<uint32_t>(b.getInt(i));
    wrong += static_cast<uint32_t>(hi32.getInt(i)) != static_cast<uint32_t>((x * y) >> 32);
    // In 64 bits the operands are sign-extended first (a.to(tl.int64)), then read as unsigned.
    uint64_t sx = static_cast<uint64_t>(a.getInt(i)), sy = static_cast<uint64_t>(b.getInt(i) * 3);
    uint64_t want = static_cast<uint64_t>((static_cast<unsigned __int128>(sx) * sy) >> 64);
    wrong += static_cast<uint64_t>(hi64.getInt(i)) != want;
  }
  CHECK(hi32.getInt(0) == -2); // 0xffffffff * 0xffffffff = 0xfffffffe00000001
  CHECK(wrong == 0);
}

// --- Block pointers -------------------------------------------------------------------------

TEST_CASE("block pointers: a 2-D copy with boundary_check on shapes the blocks do not divide",
          "[block_ptr]") {
  auto module =
      compile(kernelPath("block_ptr"), "copy_2d", "*fp32,*fp32,i32,i32,i32,i32,i32,i32,16,32");
  const int64_t m = 37, n = 50, ldx = 64, ldy = 53;
  HostBuffer x(f32, m * ldx), y(f32, m * ldy);
  for (int64_t i = 0; i < m * ldx; ++i)
    x.setDouble(i, i % 1000);
  y.fill(-5);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(m),
          KernelArg::integer(n), KernelArg::integer(ldx), KernelArg::integer(1),
          KernelArg::integer(ldy), KernelArg::integer(1)},
         cdiv(m, 16), cdiv(n, 32));
  std::vector<double> want(m * ldy);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < ldy; ++c)
      want[r * ldy + c] = c < n ? x.getDouble(r * ldx + c) * 2 + 1 : -5; // padding untouched
  CHECK(worst(y, want, 0, 0) == 0);
}

TEST_CASE("block pointers: a transposed view through the strides", "[block_ptr]") {
  // y = x^T: the source block pointer walks x with swapped strides.
  auto module =
      compile(kernelPath("block_ptr"), "copy_2d", "*fp32,*fp32,i32,i32,i32,i32,i32,i32,8,16");
  const int64_t rows = 21, cols = 13; // x is rows x cols; y is cols x rows
  HostBuffer x(f32, rows * cols), y(f32, cols * rows);
  for (int64_t i = 0; i < rows * cols; ++i)
    x.setDouble(i, i);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(cols),
          KernelArg::integer(rows), KernelArg::integer(1), KernelArg::integer(cols),
          KernelArg::integer(rows), KernelArg::integer(1)},
         cdiv(cols, 8), cdiv(rows, 16));
  std::vector<double> want(cols * rows);
  for (int64_t r = 0; r < cols; ++r)
    for (int64_t c = 0; c < rows; ++c)
      want[r * rows + c] = x.getDouble(c * cols + r) * 2 + 1;
  CHECK(worst(y, want, 0, 0) == 0);
}

TEST_CASE("block pointers: padding_option zero and nan, negative offsets", "[block_ptr]") {
  auto module = compile(kernelPath("block_ptr"), "padding", "*fp32,*fp32,*fp32,i32,i32,8,8");
  // The block's corner is (-2, n - 4) of a 5 x 6 matrix: see paddingMismatches.
  CHECK(paddingMismatches(*module->functions.at(0)) == 0);
}

TEST_CASE("block pointers: tl.advance in a loop", "[block_ptr]") {
  auto module = compile(kernelPath("block_ptr"), "row_sums", "*fp32,*fp32,i32,i32,4,8");
  const int64_t m = 11, n = 29;
  HostBuffer x(f32, m * n), out(f32, m);
  for (int64_t i = 0; i < m * n; ++i)
    x.setDouble(i, (i % 17) - 8);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(out), KernelArg::integer(m),
          KernelArg::integer(n)},
         cdiv(m, 4));
  std::vector<double> want(m, 0.0);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c)
      want[r] += x.getDouble(r * n + c);
  CHECK(worst(out, want, 0, 0) == 0);
}

TEST_CASE("block pointers: the GEMM pattern (A and B advanced along K)", "[block_ptr]") {
  auto module = compile(kernelPath("block_ptr"), "gemm",
                        "*fp16,*fp16,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32,16,32,16");
  const int64_t m = 37, n = 45, k = 53;
  HostBuffer a(f16, m * k), b(f16, k * n), c(f32, m * n);
  for (int64_t i = 0; i < m * k; ++i)
    a.setDouble(i, ((i * 7) % 13 - 6) / 8.0);
  for (int64_t i = 0; i < k * n; ++i)
    b.setDouble(i, ((i * 5) % 11 - 5) / 4.0);
  launch(*module->functions.at(0),
         {KernelArg::pointer(a), KernelArg::pointer(b), KernelArg::pointer(c),
          KernelArg::integer(m), KernelArg::integer(n), KernelArg::integer(k),
          KernelArg::integer(k), KernelArg::integer(1), KernelArg::integer(n),
          KernelArg::integer(1), KernelArg::integer(n), KernelArg::integer(1)},
         cdiv(m, 16), cdiv(n, 32));
  std::vector<double> want(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        want[i * n + j] += a.getDouble(i * k + p) * b.getDouble(p * n + j);
  // Small multiples of 1/32: exact in fp32.
  CHECK(worst(c, want, 0, 0) == 0);
}

TEST_CASE("block pointers: while loops, loops that rebuild them, run-time ifs", "[block_ptr]") {
  auto module = compile(kernelPath("block_ptr"), "control_flow", "*fp32,*fp32,i32,8");
  for (int64_t n : {int64_t(5), int64_t(21)}) {
    HostBuffer x(f32, n), out(f32, n);
    for (int64_t i = 0; i < n; ++i)
      x.setDouble(i, i * i % 7);
    out.fill(-1);
    launch(*module->functions.at(0),
           {KernelArg::pointer(x), KernelArg::pointer(out), KernelArg::integer(n)}, 1);
    std::vector<double> acc(8, 0.0);
    for (int64_t i = 0; i < n; ++i) // the while loop: every element, folded onto the block
      acc[i % 8] += x.getDouble(i);
    for (int64_t j = 0; j < 3; ++j) // the for loop: x[j .. j + 8) within n - j elements
      for (int64_t e = 0; e < 8 && j + e < n; ++e)
        acc[e] += x.getDouble(j + e);
    std::vector<double> want(n, -1);
    int64_t start = n > 5 ? 1 : 0;
    for (int64_t e = 0; e < 8 && start + e < n; ++e)
      want[start + e] = acc[e];
    INFO("n = " << n);
    CHECK(worst(out, want, 0, 0) == 0);
  }
}
