// tilec's whole lowering, as one sequence of named steps. Each step's output can be printed
// (`--print-after-all`), and the IR is verified after every pass: a verifier failure is a compiler
// bug, reported as one.
#include "driver/Pipeline.h"

#include "codegen/LowerToLLVM.h"
#include "codegen/Metadata.h"
#include "codegen/NVPTXTarget.h"
#include "codegen/PTXEmitter.h"
#include "codegen/SharedMemory.h"
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
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <exception>
#include <functional>
#include <llvm/IR/Constants.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/Threading.h>
#include <llvm/Support/Timer.h>
#include <llvm/Support/raw_os_ostream.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/thread.h>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

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

/// The message of a formatted diagnostic: the text after "error: " on its first line.
static std::string diagnosticMessage(const std::string &formatted) {
  std::string message = formatted.substr(0, formatted.find('\n'));
  size_t error = message.find("error: ");
  return error == std::string::npos ? message : message.substr(error + 7);
}

/// The warning for autotune config `index` of `kernel` skipped for `failure` (a formatted
/// diagnostic).
static std::string skippedConfigWarning(const std::string &kernel, size_t index,
                                        const sema::AutotuneConfig &config,
                                        const std::string &failure) {
  std::string bindings;
  for (const auto &[name, value] : config.constexprs)
    bindings += name + "=" + value + ", ";
  bindings += "num_warps=" + std::to_string(config.numWarps) +
              ", num_stages=" + std::to_string(config.numStages);
  return "autotune config " + std::to_string(index) + " of '" + kernel + "' (" + bindings +
         ") is skipped, as Triton's autotuner skips it: " + diagnosticMessage(failure);
}

/// Drops the variants of autotuned kernels that need more shared memory than a block can use,
/// as Triton's autotuner skips a config that raises OutOfResources, with a warning; an error when
/// no variant of a kernel is left.
static void dropVariantsOverSharedMemory(tir::Module &module,
                                         std::vector<codegen::KernelVariants> &variants,
                                         const CompileOptions &options, SourceManager &sources) {
  codegen::TargetOptions quiet;
  quiet.arch = options.arch; // no sources: the check throws without printing
  for (codegen::KernelVariants &group : variants) {
    if (group.entries.size() < 2)
      continue;
    std::string firstDropped;
    SourceLoc where;
    for (size_t i = group.entries.size(); i-- > 0;) {
      auto function = std::find_if(module.functions.begin(), module.functions.end(),
                                   [&](const auto &f) { return f->name() == group.entries[i]; });
      if (function == module.functions.end())
        continue;
      try {
        codegen::checkSharedMemoryLimit(**function, quiet);
        continue;
      } catch (const CompileError &failure) {
        if (failure.kind() != CompileError::Kind::OutOfResources)
          throw;
        std::string message = diagnosticMessage(failure.what());
        where = (*function)->loc();
        sources.warning(where, "autotune variant " + group.entries[i] + " of '" + group.name +
                                   "' is skipped, as Triton's autotuner skips it: " + message);
        firstDropped = message;
      }
      module.functions.erase(function);
      group.entries.erase(group.entries.begin() + static_cast<std::ptrdiff_t>(i));
      group.numStages.erase(group.numStages.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (group.entries.empty())
      sources.error(
          where, "every autotune config of '" + group.name +
                     "' needs more shared memory than a block can use; the first: " + firstDropped);
  }
}

/// The dotted names in the signatures and -D values that may name a function of another module
/// as MODULE.QUALNAME (`pkg.activation._silu`): loadImports loads the modules they name. Names of
/// triton's, of the kernel's own file (`__main__.f`) and of nested functions are not modules.
static std::vector<std::string> functionReferences(const CompileOptions &options) {
  std::vector<std::string> texts;
  for (const KernelSpec &spec : options.kernels)
    texts.push_back(spec.signature);
  for (const auto &define : options.defines)
    texts.push_back(define.second);
  std::vector<std::string> references;
  for (const std::string &text : texts) {
    size_t i = 0;
    while (i < text.size()) {
      auto isNameChar = [&](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
      };
      if (!isNameChar(text[i])) {
        ++i;
        continue;
      }
      size_t end = i;
      while (end < text.size() && isNameChar(text[end]))
        ++end;
      std::string token = text.substr(i, end - i);
      i = end;
      const bool quoted = (i - token.size() > 0 && (text[i - token.size() - 1] == '"' ||
                                                    text[i - token.size() - 1] == '\''));
      const bool nested = end < text.size() && text[end] == '<';
      std::string root = token.substr(0, token.find('.'));
      if (quoted || nested || token.find('.') == std::string::npos ||
          std::isdigit(static_cast<unsigned char>(token[0])) || root == "tl" || root == "triton" ||
          root == "__main__")
        continue;
      references.push_back(token);
    }
  }
  return references;
}

std::unique_ptr<tir::Module> compileToTIRHere(const CompileOptions &options, SourceManager &sources,
                                              std::ostream &log,
                                              std::vector<codegen::KernelVariants> *variants,
                                              std::vector<std::string> *sourceFiles) {
  // 1. Parse the source file (any Python 3 module) into an AST, and the files it imports
  //    (`import helpers`, `from .ops import f`), found next to it and in the -I folders.
  uint32_t file = sources.loadFile(options.inputPath);
  std::unique_ptr<ast::Module> syntax = parseModule(sources, file);
  std::unique_ptr<sema::ModuleGraph> imports = sema::loadImports(
      sources, *syntax, options.inputPath, options.includeDirs, functionReferences(options));
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
    base.signature = spec.signature; // for diagnostics that name the constexprs left unbound
    base.arch = options.arch;
    if (!options.torchVersion.empty())
      base.torch.version = options.torchVersion;
    if (!options.cudaVersion.empty())
      base.torch.cuda = options.cudaVersion;
    for (const auto &library : stdlib)
      base.stdlib.push_back(library.get());
    base.imports = imports.get();
    // -D of module-level constants holds for the decorators' arguments too.
    base.defines = options.defines;
    const ast::Stmt *kernel = sema::findAnyKernel(*syntax, sources, base);
    // A signature that binds every constexpr asks for one specialisation (bindsEveryConstexpr).
    sema::AutotuneSpec tuning;
    const std::vector<const ast::Expr *> byCall =
        sema::decoratedByCall(*syntax, spec.name).decorators;
    if (kernel &&
        !sema::bindsEveryConstexpr(*kernel, spec.signature, options.defines, syntax.get(), byCall))
      tuning = sema::readAutotune(*kernel, sources, options.numWarps, options.numStages,
                                  syntax.get(), &base, byCall);
    else if (kernel)
      tuning.configs.push_back({sema::constantHeuristics(*kernel, sources, syntax.get(), byCall),
                                options.numWarps, options.numStages});
    else
      tuning.configs.push_back({{}, options.numWarps, options.numStages}); // sema reports it
    codegen::KernelVariants group;
    group.name = spec.name;
    group.key = tuning.key;
    // Triton's autotuner skips a config whose compilation fails a tl.static_assert (and one that
    // needs too much shared memory: compileHere): so does tilec, with a warning, where there are
    // other configs. Their diagnostics are held until the outcome is known.
    const bool skippable = tuning.autotuned && tuning.configs.size() > 1;
    // A nested kernel's qualified name (`test_x.<locals>.kernel`) is no symbol: its variants are
    // named after the function itself, as its entry is.
    const std::string variantBase =
        kernel && spec.name.find_first_of(".<>") != std::string::npos ? kernel->name : spec.name;
    std::string firstSkipped;
    for (size_t i = 0; i < tuning.configs.size(); ++i) {
      const sema::AutotuneConfig &config = tuning.configs[i];
      sema::KernelRequest request;
      request.name = spec.name;
      if (tuning.autotuned)
        request.entryName = variantBase + "__" + std::to_string(i);
      request.signature = spec.signature;
      request.defines = options.defines;
      request.defines.insert(request.defines.end(), config.constexprs.begin(),
                             config.constexprs.end());
      for (const auto &[name, value] : config.constexprs)
        request.tuned.insert(name);
      request.numWarps = config.numWarps;
      request.numStages = config.numStages;
      // An autotune config's num_warps and num_stages are launch keywords, always passed.
      request.numWarpsGiven = options.numWarpsGiven || tuning.autotuned;
      request.numStagesGiven = options.numStagesGiven || tuning.autotuned;
      request.maxRegisters = config.maxRegisters ? config.maxRegisters : options.maxRegisters;
      request.arch = options.arch;
      request.torch = base.torch;
      request.dotPrecision = options.dotPrecision;
      request.debug = options.debug;
      request.usedDefines = &usedDefines;
      for (const auto &library : stdlib)
        request.stdlib.push_back(library.get());
      request.imports = imports.get();
      // A block of more than 1024 threads (num_warps=64 of configs written for Intel GPUs) is
      // one ptxas refuses, and Triton's autotuner skips a config that raises PTXASError.
      if (config.numWarps > sema::kMaxBlockWarps) {
        std::string why =
            "num_warps=" + std::to_string(config.numWarps) + " makes a block of " +
            std::to_string(config.numWarps * 32) +
            " threads, more than the 1024 of an NVIDIA GPU's block (ptxas refuses it)";
        SourceLoc where = kernel ? kernel->loc : SourceLoc{file, 0, 0};
        if (!skippable)
          sources.error(where,
                        "autotune config " + std::to_string(i) + " of '" + spec.name + "': " + why);
        std::string warning = skippedConfigWarning(spec.name, i, config, why);
        sources.warning(where, warning);
        if (firstSkipped.empty())
          firstSkipped = warning;
        continue;
      }
      std::ostream *diagnostics = sources.diagnosticStream();
      std::ostringstream held;
      if (skippable && diagnostics)
        sources.setDiagnosticStream(&held);
      const size_t functionsBefore = module->functions.size();
      try {
        sema::specializeKernel(*syntax, sources, request, *module);
      } catch (const CompileError &failure) {
        sources.setDiagnosticStream(diagnostics);
        if (!skippable || failure.kind() != CompileError::Kind::CompileTimeAssertion) {
          if (diagnostics)
            *diagnostics << held.str() << std::flush;
          throw;
        }
        module->functions.resize(functionsBefore);
        std::string why = skippedConfigWarning(spec.name, i, config, failure.what());
        sources.warning(kernel ? kernel->loc : SourceLoc{file, 0, 0}, why);
        if (firstSkipped.empty())
          firstSkipped = why;
        continue;
      }
      sources.setDiagnosticStream(diagnostics);
      if (diagnostics)
        *diagnostics << held.str();
      group.entries.push_back(request.entryName);
      // A @triton.heuristics of num_stages overrides the config's (bindHeuristics).
      group.numStages.push_back(module->functions.size() > functionsBefore
                                    ? module->functions[functionsBefore]->numStages
                                    : config.numStages);
    }
    if (skippable && group.entries.empty())
      sources.error(kernel ? kernel->loc : SourceLoc{file, 0, 0},
                    "every autotune config of '" + spec.name + "' fails to compile; the first " +
                        firstSkipped.substr(firstSkipped.find("config")));
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
  // Before canonicalize, whose add-into-dot then folds `t + acc` into the dot, as Triton's
  // combine patterns do together.
  passes.run("combine-broadcast-mul-reduce", tir::runCombineBroadcastMulReduce);
  passes.run("canonicalize", tir::runCanonicalize);
  passes.run("cse", tir::runCSE);
  passes.run("dce", tir::runDCE);
  // An empty tensor that DCE left has a use that nothing lowers (Triton's backends neither).
  for (auto &function : module->functions)
    if (const tir::Operation *op = tir::findEmptyTensorOp(*function))
      sources.error(op->loc(), std::string("an empty tensor (a 0 in its shape, as tl.zeros([0]) "
                                           "makes) reaches '") +
                                   op->name() +
                                   "': tilec compiles empty tensors only where nothing uses them");
  // The data files that module-level code read while the kernels were specialised, too.
  if (sourceFiles)
    *sourceFiles = imports->files();
  return module;
}

void verifyLowered(const llvm::Module &llvmModule) {
  std::string llvmProblems;
  llvm::raw_string_ostream problems(llvmProblems);
  if (llvm::verifyModule(llvmModule, &problems))
    throw CompileError("internal compiler error: invalid LLVM IR after lowering: " + llvmProblems);
}

void printLowered(const llvm::Module &llvmModule, std::ostream &log) {
  log << "// ----- LLVM IR after lowering -----\n";
  llvm::raw_os_ostream out(log);
  llvmModule.print(out, nullptr);
}

/// How many threads compile kernels apart: --jobs, else one per hardware thread; one while
/// TILEC_LLVM_OPTIONS is set, so that what LLVM prints (-print-after, -time-passes) comes out
/// whole and in order.
unsigned jobsFor(const CompileOptions &options) {
  if (std::getenv("TILEC_LLVM_OPTIONS"))
    return 1;
  if (options.jobs)
    return options.jobs;
  return std::max(1u, llvm::hardware_concurrency().compute_thread_count());
}

/// Compiles each kernel of `module` (the variants of an autotuned kernel, mostly) to PTX in an
/// LLVM module of its own, on up to jobsFor(options) threads, and joins the PTX as the module
/// compiled whole gives it (codegen::mergeKernelPTX). Lowering runs on this thread, in order, so
/// that its diagnostics come out as they do for the whole module; the optimisation and the
/// code generation, nearly all the time, run on the workers, each with its own LLVMContext and
/// TargetMachine. The output does not depend on the number of threads. Nothing where the
/// kernels share more than global_smem (a device function, printf's strings): the caller then
/// compiles the module whole.
std::optional<std::string> compileKernelsApart(const tir::Module &module,
                                               const codegen::TargetOptions &target,
                                               const CompileOptions &options, std::ostream &log) {
  struct Piece {
    std::unique_ptr<llvm::LLVMContext> context = std::make_unique<llvm::LLVMContext>();
    std::unique_ptr<llvm::Module> llvmModule;
    std::string ptx;
    std::exception_ptr error;
  };
  std::vector<Piece> pieces(module.functions.size());
  unsigned minimumPtxVersion = 0;
  for (size_t k = 0; k < pieces.size(); ++k) {
    Piece &piece = pieces[k];
    piece.llvmModule =
        codegen::lowerFunctionToLLVM(module, *module.functions[k], *piece.context, target);
    verifyLowered(*piece.llvmModule);
    // The kernel must be the piece's one definition, global_smem its one global.
    for (const llvm::Function &function : *piece.llvmModule)
      if (!function.isDeclaration() && function.getName() != module.functions[k]->name())
        return std::nullopt;
    for (const llvm::GlobalVariable &global : piece.llvmModule->globals())
      if (global.getName() != "global_smem")
        return std::nullopt;
    minimumPtxVersion = std::max(minimumPtxVersion, codegen::minimumPtxVersion(*piece.llvmModule));
  }
  for (Piece &piece : pieces) {
    // The PTX version the whole module would ask for (fp8 mma.sync in one kernel raises it).
    if (minimumPtxVersion)
      piece.llvmModule->setModuleFlag(
          llvm::Module::Max, codegen::kMinimumPtxVersionFlag,
          llvm::ConstantInt::get(llvm::Type::getInt32Ty(*piece.context), minimumPtxVersion));
    if (options.printAfterAll)
      printLowered(*piece.llvmModule, log);
  }
  codegen::TargetOptions quiet = target;
  quiet.sources = nullptr; // workers do not print: what they throw is rethrown here, in order
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k = next++; k < pieces.size(); k = next++) {
      Piece &piece = pieces[k];
      try {
        codegen::optimizeModule(*piece.llvmModule, quiet);
        piece.ptx = codegen::emitPTX(*piece.llvmModule, quiet);
      } catch (...) {
        piece.error = std::current_exception();
      }
      piece.llvmModule.reset();
      piece.context.reset();
    }
  };
  const unsigned jobs = std::min<size_t>(jobsFor(options), pieces.size());
  // LLVM's passes and instruction selection recurse over large kernels' values: the workers get
  // 64 MB stacks, eight times a main thread's (compile() itself runs on 512 MB for the parser's
  // and sema's nesting, which the workers never reach), reserved, not used, per thread.
  constexpr unsigned kStackBytes = 64u << 20;
  // Every worker's pass instrumentation makes timer groups, which register under a lock LLVM
  // creates on first use. One group made here creates it before any worker starts, so the
  // workers only take it (ThreadSanitizer cannot see LLVM's own atomics guarding the creation:
  // libLLVM is not instrumented, and it reported that first use as a race).
  if (jobs > 1)
    llvm::TimerGroup("tilec", "tilec workers");
  std::vector<llvm::thread> workers;
  for (unsigned i = 1; i < jobs; ++i)
    workers.emplace_back(std::optional<unsigned>(kStackBytes), work);
  work();
  for (llvm::thread &worker : workers)
    worker.join();
  std::vector<std::string> texts;
  for (Piece &piece : pieces) {
    if (piece.error)
      std::rethrow_exception(piece.error);
    texts.push_back(std::move(piece.ptx));
  }
  return codegen::mergeKernelPTX(texts);
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
  passes.run("decompose-batched-dot", gpu::runDecomposeBatchedDot);
  passes.run("accelerate-matmul",
             [&](tir::Function &f) { gpu::runAccelerateMatmul(f, options.arch); });
  passes.run("optimize-gather-layout", gpu::runOptimizeGatherLayout);
  passes.run("assign-layouts", gpu::runAssignLayouts);
  passes.run("remove-redundant-conversions", gpu::runRemoveRedundantConversions);
  //     Then, as Triton's hoistConvertOnTopOfExtOrBroadcast: a conversion of a widened value
  //     converts the narrow one, and what lies between runs in the conversion's layout.
  passes.run("hoist-conversions", gpu::runHoistConversions);
  //     Triton runs OptimizeThreadLocality after its first remove-layout-conversions, when each
  //     reduced load has its coalesced layout and the loop carries the reduction's result: here,
  //     once every tensor has its layout (the loads' are Coalesce's, as Triton's are).
  passes.run("optimize-thread-locality",
             [&](tir::Function &f) { gpu::runOptimizeThreadLocality(f, options.arch); });
  passes.run("optimize-reshape-layout", gpu::runOptimizeReshapeLayout);
  passes.run("cse", tir::runCSE);
  passes.run("dce", tir::runDCE);
  //     Loop-invariant scalar operations, and the invariant scalar loads of loops without side
  //     effects, move out of their loops, where Triton's LICM puts them before its pipeliner
  //     (tir/LoopInvariantCodeMotion.cpp says why the place matters to rounding).
  passes.run("licm", tir::runLoopInvariantCodeMotion);
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
  //     A conversion larger than shared memory goes through it in pieces.
  passes.run("split-large-conversions",
             [&](tir::Function &f) { codegen::splitLargeConversions(f, options.arch); });
  if (options.emit == EmitKind::Tgir) {
    result.output = tir::print(*module);
    return result;
  }
  // Not for --emit tgir, which shows every variant: planning the shared tiles of large FMA dots
  // takes a while (an autotuned fp32 GEMM of 8 configs: 1.7 s), and the lowering reuses the plans.
  dropVariantsOverSharedMemory(*module, variants, options, sources);
  if (options.printAfterAll)
    for (const auto &function : module->functions)
      log << codegen::describeSharedMemory(*function);

  // 5. Lower to LLVM IR (NVVM) and optimise.
  codegen::TargetOptions target;
  target.arch = options.arch;
  target.fpFusion = options.fpFusion;
  target.libdevice = options.libdevice;
  target.sources = &sources;
  if (options.emit == EmitKind::Ptx && module->functions.size() > 1)
    if (std::optional<std::string> ptx = compileKernelsApart(*module, target, options, log)) {
      result.output = std::move(*ptx);
      result.metadata = codegen::kernelMetadataJson(*module, target, options.inputPath, variants);
      return result;
    }
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule = codegen::lowerToLLVM(*module, context, target);
  verifyLowered(*llvmModule);
  if (options.printAfterAll)
    printLowered(*llvmModule, log);
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
