#include "gpu/Layout.h"
#include "tir/Builder.h"
#include "tir/Printer.h"
#include "tir/Verifier.h"

#include <catch2/catch.hpp>

using namespace tilec::tir;

namespace {
const DType i32 = DType::scalar(ScalarKind::I32);
const DType f32 = DType::scalar(ScalarKind::F32);

// add_kernel by hand: out[i] = x[i] + y[i] for i < n.
std::unique_ptr<Function> makeAddKernel() {
  auto f = std::make_unique<Function>("add_kernel", tilec::SourceLoc{});
  Block &body = f->body();
  Value *x = body.addArgument(Type(DType::pointer(ScalarKind::F32)));
  Value *out = body.addArgument(Type(DType::pointer(ScalarKind::F32)));
  Value *n = body.addArgument(Type(i32));
  f->params = {{"x", x->type().elem, 16}, {"out", out->type().elem, 16}, {"n", i32, 0}};
  Builder b(body);
  Value *pid = b.programId(0);
  Value *start = b.binary(OpCode::Mul, pid, b.intConstant(128, Type(i32)));
  Value *offs = b.binary(OpCode::Add, b.splat(start, {128}), b.makeRange(0, 128));
  Value *mask = b.cmp("lt", offs, b.splat(n, {128}));
  Value *v = b.createValue(OpCode::Load, {b.addPtr(b.splat(x, {128}), offs), mask},
                           Type(f32, {128}));
  b.create(OpCode::Store, {b.addPtr(b.splat(out, {128}), offs), v, mask}, {});
  b.create(OpCode::Return, {}, {});
  return f;
}
} // namespace

TEST_CASE("a well-formed kernel verifies and prints", "[verifier]") {
  auto f = makeAddKernel();
  CHECK(verify(*f).empty());
  std::string text = print(*f);
  CHECK(text.find("func @add_kernel(") == 0);
  CHECK(text.find("make_range {end = 128, start = 0} : tensor<128xi32>") != std::string::npos);
  CHECK(text.find("load ") != std::string::npos);
}

TEST_CASE("a block without its terminator is rejected", "[verifier]") {
  auto f = makeAddKernel();
  f->body().remove(f->body().terminator());
  CHECK(verify(*f).find("does not end in 'return'") != std::string::npos);
}

TEST_CASE("a value used before its definition is rejected", "[verifier]") {
  auto f = std::make_unique<Function>("k", tilec::SourceLoc{});
  Builder b(f->body());
  Value *c = b.intConstant(1, Type(i32));
  Value *sum = b.binary(OpCode::Add, c, c);
  // Move the constant after its use.
  auto constOp = f->body().remove(c->definingOp());
  b.setInsertionPointToEnd(f->body());
  f->body().insert(f->body().ops().end(), std::move(constOp));
  b.create(OpCode::Return, {}, {});
  (void)sum;
  CHECK(verify(*f).find("not defined before it") != std::string::npos);
}

TEST_CASE("elementwise operands must match the result shape", "[verifier]") {
  auto f = std::make_unique<Function>("k", tilec::SourceLoc{});
  Builder b(f->body());
  Value *r = b.makeRange(0, 16);
  Value *s = b.intConstant(1, Type(i32));
  b.createValue(OpCode::Add, {r, s}, r->type());
  b.create(OpCode::Return, {}, {});
  CHECK(verify(*f).find("operand shape differs") != std::string::npos);
}

TEST_CASE("a load whose result is not the pointee type is rejected", "[verifier]") {
  auto f = std::make_unique<Function>("k", tilec::SourceLoc{});
  Value *p = f->body().addArgument(Type(DType::pointer(ScalarKind::F16)));
  f->params = {{"p", p->type().elem, 0}};
  Builder b(f->body());
  b.createValue(OpCode::Load, {p}, Type(f32));
  b.create(OpCode::Return, {}, {});
  CHECK(verify(*f).find("pointee") != std::string::npos);
}

TEST_CASE("ops that share one layout must agree on it", "[verifier]") {
  auto f = std::make_unique<Function>("k", tilec::SourceLoc{});
  Builder b(f->body());
  Value *r = b.makeRange(0, 128);
  Value *laidOut =
      b.createValue(OpCode::ConvertLayout, {r},
                    r->type().withLayout(tilec::gpu::defaultBlockedLayout({128}, 4, 4)));
  Value *sum = b.createValue(OpCode::Add, {laidOut, r}, r->type());
  b.create(OpCode::Return, {}, {});
  // One operand laid out, the other and the result not: the state coalescing used to leave.
  CHECK(verify(*f).find("differ in layout") != std::string::npos);

  // All three in one layout verify; two different blocked layouts do not.
  r->setType(laidOut->type());
  sum->setType(laidOut->type());
  CHECK(verify(*f).empty());
  r->setType(r->type().withLayout(tilec::gpu::defaultBlockedLayout({128}, 4, 1)));
  CHECK(verify(*f).find("differ in layout") != std::string::npos);
}
