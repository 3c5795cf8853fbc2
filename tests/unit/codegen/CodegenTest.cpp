#include "TestKernels.h"
#include "codegen/LowerToLLVM.h"
#include "codegen/Metadata.h"
#include "codegen/PTXEmitter.h"
#include "gpu/Passes.h"
#include "tir/Printer.h"
#include "tir/Verifier.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <regex>
#include <sys/stat.h>
#include <unistd.h>

using namespace tilec;
using namespace tilec::testkernels;

namespace {

const char *kPtxas = "/usr/local/cuda/bin/ptxas";

struct Compiled {
  std::string llvmIR; // after optimisation
  std::string ptx;
};

Compiled compile(tir::Module &module, const std::string &arch = "sm_90a") {
  for (auto &f : module.functions) {
    gpu::runLayoutPasses(*f);
    INFO(tir::print(*f));
    REQUIRE(tir::verify(*f) == "");
  }
  codegen::TargetOptions options;
  options.arch = arch;
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> m = codegen::lowerToLLVM(module, context, options);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  bool broken = llvm::verifyModule(*m, &errorStream);
  if (broken) {
    std::string text;
    llvm::raw_string_ostream os(text);
    m->print(os, nullptr);
    INFO(text);
    FAIL("LLVM verifier: " << errors);
  }
  codegen::optimizeModule(*m, options);
  Compiled out;
  llvm::raw_string_ostream os(out.llvmIR);
  m->print(os, nullptr);
  out.ptx = codegen::emitPTX(*m, options);
  return out;
}

/// Runs ptxas on `ptx`; returns its exit status and output. Skipped (true) without ptxas.
bool ptxasAccepts(const std::string &ptx, const std::string &arch, std::string &log) {
  char path[] = "/tmp/tilec_codegen_XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::string ptxPath = std::string(path) + ".ptx";
  std::ofstream(ptxPath) << ptx;
  std::string logPath = std::string(path) + ".log";
  std::string command = std::string(kPtxas) + " -arch=" + arch + " " + ptxPath + " -o " +
                        std::string(path) + ".cubin > " + logPath + " 2>&1";
  int status = std::system(command.c_str());
  std::ifstream in(logPath);
  log.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::remove(path);
  std::remove(ptxPath.c_str());
  std::remove(logPath.c_str());
  std::remove((std::string(path) + ".cubin").c_str());
  return status == 0;
}

bool havePtxas() {
  struct stat st;
  return stat(kPtxas, &st) == 0;
}

void checkPtxas(const std::string &ptx, const std::string &arch) {
  if (!havePtxas()) {
    WARN("ptxas not found at " << kPtxas << ": PTX not validated");
    return;
  }
  std::string log;
  bool ok = ptxasAccepts(ptx, arch, log);
  INFO(ptx);
  INFO("ptxas: " << log);
  CHECK(ok);
}

bool contains(const std::string &text, const std::string &needle) {
  return text.find(needle) != std::string::npos;
}

unsigned count(const std::string &text, const std::string &needle) {
  unsigned n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++n;
  return n;
}

} // namespace

TEST_CASE("add_kernel: 128-bit loads and stores, accepted by ptxas", "[codegen]") {
  tir::Module m;
  addKernel(m);
  Compiled c = compile(m);
  INFO(c.ptx);
  CHECK(contains(c.ptx, ".visible .entry add_kernel("));
  CHECK(contains(c.ptx, ".maxntid 128, 1, 1"));
  CHECK(contains(c.ptx, ".target sm_90a"));
  // Two vectors of 4 x fp32 per thread per operand (1024 elements / 128 threads).
  CHECK(count(c.ptx, "ld.global.v4.b32") + count(c.ptx, "ld.global.v4.f32") >= 4);
  CHECK(count(c.ptx, "st.global.v4") >= 2);
  CHECK_FALSE(contains(c.ptx, ".local"));
  checkPtxas(c.ptx, "sm_90a");
  Compiled c80 = compile(
      *[] {
        static tir::Module m80;
        addKernel(m80);
        return &m80;
      }(),
      "sm_80");
  checkPtxas(c80.ptx, "sm_80");
}

TEST_CASE("add_kernel with n % 16 == 0: predicated vector accesses only", "[codegen]") {
  tir::Module m;
  addKernel(m, 1024, 16, 16);
  Compiled c = compile(m);
  INFO(c.ptx);
  CHECK(count(c.ptx, "ld.global.v4.b32") == 4);
  CHECK(count(c.ptx, "st.global.v4.b32") == 2);
  CHECK_FALSE(contains(c.ptx, "ld.global.b32"));
  checkPtxas(c.ptx, "sm_90a");
}

TEST_CASE("a 2-D masked tile", "[codegen]") {
  tir::Module m;
  scale2dKernel(m, 32, 64);
  Compiled c = compile(m);
  INFO(c.ptx);
  CHECK(contains(c.ptx, "ld.global.v4.b32"));
  CHECK(contains(c.ptx, "st.global.v4.b32"));
  checkPtxas(c.ptx, "sm_90a");
}

TEST_CASE("softmax: max and sum reductions across warps", "[codegen]") {
  tir::Module m;
  softmaxKernel(m);
  Compiled c = compile(m);
  INFO(c.ptx);
  CHECK(contains(c.ptx, "shfl.sync.bfly.b32"));
  CHECK(contains(c.ptx, "bar.sync"));
  CHECK(contains(c.ptx, "ex2.approx.f32"));
  CHECK(contains(c.ptx, ".extern .shared .align 16 .b8 global_smem[]"));
  CHECK_FALSE(contains(c.ptx, ".local"));
  checkPtxas(c.ptx, "sm_90a");
}

TEST_CASE("reduction along axis 1 of a 2-D tile", "[codegen]") {
  for (const char *kind : {"sum", "max"}) {
    tir::Module m;
    rowSumKernel(m, 16, 128, kind);
    Compiled c = compile(m);
    INFO(kind);
    INFO(c.ptx);
    CHECK(contains(c.ptx, "shfl.sync.bfly.b32"));
    checkPtxas(c.ptx, "sm_90a");
  }
}

TEST_CASE("a for loop with loop-carried tensors", "[codegen]") {
  tir::Module m;
  loopKernel(m);
  Compiled c = compile(m);
  INFO(c.llvmIR);
  INFO(c.ptx);
  CHECK(contains(c.ptx, "ld.global.v2.f32"));
  checkPtxas(c.ptx, "sm_90a");
}

TEST_CASE("metadata: the runtime's schema, deterministic", "[codegen][metadata]") {
  tir::Module m;
  addKernel(m);
  softmaxKernel(m);
  for (auto &f : m.functions)
    gpu::runLayoutPasses(*f);
  codegen::TargetOptions options;
  std::string json = codegen::kernelMetadataJson(m, options, "samples/vector_add.tl");
  INFO(json);
  CHECK(json == codegen::kernelMetadataJson(m, options, "samples/vector_add.tl"));
  CHECK(contains(json, "\"schema\": \"tilec-metadata\""));
  CHECK(contains(json, "\"version\": 1"));
  CHECK(contains(json, "\"target\": \"sm_90a\""));
  CHECK(contains(json, "\"threads_per_block\": 128"));
  CHECK(contains(json, "\"type\": \"*fp32\""));
  CHECK(contains(json, "\"alignment\": 16"));
  CHECK(contains(json, "\"divisibility\": 0"));
  CHECK(contains(json, "\"name\": \"BLOCK_SIZE\""));
  CHECK(contains(json, "\"value\": \"1024\""));
  // softmax reduces across 4 warps: 4 fp32 slots.
  CHECK(contains(json, "\"shared_memory_bytes\": 16"));
}
