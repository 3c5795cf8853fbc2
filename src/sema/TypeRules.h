// Triton's type promotion rules (python/triton/language/semantic.py), written once for sema.
#pragma once

#include "tir/Types.h"

#include <optional>
#include <string>

namespace tilec::sema {

/// The dtype a Python literal takes when it meets a tensor: int -> int32 when it fits, else
/// int64, else uint64; float -> fp32; bool -> int1.
tir::DType literalIntType(int64_t value, bool isUnsignedHuge = false);

/// Integer promotion of two integer dtypes: the wider wins; between signed and unsigned of the
/// same width, unsigned wins.
tir::DType integerPromote(tir::DType a, tir::DType b);

/// The error for arithmetic or a comparison on fp8e4b15, which Triton only moves and converts.
std::string fp8E4B15ArithmeticError();

/// The type both operands of an arithmetic operator are converted to. `aIsLiteral` says operand a
/// is a Python number (a constexpr), which does not take part in promotion unless it is of a
/// higher kind (bool < uint < int < float) than the tensor. `divOrMod` is true for / // %.
/// Returns nullopt with `error` set when the combination is invalid.
std::optional<tir::DType> computationType(tir::DType a, bool aIsLiteral, tir::DType b,
                                          bool bIsLiteral, bool divOrMod, std::string &error);

} // namespace tilec::sema
