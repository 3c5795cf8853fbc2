// Per-opcode semantics of the interpreter: integer wrapping, division, shifts, casts, NaN handling,
// fp16 rounding and reductions. Expected values are written out or computed here with plain C++
// (and GCC's _Float16 as the fp16 reference).
#include "TestKernels.h"

#include <cmath>
#include <cstdint>
#include <limits>

using namespace tilec;
using namespace interp_test;
using tir::OpCode;
using tir::ScalarKind;

TEST_CASE("integer division and remainder round toward zero", "[interp][semantics]") {
  const int32_t min = std::numeric_limits<int32_t>::min();
  std::vector<int32_t> a = {-7, 7, -7, 7, min, 5, -1, 0};
  std::vector<int32_t> b = {2, -2, -2, 2, -1, 3, 5, -3};
  CHECK(runBinary<int32_t>(OpCode::Div, ScalarKind::I32, a, b) ==
        std::vector<int32_t>{-3, -3, 3, 3, min, 1, 0, 0});
  CHECK(runBinary<int32_t>(OpCode::Rem, ScalarKind::I32, a, b) ==
        std::vector<int32_t>{-1, 1, -1, 1, 0, 2, -1, 0});
  // Unsigned: 0xFFFFFFF9 is a large positive number, not -7.
  std::vector<uint32_t> ua = {0xFFFFFFF9u, 7, 100, 1};
  std::vector<uint32_t> ub = {2, 2, 7, 3};
  CHECK(runBinary<uint32_t>(OpCode::Div, ScalarKind::U32, ua, ub) ==
        std::vector<uint32_t>{0x7FFFFFFCu, 3, 14, 0});
  CHECK(runBinary<uint32_t>(OpCode::Rem, ScalarKind::U32, ua, ub) ==
        std::vector<uint32_t>{1, 1, 2, 1});
}

TEST_CASE("integer division by zero is an error", "[interp][semantics]") {
  std::vector<int32_t> a = {1, 2, 3, 4}, b = {1, 1, 0, 1};
  CHECK_THROWS_WITH(runBinary<int32_t>(OpCode::Div, ScalarKind::I32, a, b),
                    Catch::Contains("integer division by zero at index (2)"));
  CHECK_THROWS_AS(runBinary<int32_t>(OpCode::Rem, ScalarKind::I32, a, b), interp::InterpError);
}

TEST_CASE("int8 arithmetic wraps around", "[interp][semantics]") {
  std::vector<int8_t> a = {100, -128, 16, 127}, b = {100, 1, 16, -1};
  CHECK(runBinary<int8_t>(OpCode::Add, ScalarKind::I8, a, b) ==
        std::vector<int8_t>{-56, -127, 32, 126});
  CHECK(runBinary<int8_t>(OpCode::Sub, ScalarKind::I8, a, b) ==
        std::vector<int8_t>{0, 127, 0, -128});
  CHECK(runBinary<int8_t>(OpCode::Mul, ScalarKind::I8, a, b) ==
        std::vector<int8_t>{16, -128, 0, -127});
  std::vector<uint8_t> ua = {250, 0, 128, 255}, ubv = {10, 1, 128, 255};
  CHECK(runBinary<uint8_t>(OpCode::Add, ScalarKind::U8, ua, ubv) ==
        std::vector<uint8_t>{4, 1, 0, 254});
  CHECK(runBinary<uint8_t>(OpCode::Sub, ScalarKind::U8, ua, ubv) ==
        std::vector<uint8_t>{240, 255, 0, 0});
}

TEST_CASE("right shifts are arithmetic for signed and logical for unsigned",
          "[interp][semantics]") {
  std::vector<int32_t> a = {-16, 16, -1, 1 << 30}, amount = {2, 2, 31, 1};
  CHECK(runBinary<int32_t>(OpCode::Shr, ScalarKind::I32, a, amount) ==
        std::vector<int32_t>{-4, 4, -1, 1 << 29});
  std::vector<uint32_t> ua = {0xFFFFFFF0u, 16, 0xFFFFFFFFu, 0x80000000u}, uamount = {4, 2, 31, 1};
  CHECK(runBinary<uint32_t>(OpCode::Shr, ScalarKind::U32, ua, uamount) ==
        std::vector<uint32_t>{0x0FFFFFFFu, 4, 1, 0x40000000u});
  // Left shifts drop the bits shifted out; shift amounts of the type's width or more give 0 (or
  // all sign bits for an arithmetic right shift), as PTX's clamped shifts do.
  std::vector<int32_t> b = {0x40000001, 3, 1, -8}, bamount = {2, 32, 40, 33};
  CHECK(runBinary<int32_t>(OpCode::Shl, ScalarKind::I32, b, bamount) ==
        std::vector<int32_t>{4, 0, 0, 0});
  CHECK(runBinary<int32_t>(OpCode::Shr, ScalarKind::I32, b, bamount) ==
        std::vector<int32_t>{0x10000000, 0, 0, -1});
}

TEST_CASE("maximum and minimum of floats are maxnum and minnum", "[interp][semantics]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {nan, 2.0f, nan, -1.0f}, b = {1.0f, nan, nan, 3.0f};
  std::vector<float> maxima = runBinary<float>(OpCode::Maximum, ScalarKind::F32, a, b);
  CHECK(maxima[0] == 1.0f);
  CHECK(maxima[1] == 2.0f);
  CHECK(std::isnan(maxima[2]));
  CHECK(maxima[3] == 3.0f);
  std::vector<float> minima = runBinary<float>(OpCode::Minimum, ScalarKind::F32, a, b);
  CHECK(minima[0] == 1.0f);
  CHECK(minima[1] == 2.0f);
  CHECK(std::isnan(minima[2]));
  CHECK(minima[3] == -1.0f);
  // Signed integers compare signed, unsigned ones unsigned.
  CHECK(runBinary<int32_t>(OpCode::Maximum, ScalarKind::I32, {-5, 3}, {2, -9}) ==
        std::vector<int32_t>{2, 3});
  CHECK(runBinary<uint32_t>(OpCode::Maximum, ScalarKind::U32, {0xFFFFFFFBu, 3}, {2, 9}) ==
        std::vector<uint32_t>{0xFFFFFFFBu, 9});
}

TEST_CASE("fp16 arithmetic rounds every result to fp16", "[interp][semantics]") {
  auto h = [](float v) { return static_cast<_Float16>(v); };
  // 2048 + 1 is a tie between 2048 and 2050 (fp16 spacing 2 there): even wins. 1 + 2^-11 is
  // a tie between 1 and 1 + 2^-10.
  std::vector<_Float16> a = {h(2048), h(1), h(0.1f), h(60000)};
  std::vector<_Float16> b = {h(1), h(1.0f / 2048), h(0.2f), h(60000)};
  std::vector<_Float16> sums = runBinary<_Float16>(OpCode::Add, ScalarKind::F16, a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    // The exact sum of two fp16 values is exact in double; rounding it once is the reference.
    _Float16 expected =
        static_cast<_Float16>(static_cast<double>(a[i]) + static_cast<double>(b[i]));
    INFO("lane " << i);
    CHECK(halfBits(sums[i]) == halfBits(expected));
  }
  CHECK(static_cast<float>(sums[0]) == 2048.0f);
  CHECK(static_cast<float>(sums[1]) == 1.0f);
  CHECK(std::isinf(static_cast<float>(sums[3])));
}

TEST_CASE("casts between float and integer types", "[interp][semantics][cast]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  SECTION("float to signed int truncates toward zero and saturates") {
    std::vector<float> in = {-2.7f, -0.5f, 2.7f, 3e9f, -3e9f, nan, 1e30f, -1e30f};
    CHECK(runUnary<float, int32_t>(OpCode::Cast, ScalarKind::F32, ScalarKind::I32, in) ==
          std::vector<int32_t>{-2, 0, 2, 2147483647, std::numeric_limits<int32_t>::min(), 0,
                               2147483647, std::numeric_limits<int32_t>::min()});
    // To 8 bits, as Triton on the GPU: saturate to 16 bits, keep the low byte.
    CHECK(runUnary<float, int8_t>(OpCode::Cast, ScalarKind::F32, ScalarKind::I8, in) ==
          std::vector<int8_t>{-2, 0, 2, -1, 0, 0, -1, 0});
  }
  SECTION("float to unsigned int clamps negatives to zero") {
    std::vector<float> in = {-1.0f, 300.0f, 255.9f, 7.5f};
    CHECK(runUnary<float, uint8_t>(OpCode::Cast, ScalarKind::F32, ScalarKind::U8, in) ==
          std::vector<uint8_t>{0, 44, 255, 7});
  }
  SECTION("int to float rounds to nearest even") {
    // 2^24 + 1 is a tie between 2^24 and 2^24 + 2; 2^24 + 3 between 2^24 + 2 and 2^24 + 4.
    std::vector<int32_t> in = {16777217, 16777219, -16777217, -3};
    CHECK(runUnary<int32_t, float>(OpCode::Cast, ScalarKind::I32, ScalarKind::F32, in) ==
          std::vector<float>{16777216.0f, 16777220.0f, -16777216.0f, -3.0f});
    std::vector<uint32_t> uin = {0xFFFFFFFFu, 1};
    CHECK(runUnary<uint32_t, float>(OpCode::Cast, ScalarKind::U32, ScalarKind::F32, uin) ==
          std::vector<float>{4294967296.0f, 1.0f});
  }
  SECTION("integer to integer wraps, sign- or zero-extends, and bool is != 0") {
    std::vector<int32_t> in = {300, -1, 128, 0};
    CHECK(runUnary<int32_t, int8_t>(OpCode::Cast, ScalarKind::I32, ScalarKind::I8, in) ==
          std::vector<int8_t>{44, -1, -128, 0});
    CHECK(runUnary<int32_t, uint8_t>(OpCode::Cast, ScalarKind::I32, ScalarKind::I1, in) ==
          std::vector<uint8_t>{1, 1, 1, 0});
    std::vector<int8_t> narrow = {-1, 127, -128, 5};
    CHECK(runUnary<int8_t, int64_t>(OpCode::Cast, ScalarKind::I8, ScalarKind::I64, narrow) ==
          std::vector<int64_t>{-1, 127, -128, 5});
    std::vector<uint8_t> unarrow = {255, 128, 0, 1};
    CHECK(runUnary<uint8_t, int32_t>(OpCode::Cast, ScalarKind::U8, ScalarKind::I32, unarrow) ==
          std::vector<int32_t>{255, 128, 0, 1});
  }
  SECTION("float to bool is != 0") {
    std::vector<float> in = {0.0f, -0.0f, 0.5f, nan};
    CHECK(runUnary<float, uint8_t>(OpCode::Cast, ScalarKind::F32, ScalarKind::I1, in) ==
          std::vector<uint8_t>{0, 0, 1, 1});
  }
}

TEST_CASE("fp32 to fp16 and bf16 casts round to nearest even", "[interp][semantics][cast]") {
  std::vector<float> in = {1.0f + 1.0f / 2048,                // tie: down to 1
                           1.0f + 3.0f / 2048,                // tie: up to 1 + 2^-9
                           1.0f + 1.0f / 2048 + 1.0f / 65536, // above the tie: up
                           65519.0f,                          // largest value that rounds to 65504
                           65520.0f,                          // first value that rounds to infinity
                           5.9604645e-08f * 0.5f, // half the smallest subnormal: tie to 0
                           5.9604645e-08f * 1.5f, // tie between subnormals 1 and 2: up to 2
                           -0.1f};
  std::vector<uint16_t> bits =
      runUnary<float, uint16_t>(OpCode::Cast, ScalarKind::F32, ScalarKind::F16, in);
  for (size_t i = 0; i < in.size(); ++i) {
    INFO("lane " << i << " value " << in[i]);
    CHECK(bits[i] == halfBits(static_cast<_Float16>(in[i])));
  }
  CHECK(bits[0] == 0x3c00);
  CHECK(bits[1] == 0x3c02);
  CHECK(bits[3] == 0x7bff);
  CHECK(bits[4] == 0x7c00);
  CHECK(bits[5] == 0x0000);
  CHECK(bits[6] == 0x0002);

  // bf16 keeps fp32's exponent and 7 mantissa bits: 1 + 2^-8 is a tie (down to 1), 1 + 3 * 2^-8
  // rounds up to 1 + 2^-6.
  std::vector<float> bfIn = {1.0f + 1.0f / 256, 1.0f + 3.0f / 256, -2.0f, 0.0f};
  CHECK(runUnary<float, uint16_t>(OpCode::Cast, ScalarKind::F32, ScalarKind::BF16, bfIn) ==
        std::vector<uint16_t>{0x3f80, 0x3f82, 0xc000, 0x0000});

  // fp16 back to fp32 is exact.
  std::vector<uint16_t> halves = {0x3c01, 0x0001, 0xfbff, 0x8000};
  CHECK(runUnary<uint16_t, float>(OpCode::Cast, ScalarKind::F16, ScalarKind::F32, halves) ==
        std::vector<float>{1.0f + 1.0f / 1024, 5.9604645e-08f, -65504.0f, -0.0f});
}

TEST_CASE("fp8 casts round to nearest even and saturate", "[interp][semantics][cast]") {
  // e4m3 (fp8e4nv): 1.0 is 0x38; 1.0625 is a tie between 1.0 and 1.125 (even: 1.0); values past
  // 448 saturate; NaN stays NaN (0x7f).
  std::vector<float> in = {1.0f,         1.0625f, 1.1875f,
                           500.0f,       -1e9f,   std::numeric_limits<float>::quiet_NaN(),
                           0.001953125f, 0.0f};
  CHECK(runUnary<float, uint8_t>(OpCode::Cast, ScalarKind::F32, ScalarKind::F8E4M3, in) ==
        std::vector<uint8_t>{0x38, 0x38, 0x3a, 0x7e, 0xfe, 0x7f, 0x01, 0x00});
  std::vector<uint8_t> e4m3 = {0x38, 0x7e, 0x01, 0xc0};
  CHECK(runUnary<uint8_t, float>(OpCode::Cast, ScalarKind::F8E4M3, ScalarKind::F32, e4m3) ==
        std::vector<float>{1.0f, 448.0f, 0.001953125f, -2.0f});
  // e5m2: 1.0 is 0x3c, the largest finite value 57344 is 0x7b.
  std::vector<float> in5 = {1.0f, 1e6f, 1.25f, -0.5f};
  CHECK(runUnary<float, uint8_t>(OpCode::Cast, ScalarKind::F32, ScalarKind::F8E5M2, in5) ==
        std::vector<uint8_t>{0x3c, 0x7b, 0x3d, 0xb8});
}

TEST_CASE("bitcast reinterprets bits", "[interp][semantics][cast]") {
  std::vector<float> in = {1.0f, -2.0f};
  CHECK(runUnary<float, int32_t>(OpCode::Bitcast, ScalarKind::F32, ScalarKind::I32, in) ==
        std::vector<int32_t>{0x3f800000, static_cast<int32_t>(0xc0000000u)});
  std::vector<int16_t> halves = {0x3c00, static_cast<int16_t>(0xc000)};
  CHECK(runUnary<int16_t, uint16_t>(OpCode::Bitcast, ScalarKind::I16, ScalarKind::F16, halves) ==
        std::vector<uint16_t>{0x3c00, 0xc000});
}

TEST_CASE("math ops on fp32 and fp16", "[interp][semantics]") {
  std::vector<float> in = {0.25f, 1.0f, 2.0f, 9.0f};
  std::vector<float> roots =
      runUnary<float, float>(OpCode::Sqrt, ScalarKind::F32, ScalarKind::F32, in);
  CHECK(roots == std::vector<float>{0.5f, 1.0f, std::sqrt(2.0f), 3.0f});
  std::vector<float> floors = runUnary<float, float>(OpCode::Floor, ScalarKind::F32,
                                                     ScalarKind::F32, {-1.5f, 1.5f, 2.0f, -0.0f});
  CHECK(floors == std::vector<float>{-2.0f, 1.0f, 2.0f, -0.0f});
  // fp16 exp is computed in float and rounded to fp16.
  std::vector<_Float16> hin = {static_cast<_Float16>(1.0f), static_cast<_Float16>(-2.0f)};
  std::vector<_Float16> hexp =
      runUnary<_Float16, _Float16>(OpCode::Exp, ScalarKind::F16, ScalarKind::F16, hin);
  CHECK(halfBits(hexp[0]) == halfBits(static_cast<_Float16>(std::exp(1.0f))));
  CHECK(halfBits(hexp[1]) == halfBits(static_cast<_Float16>(std::exp(-2.0f))));
  // Integer abs wraps at the minimum.
  CHECK(runUnary<int32_t, int32_t>(OpCode::Abs, ScalarKind::I32, ScalarKind::I32,
                                   {-5, 5, std::numeric_limits<int32_t>::min(), 0}) ==
        std::vector<int32_t>{5, 5, std::numeric_limits<int32_t>::min(), 0});
}

TEST_CASE("comparisons: signedness from the type, floats ordered except ne",
          "[interp][semantics]") {
  auto compare = [](ScalarKind kind, const std::string &predicate, auto lhs, auto rhs) {
    using T = typename decltype(lhs)::value_type;
    KernelBuilder k("cmp");
    tir::Value *a = k.param("a", pointerTo(kind));
    tir::Value *b = k.param("b", pointerTo(kind));
    tir::Value *out = k.param("out", pointerTo(ScalarKind::I1));
    tir::Value *offsets = k.b.makeRange(0, static_cast<int64_t>(lhs.size()));
    tir::Value *result =
        k.b.cmp(predicate, k.load(k.pointers(a, offsets)), k.load(k.pointers(b, offsets)));
    k.store(k.pointers(out, offsets), result);
    auto kernel = k.finish();
    interp::HostBuffer x = makeBuffer<T>(kind, lhs), y = makeBuffer<T>(kind, rhs);
    interp::HostBuffer r(scalar(ScalarKind::I1), lhs.size());
    interp::run(*kernel,
                {interp::KernelArg::pointer(x), interp::KernelArg::pointer(y),
                 interp::KernelArg::pointer(r)},
                gridOf(1));
    return contents<uint8_t>(r);
  };
  std::vector<int32_t> si = {-1, 1}, sj = {1, -1};
  CHECK(compare(ScalarKind::I32, "lt", si, sj) == std::vector<uint8_t>{1, 0});
  std::vector<uint32_t> ui = {0xFFFFFFFFu, 1}, uj = {1, 0xFFFFFFFFu};
  CHECK(compare(ScalarKind::U32, "lt", ui, uj) == std::vector<uint8_t>{0, 1});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> fi = {nan, 1.0f, nan, 2.0f}, fj = {1.0f, nan, nan, 2.0f};
  CHECK(compare(ScalarKind::F32, "eq", fi, fj) == std::vector<uint8_t>{0, 0, 0, 1});
  CHECK(compare(ScalarKind::F32, "ne", fi, fj) == std::vector<uint8_t>{1, 1, 1, 0});
  CHECK(compare(ScalarKind::F32, "ge", fi, fj) == std::vector<uint8_t>{0, 0, 0, 1});
  CHECK(compare(ScalarKind::F32, "lt", fi, fj) == std::vector<uint8_t>{0, 0, 0, 0});
}

namespace {

/// Loads a rows x cols fp32 matrix (row-major), reduces it along `axis` with `kind` and stores the
/// result: the 2-D offsets are rows[:, None] * cols + cols[None, :].
std::vector<float> reduceMatrix(const std::string &kind, int64_t axis, int64_t rows, int64_t cols,
                                const std::vector<float> &matrix) {
  KernelBuilder k("reduce2d");
  tir::Value *in = k.param("in", pointerTo(ScalarKind::F32));
  tir::Value *out = k.param("out", pointerTo(ScalarKind::F32));
  tir::Value *rowIndex = k.b.expandDims(k.b.makeRange(0, rows), 1); // rows x 1
  tir::Value *colIndex = k.b.expandDims(k.b.makeRange(0, cols), 0); // 1 x cols
  tir::Value *rowStart =
      k.b.binary(OpCode::Mul, rowIndex, k.constant(cols, ScalarKind::I32, {rows, 1}));
  tir::Value *offsets = k.b.binary(OpCode::Add, k.b.broadcast(rowStart, {rows, cols}),
                                   k.b.broadcast(colIndex, {rows, cols}));
  tir::Value *values = k.load(k.pointers(in, offsets));
  tir::Value *reduced = k.reduce(OpCode::Reduce, kind, values, axis, scalar(ScalarKind::F32));
  k.store(k.pointers(out, k.b.makeRange(0, axis == 0 ? cols : rows)), reduced);
  auto kernel = k.finish();
  interp::HostBuffer input = makeBuffer(ScalarKind::F32, matrix);
  interp::HostBuffer output(scalar(ScalarKind::F32), static_cast<size_t>(axis == 0 ? cols : rows));
  interp::run(*kernel, {interp::KernelArg::pointer(input), interp::KernelArg::pointer(output)},
              gridOf(1));
  return contents<float>(output);
}

} // namespace

TEST_CASE("reduce sum and max along either axis of a 2-D tensor", "[interp][semantics][reduce]") {
  const int64_t rows = 4, cols = 8;
  std::vector<float> matrix(rows * cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      matrix[r * cols + c] = static_cast<float>((r * 7 + c * 3) % 11) - 5.0f;

  std::vector<float> columnSums(cols, 0.0f), rowSums(rows, 0.0f), rowMax(rows, -1e30f),
      columnMin(cols, 1e30f);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      float v = matrix[r * cols + c];
      columnSums[c] += v; // small integers: every order of summation is exact
      rowSums[r] += v;
      rowMax[r] = std::max(rowMax[r], v);
      columnMin[c] = std::min(columnMin[c], v);
    }
  }
  CHECK(reduceMatrix("sum", 0, rows, cols, matrix) == columnSums);
  CHECK(reduceMatrix("sum", 1, rows, cols, matrix) == rowSums);
  CHECK(reduceMatrix("max", 1, rows, cols, matrix) == rowMax);
  CHECK(reduceMatrix("min", 0, rows, cols, matrix) == columnMin);
}

TEST_CASE("reduce max ignores NaN and a rank-1 reduction gives a scalar",
          "[interp][semantics][reduce]") {
  KernelBuilder k("max1d");
  tir::Value *in = k.param("in", pointerTo(ScalarKind::F32));
  tir::Value *out = k.param("out", pointerTo(ScalarKind::F32));
  tir::Value *values = k.load(k.pointers(in, k.b.makeRange(0, 4)));
  tir::Value *maximum = k.reduce(OpCode::Reduce, "max", values, 0, scalar(ScalarKind::F32));
  REQUIRE(maximum->type().isScalar());
  k.store(out, maximum);
  auto kernel = k.finish();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  interp::HostBuffer input = makeBuffer<float>(ScalarKind::F32, {1.0f, nan, 7.0f, -3.0f});
  interp::HostBuffer output(scalar(ScalarKind::F32), 1);
  interp::run(*kernel, {interp::KernelArg::pointer(input), interp::KernelArg::pointer(output)},
              gridOf(1));
  CHECK(contents<float>(output)[0] == 7.0f);
}

TEST_CASE("fp16 sums add in fp16, pairwise", "[interp][semantics][reduce]") {
  const int64_t n = 1024;
  std::vector<_Float16> values(n);
  double exact = 0;
  _Float16 sequential = 0;
  for (int64_t i = 0; i < n; ++i) {
    values[i] = static_cast<_Float16>(0.1f + static_cast<float>(i % 13) * 0.01f);
    exact += static_cast<double>(values[i]);
    sequential =
        static_cast<_Float16>(static_cast<float>(sequential) + static_cast<float>(values[i]));
  }
  // The GPU code adds fp16 in fp16 along a tree (butterfly shuffles): element i with i + n/2,
  // halving. Triton 3.6 on an H100 gives 163.75 for these values too.
  std::vector<_Float16> tree = values;
  for (size_t live = tree.size(); live > 1;) {
    size_t half = (live + 1) / 2;
    for (size_t r = 0; r < live - half; ++r)
      tree[r] =
          static_cast<_Float16>(static_cast<float>(tree[r]) + static_cast<float>(tree[r + half]));
    live = half;
  }
  _Float16 expected = tree[0];
  CHECK(static_cast<float>(expected) == 163.75f);
  // The data tells the candidates apart: fp32 accumulation (the exact sum rounded once) and
  // sequential fp16 accumulation give other answers.
  REQUIRE(halfBits(static_cast<_Float16>(exact)) != halfBits(expected));
  REQUIRE(halfBits(sequential) != halfBits(expected));

  KernelBuilder k("sum16");
  tir::Value *in = k.param("in", pointerTo(ScalarKind::F16));
  tir::Value *out = k.param("out", pointerTo(ScalarKind::F16));
  tir::Value *loaded = k.load(k.pointers(in, k.b.makeRange(0, n)));
  k.store(out, k.reduce(OpCode::Reduce, "sum", loaded, 0, scalar(ScalarKind::F16)));
  auto kernel = k.finish();
  interp::HostBuffer input = makeBuffer(ScalarKind::F16, values);
  interp::HostBuffer output(scalar(ScalarKind::F16), 1);
  interp::run(*kernel, {interp::KernelArg::pointer(input), interp::KernelArg::pointer(output)},
              gridOf(1));
  CHECK(halfBits(contents<_Float16>(output)[0]) == halfBits(expected));
}

TEST_CASE("integer sums wrap at the type's width", "[interp][semantics][reduce]") {
  KernelBuilder k("sum8");
  tir::Value *in = k.param("in", pointerTo(ScalarKind::I8));
  tir::Value *out = k.param("out", pointerTo(ScalarKind::I8));
  tir::Value *loaded = k.load(k.pointers(in, k.b.makeRange(0, 4)));
  k.store(out, k.reduce(OpCode::Reduce, "sum", loaded, 0, scalar(ScalarKind::I8)));
  auto kernel = k.finish();
  interp::HostBuffer input = makeBuffer<int8_t>(ScalarKind::I8, {100, 100, 100, -1});
  interp::HostBuffer output(scalar(ScalarKind::I8), 1);
  interp::run(*kernel, {interp::KernelArg::pointer(input), interp::KernelArg::pointer(output)},
              gridOf(1));
  CHECK(contents<int8_t>(output)[0] == 43); // 299 - 256
}

TEST_CASE("argmax and argmin return the first index of the extreme value",
          "[interp][semantics][reduce]") {
  auto argReduce = [](const std::string &kind, const std::vector<float> &values) {
    KernelBuilder k("argreduce");
    tir::Value *in = k.param("in", pointerTo(ScalarKind::F32));
    tir::Value *out = k.param("out", pointerTo(ScalarKind::I32));
    tir::Value *loaded =
        k.load(k.pointers(in, k.b.makeRange(0, static_cast<int64_t>(values.size()))));
    k.store(out, k.reduce(OpCode::ArgReduce, kind, loaded, 0, scalar(ScalarKind::I32)));
    auto kernel = k.finish();
    interp::HostBuffer input = makeBuffer(ScalarKind::F32, values);
    interp::HostBuffer output(scalar(ScalarKind::I32), 1);
    interp::run(*kernel, {interp::KernelArg::pointer(input), interp::KernelArg::pointer(output)},
                gridOf(1));
    return contents<int32_t>(output)[0];
  };
  CHECK(argReduce("argmax", {3, 7, 1, 7, 7, 2, 0, 7}) == 1);
  CHECK(argReduce("argmin", {5, 2, 2, 9}) == 1);
  CHECK(argReduce("argmin", {5, 4, 3, 2}) == 3);
  CHECK(argReduce("argmax", {std::numeric_limits<float>::quiet_NaN(), 1, 3, 3}) == 2);
}
