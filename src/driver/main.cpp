// The tilec command line.
//
//   tilec kernel.tl -k add_kernel -s "*fp32:16,*fp32:16,*fp32:16,i32,1024" -o add.ptx
//   tilec kernel.tl --emit tir
//   tilec run kernel.tl -k add_kernel -s ... --grid 4 x=rand:4096 ...
#include "driver/Header.h"
#include "driver/Pipeline.h"
#include "driver/RunCommand.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>

namespace {

using tilec::driver::CompileOptions;
using tilec::driver::EmitKind;

/// Writes `text` to `path` through a temporary file and a rename, so that a failure never leaves
/// a partial output behind. "-" writes to stdout.
bool writeOutput(const std::string &path, const std::string &text) {
  if (path == "-") {
    std::cout << text;
    return static_cast<bool>(std::cout);
  }
  std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary);
    if (!out || !(out << text) || !out.flush()) {
      std::remove(temp.c_str());
      std::cerr << "error: cannot write '" << path << "'\n";
      return false;
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    std::cerr << "error: cannot write '" << path << "'\n";
    return false;
  }
  return true;
}

std::string replaceExtension(const std::string &path, const std::string &ext) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return path + ext;
  return path.substr(0, dot) + ext;
}

std::string baseName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// Options shared by compiling and running.
struct CommonFlags {
  std::string input;
  std::vector<std::string> kernels;
  std::vector<std::string> signatures;
  std::vector<std::string> defines;
  unsigned numWarps = 4;
  unsigned numStages = 3;
};

void addCommonFlags(CLI::App &app, CommonFlags &flags) {
  app.add_option("file", flags.input,
                 "Kernel source file (a Python module with @triton.jit "
                 "functions)")
      ->required();
  app.add_option("-k,--kernel", flags.kernels,
                 "Kernel to compile; repeat with one -s each for several kernels")
      ->allow_extra_args(false); // one value per -k/-s/-D: later words are positionals
  app.add_option("-s,--signature", flags.signatures,
                 "Signature of the kernel in Triton AOT syntax, one entry per parameter: "
                 "'*fp32:16' (pointer, 16-byte aligned), 'i32', 'i32:16' (divisible by 16), or a "
                 "literal such as 1024 binding a tl.constexpr")
      ->allow_extra_args(false);
  app.add_option("-D,--define", flags.defines,
                 "Bind a constexpr parameter or module-level constant: NAME=VALUE")
      ->allow_extra_args(false);
  app.add_option("--num-warps", flags.numWarps, "Warps per program (block = 32 x num-warps)")
      ->check(CLI::IsMember({1u, 2u, 4u, 8u, 16u, 32u}))
      ->capture_default_str();
  app.add_option("--num-stages", flags.numStages,
                 "Software pipelining depth: loads feeding tensor-core dots in loops are copied "
                 "(cp.async) num-stages - 1 iterations ahead; 1 turns it off")
      ->check(CLI::Range(1u, 8u))
      ->capture_default_str();
}

/// Turns the shared flags into compile options; false with a message on bad combinations.
bool toOptions(const CommonFlags &flags, CompileOptions &options) {
  options.inputPath = flags.input;
  options.numWarps = flags.numWarps;
  options.numStages = flags.numStages;
  if (flags.kernels.size() != flags.signatures.size()) {
    std::cerr << "error: give one -s/--signature for each -k/--kernel (got " << flags.kernels.size()
              << " kernels and " << flags.signatures.size() << " signatures)\n";
    return false;
  }
  for (size_t i = 0; i < flags.kernels.size(); ++i)
    options.kernels.push_back({flags.kernels[i], flags.signatures[i]});
  for (const std::string &d : flags.defines) {
    size_t eq = d.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "error: -D expects NAME=VALUE, got '" << d << "'\n";
      return false;
    }
    options.defines.emplace_back(d.substr(0, eq), d.substr(eq + 1));
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"tilec: an ahead-of-time compiler for Triton kernels.\n"
               "Compiles @triton.jit functions of a Python source file to PTX (with a JSON "
               "metadata file next to it), or runs them on the CPU interpreter (tilec run).",
               "tilec"};
  app.set_version_flag("--version", "tilec 0.1.0");

  CommonFlags flags;
  addCommonFlags(app, flags);
  std::string output;
  std::string metadataPath;
  std::string emit = "ptx";
  std::string arch = "sm_90a";
  bool printAfterAll = false;
  bool noFpFusion = false;
  app.add_option("-o,--output", output,
                 "Output file ('-' for stdout). Default: the input's name with .ptx for --emit "
                 "ptx, with .h for --emit header, else stdout");
  app.add_option("--metadata", metadataPath,
                 "Where to write the kernels' metadata JSON (default: the output with .json)");
  app.add_option("--emit", emit,
                 "Stage to output: ast, tir, tgir, llvm or ptx; or header: a C++ header with the "
                 "PTX and metadata embedded and a typed launcher per kernel")
      ->check(CLI::IsMember({"ast", "tir", "tgir", "llvm", "ptx", "header"}))
      ->capture_default_str();
  app.add_option(
         "--arch", arch,
         "GPU architecture: sm_80, sm_86, sm_89, sm_90 or sm_90a (tl.dot on mma.sync tensor "
         "cores on all of them)")
      ->check(CLI::IsMember({"sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"}))
      ->capture_default_str();
  app.add_flag("--print-after-all", printAfterAll, "Print the IR after every pass to stderr");
  app.add_flag("--no-fp-fusion", noFpFusion,
               "Do not contract a*b+c into fma (Triton's enable_fp_fusion=False)");

  // `tilec run`: execute a kernel on the CPU interpreter.
  CLI::App *run = app.add_subcommand(
      "run", "Run a kernel on the CPU interpreter over a grid, on buffers made from the "
             "arguments, and print or save them");
  CommonFlags runFlags;
  tilec::driver::RunFlags runOnly;
  addCommonFlags(*run, runFlags);
  tilec::driver::addRunFlags(*run, runOnly);
  app.require_subcommand(0, 1);
  // With a subcommand the top-level positional is not required.
  app.get_option("file")->required(false);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    // --help and --version exit 0; every usage error exits 1, like any other bad input.
    return app.exit(e) == 0 ? 0 : 1;
  }

  try {
    if (run->parsed()) {
      CompileOptions options;
      if (!toOptions(runFlags, options))
        return 1;
      tilec::SourceManager sources;
      return tilec::driver::runCommand(options, runOnly, sources, std::cout, std::cerr);
    }
    if (flags.input.empty()) {
      std::cerr << "error: no input file (see tilec --help)\n";
      return 1;
    }
    CompileOptions options;
    if (!toOptions(flags, options))
      return 1;
    options.arch = arch;
    options.fpFusion = !noFpFusion;
    options.printAfterAll = printAfterAll;
    options.emit = emit == "ast"    ? EmitKind::Ast
                   : emit == "tir"  ? EmitKind::Tir
                   : emit == "tgir" ? EmitKind::Tgir
                   : emit == "llvm" ? EmitKind::Llvm
                                    : EmitKind::Ptx;
    if (emit == "header") {
      // The header holds the PTX and the metadata: no other file is written unless asked for.
      if (output.empty())
        output = replaceExtension(baseName(flags.input), ".h");
      tilec::SourceManager sources;
      tilec::driver::CompileResult result = tilec::driver::compile(options, sources, std::cerr);
      std::string header = tilec::driver::emitHeader(result.output, result.metadata, flags.input);
      if (!metadataPath.empty() && !writeOutput(metadataPath, result.metadata))
        return 1;
      return writeOutput(output, header) ? 0 : 1;
    }
    if (output.empty())
      output =
          options.emit == EmitKind::Ptx ? replaceExtension(baseName(flags.input), ".ptx") : "-";
    tilec::SourceManager sources;
    tilec::driver::CompileResult result = tilec::driver::compile(options, sources, std::cerr);
    if (options.emit == EmitKind::Ptx && output != "-") {
      if (metadataPath.empty())
        metadataPath = replaceExtension(output, ".json");
      // Write the metadata first: a runtime that finds the PTX must find its description.
      if (!writeOutput(metadataPath, result.metadata))
        return 1;
    } else if (!metadataPath.empty() && !writeOutput(metadataPath, result.metadata)) {
      return 1;
    }
    return writeOutput(output, result.output) ? 0 : 1;
  } catch (const tilec::CompileError &e) {
    if (!e.reported())
      std::cerr << e.what() << "\n";
    return 1;
  } catch (const std::exception &e) {
    std::cerr << "internal compiler error: " << e.what() << "\n";
    return 1;
  }
}
