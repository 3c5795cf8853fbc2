// The CPU interpreter of the block-level IR (DESIGN.md §1.5).
//
// It runs a kernel's tir::Function program by program, with the semantics of the code the GPU
// backend generates: integer arithmetic wraps, fp16/bf16 results are rounded to their type after
// every operation, casts saturate and round as PTX's cvt does. It is both the oracle of the test
// suite and a debugging tool (`tilec run`), so it checks what the GPU does not: every access must
// fall inside a buffer passed to the kernel, and integer division by zero is an error.
//
//   HostBuffer x = parseBufferSpec("rand:1000", f32), y(f32, 1000), out(f32, 1000);
//   LaunchOptions options;
//   options.grid[0] = 8;
//   run(kernel, {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::pointer(out),
//                KernelArg::integer(1000)}, options);
#pragma once

#include "frontend/SourceManager.h"
#include "interp/HostBuffer.h"
#include "tir/IR.h"

#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilec::interp {

/// An error found while running a kernel (or while preparing its arguments or buffers).
/// what() is "line:col: message" when the error has a location, else the message alone; the CLI
/// uses loc() and message() to format it against the source file.
class InterpError : public std::runtime_error {
public:
  explicit InterpError(const std::string &message)
      : std::runtime_error(message), message_(message) {}
  InterpError(SourceLoc loc, const std::string &message)
      : std::runtime_error(format(loc, message)), loc_(loc), message_(message) {}

  SourceLoc loc() const { return loc_; }
  const std::string &message() const { return message_; }

private:
  static std::string format(SourceLoc loc, const std::string &message) {
    if (!loc.isValid())
      return message;
    return std::to_string(loc.line) + ":" + std::to_string(loc.col) + ": " + message;
  }

  SourceLoc loc_;
  std::string message_;
};

/// One kernel argument: a pointer into a HostBuffer, or a scalar converted to the parameter's
/// type (integers must fit it; a double passed for an integer parameter must be integral).
struct KernelArg {
  enum class Kind { Pointer, Integer, Float };

  static KernelArg pointer(HostBuffer &buffer, int64_t elementOffset = 0) {
    KernelArg arg;
    arg.kind = Kind::Pointer;
    arg.buffer = &buffer;
    arg.elementOffset = elementOffset;
    return arg;
  }
  static KernelArg integer(int64_t value) {
    KernelArg arg;
    arg.kind = Kind::Integer;
    arg.intValue = value;
    return arg;
  }
  static KernelArg floating(double value) {
    KernelArg arg;
    arg.kind = Kind::Float;
    arg.floatValue = value;
    return arg;
  }

  Kind kind = Kind::Integer;
  HostBuffer *buffer = nullptr;
  int64_t elementOffset = 0; // in elements of the buffer's type
  int64_t intValue = 0;
  double floatValue = 0;
};

struct LaunchOptions {
  unsigned grid[3] = {1, 1, 1};
  /// Where `print` ops write (device_print goes to stdout under Triton too).
  std::ostream *printStream = &std::cout;
};

/// Runs every program of `options.grid` sequentially, program id 0 fastest. Throws InterpError on
/// a failed `assert`, an access outside every buffer passed to the kernel, a misaligned access, an
/// integer division by zero, or arguments that do not match the kernel's parameters.
void run(const tir::Function &kernel, const std::vector<KernelArg> &args,
         const LaunchOptions &options);

} // namespace tilec::interp
