#include "sema/TypeRules.h"

#include <limits>

namespace tilec::sema {

using tir::DType;
using tir::ScalarKind;

DType literalIntType(int64_t value, bool isUnsignedHuge) {
  if (isUnsignedHuge)
    return DType::scalar(ScalarKind::U64);
  if (value >= std::numeric_limits<int32_t>::min() && value <= std::numeric_limits<int32_t>::max())
    return DType::scalar(ScalarKind::I32);
  // As Triton's to_tensor: [2^31, 2^32) is uint32 (0x9E3779B9 keeps a uint32 tensor uint32).
  if (value >= 0 && value <= std::numeric_limits<uint32_t>::max())
    return DType::scalar(ScalarKind::U32);
  return DType::scalar(ScalarKind::I64);
}

namespace {
// Triton's dtype "kinds", in promotion order: bool < integer (signed or not) < floating point.
int kindRank(DType t) {
  if (t.isBool())
    return 0;
  if (t.isInteger())
    return 1;
  return 2;
}
} // namespace

DType integerPromote(DType a, DType b) {
  if (a.isBool() && b.isBool())
    return a;
  // bool promotes like an unsigned int of one bit
  bool aSigned = a.isSigned(), bSigned = b.isSigned();
  if (aSigned == bSigned)
    return a.bits() >= b.bits() ? a : b;
  DType signedTy = aSigned ? a : b, unsignedTy = aSigned ? b : a;
  return unsignedTy.bits() >= signedTy.bits() ? unsignedTy : signedTy;
}

std::string fp8E4B15ArithmeticError() {
  return "arithmetic and comparisons on fp8e4b15 are not supported (Triton keeps fp8e4b15 as an "
         "i8 that its float operations refuse): convert it with .to(tl.float16) or "
         ".to(tl.float32) first";
}

std::optional<DType> computationType(DType a, bool aIsLiteral, DType b, bool bIsLiteral,
                                     bool divOrMod, std::string &error) {
  const DType f32 = DType::scalar(ScalarKind::F32);
  // A literal of a lower or equal kind than the tensor does not take part in promotion.
  if (aIsLiteral != bIsLiteral) {
    DType literal = aIsLiteral ? a : b, tensor = aIsLiteral ? b : a;
    if (kindRank(literal) <= kindRank(tensor)) {
      if (divOrMod && (tensor.kind == ScalarKind::F16 || tensor.kind == ScalarKind::BF16))
        return f32;
      return tensor;
    }
  }
  if (a.kind == ScalarKind::F64 || b.kind == ScalarKind::F64)
    return DType::scalar(ScalarKind::F64);
  if (a.kind == ScalarKind::F32 || b.kind == ScalarKind::F32)
    return f32;
  // As Triton's computation_type_impl: fp16 with anything narrower than fp32 (bf16 and integers
  // included) is fp16; bf16 is bf16 only with bf16, and fp32 with an integer or fp8.
  if (a.kind == ScalarKind::F16 || b.kind == ScalarKind::F16)
    return divOrMod ? f32 : DType::scalar(ScalarKind::F16);
  if (a.kind == ScalarKind::BF16 && b.kind == ScalarKind::BF16)
    return divOrMod ? f32 : DType::scalar(ScalarKind::BF16);
  if (a.kind == ScalarKind::BF16 || b.kind == ScalarKind::BF16)
    return f32;
  // Two fp8 operands (fp8e4b15 among them, Triton's is_fp8): the type itself when they are the
  // same (tl.where selects it; arithmetic on it is refused where it is made), else fp16, in
  // which both convert exactly (Triton's computation_type_impl, rule 5).
  auto anyFp8 = [](DType t) { return t.isFp8() || t.isFp8E4B15(); };
  if (anyFp8(a) && anyFp8(b))
    return a == b ? a : DType::scalar(ScalarKind::F16);
  // An fp8 with an integer: Triton's TypeError.
  if (anyFp8(a) || anyFp8(b)) {
    error = "unexpected type " + a.tritonName() + " and " + b.tritonName() +
            " (as in Triton): convert the fp8 value with .to(tl.float16) or .to(tl.float32)";
    return std::nullopt;
  }
  if (divOrMod && a.isSigned() != b.isSigned() && !a.isBool() && !b.isBool()) {
    error = "cannot use /, // or % with an unsigned and a signed integer (" + a.tritonName() +
            " and " + b.tritonName() + ")";
    return std::nullopt;
  }
  return integerPromote(a, b);
}

} // namespace tilec::sema
