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

namespace {
/// A scan or reduction of two f32/i32 operands of [8, 16] along axis 1 whose combine region
/// yields `yields` values (the first ones of lhs + rhs) of the operands' types.
std::unique_ptr<Function> makeCombine(OpCode code, unsigned yields, bool wrongType = false) {
  auto f = std::make_unique<Function>("k", tilec::SourceLoc{});
  Builder b(f->body());
  Value *x = b.splat(b.floatConstant(1.0, Type(f32)), {8, 16});
  Value *y = b.splat(b.intConstant(1, Type(i32)), {8, 16});
  std::vector<Type> results = code == OpCode::Scan
                                  ? std::vector<Type>{x->type(), y->type()}
                                  : std::vector<Type>{Type(f32, {8}), Type(i32, {8})};
  Operation *op = b.create(code, {x, y}, results);
  op->setAttr("kind", std::string("combine"));
  op->setAttr("axis", int64_t(1));
  op->setAttr("reverse", false);
  Block &body = op->addRegion().block();
  std::vector<Value *> args;
  for (DType t : {f32, i32, f32, i32})
    args.push_back(body.addArgument(Type(t)));
  Builder inner(body);
  std::vector<Value *> yielded = {inner.binary(OpCode::Add, args[0], args[2]),
                                  inner.binary(OpCode::Add, args[1], args[3])};
  if (wrongType)
    yielded[1] = inner.cast(yielded[1], f32);
  yielded.resize(yields);
  inner.create(OpCode::Yield, yielded, {});
  b.create(OpCode::Return, {}, {});
  return f;
}
} // namespace

TEST_CASE("scans and reductions with a combine region", "[verifier]") {
  for (OpCode code : {OpCode::Scan, OpCode::Reduce}) {
    CHECK(verify(*makeCombine(code, 2)).empty());
    CHECK(verify(*makeCombine(code, 1)).find("must yield 2 values") != std::string::npos);
    CHECK(verify(*makeCombine(code, 2, true)).find("combine result 1 is not a scalar") !=
          std::string::npos);
  }
  std::string text = print(*makeCombine(OpCode::Scan, 2));
  INFO(text);
  CHECK(text.find("{axis = 1, kind = \"combine\", reverse = false} : tensor<8x16xf32>, "
                  "tensor<8x16xi32> {") != std::string::npos);
}

namespace {
/// map_elementwise of an f32 and an i32 operand of [64] with pack 2: a region of four scalars
/// (x0, x1, y0, y1) yielding x0 + cast(y0), x1 + cast(y1), then y0 < y1 twice (two results).
/// `argsPerOperand` and `wrongType` break it.
std::unique_ptr<Function> makeMap(unsigned argsPerOperand = 2, bool wrongType = false) {
  auto f = std::make_unique<Function>("k", tilec::SourceLoc{});
  Builder b(f->body());
  Value *x = b.splat(b.floatConstant(1.0, Type(f32)), {64});
  Value *y = b.splat(b.intConstant(1, Type(i32)), {64});
  Operation *op = b.create(OpCode::MapElementwise, {x, y},
                           {Type(f32, {64}), Type(DType::scalar(ScalarKind::I1), {64})});
  op->setAttr("pack", int64_t(2));
  Block &body = op->addRegion().block();
  std::vector<Value *> args;
  for (DType t : {f32, i32})
    for (unsigned j = 0; j < argsPerOperand; ++j)
      args.push_back(body.addArgument(Type(t)));
  Builder inner(body);
  std::vector<Value *> yielded;
  if (argsPerOperand == 2) {
    yielded = {inner.binary(OpCode::Add, args[0], inner.cast(args[2], f32)),
               inner.binary(OpCode::Add, args[1], inner.cast(args[3], f32)),
               inner.cmp("lt", args[2], args[3]), inner.cmp("lt", args[2], args[3])};
    if (wrongType)
      yielded[1] = args[3];
  }
  inner.create(OpCode::Yield, yielded, {});
  b.create(OpCode::Return, {}, {});
  return f;
}
} // namespace

TEST_CASE("map_elementwise: pack scalars of each operand in, pack of each result out",
          "[verifier]") {
  CHECK(verify(*makeMap()).empty());
  CHECK(verify(*makeMap(1)).find("the region needs 4 arguments") != std::string::npos);
  CHECK(verify(*makeMap(2, true)).find("yielded value 1 is not a scalar of its result's type") !=
        std::string::npos);
  std::string text = print(*makeMap());
  INFO(text);
  CHECK(text.find("map_elementwise %1, %3 {pack = 2} : tensor<64xf32>, tensor<64xi1>") !=
        std::string::npos);
}
