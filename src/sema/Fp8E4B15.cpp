// Conversions to and from fp8e4b15 (tl.float8e4b15), as Triton 3.6's NVIDIA backend makes them.
//
// fp8e4b15 is e4m3 with an exponent bias of 15 (fp16's), no infinity and no NaN. Triton's MLIR
// has no such float type: the value is an i8, and semantic.cast hands every conversion that
// involves it to the backend's `convert_custom_types` (third_party/nvidia/language/cuda/utils.py,
// convert_custom_float8_sm80 from sm_80 on), which is inline PTX on the bits:
//  - to fp16: the sign moves to bit 15 and the other seven bits to bits 13..7. The exponents
//    have the same bias, so every code, subnormals included, is exact in fp16; 0x7f and 0xff are
//    +-1.875, not NaN. To fp32 it then extends that fp16 exactly. For any other destination the
//    result stays fp16 (convert_custom_float8 returns the fp16 value whatever dst_ty says).
//  - from fp16: the magnitude bits are clamped with min.f16x2 to 1.75 (0x3f00; min returns the
//    non-NaN operand, so infinities and NaN give 1.75 too), doubled, 0x80 added and the high
//    byte kept (round half away from zero), and the sign put back. From fp32 it first rounds to
//    fp16 toward zero (cvt.rz.f16.f32); fp_downcast_rounding is ignored. Only fp16 and fp32
//    convert to it (convert_custom_float8 asserts so).
//
// Both are written here as integer operations on the bits, which every backend already has and
// computes exactly: positive fp16 bit patterns order as their values and every NaN or infinity
// pattern is above 0x3f00, so the clamp is an unsigned integer minimum.
#include "sema/Specializer.h"

namespace tilec::sema {

using tir::DType;
using tir::OpCode;
using tir::ScalarKind;
using tir::Type;

namespace {

/// A constant of `type`'s element type, splat to its shape.
tir::Value *constantLike(tir::Builder &b, int64_t value, const Type &type) {
  tir::Value *scalar = b.intConstant(value, Type(type.elem));
  return type.isTensor() ? b.splat(scalar, type.shape) : scalar;
}

tir::Value *bitcastTo(tir::Builder &b, tir::Value *v, ScalarKind to) {
  return b.createValue(OpCode::Bitcast, {v}, v->type().withElem(DType::scalar(to)));
}

} // namespace

tir::Value *Specializer::convertFromFp8E4B15(tir::Value *v, DType to) {
  tir::Builder &b = builder_;
  const DType u16 = DType::scalar(ScalarKind::U16);
  tir::Value *code = b.cast(bitcastTo(b, v, ScalarKind::U8), u16);
  Type t = code->type();
  tir::Value *magnitude = b.binary(OpCode::Shl, b.binary(OpCode::And, code, constantLike(b, 0x7f, t)),
                                   constantLike(b, 7, t));
  tir::Value *sign = b.binary(OpCode::Shl, b.binary(OpCode::And, code, constantLike(b, 0x80, t)),
                              constantLike(b, 8, t));
  tir::Value *half = bitcastTo(b, b.binary(OpCode::Or, magnitude, sign), ScalarKind::F16);
  if (to.kind == ScalarKind::F32)
    return b.cast(half, to);
  return half;
}

tir::Value *Specializer::convertToFp8E4B15(tir::Value *v, SourceLoc loc) {
  tir::Builder &b = builder_;
  const DType from = v->type().elem;
  if (from.kind == ScalarKind::F32) {
    v = b.createValue(OpCode::Cast, {v}, v->type().withElem(DType::scalar(ScalarKind::F16)));
    v->definingOp()->setAttr("rounding", std::string("rtz"));
  } else if (from.kind != ScalarKind::F16) {
    error(loc, "cannot convert " + from.tritonName() +
                   " to fp8e4b15: Triton's NVIDIA backend converts only fp16 and fp32 to it "
                   "(convert_custom_float8 asserts); convert to tl.float16 first");
  }
  tir::Value *bits = bitcastTo(b, v, ScalarKind::U16);
  Type t = bits->type();
  tir::Value *sign = b.binary(OpCode::And, bits, constantLike(b, 0x8000, t));
  tir::Value *magnitude = b.binary(OpCode::And, bits, constantLike(b, 0x7fff, t));
  magnitude = b.binary(OpCode::Minimum, magnitude, constantLike(b, 0x3f00, t));
  tir::Value *doubled = b.binary(OpCode::Shl, magnitude, constantLike(b, 1, t));
  tir::Value *rounded = b.binary(OpCode::Shr, b.binary(OpCode::Add, doubled, constantLike(b, 0x80, t)),
                                 constantLike(b, 8, t));
  tir::Value *code = b.binary(OpCode::Or, rounded, b.binary(OpCode::Shr, sign, constantLike(b, 8, t)));
  return bitcastTo(b, b.cast(code, DType::scalar(ScalarKind::U8)), ScalarKind::F8E4B15);
}

SemaValue Specializer::fp8E4B15Number(const SemaValue &number, SourceLoc loc) {
  // Triton's scalar_constant makes a number of an fp8 type with get_fp32 and arith.truncf to
  // the type's MLIR type, which for fp8e4b15 is an i8: MLIR's verifier refuses that truncf. Only
  // a number equal to 0 (0.0 and -0.0 too) becomes the type's null value, the bits 0x00.
  if (!number.isConstexprNumber())
    return number;
  if (number.numberAsFloat() == 0.0)
    return SemaValue::ofFloat(0.0);
  error(loc, "Triton cannot make the fp8e4b15 constant " + pythonRepr(number, loc) +
                 ": its scalar_constant truncates the number to fp8e4b15's MLIR type, an i8, "
                 "with arith.truncf, which MLIR refuses (only 0 works); convert the tensor "
                 "(.to(tl.float16)) or the number (tl.full([], " +
                 pythonRepr(number, loc) + ", tl.float16).to(tl.float8e4b15)) first");
}

} // namespace tilec::sema
