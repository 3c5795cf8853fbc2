#include "../codegen/TestKernels.h"
#include "gpu/Layout.h"
#include "gpu/Passes.h"
#include "tir/Printer.h"
#include "tir/Verifier.h"

#include <catch2/catch.hpp>

using namespace tilec;
using namespace tilec::testkernels;

namespace {

unsigned countOps(tir::Function &f, tir::OpCode code) {
  unsigned n = 0;
  tir::walk(f, [&](tir::Operation &op) { n += op.code() == code; });
  return n;
}

/// Every tensor value, results and block arguments, has a layout of its rank.
bool everyTensorLaidOut(tir::Function &f) {
  bool ok = true;
  auto check = [&](const tir::Value *v) {
    if (v->type().isTensor() && (!v->type().layout || v->type().layout->rank() != v->type().rank()))
      ok = false;
  };
  tir::walk(f, [&](tir::Operation &op) {
    for (unsigned r = 0; r < op.numResults(); ++r)
      check(op.result(r));
    for (unsigned r = 0; r < op.numRegions(); ++r)
      for (unsigned a = 0; a < op.region(r).block().numArguments(); ++a)
        check(op.region(r).block().argument(a));
  });
  return ok;
}

void runAndVerify(tir::Function &f) {
  gpu::runCoalesce(f);
  INFO(tir::print(f));
  REQUIRE(tir::verify(f) == "");
  gpu::runAssignLayouts(f);
  INFO(tir::print(f));
  REQUIRE(tir::verify(f) == "");
  REQUIRE(everyTensorLaidOut(f));
  gpu::runRemoveRedundantConversions(f);
  INFO(tir::print(f));
  REQUIRE(tir::verify(f) == "");
  REQUIRE(everyTensorLaidOut(f));
}

} // namespace

TEST_CASE("add_kernel: one 4 x fp32 per thread layout, no conversions", "[layout]") {
  tir::Module m;
  tir::Function *f = addKernel(m);
  runAndVerify(*f);
  std::string text = tir::print(*f);
  INFO(text);
  CHECK(countOps(*f, tir::OpCode::ConvertLayout) == 0);
  CHECK(text.find("load") != std::string::npos);
  CHECK(text.find("tensor<1024xf32, #blocked<{spt=[4], tpw=[32], wpc=[4], order=[0]}>>") !=
        std::string::npos);
  CHECK(text.find("spt=[1]") == std::string::npos);
}

TEST_CASE("a 2-D tile: row-major coalesced layout, slices feed expand_dims", "[layout]") {
  tir::Module m;
  tir::Function *f = scale2dKernel(m, 32, 64);
  runAndVerify(*f);
  std::string text = tir::print(*f);
  INFO(text);
  CHECK(countOps(*f, tir::OpCode::ConvertLayout) == 0);
  // 64 columns of fp32 in 16 threads x 4 elements; 2 rows of threads per warp; 4 warps on rows.
  std::string blocked = "#blocked<{spt=[1, 4], tpw=[2, 16], wpc=[4, 1], order=[1, 0]}>";
  CHECK(text.find("tensor<32x64xf32, " + blocked + ">") != std::string::npos);
  CHECK(text.find("tensor<32xi32, #slice<{dim=1, parent=" + blocked + "}>>") != std::string::npos);
  CHECK(text.find("tensor<64xi32, #slice<{dim=0, parent=" + blocked + "}>>") != std::string::npos);
}

TEST_CASE("softmax: reductions to scalars need no conversion", "[layout]") {
  tir::Module m;
  tir::Function *f = softmaxKernel(m);
  runAndVerify(*f);
  CHECK(countOps(*f, tir::OpCode::ConvertLayout) == 0);
}

TEST_CASE("row reduction: the result has the slice layout of its operand", "[layout]") {
  tir::Module m;
  tir::Function *f = rowSumKernel(m, 16, 128);
  runAndVerify(*f);
  std::string text = tir::print(*f);
  INFO(text);
  tir::Operation *reduce = nullptr;
  tir::walk(*f, [&](tir::Operation &op) {
    if (op.code() == tir::OpCode::Reduce)
      reduce = &op;
  });
  REQUIRE(reduce);
  const gpu::Layout &result = *reduce->result()->type().layout;
  CHECK(result.kind == gpu::LayoutKind::Slice);
  CHECK(result.dim == 1);
  CHECK(*result.parent == *reduce->operand(0)->type().layout);
}

TEST_CASE("loop-carried tensors keep one layout through the loop", "[layout]") {
  tir::Module m;
  tir::Function *f = loopKernel(m);
  runAndVerify(*f);
  std::string text = tir::print(*f);
  INFO(text);
  CHECK(countOps(*f, tir::OpCode::ConvertLayout) == 0);
  tir::Operation *loop = nullptr;
  tir::walk(*f, [&](tir::Operation &op) {
    if (op.code() == tir::OpCode::For)
      loop = &op;
  });
  REQUIRE(loop);
  const tir::Block &body = loop->region(0).block();
  CHECK(body.argument(1)->type() == loop->result(0)->type());
  CHECK(body.argument(1)->type() == loop->operand(3)->type());
  CHECK(body.argument(1)->type().layout->sizePerThread == std::vector<unsigned>{2});
}

TEST_CASE("conflicting layouts keep a conversion and stay correct", "[layout]") {
  // A value loaded in one layout and stored transposed needs a real conversion.
  tir::Module m;
  tir::Function *f = m.addFunction("transpose", SourceLoc{});
  tir::Value *x = f->body().addArgument(tir::Type(ptrTo(tir::ScalarKind::F32)));
  tir::Value *out = f->body().addArgument(tir::Type(ptrTo(tir::ScalarKind::F32)));
  f->params = {{"x", x->type().elem, 16}, {"out", out->type().elem, 16}};
  tir::Builder b(f->body());
  tir::Value *r = b.makeRange(0, 64);
  auto grid = [&](tir::Value *rows, tir::Value *cols) {
    return b.binary(tir::OpCode::Add,
                    b.binary(tir::OpCode::Mul, b.broadcast(b.expandDims(rows, 1), {64, 64}),
                             b.intConstant(64, tir::Type(i32(), {64, 64}))),
                    b.broadcast(b.expandDims(cols, 0), {64, 64}));
  };
  tir::Value *in = grid(r, r);
  tir::Value *outOffs =
      b.binary(tir::OpCode::Add, b.broadcast(b.expandDims(r, 1), {64, 64}),
               b.binary(tir::OpCode::Mul, b.broadcast(b.expandDims(r, 0), {64, 64}),
                        b.intConstant(64, tir::Type(i32(), {64, 64}))));
  tir::Value *v = b.createValue(tir::OpCode::Load, {b.addPtr(b.splat(x, {64, 64}), in)},
                                tir::Type(f32(), {64, 64}));
  b.create(tir::OpCode::Store, {b.addPtr(b.splat(out, {64, 64}), outOffs), v}, {});
  b.create(tir::OpCode::Return, {}, {});
  runAndVerify(*f);
  INFO(tir::print(*f));
  CHECK(countOps(*f, tir::OpCode::ConvertLayout) == 1);
}
