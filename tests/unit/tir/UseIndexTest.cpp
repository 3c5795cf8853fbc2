// tir::UseIndex (the users of each value, for passes that replace many values' uses) and
// Block::find (an op's position, kept by insert and remove).
#include "tir/UseIndex.h"

#include "tir/Builder.h"

#include <catch2/catch.hpp>

using namespace tilec::tir;

namespace {
const Type i32{DType::scalar(ScalarKind::I32)};
} // namespace

TEST_CASE("UseIndex replaces every use, nested regions and repeated operands included",
          "[tir][uses]") {
  Function f("k", tilec::SourceLoc{});
  Builder b(f.body());
  Value *one = b.intConstant(1, i32);
  Value *two = b.intConstant(2, i32);
  Value *square = b.binary(OpCode::Mul, one, one);
  Operation *loop = b.create(OpCode::For, {b.intConstant(0, i32), two, one, square}, {i32});
  Block &body = loop->addRegion().block();
  body.addArgument(i32);
  Value *carried = body.addArgument(i32);
  Builder inner(body);
  Value *next = inner.binary(OpCode::Add, carried, one);
  inner.create(OpCode::Yield, {next}, {});
  b.create(OpCode::Return, {}, {});

  UseIndex uses(f.body());
  uses.replaceAllUses(one, two, square->definingOp());
  // Kept where excepted, replaced elsewhere (the loop's step, the add in its body).
  CHECK(square->definingOp()->operand(0) == one);
  CHECK(square->definingOp()->operand(1) == one);
  CHECK(loop->operand(2) == two);
  CHECK(next->definingOp()->operand(1) == two);

  // The excepted op still uses `one`; a later replacement reaches it, and the users `two`
  // gained reach `three`.
  Value *three = b.intConstant(3, i32);
  uses.replaceAllUses(one, three);
  CHECK(square->definingOp()->operand(0) == three);
  CHECK(square->definingOp()->operand(1) == three);
  Value *four = b.intConstant(4, i32);
  uses.replaceAllUses(two, four);
  CHECK(loop->operand(1) == four);
  CHECK(loop->operand(2) == four);
  CHECK(next->definingOp()->operand(1) == four);
}

TEST_CASE("UseIndex follows the operands set and the ops added through it", "[tir][uses]") {
  Function f("k", tilec::SourceLoc{});
  Builder b(f.body());
  Value *x = b.intConstant(1, i32);
  Value *y = b.intConstant(2, i32);
  Value *sum = b.binary(OpCode::Add, x, x);
  UseIndex uses(f.body());

  uses.setOperand(*sum->definingOp(), 1, y);
  Value *product = b.binary(OpCode::Mul, y, sum);
  uses.addUser(*product->definingOp());
  Value *z = b.intConstant(3, i32);
  uses.replaceAllUses(y, z);
  CHECK(sum->definingOp()->operand(0) == x);
  CHECK(sum->definingOp()->operand(1) == z);
  CHECK(product->definingOp()->operand(0) == z);
  // Still listed under x after its second operand changed, sum is left alone where it no
  // longer uses it.
  uses.replaceAllUses(x, y);
  CHECK(sum->definingOp()->operand(0) == y);
  CHECK(sum->definingOp()->operand(1) == z);
}

TEST_CASE("Block::find gives an op's position, and end() for an op elsewhere", "[tir]") {
  Function f("k", tilec::SourceLoc{});
  Builder b(f.body());
  Value *x = b.intConstant(1, i32);
  Value *y = b.intConstant(2, i32);
  Block &body = f.body();
  CHECK(body.find(x->definingOp())->get() == x->definingOp());
  CHECK(std::next(body.find(x->definingOp()))->get() == y->definingOp());

  Function other("other", tilec::SourceLoc{});
  std::unique_ptr<Operation> moved = body.remove(x->definingOp());
  CHECK(body.find(moved.get()) == body.ops().end());
  CHECK(body.remove(moved.get()) == nullptr);
  Operation *placed = other.body().insert(other.body().ops().end(), std::move(moved));
  CHECK(other.body().find(placed)->get() == placed);
  CHECK(body.find(placed) == body.ops().end());
  CHECK(body.find(y->definingOp()) == body.ops().begin());
}
