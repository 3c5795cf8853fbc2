// Language features that real kernels (Liger-Kernel, unsloth) rely on, compiled by tilec from the
// .tl files in kernels/ and run on the interpreter against references written here in C++.
#include "SeedKernelTestUtil.h"
#include "interp/Numerics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>

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

} // namespace

TEST_CASE("module level: try/except imports, version ifs, libdevice", "[language]") {
  const int64_t n = 300;
  auto module =
      compile(kernelPath("module_level"), "gelu_tanh_rsqrt", "*fp32:16,*fp32:16,*fp32:16,i32,128");
  HostBuffer x(f32, n), y(f32, n), z(f32, n);
  for (int64_t i = 0; i < n; ++i)
    x.setDouble(i, (i - 150) / 37.0);
  launch(
      *module->functions.at(0),
      {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::pointer(z), KernelArg::integer(n)},
      cdiv(n, 128));
  std::vector<double> wantY(n), wantZ(n);
  for (int64_t i = 0; i < n; ++i) {
    double v = x.getDouble(i);
    wantY[i] = 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    // SCALE is 2.0: the `else` of `if compare_version("triton", operator.lt, "3.0.0")`.
    wantZ[i] = 2.0 / std::sqrt(std::fabs(v) + 1.0);
  }
  CHECK(worst(y, wantY, 1e-6, 1e-5) <= 1);
  CHECK(worst(z, wantZ, 0, 1e-6) <= 1);
}

TEST_CASE("module level: libdevice through tl.extra.cuda.libdevice and tl.math", "[language]") {
  const int64_t n = 200;
  auto module =
      compile(kernelPath("module_level"), "libdevice_spellings", "*fp32:16,*fp32:16,i32,64");
  HostBuffer x(f32, n), y(f32, n);
  for (int64_t i = 0; i < n; ++i)
    x.setDouble(i, (i - 100) / 51.0);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(n)}, cdiv(n, 64));
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i) {
    double v = x.getDouble(i);
    // erfinv by bisection on erf: independent of the interpreter's series.
    double lo = -6, hi = 6;
    for (int k = 0; k < 200; ++k) {
      double mid = (lo + hi) / 2;
      (std::erf(mid) < v * 0.5 ? lo : hi) = mid;
    }
    want[i] = lo + std::atan2(v, 2.0) + std::log1p(std::fabs(v));
  }
  CHECK(worst(y, want, 1e-6, 1e-5) <= 1);
}

TEST_CASE("module level: an if that tilec cannot evaluate only fails the kernels that use it",
          "[language]") {
  std::string error;
  CHECK(tryCompile(kernelPath("module_level"), "gelu_tanh_rsqrt",
                   "*fp32:16,*fp32:16,*fp32:16,i32,128", error));
  CHECK_FALSE(tryCompile(kernelPath("module_level"), "uses_hopper_flag", "*fp32", error));
  CHECK_THAT(error, Catch::Contains("'ON_HOPPER' is defined under that module-level 'if'"));
}

TEST_CASE("libdevice functions on fp32 and fp64 match the C library", "[language]") {
  struct Case {
    const char *name;
    unsigned arity;
    std::function<double(double, double, double)> ref;
    double lo, hi; // the inputs' range
    bool fp64 = true;
  };
  const std::vector<Case> cases = {
      {"rsqrt", 1, [](double a, double, double) { return 1 / std::sqrt(a); }, 0.1, 9},
      {"sqrt", 1, [](double a, double, double) { return std::sqrt(a); }, 0, 9},
      {"tanh", 1, [](double a, double, double) { return std::tanh(a); }, -4, 4},
      {"exp", 1, [](double a, double, double) { return std::exp(a); }, -4, 4},
      {"exp2", 1, [](double a, double, double) { return std::exp2(a); }, -4, 4},
      {"log", 1, [](double a, double, double) { return std::log(a); }, 0.1, 9},
      {"log2", 1, [](double a, double, double) { return std::log2(a); }, 0.1, 9},
      {"log1p", 1, [](double a, double, double) { return std::log1p(a); }, -0.5, 9},
      {"expm1", 1, [](double a, double, double) { return std::expm1(a); }, -2, 2},
      {"pow", 2, [](double a, double b, double) { return std::pow(a, b); }, 0.1, 3},
      {"erf", 1, [](double a, double, double) { return std::erf(a); }, -3, 3},
      {"erfinv", 1, [](double a, double, double) { return a; }, -0.9, 0.9}, // checked below
      {"sin", 1, [](double a, double, double) { return std::sin(a); }, -4, 4},
      {"cos", 1, [](double a, double, double) { return std::cos(a); }, -4, 4},
      {"tan", 1, [](double a, double, double) { return std::tan(a); }, -1.2, 1.2},
      {"asin", 1, [](double a, double, double) { return std::asin(a); }, -1, 1},
      {"acos", 1, [](double a, double, double) { return std::acos(a); }, -1, 1},
      {"atan", 1, [](double a, double, double) { return std::atan(a); }, -9, 9},
      {"atan2", 2, [](double a, double b, double) { return std::atan2(a, b); }, -3, 3},
      {"sinh", 1, [](double a, double, double) { return std::sinh(a); }, -3, 3},
      {"cosh", 1, [](double a, double, double) { return std::cosh(a); }, -3, 3},
      {"asinh", 1, [](double a, double, double) { return std::asinh(a); }, -9, 9},
      {"acosh", 1, [](double a, double, double) { return std::acosh(a); }, 1, 9},
      {"atanh", 1, [](double a, double, double) { return std::atanh(a); }, -0.9, 0.9},
      {"floor", 1, [](double a, double, double) { return std::floor(a); }, -4, 4},
      {"ceil", 1, [](double a, double, double) { return std::ceil(a); }, -4, 4},
      {"round", 1, [](double a, double, double) { return std::round(a); }, -4, 4},
      {"rint", 1, [](double a, double, double) { return std::nearbyint(a); }, -4, 4},
      {"trunc", 1, [](double a, double, double) { return std::trunc(a); }, -4, 4},
      {"fmod", 2, [](double a, double b, double) { return std::fmod(a, b); }, 0.5, 9},
      {"lgamma", 1, [](double a, double, double) { return std::lgamma(a); }, 0.1, 9},
      {"tgamma", 1, [](double a, double, double) { return std::tgamma(a); }, 0.1, 9},
      {"j0", 1, [](double a, double, double) { return ::j0(a); }, 0, 2},
      {"j1", 1, [](double a, double, double) { return ::j1(a); }, 0.1, 3},
      {"y0", 1, [](double a, double, double) { return ::y0(a); }, 0.1, 0.8},
      {"y1", 1, [](double a, double, double) { return ::y1(a); }, 0.1, 1.5},
      {"cyl_bessel_i0", 1,
       [](double a, double, double) { return std::cyl_bessel_i(0.0, std::fabs(a)); }, -3, 3},
      {"cyl_bessel_i1", 1, [](double a, double, double) { return std::cyl_bessel_i(1.0, a); }, 0.1,
       3},
      {"erfcx", 1, [](double a, double, double) { return std::exp(a * a) * std::erfc(a); }, -1, 3},
      {"normcdf", 1, [](double a, double, double) { return 0.5 * std::erfc(-a / std::sqrt(2.0)); },
       -3, 3},
      {"sinpi", 1, [](double a, double, double) { return std::sin(M_PI * a); }, 0.05, 0.45},
      {"cospi", 1, [](double a, double, double) { return std::cos(M_PI * a); }, 0.05, 0.45},
      {"logb", 1, [](double a, double, double) { return std::logb(a); }, 0.1, 9},
      {"nextafter", 2, [](double a, double, double) { return a; }, 0.5, 9}, // checked below
      {"remainder", 2, [](double a, double b, double) { return std::remainder(a, b); }, 0.5, 9},
      {"fdim", 2, [](double a, double b, double) { return std::fdim(a, b); }, -3, 3},
      {"isnan", 1, [](double a, double, double) { return std::isnan(a) ? 1.0 : 0.0; }, -4, 4},
      {"isinf", 1, [](double a, double, double) { return std::isinf(a) ? 1.0 : 0.0; }, -4, 4},
      {"signbit", 1, [](double a, double, double) { return std::signbit(a) ? 1.0 : 0.0; }, -4, 4},
      {"fast_expf", 1, [](double a, double, double) { return std::exp(a); }, -4, 4, false},
      {"fast_logf", 1, [](double a, double, double) { return std::log(a); }, 0.1, 9, false},
      {"fast_log2f", 1, [](double a, double, double) { return std::log2(a); }, 0.1, 9, false},
      {"fast_log10f", 1, [](double a, double, double) { return std::log10(a); }, 0.1, 9, false},
      {"fast_exp10f", 1, [](double a, double, double) { return std::pow(10.0, a); }, -2, 2, false},
      {"fast_sinf", 1, [](double a, double, double) { return std::sin(a); }, -3, 3, false},
      {"fast_cosf", 1, [](double a, double, double) { return std::cos(a); }, -3, 3, false},
      {"fast_tanf", 1, [](double a, double, double) { return std::tan(a); }, -1, 1, false},
      {"fast_powf", 2, [](double a, double b, double) { return std::pow(a, b); }, 0.1, 3, false},
      {"fast_dividef", 2, [](double a, double b, double) { return a / b; }, 0.5, 9, false},
      {"div_rn", 2, [](double a, double b, double) { return a / b; }, 0.5, 9},
      {"fma", 3, [](double a, double b, double c) { return a * b + c; }, -4, 4},
  };
  const int64_t n = 100;
  const char *args[] = {"a", "a, b", "a, b, c"};
  for (const Case &c : cases) {
    for (bool isDouble : {false, true}) {
      if (isDouble && !c.fp64)
        continue;
      INFO("libdevice." << c.name << (isDouble ? " fp64" : " fp32"));
      std::string path = std::string("language_test_libdevice_") + c.name + ".tl";
      std::ofstream(path)
          << "import triton\nimport triton.language as tl\n"
             "from triton.language.extra import libdevice\n\n\n@triton.jit\n"
             "def k(a_ptr, b_ptr, c_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
             "    offs = tl.arange(0, BLOCK)\n"
             "    m = offs < n\n"
             "    a = tl.load(a_ptr + offs, mask=m, other=1.0)\n"
             "    b = tl.load(b_ptr + offs, mask=m, other=1.0)\n"
             "    c = tl.load(c_ptr + offs, mask=m, other=1.0)\n"
             "    r = libdevice."
          << c.name << "(" << args[c.arity - 1]
          << ")\n"
             "    tl.store(out_ptr + offs, r.to(out_ptr.dtype.element_ty), mask=m)\n";
      const char *t = isDouble ? "*fp64" : "*fp32";
      auto module = compile(path, "k", std::string(t) + "," + t + "," + t + "," + t + ",i32,128");
      std::remove(path.c_str());
      DType type = isDouble ? f64 : f32;
      HostBuffer a(type, n), b(type, n), cc(type, n), out(type, n);
      for (int64_t i = 0; i < n; ++i) {
        a.setDouble(i, c.lo + (c.hi - c.lo) * i / (n - 1));
        b.setDouble(i, c.lo + (c.hi - c.lo) * ((i * 37) % n) / (n - 1));
        cc.setDouble(i, c.lo + (c.hi - c.lo) * ((i * 11) % n) / (n - 1));
      }
      if (std::string(c.name) == "isnan" || std::string(c.name) == "isinf") {
        a.setDouble(3, NAN);
        a.setDouble(4, INFINITY);
        a.setDouble(5, -INFINITY);
      }
      launch(*module->functions.at(0),
             {KernelArg::pointer(a), KernelArg::pointer(b), KernelArg::pointer(cc),
              KernelArg::pointer(out), KernelArg::integer(n)},
             1);
      std::vector<double> want(n);
      for (int64_t i = 0; i < n; ++i)
        want[i] = c.ref(a.getDouble(i), b.getDouble(i), cc.getDouble(i));
      if (std::string(c.name) == "erfinv") {
        // erf(erfinv(x)) == x.
        for (int64_t i = 0; i < n; ++i)
          out.setDouble(i, std::erf(out.getDouble(i)));
      }
      if (std::string(c.name) == "nextafter") {
        // One step from a toward b: a itself where they are equal, else the neighbour on b's side.
        for (int64_t i = 0; i < n; ++i) {
          double x = a.getDouble(i), y = b.getDouble(i),
                 step = isDouble ? std::nextafter(x, y)
                                 : std::nextafter(static_cast<float>(x), static_cast<float>(y));
          CHECK(out.getDouble(i) == step);
        }
      }
      double rtol = isDouble ? 1e-13 : 2e-6;
      CHECK(worst(out, want, rtol, rtol) <= 1);
    }
  }
  // Rounding of halfway cases: round away from zero, rint to even.
  (void)i32;
}

TEST_CASE("string constexprs: defaults, signature entries, == in a constexpr if", "[language]") {
  const int64_t n = 100;
  HostBuffer x(f32, n);
  for (int64_t i = 0; i < n; ++i)
    x.setDouble(i, (i % 7) - 2.5);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += x.getDouble(i);
  // The default ("mean"), then "sum" quoted and bare, then "none".
  for (const char *reduction : {"", ",\"sum\"", ",sum", ",'none'"}) {
    INFO("reduction entry: " << reduction);
    auto module = compile(kernelPath("constexpr_strings"), "reduce_loss",
                          std::string("*fp32:16,*fp32:16,i32") + reduction);
    HostBuffer y(f32, n);
    launch(*module->functions.at(0),
           {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(n)}, 1);
    std::string r = reduction;
    if (r.empty())
      CHECK(y.getDouble(0) == Approx(sum / n));
    else if (r.find("sum") != std::string::npos)
      CHECK(y.getDouble(0) == Approx(sum));
    else
      for (int64_t i = 0; i < n; ++i)
        CHECK(y.getDouble(i) == x.getDouble(i));
  }
  std::string error;
  CHECK_FALSE(tryCompile(kernelPath("constexpr_strings"), "reduce_loss",
                         "*fp32:16,*fp32:16,i32,max", error));
  CHECK_THAT(error, Catch::Contains("reduction must be mean, sum or none"));
}

TEST_CASE("dtype constexprs under Triton's spellings", "[language]") {
  const int64_t n = 3;
  HostBuffer x(f32, n);
  x.setDouble(0, 1.1);
  x.setDouble(1, -3.3);
  x.setDouble(2, 1000.7);
  // bf16 keeps 8 significant bits, fp16 11: the round trip shows which one was used.
  const std::vector<double> bf16 = {1.1015625, -3.296875, 1000.0};
  const std::vector<double> fp16 = {1.099609375, -3.30078125, 1000.5};
  const std::vector<std::pair<const char *, const std::vector<double> *>> spellings = {
      {"bf16", &bf16},
      {"bfloat16", &bf16},
      {"tl.bfloat16", &bf16},
      {"fp16", &fp16},
      {"float16", &fp16},
      {"tl.float16", &fp16},
      {"triton.language.float16", &fp16}};
  for (const auto &[spelling, want] : spellings) {
    INFO("dtype spelled " << spelling);
    auto module = compile(kernelPath("constexpr_strings"), "round_trip",
                          std::string("*fp32:16,*fp32:16,i32,") + spelling);
    HostBuffer y(f32, n);
    launch(*module->functions.at(0),
           {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(n)}, 1);
    for (int64_t i = 0; i < n; ++i)
      CHECK(y.getDouble(i) == (*want)[i]);
  }
  std::string error;
  CHECK_FALSE(tryCompile(kernelPath("constexpr_strings"), "round_trip",
                         "*fp32:16,*fp32:16,i32,bf61", error));
  CHECK_THAT(error, Catch::Contains("is not a dtype: dtypes are spelled") &&
                        Catch::Contains("bf16/bfloat16/tl.bfloat16"));
}

TEST_CASE("return under run-time conditions: early exit in a kernel", "[language]") {
  const int64_t rows = 5, cols = 37;
  auto module = compile(kernelPath("early_return"), "early_exit", "*fp32:16,*fp32:16,i32,i32,64");
  HostBuffer x(f32, rows * cols), y(f32, (rows + 1) * cols);
  for (int64_t i = 0; i < rows * cols; ++i)
    x.setDouble(i, ((i * 7) % 11) - (i / cols % 2 ? 8.0 : 2.0)); // odd rows sum below zero
  y.fill(42);
  // More programs than rows: the extra ones must return before touching memory.
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(rows),
          KernelArg::integer(cols)},
         rows + 3);
  std::vector<double> want((rows + 1) * cols, 42.0);
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t c = 0; c < cols; ++c)
      s += x.getDouble(r * cols + c);
    for (int64_t c = 0; c < cols; ++c)
      want[r * cols + c] = s < 0 ? -x.getDouble(r * cols + c) : 2 * x.getDouble(r * cols + c);
  }
  CHECK(worst(y, want, 0, 0) <= 1);
}

TEST_CASE("return under run-time conditions: values from if/else in nested helpers", "[language]") {
  const std::vector<double> in = {-4, 10, 200, 40, -3, 100, 25.5, 101};
  const int64_t n = static_cast<int64_t>(in.size());
  auto module = compile(kernelPath("early_return"), "scalar_helpers", "*fp32:16,*fp32:16,i32");
  HostBuffer x(f32, n), y(f32, n);
  for (int64_t i = 0; i < n; ++i)
    x.setDouble(i, in[i]);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(n)}, n);
  for (int64_t i = 0; i < n; ++i) {
    double v = in[i];
    double c = v < -3 ? -3 : v > 100 ? v * 0.5 : v * 2;
    INFO("x = " << v);
    CHECK(y.getDouble(i) == (c > 50 ? c - 1 : c + 1));
  }
}

TEST_CASE("range() with a negative constexpr step visits Python's values in Python's order",
          "[language]") {
  struct Case {
    int64_t start, stop, step;
  };
  // Unit and wider steps, bounds crossing zero, a step that overshoots the stop, empty ranges.
  const std::vector<Case> cases = {{7, -1, 1}, {20, -3, 3}, {20, -2, 3}, {9, 0, 2},
                                   {10, 1, 3}, {5, 5, 1},   {0, 10, 2},  {-2, -9, 4}};
  const int64_t cap = 16;
  for (const Case &c : cases) {
    INFO("range(" << c.start << ", " << c.stop << ", -" << c.step << ")");
    auto module = compile(kernelPath("reverse_loops"), "visits",
                          "*i32:16,i32,i32," + std::to_string(c.step) + "," + std::to_string(cap));
    HostBuffer out(i32, cap + 1);
    launch(*module->functions.at(0),
           {KernelArg::pointer(out), KernelArg::integer(c.start), KernelArg::integer(c.stop)}, 1);
    std::vector<double> want(cap, -100);
    int64_t count = 0;
    for (int64_t i = c.start; i > c.stop; i -= c.step)
      want[count++] = static_cast<double>(i);
    want.push_back(static_cast<double>(count));
    CHECK(worst(out, want, 0, 0) == 0);
  }
}

TEST_CASE("a reversed run-time loop carries a recurrence from the last element down",
          "[language]") {
  const int64_t rows = 3, n = 37;
  auto module = compile(kernelPath("reverse_loops"), "alternating_suffix", "*fp32:16,*fp32:16,i32");
  HostBuffer x(f32, rows * n), h(f32, rows * n);
  for (int64_t i = 0; i < rows * n; ++i)
    x.setDouble(i, (i * 5) % 9 - 4.0); // small integers: every result is exact in fp32
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(h), KernelArg::integer(n)}, rows);
  std::vector<double> want(rows * n);
  for (int64_t r = 0; r < rows; ++r) {
    double carried = 0;
    for (int64_t i = n - 1; i >= 0; --i)
      want[r * n + i] = carried = x.getDouble(r * n + i) - carried;
  }
  CHECK(worst(h, want, 0, 0) == 0);
}

TEST_CASE("tuple kernel arguments: nested, with literal elements, into helpers", "[language]") {
  const int64_t n = 100, stride = 2, block = 32;
  // Run-time elements are parameters in order (ins.0, ins.1, outs.0, outs.1, sizes.0,
  // sizes.2.0); the literal sizes.1 = 1 is bound at compile time, as is the constexpr SHIFTS.
  auto module = compile(kernelPath("tuple_args"), "tuple_args",
                        "(*fp32:16,*fp32:16),(*fp32:16,*fp32:16),(i32,1,(i32,)),fp32," +
                            std::to_string(block) + ",(3, -1)");
  const tir::Function &kernel = *module->functions.at(0);
  std::vector<std::string> names;
  for (const tir::ParamInfo &p : kernel.params)
    names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"ins.0", "ins.1", "outs.0", "outs.1", "sizes.0",
                                          "sizes.2.0", "scale"});
  HostBuffer x(f32, n * stride), y(f32, n * stride), sum(f32, n), product(f32, n);
  for (int64_t i = 0; i < n * stride; ++i) {
    x.setDouble(i, i % 7 - 3.0);
    y.setDouble(i, i % 5 - 2.0);
  }
  launch(kernel,
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::pointer(sum),
          KernelArg::pointer(product), KernelArg::integer(n), KernelArg::integer(stride),
          KernelArg::floating(0.5)},
         (n + block - 1) / block);
  std::vector<double> wantSum(n), wantProduct(n);
  for (int64_t i = 0; i < n; ++i) {
    double a = x.getDouble(i * stride), b = y.getDouble(i * stride);
    wantSum[i] = (a + b) * 0.5 + 3 + 2;
    wantProduct[i] = a * b - 1;
  }
  CHECK(worst(sum, wantSum, 0, 0) == 0);
  CHECK(worst(product, wantProduct, 0, 0) == 0);
}

TEST_CASE("a reduction's scalar made a one-element tensor ([None], expand_dims) in a loop",
          "[language]") {
  const int64_t rows = 3, n = 100, tile = 32;
  auto module = compile(kernelPath("tiled_cumsum"), "tiled_cumsum",
                        "*fp32:16,*fp32:16,*fp32:16,i32," + std::to_string(tile));
  HostBuffer x(f32, rows * n), y(f32, rows * n), totals(f32, rows);
  for (int64_t i = 0; i < rows * n; ++i)
    x.setDouble(i, (i * 7) % 11 - 5.0); // small integers: every sum is exact
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::pointer(totals),
          KernelArg::integer(n)},
         rows);
  std::vector<double> want(rows * n), wantTotals(rows);
  for (int64_t r = 0; r < rows; ++r) {
    double running = 0;
    for (int64_t i = 0; i < n; ++i)
      want[r * n + i] = running += x.getDouble(r * n + i);
    wantTotals[r] = running;
  }
  CHECK(worst(y, want, 0, 0) == 0);
  CHECK(worst(totals, wantTotals, 0, 0) == 0);
}

TEST_CASE("pointers cast to int64 and back, to other pointer types and to int1", "[language]") {
  const int64_t n = 100, block = 32, programs = (n + block - 1) / block;
  auto module = compile(kernelPath("pointer_casts"), "pointer_casts",
                        "*fp32:16,*i64:16,*fp32:16,*i32:16,*i32:16,i32," + std::to_string(block));
  HostBuffer x(f32, n), table(DType::scalar(ScalarKind::I64), programs), out(f32, n), bits(i32, n),
      flags(i32, n);
  for (int64_t i = 0; i < n; ++i)
    x.setDouble(i, (i - 40) / 8.0);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(table), KernelArg::pointer(out),
          KernelArg::pointer(bits), KernelArg::pointer(flags), KernelArg::integer(n)},
         programs);
  std::vector<double> wantOut(n), wantBits(n), wantFlags(n, 3.0);
  for (int64_t i = 0; i < n; ++i) {
    wantOut[i] = 2 * x.getDouble(i);
    float f = static_cast<float>(x.getDouble(i));
    int32_t word;
    std::memcpy(&word, &f, sizeof word);
    wantBits[i] = word;
  }
  CHECK(worst(out, wantOut, 0, 0) == 0);
  CHECK(worst(bits, wantBits, 0, 0) == 0);
  CHECK(worst(flags, wantFlags, 0, 0) == 0);
}

TEST_CASE("tl.bitonic_merge sorts bitonic rows, tl.softmax takes dim and keep_dims, tl.reduce_or",
          "[language]") {
  const int64_t n = 16;
  for (bool descending : {false, true}) {
    INFO("descending " << descending);
    auto module = compile(kernelPath("bitonic_softmax"), "merge_rows",
                          std::string("*fp32:16,*fp32:16,") + (descending ? "True" : "False") +
                              "," + std::to_string(n));
    HostBuffer x(f32, 4 * n), y(f32, 4 * n);
    std::vector<double> want(4 * n);
    for (int64_t r = 0; r < 4; ++r) {
      // A bitonic row: the first half ascending, the second descending.
      std::vector<double> row(n);
      for (int64_t c = 0; c < n; ++c)
        row[c] = c < n / 2 ? (c * 3 + r) % 11 + c * 10.0 : (n - c) * 9.0 - r;
      for (int64_t c = 0; c < n; ++c)
        x.setDouble(r * n + c, row[c]);
      std::sort(row.begin(), row.end());
      if (descending)
        std::reverse(row.begin(), row.end());
      for (int64_t c = 0; c < n; ++c)
        want[r * n + c] = row[c];
    }
    launch(*module->functions.at(0), {KernelArg::pointer(x), KernelArg::pointer(y)}, 1);
    CHECK(worst(y, want, 0, 0) == 0);
  }
  auto module = compile(kernelPath("bitonic_softmax"), "softmax_or",
                        "*fp32:16,*fp32:16,*fp32:16,*i32:16,*i32:16");
  HostBuffer x(f32, 32), s0(f32, 32), s1(f32, 32), bits(i32, 32), ors(i32, 4);
  for (int64_t i = 0; i < 32; ++i) {
    x.setDouble(i, std::sin(i * 0.7) * 3);
    bits.setDouble(i, i % 3 == 0 ? -2147483648.0 : double(1 << (i % 31)));
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(s0), KernelArg::pointer(s1),
          KernelArg::pointer(bits), KernelArg::pointer(ors)},
         1);
  std::vector<double> want0(32), want1(32), wantOr(4);
  // The softmax of the `count` elements of x at start, start + stride, ..., into `want`.
  auto softmax = [&](int64_t start, int64_t stride, int64_t count, std::vector<double> &want) {
    double max = -1e30, sum = 0;
    for (int64_t i = 0; i < count; ++i)
      max = std::max(max, x.getDouble(start + i * stride));
    for (int64_t i = 0; i < count; ++i)
      sum += std::exp(x.getDouble(start + i * stride) - max);
    for (int64_t i = 0; i < count; ++i)
      want[start + i * stride] = std::exp(x.getDouble(start + i * stride) - max) / sum;
  };
  for (int64_t r = 0; r < 4; ++r) {
    softmax(r * 8, 1, 8, want1);
    uint32_t word = 0;
    for (int64_t c = 0; c < 8; ++c)
      word |= static_cast<uint32_t>(static_cast<int32_t>(bits.getDouble(r * 8 + c)));
    wantOr[r] = static_cast<int32_t>(word);
  }
  for (int64_t c = 0; c < 8; ++c) // dim None: along axis 0, the columns
    softmax(c, 8, 4, want0);
  CHECK(worst(s0, want0, 1e-6, 1e-5) <= 1);
  CHECK(worst(s1, want1, 1e-6, 1e-5) <= 1);
  CHECK(worst(ors, wantOr, 0, 0) == 0);
}

TEST_CASE("tl.broadcast, tl.cat, tl.ravel with can_reorder", "[language]") {
  auto module = compile(kernelPath("shape_helpers"), "shape_helpers", "*i32:16,*i32:16,*i32:16");
  HostBuffer out(i32, 32), cat(i32, 32), flat(i32, 32);
  launch(*module->functions.at(0),
         {KernelArg::pointer(out), KernelArg::pointer(cat), KernelArg::pointer(flat)}, 1);
  std::vector<double> wantOut(32), wantCat(32), wantFlat(32);
  for (int64_t i = 0; i < 32; ++i) {
    wantOut[i] = (i / 8) * 100 + i % 8;
    // Two 16-element tensors on 4 warps: fewer elements than threads, so Triton's order (and
    // tilec's) interleaves them.
    wantCat[i] = i % 2 == 0 ? i / 2 : 100 + i / 2;
    wantFlat[i] = i;
  }
  CHECK(worst(out, wantOut, 0, 0) == 0);
  CHECK(worst(cat, wantCat, 0, 0) == 0);
  CHECK(worst(flat, wantFlat, 0, 0) == 0);
}

TEST_CASE("boolean tensors in memory are bytes: *i1 loads and stores", "[language]") {
  const int64_t n = 100, block = 32;
  auto module = compile(kernelPath("bool_memory"), "bool_memory",
                        "*fp32:16,*i1:16,*i1:16,*fp32:16,i32," + std::to_string(block));
  HostBuffer x(f32, n), flags(DType::scalar(ScalarKind::I1), n),
      positive(DType::scalar(ScalarKind::I1), n), picked(f32, n);
  for (int64_t i = 0; i < n; ++i) {
    x.setDouble(i, i % 5 - 2.0);
    flags.setDouble(i, i % 3 == 0);
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(flags), KernelArg::pointer(positive),
          KernelArg::pointer(picked), KernelArg::integer(n)},
         (n + block - 1) / block);
  std::vector<double> wantPositive(n), wantPicked(n);
  for (int64_t i = 0; i < n; ++i) {
    wantPositive[i] = x.getDouble(i) > 0;
    wantPicked[i] = i % 3 == 0 ? x.getDouble(i) : -x.getDouble(i);
  }
  CHECK(worst(positive, wantPositive, 0, 0) == 0);
  CHECK(worst(picked, wantPicked, 0, 0) == 0);
}

TEST_CASE("tl.dot with M or N below 16: a matrix-vector product, a few rows", "[language]") {
  struct Case {
    int64_t m, n, k;
  };
  for (const Case &c : std::vector<Case>{{64, 1, 32}, {2, 32, 16}, {1, 1, 64}, {4, 8, 16}}) {
    INFO("[" << c.m << ", " << c.k << "] x [" << c.k << ", " << c.n << "]");
    auto module = compile(kernelPath("small_dots"), "small_dot",
                          "*fp16:16,*fp16:16,*fp32:16," + std::to_string(c.m) + "," +
                              std::to_string(c.n) + "," + std::to_string(c.k));
    HostBuffer a(DType::scalar(ScalarKind::F16), c.m * c.k),
        b(DType::scalar(ScalarKind::F16), c.k * c.n), out(f32, c.m * c.n);
    for (int64_t i = 0; i < c.m * c.k; ++i)
      a.setDouble(i, i % 7 - 3.0); // small integers: every product and sum is exact
    for (int64_t i = 0; i < c.k * c.n; ++i)
      b.setDouble(i, i % 5 - 2.0);
    for (int64_t i = 0; i < c.m * c.n; ++i)
      out.setDouble(i, i % 3);
    std::vector<double> want(c.m * c.n);
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double sum = out.getDouble(i * c.n + j);
        for (int64_t l = 0; l < c.k; ++l)
          sum += a.getDouble(i * c.k + l) * b.getDouble(l * c.n + j);
        want[i * c.n + j] = sum;
      }
    launch(*module->functions.at(0),
           {KernelArg::pointer(a), KernelArg::pointer(b), KernelArg::pointer(out)}, 1);
    CHECK(worst(out, want, 0, 0) == 0);
  }
}

TEST_CASE("fp32 floor/ceil flush denormals, % is Triton's frem, abs clears the sign bit",
          "[language]") {
  const std::vector<float> xs = {-1e-40f, 1e-40f, -2.5f, 1e30f, 7.5f, -7.5f, 5.0f, -0.0f};
  const std::vector<float> ys = {3.0f, 3.0f, 2.0f, 7.0f, INFINITY, 2.0f, -INFINITY, 1.0f};
  const int64_t n = static_cast<int64_t>(xs.size());
  auto module =
      compile(kernelPath("math_rounding"), "math_rounding", "*fp32:16,*fp32:16,*fp32:16,i32,16");
  HostBuffer x(f32, n), y(f32, n), out(f32, 7 * n);
  for (int64_t i = 0; i < n; ++i) {
    x.setDouble(i, xs[i]);
    y.setDouble(i, ys[i]);
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::pointer(out),
          KernelArg::integer(n)},
         1);
  auto at = [&](int64_t output, int64_t i) {
    return static_cast<float>(out.getDouble(output * n + i));
  };
  // floor(-denormal) is -0 and ceil(+denormal) +0: the denormal is flushed first.
  CHECK(at(0, 0) == 0.0f);
  CHECK(std::signbit(at(0, 0)));
  CHECK(at(1, 1) == 0.0f);
  CHECK(!std::signbit(at(1, 1)));
  CHECK(at(0, 2) == -3.0f);
  CHECK(at(1, 2) == -2.0f);
  for (int64_t i = 0; i < n; ++i) {
    CHECK(at(2, i) == std::fabs(xs[i]));
    CHECK(!std::signbit(at(2, i)));
    // x % y = isinf(y) ? x : fma(-trunc(x / y), y, x), the division rounded to fp32.
    float want = std::isinf(ys[i]) ? xs[i] : std::fma(-std::trunc(xs[i] / ys[i]), ys[i], xs[i]);
    INFO(xs[i] << " % " << ys[i]);
    CHECK((at(3, i) == want || (std::isnan(want) && std::isnan(at(3, i)))));
  }
  // Not the exact fmod (1): 1e30 / 7 rounds, and the remainder of the rounded quotient is
  // -2.83342e22.
  CHECK(std::fmod(1e30f, 7.0f) == 1.0f);
  CHECK(at(3, 3) < -2.8e22f);
  CHECK(at(3, 4) == 7.5f);  // y = inf: x
  CHECK(at(3, 5) == -1.5f); // the sign of x, as C's fmod
  CHECK(at(4, 2) == std::sqrt(2.5f));
  // tl.sqrt (sqrt.approx.ftz) flushes a denormal input; tl.sqrt_rn does not.
  CHECK(at(5, 0) == 0.0f);
  CHECK(at(4, 0) == std::sqrt(1e-40f));
}

TEST_CASE("a number assigned in a kernel is a tensor: fp32 and int32, as Triton's to_tensor",
          "[language]") {
  const std::vector<double> xs = {1.0, 0.3, -2.5, 1000.0};
  const std::vector<int64_t> is = {1, 30, 124, -128};
  const int64_t n = static_cast<int64_t>(xs.size());
  auto module = compile(kernelPath("assigned_numbers"), "assigned_numbers",
                        "*fp16:16,*i8:16,*fp32:16,i32,16");
  HostBuffer x(DType::scalar(ScalarKind::F16), n), i(DType::scalar(ScalarKind::I8), n),
      out(f32, 4 * n);
  for (int64_t j = 0; j < n; ++j) {
    x.setDouble(j, xs[j]);
    i.setDouble(j, static_cast<double>(is[j]));
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(i), KernelArg::pointer(out),
          KernelArg::integer(n)},
         1);
  for (int64_t j = 0; j < n; ++j) {
    float x16 = static_cast<float>(x.getDouble(j)); // the fp16 input, exactly
    INFO("element " << j);
    // `scale = 0.1`: one fp32 product. `x * 0.1`: 0.1 becomes fp16 (0.0999755859375) and
    // the product is rounded to fp16.
    CHECK(out.getDouble(j) == static_cast<double>(x16 * 0.1f));
    HostBuffer half(DType::scalar(ScalarKind::F16), 1);
    half.setDouble(0, static_cast<double>(x16 * 0.0999755859375f));
    CHECK(out.getDouble(2 * n + j) == half.getDouble(0));
    // `bias = 3`: int32 arithmetic. `i + 3`: int8, wrapping.
    CHECK(out.getDouble(n + j) == static_cast<double>((is[j] + 3) * 100));
    CHECK(out.getDouble(3 * n + j) ==
          static_cast<double>(static_cast<int8_t>(static_cast<int8_t>(is[j] + 3) * 100)));
  }
}

TEST_CASE("tl.dot_scaled of e4m3 bytes: 2^(s - 127) per 32 elements of K, NaN for 0xFF",
          "[language]") {
  const int64_t m = 16, n = 16, k = 64;
  auto module = compile(kernelPath("dot_scaled"), "dot_scaled_kernel",
                        "*u8:16,*u8:16,*u8:16,*u8:16,*fp32:16,16,16,64,'e4m3','e4m3',False");
  const DType u8 = DType::scalar(ScalarKind::U8);
  HostBuffer a(u8, m * k), b(u8, k * n), as(u8, m * k / 32), bs(u8, n * k / 32), c(f32, m * n);
  // e4m3 bytes of 1, 1.5, -1 and 0.5 (exponent bias 7, 3 mantissa bits).
  const uint8_t codes[] = {0x38, 0x3C, 0xB8, 0x30};
  const double values[] = {1.0, 1.5, -1.0, 0.5};
  for (int64_t i = 0; i < m * k; ++i)
    a.setDouble(i, codes[i % 4]);
  for (int64_t i = 0; i < k * n; ++i)
    b.setDouble(i, codes[(i / 3) % 4]);
  for (int64_t i = 0; i < m * k / 32; ++i)
    as.setDouble(i, 126 + i % 3); // 2^-1, 2^0, 2^1
  for (int64_t i = 0; i < n * k / 32; ++i)
    bs.setDouble(i, 127 + i % 2);
  as.setDouble(3, 255); // row 1, second group of 32: NaN
  launch(*module->functions.at(0),
         {KernelArg::pointer(a), KernelArg::pointer(as), KernelArg::pointer(b),
          KernelArg::pointer(bs), KernelArg::pointer(c)},
         1);
  std::vector<double> want(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < k; ++l) {
        double sa = std::ldexp(1.0, static_cast<int>(as.getDouble(i * 2 + l / 32)) - 127);
        if (as.getDouble(i * 2 + l / 32) == 255)
          sa = NAN;
        double sb = std::ldexp(1.0, static_cast<int>(bs.getDouble(j * 2 + l / 32)) - 127);
        sum += values[(i * k + l) % 4] * sa * values[((l * n + j) / 3) % 4] * sb;
      }
      want[i * n + j] = sum; // small powers of two: exact in bf16 and fp32
    }
  // Row 1 is NaN everywhere (its second group's scale is 0xFF); the others exact.
  int64_t wrong = 0;
  for (int64_t e = 0; e < m * n; ++e)
    wrong += e / n == 1 ? !std::isnan(c.getDouble(e)) : c.getDouble(e) != want[e];
  CHECK(wrong == 0);
}

TEST_CASE("tl.dot_scaled of e2m1: two fp4 values a byte along K, the low nibble first",
          "[language]") {
  const int64_t m = 16, n = 16, k = 64;
  auto module = compile(kernelPath("dot_scaled"), "dot_scaled_fp4",
                        "*u8:16,*u8:16,*u8:16,*u8:16,*fp32:16,16,16,64");
  const DType u8 = DType::scalar(ScalarKind::U8);
  HostBuffer a(u8, m * k / 2), b(u8, k / 2 * n), as(u8, m * k / 32), bs(u8, n * k / 32),
      c(f32, m * n);
  // e2m1 nibbles: sign, 2 exponent bits (bias 1), 1 mantissa bit.
  const double fp4[16] = {0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6};
  for (int64_t i = 0; i < m * k / 2; ++i)
    a.setDouble(i, (i * 37 + 11) % 256);
  for (int64_t i = 0; i < k / 2 * n; ++i)
    b.setDouble(i, (i * 53 + 7) % 256);
  for (int64_t i = 0; i < m * k / 32; ++i)
    as.setDouble(i, 126 + i % 3);
  for (int64_t i = 0; i < n * k / 32; ++i)
    bs.setDouble(i, 127);
  launch(*module->functions.at(0),
         {KernelArg::pointer(a), KernelArg::pointer(as), KernelArg::pointer(b),
          KernelArg::pointer(bs), KernelArg::pointer(c)},
         1);
  auto nibble = [](const HostBuffer &bytes, int64_t index, bool high) {
    int64_t byte = static_cast<int64_t>(bytes.getDouble(index));
    return high ? byte >> 4 : byte & 15;
  };
  std::vector<double> want(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < k; ++l) {
        double x = fp4[nibble(a, i * k / 2 + l / 2, l % 2)] *
                   std::ldexp(1.0, static_cast<int>(as.getDouble(i * 2 + l / 32)) - 127);
        double y = fp4[nibble(b, (l / 2) * n + j, l % 2)];
        sum += x * y;
      }
      want[i * n + j] = sum; // products of fp4 values and powers of two: exact
    }
  CHECK(worst(c, want, 0, 0) == 0);
}

TEST_CASE("tl.cumsum and tl.cumprod along an axis, reversed, on the interpreter", "[language]") {
  const int64_t m = 4, n = 8;
  auto module = compile(kernelPath("scans"), "scan_rows", "*fp32,*fp32,*fp32,*fp32,4,8");
  HostBuffer x(f32, m * n), sums(f32, m * n), rsums(f32, m * n), prods(f32, m * n);
  for (int64_t i = 0; i < m * n; ++i)
    x.setDouble(i, 0.5 + (i * 5 % 7) * 0.25);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(sums), KernelArg::pointer(rsums),
          KernelArg::pointer(prods)},
         1);
  std::vector<double> wantSum(m * n), wantRsum(m * n), wantProd(m * n);
  for (int64_t r = 0; r < m; ++r) {
    float s = 0, p = 1;
    for (int64_t c = 0; c < n; ++c) {
      s += static_cast<float>(x.getDouble(r * n + c));
      p *= static_cast<float>(x.getDouble(r * n + c));
      wantSum[r * n + c] = s;
      wantProd[r * n + c] = p;
    }
  }
  for (int64_t c = 0; c < n; ++c) {
    float s = 0;
    for (int64_t r = m - 1; r >= 0; --r) {
      s += static_cast<float>(x.getDouble(r * n + c));
      wantRsum[r * n + c] = s;
    }
  }
  CHECK(worst(sums, wantSum, 0, 0) <= 1);
  CHECK(worst(rsums, wantRsum, 0, 0) <= 1);
  CHECK(worst(prods, wantProd, 0, 0) <= 1);

  auto ints = compile(kernelPath("scans"), "scan_int8", "*i8,*i32,16");
  HostBuffer bytes(DType::scalar(ScalarKind::I8), 16), out(i32, 16);
  int64_t running = 0;
  std::vector<double> want(16);
  for (int64_t i = 0; i < 16; ++i) {
    bytes.setInt(i, 100 - i); // sums past 127: no int8 wrap-around
    running += 100 - i;
    want[i] = static_cast<double>(running);
  }
  launch(*ints->functions.at(0), {KernelArg::pointer(bytes), KernelArg::pointer(out)}, 1);
  CHECK(worst(out, want, 0, 0) <= 1);
}

namespace {

/// `v` rounded to a binary float with `bits` significand bits (the implicit one included) and
/// smallest normal exponent `minExp` (as std::frexp counts), to nearest, ties to even. fp16:
/// (11, -13), bf16: (8, -125). Values stay far from overflow here.
double roundToFormat(double v, int bits, int minExp) {
  if (v == 0)
    return v;
  int e;
  std::frexp(v, &e);
  double scale = std::ldexp(1.0, bits - std::max(e, minExp));
  return std::nearbyint(v * scale) / scale;
}

} // namespace

TEST_CASE("atomic_add on fp16 and bf16: tensor (masked) and scalar forms, the old values",
          "[language][atomic]") {
  struct Format {
    const char *name;
    ScalarKind kind;
    int bits, minExp;
  };
  for (Format f :
       {Format{"fp16", ScalarKind::F16, 11, -13}, Format{"bf16", ScalarKind::BF16, 8, -125}}) {
    INFO(f.name);
    const DType half = DType::scalar(f.kind);
    const int64_t n = 50, programs = 7;
    std::string p = std::string("*") + f.name;
    auto module = compile(kernelPath("atomics16"), "half_atomic_add",
                          p + "," + p + "," + p + "," + p + "," + p + ",i32,64");
    HostBuffer acc(half, n), x(half, programs * n), old(half, programs * n), count(half, 1),
        before(half, programs);
    // Sums whose rounding matters: cells far from zero, addends with all bits set.
    for (int64_t i = 0; i < n; ++i)
      acc.setDouble(i, roundToFormat(37.0 + i * 1.37, f.bits, f.minExp));
    for (int64_t i = 0; i < programs * n; ++i)
      x.setDouble(i, roundToFormat(std::sin(i * 0.71) * 3.3, f.bits, f.minExp));
    std::vector<double> cells(n), wantOld(programs * n), wantBefore(programs);
    for (int64_t i = 0; i < n; ++i)
      cells[i] = acc.getDouble(i);
    // The interpreter runs the programs in order, each atomic once per element.
    for (int64_t pid = 0; pid < programs; ++pid) {
      for (int64_t i = 0; i < n; ++i) {
        wantOld[pid * n + i] = cells[i];
        cells[i] = roundToFormat(cells[i] + x.getDouble(pid * n + i), f.bits, f.minExp);
      }
      wantBefore[pid] = static_cast<double>(pid);
    }
    launch(*module->functions.at(0),
           {KernelArg::pointer(acc), KernelArg::pointer(x), KernelArg::pointer(old),
            KernelArg::pointer(count), KernelArg::pointer(before), KernelArg::integer(n)},
           programs);
    CHECK(worst(acc, cells, 0, 0) == 0);
    CHECK(worst(old, wantOld, 0, 0) == 0);
    CHECK(worst(before, wantBefore, 0, 0) == 0);
    CHECK(count.getDouble(0) == programs);
  }
}

TEST_CASE("atomic_cas on 16-bit types swaps where the bits equal", "[language][atomic]") {
  for (ScalarKind kind : {ScalarKind::F16, ScalarKind::BF16, ScalarKind::I16}) {
    const DType t = DType::scalar(kind);
    const char *name = kind == ScalarKind::F16    ? "*fp16"
                       : kind == ScalarKind::BF16 ? "*bf16"
                                                  : "*i16";
    INFO(name);
    std::string p = name;
    auto module =
        compile(kernelPath("atomics16"), "cas16", p + "," + p + "," + p + "," + p + ",32");
    const int64_t n = 32;
    HostBuffer cells(t, n), cmp(t, n), val(t, n), old(t, n);
    std::vector<double> wantCells(n), wantOld(n);
    for (int64_t i = 0; i < n; ++i) {
      cells.setDouble(i, static_cast<double>(i - 10));
      cmp.setDouble(i, static_cast<double>(i % 3 == 0 ? i - 10 : i));
      val.setDouble(i, static_cast<double>(100 + i));
      wantOld[i] = static_cast<double>(i - 10);
      wantCells[i] = i % 3 == 0 ? 100.0 + i : static_cast<double>(i - 10);
    }
    launch(*module->functions.at(0),
           {KernelArg::pointer(cells), KernelArg::pointer(cmp), KernelArg::pointer(val),
            KernelArg::pointer(old)},
           1);
    CHECK(worst(cells, wantCells, 0, 0) == 0);
    CHECK(worst(old, wantOld, 0, 0) == 0);
  }
}

TEST_CASE("integers from 2^63 to 2^64 - 1 are uint64 constants: masks, sort keys, FNV-1a",
          "[language]") {
  const int64_t n = 8;
  const double xs[n] = {0.0, -0.0, 1.5, -1.5, 3.0e38, -3.0e-38, 1.0, -2.0};
  const DType i64 = DType::scalar(ScalarKind::I64);
  auto module = compile(kernelPath("uint64_constants"), "uint64_constants",
                        "*fp64:16,*i64:16,*i64:16,*i64:16,i32,8");
  HostBuffer x(f64, n), key(i64, n), hash(i64, n), inv(i64, n);
  for (int64_t j = 0; j < n; ++j)
    x.setDouble(j, xs[j]);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(key), KernelArg::pointer(hash),
          KernelArg::pointer(inv), KernelArg::integer(n)},
         1);
  for (int64_t j = 0; j < n; ++j) {
    INFO("element " << j << ": " << xs[j]);
    uint64_t bits;
    std::memcpy(&bits, &xs[j], sizeof bits);
    uint64_t expected = (bits >> 63) ? ~bits : (bits | (uint64_t(1) << 63));
    CHECK(static_cast<uint64_t>(key.getInt(j)) == expected);
    CHECK(static_cast<uint64_t>(hash.getInt(j)) ==
          ((14695981039346656037ull ^ (expected & 0xFF)) * 0x100000001B3ull));
    CHECK(static_cast<uint64_t>(inv.getInt(j)) == ~expected);
  }
  // Sorted by key as unsigned numbers, the floats come out in numeric order.
  for (int64_t a = 0; a < n; ++a)
    for (int64_t b = 0; b < n; ++b)
      if (xs[a] < xs[b])
        CHECK(static_cast<uint64_t>(key.getInt(a)) < static_cast<uint64_t>(key.getInt(b)));
}

TEST_CASE("tl.cat of two 1-D tensors in Triton's order", "[language]") {
  // Triton puts each thread's registers of the first tensor, then of the second, into the
  // result's: interleaved where each has at most one element per thread (8 elements on 4 warps);
  // tilec puts them end to end above (256 elements).
  for (const int64_t blk : {int64_t(64), int64_t(2048)}) {
    auto module =
        compile(kernelPath("concat"), "gather_pairs", "*fp32,*fp32," + std::to_string(blk));
    HostBuffer x(f32, blk), y(f32, blk / 4);
    x.fillRange();
    launch(*module->functions.at(0), {KernelArg::pointer(x), KernelArg::pointer(y)}, 1);
    const int64_t half = blk / 8;
    const bool interleaved = half <= 128;
    std::vector<double> want(blk / 4);
    for (int64_t i = 0; i < half; ++i) {
      want[interleaved ? 2 * i : i] = static_cast<double>(i * 8);
      want[interleaved ? 2 * i + 1 : half + i] = static_cast<double>(i * 8 + 1);
    }
    INFO("BLK " << blk);
    CHECK(worst(y, want, 0, 0) == 0);
  }
}

TEST_CASE("a conditional expression on a run-time condition runs only the side it picks",
          "[language]") {
  // tests/gpu/lang_bits.tl's conditional_expressions: indices past x's end are never loaded (the
  // interpreter checks every access), and of `tl.store(..) if c else tl.store(..)` one store runs.
  const int64_t n = 150, blk = 64, programs = cdiv(n, blk) + 3;
  auto module =
      compile(std::string(TILEC_GPU_KERNELS_DIR) + "/lang_bits.tl", "conditional_expressions",
              "*fp32:16,*i32:16,*fp32:16,*fp32:16,i32," + std::to_string(blk));
  HostBuffer x(f32, n), idx(i32, programs), y(f32, programs), z(f32, programs * blk);
  for (int64_t i = 0; i < n; ++i)
    x.setDouble(i, static_cast<double>(noise(i, 1000, 71)) / 8);
  for (int64_t p = 0; p < programs; ++p)
    idx.setInt(p, p % 2 == 0 ? (p * 37) % n : n + 1000 * p); // odd programs: far past the end
  z.fill(NAN);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(idx), KernelArg::pointer(y),
          KernelArg::pointer(z), KernelArg::integer(n)},
         static_cast<unsigned>(programs));
  std::vector<double> wantY(programs), wantZ(programs * blk, 0.0);
  for (int64_t p = 0; p < programs; ++p) {
    int64_t i = idx.getInt(p);
    double v = i < n ? x.getDouble(i) : -1.0;
    wantY[p] = p % 3 == 0 ? v * 2 : v + 1;
    for (int64_t j = p * blk; p % 2 == 0 && j < std::min((p + 1) * blk, n); ++j)
      wantZ[j] = x.getDouble(j);
  }
  CHECK(worst(y, wantY, 0, 0) == 0);
  CHECK(worst(z, wantZ, 0, 0) == 0);
}

TEST_CASE("tl.abs of fp8 clears the sign bit, infinities included", "[language]") {
  // tests/gpu/lang_bits.tl's abs_fp8 on every byte but the NaNs (the interpreter's fp8 lanes keep
  // no NaN payload): e5m2's infinities stay infinite (rounding would saturate them).
  for (auto [kind, name] : {std::pair{tir::ScalarKind::F8E4M3, "fp8e4nv"},
                            std::pair{tir::ScalarKind::F8E5M2, "fp8e5"}}) {
    auto module = compile(std::string(TILEC_GPU_KERNELS_DIR) + "/lang_bits.tl", "abs_fp8",
                          std::string("*") + name + ":16,*u8:16,256");
    const DType fp8 = DType::scalar(kind);
    HostBuffer x(fp8, 256), y(u8, 256);
    std::vector<double> want(256);
    for (int b = 0; b < 256; ++b) {
      double value = interp::fp8BitsToFloat(static_cast<uint8_t>(b), kind);
      int byte = std::isnan(value) ? 0 : b;
      std::memcpy(x.data() + b, &byte, 1);
      want[b] = byte & 0x7F;
    }
    launch(*module->functions.at(0), {KernelArg::pointer(x), KernelArg::pointer(y)}, 1);
    CHECK(worst(y, want, 0, 0) == 0);
  }
}

namespace {

// Triton 3.6's fp8e4b15 conversions are PTX on four values packed in 32-bit registers
// (third_party/nvidia/language/cuda/utils.py, convert_custom_float8_sm80); these run those
// instructions on the CPU, word by word, as an oracle independent of tilec's per-element form.
uint32_t prmt(uint32_t a, uint32_t b, uint32_t selector) {
  uint64_t bytes = (static_cast<uint64_t>(b) << 32) | a;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i)
    r |= static_cast<uint32_t>((bytes >> (8 * ((selector >> (4 * i)) & 7))) & 0xFF) << (8 * i);
  return r;
}

uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t r = 0;
  for (int bit = 0; bit < 32; ++bit) {
    uint32_t index = ((a >> bit) & 1) << 2 | ((b >> bit) & 1) << 1 | ((c >> bit) & 1);
    r |= ((lut >> index) & 1) << bit;
  }
  return r;
}

/// convert_fp8e4b15_to_float16: four codes in, four fp16 bit patterns out.
std::array<uint16_t, 4> tritonFp8E4B15ToHalf(std::array<uint8_t, 4> codes) {
  uint32_t word = codes[0] | codes[1] << 8 | codes[2] << 16 | static_cast<uint32_t>(codes[3]) << 24;
  uint32_t a0 = prmt(0, word, 0x5746);
  uint32_t b0 = (a0 & 0x7f007f00u) >> 1;
  uint32_t b1 = (a0 & 0x00ff00ffu) + (a0 & 0x00800080u);
  uint32_t out0 = lop3(b0, 0x80008000u, a0, 0xf8);
  uint32_t out1 = b1 << 7;
  return {static_cast<uint16_t>(out0), static_cast<uint16_t>(out0 >> 16),
          static_cast<uint16_t>(out1), static_cast<uint16_t>(out1 >> 16)};
}

/// min.f16 on bit patterns: a NaN operand yields the other one.
uint16_t halfMin(uint16_t a, uint16_t b) {
  float fa = interp::halfBitsToFloat(a), fb = interp::halfBitsToFloat(b);
  if (std::isnan(fa))
    return b;
  if (std::isnan(fb))
    return a;
  return fa < fb ? a : b;
}

/// convert_float16_to_fp8e4b15 with min.f16x2 (has_minx2): four fp16 bit patterns in.
std::array<uint8_t, 4> tritonHalfToFp8E4B15(std::array<uint16_t, 4> h) {
  uint32_t in[2] = {h[0] | static_cast<uint32_t>(h[1]) << 16, h[2] | static_cast<uint32_t>(h[3])
                                                                         << 16};
  uint32_t b[2];
  for (int r = 0; r < 2; ++r) {
    uint32_t a = in[r] & 0x7fff7fffu;
    a = halfMin(a & 0xFFFF, 0x3F00) | static_cast<uint32_t>(halfMin(a >> 16, 0x3F00)) << 16;
    a = a * 2 + 0x00800080u;
    b[r] = lop3(in[r], 0x80008000u, a, 0xea);
  }
  uint32_t word = prmt(b[0], b[1], 0x7531);
  return {static_cast<uint8_t>(word), static_cast<uint8_t>(word >> 8),
          static_cast<uint8_t>(word >> 16), static_cast<uint8_t>(word >> 24)};
}

} // namespace

TEST_CASE("fp8e4b15: every code widens to fp16 and fp32 as Triton's PTX does", "[language]") {
  auto module = compile(std::string(TILEC_GPU_KERNELS_DIR) + "/lang_bits.tl", "fp8e4b15_up",
                        "*fp8e4b15:16,*fp16:16,*fp32:16,*fp8e4b15:16,256");
  const DType e4b15 = DType::scalar(ScalarKind::F8E4B15);
  HostBuffer x(e4b15, 256), y16(f16, 256), y32(f32, 256), absolute(e4b15, 256);
  for (int c = 0; c < 256; ++c)
    x.data()[c] = static_cast<unsigned char>(c);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(y16), KernelArg::pointer(y32),
          KernelArg::pointer(absolute)},
         1);
  int mismatches = 0;
  for (int c = 0; c < 256; c += 4) {
    auto want = tritonFp8E4B15ToHalf({static_cast<uint8_t>(c), static_cast<uint8_t>(c + 1),
                                      static_cast<uint8_t>(c + 2), static_cast<uint8_t>(c + 3)});
    for (int j = 0; j < 4; ++j) {
      uint16_t got16;
      std::memcpy(&got16, y16.data() + 2 * (c + j), 2);
      float got32;
      std::memcpy(&got32, y32.data() + 4 * (c + j), 4);
      float wantValue = interp::halfBitsToFloat(want[j]);
      mismatches += got16 != want[j] || std::memcmp(&got32, &wantValue, 4) != 0 ||
                    absolute.data()[c + j] != ((c + j) & 0x7F);
    }
  }
  CHECK(mismatches == 0);
  // 0x7f is 1.875 (no NaN), the smallest subnormal 2^-17.
  CHECK(interp::halfBitsToFloat(tritonFp8E4B15ToHalf({0x7f, 0x01, 0x80, 0xff})[0]) == 1.875f);
  CHECK(interp::halfBitsToFloat(tritonFp8E4B15ToHalf({0x7f, 0x01, 0x80, 0xff})[1]) ==
        std::ldexp(1.0f, -17));
}

TEST_CASE("fp8e4b15: fp16 and fp32 narrow as Triton's PTX does", "[language]") {
  auto module = compile(std::string(TILEC_GPU_KERNELS_DIR) + "/lang_bits.tl", "fp8e4b15_down",
                        "*fp16:16,*fp32:16,*fp8e4b15:16,*fp8e4b15:16,1024");
  const DType e4b15 = DType::scalar(ScalarKind::F8E4B15);
  const int64_t n = 65536;
  HostBuffer h(f16, n), f(f32, n), yh(e4b15, n), yf(e4b15, n);
  // Every fp16 pattern; the fp32 input is each fp16 value plus or minus one fp32 ulp (or the
  // value itself), so that rounding toward zero to fp16 is exercised on both sides.
  std::vector<uint16_t> wantF(n);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t bits = static_cast<uint16_t>(i);
    std::memcpy(h.data() + 2 * i, &bits, 2);
    float value = interp::halfBitsToFloat(bits);
    if (std::isfinite(value) && value != 0)
      value = i % 3 == 0 ? value : std::nextafter(value, i % 3 == 1 ? 0.0f : 2 * value);
    std::memcpy(f.data() + 4 * i, &value, 4);
    wantF[i] = interp::floatToHalfBitsTowardZero(value); // cvt.rz.f16.f32
  }
  launch(*module->functions.at(0),
         {KernelArg::pointer(h), KernelArg::pointer(f), KernelArg::pointer(yh),
          KernelArg::pointer(yf)},
         n / 1024);
  int mismatchesH = 0, mismatchesF = 0;
  for (int64_t i = 0; i < n; i += 4) {
    auto fromHalf =
        tritonHalfToFp8E4B15({static_cast<uint16_t>(i), static_cast<uint16_t>(i + 1),
                              static_cast<uint16_t>(i + 2), static_cast<uint16_t>(i + 3)});
    auto fromFloat = tritonHalfToFp8E4B15({wantF[i], wantF[i + 1], wantF[i + 2], wantF[i + 3]});
    for (int j = 0; j < 4; ++j) {
      // Every pattern, NaNs with the sign bit set included (0xfc01..0xffff: -1.75, 0xfe, as
      // on the GPU, where the bitcast to the bits keeps the sign).
      mismatchesH += yh.data()[i + j] != fromHalf[j];
      mismatchesF += yf.data()[i + j] != fromFloat[j];
    }
  }
  CHECK(mismatchesH == 0);
  CHECK(mismatchesF == 0);
  CHECK(yh.data()[0xfe00] == 0xfe);
  CHECK(yh.data()[0x7e00] == 0x7e);
}

TEST_CASE("fp8e4b15: what Triton refuses or does differently", "[language]") {
  const std::string path = std::string(TILEC_LANGUAGE_KERNELS_DIR) + "/fp8e4b15.tl";
  std::string error;
  CHECK_FALSE(tryCompile(path, "add", "*fp8e4b15,*fp8e4b15,16", error));
  CHECK_THAT(error, Catch::Contains("arithmetic and comparisons on fp8e4b15 are not supported"));
  CHECK_FALSE(tryCompile(path, "from_bf16", "*bf16,*fp8e4b15,16", error));
  CHECK_THAT(error, Catch::Contains("cannot convert bf16 to fp8e4b15"));
  CHECK_FALSE(tryCompile(path, "summed", "*fp8e4b15,*fp32,16", error));
  CHECK_THAT(error, Catch::Contains("tl.sum of fp8e4b15 is not supported"));
  // tl.max widens it to fp32 first (Triton's standard.max), so it works.
  CHECK(tryCompile(path, "maximum", "*fp8e4b15,*fp32,16", error));
}

TEST_CASE("fp8e4b15: .to(bfloat16) gives fp16, a dot multiplies in fp16", "[language]") {
  const std::string path = std::string(TILEC_LANGUAGE_KERNELS_DIR) + "/fp8e4b15.tl";
  const DType e4b15 = DType::scalar(ScalarKind::F8E4B15);
  auto module = compile(path, "to_bf16_and_dot", "*fp8e4b15,*fp32,*fp32,16");
  HostBuffer x(e4b15, 256), kinds(f32, 1), c(f32, 256);
  for (int i = 0; i < 256; ++i)
    x.data()[i] = static_cast<unsigned char>((i * 37) & 0xFF);
  launch(*module->functions.at(0),
         {KernelArg::pointer(x), KernelArg::pointer(kinds), KernelArg::pointer(c)}, 1);
  CHECK(kinds.getDouble(0) == 1.0); // the converted value's dtype is fp16
  std::vector<double> value(256), want(256, 0.0);
  for (int i = 0; i < 256; ++i)
    value[i] = interp::halfBitsToFloat(
        tritonFp8E4B15ToHalf({static_cast<uint8_t>((i * 37) & 0xFF), 0, 0, 0})[0]);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 16; ++n)
      for (int k = 0; k < 16; ++k)
        want[m * 16 + n] += value[m * 16 + k] * value[k * 16 + n];
  CHECK(worst(c, want, 1e-6, 1e-5) <= 1);
}
