#include "codegen/PTXEmitter.h"

#include "codegen/CompareBitTestsWithZero.h"
#include "codegen/FuseWideMultiplyAdd.h"
#include "codegen/LLVMCompat.h"
#include "codegen/NVPTXTarget.h"
#include "codegen/ScalarizeLoadExtracts.h"
#include "codegen/SinkLoopIncrements.h"
#include "codegen/SplitHoistedWideMultiplies.h"
#include "frontend/SourceManager.h"
#include "gpu/Arch.h"

#include <algorithm>
#include <cstdlib>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <mutex>
#include <sstream>
#include <string_view>

namespace tilec::codegen {

/// Unrolls as Triton's O3 does. Triton runs LLVM's middle end without a target machine
/// (optimize_module in its python/src/llvm.cc), so the generic cost model decides: a loop whose
/// trip count is a small constant is unrolled whole, and no loop is unrolled in part or by a
/// run-time count. NVPTX's own model allows both. Unrolled, a loop puts the multiply of one
/// iteration next to the add of the next, and the backend fuses the two into an fma that Triton's
/// code has not (fla's chunk_hgrn_bwd_kernel_h: `h = (h + x) * exp(g)` along the rows), so the
/// results differ in the last bits. The options overrule the target's preferences; they are set
/// only where TILEC_LLVM_OPTIONS did not set them.
static void unrollAsTritonDoes() {
  auto &registered = llvm::cl::getRegisteredOptions();
  for (const char *name : {"unroll-runtime", "unroll-allow-partial"}) {
    auto found = registered.find(name);
    if (found == registered.end())
      throw CompileError(std::string("error: this LLVM has no ") + name + " option");
    if (found->second->getNumOccurrences() == 0)
      found->second->addOccurrence(0, name, "false");
  }
}

static void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // LLVM's own developer options (`-print-after=reassociate`, `-debug-only=...` in debug
    // builds) for whoever compares tilec's LLVM IR with Triton's pass by pass.
    const char *program[] = {"tilec"};
#if LLVM_VERSION_MAJOR >= 21
    llvm::cl::ParseCommandLineOptions(1, program, "", nullptr, nullptr, "TILEC_LLVM_OPTIONS");
#else
    llvm::cl::ParseCommandLineOptions(1, program, "", nullptr, "TILEC_LLVM_OPTIONS");
#endif
    unrollAsTritonDoes();
  });
}

/// Makes the next TargetMachine use 32-bit (or 64-bit) shared-memory pointers: LLVM reads its
/// nvptx-short-ptr option when a TargetMachine is made, which gives the module's data layout.
static void useShortSharedPointers(bool enable) {
  auto &registered = llvm::cl::getRegisteredOptions();
  auto found = registered.find("nvptx-short-ptr");
  if (found == registered.end())
    throw CompileError("error: this LLVM's NVPTX backend has no nvptx-short-ptr option");
  static_cast<llvm::cl::opt<bool> *>(found->second)->setValue(enable);
}

/// The PTX ISA version (80: 8.0) for an SM: the oldest that supports it (sm_90a needs 8.0), so
/// that the PTX loads on the oldest drivers that know the SM; raised to `minimum` where the
/// kernel uses newer instructions (fp8 mma.sync needs 8.4).
static std::string ptxFeatureFor(unsigned sm, unsigned minimum) {
  unsigned version = sm >= 90 ? 80 : sm >= 89 ? 78 : sm >= 86 ? 71 : 70; // sm_80 and later
  return "+ptx" + std::to_string(std::max(version, std::min(minimum, kNewestLlvmPtxVersion)));
}

/// A `.version` newer than LLVM 19 can emit (a user's inline asm of PTX ISA 8.6:
/// cvt.rn.f16x2.e2m1x2) written over the one LLVM wrote, as Triton writes its ptxas's version
/// over LLVM's: LLVM passes inline asm through as text, so nothing else in the PTX changes.
static std::string raisePtxVersion(std::string ptx, unsigned version) {
  if (version <= kNewestLlvmPtxVersion)
    return ptx;
  const std::string directive = ".version ";
  size_t at = ptx.find(directive);
  if (at == std::string::npos)
    return ptx;
  size_t start = at + directive.size();
  size_t end = ptx.find('\n', start);
  ptx.replace(start, end - start,
              std::to_string(version / 10) + "." + std::to_string(version % 10));
  return ptx;
}

std::unique_ptr<llvm::TargetMachine> createNVPTXTargetMachine(const TargetOptions &options,
                                                              bool shortSharedPointers,
                                                              unsigned minimumPtxVersion) {
  initializeNVPTX();
  // nvptx-short-ptr is a global option that the TargetMachine reads when it is made: kernels
  // compiled on several threads (the driver's --jobs) make theirs one at a time.
  static std::mutex creating;
  std::lock_guard<std::mutex> lock(creating);
  useShortSharedPointers(shortSharedPointers);
  const std::string &arch = options.arch;
  unsigned sm = gpu::smVersion(arch);
  if (sm < 50)
    throw CompileError("error: unknown GPU architecture '" + arch + "' (expected sm_XY)");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(targetTriple(kNVPTXTriple), error);
  if (!target)
    throw CompileError("error: the NVPTX target is not available: " + error);
  llvm::TargetOptions targetOptions;
  // Triton fuses a*b+c into fma by default (enable_fp_fusion=True); so do we, for the same
  // results and the same speed. Without it NVPTX emits mul.rn/add.rn, which ptxas may not fuse.
  // As in Triton, the lowering emits plain fmul/fadd and this option alone decides contraction:
  // which multiply of a chain fuses is the backend's rule, never ours (codegen/fp_contraction.tl
  // checks the PTX against llc's on the same IR).
  targetOptions.AllowFPOpFusion =
      options.fpFusion ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  auto level = options.optLevel == 0   ? llvm::CodeGenOptLevel::None
               : options.optLevel == 1 ? llvm::CodeGenOptLevel::Less
               : options.optLevel == 2 ? llvm::CodeGenOptLevel::Default
                                       : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      targetTriple(kNVPTXTriple), arch, ptxFeatureFor(sm, minimumPtxVersion), targetOptions,
      std::nullopt, std::nullopt, level));
  if (!machine)
    throw CompileError("error: cannot create an NVPTX target machine for " + arch);
  return machine;
}

/// LLVM 19's instcombine turns the round-toward-zero integer-to-float intrinsics into sitofp and
/// uitofp, which round to nearest (fixed in later LLVM): libdevice's int2float_rz(2^31 - 1) came
/// out as 2^31. Each call becomes the cvt it stands for, as inline PTX the optimiser keeps.
static void keepRoundTowardZeroConversions(llvm::Module &module) {
  struct Conversion {
    llvm::Intrinsic::ID id;
    const char *ptx;
  };
  static const Conversion conversions[] = {
      {llvm::Intrinsic::nvvm_i2f_rz, "cvt.rz.f32.s32 $0, $1;"},
      {llvm::Intrinsic::nvvm_ui2f_rz, "cvt.rz.f32.u32 $0, $1;"},
      {llvm::Intrinsic::nvvm_ll2f_rz, "cvt.rz.f32.s64 $0, $1;"},
      {llvm::Intrinsic::nvvm_ull2f_rz, "cvt.rz.f32.u64 $0, $1;"},
      {llvm::Intrinsic::nvvm_ll2d_rz, "cvt.rz.f64.s64 $0, $1;"},
      {llvm::Intrinsic::nvvm_ull2d_rz, "cvt.rz.f64.u64 $0, $1;"},
  };
  for (const Conversion &conversion : conversions) {
    llvm::Function *intrinsic = module.getFunction(llvm::Intrinsic::getName(conversion.id));
    if (!intrinsic)
      continue;
    llvm::FunctionType *type = intrinsic->getFunctionType();
    bool toDouble = type->getReturnType()->isDoubleTy();
    bool fromWide = type->getParamType(0)->isIntegerTy(64);
    std::string constraints = std::string(toDouble ? "=d" : "=f") + (fromWide ? ",l" : ",r");
    llvm::InlineAsm *cvt = llvm::InlineAsm::get(type, conversion.ptx, constraints, false);
    for (llvm::User *user : llvm::make_early_inc_range(intrinsic->users())) {
      auto *call = llvm::dyn_cast<llvm::CallInst>(user);
      if (!call)
        continue;
      llvm::CallInst *replacement =
          llvm::CallInst::Create(type, cvt, {call->getArgOperand(0)}, "", call->getIterator());
      replacement->setDoesNotAccessMemory();
      replacement->setDoesNotThrow();
      call->replaceAllUsesWith(replacement);
      call->eraseFromParent();
    }
  }
}

void linkLibdevice(llvm::Module &module, const TargetOptions &options) {
  bool needed = false;
  for (const llvm::Function &f : module)
    if (f.isDeclaration() && f.getName().starts_with("__nv_"))
      needed = true;
  if (!needed)
    return;
  const char *fromEnvironment = std::getenv("TILEC_LIBDEVICE");
  std::string path = !options.libdevice.empty() ? options.libdevice
                     : fromEnvironment          ? fromEnvironment
                                                : "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> libdevice =
      llvm::parseIRFile(path, diagnostic, module.getContext());
  if (!libdevice)
    throw CompileError("error: cannot read libdevice '" + path +
                       "': " + diagnostic.getMessage().str());
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());
  // Only the functions the kernels call come in; they become internal so that, once inlined,
  // the optimiser drops them.
  bool failed =
      llvm::Linker::linkModules(module, std::move(libdevice), llvm::Linker::Flags::LinkOnlyNeeded,
                                [](llvm::Module &linked, const llvm::StringSet<> &names) {
                                  for (llvm::Function &f : linked)
                                    if (!f.isDeclaration() && names.count(f.getName()))
                                      f.setLinkage(llvm::GlobalValue::InternalLinkage);
                                });
  if (failed)
    throw CompileError("error: cannot link libdevice '" + path + "'");
  keepRoundTowardZeroConversions(module);
  // libdevice asks __nvvm_reflect whether to flush denormals. Triton 3.6 answers yes
  // (enable_reflect_ftz defaults to True): its erff, for one, computes |x| and the polynomial
  // with abs.ftz/fma.rn.ftz. Only libdevice's code reads the flag; the kernel's own arithmetic
  // keeps denormals either way.
  if (!module.getModuleFlag("nvvm-reflect-ftz"))
    module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(1));
}

void optimizeModule(llvm::Module &module, const TargetOptions &options) {
  linkLibdevice(module, options);
  std::unique_ptr<llvm::TargetMachine> machine =
      createNVPTXTargetMachine(options, hasShortSharedPointers(module));
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // No loop vectorizer: in a per-thread loop it packs 8- and 16-bit integers into pairs
  // (add.s16x2, max.u16x2 with constant operands), and ptxas (CUDA 12.8 and 13.0) drops the
  // constant of such an add where it also moves the halves (VIADD.16x2 R, R, 0x0; seen in
  // Triton's code for two generated programs of difftest seed 12). Tile code gains nothing from
  // it: a thread's loop bodies are already its elements.
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = false;
  // The instrumentation makes LLVM's -print-before/-print-after (TILEC_LLVM_OPTIONS) work.
  llvm::PassInstrumentationCallbacks instrumentation;
  llvm::StandardInstrumentations standard(module.getContext(), /*DebugLogging=*/false);
  standard.registerCallbacks(instrumentation, &mam);
  // VectorCombine's load scalarization, done in linear time just before it runs
  // (scalarizeLoadExtracts); the analyses it invalidates are those VectorCombine's change would.
  instrumentation.registerBeforeNonSkippedPassCallback([&](llvm::StringRef pass, llvm::Any ir) {
    if (pass != "VectorCombinePass")
      return;
    const auto *const *function = llvm::any_cast<const llvm::Function *>(&ir);
    if (!function || (*function)->isDeclaration())
      return;
    auto &f = const_cast<llvm::Function &>(**function);
    if (scalarizeLoadExtracts(f, fam.getResult<llvm::TargetIRAnalysis>(f),
                              fam.getResult<llvm::DominatorTreeAnalysis>(f))) {
      llvm::PreservedAnalyses preserved;
      preserved.preserveSet<llvm::CFGAnalyses>();
      fam.invalidate(f, preserved);
    }
  });
  // $TILEC_TRITON_MIDDLE_END: LLVM's middle end as Triton 3.6 runs it (optimize_module: O3 without
  // a target machine, SLP and loop vectorizers on, InstCombine where the vectorizers start), for
  // comparing with Triton's LLVM IR pass by pass. Not the default: on LLVM 19 and on LLVM 22 alike,
  // fewer corpus launches are bit-equal with it than with tilec's own pipeline
  // (bench/results/corpus_h200.md, sessions 36 and 38).
  // Unset, empty or "0" leaves it off.
  const char *tritonMiddleEnd = std::getenv("TILEC_TRITON_MIDDLE_END");
  bool tritonO3 = tritonMiddleEnd && *tritonMiddleEnd && std::string_view(tritonMiddleEnd) != "0";
  if (tritonO3) {
    tuning.LoopUnrolling = true;
    tuning.LoopInterleaving = true;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
  }
  llvm::PassBuilder builder(tritonO3 ? nullptr : machine.get(), tuning, std::nullopt,
                            &instrumentation);
  if (tritonO3)
    builder.registerVectorizerStartEPCallback(
        [](llvm::FunctionPassManager &passes, llvm::OptimizationLevel) {
          passes.addPass(llvm::InstCombinePass());
        });
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = options.optLevel == 0   ? llvm::OptimizationLevel::O0
                                  : options.optLevel == 1 ? llvm::OptimizationLevel::O1
                                  : options.optLevel == 2 ? llvm::OptimizationLevel::O2
                                                          : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager passes = level == llvm::OptimizationLevel::O0
                                       ? builder.buildO0DefaultPipeline(level)
                                       : builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, mam);
  sinkLoopIncrements(module);
}

bool hasShortSharedPointers(const llvm::Module &module) {
  return module.getDataLayout().getPointerSizeInBits(3) == 32;
}

unsigned minimumPtxVersion(const llvm::Module &module) {
  auto *flag = llvm::mdconst::extract_or_null<llvm::ConstantInt>(
      module.getModuleFlag(kMinimumPtxVersionFlag));
  return flag ? static_cast<unsigned>(flag->getZExtValue()) : 0;
}

std::string emitPTX(llvm::Module &module, const TargetOptions &options) {
  linkLibdevice(module, options);
  std::unique_ptr<llvm::TargetMachine> machine =
      createNVPTXTargetMachine(options, hasShortSharedPointers(module), minimumPtxVersion(module));
  module.setDataLayout(machine->createDataLayout());
  setTargetTriple(module, kNVPTXTriple);
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream stream(ptx);
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, stream, nullptr, llvm::CodeGenFileType::AssemblyFile))
    throw CompileError("error: the NVPTX target cannot emit PTX");
  passes.run(module);
  return raisePtxVersion(compareBitTestsWithZero(splitHoistedWideMultiplies(
                             fuseWideMultiplyAdds(std::string(ptx.str())))),
                         minimumPtxVersion(module));
}

/// Whether `line` declares something at module level that a merged module could not hold twice
/// or would number differently: a function, a global other than global_smem, a second entry.
static bool isForeignDeclaration(const std::string &line) {
  for (const char *start : {".func", ".visible .func", ".extern .func", ".weak", ".global",
                            ".visible .global", ".const", ".visible .const", ".extern .global",
                            ".shared", ".visible .shared", "\t// .globl"})
    if (line.rfind(start, 0) == 0)
      return true;
  return false;
}

std::optional<std::string> mergeKernelPTX(const std::vector<std::string> &pieces) {
  const std::string globl = "\t// .globl\t";
  std::string merged, header, globals;
  for (size_t k = 0; k < pieces.size(); ++k) {
    const std::string &piece = pieces[k];
    // HEADER, "\t// .globl\tNAME\n", the global declarations, then the kernel from its
    // `.visible .entry` (or `.entry`) line to the end.
    size_t globlAt = piece.find(globl);
    if (globlAt == std::string::npos)
      return std::nullopt;
    size_t globlEnd = piece.find('\n', globlAt);
    if (globlEnd == std::string::npos)
      return std::nullopt;
    ++globlEnd;
    size_t entryAt = piece.find("\n.visible .entry ", globlEnd - 1);
    if (entryAt == std::string::npos)
      entryAt = piece.find("\n.entry ", globlEnd - 1);
    if (entryAt == std::string::npos)
      return std::nullopt;
    ++entryAt;
    std::string pieceHeader = piece.substr(0, globlAt);
    std::string pieceGlobals = piece.substr(globlEnd, entryAt - globlEnd);
    std::istringstream globalLines(pieceGlobals);
    for (std::string line; std::getline(globalLines, line);)
      if (!line.empty() && line.rfind(".extern .shared ", 0) != 0)
        return std::nullopt;
    if (k == 0) {
      header = pieceHeader;
      globals = pieceGlobals;
    } else if (pieceHeader != header || pieceGlobals != globals) {
      return std::nullopt;
    }
    std::string body = piece.substr(entryAt);
    // The kernel's own module-level text is its one entry: anything else (a device function
    // left uninlined, a string for printf, a call's prototype) is numbered or declared once per
    // module.
    std::istringstream bodyLines(body);
    bool first = true;
    for (std::string line; std::getline(bodyLines, line); first = false)
      if ((!first && (isForeignDeclaration(line) || line.rfind(".visible .entry", 0) == 0 ||
                      line.rfind(".entry", 0) == 0)) ||
          line.find("prototype_") != std::string::npos)
        return std::nullopt;
    // Function-numbered names: labels and the local stack are the k-th function's.
    const std::string number = std::to_string(k);
    std::string renumbered;
    renumbered.reserve(body.size() + body.size() / 64);
    for (size_t at = 0; at < body.size();) {
      size_t label = body.find("$L__", at);
      size_t depot = body.find("__local_depot", at);
      size_t next = std::min(label, depot);
      if (next == std::string::npos) {
        renumbered.append(body, at, std::string::npos);
        break;
      }
      renumbered.append(body, at, next - at);
      const std::string prefix = next == label ? "$L__BB0_" : "__local_depot0";
      if (body.compare(next, prefix.size(), prefix) != 0)
        return std::nullopt; // a numbered name this merge does not know
      // __local_depot0 must end there; $L__BB0_ is followed by the block's number.
      renumbered.append(prefix, 0, prefix.size() - (next == label ? 2 : 1));
      renumbered.append(number);
      if (next == label)
        renumbered.push_back('_');
      at = next + prefix.size();
    }
    if (k == 0)
      merged = header + globl +
               piece.substr(globlAt + globl.size(), globlEnd - globlAt - globl.size()) + globals;
    else
      merged += piece.substr(globlAt, globlEnd - globlAt);
    merged += renumbered;
  }
  return merged;
}

} // namespace tilec::codegen
