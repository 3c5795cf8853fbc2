// The numeric conversions behind casts, loads and stores, checked exhaustively where the format is
// small: fp16 against GCC's _Float16 conversions, fp8 against the format's definition.
#include "interp/Numerics.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

using namespace tilec;
using namespace tilec::interp;
using tir::ScalarKind;

namespace {

float floatOfHalfBits(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, sizeof(h));
  return static_cast<float>(h);
}

uint16_t referenceHalfBits(float v) {
  _Float16 h = static_cast<_Float16>(v);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof(bits));
  return bits;
}

/// An fp8 value from its definition: sign, exponent field, mantissa field.
double fp8Value(uint8_t bits, int mantissaBits, int bias) {
  int exponentBits = 7 - mantissaBits;
  int exponent = (bits >> mantissaBits) & ((1 << exponentBits) - 1);
  int mantissa = bits & ((1 << mantissaBits) - 1);
  double magnitude =
      exponent == 0 ? std::ldexp(mantissa, 1 - bias - mantissaBits)
                    : std::ldexp(mantissa + (1 << mantissaBits), exponent - bias - mantissaBits);
  return (bits & 0x80) ? -magnitude : magnitude;
}

} // namespace

TEST_CASE("fp16 conversions agree with _Float16 on every value and every midpoint",
          "[interp][numerics]") {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    uint16_t h = static_cast<uint16_t>(bits);
    float v = floatOfHalfBits(h);
    if (std::isnan(v)) {
      REQUIRE(std::isnan(halfBitsToFloat(h)));
      continue;
    }
    REQUIRE(halfBitsToFloat(h) == v);
    REQUIRE(floatToHalfBits(v) == h);
    // Between this value and the next one up in magnitude: the tie and its two neighbours.
    if ((h & 0x7fff) >= 0x7bff)
      continue;
    float next = floatOfHalfBits(static_cast<uint16_t>(h + 1));
    float mid = static_cast<float>((static_cast<double>(v) + next) / 2); // exact in float
    for (float probe : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 2 * mid)}) {
      INFO("bits " << bits << " probe " << probe);
      REQUIRE(floatToHalfBits(probe) == referenceHalfBits(probe));
    }
  }
  CHECK(floatToHalfBits(65520.0f) == 0x7c00);
  CHECK(floatToHalfBits(-std::numeric_limits<float>::infinity()) == 0xfc00);
  // NaN becomes the canonical NaN that cvt.rn.f16.f32 / cvt.rn.bf16.f32 produce on an H100.
  CHECK(floatToHalfBits(std::numeric_limits<float>::quiet_NaN()) == 0x7fff);
  CHECK(floatToHalfBits(-std::numeric_limits<float>::quiet_NaN()) == 0x7fff);
  CHECK(floatToBFloat16Bits(std::numeric_limits<float>::quiet_NaN()) == 0x7fff);
  CHECK(std::isnan(halfBitsToFloat(0x7fff)));
}

TEST_CASE("bf16 conversion rounds to nearest even", "[interp][numerics]") {
  // Reference: round the significand to 8 bits with nearbyint.
  uint32_t state = 12345;
  for (int i = 0; i < 100000; ++i) {
    state = state * 1664525u + 1013904223u;
    float v = std::ldexp(static_cast<float>(state >> 8) / 16777216.0f + 0.5f,
                         static_cast<int>(state % 64) - 32);
    if (i % 2)
      v = -v;
    int exponent;
    double significand = std::frexp(static_cast<double>(v), &exponent);
    float expected =
        static_cast<float>(std::ldexp(std::nearbyint(significand * 256), exponent - 8));
    uint32_t expectedBits;
    std::memcpy(&expectedBits, &expected, sizeof(expectedBits));
    INFO("value " << v);
    REQUIRE(floatToBFloat16Bits(v) == expectedBits >> 16);
    REQUIRE(bfloat16BitsToFloat(floatToBFloat16Bits(v)) == expected);
  }
  CHECK(floatToBFloat16Bits(std::numeric_limits<float>::max()) == 0x7f80); // rounds up to inf
}

TEST_CASE("fp8 formats decode by definition and encode back", "[interp][numerics]") {
  for (uint32_t bits = 0; bits < 256; ++bits) {
    uint8_t b = static_cast<uint8_t>(bits);
    INFO("bits " << bits);
    // e4m3fn: S.1111.111 is NaN, everything else finite.
    if ((b & 0x7f) == 0x7f) {
      CHECK(std::isnan(fp8BitsToFloat(b, ScalarKind::F8E4M3)));
    } else {
      double v = fp8Value(b, 3, 7);
      REQUIRE(fp8BitsToFloat(b, ScalarKind::F8E4M3) == v);
      REQUIRE(doubleToFp8Bits(v, ScalarKind::F8E4M3) == (v == 0 ? (b & 0x80) : b));
    }
    // e5m2: exponent 31 is infinity / NaN.
    if ((b & 0x7c) == 0x7c) {
      CHECK(!std::isfinite(fp8BitsToFloat(b, ScalarKind::F8E5M2)));
    } else {
      double v = fp8Value(b, 2, 15);
      REQUIRE(fp8BitsToFloat(b, ScalarKind::F8E5M2) == v);
      REQUIRE(doubleToFp8Bits(v, ScalarKind::F8E5M2) == (v == 0 ? (b & 0x80) : b));
    }
  }
  // Saturation instead of infinity, as cvt.rn.satfinite does.
  CHECK(doubleToFp8Bits(1e10, ScalarKind::F8E5M2) == 0x7b);
  CHECK(doubleToFp8Bits(-INFINITY, ScalarKind::F8E4M3) == 0xfe);
}

TEST_CASE("float to integer truncates and saturates, integer to float rounds once",
          "[interp][numerics]") {
  CHECK(floatToInteger(-7.9, ScalarKind::I32) == -7);
  CHECK(floatToInteger(1e20, ScalarKind::I64) == std::numeric_limits<int64_t>::max());
  CHECK(floatToInteger(-1e20, ScalarKind::I64) == std::numeric_limits<int64_t>::min());
  CHECK(static_cast<uint64_t>(floatToInteger(1e20, ScalarKind::U64)) ==
        std::numeric_limits<uint64_t>::max());
  CHECK(floatToInteger(-0.9, ScalarKind::U16) == 0);
  CHECK(floatToInteger(70000, ScalarKind::U16) == 65535);
  // To 8 bits, as Triton on the GPU: saturate to 16 bits, keep the low byte.
  CHECK(floatToInteger(300.0, ScalarKind::U8) == 44);
  CHECK(floatToInteger(255.9, ScalarKind::U8) == 255);
  CHECK(floatToInteger(1e6, ScalarKind::U8) == 255);   // 65535 & 0xff
  CHECK(floatToInteger(-3.5, ScalarKind::U8) == 0);
  CHECK(floatToInteger(200.0, ScalarKind::I8) == -56); // 200 wraps
  CHECK(floatToInteger(-1e6, ScalarKind::I8) == 0);    // -32768 & 0xff
  CHECK(floatToInteger(std::nan(""), ScalarKind::I16) == 0);
  // 2049 is a tie between the fp16 values 2048 and 2050: even (2048) wins; 2051 goes up to 2052.
  CHECK(integerToFloat(2049, false, ScalarKind::F16) == 2048);
  CHECK(integerToFloat(2051, false, ScalarKind::F16) == 2052);
  CHECK(integerToFloat(-65520, false, ScalarKind::F16) == -INFINITY);
  // Through double, 2^62 + 2^54 + 1 would first become the bf16 tie 2^62 + 2^54, then round down.
  CHECK(integerToFloat((int64_t(1) << 62) + (int64_t(1) << 54) + 1, false, ScalarKind::BF16) ==
        std::ldexp(1.0, 62) + std::ldexp(1.0, 55));
  CHECK(integerToFloat(-1, true, ScalarKind::F64) == 18446744073709551616.0);
  CHECK(wrapInteger(0x1ff, ScalarKind::I8) == -1);
  CHECK(wrapInteger(0x1ff, ScalarKind::U8) == 255);
  CHECK(wrapInteger(2, ScalarKind::I1) == 0);
}
