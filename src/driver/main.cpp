// The tilec command line.
//
//   tilec kernel.tl -k add_kernel -s "*fp32:16,*fp32:16,*fp32:16,i32,1024" -o add.ptx
//   tilec kernel.tl --emit tir
//   tilec run kernel.tl -k add_kernel -s ... --grid 4 x=rand:4096 ...
#include "driver/Binary.h"
#include "driver/Header.h"
#include "driver/Pipeline.h"
#include "driver/RunCommand.h"
#include "sema/Sema.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
  std::vector<std::string> includeDirs;
  unsigned numWarps = 4;
  unsigned numStages = 3;
  bool numWarpsGiven = false;  // --num-warps is on the command line
  bool numStagesGiven = false; // --num-stages is on the command line
  unsigned maxRegisters = 0;   // --maxnreg; 0: none
  std::string dotPrecision; // empty: $TRITON_F32_DEFAULT, else tf32
  bool debug = false;       // also $TRITON_DEBUG
  std::string torchVersion = tilec::sema::kDefaultTorchVersion;
  std::string cudaVersion = tilec::sema::kDefaultCudaVersion;
};

void addCommonFlags(CLI::App &app, CommonFlags &flags) {
  app.add_option("file", flags.input,
                 "Kernel source file (a Python module with @triton.jit "
                 "functions)")
      ->required();
  app.add_option("-k,--kernel", flags.kernels,
                 "Kernel to compile: a @triton.jit function at module level (also under a "
                 "module-level if/try), else in a class body or nested in a function (named by "
                 "its qualified name, such as test_add.<locals>.kernel, where several functions "
                 "define one of that name; -D gives the values of the enclosing function's "
                 "variables it reads); repeat with one -s each for several kernels")
      ->allow_extra_args(false); // one value per -k/-s/-D: later words are positionals
  app.add_option("-s,--signature", flags.signatures,
                 "Signature of the kernel in Triton AOT syntax, one entry per parameter: "
                 "'*fp32:16' (pointer, 16-byte aligned), 'i32', 'i32:16' (divisible by 16), "
                 "'tensordesc<fp16[64, 64]>' (a host TensorDescriptor: base, shape, strides and "
                 "padding flag as parameters, see docs/metadata.md), a literal such as 1024 "
                 "binding a tl.constexpr, a function for a tl.constexpr by a dotted name "
                 "('tl.extra.cuda.globaltimer', 'helpers.relu', or MODULE.QUALNAME such as "
                 "'__main__.relu' or 'test_x.<locals>.act' for the kernel's own file) or, where "
                 "the kernel calls it, by the bare name of a @triton.jit function of its module, "
                 "a tuple of entries such as '(*fp16:16,i32,1)' (its run-time elements are "
                 "parameters named 'arg.0', 'arg.1'...), or 'Name(...)' for a typing.NamedTuple "
                 "of class Name; '' for a kernel without parameters")
      ->allow_extra_args(false);
  app.add_option("-D,--define", flags.defines,
                 "Bind a constexpr parameter or module-level constant: NAME=VALUE (VALUE as a "
                 "signature literal, a function by its dotted name too)")
      ->allow_extra_args(false);
  app.add_option("-I,--include-dir", flags.includeDirs,
                 "Folder where `import helpers` / `from pkg.mod import f` look for helpers.tl, "
                 "helpers.py or helpers/__init__.{tl,py}, after the kernel file's own folder; "
                 "repeat for several, searched in order")
      ->allow_extra_args(false);
  app.add_option("--num-warps", flags.numWarps, "Warps per program (block = 32 x num-warps)")
      ->check(CLI::IsMember({1u, 2u, 4u, 8u, 16u, 32u}))
      ->capture_default_str()
      ->each([&flags](const std::string &) { flags.numWarpsGiven = true; });
  app.add_option("--num-stages", flags.numStages,
                 "Software pipelining depth: loads feeding tensor-core dots in loops are copied "
                 "(cp.async) num-stages - 1 iterations ahead, other loads of loops without "
                 "stores are issued one iteration ahead; 1 (or 0, as Triton takes it) turns "
                 "both off")
      ->check(CLI::Range(0u, 32u))
      ->capture_default_str()
      ->each([&flags](const std::string &) { flags.numStagesGiven = true; });
  app.add_option("--maxnreg", flags.maxRegisters,
                 "Registers per thread, at most (Triton's maxnreg option, the PTX's .maxnreg), "
                 "for kernels whose autotune config gives no maxnreg; by default ptxas chooses")
      ->check(CLI::Range(1u, 255u));
  app.add_option("--dot-precision", flags.dotPrecision,
                 "Precision of tl.dot on fp32 inputs that name none (input_precision=None): "
                 "tf32, tf32x3, ieee, bf16x3 or bf16x6. Default: $TRITON_F32_DEFAULT, as "
                 "Triton reads it, else tf32")
      ->check(CLI::IsMember({"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"}));
  app.add_flag("--debug", flags.debug,
               "Triton's debug mode: keep tl.device_assert and the kernels' `assert` statements. "
               "Without it they are dropped, as Triton drops them, unless TRITON_DEBUG is set "
               "(1, true, yes, on) or the kernel is @triton.jit(debug=True)");
  app.add_option("--torch-version", flags.torchVersion,
                 "torch.__version__ for the module-level Python that tilec evaluates "
                 "(`if torch_version_at_least(\"2.8.0\"):`). Default: the newest torch tilec is "
                 "tested with")
      ->capture_default_str();
  app.add_option("--cuda-version", flags.cudaVersion,
                 "torch.version.cuda, the CUDA version of the host's torch, for module-level "
                 "Python. The device capability that such code asks for "
                 "(torch.cuda.get_device_capability()) is --arch's")
      ->capture_default_str();
}

/// Turns the shared flags into compile options; false with a message on bad combinations.
bool toOptions(const CommonFlags &flags, CompileOptions &options) {
  options.inputPath = flags.input;
  options.numWarps = flags.numWarps;
  // Triton takes num_stages=0 (apex's OpenFold MHA launches with it) and pipelines a loop only
  // from 2 stages on (AssignLatencies): 0 compiles as 1, as a triton.Config's does.
  options.numStages = std::max(1u, flags.numStages);
  options.numWarpsGiven = flags.numWarpsGiven;
  options.numStagesGiven = flags.numStagesGiven;
  options.maxRegisters = flags.maxRegisters;
  options.includeDirs = flags.includeDirs;
  options.dotPrecision = flags.dotPrecision;
  // Triton's knobs.runtime.debug reads TRITON_DEBUG as a boolean.
  std::string debugEnvironment = std::getenv("TRITON_DEBUG") ? std::getenv("TRITON_DEBUG") : "";
  std::transform(debugEnvironment.begin(), debugEnvironment.end(), debugEnvironment.begin(),
                 ::tolower);
  options.debug = flags.debug || debugEnvironment == "1" || debugEnvironment == "true" ||
                  debugEnvironment == "yes" || debugEnvironment == "on" || debugEnvironment == "y";
  options.torchVersion = flags.torchVersion;
  options.cudaVersion = flags.cudaVersion;
  if (options.dotPrecision.empty()) {
    // Triton's default dot precision comes from TRITON_F32_DEFAULT (projects' tests set it).
    const char *fromEnvironment = std::getenv("TRITON_F32_DEFAULT");
    options.dotPrecision = fromEnvironment && *fromEnvironment ? fromEnvironment : "tf32";
    std::transform(options.dotPrecision.begin(), options.dotPrecision.end(),
                   options.dotPrecision.begin(), ::tolower);
    if (options.dotPrecision != "tf32" && options.dotPrecision != "tf32x3" &&
        options.dotPrecision != "ieee" && options.dotPrecision != "bf16x3" &&
        options.dotPrecision != "bf16x6") {
      std::cerr << "error: TRITON_F32_DEFAULT is '" << fromEnvironment
                << "'; tilec takes tf32, tf32x3, ieee, bf16x3 or bf16x6\n";
      return false;
    }
  }
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

/// Escapes a path for a Make/Ninja depfile as gcc does: spaces and '#' with a backslash, '$'
/// doubled.
std::string depfileEscape(const std::string &path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#')
      out += '\\';
    else if (c == '$')
      out += '$';
    out += c;
  }
  return out;
}

/// The depfile (-MD/-MF) for `target`: it depends on every source file read, so that a build
/// system recompiles when an imported helper changes, not just the kernel file.
std::string depfileText(const std::string &target, const std::vector<std::string> &sources) {
  std::string text = depfileEscape(target) + ":";
  for (const std::string &source : sources)
    text += " \\\n  " + depfileEscape(source);
  return text + "\n";
}

} // namespace

int main(int argc, char **argv) {
  // gcc's spellings -MD and -MF FILE (CLI11 takes one-letter short options only): the same as
  // --MD and --MF.
  std::vector<std::string> arguments(argv, argv + argc);
  for (size_t i = 1; i < arguments.size(); ++i) {
    if (arguments[i] == "--")
      break;
    if (arguments[i] == "-MD")
      arguments[i] = "--MD";
    else if (arguments[i] == "-MF")
      arguments[i] = "--MF";
    else if (arguments[i].compare(0, 3, "-MF") == 0)
      arguments[i] = "--MF=" + arguments[i].substr(3);
  }
  std::vector<char *> adjusted;
  for (std::string &a : arguments)
    adjusted.push_back(a.data());
  argc = static_cast<int>(adjusted.size());
  adjusted.push_back(nullptr);
  argv = adjusted.data();

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
  std::vector<std::string> archs;
  std::string embed = "ptx";
  bool depfile = false;
  std::string depfilePath;
  bool printAfterAll = false;
  unsigned jobs = 0; // --jobs; 0: one per hardware thread
  bool noFpFusion = false;
  std::string libdevice;
  app.add_option("-o,--output", output,
                 "Output file ('-' for stdout). Default: the input's name with .ptx, .cubin, "
                 ".fatbin or .h for --emit ptx, cubin, fatbin or header, else stdout");
  app.add_option("--metadata", metadataPath,
                 "Where to write the kernels' metadata JSON (default: the output with .json)");
  app.add_option("--emit", emit,
                 "Stage to output: ast, tir, tgir, llvm or ptx; cubin (machine code for one "
                 "--arch, through the CUDA toolkit's ptxas) or fatbin (machine code for every "
                 "--arch, plus the PTX of the newest one without an 'a' suffix for newer GPUs, "
                 "through ptxas and fatbinary; both warn for each kernel that spills registers "
                 "to local memory); or header: a C++ header with the PTX (or, with "
                 "--embed fatbin, a fatbin) and metadata embedded and a typed launcher per kernel")
      ->check(CLI::IsMember({"ast", "tir", "tgir", "llvm", "ptx", "cubin", "fatbin", "header"}))
      ->capture_default_str();
  app.add_option(
         "--arch", archs,
         "GPU architecture: sm_80, sm_86, sm_87, sm_89, sm_90 or sm_90a (tl.dot on the tensor "
         "cores: wgmma on sm_90a where it fits, mma.sync otherwise). Default sm_90a. Repeat it "
         "for --emit fatbin (and "
         "--emit header --embed fatbin): one fatbin for several GPUs")
      ->check(CLI::IsMember({"sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"}))
      ->allow_extra_args(false);
  app.add_option("--embed", embed,
                 "What --emit header embeds: ptx (the driver JITs it when loading) or fatbin "
                 "(machine code for every --arch, loaded without JIT; needs ptxas and fatbinary)")
      ->check(CLI::IsMember({"ptx", "fatbin"}))
      ->capture_default_str();
  app.add_flag("--MD", depfile,
               "-MD: also write a Make/Ninja depfile listing the output and every source file "
               "read (the kernel file and each module it imports), next to the output with .d "
               "(out.ptx -> out.d), unless -MF names it");
  app.add_option("--MF", depfilePath, "-MF FILE: where -MD writes the depfile (implies -MD)");
  app.add_flag("--print-after-all", printAfterAll, "Print the IR after every pass to stderr");
  app.add_option("-j,--jobs", jobs,
                 "Threads that optimise and generate the code of a file's kernels (the variants "
                 "of an @triton.autotune kernel, one per config), each kernel apart; default: "
                 "one per hardware thread; -j 1 compiles them one after another. The output "
                 "does not depend on it")
      ->check(CLI::Range(1u, 1024u));
  app.add_flag("--no-fp-fusion", noFpFusion,
               "Do not contract a*b+c into fma (Triton's enable_fp_fusion=False)");
  app.add_option("--libdevice", libdevice,
                 "libdevice.10.bc to link for math functions (default: $TILEC_LIBDEVICE, else "
                 "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc). Triton links the copy in its "
                 "wheel (triton/backends/nvidia/lib/libdevice.10.bc), which differs from CUDA "
                 "13's in places: give that copy for Triton's bits in erf, tanh and the like");

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
    if (archs.empty())
      archs.push_back("sm_90a");
    for (size_t i = 0; i < archs.size(); ++i)
      if (std::find(archs.begin(), archs.begin() + i, archs[i]) != archs.begin() + i) {
        std::cerr << "error: --arch " << archs[i] << " is given twice\n";
        return 1;
      }
    bool binary = emit == "cubin" || emit == "fatbin" || (emit == "header" && embed == "fatbin");
    if (archs.size() > 1 && !(emit == "fatbin" || (emit == "header" && embed == "fatbin"))) {
      std::cerr << "error: several --arch need --emit fatbin or --emit header --embed fatbin; "
                   "--emit "
                << emit << (emit == "header" ? " embeds PTX, which is" : " is")
                << " for one architecture\n";
      return 1;
    }
    if (embed == "fatbin" && emit != "header") {
      std::cerr << "error: --embed fatbin is for --emit header\n";
      return 1;
    }
    if (!depfilePath.empty())
      depfile = true;
    options.arch = archs.front();
    options.fpFusion = !noFpFusion;
    options.libdevice = libdevice;
    options.printAfterAll = printAfterAll;
    options.jobs = jobs;
    options.emit = emit == "ast"    ? EmitKind::Ast
                   : emit == "tir"  ? EmitKind::Tir
                   : emit == "tgir" ? EmitKind::Tgir
                   : emit == "llvm" ? EmitKind::Llvm
                                    : EmitKind::Ptx;
    if (output.empty())
      output = emit == "header"   ? replaceExtension(baseName(flags.input), ".h")
               : emit == "ptx"    ? replaceExtension(baseName(flags.input), ".ptx")
               : emit == "cubin"  ? replaceExtension(baseName(flags.input), ".cubin")
               : emit == "fatbin" ? replaceExtension(baseName(flags.input), ".fatbin")
                                  : "-";
    if (depfile && depfilePath.empty()) {
      if (output == "-") {
        std::cerr << "error: -MD writes its depfile next to the output: give -o FILE or -MF "
                     "FILE\n";
        return 1;
      }
      depfilePath = replaceExtension(output, ".d");
    }
    if ((emit == "cubin" || emit == "fatbin") && output == "-") {
      std::cerr << "error: --emit " << emit << " is binary: give -o FILE\n";
      return 1;
    }
    tilec::SourceManager sources;
    tilec::driver::CompileResult result =
        binary ? tilec::driver::compileBinary(options, archs, emit == "cubin", sources, std::cerr)
               : tilec::driver::compile(options, sources, std::cerr);
    // The depfile first: a build that sees the output must see what it depends on.
    if (depfile && !writeOutput(depfilePath, depfileText(output, result.sourceFiles)))
      return 1;
    if (emit == "header") {
      // The header holds the image and the metadata: no other file is written unless asked for.
      std::string header =
          tilec::driver::emitHeader(result.output, result.metadata, flags.input, embed == "fatbin");
      if (!metadataPath.empty() && !writeOutput(metadataPath, result.metadata))
        return 1;
      return writeOutput(output, header) ? 0 : 1;
    }
    if ((options.emit == EmitKind::Ptx || binary) && output != "-") {
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
