// The libdevice functions that Triton exposes (triton.language.extra.libdevice, also spelled
// triton.language.extra.cuda.libdevice and, in older Triton, triton.language.math), as one table
// shared by sema (which names exist, how many arguments), the verifier, the interpreter (which
// computes them with the C library) and the code generator (which calls the __nv_* function of the
// linked libdevice.10.bc).
#pragma once

#include <cstddef>
#include <string>

namespace tilec::tir {

struct LibdeviceFunction {
  const char *name; // Triton's name: libdevice.<name>
  unsigned arity;   // 1 to 3 floating-point operands of one type
  bool returnsInt;  // isnan/isinf/signbit: an i32 result, as libdevice's
  const char *fp32; // the __nv_ symbol for fp32 operands
  const char *fp64; // the __nv_ symbol for fp64 operands, or null when there is none
};

inline const LibdeviceFunction *findLibdeviceFunction(const std::string &name) {
  static const LibdeviceFunction table[] = {
      {"rsqrt", 1, false, "__nv_rsqrtf", "__nv_rsqrt"},
      {"sqrt", 1, false, "__nv_sqrtf", "__nv_sqrt"},
      {"cbrt", 1, false, "__nv_cbrtf", "__nv_cbrt"},
      {"tanh", 1, false, "__nv_tanhf", "__nv_tanh"},
      {"exp", 1, false, "__nv_expf", "__nv_exp"},
      {"exp2", 1, false, "__nv_exp2f", "__nv_exp2"},
      {"exp10", 1, false, "__nv_exp10f", "__nv_exp10"},
      {"expm1", 1, false, "__nv_expm1f", "__nv_expm1"},
      {"log", 1, false, "__nv_logf", "__nv_log"},
      {"log2", 1, false, "__nv_log2f", "__nv_log2"},
      {"log10", 1, false, "__nv_log10f", "__nv_log10"},
      {"log1p", 1, false, "__nv_log1pf", "__nv_log1p"},
      {"pow", 2, false, "__nv_powf", "__nv_pow"},
      {"erf", 1, false, "__nv_erff", "__nv_erf"},
      {"erfc", 1, false, "__nv_erfcf", "__nv_erfc"},
      {"erfinv", 1, false, "__nv_erfinvf", "__nv_erfinv"},
      {"sin", 1, false, "__nv_sinf", "__nv_sin"},
      {"cos", 1, false, "__nv_cosf", "__nv_cos"},
      {"tan", 1, false, "__nv_tanf", "__nv_tan"},
      {"asin", 1, false, "__nv_asinf", "__nv_asin"},
      {"acos", 1, false, "__nv_acosf", "__nv_acos"},
      {"atan", 1, false, "__nv_atanf", "__nv_atan"},
      {"atan2", 2, false, "__nv_atan2f", "__nv_atan2"},
      {"sinh", 1, false, "__nv_sinhf", "__nv_sinh"},
      {"cosh", 1, false, "__nv_coshf", "__nv_cosh"},
      {"asinh", 1, false, "__nv_asinhf", "__nv_asinh"},
      {"acosh", 1, false, "__nv_acoshf", "__nv_acosh"},
      {"atanh", 1, false, "__nv_atanhf", "__nv_atanh"},
      {"floor", 1, false, "__nv_floorf", "__nv_floor"},
      {"ceil", 1, false, "__nv_ceilf", "__nv_ceil"},
      {"round", 1, false, "__nv_roundf", "__nv_round"},
      {"rint", 1, false, "__nv_rintf", "__nv_rint"},
      {"nearbyint", 1, false, "__nv_nearbyintf", "__nv_nearbyint"},
      {"trunc", 1, false, "__nv_truncf", "__nv_trunc"},
      {"fabs", 1, false, "__nv_fabsf", "__nv_fabs"},
      {"fmod", 2, false, "__nv_fmodf", "__nv_fmod"},
      {"fmin", 2, false, "__nv_fminf", "__nv_fmin"},
      {"fmax", 2, false, "__nv_fmaxf", "__nv_fmax"},
      {"hypot", 2, false, "__nv_hypotf", "__nv_hypot"},
      {"copysign", 2, false, "__nv_copysignf", "__nv_copysign"},
      {"lgamma", 1, false, "__nv_lgammaf", "__nv_lgamma"},
      {"tgamma", 1, false, "__nv_tgammaf", "__nv_tgamma"},
      {"j0", 1, false, "__nv_j0f", "__nv_j0"},
      {"j1", 1, false, "__nv_j1f", "__nv_j1"},
      {"y0", 1, false, "__nv_y0f", "__nv_y0"},
      {"y1", 1, false, "__nv_y1f", "__nv_y1"},
      {"cyl_bessel_i0", 1, false, "__nv_cyl_bessel_i0f", "__nv_cyl_bessel_i0"},
      {"cyl_bessel_i1", 1, false, "__nv_cyl_bessel_i1f", "__nv_cyl_bessel_i1"},
      {"erfcx", 1, false, "__nv_erfcxf", "__nv_erfcx"},
      {"normcdf", 1, false, "__nv_normcdff", "__nv_normcdf"},
      {"sinpi", 1, false, "__nv_sinpif", "__nv_sinpi"},
      {"cospi", 1, false, "__nv_cospif", "__nv_cospi"},
      {"logb", 1, false, "__nv_logbf", "__nv_logb"},
      {"nextafter", 2, false, "__nv_nextafterf", "__nv_nextafter"},
      {"remainder", 2, false, "__nv_remainderf", "__nv_remainder"},
      {"fdim", 2, false, "__nv_fdimf", "__nv_fdim"},
      {"isnan", 1, true, "__nv_isnanf", "__nv_isnand"},
      {"isinf", 1, true, "__nv_isinff", "__nv_isinfd"},
      {"signbit", 1, true, "__nv_signbitf", "__nv_signbitd"},
      {"fast_expf", 1, false, "__nv_fast_expf", nullptr},
      {"fast_logf", 1, false, "__nv_fast_logf", nullptr},
      {"fast_log2f", 1, false, "__nv_fast_log2f", nullptr},
      {"fast_log10f", 1, false, "__nv_fast_log10f", nullptr},
      {"fast_exp10f", 1, false, "__nv_fast_exp10f", nullptr},
      {"fast_sinf", 1, false, "__nv_fast_sinf", nullptr},
      {"fast_cosf", 1, false, "__nv_fast_cosf", nullptr},
      {"fast_tanf", 1, false, "__nv_fast_tanf", nullptr},
      {"fast_powf", 2, false, "__nv_fast_powf", nullptr},
      {"fast_dividef", 2, false, "__nv_fast_fdividef", nullptr},
      {"div_rn", 2, false, "__nv_fdiv_rn", "__nv_ddiv_rn"},
      {"fma", 3, false, "__nv_fmaf", "__nv_fma"},
  };
  for (const LibdeviceFunction &f : table)
    if (name == f.name)
      return &f;
  return nullptr;
}

} // namespace tilec::tir
