// Numeric conversions between the IR's scalar dtypes, exactly as the GPU code performs them.
//
// The interpreter keeps every integer in an int64_t "lane" in canonical form (sign-extended for
// signed types, zero-extended for unsigned ones, 0 or 1 for i1), every fp8/fp16/bf16/fp32 value in
// a float (already rounded to its type), and every fp64 value in a double. These functions convert
// between that form and the bits that memory holds, and between dtypes, rounding to nearest even
// as PTX's cvt.rn does.
#pragma once

#include "tir/Types.h"

#include <cmath>
#include <cstdint>

namespace tilec::interp {

//===----------------------------------------------------------------------===//
// Integers
//===----------------------------------------------------------------------===//

/// Wraps `raw` to the width of the integer dtype `kind` and returns it in canonical form.
inline int64_t wrapInteger(uint64_t raw, tir::ScalarKind kind) {
  switch (kind) {
  case tir::ScalarKind::I1:
    return static_cast<int64_t>(raw & 1);
  case tir::ScalarKind::I8:
    return static_cast<int8_t>(raw);
  case tir::ScalarKind::I16:
    return static_cast<int16_t>(raw);
  case tir::ScalarKind::I32:
    return static_cast<int32_t>(raw);
  case tir::ScalarKind::U8:
  case tir::ScalarKind::F8E4B15:
    return static_cast<uint8_t>(raw);
  case tir::ScalarKind::U16:
    return static_cast<uint16_t>(raw);
  case tir::ScalarKind::U32:
    return static_cast<uint32_t>(raw);
  default:
    return static_cast<int64_t>(raw);
  }
}

/// Converts a float value to the integer dtype `kind` the way PTX `cvt.rzi` does: truncation
/// toward zero, saturation at the type's limits, NaN to 0. Conversion to i1 is `v != 0`.
int64_t floatToInteger(double v, tir::ScalarKind kind);

/// Converts an integer lane (signed or not, per `isUnsigned`) to the nearest value of the float
/// dtype `kind`, rounding once to nearest even. Returns it as a double (exactly representable).
double integerToFloat(int64_t lane, bool isUnsigned, tir::ScalarKind kind);

//===----------------------------------------------------------------------===//
// Floats
//===----------------------------------------------------------------------===//

/// IEEE maxNum/minNum as PTX max/min compute them: a NaN operand yields the other one, and +0 is
/// larger than -0.
template <typename F> F maxNum(F a, F b) {
  if (a != a)
    return b;
  if (b != b)
    return a;
  if (a > b)
    return a;
  if (b > a)
    return b;
  return std::signbit(a) ? b : a;
}

template <typename F> F minNum(F a, F b) {
  if (a != a)
    return b;
  if (b != b)
    return a;
  if (a < b)
    return a;
  if (b < a)
    return b;
  return std::signbit(a) ? a : b;
}

uint16_t floatToHalfBits(float v);
float halfBitsToFloat(uint16_t bits);
uint16_t floatToBFloat16Bits(float v);
inline float bfloat16BitsToFloat(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float result;
  __builtin_memcpy(&result, &wide, sizeof(result));
  return result;
}

/// fp32 to fp16 / bf16 bits rounding toward zero, as cvt.rz.f16.f32 and cvt.rz.bf16.f32: finite
/// values beyond the largest finite one give it (never infinity), NaN gives the canonical 0x7fff.
uint16_t floatToHalfBitsTowardZero(float v);
uint16_t floatToBFloat16BitsTowardZero(float v);

/// fp8 encodings as Hopper converts to them (`cvt.rn.satfinite`): round to nearest even, values
/// beyond the largest finite one (infinities included) saturate to it, NaN stays NaN.
/// `kind` is F8E4M3 (e4m3fn: no infinities, max 448) or F8E5M2 (max 57344).
uint8_t doubleToFp8Bits(double v, tir::ScalarKind kind);
float fp8BitsToFloat(uint8_t bits, tir::ScalarKind kind);

/// Rounds `v` once to the nearest value of the float dtype `kind` (any float kind, fp64 included).
double roundToFloatType(double v, tir::ScalarKind kind);

/// Rounds a float lane to its narrower float dtype: identity for F32, round to nearest even for
/// F16/BF16, saturating for fp8. Since float carries 24 bits, rounding an exact fp32 result of a
/// +,-,*,/ or sqrt of fp16/bf16 operands gives the correctly rounded fp16/bf16 result.
float roundFloatLane(float v, tir::ScalarKind kind);

/// The bits of an element of float dtype `kind` whose value is `v` (representable in that type),
/// and back. For F64 use the double overloads.
uint64_t floatLaneToBits(float v, tir::ScalarKind kind);
float bitsToFloatLane(uint64_t bits, tir::ScalarKind kind);

} // namespace tilec::interp
