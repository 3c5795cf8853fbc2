// libdevice's functions with integer operands or results, its conversions and its rounding modes
// (kernels/libdevice_int.tl) on the interpreter, against references written here from the
// functions' definitions (the C library where it has them). Bit-exact: these operations are.
// Triton answers __nvvm_reflect("__CUDA_FTZ") with 1, so libdevice's fp32 functions flush
// denormal operands and results: the references do too.
#include "SeedKernelTestUtil.h"

#include <cfenv>
#include <climits>
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

const int64_t n = 301;
const double inf = std::numeric_limits<double>::infinity();
const double nan = std::numeric_limits<double>::quiet_NaN();

std::string kernelPath() { return std::string(TILEC_LANGUAGE_KERNELS_DIR) + "/libdevice_int.tl"; }

uint64_t mix(uint64_t i, uint64_t salt) {
  uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull ^ (salt * 0xBF58476D1CE4E5B9ull);
  z ^= z >> 31;
  z *= 0x94D049BB133111EBull;
  return z ^ (z >> 29);
}

/// Edge cases first, then pseudo-random values over the whole range.
int64_t int32Input(int64_t i, uint64_t salt) {
  const int64_t edges[] = {0, 1, -1, INT32_MAX, INT32_MIN, 2, 0x00800000, -0x00800000, 0xFFFFFF};
  if (i < 9)
    return edges[(i + salt) % 9];
  uint64_t r = mix(i, salt);
  return int32_t(i % 3 == 0 ? uint32_t(r) & 0x0F0F00FFu : uint32_t(r));
}
int64_t int64Input(int64_t i, uint64_t salt) {
  const int64_t edges[] = {0, 1, -1, INT64_MAX, INT64_MIN, INT32_MAX, INT32_MIN, 1ll << 40};
  if (i < 8)
    return edges[(i + salt) % 8];
  uint64_t r = mix(i, salt);
  return int64_t(i % 3 == 0 ? r >> (r % 61) : r);
}
double floatInput(int64_t i) {
  const double edges[] = {nan,    inf,     -inf,   0.0,     -0.0,    0.5,   1.5,   2.5,
                          -0.5,   -1.5,    -2.5,   1e-40,   -1e-40,  3e9,   -3e9,  4.5e9,
                          1e19,   -1e19,   2e19,   1e30,    -1e30,   0.75,  -0.75, 16777217.0,
                          2147483520.0, -2147483648.0, 4294967040.0, 9.2233715e18, 1.0, -1.0};
  const int64_t count = sizeof(edges) / sizeof(edges[0]);
  if (i < count)
    return static_cast<float>(edges[i]);
  uint64_t r = mix(i, 7);
  double mag = std::ldexp(double(r % 1000003) / 1000003.0, int(r >> 40) % 70 - 35);
  return static_cast<float>((r & 1) ? -mag : mag);
}
double doubleInput(int64_t i) {
  const double edges[] = {nan,           inf,          -inf,          0.0,       -0.0,
                          0.5,           2.5,          -2.5,          1e-310,    -1e-310,
                          4294967295.5,  2147483647.5, -2147483648.5, 1e300,     -1e300,
                          1e19,          -9.3e18,      3.4e38,        3.5e38,    1e-39,
                          -7.006e-46,    1.0000000000000002, 123456789.5, -0.75};
  const int64_t count = sizeof(edges) / sizeof(edges[0]);
  if (i < count)
    return edges[i];
  uint64_t r = mix(i, 11);
  double mag = std::ldexp(double(r % 100000007) / 100000007.0, int(r >> 40) % 140 - 70);
  return (r & 1) ? -mag : mag;
}

float ftz(float v) { return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v; }

uint32_t bitsOf(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
uint64_t bitsOf(double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}

/// cvt's float-to-integer rule: rounded in `mode`, saturated at the limits; NaN is 0 from fp32 to
/// 32 bits, the sign bit alone otherwise (what an H100 gives, Triton's kernels and tilec's alike).
int64_t toInt(double v, int mode, double lo, double hi, bool fromDouble) {
  bool wide = hi >= 9.2e18;
  if (std::isnan(v))
    return !fromDouble && !wide ? 0 : wide ? INT64_MIN : int64_t(INT32_MIN);
  double r = mode == FE_TOWARDZERO ? std::trunc(v)
             : mode == FE_DOWNWARD ? std::floor(v)
             : mode == FE_UPWARD   ? std::ceil(v)
                                   : std::nearbyint(v);
  if (r <= lo)
    return static_cast<int64_t>(lo);
  if (r >= hi)
    return hi >= 1.8e19 ? int64_t(-1) : hi >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(hi);
  return r < 0 ? static_cast<int64_t>(r) : static_cast<int64_t>(static_cast<uint64_t>(r));
}
const double kI32[] = {-2147483648.0, 2147483647.0};
const double kU32[] = {0.0, 4294967295.0};
const double kI64[] = {-9223372036854775808.0, 9223372036854775808.0};
const double kU64[] = {0.0, 18446744073709551616.0};

template <typename To, typename From> To convertIn(int mode, From v) {
  int old = std::fegetround();
  std::fesetround(mode);
  volatile From x = v;
  volatile To y = static_cast<To>(x);
  std::fesetround(old);
  return y;
}

int ilogbRef(double v) {
  if (std::isnan(v) || v == 0)
    return INT_MIN;
  if (std::isinf(v))
    return INT_MAX;
  return std::ilogb(v);
}

/// The same value, NaNs alike, zeros by sign.
bool sameFloat(double got, double want) {
  if (std::isnan(want))
    return std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}

} // namespace

TEST_CASE("libdevice integer functions: bits, high products, 24-bit products, sad, halving adds",
          "[language][libdevice]") {
  auto module = compile(kernelPath(), "libdevice_bits",
                        "*i32:16,*i32:16,*i32:16,*i64:16,*i64:16,*i32:16,*i64:16,i32,128");
  HostBuffer a(i32, n), b(i32, n), c(i32, n), la(i64, n), lb(i64, n), o32(i32, 20 * n),
      o64(i64, 4 * n);
  for (int64_t i = 0; i < n; ++i) {
    a.setInt(i, int32Input(i, 0));
    b.setInt(i, int32Input(i, 3));
    c.setInt(i, int32Input(i, 5));
    la.setInt(i, int64Input(i, 0));
    lb.setInt(i, int64Input(i, 3));
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(a), KernelArg::pointer(b), KernelArg::pointer(c), KernelArg::pointer(la),
          KernelArg::pointer(lb), KernelArg::pointer(o32), KernelArg::pointer(o64),
          KernelArg::integer(n)},
         cdiv(n, 128));
  auto clzRef = [](uint64_t x, int bits) {
    int k = 0;
    while (k < bits && !((x >> (bits - 1 - k)) & 1))
      ++k;
    return k;
  };
  auto popcRef = [](uint64_t x) {
    int k = 0;
    for (; x; x &= x - 1)
      ++k;
    return k;
  };
  auto ffsRef = [](uint64_t x, int bits) {
    for (int k = 0; k < bits; ++k)
      if ((x >> k) & 1)
        return k + 1;
    return 0;
  };
  auto floorHalf = [](int64_t s) { return s >= 0 ? s / 2 : -((-s + 1) / 2); };
  for (int64_t i = 0; i < n; ++i) {
    int32_t x = int32_t(a.getInt(i)), y = int32_t(b.getInt(i)), z = int32_t(c.getInt(i));
    uint32_t ux = uint32_t(x), uy = uint32_t(y), uz = uint32_t(z);
    int64_t lx = la.getInt(i), ly = lb.getInt(i);
    uint32_t rev = 0;
    for (int k = 0; k < 32; ++k)
      rev = (rev << 1) | ((ux >> k) & 1);
    uint64_t revll = 0;
    for (int k = 0; k < 64; ++k)
      revll = (revll << 1) | ((uint64_t(lx) >> k) & 1);
    // prmt: bytes 0-3 of the pair are x's, 4-7 y's; each selector nibble (low 3 bits) picks one.
    uint8_t pair[8];
    for (int k = 0; k < 4; ++k) {
      pair[k] = uint8_t(ux >> (8 * k));
      pair[k + 4] = uint8_t(uy >> (8 * k));
    }
    uint32_t perm = 0;
    for (int k = 0; k < 4; ++k)
      perm |= uint32_t(pair[(uz >> (4 * k)) & 7]) << (8 * k);
    auto low24 = [](uint32_t v) { return int64_t(v & 0x7FFFFF) - int64_t(v & 0x800000); };
    int64_t diff = int64_t(x) - int64_t(y), udiff = int64_t(ux) - int64_t(uy);
    int64_t want32[20] = {
        clzRef(ux, 32),
        clzRef(uint64_t(lx), 64),
        popcRef(ux),
        popcRef(uint64_t(lx)),
        ffsRef(ux, 32),
        ffsRef(uint64_t(lx), 64),
        int32_t(rev),
        int32_t(perm),
        int32_t((int64_t(x) * y) >> 32),
        int32_t((uint64_t(ux) * uy) >> 32),
        int32_t(uint32_t(low24(ux) * low24(uy))),
        int32_t(uint32_t(uint64_t(ux & 0xFFFFFF) * (uy & 0xFFFFFF))),
        int32_t(uint32_t(uint64_t(diff < 0 ? -diff : diff) + uz)),
        int32_t(uint32_t(uint64_t(udiff < 0 ? -udiff : udiff) + uz)),
        floorHalf(int64_t(x) + y),
        int32_t(uint32_t((uint64_t(ux) + uy) / 2)),
        -floorHalf(-(int64_t(x) + y)),
        int32_t(uint32_t((uint64_t(ux) + uy + 1) / 2)),
        x == INT32_MIN ? INT32_MIN : (x < 0 ? -x : x),
        int32_t(uint32_t(low24(ux) * 3)),
    };
    for (int k = 0; k < 20; ++k) {
      INFO("result " << k << " of x=" << x << " y=" << y << " z=" << z << " lx=" << lx);
      CHECK(o32.getInt(k * n + i) == want32[k]);
    }
    using I128 = __int128;
    using U128 = unsigned __int128;
    int64_t want64[4] = {
        int64_t(revll),
        int64_t((I128(lx) * I128(ly)) >> 64),
        int64_t(uint64_t((U128(uint64_t(lx)) * U128(uint64_t(ly))) >> 64)),
        lx == INT64_MIN ? INT64_MIN : (lx < 0 ? -lx : lx),
    };
    for (int k = 0; k < 4; ++k) {
      INFO("64-bit result " << k << " of lx=" << lx << " ly=" << ly);
      CHECK(o64.getInt(k * n + i) == want64[k]);
    }
  }
}

TEST_CASE("libdevice conversions: float/int in four rounding modes, bits, ilogb, llrint, ldexp",
          "[language][libdevice]") {
  auto module =
      compile(kernelPath(), "libdevice_convert",
              "*fp32:16,*fp64:16,*i32:16,*i64:16,*i32:16,*i64:16,*fp32:16,*fp64:16,i32,128");
  HostBuffer x(f32, n), d(f64, n), a(i32, n), la(i64, n), o32(i32, 22 * n), o64(i64, 10 * n),
      of(f32, 16 * n), od(f64, 7 * n);
  for (int64_t i = 0; i < n; ++i) {
    x.setDouble(i, floatInput(i));
    d.setDouble(i, doubleInput(i));
    a.setInt(i, int32Input(i, 1));
    la.setInt(i, int64Input(i, 1));
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(d), KernelArg::pointer(a), KernelArg::pointer(la),
          KernelArg::pointer(o32), KernelArg::pointer(o64), KernelArg::pointer(of),
          KernelArg::pointer(od), KernelArg::integer(n)},
         cdiv(n, 128));
  const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  for (int64_t i = 0; i < n; ++i) {
    float xv = static_cast<float>(x.getDouble(i));
    float xf = ftz(xv); // libdevice's fp32 conversions are the .ftz forms
    double dv = d.getDouble(i);
    int32_t av = int32_t(a.getInt(i));
    int64_t lv = la.getInt(i);
    int32_t e = av % 300;
    auto u32bits = [](int64_t v) { return int64_t(int32_t(uint32_t(v))); };
    int64_t want32[22];
    for (int r = 0; r < 4; ++r) {
      want32[r] = toInt(xf, modes[r], kI32[0], kI32[1], false);
      want32[4 + r] = u32bits(toInt(xf, modes[r], kU32[0], kU32[1], false));
      want32[8 + r] = toInt(dv, modes[r], kI32[0], kI32[1], true);
    }
    want32[12] = u32bits(toInt(dv, FE_TONEAREST, kU32[0], kU32[1], true));
    want32[13] = u32bits(toInt(dv, FE_UPWARD, kU32[0], kU32[1], true));
    want32[14] = want32[15] = int32_t(bitsOf(xv));
    want32[16] = int32_t(bitsOf(dv) >> 32);
    want32[17] = int32_t(uint32_t(bitsOf(dv)));
    want32[18] = ilogbRef(xf);
    want32[19] = ilogbRef(dv);
    want32[20] = std::isfinite(xv);
    want32[21] = std::isfinite(dv);
    for (int k = 0; k < 22; ++k) {
      INFO("int32 result " << k << " of x=" << xv << " d=" << dv);
      CHECK(o32.getInt(k * n + i) == want32[k]);
    }
    // llrint: round half to even (std::llrint in the default mode) within range.
    auto llrintRef = [](double v) {
      if (std::isnan(v) || v < -9223372036854775808.0)
        return INT64_MIN;
      if (v >= 9223372036854775808.0)
        return INT64_MAX;
      return int64_t(std::llrint(v));
    };
    auto llroundRef = [](double v) {
      if (std::isnan(v) || v <= -9223372036854775808.0)
        return INT64_MIN;
      if (v >= 9223372036854775808.0)
        return INT64_MAX;
      return int64_t(std::llround(v));
    };
    int64_t want64[10] = {
        llrintRef(xf),
        llrintRef(dv),
        llroundRef(xf),
        llroundRef(dv),
        toInt(xf, FE_TONEAREST, kI64[0], kI64[1], false),
        toInt(xf, FE_DOWNWARD, kI64[0], kI64[1], false),
        toInt(xf, FE_TOWARDZERO, kU64[0], kU64[1], false),
        toInt(dv, FE_UPWARD, kI64[0], kI64[1], true),
        toInt(dv, FE_TONEAREST, kU64[0], kU64[1], true),
        int64_t(bitsOf(dv)),
    };
    for (int k = 0; k < 10; ++k) {
      INFO("int64 result " << k << " of x=" << xv << " d=" << dv);
      CHECK(o64.getInt(k * n + i) == want64[k]);
    }
    float asFloat;
    std::memcpy(&asFloat, &av, 4);
    uint32_t ua = uint32_t(av);
    double wantF[16] = {
        ftz(std::ldexp(xf, e)),
        ftz(std::ldexp(xf, e)),
        asFloat,
        asFloat,
        convertIn<float>(FE_TONEAREST, int64_t(av)),
        convertIn<float>(FE_TOWARDZERO, int64_t(av)),
        convertIn<float>(FE_DOWNWARD, int64_t(av)),
        convertIn<float>(FE_UPWARD, int64_t(av)),
        convertIn<float>(FE_TONEAREST, int64_t(ua)),
        convertIn<float>(FE_TOWARDZERO, lv),
        convertIn<float>(FE_UPWARD, static_cast<long double>(uint64_t(lv))),
        ftz(convertIn<float>(FE_TONEAREST, dv)),
        ftz(convertIn<float>(FE_TOWARDZERO, dv)),
        ftz(convertIn<float>(FE_DOWNWARD, dv)),
        ftz(convertIn<float>(FE_UPWARD, dv)),
        ftz(std::ldexp(xf, 3)),
    };
    for (int k = 0; k < 16; ++k) {
      INFO("fp32 result " << k << " of x=" << xv << " d=" << dv << " a=" << av << " la=" << lv);
      CHECK(sameFloat(of.getDouble(k * n + i), wantF[k]));
    }
    uint32_t loBits = uint32_t(lv);
    uint64_t pair = (uint64_t(ua) << 32) | loBits;
    double wantD[7] = {
        std::ldexp(dv, e * 3),
        0,
        0,
        double(av),
        double(ua),
        convertIn<double>(FE_DOWNWARD, lv),
        convertIn<double>(FE_UPWARD, static_cast<long double>(uint64_t(lv))),
    };
    std::memcpy(&wantD[1], &pair, 8);
    std::memcpy(&wantD[2], &lv, 8);
    for (int k = 0; k < 7; ++k) {
      INFO("fp64 result " << k << " of d=" << dv << " a=" << av << " la=" << lv);
      CHECK(sameFloat(od.getDouble(k * n + i), wantD[k]));
    }
  }
  // A few values spelled out, independent of the helpers above.
  CHECK(o32.getInt(0 * n + 7) == 2);                   // float2int_rn(2.5): ties to even
  CHECK(o32.getInt(3 * n + 11) == 0);                  // float2int_ru(1e-40): flushed to 0 first
  CHECK(o32.getInt(0 * n + 13) == INT32_MAX);          // float2int_rn(3e9) saturates
  CHECK(o32.getInt(0 * n + 0) == 0);                   // float2int_rn(NaN) is 0
  CHECK(o32.getInt(8 * n + 0) == INT32_MIN);           // double2int_rn(NaN): the sign bit
  CHECK(o64.getInt(0 * n + 0) == INT64_MIN);           // llrint(fp32 NaN): the sign bit
  CHECK(o32.getInt(18 * n + 0) == INT_MIN);            // ilogb(NaN)
  CHECK(o32.getInt(18 * n + 1) == INT_MAX);            // ilogb(inf)
  CHECK(o32.getInt(18 * n + 11) == INT_MIN);           // ilogbf(1e-40): flushed, ilogb(0)
  CHECK(o32.getInt(19 * n + 8) == -1030);              // ilogb(1e-310): fp64 keeps denormals
  CHECK(o64.getInt(0 * n + 10) == -2);                 // llrint(-2.5)
  CHECK(o64.getInt(2 * n + 10) == -3);                 // llround(-2.5)
  CHECK(o64.getInt(0 * n + 16) == 9223372036854775807); // llrint(1e19) saturates
}

TEST_CASE("libdevice arithmetic in the four rounding modes", "[language][libdevice]") {
  auto module = compile(kernelPath(), "libdevice_rounding",
                        "*fp32:16,*fp32:16,*fp64:16,*fp64:16,*fp32:16,*fp64:16,i32,128");
  HostBuffer x(f32, n), y(f32, n), d(f64, n), e(f64, n), of(f32, 20 * n), od(f64, 8 * n);
  for (int64_t i = 0; i < n; ++i) {
    x.setDouble(i, floatInput(i));
    y.setDouble(i, floatInput((i * 7 + 3) % n));
    d.setDouble(i, doubleInput(i));
    e.setDouble(i, doubleInput((i * 5 + 2) % n));
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::pointer(d), KernelArg::pointer(e),
          KernelArg::pointer(of), KernelArg::pointer(od), KernelArg::integer(n)},
         cdiv(n, 128));
  // Each operation once, in `mode`, on volatile operands (no folding across the mode change).
  auto in = [](int mode, auto f) {
    int old = std::fegetround();
    std::fesetround(mode);
    volatile auto r = f(); // stored before the mode is restored
    std::fesetround(old);
    return +r;
  };
  for (int64_t i = 0; i < n; ++i) {
    volatile float xv = ftz(static_cast<float>(x.getDouble(i)));
    volatile float yv = ftz(static_cast<float>(y.getDouble(i)));
    volatile double dv = d.getDouble(i), ev = e.getDouble(i);
    auto f = [&](int mode, auto op) { return double(ftz(in(mode, op))); };
    double wantF[20] = {
        f(FE_TONEAREST, [&] { return float(xv + yv); }),
        f(FE_TOWARDZERO, [&] { return float(xv + yv); }),
        f(FE_DOWNWARD, [&] { return float(xv + yv); }),
        f(FE_UPWARD, [&] { return float(xv + yv); }),
        f(FE_TOWARDZERO, [&] { return float(xv - yv); }),
        f(FE_TONEAREST, [&] { return float(xv * yv); }),
        f(FE_DOWNWARD, [&] { return float(xv * yv); }),
        f(FE_UPWARD, [&] { return float(xv * yv); }),
        f(FE_TOWARDZERO, [&] { return float(xv / yv); }),
        f(FE_UPWARD, [&] { return float(xv / yv); }),
        f(FE_TONEAREST, [&] { return std::fma(float(xv), float(yv), float(xv)); }),
        f(FE_TOWARDZERO, [&] { return std::fma(float(xv), float(yv), float(yv)); }),
        f(FE_DOWNWARD, [&] { return std::fma(float(xv), float(xv), float(yv)); }),
        f(FE_UPWARD, [&] { return std::fma(float(yv), float(yv), float(xv)); }),
        f(FE_TONEAREST, [&] { return float(1.0f / xv); }),
        f(FE_DOWNWARD, [&] { return float(1.0f / xv); }),
        f(FE_TOWARDZERO, [&] { return std::sqrt(float(xv)); }),
        f(FE_UPWARD, [&] { return std::sqrt(float(xv)); }),
        std::isnan(xv) ? 0.0 : xv < 0 ? 0.0 : xv > 1 ? 1.0 : double(xv),
        std::fabs(double(xv)),
    };
    for (int k = 0; k < 20; ++k) {
      INFO("fp32 result " << k << " of x=" << xv << " y=" << yv);
      CHECK(sameFloat(of.getDouble(k * n + i), wantF[k]));
    }
    double wantD[8] = {
        in(FE_DOWNWARD, [&] { return double(dv + ev); }),
        in(FE_UPWARD, [&] { return double(dv - ev); }),
        in(FE_TOWARDZERO, [&] { return double(dv * ev); }),
        in(FE_DOWNWARD, [&] { return double(dv / ev); }),
        in(FE_UPWARD, [&] { return std::fma(double(dv), double(ev), double(dv)); }),
        in(FE_TOWARDZERO, [&] { return double(1.0 / dv); }),
        in(FE_DOWNWARD, [&] { return std::sqrt(double(dv)); }),
        std::sqrt(double(dv)),
    };
    for (int k = 0; k < 8; ++k) {
      INFO("fp64 result " << k << " of d=" << dv << " e=" << ev << std::hexfloat << " got " << od.getDouble(k * n + i) << " want " << wantD[k]);
      CHECK(sameFloat(od.getDouble(k * n + i), wantD[k]));
    }
  }
}
