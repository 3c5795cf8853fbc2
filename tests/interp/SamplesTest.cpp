// The samples' kernels, compiled by tilec to TIR and run on the interpreter, against references
// written here in plain C++. Sizes are deliberately not multiples of the block sizes.
#include "driver/Pipeline.h"
#include "interp/Interpreter.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>

using tilec::interp::HostBuffer;
using tilec::interp::KernelArg;
using tilec::tir::DType;
using tilec::tir::ScalarKind;

namespace {

const DType f32 = DType::scalar(ScalarKind::F32);
const DType f16 = DType::scalar(ScalarKind::F16);
const DType u8 = DType::scalar(ScalarKind::U8);

std::string samplePath(const std::string &name) {
  return std::string(TILEC_SAMPLES_DIR) + "/" + name + ".tl";
}

/// Compiles one kernel of a file to TIR; fails the test with the diagnostic on error.
std::unique_ptr<tilec::tir::Module> compile(const std::string &path, const std::string &kernel,
                                            const std::string &signature) {
  tilec::driver::CompileOptions options;
  options.inputPath = path;
  options.kernels.push_back({kernel, signature});
  tilec::SourceManager sources;
  std::ostringstream diagnostics, log;
  sources.setDiagnosticStream(&diagnostics);
  try {
    return tilec::driver::compileToTIR(options, sources, log);
  } catch (const tilec::CompileError &e) {
    FAIL("compiling " << kernel << " failed:\n" << e.what());
  }
  return nullptr;
}

void launch(const tilec::tir::Module &module, std::vector<KernelArg> args, unsigned gx,
            unsigned gy = 1) {
  tilec::interp::LaunchOptions options;
  options.grid[0] = gx;
  options.grid[1] = gy;
  tilec::interp::run(*module.functions.at(0), args, options);
}

unsigned cdiv(int64_t a, int64_t b) { return static_cast<unsigned>((a + b - 1) / b); }

/// The largest |got - want| / (atol + rtol * |want|); <= 1 means within tolerance.
double worst(const HostBuffer &got, const std::vector<double> &want, double atol, double rtol) {
  REQUIRE(got.size() == want.size());
  double w = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double diff = std::fabs(got.getDouble(i) - want[i]);
    double err = diff == 0 ? 0 : diff / (atol + rtol * std::fabs(want[i]));
    if (!(err <= w)) // NaN counts as the worst
      w = std::isnan(err) ? INFINITY : err;
  }
  return w;
}

} // namespace

TEST_CASE("vector_add: add_kernel", "[samples]") {
  const int64_t n = 98432 + 7;
  auto module = compile(samplePath("vector_add"), "add_kernel", "*fp32:16,*fp32:16,*fp32:16,i32,1024");
  HostBuffer x(f32, n), y(f32, n), out(f32, n);
  x.fillRandom(1);
  y.fillRandom(2);
  launch(*module, {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::pointer(out),
                   KernelArg::integer(n)},
         cdiv(n, 1024));
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i)
    want[i] = static_cast<float>(x.getDouble(i)) + static_cast<float>(y.getDouble(i));
  CHECK(worst(out, want, 0, 0) <= 1);
}

TEST_CASE("copy: copy_k, and the seed's buggy versions are caught", "[samples]") {
  const int64_t n = 5000 + 3;
  HostBuffer x(f32, n);
  x.fillRandom(3);
  auto copies = [&](const std::string &path) {
    auto module = compile(path, "copy_k", "*fp32:16,*fp32:16,i32,1024");
    HostBuffer z(f32, n);
    launch(*module, {KernelArg::pointer(x), KernelArg::pointer(z), KernelArg::integer(n)},
           cdiv(n, 1024));
    for (int64_t i = 0; i < n; ++i)
      if (z.getDouble(i) != x.getDouble(i))
        return false;
    return true;
  };
  CHECK(copies(samplePath("copy")));

  // The notebook's two wrong versions: offsets not shifted by the program id, then shifted by n.
  std::string path = "sample_interp_tests_buggy_copy.tl";
  for (const char *offsets : {"tl.arange(0, bs)", "pid * n + tl.arange(0, bs)"}) {
    std::ofstream(path) << "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
                           "def copy_k(x_ptr, z_ptr, n, bs: tl.constexpr):\n"
                           "    pid = tl.program_id(0)\n"
                           "    offs = " << offsets << "\n"
                           "    mask = offs < n\n"
                           "    x = tl.load(x_ptr + offs, mask)\n"
                           "    tl.store(z_ptr + offs, x, mask)\n";
    INFO("buggy offsets: " << offsets);
    CHECK_FALSE(copies(path));
  }
  std::remove(path.c_str());
}

TEST_CASE("matrix_add: 2-D offsets and masks", "[samples]") {
  const int64_t m = 100, n = 300; // neither a multiple of 32 x 128
  auto module = compile(samplePath("matrix_add"), "matrix_add_kernel",
                        "*fp32:16,*fp32:16,*fp32:16,i32,i32,32,128");
  HostBuffer a(f32, m * n), b(f32, m * n), c(f32, m * n);
  a.fillRandom(4);
  b.fillRandom(5);
  launch(*module, {KernelArg::pointer(a), KernelArg::pointer(b), KernelArg::pointer(c),
                   KernelArg::integer(m), KernelArg::integer(n)},
         cdiv(m, 32), cdiv(n, 128));
  std::vector<double> want(m * n);
  for (int64_t i = 0; i < m * n; ++i)
    want[i] = static_cast<float>(a.getDouble(i)) + static_cast<float>(b.getDouble(i));
  CHECK(worst(c, want, 0, 0) <= 1);
}

TEST_CASE("rgb2grey: uint8 times float, stored as uint8", "[samples]") {
  const int64_t h = 45, w = 190;
  auto module = compile(samplePath("rgb2grey"), "rgb2grey_k", "*u8:16,*u8:16,i32,i32,32,128");
  HostBuffer img(u8, 3 * h * w), out(u8, h * w);
  img.fillRandom(6); // [0, 100)
  for (int64_t i = 0; i < 3 * h * w; ++i)
    img.setInt(i, (img.getInt(i) * 37) % 256); // spread over the whole byte range
  launch(*module, {KernelArg::pointer(img), KernelArg::pointer(out), KernelArg::integer(h),
                   KernelArg::integer(w)},
         cdiv(h, 32), cdiv(w, 128));
  std::vector<double> want(h * w);
  for (int64_t i = 0; i < h * w; ++i) {
    float r = static_cast<float>(img.getInt(i)), g = static_cast<float>(img.getInt(h * w + i)),
          b = static_cast<float>(img.getInt(2 * h * w + i));
    float grey = 0.2989f * r + 0.5870f * g + 0.1140f * b;
    want[i] = static_cast<double>(static_cast<uint8_t>(grey)); // truncation; grey < 256
  }
  CHECK(worst(out, want, 0, 0) <= 1);
}

namespace {
std::vector<double> softmaxReference(const HostBuffer &x, int64_t rows, int64_t cols) {
  std::vector<double> want(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      mx = std::max(mx, x.getDouble(r * cols + c));
    for (int64_t c = 0; c < cols; ++c)
      sum += std::exp(x.getDouble(r * cols + c) - mx);
    for (int64_t c = 0; c < cols; ++c)
      want[r * cols + c] = std::exp(x.getDouble(r * cols + c) - mx) / sum;
  }
  return want;
}
} // namespace

TEST_CASE("softmax: one row per program, and the online softmax over blocks", "[samples]") {
  const int64_t rows = 37, cols = 3001;
  HostBuffer x(f32, rows * cols);
  x.fillRandom(7);
  for (int64_t i = 0; i < rows * cols; ++i)
    x.setDouble(i, 8 * x.getDouble(i));
  std::vector<double> want = softmaxReference(x, rows, cols);

  auto whole = compile(samplePath("softmax"), "softmax_kernel", "*fp32:16,*fp32:16,i32,i32,i32,4096");
  HostBuffer y(f32, rows * cols);
  launch(*whole, {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::integer(cols),
                  KernelArg::integer(cols), KernelArg::integer(cols)},
         rows);
  CHECK(worst(y, want, 1e-9, 1e-5) <= 1);

  auto online =
      compile(samplePath("softmax"), "softmax_kernel_large", "*fp32:16,*fp32:16,i32,i32,i32,512");
  HostBuffer z(f32, rows * cols);
  launch(*online, {KernelArg::pointer(x), KernelArg::pointer(z), KernelArg::integer(cols),
                   KernelArg::integer(cols), KernelArg::integer(cols)},
         rows);
  CHECK(worst(z, want, 1e-9, 1e-5) <= 1);
}

namespace {
std::vector<double> layernormReference(const HostBuffer &x, const HostBuffer &w,
                                       const HostBuffer &b, int64_t rows, int64_t cols,
                                       double eps) {
  std::vector<double> want(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t c = 0; c < cols; ++c)
      mean += x.getDouble(r * cols + c);
    mean /= cols;
    for (int64_t c = 0; c < cols; ++c)
      var += (x.getDouble(r * cols + c) - mean) * (x.getDouble(r * cols + c) - mean);
    var /= cols;
    double rstd = 1 / std::sqrt(var + eps);
    for (int64_t c = 0; c < cols; ++c)
      want[r * cols + c] = (x.getDouble(r * cols + c) - mean) * rstd * w.getDouble(c) + b.getDouble(c);
  }
  return want;
}
} // namespace

TEST_CASE("layernorm: one-pass fp16 kernel with optional outputs, and Welford", "[samples]") {
  const int64_t rows = 29, cols = 1500;
  const double eps = 1e-5;
  HostBuffer x(f16, rows * cols), w(f16, cols), b(f16, cols);
  x.fillRandom(8);
  w.fillRandom(9);
  b.fillRandom(10);
  std::vector<double> want = layernormReference(x, w, b, rows, cols, eps);
  // fp16 output: half an ulp of values up to ~8 is about 4e-3.
  const double atol = 1e-2, rtol = 1e-2;

  auto plain = compile(samplePath("layernorm"), "layernorm_kernel",
                       "*fp16:16,*fp16:16,*fp16:16,*fp16:16,None,None,i32,i32,fp32,2048");
  HostBuffer y(f16, rows * cols);
  launch(*plain, {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::pointer(w),
                  KernelArg::pointer(b), KernelArg::integer(cols), KernelArg::integer(cols),
                  KernelArg::floating(eps)},
         rows);
  CHECK(worst(y, want, atol, rtol) <= 1);

  // With the statistics outputs on (fp32 pointers instead of None).
  auto stats = compile(samplePath("layernorm"), "layernorm_kernel",
                       "*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32,*fp32,i32,i32,fp32,2048");
  HostBuffer y2(f16, rows * cols), mean(f32, rows), rstd(f32, rows);
  launch(*stats, {KernelArg::pointer(x), KernelArg::pointer(y2), KernelArg::pointer(w),
                  KernelArg::pointer(b), KernelArg::pointer(mean), KernelArg::pointer(rstd),
                  KernelArg::integer(cols), KernelArg::integer(cols), KernelArg::floating(eps)},
         rows);
  CHECK(worst(y2, want, atol, rtol) <= 1);
  for (int64_t r = 0; r < rows; ++r) {
    double m = 0;
    for (int64_t c = 0; c < cols; ++c)
      m += x.getDouble(r * cols + c);
    CHECK(mean.getDouble(r) == Approx(m / cols).margin(1e-5));
    CHECK(rstd.getDouble(r) > 0);
  }

  auto welford = compile(samplePath("layernorm"), "layernorm_kernel_welford",
                         "*fp16:16,*fp16:16,*fp16:16,*fp16:16,i32,i32,fp32,256");
  HostBuffer y3(f16, rows * cols);
  launch(*welford, {KernelArg::pointer(x), KernelArg::pointer(y3), KernelArg::pointer(w),
                    KernelArg::pointer(b), KernelArg::integer(cols), KernelArg::integer(cols),
                    KernelArg::floating(eps)},
         rows);
  CHECK(worst(y3, want, atol, rtol) <= 1);
}
