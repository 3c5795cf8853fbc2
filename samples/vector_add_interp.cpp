// samples/vector_add.tl on tilec's CPU interpreter, checked against a plain C++ loop. This is what
// the quick start runs on a machine without a GPU; samples/vector_add.cpp is the GPU twin.
//
//   vector_add_interp [path/to/vector_add.tl] [n]
#include "driver/Pipeline.h"
#include "interp/Interpreter.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

int main(int argc, char **argv) {
  std::string source = argc > 1 ? argv[1] : "samples/vector_add.tl";
  int64_t n = argc > 2 ? std::atoll(argv[2]) : 98432; // not a multiple of the block
  const int64_t block = 1024;

  tilec::driver::CompileOptions options;
  options.inputPath = source;
  options.kernels.push_back({"add_kernel", "*fp32:16,*fp32:16,*fp32:16,i32," + std::to_string(block)});
  tilec::SourceManager sources;
  std::ostringstream log;
  std::unique_ptr<tilec::tir::Module> module;
  try {
    module = tilec::driver::compileToTIR(options, sources, log);
  } catch (const tilec::CompileError &) {
    return 1; // the diagnostic was printed
  }

  using tilec::interp::HostBuffer;
  const tilec::tir::DType f32 = tilec::tir::DType::scalar(tilec::tir::ScalarKind::F32);
  HostBuffer x(f32, n), y(f32, n), out(f32, n);
  x.fillRandom(1);
  y.fillRandom(2);
  tilec::interp::LaunchOptions launch;
  launch.grid[0] = static_cast<unsigned>((n + block - 1) / block);
  try {
    tilec::interp::run(*module->functions[0],
                       {tilec::interp::KernelArg::pointer(x), tilec::interp::KernelArg::pointer(y),
                        tilec::interp::KernelArg::pointer(out),
                        tilec::interp::KernelArg::integer(n)},
                       launch);
  } catch (const tilec::interp::InterpError &e) {
    std::cerr << "vector_add (interpreter): " << e.what() << "\n";
    return 1;
  }

  double maxError = 0;
  for (int64_t i = 0; i < n; ++i) {
    float expected = static_cast<float>(x.getDouble(i)) + static_cast<float>(y.getDouble(i));
    maxError = std::max(maxError, std::fabs(out.getDouble(i) - expected));
  }
  bool ok = maxError == 0;
  std::printf("vector_add (interpreter): n=%lld max_abs_err=%g %s\n", static_cast<long long>(n),
              maxError, ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
