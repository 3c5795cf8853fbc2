// Elementwise operations of the interpreter: arithmetic, comparisons, math, select and casts.
//
// Each entry point switches on the dtype once and runs a loop over plain lanes. Integer results are
// wrapped to the type's width; fp16/bf16/fp8 results are computed in float and rounded to the type
// after every operation (exactly what native fp16 arithmetic gives for + - * / sqrt, since float
// has more than twice their precision plus two bits).
#include "interp/Numerics.h"
#include "interp/Tensor.h"
#include "tir/Libdevice.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tilec::interp {

using tir::OpCode;
using tir::ScalarKind;

namespace {

//===----------------------------------------------------------------------===//
// Rounding and wrapping policies
//===----------------------------------------------------------------------===//

struct NoRounding {
  template <typename F> F operator()(F v) const { return v; }
};
struct RoundToHalf {
  float operator()(float v) const { return halfBitsToFloat(floatToHalfBits(v)); }
};
struct RoundToBFloat16 {
  float operator()(float v) const { return bfloat16BitsToFloat(floatToBFloat16Bits(v)); }
};
struct RoundToFp8 {
  ScalarKind kind;
  float operator()(float v) const { return roundFloatLane(v, kind); }
};

/// Calls `fn` with the policy that rounds a float lane to `kind` after an operation.
template <typename Fn> void withRounding(ScalarKind kind, Fn &&fn) {
  switch (kind) {
  case ScalarKind::F16:
    return fn(RoundToHalf{});
  case ScalarKind::BF16:
    return fn(RoundToBFloat16{});
  case ScalarKind::F8E4M3:
  case ScalarKind::F8E5M2:
    return fn(RoundToFp8{kind});
  default:
    return fn(NoRounding{});
  }
}

/// Wraps a 64-bit result to an integer dtype of `bits` width (canonical form) with two shifts or
/// one mask instead of a switch per lane.
template <bool Signed> struct IntWrap {
  explicit IntWrap(unsigned bits)
      : shift(64 - bits), mask(bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1) {}
  int64_t operator()(uint64_t v) const {
    if constexpr (Signed)
      return static_cast<int64_t>(v << shift) >> shift;
    else
      return static_cast<int64_t>(v & mask);
  }
  unsigned shift;
  uint64_t mask;
};

template <typename Fn> void withSignedness(tir::DType dtype, Fn &&fn) {
  if (dtype.isSigned())
    fn(std::true_type{});
  else
    fn(std::false_type{});
}

template <typename In, typename Out, typename Fn>
void mapBinary(const Tensor &a, const Tensor &b, Tensor &out, Fn fn) {
  const In *x = a.lanes<In>();
  const In *y = b.lanes<In>();
  Out *r = out.lanes<Out>();
  const int64_t n = out.numElements();
  for (int64_t i = 0; i < n; ++i)
    r[i] = fn(x[i], y[i]);
}

template <typename In, typename Out, typename Fn>
void mapUnary(const Tensor &a, Tensor &out, Fn fn) {
  const In *x = a.lanes<In>();
  Out *r = out.lanes<Out>();
  const int64_t n = out.numElements();
  for (int64_t i = 0; i < n; ++i)
    r[i] = fn(x[i]);
}

[[noreturn]] void failUndefined(OpCode code, tir::DType dtype, const ErrorReporter &errors) {
  errors.fail(std::string("'") + tir::opName(code) + "' is not defined on " + dtype.str());
}

//===----------------------------------------------------------------------===//
// Binary arithmetic
//===----------------------------------------------------------------------===//

template <typename F, typename Round>
void floatBinary(OpCode code, const Tensor &a, const Tensor &b, Tensor &out, Round round,
                 const ErrorReporter &errors) {
  switch (code) {
  case OpCode::Add:
    return mapBinary<F, F>(a, b, out, [round](F x, F y) { return round(x + y); });
  case OpCode::Sub:
    return mapBinary<F, F>(a, b, out, [round](F x, F y) { return round(x - y); });
  case OpCode::Mul:
    return mapBinary<F, F>(a, b, out, [round](F x, F y) { return round(x * y); });
  case OpCode::Div:
    return mapBinary<F, F>(a, b, out, [round](F x, F y) { return round(x / y); });
  case OpCode::Rem:
    // As the GPU computes Triton's frem: isinf(y) ? x : fma(-trunc(x / y), y, x), the division
    // rounded (not the exact fmod).
    return mapBinary<F, F>(a, b, out, [round](F x, F y) {
      return round(std::isinf(y) ? x : std::fma(-std::trunc(x / y), y, x));
    });
  case OpCode::Maximum:
    return mapBinary<F, F>(a, b, out, [](F x, F y) { return maxNum(x, y); });
  case OpCode::Minimum:
    return mapBinary<F, F>(a, b, out, [](F x, F y) { return minNum(x, y); });
  default:
    failUndefined(code, a.dtype(), errors);
  }
}

template <bool Signed>
void intBinary(OpCode code, const Tensor &a, const Tensor &b, Tensor &out,
               const ErrorReporter &errors) {
  const unsigned bits = a.dtype().bits();
  const IntWrap<Signed> wrap(bits);
  // Shift amounts are read as unsigned values of the operand type; PTX clamps amounts of the
  // type's width or more, so such shifts give 0 (or the sign for an arithmetic right shift).
  const uint64_t amountMask = wrap.mask;
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  auto checkDivisor = [&](const Tensor &divisor) {
    const int64_t *y = divisor.lanes<int64_t>();
    for (int64_t i = 0, n = divisor.numElements(); i < n; ++i)
      if (y[i] == 0)
        errors.fail(std::string("integer ") + (code == OpCode::Div ? "division" : "remainder") +
                    " by zero at index " + formatIndex(out.shape(), i));
  };
  switch (code) {
  case OpCode::Add:
    return mapBinary<int64_t, int64_t>(a, b, out,
                                       [=](int64_t x, int64_t y) { return wrap(u(x) + u(y)); });
  case OpCode::Sub:
    return mapBinary<int64_t, int64_t>(a, b, out,
                                       [=](int64_t x, int64_t y) { return wrap(u(x) - u(y)); });
  case OpCode::Mul:
    return mapBinary<int64_t, int64_t>(a, b, out,
                                       [=](int64_t x, int64_t y) { return wrap(u(x) * u(y)); });
  case OpCode::Div:
    checkDivisor(b);
    if constexpr (Signed)
      return mapBinary<int64_t, int64_t>(a, b, out, [=](int64_t x, int64_t y) {
        // INT64_MIN / -1 overflows in C++; the wrapped result is INT64_MIN, as for narrower types.
        if (y == -1)
          return wrap(0 - u(x));
        return wrap(u(x / y));
      });
    else
      return mapBinary<int64_t, int64_t>(a, b, out,
                                         [=](int64_t x, int64_t y) { return wrap(u(x) / u(y)); });
  case OpCode::Rem:
    checkDivisor(b);
    if constexpr (Signed)
      return mapBinary<int64_t, int64_t>(
          a, b, out, [](int64_t x, int64_t y) { return y == -1 ? int64_t(0) : x % y; });
    else
      return mapBinary<int64_t, int64_t>(
          a, b, out, [=](int64_t x, int64_t y) { return static_cast<int64_t>(u(x) % u(y)); });
  case OpCode::And:
    return mapBinary<int64_t, int64_t>(a, b, out, [](int64_t x, int64_t y) { return x & y; });
  case OpCode::Or:
    return mapBinary<int64_t, int64_t>(a, b, out, [](int64_t x, int64_t y) { return x | y; });
  case OpCode::Xor:
    return mapBinary<int64_t, int64_t>(a, b, out, [](int64_t x, int64_t y) { return x ^ y; });
  case OpCode::Shl:
    return mapBinary<int64_t, int64_t>(a, b, out, [=](int64_t x, int64_t y) {
      uint64_t amount = u(y) & amountMask;
      return amount >= bits ? int64_t(0) : wrap(u(x) << amount);
    });
  case OpCode::Shr:
    return mapBinary<int64_t, int64_t>(a, b, out, [=](int64_t x, int64_t y) {
      uint64_t amount = u(y) & amountMask;
      if constexpr (Signed) {
        if (amount >= bits)
          return x < 0 ? int64_t(-1) : int64_t(0);
        return x >> amount; // canonical lanes are sign-extended: an arithmetic shift
      } else {
        return amount >= bits ? int64_t(0) : static_cast<int64_t>(u(x) >> amount);
      }
    });
  case OpCode::MulHi:
    // Both operands read as unsigned, whatever their signedness (tl.umulhi).
    return mapBinary<int64_t, int64_t>(a, b, out, [=](int64_t x, int64_t y) {
      unsigned __int128 product = static_cast<unsigned __int128>(u(x) & wrap.mask) *
                                  static_cast<unsigned __int128>(u(y) & wrap.mask);
      return wrap(static_cast<uint64_t>(product >> bits));
    });
  case OpCode::Maximum:
    if constexpr (Signed)
      return mapBinary<int64_t, int64_t>(a, b, out,
                                         [](int64_t x, int64_t y) { return x > y ? x : y; });
    else
      return mapBinary<int64_t, int64_t>(a, b, out,
                                         [=](int64_t x, int64_t y) { return u(x) > u(y) ? x : y; });
  case OpCode::Minimum:
    if constexpr (Signed)
      return mapBinary<int64_t, int64_t>(a, b, out,
                                         [](int64_t x, int64_t y) { return x < y ? x : y; });
    else
      return mapBinary<int64_t, int64_t>(a, b, out,
                                         [=](int64_t x, int64_t y) { return u(x) < u(y) ? x : y; });
  default:
    failUndefined(code, a.dtype(), errors);
  }
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

/// `less` must be false for unordered operands, so that every predicate but ne is ordered.
template <typename T, typename Equal, typename Less>
void compareLanes(CmpPredicate predicate, const Tensor &a, const Tensor &b, Tensor &out,
                  Equal equal, Less less) {
  switch (predicate) {
  case CmpPredicate::Eq:
    return mapBinary<T, int64_t>(a, b, out, [=](T x, T y) -> int64_t { return equal(x, y); });
  case CmpPredicate::Ne:
    return mapBinary<T, int64_t>(a, b, out, [=](T x, T y) -> int64_t { return !equal(x, y); });
  case CmpPredicate::Lt:
    return mapBinary<T, int64_t>(a, b, out, [=](T x, T y) -> int64_t { return less(x, y); });
  case CmpPredicate::Le:
    return mapBinary<T, int64_t>(a, b, out,
                                 [=](T x, T y) -> int64_t { return less(x, y) || equal(x, y); });
  case CmpPredicate::Gt:
    return mapBinary<T, int64_t>(a, b, out, [=](T x, T y) -> int64_t { return less(y, x); });
  case CmpPredicate::Ge:
    return mapBinary<T, int64_t>(a, b, out,
                                 [=](T x, T y) -> int64_t { return less(y, x) || equal(x, y); });
  }
}

//===----------------------------------------------------------------------===//
// Unary math
//===----------------------------------------------------------------------===//

/// A float's denormal as a zero of its sign (fp32 only: doubles keep theirs).
template <typename F> F flushDenormalF32(F x) {
  if constexpr (std::is_same_v<F, float>)
    if (std::fpclassify(x) == FP_SUBNORMAL)
      return std::copysign(0.0f, x);
  return x;
}

template <typename F, typename Round>
void floatUnary(OpCode code, const Tensor &a, Tensor &out, Round round, const ErrorReporter &errors,
                bool approxSqrt) {
  auto map = [&](auto fn) { mapUnary<F, F>(a, out, [=](F x) { return round(fn(x)); }); };
  switch (code) {
  case OpCode::Neg:
    return map([](F x) { return -x; });
  case OpCode::Abs:
    return map([](F x) { return std::fabs(x); });
  case OpCode::Exp:
    return map([](F x) { return std::exp(x); });
  case OpCode::Exp2:
    return map([](F x) { return std::exp2(x); });
  case OpCode::Log:
    return map([](F x) { return std::log(x); });
  case OpCode::Log2:
    return map([](F x) { return std::log2(x); });
  case OpCode::Sqrt:
    if (approxSqrt)
      return map([](F x) { return std::sqrt(flushDenormalF32(x)); });
    return map([](F x) { return std::sqrt(x); });
  case OpCode::Rsqrt:
    return map([](F x) { return F(1) / std::sqrt(x); });
  case OpCode::Sin:
    return map([](F x) { return std::sin(x); });
  case OpCode::Cos:
    return map([](F x) { return std::cos(x); });
  // fp32 rounds with denormal inputs flushed to (signed) zero, as Triton's cvt.rmi.ftz does.
  case OpCode::Floor:
    return map([](F x) { return std::floor(flushDenormalF32(x)); });
  case OpCode::Ceil:
    return map([](F x) { return std::ceil(flushDenormalF32(x)); });
  case OpCode::Erf:
    return map([](F x) { return std::erf(x); });
  default:
    failUndefined(code, a.dtype(), errors);
  }
}

template <bool Signed>
void intUnary(OpCode code, const Tensor &a, Tensor &out, const ErrorReporter &errors) {
  const IntWrap<Signed> wrap(a.dtype().bits());
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  switch (code) {
  case OpCode::Neg:
    return mapUnary<int64_t, int64_t>(a, out, [=](int64_t x) { return wrap(0 - u(x)); });
  case OpCode::Not:
    return mapUnary<int64_t, int64_t>(a, out, [=](int64_t x) { return wrap(~u(x)); });
  case OpCode::Abs:
    if constexpr (Signed)
      return mapUnary<int64_t, int64_t>(a, out,
                                        [=](int64_t x) { return x < 0 ? wrap(0 - u(x)) : x; });
    else
      return mapUnary<int64_t, int64_t>(a, out, [](int64_t x) { return x; });
  default:
    failUndefined(code, a.dtype(), errors);
  }
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

uint64_t bitsMask(unsigned bits) {
  return bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}

} // namespace

void evalBinary(OpCode code, const Tensor &lhs, const Tensor &rhs, Tensor &out,
                const ErrorReporter &errors) {
  tir::DType dtype = lhs.dtype();
  switch (lhs.laneKind()) {
  case LaneKind::Int:
    return withSignedness(dtype, [&](auto isSigned) {
      intBinary<decltype(isSigned)::value>(code, lhs, rhs, out, errors);
    });
  case LaneKind::Float:
    return withRounding(
        dtype.kind, [&](auto round) { floatBinary<float>(code, lhs, rhs, out, round, errors); });
  case LaneKind::Double:
    return floatBinary<double>(code, lhs, rhs, out, NoRounding{}, errors);
  case LaneKind::Ptr:
    failUndefined(code, dtype, errors);
  }
}

void evalMaxMinPropagatingNan(OpCode code, const Tensor &lhs, const Tensor &rhs, Tensor &out,
                              const ErrorReporter &errors) {
  evalBinary(code, lhs, rhs, out, errors);
  // Where either operand is NaN, the result is the canonical NaN `nanBits`.
  auto propagate = [&](auto lane, auto nanBits) {
    using T = decltype(lane);
    static_assert(sizeof(T) == sizeof(nanBits));
    const T *x = lhs.lanes<T>(), *y = rhs.lanes<T>();
    T *r = out.lanes<T>();
    T nan;
    std::memcpy(&nan, &nanBits, sizeof(nan));
    for (int64_t i = 0, n = out.numElements(); i < n; ++i)
      if (x[i] != x[i] || y[i] != y[i])
        r[i] = nan;
  };
  if (lhs.laneKind() == LaneKind::Double)
    propagate(double{}, uint64_t{0x7ff8000000000000u});
  else if (lhs.laneKind() == LaneKind::Float)
    // fp16/bf16 lanes store any NaN as 0x7fff; an fp32 lane keeps these bits.
    propagate(float{}, uint32_t{0x7fffffffu});
}

void evalClip(const Tensor &x, const Tensor &limit, Tensor &out, bool propagateNan) {
  const float *xs = x.lanes<float>(), *ls = limit.lanes<float>();
  float *r = out.lanes<float>();
  const uint32_t canonicalNan = 0x7fffffffu;
  for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
    float a = xs[i], c = ls[i];
    if (propagateNan && (a != a || c != c)) {
      std::memcpy(&r[i], &canonicalNan, sizeof(float));
      continue;
    }
    float magnitude = a != a   ? std::fabs(c)
                      : c != c ? std::fabs(a)
                               : std::fmin(std::fabs(a), std::fabs(c));
    r[i] = std::signbit(a) != std::signbit(c) ? -magnitude : magnitude;
  }
}

void evalCastTowardZero(const Tensor &in, Tensor &out) {
  if (out.dtype().kind == ScalarKind::F8E5M2) {
    // fp8e5m2 is fp16 without the low byte: truncating it rounds toward zero. An fp16 input is
    // taken as it is (an infinity stays one), an fp32 one rounded toward zero to fp16 first.
    if (in.dtype().kind == ScalarKind::F16)
      return mapUnary<float, float>(in, out, [](float x) {
        return halfBitsToFloat(static_cast<uint16_t>(floatToHalfBits(x) & 0xFF00u));
      });
    return mapUnary<float, float>(in, out, [](float x) {
      return halfBitsToFloat(static_cast<uint16_t>(floatToHalfBitsTowardZero(x) & 0xFF00u));
    });
  }
  if (out.dtype().kind == ScalarKind::BF16)
    return mapUnary<float, float>(
        in, out, [](float x) { return bfloat16BitsToFloat(floatToBFloat16BitsTowardZero(x)); });
  mapUnary<float, float>(in, out,
                         [](float x) { return halfBitsToFloat(floatToHalfBitsTowardZero(x)); });
}

bool parseCmpPredicate(const std::string &text, CmpPredicate &out) {
  static const std::pair<const char *, CmpPredicate> table[] = {
      {"eq", CmpPredicate::Eq}, {"ne", CmpPredicate::Ne}, {"lt", CmpPredicate::Lt},
      {"le", CmpPredicate::Le}, {"gt", CmpPredicate::Gt}, {"ge", CmpPredicate::Ge}};
  for (const auto &[name, predicate] : table) {
    if (text == name) {
      out = predicate;
      return true;
    }
  }
  return false;
}

void evalCmp(CmpPredicate predicate, const Tensor &lhs, const Tensor &rhs, Tensor &out,
             const ErrorReporter &errors) {
  switch (lhs.laneKind()) {
  case LaneKind::Int:
    if (lhs.dtype().isSigned())
      return compareLanes<int64_t>(
          predicate, lhs, rhs, out, [](int64_t x, int64_t y) { return x == y; },
          [](int64_t x, int64_t y) { return x < y; });
    return compareLanes<int64_t>(
        predicate, lhs, rhs, out, [](int64_t x, int64_t y) { return x == y; },
        [](int64_t x, int64_t y) { return static_cast<uint64_t>(x) < static_cast<uint64_t>(y); });
  case LaneKind::Float:
    return compareLanes<float>(
        predicate, lhs, rhs, out, [](float x, float y) { return x == y; },
        [](float x, float y) { return x < y; });
  case LaneKind::Double:
    return compareLanes<double>(
        predicate, lhs, rhs, out, [](double x, double y) { return x == y; },
        [](double x, double y) { return x < y; });
  case LaneKind::Ptr:
    // Pointers into different buffers are ordered by buffer; only eq/ne are meaningful there.
    return compareLanes<PtrLane>(
        predicate, lhs, rhs, out,
        [](PtrLane x, PtrLane y) { return x.buffer == y.buffer && x.byteOffset == y.byteOffset; },
        [](PtrLane x, PtrLane y) {
          return x.buffer != y.buffer ? x.buffer < y.buffer : x.byteOffset < y.byteOffset;
        });
  }
  (void)errors;
}

void evalUnary(OpCode code, const Tensor &operand, Tensor &out, const ErrorReporter &errors,
               bool approxSqrt) {
  tir::DType dtype = operand.dtype();
  switch (operand.laneKind()) {
  case LaneKind::Int:
    return withSignedness(dtype, [&](auto isSigned) {
      intUnary<decltype(isSigned)::value>(code, operand, out, errors);
    });
  case LaneKind::Float:
    if (code == OpCode::Not)
      failUndefined(code, dtype, errors);
    // abs of fp8 clears the sign bit (as the GPU does): the magnitude is exact, and rounding
    // would saturate an e5m2 infinity.
    if (code == OpCode::Abs && dtype.isFp8())
      return floatUnary<float>(code, operand, out, NoRounding{}, errors, approxSqrt);
    return withRounding(dtype.kind, [&](auto round) {
      floatUnary<float>(code, operand, out, round, errors, approxSqrt);
    });
  case LaneKind::Double:
    if (code == OpCode::Not)
      failUndefined(code, dtype, errors);
    return floatUnary<double>(code, operand, out, NoRounding{}, errors, false);
  case LaneKind::Ptr:
    failUndefined(code, dtype, errors);
  }
}

void evalFma(const Tensor &a, const Tensor &b, const Tensor &c, Tensor &out,
             const ErrorReporter &errors) {
  const int64_t n = out.numElements();
  ScalarKind kind = a.dtype().kind;
  switch (a.laneKind()) {
  case LaneKind::Float: {
    const float *x = a.lanes<float>(), *y = b.lanes<float>(), *z = c.lanes<float>();
    float *r = out.lanes<float>();
    if (kind == ScalarKind::F32) {
      for (int64_t i = 0; i < n; ++i)
        r[i] = std::fma(x[i], y[i], z[i]);
      return;
    }
    // Narrow types: the product is exact in double and the sum is rounded once there, then once
    // more to the type, as close to a fused fp16 fma as double allows.
    for (int64_t i = 0; i < n; ++i)
      r[i] = static_cast<float>(
          roundToFloatType(std::fma(double(x[i]), double(y[i]), double(z[i])), kind));
    return;
  }
  case LaneKind::Double: {
    const double *x = a.lanes<double>(), *y = b.lanes<double>(), *z = c.lanes<double>();
    double *r = out.lanes<double>();
    for (int64_t i = 0; i < n; ++i)
      r[i] = std::fma(x[i], y[i], z[i]);
    return;
  }
  default:
    failUndefined(OpCode::Fma, a.dtype(), errors);
  }
}

/// The inverse error function, which the C library lacks: Giles' single-precision approximation
/// refined by Newton steps on erf to double precision.
double erfinv(double x) {
  if (std::isnan(x) || x < -1 || x > 1)
    return std::numeric_limits<double>::quiet_NaN();
  if (x == 1 || x == -1)
    return std::copysign(std::numeric_limits<double>::infinity(), x);
  double w = -std::log((1.0 - x) * (1.0 + x)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941})
      p = c + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                     0.00943887047, 1.00167406, 2.83297682})
      p = c + p * w;
  }
  double y = p * x;
  const double twoOverSqrtPi = 1.1283791670955126;
  for (int i = 0; i < 3; ++i) {
    double slope = twoOverSqrtPi * std::exp(-y * y);
    if (slope == 0)
      break;
    y -= (std::erf(y) - x) / slope;
  }
  return y;
}

/// One libdevice function on one lane, with the C library's function of the lane's type.
template <typename F> double libdeviceLane(const std::string &fn, const F *x) {
  F a = x[0], b = x[1], c = x[2];
  if (fn == "rsqrt")
    return F(1) / std::sqrt(a);
  if (fn == "sqrt")
    return std::sqrt(a);
  if (fn == "cbrt")
    return std::cbrt(a);
  if (fn == "tanh")
    return std::tanh(a);
  if (fn == "exp" || fn == "fast_expf")
    return std::exp(a);
  if (fn == "exp2")
    return std::exp2(a);
  if (fn == "exp10" || fn == "fast_exp10f")
    return std::pow(F(10), a);
  // The fast_* functions are approximations on the GPU; the interpreter computes the exact ones.
  if (fn == "fast_log2f")
    return std::log2(a);
  if (fn == "fast_log10f")
    return std::log10(a);
  if (fn == "fast_sinf")
    return std::sin(a);
  if (fn == "fast_cosf")
    return std::cos(a);
  if (fn == "fast_tanf")
    return std::tan(a);
  if (fn == "fast_powf")
    return std::pow(a, b);
  if (fn == "fast_dividef")
    return a / b;
  if (fn == "expm1")
    return std::expm1(a);
  if (fn == "log" || fn == "fast_logf")
    return std::log(a);
  if (fn == "log2")
    return std::log2(a);
  if (fn == "log10")
    return std::log10(a);
  if (fn == "log1p")
    return std::log1p(a);
  if (fn == "pow")
    return std::pow(a, b);
  if (fn == "erf")
    return std::erf(a);
  if (fn == "erfc")
    return std::erfc(a);
  if (fn == "erfinv")
    return erfinv(static_cast<double>(a));
  if (fn == "sin")
    return std::sin(a);
  if (fn == "cos")
    return std::cos(a);
  if (fn == "tan")
    return std::tan(a);
  if (fn == "asin")
    return std::asin(a);
  if (fn == "acos")
    return std::acos(a);
  if (fn == "atan")
    return std::atan(a);
  if (fn == "atan2")
    return std::atan2(a, b);
  if (fn == "sinh")
    return std::sinh(a);
  if (fn == "cosh")
    return std::cosh(a);
  if (fn == "asinh")
    return std::asinh(a);
  if (fn == "acosh")
    return std::acosh(a);
  if (fn == "atanh")
    return std::atanh(a);
  if (fn == "floor")
    return std::floor(a);
  if (fn == "ceil")
    return std::ceil(a);
  if (fn == "round")
    return std::round(a); // halfway cases away from zero, as __nv_roundf
  if (fn == "rint" || fn == "nearbyint")
    return std::nearbyint(a); // halfway cases to even in the default rounding mode
  if (fn == "trunc")
    return std::trunc(a);
  if (fn == "fabs")
    return std::fabs(a);
  if (fn == "fmod")
    return std::fmod(a, b);
  if (fn == "fmin")
    return std::fmin(a, b);
  if (fn == "fmax")
    return std::fmax(a, b);
  if (fn == "hypot")
    return std::hypot(a, b);
  if (fn == "copysign")
    return std::copysign(a, b);
  // The special functions in double, as the C library has them (j0 and the like are POSIX's).
  const double d = static_cast<double>(a);
  const double pi = 3.14159265358979323846;
  if (fn == "lgamma")
    return std::lgamma(a);
  if (fn == "tgamma")
    return std::tgamma(a);
  if (fn == "j0")
    return ::j0(d);
  if (fn == "j1")
    return ::j1(d);
  if (fn == "y0")
    return ::y0(d);
  if (fn == "y1")
    return ::y1(d);
  if (fn == "cyl_bessel_i0")
    return std::cyl_bessel_i(0.0, std::fabs(d));
  if (fn == "cyl_bessel_i1")
    return std::copysign(std::cyl_bessel_i(1.0, std::fabs(d)), d);
  if (fn == "erfcx")
    return std::exp(d * d) * std::erfc(d);
  if (fn == "normcdf")
    return 0.5 * std::erfc(-d / std::sqrt(2.0));
  if (fn == "sinpi")
    return std::sin(pi * d);
  if (fn == "cospi")
    return std::cos(pi * d);
  if (fn == "logb")
    return std::logb(a);
  if (fn == "nextafter")
    return std::nextafter(a, b);
  if (fn == "remainder")
    return std::remainder(a, b);
  if (fn == "fdim")
    return std::fdim(a, b);
  if (fn == "isnan")
    return std::isnan(a) ? 1 : 0;
  if (fn == "isinf")
    return std::isinf(a) ? 1 : 0;
  if (fn == "signbit")
    return std::signbit(a) ? 1 : 0;
  if (fn == "div_rn")
    return a / b;
  if (fn == "fma")
    return std::fma(a, b, c);
  throw std::logic_error("libdevice function '" + fn + "' has no interpreter implementation");
}

void evalLibdevice(const tir::LibdeviceFunction &fn, const std::vector<const Tensor *> &operands,
                   Tensor &out, const ErrorReporter &errors) {
  const int64_t n = out.numElements();
  const LaneKind kind = operands[0]->laneKind();
  if (kind != LaneKind::Float && kind != LaneKind::Double)
    errors.fail(std::string("libdevice.") + fn.name + " is not defined on " +
                operands[0]->dtype().str());
  const std::string name = fn.name;
  auto run = [&](auto tag) {
    using F = decltype(tag);
    F lane[3] = {0, 0, 0};
    for (int64_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < operands.size(); ++k)
        lane[k] = operands[k]->lanes<F>()[i];
      double r = libdeviceLane<F>(name, lane);
      if (fn.returnsInt)
        out.lanes<int64_t>()[i] = static_cast<int64_t>(r);
      else
        out.lanes<F>()[i] = static_cast<F>(r);
    }
  };
  if (kind == LaneKind::Float)
    run(float{});
  else
    run(double{});
}

void evalSelect(const Tensor &cond, const Tensor &ifTrue, const Tensor &ifFalse, Tensor &out) {
  visitLaneType(out.laneKind(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t *c = cond.lanes<int64_t>();
    const T *x = ifTrue.lanes<T>(), *y = ifFalse.lanes<T>();
    T *r = out.lanes<T>();
    const int64_t n = out.numElements();
    if (cond.numElements() == 1) {
      const T *chosen = c[0] ? x : y;
      std::copy(chosen, chosen + n, r);
      return;
    }
    for (int64_t i = 0; i < n; ++i)
      r[i] = c[i] ? x[i] : y[i];
  });
}

void evalCast(const Tensor &in, Tensor &out) {
  const ScalarKind to = out.dtype().kind;
  const bool fromUnsigned = in.dtype().isUnsigned();
  const LaneKind fromLanes = in.laneKind(), toLanes = out.laneKind();
  if (fromLanes == LaneKind::Int) {
    switch (toLanes) {
    case LaneKind::Int:
      if (to == ScalarKind::I1)
        return mapUnary<int64_t, int64_t>(in, out, [](int64_t x) -> int64_t { return x != 0; });
      // Canonical lanes are already sign- or zero-extended per the source's signedness.
      return mapUnary<int64_t, int64_t>(
          in, out, [to](int64_t x) { return wrapInteger(static_cast<uint64_t>(x), to); });
    case LaneKind::Float:
      if (to == ScalarKind::F32 && !fromUnsigned)
        return mapUnary<int64_t, float>(in, out, [](int64_t x) { return static_cast<float>(x); });
      return mapUnary<int64_t, float>(in, out, [=](int64_t x) {
        return static_cast<float>(integerToFloat(x, fromUnsigned, to));
      });
    case LaneKind::Double:
      return mapUnary<int64_t, double>(
          in, out, [=](int64_t x) { return integerToFloat(x, fromUnsigned, to); });
    case LaneKind::Ptr:
      break;
    }
  } else if (fromLanes == LaneKind::Float) {
    // A NaN converts to a plain NaN of its sign: the fp16 bits that a loaded one carries
    // (halfBitsToFloat) are no wider type's.
    auto plain = [](float x) { return std::isnan(x) ? std::copysign(NAN, x) : x; };
    switch (toLanes) {
    case LaneKind::Int:
      return mapUnary<float, int64_t>(in, out, [to](float x) { return floatToInteger(x, to); });
    case LaneKind::Float:
      return withRounding(to, [&](auto round) {
        mapUnary<float, float>(in, out, [&](float x) { return round(plain(x)); });
      });
    case LaneKind::Double:
      return mapUnary<float, double>(in, out,
                                     [&](float x) { return static_cast<double>(plain(x)); });
    case LaneKind::Ptr:
      break;
    }
  } else if (fromLanes == LaneKind::Double) {
    switch (toLanes) {
    case LaneKind::Int:
      return mapUnary<double, int64_t>(in, out, [to](double x) { return floatToInteger(x, to); });
    case LaneKind::Float:
      if (to == ScalarKind::F32)
        return mapUnary<double, float>(in, out, [](double x) { return static_cast<float>(x); });
      // Round once from double: going through float could round twice.
      return mapUnary<double, float>(
          in, out, [to](double x) { return static_cast<float>(roundToFloatType(x, to)); });
    case LaneKind::Double:
      return mapUnary<double, double>(in, out, [](double x) { return x; });
    case LaneKind::Ptr:
      break;
    }
  }
}

void evalBitcast(const Tensor &in, Tensor &out, const ErrorReporter &errors) {
  tir::DType from = in.dtype(), to = out.dtype();
  if (from.bits() != to.bits())
    errors.fail("bitcast from " + from.str() + " to " + to.str() + " changes the width");
  const int64_t n = out.numElements();
  const uint64_t mask = bitsMask(from.bits());
  for (int64_t i = 0; i < n; ++i) {
    uint64_t bits;
    switch (in.laneKind()) {
    case LaneKind::Int:
      bits = static_cast<uint64_t>(in.lanes<int64_t>()[i]) & mask;
      break;
    case LaneKind::Float:
      bits = floatLaneToBits(in.lanes<float>()[i], from.kind);
      break;
    default:
      std::memcpy(&bits, &in.lanes<double>()[i], sizeof(bits));
      break;
    }
    switch (out.laneKind()) {
    case LaneKind::Int:
      out.lanes<int64_t>()[i] = wrapInteger(bits, to.kind);
      break;
    case LaneKind::Float:
      out.lanes<float>()[i] = bitsToFloatLane(bits, to.kind);
      break;
    default:
      std::memcpy(&out.lanes<double>()[i], &bits, sizeof(bits));
      break;
    }
  }
}

} // namespace tilec::interp
