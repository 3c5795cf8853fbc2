// Helpers of the seed-kernel interpreter tests: compile one kernel of a sample (or of a patched
// copy of it) to TIR, launch it on the interpreter, compare with a reference.
#pragma once

#include "driver/Pipeline.h"
#include "interp/Interpreter.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

namespace tilec::seedtest {

/// The element types the interpreter tests build buffers of.
inline const tir::DType f16 = tir::DType::scalar(tir::ScalarKind::F16);
inline const tir::DType f32 = tir::DType::scalar(tir::ScalarKind::F32);
inline const tir::DType f64 = tir::DType::scalar(tir::ScalarKind::F64);
inline const tir::DType i16 = tir::DType::scalar(tir::ScalarKind::I16);
inline const tir::DType i32 = tir::DType::scalar(tir::ScalarKind::I32);
inline const tir::DType i64 = tir::DType::scalar(tir::ScalarKind::I64);
inline const tir::DType u8 = tir::DType::scalar(tir::ScalarKind::U8);
inline const tir::DType u32 = tir::DType::scalar(tir::ScalarKind::U32);
inline const tir::DType u64 = tir::DType::scalar(tir::ScalarKind::U64);

inline std::string samplePath(const std::string &name) {
  return std::string(TILEC_SAMPLES_DIR) + "/" + name + ".tl";
}

inline std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Writes a copy of `path` with `from` replaced by `to` (which must occur) into the test's
/// working directory, and returns the copy's path: the seeds' buggy versions are the samples with
/// their fixes undone.
inline std::string patchedCopy(const std::string &path, const std::string &from,
                               const std::string &to, const std::string &copyName) {
  std::string text = readFile(path);
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  std::ofstream(copyName) << text;
  return copyName;
}

/// Compiles `kernel` of `path`; returns null and sets `error` on a compile error.
inline std::unique_ptr<tir::Module> tryCompile(const std::string &path, const std::string &kernel,
                                               const std::string &signature, std::string &error) {
  driver::CompileOptions options;
  options.inputPath = path;
  options.kernels.push_back({kernel, signature});
  SourceManager sources;
  std::ostringstream diagnostics, log;
  sources.setDiagnosticStream(&diagnostics);
  try {
    return driver::compileToTIR(options, sources, log);
  } catch (const CompileError &e) {
    error = e.what();
  }
  return nullptr;
}

/// Compiles `kernel` of `path`; fails the test with the diagnostic on a compile error.
inline std::unique_ptr<tir::Module> compile(const std::string &path, const std::string &kernel,
                                            const std::string &signature) {
  std::string error;
  auto module = tryCompile(path, kernel, signature, error);
  if (!module)
    FAIL("compiling " << kernel << " failed:\n" << error);
  return module;
}

inline void launch(const tir::Function &function, std::vector<interp::KernelArg> args, unsigned gx,
                   unsigned gy = 1, unsigned gz = 1) {
  interp::LaunchOptions options;
  options.grid[0] = gx;
  options.grid[1] = gy;
  options.grid[2] = gz;
  interp::run(function, args, options);
}

/// A deterministic pseudo-random integer in [-range, range) for element i; `salt` picks one of
/// many independent sequences (each test file keeps its own, so its inputs stay what they were).
inline int64_t noise(int64_t i, int64_t range, uint64_t salt) {
  uint64_t x = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull + salt;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return static_cast<int64_t>(x % static_cast<uint64_t>(2 * range)) - range;
}

inline unsigned cdiv(int64_t a, int64_t b) {
  return static_cast<unsigned>((a + b - 1) / b);
}

/// The value of constexpr `name` of a specialised kernel (autotune variants bind their own).
inline int64_t constexprValue(const tir::Function &function, const std::string &name) {
  for (const tir::ConstexprBinding &binding : function.constexprs)
    if (binding.name == name)
      return std::stoll(binding.value);
  FAIL("kernel " << function.name() << " has no constexpr " << name);
  return 0;
}

/// The largest |got - want| / (atol + rtol * |want|); <= 1 means within tolerance.
inline double worst(const interp::HostBuffer &got, const std::vector<double> &want, double atol,
                    double rtol) {
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

/// Runs a padding kernel (block pointers, tensor descriptors): it reads the 8 x 8 block at
/// (-2, n - 4) of an m x n fp32 range matrix (m = 5, n = 6) with zero padding into one buffer and
/// with NaN padding into another. Returns how many of the 128 results are wrong.
inline int64_t paddingMismatches(const tir::Function &function) {
  const int64_t m = 5, n = 6;
  interp::HostBuffer x(f32, m * n), zeros(f32, 64), nans(f32, 64);
  x.fillRange();
  launch(function,
         {interp::KernelArg::pointer(x), interp::KernelArg::pointer(zeros),
          interp::KernelArg::pointer(nans), interp::KernelArg::integer(m),
          interp::KernelArg::integer(n)},
         1);
  int64_t wrong = 0;
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 8; ++c) {
      int64_t row = r - 2, col = c + n - 4;
      bool inside = row >= 0 && row < m && col >= 0 && col < n;
      double want = inside ? static_cast<double>(row * n + col) : 0.0;
      wrong += zeros.getDouble(r * 8 + c) != want;
      wrong += inside ? nans.getDouble(r * 8 + c) != want : !std::isnan(nans.getDouble(r * 8 + c));
    }
  return wrong;
}

} // namespace tilec::seedtest
