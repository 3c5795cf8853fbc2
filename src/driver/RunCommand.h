// `tilec run`: compile a kernel to TIR and execute it on the CPU interpreter.
//
//   tilec run add.tl -k add_kernel -s "*fp32,*fp32,*fp32,i32,1024" --grid 4
//             rand:4000 rand:4000 zeros:4000 4000 --print
//
// Each argument after the file is one run-time kernel parameter, in order, optionally as
// NAME=VALUE: a buffer spec for a pointer (zeros:N ones:N range:N rand:N[:SEED] file:PATH, with the
// pointee's element type), a number for a scalar.
#pragma once

#include "driver/Pipeline.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace tilec::driver {

struct RunFlags {
  std::string grid = "1";
  std::vector<std::string> args;
  std::vector<std::string> dumps; // NAME=PATH: write a buffer after the run
  bool print = false;
  int config = -1; // autotune config to run; -1: the kernel must not be autotuned
  unsigned printLimit = 16;
};

void addRunFlags(CLI::App &app, RunFlags &flags);

/// Runs the command; returns the process exit code. Diagnostics go to `err`, printed buffers and
/// device_print output to `out`.
int runCommand(const CompileOptions &options, const RunFlags &flags, SourceManager &sources,
               std::ostream &out, std::ostream &err);

} // namespace tilec::driver
