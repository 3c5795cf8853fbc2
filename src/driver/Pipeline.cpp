// tilec's whole lowering, as one sequence of named steps. Each step's output can be printed
// (`--print-after-all`), and the IR is verified after every pass: a verifier failure is a compiler
// bug, reported as one.
#include "driver/Pipeline.h"

#include "codegen/LowerToLLVM.h"
#include "codegen/Metadata.h"
#include "codegen/PTXEmitter.h"
#include "frontend/Parser.h"
#include "gpu/Arch.h"
#include "gpu/Passes.h"
#include "sema/Autotune.h"
#include "sema/Imports.h"
#include "sema/Sema.h"
#include "tir/Passes.h"
#include "tir/Printer.h"
#include "tir/Verifier.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_os_ostream.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/thread.h>
#include <optional>
#include <ostream>
#include <set>

namespace tilec::driver {
namespace {

/// Runs a function pass on every kernel, then verifies and optionally prints the module.
class PassRunner {
public:
  PassRunner(tir::Module &module, const CompileOptions &options, std::ostream &log)
      : module_(module), options_(options), log_(log) {}

  void run(const char *name, const std::function<void(tir::Function &)> &pass) {
    for (auto &function : module_.functions) {
      pass(*function);
      std::string problem = tir::verify(*function);
      if (!problem.empty())
        throw CompileError("internal compiler error: IR invalid after pass '" + std::string(name) +
                           "' in kernel '" + function->name() + "': " + problem + "\n" +
                           tir::print(*function));
    }
    if (options_.printAfterAll)
      log_ << "// ----- IR after " << name << " -----\n" << tir::print(module_) << "\n";
  }

private:
  tir::Module &module_;
  const CompileOptions &options_;
  std::ostream &log_;
};

/// The kernels to compile: those named on the command line, or those whose signature the source
/// gives in a `# tilec: -s "..."` comment.
std::vector<KernelSpec> kernelsToCompile(const CompileOptions &options, const ast::Module &module,
                                         const SourceManager &sources) {
  if (!options.kernels.empty())
    return options.kernels;
  std::vector<KernelSpec> specs;
  std::vector<const ast::Stmt *> kernels = sema::jitFunctions(module);
  for (const ast::Stmt *nested : sema::conditionalJitFunctions(module))
    kernels.push_back(nested);
  std::set<std::string> seen; // a kernel defined on both paths of an `if` is one kernel
  for (const ast::Stmt *kernel : kernels)
    if (auto signature = sema::signatureFromSource(sources, *kernel))
      if (seen.insert(kernel->name).second)
        specs.push_back({kernel->name, *signature});
  if (specs.empty())
    sources.error(SourceLoc{module.file, 0, 0},
                  "no kernel to compile: name one with -k NAME -s SIGNATURE, or put a "
                  "'# tilec: -s \"SIGNATURE\"' comment above a @triton.jit function");
  return specs;
}

std::unique_ptr<tir::Module> compileToTIRHere(const CompileOptions &options, SourceManager &sources,
                                              std::ostream &log,
                                              std::vector<codegen::KernelVariants> *variants,
                                              std::vector<std::string> *sourceFiles) {
  // 1. Parse the source file (any Python 3 module) into an AST, and the files it imports
  //    (`import helpers`, `from .ops import f`), found next to it and in the -I folders.
  uint32_t file = sources.loadFile(options.inputPath);
  std::unique_ptr<ast::Module> syntax = parseModule(sources, file);
  std::unique_ptr<sema::ModuleGraph> imports =
      sema::loadImports(sources, *syntax, options.inputPath, options.includeDirs);
  if (sourceFiles)
    *sourceFiles = imports->files();
  std::vector<std::unique_ptr<ast::Module>> stdlib = sema::parseStdlib(sources);

  // 2. Specialise each kernel for its signature: constexprs folded, helpers inlined, Triton's
  //    typing rules applied. One TIR function per kernel.
  auto module = std::make_unique<tir::Module>();
  std::vector<std::string> usedDefines;
  for (const KernelSpec &spec : kernelsToCompile(options, *syntax, sources)) {
    // @triton.autotune: one specialisation per config, named NAME__i, grouped in the metadata.
    // The kernel is the definition Python binds (one inside `if has_triton():` too).
    sema::KernelRequest base;
    base.name = spec.name;
    base.arch = options.arch;
    for (const auto &library : stdlib)
      base.stdlib.push_back(library.get());
    base.imports = imports.get();
    const ast::Stmt *kernel = sema::findKernel(*syntax, sources, base);
    // A signature that binds every constexpr asks for one specialisation (bindsEveryConstexpr).
    sema::AutotuneSpec tuning;
    if (kernel && !sema::bindsEveryConstexpr(*kernel, spec.signature, options.defines))
      tuning =
          sema::readAutotune(*kernel, sources, options.numWarps, options.numStages, syntax.get(),
                             sema::decoratedByCall(*syntax, spec.name).decorators);
    else
      tuning.configs.push_back({{}, options.numWarps, options.numStages}); // sema reports it
    codegen::KernelVariants group;
    group.name = spec.name;
    group.key = tuning.key;
    for (size_t i = 0; i < tuning.configs.size(); ++i) {
      const sema::AutotuneConfig &config = tuning.configs[i];
      sema::KernelRequest request;
      request.name = spec.name;
      if (tuning.autotuned)
        request.entryName = spec.name + "__" + std::to_string(i);
      request.signature = spec.signature;
      request.defines = options.defines;
      request.defines.insert(request.defines.end(), config.constexprs.begin(),
                             config.constexprs.end());
      request.numWarps = config.numWarps;
      request.numStages = config.numStages;
      request.arch = options.arch;
      request.dotPrecision = options.dotPrecision;
      request.usedDefines = &usedDefines;
      for (const auto &library : stdlib)
        request.stdlib.push_back(library.get());
      request.imports = imports.get();
      sema::specializeKernel(*syntax, sources, request, *module);
      group.entries.push_back(request.entryName);
      group.numStages.push_back(config.numStages);
    }
    if (tuning.autotuned && variants)
      variants->push_back(std::move(group));
  }
  for (const auto &define : options.defines)
    if (std::find(usedDefines.begin(), usedDefines.end(), define.first) == usedDefines.end())
      sources.error(SourceLoc{file, 0, 0},
                    "-D " + define.first + ": no kernel has a parameter or module-level name '" +
                        define.first + "' it could bind");

  // 3. Target-independent clean-up.
  PassRunner passes(*module, options, log);
  passes.run("sema", [](tir::Function &) {});
  passes.run("canonicalize", tir::runCanonicalize);
  passes.run("cse", tir::runCSE);
  passes.run("dce", tir::runDCE);
  return module;
}

CompileResult compileHere(const CompileOptions &options, SourceManager &sources,
                          std::ostream &log) {
  CompileResult result;
  if (options.emit == EmitKind::Ast) {
    uint32_t file = sources.loadFile(options.inputPath);
    result.output = ast::print(*parseModule(sources, file));
    result.sourceFiles = {options.inputPath};
    return result;
  }

  // Every lowering assumes sm_80 or later (cp.async, redux.sync, max.NaN, cvt.rz.bf16); the
  // command line accepts nothing older, and neither does the library.
  if (gpu::smVersion(options.arch) < 80)
    throw CompileError("error: unsupported GPU architecture '" + options.arch +
                       "' (sm_80, sm_86, sm_87, sm_89, sm_90 or sm_90a)");
  std::vector<codegen::KernelVariants> variants;
  std::unique_ptr<tir::Module> module =
      compileToTIRHere(options, sources, log, &variants, &result.sourceFiles);
  if (options.emit == EmitKind::Tir) {
    result.output = tir::print(*module);
    return result;
  }

  // 4. GPU layouts: TMA stores for the descriptor stores Hopper can copy out, coalesced layouts
  //    for memory operations from the axis analysis, tensor-core accumulator layouts for the dots
  //    wgmma or mma.sync computes, layouts for every other tensor, and conversions only where
  //    producer and consumer disagree.
  PassRunner passes(*module, options, log);
  passes.run("tma-stores", [&](tir::Function &f) { gpu::runTmaStores(f, options.arch); });
  passes.run("coalesce", gpu::runCoalesce);
  passes.run("accelerate-matmul",
             [&](tir::Function &f) { gpu::runAccelerateMatmul(f, options.arch); });
  passes.run("assign-layouts", gpu::runAssignLayouts);
  passes.run("remove-redundant-conversions", gpu::runRemoveRedundantConversions);
  passes.run("cse", tir::runCSE);
  passes.run("dce", tir::runDCE);
  // 4b. Software pipelining (num_stages): the tiles tensor-core dots read in loops are copied
  //     into shared memory (cp.async) iterations ahead of their use.
  passes.run("software-pipelining",
              [&](tir::Function &f) { gpu::runSoftwarePipelining(f, options.arch); });
  //     The other loads of loops without side effects are issued one iteration ahead into
  //     registers, so that a memory-bound loop has the next tile in flight while it works.
  passes.run("prefetch-loads", gpu::runPrefetchLoads);
  passes.run("dce", tir::runDCE);
  //     Conversions move down to their first users, where Triton's are: LLVM orders operands
  //     (and so picks the multiply an FMA absorbs) by where values are defined.
  passes.run("sink-conversions", gpu::runSinkConversions);
  if (options.emit == EmitKind::Tgir) {
    result.output = tir::print(*module);
    return result;
  }

  // 5. Lower to LLVM IR (NVVM) and optimise.
  codegen::TargetOptions target;
  target.arch = options.arch;
  target.fpFusion = options.fpFusion;
  target.libdevice = options.libdevice;
  target.sources = &sources;
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule = codegen::lowerToLLVM(*module, context, target);
  std::string llvmProblems;
  llvm::raw_string_ostream problems(llvmProblems);
  if (llvm::verifyModule(*llvmModule, &problems))
    throw CompileError("internal compiler error: invalid LLVM IR after lowering: " + llvmProblems);
  if (options.printAfterAll) {
    log << "// ----- LLVM IR after lowering -----\n";
    llvm::raw_os_ostream out(log);
    llvmModule->print(out, nullptr);
  }
  codegen::optimizeModule(*llvmModule, target);
  if (options.emit == EmitKind::Llvm) {
    llvm::raw_string_ostream out(result.output);
    llvmModule->print(out, nullptr);
    return result;
  }

  // 6. PTX from the NVPTX target machine, with three peepholes on its text for what LLVM 19
  //    emits worse than Triton's newer LLVM (the wide multiply-adds it cannot form:
  //    codegen/FuseWideMultiplyAdd.h; offsets hoisted out of loops as mul.wide:
  //    codegen/SplitHoistedWideMultiplies.h; bit tests compared with 1, not 0:
  //    codegen/CompareBitTestsWithZero.h), and the metadata the runtime reads.
  result.output = codegen::emitPTX(*llvmModule, target);
  result.metadata = codegen::kernelMetadataJson(*module, target, options.inputPath, variants);
  return result;
}

/// Runs `body` on a thread with a 512 MB stack (reserved, used only as deep as the input goes)
/// and rethrows what it throws. The nesting limits of the parser and of sema are then far from
/// the stack's end in any build, sanitizers and -O0 included, instead of close to the 8 MB of a
/// main thread in a release build.
template <typename T> T onLargeStack(const std::function<T()> &body) {
  constexpr unsigned kStackBytes = 512u << 20;
  std::optional<T> result;
  std::exception_ptr error;
  llvm::thread worker(std::optional<unsigned>(kStackBytes), [&] {
    try {
      result.emplace(body());
    } catch (...) {
      error = std::current_exception();
    }
  });
  if (!worker.joinable()) // no thread could be made: run here, on the caller's stack
    return body();
  worker.join();
  if (error)
    std::rethrow_exception(error);
  return std::move(*result);
}

} // namespace

std::unique_ptr<tir::Module> compileToTIR(const CompileOptions &options, SourceManager &sources,
                                          std::ostream &log,
                                          std::vector<codegen::KernelVariants> *variants,
                                          std::vector<std::string> *sourceFiles) {
  return onLargeStack<std::unique_ptr<tir::Module>>(
      [&] { return compileToTIRHere(options, sources, log, variants, sourceFiles); });
}

CompileResult compile(const CompileOptions &options, SourceManager &sources, std::ostream &log) {
  return onLargeStack<CompileResult>([&] { return compileHere(options, sources, log); });
}

} // namespace tilec::driver
