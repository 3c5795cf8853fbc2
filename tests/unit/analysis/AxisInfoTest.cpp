#include "analysis/AxisInfo.h"

#include "../codegen/TestKernels.h"

#include <catch2/catch.hpp>

using namespace tilec;
using namespace tilec::testkernels;

namespace {
/// The pointer operand of the first op with `code` in `f`.
const tir::Operation *firstOp(tir::Function &f, tir::OpCode code) {
  const tir::Operation *found = nullptr;
  tir::walk(f, [&](tir::Operation &op) {
    if (!found && op.code() == code)
      found = &op;
  });
  return found;
}
} // namespace

TEST_CASE("add_kernel offsets are contiguous and pointers 16-byte aligned", "[axisinfo]") {
  tir::Module m;
  tir::Function *f = addKernel(m, 1024, 16);
  analysis::AxisInfoAnalysis axis(*f);
  const tir::Operation *load = firstOp(*f, tir::OpCode::Load);
  analysis::AxisInfo ptr = axis.info(load->operand(0));
  CHECK(ptr.contiguity[0] == 1024);
  CHECK(ptr.divisibility[0] == 16);
  CHECK(ptr.constancy[0] == 1);
  CHECK(axis.vectorWidth(load->operand(0), 0) == 4);
  // n has no divisibility: the mask can change at any element.
  CHECK(axis.maskConstancy(load->operand(1), 0) == 1);
}

TEST_CASE("alignment and divisibility bound the vector width", "[axisinfo]") {
  tir::Module m;
  tir::Function *unaligned = addKernel(m, 1024, 0);
  analysis::AxisInfoAnalysis axis(*unaligned);
  const tir::Operation *load = firstOp(*unaligned, tir::OpCode::Load);
  CHECK(axis.vectorWidth(load->operand(0), 0) == 1);

  tir::Function *aligned8 = addKernel(m, 1024, 8, 16);
  analysis::AxisInfoAnalysis axis8(*aligned8);
  load = firstOp(*aligned8, tir::OpCode::Load);
  CHECK(axis8.vectorWidth(load->operand(0), 0) == 2);
  // offs < n with n % 16 == 0 and offs runs of 1024 from multiples of 1024: runs of 16 agree.
  CHECK(axis8.maskConstancy(load->operand(1), 0) == 16);
}

TEST_CASE("2-D pointers: contiguous along columns, constant rows broadcast", "[axisinfo]") {
  tir::Module m;
  tir::Function *f = scale2dKernel(m, 32, 64);
  analysis::AxisInfoAnalysis axis(*f);
  const tir::Operation *load = firstOp(*f, tir::OpCode::Load);
  analysis::AxisInfo ptr = axis.info(load->operand(0));
  CHECK(ptr.contiguity[1] == 64);
  CHECK(ptr.contiguity[0] == 1);
  CHECK(ptr.divisibility[1] == 16);
  CHECK(axis.contiguityOrder(load->operand(0)) == std::vector<unsigned>{1, 0});
  CHECK(axis.vectorWidth(load->operand(0), 1) == 4);
  // The mask is constant along rows in runs of 16 (N % 16 == 0), and unknown along columns...
  CHECK(axis.maskConstancy(load->operand(1), 1) == 16);
}

TEST_CASE("constants, multiplication and expand_dims", "[axisinfo]") {
  tir::Module m;
  tir::Function *f = m.addFunction("k", SourceLoc{});
  tir::Builder b(f->body());
  tir::Value *c = b.intConstant(48, i32());
  tir::Value *range = b.makeRange(0, 64);
  tir::Value *scaled = b.binary(tir::OpCode::Mul, range, b.splat(c, {64}));
  tir::Value *expanded = b.expandDims(scaled, 1);
  tir::Value *rem = b.binary(tir::OpCode::Rem, range, b.intConstant(8, tir::Type(i32(), {64})));
  tir::Value *div = b.binary(tir::OpCode::Div, range, b.intConstant(8, tir::Type(i32(), {64})));
  b.create(tir::OpCode::Return, {}, {});
  analysis::AxisInfoAnalysis axis(*f);
  CHECK(axis.info(c).divisibility[0] == 16);
  CHECK(axis.info(c).constant == 48);
  CHECK(axis.info(range).contiguity[0] == 64);
  CHECK(axis.info(scaled).contiguity[0] == 1);
  CHECK(axis.info(scaled).divisibility[0] == 16);
  CHECK(axis.info(expanded).divisibility == std::vector<int64_t>{16, 16});
  CHECK(axis.info(rem).contiguity[0] == 8);
  CHECK(axis.info(div).constancy[0] == 8);
}

TEST_CASE("loop-carried pointers keep what every iteration preserves", "[axisinfo]") {
  tir::Module m;
  tir::Function *f = loopKernel(m, 256);
  analysis::AxisInfoAnalysis axis(*f);
  const tir::Operation *load = firstOp(*f, tir::OpCode::Load);
  analysis::AxisInfo ptr = axis.info(load->operand(0));
  // ptrs start 16-byte aligned and advance by 256 floats: still aligned, still contiguous.
  CHECK(ptr.contiguity[0] == 256);
  CHECK(ptr.divisibility[0] == 16);
  CHECK(axis.vectorWidth(load->operand(0), 0) == 4);
}

TEST_CASE("division by a power of two that divides the dividend's divisibility", "[axisinfo]") {
  // Group norm's channels = C // GROUPS with C divisible by 16: C // 8 is exact and even.
  tir::Module m;
  tir::Function *f = m.addFunction("k", SourceLoc{});
  tir::Builder b(f->body());
  tir::Value *c = b.intConstant(48, i32());
  tir::Value *byEight = b.binary(tir::OpCode::Div, c, b.intConstant(8, i32()));
  tir::Value *range = b.makeRange(0, 64);
  tir::Value *scaled = b.binary(tir::OpCode::Mul, range, b.intConstant(32, tir::Type(i32(), {64})));
  tir::Value *scaledByFour =
      b.binary(tir::OpCode::Div, scaled, b.intConstant(4, tir::Type(i32(), {64})));
  tir::Value *scaledByThree =
      b.binary(tir::OpCode::Div, scaled, b.intConstant(3, tir::Type(i32(), {64})));
  tir::Value *scaledBy64 =
      b.binary(tir::OpCode::Div, scaled, b.intConstant(64, tir::Type(i32(), {64})));
  tir::Value *rangeByTwo =
      b.binary(tir::OpCode::Div, range, b.intConstant(2, tir::Type(i32(), {64})));
  b.create(tir::OpCode::Return, {}, {});
  analysis::AxisInfoAnalysis axis(*f);
  CHECK(axis.info(byEight).constant == 6); // folded
  CHECK(axis.info(scaled).divisibility[0] == 32);
  CHECK(axis.info(scaledByFour).divisibility[0] == 8);
  // 3 is not a power of two, and 64 does not divide 32: nothing is known.
  CHECK(axis.info(scaledByThree).divisibility[0] == 1);
  CHECK(axis.info(scaledBy64).divisibility[0] == 1);
  // The range is contiguous: its divisibility speaks of the first element of each run only.
  CHECK(axis.info(rangeByTwo).divisibility[0] == 1);
}

TEST_CASE("negation keeps divisibility and constancy, as Triton's 0 - x", "[axisinfo]") {
  // `ptrs -= K * V` adds the negated step: the pointers stay as aligned as they started.
  tir::Module m;
  tir::Function *f = m.addFunction("k", SourceLoc{});
  tir::Builder b(f->body());
  tir::Value *step = b.intConstant(4096, i32());
  tir::Value *negStep = b.create(tir::OpCode::Neg, {step}, {i32()})->result();
  tir::Value *range = b.makeRange(0, 64);
  tir::Value *scaled = b.binary(tir::OpCode::Mul, range, b.intConstant(32, tir::Type(i32(), {64})));
  tir::Value *negScaled = b.create(tir::OpCode::Neg, {scaled}, {tir::Type(i32(), {64})})->result();
  tir::Value *negRange = b.create(tir::OpCode::Neg, {range}, {tir::Type(i32(), {64})})->result();
  b.create(tir::OpCode::Return, {}, {});
  analysis::AxisInfoAnalysis axis(*f);
  CHECK(axis.info(negStep).constant == -4096);
  CHECK(axis.info(negStep).divisibility[0] == 4096);
  CHECK(axis.info(negScaled).divisibility[0] == 32);
  CHECK(axis.info(negScaled).contiguity[0] == 1);
  // 0, -1, -2, ...: not contiguous (Triton's subtraction keeps no contiguity from its rhs).
  CHECK(axis.info(negRange).contiguity[0] == 1);
  CHECK(axis.info(negRange).divisibility[0] == axis.info(range).divisibility[0]);
}
