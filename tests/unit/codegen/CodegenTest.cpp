#include "TestKernels.h"
#include "codegen/LowerToLLVM.h"
#include "codegen/Metadata.h"
#include "codegen/PTXEmitter.h"
#include "codegen/SharedTile.h"
#include "gpu/Passes.h"
#include "tir/Printer.h"
#include "tir/Verifier.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <llvm/Config/llvm-config.h>
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

// Where LLVM 22 (-DTILEC_LLVM_MAJOR=22) writes other PTX for the same IR: typeless registers
// (ld.global.v2.b32), pairs of conversions (cvt.rn.f16x2.f32), int8 products as mul.wide.s16.
constexpr bool kLlvm19 = LLVM_VERSION_MAJOR == 19;

TEST_CASE("a for loop with loop-carried tensors", "[codegen]") {
  tir::Module m;
  loopKernel(m);
  Compiled c = compile(m);
  INFO(c.llvmIR);
  INFO(c.ptx);
  CHECK(contains(c.ptx, kLlvm19 ? "ld.global.v2.f32" : "ld.global.v2.b32"));
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

namespace {
/// out[i] = (fp16) max(exp(x[i]), (float) k[i]) for fp32 x, int32 k; plus sqrt/log/div.
tir::Function *elementwiseKernel(tir::Module &m) {
  tir::Function *f = m.addFunction("elementwise_kernel", SourceLoc{1, 1, 1});
  tir::Block &body = f->body();
  tir::Value *x = body.addArgument(tir::Type(ptrTo(tir::ScalarKind::F32)));
  tir::Value *k = body.addArgument(tir::Type(ptrTo(tir::ScalarKind::I32)));
  tir::Value *out = body.addArgument(tir::Type(ptrTo(tir::ScalarKind::F16)));
  tir::Value *n = body.addArgument(tir::Type(i32()));
  f->params = {{"x", x->type().elem, 16},
               {"k", k->type().elem, 16},
               {"out", out->type().elem, 16},
               {"n", i32(), 0, 16}};
  tir::Builder b(body);
  const int64_t block = 2048;
  tir::Value *offs = b.binary(
      tir::OpCode::Add,
      b.splat(b.binary(tir::OpCode::Mul, b.programId(0), b.intConstant(block, i32())), {block}),
      b.makeRange(0, block));
  tir::Value *mask = b.cmp("lt", offs, b.splat(n, {block}));
  tir::Value *xv = b.createValue(tir::OpCode::Load, {b.addPtr(b.splat(x, {block}), offs), mask},
                                 tir::Type(f32(), {block}));
  tir::Value *kv = b.createValue(tir::OpCode::Load, {b.addPtr(b.splat(k, {block}), offs), mask},
                                 tir::Type(i32(), {block}));
  tir::Value *e = b.unary(tir::OpCode::Exp, xv);
  tir::Value *m1 = b.binary(tir::OpCode::Maximum, e, b.cast(kv, f32()));
  tir::Value *s = b.unary(tir::OpCode::Sqrt, b.unary(tir::OpCode::Abs, m1));
  tir::Value *l =
      b.unary(tir::OpCode::Log,
              b.binary(tir::OpCode::Add, s, b.floatConstant(1.0, tir::Type(f32(), {block}))));
  tir::Value *q = b.binary(
      tir::OpCode::Div, l,
      b.cast(b.binary(tir::OpCode::Rem, kv, b.intConstant(7, tir::Type(i32(), {block}))), f32()));
  tir::Value *h = b.cast(q, f16());
  b.create(tir::OpCode::Store, {b.addPtr(b.splat(out, {block}), offs), h, mask}, {});
  b.create(tir::OpCode::Return, {}, {});
  return f;
}
} // namespace

TEST_CASE("elementwise math and casts", "[codegen]") {
  tir::Module m;
  elementwiseKernel(m);
  Compiled c = compile(m);
  INFO(c.ptx);
  CHECK(contains(c.ptx, "ex2.approx.f32"));
  CHECK(contains(c.ptx, "max.f32"));
  CHECK(contains(c.ptx, "cvt.rn.f32.s32"));
  CHECK(contains(c.ptx, kLlvm19 ? "cvt.rn.f16.f32" : "cvt.rn.f16x2.f32"));
  CHECK(contains(c.ptx, "sqrt.approx.ftz.f32")); // tl.sqrt, as Triton (sqrt_rn is sqrt.rn)
  CHECK(contains(c.ptx, "div.full.f32"));
  CHECK_FALSE(contains(c.ptx, "__nv_logf")); // libdevice linked in and inlined
  CHECK(contains(c.ptx, "ld.global.v4.b32"));
  // The fp16 store sets the layout (8 x fp16 = 128 bits per access); the fp32 loads follow it
  // with two 128-bit loads each, and no conversion is needed.
  CHECK(contains(c.ptx, "st.global.v4.b32"));
  CHECK_FALSE(contains(c.ptx, "bar.sync"));
  checkPtxas(c.ptx, "sm_90a");
}

TEST_CASE("fp16 loads: 8 halves in one 128-bit access", "[codegen]") {
  tir::Module m;
  tir::Function *f = m.addFunction("copy_f16", SourceLoc{1, 1, 1});
  tir::Value *x = f->body().addArgument(tir::Type(ptrTo(tir::ScalarKind::F16)));
  tir::Value *y = f->body().addArgument(tir::Type(ptrTo(tir::ScalarKind::F16)));
  f->params = {{"x", x->type().elem, 16}, {"y", y->type().elem, 16}};
  tir::Builder b(f->body());
  tir::Value *offs = b.makeRange(0, 2048);
  tir::Value *v = b.createValue(tir::OpCode::Load, {b.addPtr(b.splat(x, {2048}), offs)},
                                tir::Type(f16(), {2048}));
  tir::Value *twice = b.binary(tir::OpCode::Add, v, v);
  b.create(tir::OpCode::Store, {b.addPtr(b.splat(y, {2048}), offs), twice}, {});
  b.create(tir::OpCode::Return, {}, {});
  Compiled c = compile(m);
  INFO(c.ptx);
  CHECK((contains(c.ptx, "ld.global.v4.u32") || contains(c.ptx, "ld.global.v4.b32") ||
         contains(c.ptx, "ld.global.v8.f16") || contains(c.ptx, "ld.global.v4.b16")));
  CHECK_FALSE(contains(c.ptx, "ld.global.b16"));
  checkPtxas(c.ptx, "sm_90a");
}

TEST_CASE("atomic add of fp32 and i32 tensors", "[codegen]") {
  for (tir::ScalarKind kind : {tir::ScalarKind::F32, tir::ScalarKind::I32}) {
    tir::Module m;
    tir::Function *f = m.addFunction("atomic_kernel", SourceLoc{1, 1, 1});
    tir::Value *p = f->body().addArgument(tir::Type(ptrTo(kind)));
    f->params = {{"p", p->type().elem, 16}};
    tir::Builder b(f->body());
    tir::Value *offs = b.makeRange(0, 64);
    tir::Value *one = kind == tir::ScalarKind::F32 ? b.floatConstant(1.0, tir::Type(f32(), {64}))
                                                   : b.intConstant(1, tir::Type(i32(), {64}));
    tir::Operation *atomic =
        b.create(tir::OpCode::AtomicRMW, {b.addPtr(b.splat(p, {64}), offs), one},
                 {tir::Type(tir::DType::scalar(kind), {64})});
    atomic->setAttr("kind", std::string("add"));
    b.create(tir::OpCode::Return, {}, {});
    Compiled c = compile(m);
    INFO(c.ptx);
    CHECK(contains(c.ptx, kind == tir::ScalarKind::F32 ? "atom.global.gpu.acq_rel.add.f32"
                                                       : "atom.global.gpu.acq_rel.add.u32"));
    checkPtxas(c.ptx, "sm_90a");
  }
}

TEST_CASE("an op the backend cannot lower yet is a located error", "[codegen]") {
  tir::Module m;
  tir::Function *f = m.addFunction("half_atomic_kernel", SourceLoc{1, 1, 1});
  tir::Value *ptr = f->body().addArgument(tir::Type(ptrTo(tir::ScalarKind::F16)));
  tir::Builder b(f->body());
  b.setLoc(SourceLoc{1, 7, 5});
  tir::Value *one = b.floatConstant(1.0, tir::Type(tir::DType::scalar(tir::ScalarKind::F16)));
  tir::Operation *atomic = b.create(tir::OpCode::AtomicRMW, {ptr, one},
                                    {tir::Type(tir::DType::scalar(tir::ScalarKind::F16))});
  // fp16 atomic_add is lowered; an fp16 exchange (which sema rejects, as Triton) is not.
  atomic->setAttr("kind", std::string("xchg"));
  b.create(tir::OpCode::Return, {}, {});
  gpu::runLayoutPasses(*f);
  llvm::LLVMContext context;
  try {
    codegen::lowerToLLVM(m, context, codegen::TargetOptions{});
    FAIL("lowering an fp16 atomic exchange succeeded");
  } catch (const CompileError &error) {
    std::string message = error.what();
    CHECK(message.find("7:5: error:") == 0);
    CHECK(contains(message, "'atomic_rmw' xchg on f16"));
    CHECK(contains(message, "not supported yet"));
  }
}

TEST_CASE("if and while with carried values, and a reduction across warps to a tensor",
          "[codegen]") {
  tir::Module m;
  tir::Function *f = m.addFunction("control_kernel", SourceLoc{1, 1, 1});
  tir::Value *x = f->body().addArgument(tir::Type(ptrTo(tir::ScalarKind::F32)));
  tir::Value *n = f->body().addArgument(tir::Type(i32()));
  f->params = {{"x", x->type().elem, 16}, {"n", i32(), 0, 0}};
  tir::Builder b(f->body());
  b.setLoc(SourceLoc{1, 3, 3});
  // A 64 x 32 tile summed over axis 0: 4 warps along the rows combine through shared memory.
  tir::Value *rows = b.makeRange(0, 64), *cols = b.makeRange(0, 32);
  tir::Value *offs =
      b.binary(tir::OpCode::Add,
               b.binary(tir::OpCode::Mul, b.broadcast(b.expandDims(rows, 1), {64, 32}),
                        b.intConstant(32, tir::Type(i32(), {64, 32}))),
               b.broadcast(b.expandDims(cols, 0), {64, 32}));
  tir::Value *tile = b.createValue(tir::OpCode::Load, {b.addPtr(b.splat(x, {64, 32}), offs)},
                                   tir::Type(f32(), {64, 32}));
  tir::Operation *colSum = b.create(tir::OpCode::Reduce, {tile}, {tir::Type(f32(), {32})});
  colSum->setAttr("kind", std::string("sum"));
  colSum->setAttr("axis", int64_t(0));
  // while (i < n) { i = i * 2 + 1 }
  tir::Operation *loop =
      b.create(tir::OpCode::While, {b.intConstant(1, i32())}, {tir::Type(i32())});
  tir::Block &before = loop->addRegion().block();
  tir::Block &after = loop->addRegion().block();
  tir::Value *i = before.addArgument(tir::Type(i32()));
  tir::Builder bb(before);
  bb.create(tir::OpCode::Condition, {bb.cmp("lt", i, n), i}, {});
  tir::Value *j = after.addArgument(tir::Type(i32()));
  tir::Builder ab(after);
  ab.create(tir::OpCode::Yield,
            {ab.binary(tir::OpCode::Add, ab.binary(tir::OpCode::Mul, j, ab.intConstant(2, i32())),
                       ab.intConstant(1, i32()))},
            {});
  // if (i > 100) v = colSum * 2 else v = colSum
  tir::Operation *branch =
      b.create(tir::OpCode::If, {b.cmp("gt", loop->result(), b.intConstant(100, i32()))},
               {tir::Type(f32(), {32})});
  tir::Builder tb(branch->addRegion().block());
  tb.create(tir::OpCode::Yield,
            {tb.binary(tir::OpCode::Mul, colSum->result(),
                       tb.floatConstant(2.0, tir::Type(f32(), {32})))},
            {});
  tir::Builder eb(branch->addRegion().block());
  eb.create(tir::OpCode::Yield, {colSum->result()}, {});
  b.create(tir::OpCode::Store, {b.addPtr(b.splat(x, {32}), cols), branch->result()}, {});
  b.create(tir::OpCode::Return, {}, {});
  Compiled c = compile(m);
  INFO(c.ptx);
  CHECK(contains(c.ptx, "bar.sync"));
  CHECK(contains(c.ptx, "st.shared"));
  checkPtxas(c.ptx, "sm_90a");
}

//===----------------------------------------------------------------------===//
// trans, layout conversions through shared memory, dot
//===----------------------------------------------------------------------===//

namespace {

/// The convert_layout ops of a laid-out function.
std::vector<const tir::Operation *> conversions(tir::Function &f) {
  std::vector<const tir::Operation *> found;
  tir::walk(f, [&](tir::Operation &op) {
    if (op.code() == tir::OpCode::ConvertLayout)
      found.push_back(&op);
  });
  return found;
}

/// Wavefronts `dist`'s accesses would take without any bank conflict.
unsigned idealWavefronts(const codegen::SharedTilePlan &plan, const codegen::Distribution &dist) {
  unsigned vec = plan.vectorWidth(dist);
  unsigned accessBytes = std::max(4u, vec * plan.elemBytes);
  unsigned phases = std::max(1u, 32 * accessBytes / 128);
  if (vec * plan.elemBytes < 4)
    phases = 1;
  return dist.numElements() / vec * phases;
}

/// `exact`: both sides free of bank conflicts. Otherwise at most 2-way: when the writer stores
/// 16-byte vectors of 4 x fp32 and the reader takes 2 elements of each, the reader's lanes can
/// reach only half of the banks whatever the layout of the tile.
void checkTransposeKernel(tir::Module &m, const std::string &arch, bool exact = true) {
  Compiled c = compile(m, arch);
  INFO(c.ptx);
  tir::Function &f = *m.functions[0];
  std::vector<const tir::Operation *> cvts = conversions(f);
  REQUIRE(cvts.size() == 1);
  // Both sides of the conversion are free of bank conflicts.
  const tir::Operation &cvt = *cvts[0];
  codegen::SharedTilePlan plan =
      codegen::conversionPlan(cvt.operand(0)->type(), cvt.result()->type());
  codegen::Distribution src = codegen::distributionOf(cvt.operand(0)->type());
  codegen::Distribution dst = codegen::distributionOf(cvt.result()->type());
  INFO("plan: fast " << plan.fastDim << " unit " << plan.unit << " pad " << plan.pad << " swizzle "
                     << plan.swizzleShift << "/" << plan.swizzleMask << "; "
                     << cvt.operand(0)->type().str() << " -> " << cvt.result()->type().str());
  unsigned bound = exact ? 1 : 2;
  CHECK(plan.wavefronts(src) <= bound * idealWavefronts(plan, src));
  CHECK(plan.wavefronts(dst) <= bound * idealWavefronts(plan, dst));
  // One barrier, between the shared-memory writes and reads; 128-bit global accesses.
  CHECK(count(c.ptx, "bar.sync") == 1);
  CHECK(count(c.ptx, "ld.global.v4") >= 1);
  CHECK(count(c.ptx, "st.global.v4") >= 1);
  CHECK(contains(c.ptx, "st.shared.v") | contains(c.ptx, "ld.shared.v"));
  CHECK_FALSE(contains(c.ptx, ".local"));
  checkPtxas(c.ptx, arch);
}

} // namespace

TEST_CASE("trans: a free permutation of the operand's blocked layout", "[codegen][trans]") {
  tir::Module m;
  transposeTransKernel(m, tir::ScalarKind::F16, 64, 64);
  tir::Function &f = *m.functions[0];
  gpu::runLayoutPasses(f);
  REQUIRE(tir::verify(f) == "");
  const tir::Operation *trans = nullptr;
  tir::walk(f, [&](tir::Operation &op) {
    if (op.code() == tir::OpCode::Trans)
      trans = &op;
  });
  REQUIRE(trans);
  gpu::LayoutPtr in = trans->operand(0)->type().layout, out = trans->result()->type().layout;
  REQUIRE(in->kind == gpu::LayoutKind::Blocked);
  CHECK(out->sizePerThread == std::vector<unsigned>{in->sizePerThread[1], in->sizePerThread[0]});
  CHECK(out->order == std::vector<unsigned>{in->order[1], in->order[0]});
  CHECK(*gpu::permuteLayout(in, {1, 0}) == *out);
  // One conversion, between the load's coalesced layout and the store's.
  CHECK(conversions(f).size() == 1);
}

TEST_CASE("transpose fp16 64x64 (tl.trans): conflict-free shared memory, one barrier",
          "[codegen][trans]") {
  for (const char *arch : {"sm_90a", "sm_80"}) {
    tir::Module m;
    transposeTransKernel(m, tir::ScalarKind::F16, 64, 64);
    checkTransposeKernel(m, arch);
  }
}

TEST_CASE("transpose fp32 (tl.trans) 32x32, 64x64, 128x64: at most 2-way conflicts",
          "[codegen][trans]") {
  for (auto [bm, bn] : {std::pair<int64_t, int64_t>{32, 32}, {64, 64}, {128, 64}}) {
    tir::Module m;
    transposeTransKernel(m, tir::ScalarKind::F32, bm, bn, bm * bn >= 8192 ? 8 : 4);
    checkTransposeKernel(m, "sm_90a", bm == 32);
  }
}

TEST_CASE("transpose by strides (load along dim 0, store along dim 1): few bank conflicts",
          "[codegen][trans]") {
  for (tir::ScalarKind elem : {tir::ScalarKind::F16, tir::ScalarKind::F32}) {
    tir::Module m;
    transposeStrideKernel(m, elem, 64, 64);
    checkTransposeKernel(m, "sm_90a", elem == tir::ScalarKind::F16);
  }
}

TEST_CASE("dot (FMA): fp32, fp16, bf16, int8, tf32 lower and pass ptxas", "[codegen][dot]") {
  struct Case {
    tir::ScalarKind in, acc;
    const char *precision;
    const char *expect;
  };
  for (const Case &k :
       {Case{tir::ScalarKind::F32, tir::ScalarKind::F32, "ieee", "fma.rn.f32"},
        Case{tir::ScalarKind::F16, tir::ScalarKind::F32, "ieee", "fma.rn.f32"},
        Case{tir::ScalarKind::BF16, tir::ScalarKind::F32, "ieee", "fma.rn.f32"},
        Case{tir::ScalarKind::F16, tir::ScalarKind::F16, "ieee", "fma.rn.f16"},
        Case{tir::ScalarKind::I8, tir::ScalarKind::I32, "ieee",
             kLlvm19 ? "mad.lo.s32" : "mul.wide.s16"},
        Case{tir::ScalarKind::F32, tir::ScalarKind::F32, "tf32", "cvt.rna.tf32.f32"}}) {
    for (const char *arch : {"sm_90a", "sm_80"}) {
      tir::Module m;
      dotKernel(m, k.in, k.acc, 64, 64, 32, k.precision);
      Compiled c = compile(m, arch);
      INFO(tir::DType::scalar(k.in).str()
           << " -> " << tir::DType::scalar(k.acc).str() << " " << k.precision << " " << arch);
      INFO(c.ptx);
      CHECK(contains(c.ptx, k.expect));
      // One barrier after staging the operands, two around the conversion of the result (4x8
      // elements per thread) to the store's coalesced layout.
      CHECK(count(c.ptx, "bar.sync") == 3);
      CHECK_FALSE(contains(c.ptx, ".local"));
      checkPtxas(c.ptx, arch);
    }
  }
}

TEST_CASE("dot: 64x64x32 fp32 reads operand vectors from shared memory", "[codegen][dot]") {
  tir::Module m;
  dotKernel(m, tir::ScalarKind::F32, tir::ScalarKind::F32, 64, 64, 32);
  Compiled c = compile(m);
  INFO(c.ptx);
  // 32 accumulators per thread, 32 k steps: 1024 fma per thread.
  CHECK(count(c.ptx, "fma.rn.f32") == 1024);
  CHECK(count(c.ptx, "ld.shared.v4") + count(c.ptx, "ld.shared.v2") > 0);
}

TEST_CASE("print the laid-out test kernels", "[.debug]") {
  tir::Module m;
  transposeTransKernel(m, tir::ScalarKind::F16, 64, 64);
  transposeStrideKernel(m, tir::ScalarKind::F32, 64, 64);
  dotKernel(m, tir::ScalarKind::F32, tir::ScalarKind::F32, 64, 64, 32);
  for (auto &f : m.functions) {
    gpu::runCoalesce(*f);
    gpu::runAssignLayouts(*f);
    std::printf("%s\n", tir::print(*f).c_str());
    gpu::runRemoveRedundantConversions(*f);
    std::printf("%s\n", tir::print(*f).c_str());
  }
}
