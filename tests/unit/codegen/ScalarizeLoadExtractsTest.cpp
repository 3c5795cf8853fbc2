// scalarizeLoadExtracts (src/codegen/ScalarizeLoadExtracts.cpp) must rewrite exactly what LLVM 19's
// VectorCombine would, in the same form: optimizeModule runs it just before VectorCombine, and
// tilec's PTX must not change by it. Each case runs the rewrite on one copy of a function and
// VectorCombinePass on another, with the NVPTX target's costs, and compares the IR text.
#include "codegen/ScalarizeLoadExtracts.h"

#include "codegen/NVPTXTarget.h"
#include "codegen/TargetOptions.h"

#include <catch2/catch.hpp>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Vectorize/VectorCombine.h>

namespace {

const char *kDataLayout =
    "target datalayout = \"e-p3:32:32-p4:32:32-p5:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
    "target triple = \"nvptx64-nvidia-cuda\"\n";

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext &context, const std::string &body) {
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(std::string(kDataLayout) + body, error, context);
  if (!module) {
    std::string message;
    llvm::raw_string_ostream stream(message);
    error.print("test", stream);
    FAIL(message);
  }
  return module;
}

std::string text(const llvm::Module &module) {
  std::string out;
  llvm::raw_string_ostream stream(out);
  module.print(stream, nullptr);
  return out;
}

unsigned vectorLoads(const llvm::Module &module) {
  unsigned count = 0;
  for (const llvm::Function &function : module)
    for (const llvm::BasicBlock &block : function)
      for (const llvm::Instruction &inst : block)
        if (llvm::isa<llvm::LoadInst>(inst) && inst.getType()->isVectorTy())
          ++count;
  return count;
}

/// The IR of `body` after scalarizeLoadExtracts, and after LLVM's early VectorCombine; the
/// number of vector loads the rewrite left.
struct Both {
  std::string ours, llvms;
  unsigned vectorLoadsLeft;
};

Both runBoth(const std::string &body) {
  tilec::codegen::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine =
      tilec::codegen::createNVPTXTargetMachine(options, /*shortSharedPointers=*/true);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> ours = parse(context, body), llvms = parse(context, body);

  for (llvm::Function &function : *ours) {
    if (function.isDeclaration())
      continue;
    llvm::TargetTransformInfo tti = machine->getTargetTransformInfo(function);
    llvm::DominatorTree dominators(function);
    tilec::codegen::scalarizeLoadExtracts(function, tti, dominators);
  }

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(machine.get());
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::FunctionPassManager functionPasses;
  functionPasses.addPass(llvm::VectorCombinePass(/*TryEarlyFoldsOnly=*/true));
  llvm::ModulePassManager passes;
  passes.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(functionPasses)));
  passes.run(*llvms, mam);
  return {text(*ours), text(*llvms), vectorLoads(*ours)};
}

} // namespace

TEST_CASE("shared vector loads read lane by lane become scalar loads, as VectorCombine makes them",
          "[codegen][llvm]") {
  // Two loads whose extracts are interleaved with arithmetic, lanes used out of order and one
  // lane twice: every extract becomes a scalar load at its place.
  Both both = runBoth(R"(
@smem = external addrspace(3) global [0 x i8], align 16

define float @f(i32 %i) {
  %p = getelementptr inbounds float, ptr addrspace(3) @smem, i32 %i
  %v = load <4 x float>, ptr addrspace(3) %p, align 16
  %q = getelementptr inbounds float, ptr addrspace(3) %p, i32 64
  %w = load <4 x float>, ptr addrspace(3) %q, align 8
  %a = extractelement <4 x float> %v, i64 2
  %b = extractelement <4 x float> %w, i64 0
  %m = fmul float %a, %b
  %c = extractelement <4 x float> %v, i64 0
  %d = extractelement <4 x float> %w, i64 3
  %n = fmul float %c, %d
  %e = extractelement <4 x float> %v, i64 2
  %s = fadd float %m, %n
  %t = fadd float %s, %e
  ret float %t
}
)");
  CHECK(both.vectorLoadsLeft == 0);
  CHECK(both.ours == both.llvms);
}

TEST_CASE("vector loads VectorCombine keeps are kept", "[codegen][llvm]") {
  SECTION("a store between the load and an extract") {
    Both both = runBoth(R"(
define float @f(ptr addrspace(1) %p, ptr addrspace(1) %o) {
  %v = load <4 x float>, ptr addrspace(1) %p, align 16
  %a = extractelement <4 x float> %v, i64 0
  store float %a, ptr addrspace(1) %o, align 4
  %b = extractelement <4 x float> %v, i64 1
  ret float %b
}
)");
    CHECK(both.vectorLoadsLeft == 1);
    CHECK(both.ours == both.llvms);
  }
  SECTION("a user that is not an extract of a constant lane") {
    Both both = runBoth(R"(
define <4 x float> @f(ptr addrspace(1) %p, i32 %lane) {
  %v = load <4 x float>, ptr addrspace(1) %p, align 16
  %a = extractelement <4 x float> %v, i32 %lane
  %w = insertelement <4 x float> %v, float %a, i64 0
  ret <4 x float> %w
}
)");
    CHECK(both.vectorLoadsLeft == 1);
    CHECK(both.ours == both.llvms);
  }
  SECTION("a volatile load, and an extract in another block") {
    Both both = runBoth(R"(
define float @f(ptr addrspace(1) %p, i1 %c) {
entry:
  %v = load volatile <2 x float>, ptr addrspace(1) %p, align 8
  %a = extractelement <2 x float> %v, i64 0
  %w = load <2 x float>, ptr addrspace(1) %p, align 8
  br i1 %c, label %then, label %done
then:
  %b = extractelement <2 x float> %w, i64 1
  br label %done
done:
  %r = phi float [ %a, %entry ], [ %b, %then ]
  ret float %r
}
)");
    CHECK(both.vectorLoadsLeft == 2);
    CHECK(both.ours == both.llvms);
  }
}
