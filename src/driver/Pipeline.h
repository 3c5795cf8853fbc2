// The one function that runs tilec's pipeline, stage after stage (see Pipeline.cpp).
#pragma once

#include "codegen/Metadata.h"
#include "frontend/SourceManager.h"
#include "tir/IR.h"

#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tilec::driver {

/// What to stop at and print.
enum class EmitKind {
  Ast,  // the syntax tree
  Tir,  // the block-level IR after the target-independent passes
  Tgir, // the IR with GPU layouts, after the layout passes
  Llvm, // LLVM IR after optimisation
  Ptx,  // PTX, plus the metadata JSON
};

struct KernelSpec {
  std::string name;
  std::string signature; // Triton AOT syntax
};

struct CompileOptions {
  std::string inputPath;
  /// Kernels to compile. Empty: every @triton.jit function that has a `# tilec: -s "..."`
  /// signature comment above it.
  std::vector<KernelSpec> kernels;
  std::vector<std::pair<std::string, std::string>> defines; // -D NAME=VALUE
  /// -I DIR: where `import helpers` looks after the kernel file's folder.
  std::vector<std::string> includeDirs;
  unsigned numWarps = 4;
  unsigned numStages = 3;
  /// Whether the command line gave --num-warps / --num-stages (KernelRequest::numWarpsGiven).
  bool numWarpsGiven = false;
  bool numStagesGiven = false;
  /// --maxnreg: registers per thread (.maxnreg) of kernels whose config names none; 0 for none.
  unsigned maxRegisters = 0;
  std::string arch = "sm_90a";
  /// torch.__version__ and torch.version.cuda as module-level code sees them (empty: tilec's
  /// defaults, sema::kDefaultTorchVersion and kDefaultCudaVersion).
  std::string torchVersion;
  std::string cudaVersion;
  /// tl.dot's input_precision where a dot of fp32 inputs names none (Triton's
  /// default_dot_input_precision): "tf32", "tf32x3" or "ieee".
  std::string dotPrecision = "tf32";
  /// Triton's debug mode (--debug, TRITON_DEBUG): tl.device_assert and `assert` are kept; without
  /// it only kernels decorated @triton.jit(debug=True) keep theirs.
  bool debug = false;
  /// Contract a*b+c into fma (Triton's enable_fp_fusion, on by default).
  bool fpFusion = true;
  /// libdevice.10.bc to link (math functions); empty: $TILEC_LIBDEVICE, else the CUDA toolkit's.
  std::string libdevice;
  EmitKind emit = EmitKind::Ptx;
  /// Print the IR after every pass to the log stream.
  bool printAfterAll = false;
  /// --jobs: threads that compile the kernels of a module (the variants of autotuned kernels)
  /// each in an LLVM module of its own; 0: one per hardware thread. The PTX does not depend on it.
  unsigned jobs = 0;
};

struct CompileResult {
  std::string output;   // the requested stage as text
  std::string metadata; // JSON describing the kernels (EmitKind::Ptx only)
  /// Every source file read: the kernel file, then the modules it imports (for -MD).
  std::vector<std::string> sourceFiles;
};

/// Parses, specialises and runs the target-independent passes: the IR the interpreter executes
/// and the GPU passes start from. Errors throw CompileError after printing a diagnostic.
/// @triton.autotune kernels give one function per config; `variants`, when given, receives how
/// they group (for the metadata).
/// `sourceFiles`, when given, receives every source file read.
std::unique_ptr<tir::Module> compileToTIR(const CompileOptions &options, SourceManager &sources,
                                          std::ostream &log,
                                          std::vector<codegen::KernelVariants> *variants = nullptr,
                                          std::vector<std::string> *sourceFiles = nullptr);

/// Runs the whole pipeline up to `options.emit`.
CompileResult compile(const CompileOptions &options, SourceManager &sources, std::ostream &log);

} // namespace tilec::driver
