#include "interp/Numerics.h"

#include <array>
#include <cmath>
#include <cstring>

namespace tilec::interp {

using tir::ScalarKind;

namespace {

uint32_t floatBits(float v);
float floatFromBits(uint32_t bits);

// The lowest mantissa bit of a float lane that holds an fp16 NaN's bits (halfTable): below the
// thirteen bits that fp16 lacks, so no fp16 value's float has it, and fp16 arithmetic, which
// rounds its results through floatToHalfBits, never keeps it.
constexpr uint32_t kDecodedHalfNaN = 1;

/// A binary float format narrower than fp32 (sign, exponent, mantissa), and what happens when a
/// value overflows it.
struct SmallFloatFormat {
  unsigned totalBits;
  unsigned mantissaBits;
  int bias;
  bool hasInfinity;
  /// Out-of-range values (and infinities) become the largest finite value instead of infinity.
  bool saturate;
  double maxFinite;
  uint32_t maxFiniteBits;
  uint32_t infinityBits; // meaningful when hasInfinity
  uint32_t nanBits;
};

// NaN converts to the canonical NaN 0x7fff, as cvt.rn.f16.f32 and cvt.rn.bf16.f32 produce it.
const SmallFloatFormat kHalf = {16, 10, 15, true, false, 65504.0, 0x7bff, 0x7c00, 0x7fff};
const SmallFloatFormat kBFloat16 = {16, 7, 127, true, false, 0x1.fep127, 0x7f7f, 0x7f80, 0x7fff};
// e4m3fn: exponent 15 is a normal binade except for the all-ones mantissa, which is NaN.
const SmallFloatFormat kFp8E4M3 = {8, 3, 7, false, true, 448.0, 0x7e, 0, 0x7f};
const SmallFloatFormat kFp8E5M2 = {8, 2, 15, true, true, 57344.0, 0x7b, 0x7c, 0x7f};

const SmallFloatFormat &formatOf(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F16:
    return kHalf;
  case ScalarKind::BF16:
    return kBFloat16;
  case ScalarKind::F8E4M3:
    return kFp8E4M3;
  default:
    return kFp8E5M2;
  }
}

/// Rounds `v` to nearest even in `format` and returns its bits. Exact for every double input:
/// dividing by a power of two and rounding to an integer are both exact operations in double.
uint32_t encodeSmallFloat(double v, const SmallFloatFormat &format) {
  uint32_t signBit = std::signbit(v) ? 1u << (format.totalBits - 1) : 0;
  if (std::isnan(v))
    return format.nanBits; // canonical, as cvt produces it
  double magnitude = std::fabs(v);
  uint32_t overflowBits =
      (format.saturate || !format.hasInfinity) ? format.maxFiniteBits : format.infinityBits;
  if (std::isinf(magnitude))
    return signBit | overflowBits;
  if (magnitude == 0)
    return signBit;

  const int minNormalExponent = 1 - format.bias;
  int frexpExponent;
  std::frexp(magnitude, &frexpExponent);
  int exponent = std::max(frexpExponent - 1, minNormalExponent);
  double quantum = std::ldexp(1.0, exponent - static_cast<int>(format.mantissaBits));
  // nearbyint rounds to nearest even in the default floating-point environment.
  double rounded = std::nearbyint(magnitude / quantum) * quantum;
  if (rounded > format.maxFinite)
    return signBit | overflowBits;
  if (rounded == 0)
    return signBit;

  std::frexp(rounded, &frexpExponent);
  exponent = frexpExponent - 1;
  if (exponent < minNormalExponent) {
    double subnormalQuantum =
        std::ldexp(1.0, minNormalExponent - static_cast<int>(format.mantissaBits));
    return signBit | static_cast<uint32_t>(rounded / subnormalQuantum);
  }
  uint32_t exponentField = static_cast<uint32_t>(exponent + format.bias);
  uint32_t mantissa =
      static_cast<uint32_t>(std::ldexp(rounded, static_cast<int>(format.mantissaBits) - exponent)) -
      (1u << format.mantissaBits);
  return signBit | (exponentField << format.mantissaBits) | mantissa;
}

double decodeSmallFloat(uint32_t bits, const SmallFloatFormat &format) {
  const unsigned exponentBits = format.totalBits - 1 - format.mantissaBits;
  const uint32_t exponentMax = (1u << exponentBits) - 1;
  const uint32_t mantissaMask = (1u << format.mantissaBits) - 1;
  bool negative = (bits >> (format.totalBits - 1)) & 1;
  uint32_t exponentField = (bits >> format.mantissaBits) & exponentMax;
  uint32_t mantissa = bits & mantissaMask;
  double magnitude;
  if (format.hasInfinity && exponentField == exponentMax) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else if (!format.hasInfinity && exponentField == exponentMax && mantissa == mantissaMask) {
    magnitude = NAN;
  } else if (exponentField == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa),
                           1 - format.bias - static_cast<int>(format.mantissaBits));
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa | (1u << format.mantissaBits)),
                           static_cast<int>(exponentField) - format.bias -
                               static_cast<int>(format.mantissaBits));
  }
  return negative ? -magnitude : magnitude;
}

template <unsigned N> struct DecodeTable {
  std::array<float, N> values;
  explicit DecodeTable(const SmallFloatFormat &format) {
    for (uint32_t bits = 0; bits < N; ++bits)
      values[bits] = static_cast<float>(decodeSmallFloat(bits, format));
  }
};

const DecodeTable<65536> &halfTable() {
  static const DecodeTable<65536> table = [] {
    DecodeTable<65536> t(kHalf);
    // A NaN keeps its fp16 bits in the float lane: the sign, the ten payload bits above
    // thirteen zeros, and kDecodedHalfNaN, which says the lane holds such bits (floatLaneToBits).
    for (uint32_t bits = 0x7c01; bits < 0x10000; ++bits) {
      uint32_t magnitude = bits & 0x7fff;
      if (magnitude <= 0x7c00)
        continue;
      t.values[bits] = floatFromBits(((bits & 0x8000) << 16) | 0x7f800000u |
                                     ((magnitude & 0x3ff) << 13) | kDecodedHalfNaN);
    }
    return t;
  }();
  return table;
}

const DecodeTable<256> &fp8Table(ScalarKind kind) {
  static const DecodeTable<256> e4m3(kFp8E4M3);
  static const DecodeTable<256> e5m2(kFp8E5M2);
  return kind == ScalarKind::F8E4M3 ? e4m3 : e5m2;
}

uint32_t floatBits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

float floatFromBits(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}

} // namespace

int64_t floatToInteger(double v, ScalarKind kind) {
  if (kind == ScalarKind::I1)
    return v != 0; // NaN is true too
  if (std::isnan(v))
    return 0;
  // PTX has no conversion to 8 bits: Triton (and so tilec) converts to 16 bits, saturating, and
  // keeps the low byte. 300.0 -> uint8 is 44, not 255.
  if (kind == ScalarKind::I8 || kind == ScalarKind::U8)
    return wrapInteger(static_cast<uint64_t>(floatToInteger(
                           v, kind == ScalarKind::I8 ? ScalarKind::I16 : ScalarKind::U16)),
                       kind);
  double truncated = std::trunc(v);
  tir::DType dtype = tir::DType::scalar(kind);
  unsigned bits = dtype.bits();
  if (dtype.isUnsigned()) {
    if (truncated <= 0)
      return 0;
    // 2^bits - 1 rounds up to 2^bits in double for 64 bits; >= covers both.
    double limit = std::ldexp(1.0, static_cast<int>(bits));
    if (truncated >= limit)
      return wrapInteger(~uint64_t(0), kind);
    return static_cast<int64_t>(static_cast<uint64_t>(truncated));
  }
  double limit = std::ldexp(1.0, static_cast<int>(bits) - 1);
  if (truncated >= limit)
    return static_cast<int64_t>((uint64_t(1) << (bits - 1)) - 1);
  if (truncated <= -limit)
    return -static_cast<int64_t>((uint64_t(1) << (bits - 1)) - 1) - 1;
  return static_cast<int64_t>(truncated);
}

double integerToFloat(int64_t lane, bool isUnsigned, ScalarKind kind) {
  if (kind == ScalarKind::F64)
    return isUnsigned ? static_cast<double>(static_cast<uint64_t>(lane))
                      : static_cast<double>(lane);
  if (kind == ScalarKind::F32)
    return isUnsigned ? static_cast<float>(static_cast<uint64_t>(lane)) : static_cast<float>(lane);
  // Round the integer to the format's precision in integer arithmetic, so that converting through
  // double (which cannot hold every int64) never rounds twice.
  bool negative = !isUnsigned && lane < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(lane) : static_cast<uint64_t>(lane);
  const unsigned precision = formatOf(kind).mantissaBits + 1;
  double rounded;
  if (magnitude >> precision == 0) {
    rounded = static_cast<double>(magnitude);
  } else {
    unsigned shift = 64 - static_cast<unsigned>(__builtin_clzll(magnitude)) - precision;
    uint64_t kept = magnitude >> shift;
    uint64_t dropped = magnitude & ((uint64_t(1) << shift) - 1);
    uint64_t half = uint64_t(1) << (shift - 1);
    if (dropped > half || (dropped == half && (kept & 1)))
      ++kept;
    rounded = std::ldexp(static_cast<double>(kept), static_cast<int>(shift));
  }
  return roundToFloatType(negative ? -rounded : rounded, kind);
}

uint16_t floatToHalfBits(float v) {
  // Round to nearest even with integer arithmetic for normal results and an exact float addition
  // for subnormal ones (after F. Giesen's float_to_half_fast3_rtne).
  uint32_t bits = floatBits(v);
  uint32_t sign = bits & 0x80000000u;
  bits ^= sign;
  uint16_t result;
  const uint32_t infinityF32 = 255u << 23;
  const uint32_t firstOverflowF32 = (127u + 16) << 23; // 2^16: every value from here is inf
  if (bits >= firstOverflowF32) {
    result = bits > infinityF32 ? 0x7fff : 0x7c00;
  } else if (bits < (113u << 23)) {
    // Below 2^-14 the result is subnormal: adding 0.5 aligns the ten mantissa bits at the bottom
    // of the float and the FPU's own round-to-nearest-even does the rounding.
    const uint32_t magicBits = ((127u - 15) + (23 - 10) + 1) << 23;
    float aligned = floatFromBits(bits) + floatFromBits(magicBits);
    result = static_cast<uint16_t>(floatBits(aligned) - magicBits);
  } else {
    uint32_t mantissaOdd = (bits >> 13) & 1;
    bits += ((15u - 127u) << 23) + 0xfff; // rebias and add just under half an ulp
    bits += mantissaOdd;                  // ... making ties round to even
    result = static_cast<uint16_t>(bits >> 13);
  }
  if (result == 0x7fff)
    return result; // NaN is canonical, without a sign
  return static_cast<uint16_t>(result | (sign >> 16));
}

float halfBitsToFloat(uint16_t bits) {
  return halfTable().values[bits];
}

uint16_t floatToBFloat16Bits(float v) {
  uint32_t bits = floatBits(v);
  if (std::isnan(v))
    return 0x7fff; // the canonical NaN cvt.rn.bf16.f32 produces
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t floatToHalfBitsTowardZero(float v) {
  if (std::isnan(v))
    return 0x7fff;
  uint32_t bits = floatBits(v);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  bits &= 0x7fffffffu;
  uint16_t magnitude;
  if (bits == (255u << 23))
    magnitude = 0x7c00; // infinity stays infinite
  else if (bits >= (127u + 16) << 23)
    magnitude = 0x7bff; // 2^16 and beyond: truncated to the largest finite fp16, 65504
  else if (bits >= (113u << 23))
    magnitude = static_cast<uint16_t>((bits - (112u << 23)) >> 13); // rebias, drop 13 bits
  else
    // Below 2^-14: a subnormal, the value in units of 2^-24 truncated (the scaling is exact).
    magnitude = static_cast<uint16_t>(std::trunc(floatFromBits(bits) * 16777216.0f));
  return static_cast<uint16_t>(sign | magnitude);
}

uint16_t floatToBFloat16BitsTowardZero(float v) {
  if (std::isnan(v))
    return 0x7fff;
  return static_cast<uint16_t>(floatBits(v) >> 16);
}

uint8_t doubleToFp8Bits(double v, ScalarKind kind) {
  return static_cast<uint8_t>(encodeSmallFloat(v, formatOf(kind)));
}

float fp8BitsToFloat(uint8_t bits, ScalarKind kind) {
  return fp8Table(kind).values[bits];
}

double roundToFloatType(double v, ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F64:
    return v;
  case ScalarKind::F32:
    return static_cast<float>(v);
  default:
    return decodeSmallFloat(encodeSmallFloat(v, formatOf(kind)), formatOf(kind));
  }
}

float roundFloatLane(float v, ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F16:
    return halfBitsToFloat(floatToHalfBits(v));
  case ScalarKind::BF16:
    return bfloat16BitsToFloat(floatToBFloat16Bits(v));
  case ScalarKind::F8E4M3:
  case ScalarKind::F8E5M2:
    return fp8BitsToFloat(doubleToFp8Bits(v, kind), kind);
  default:
    return v;
  }
}

uint64_t floatLaneToBits(float v, ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F16:
    // A NaN decoded from fp16 bits (a load, a bitcast) gives them back, as the GPU moves them
    // unchanged; one that arithmetic made is the canonical 0x7fff (floatToHalfBits), as
    // the GPU's fp16 arithmetic makes it.
    if (std::isnan(v) && (floatBits(v) & kDecodedHalfNaN))
      return ((floatBits(v) >> 16) & 0x8000) | 0x7c00 | ((floatBits(v) >> 13) & 0x3ff);
    return floatToHalfBits(v);
  case ScalarKind::BF16:
    return floatToBFloat16Bits(v);
  case ScalarKind::F8E5M2:
    // A lane holds a representable value: e5m2's infinities are encoded, not saturated (a
    // loaded 0x7c, an rtz conversion of an fp16 infinity).
    if (std::isinf(v))
      return std::signbit(v) ? 0xFCu : 0x7Cu;
    return doubleToFp8Bits(v, kind);
  case ScalarKind::F8E4M3:
    return doubleToFp8Bits(v, kind);
  default:
    return floatBits(v);
  }
}

float bitsToFloatLane(uint64_t bits, ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F16:
    return halfBitsToFloat(static_cast<uint16_t>(bits));
  case ScalarKind::BF16:
    return bfloat16BitsToFloat(static_cast<uint16_t>(bits));
  case ScalarKind::F8E4M3:
  case ScalarKind::F8E5M2:
    return fp8BitsToFloat(static_cast<uint8_t>(bits), kind);
  default:
    return floatFromBits(static_cast<uint32_t>(bits));
  }
}

} // namespace tilec::interp
