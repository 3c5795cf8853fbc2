// Kernel signatures in the Triton AOT compiler's syntax: "*fp32:16,*fp32:16,i32,1024".
//
// One entry per kernel parameter, in order:
//   *fp16        a pointer to fp16
//   *fp16:16     ... that the caller promises is 16-byte aligned
//   i32, fp32    a run-time scalar of that type
//   i32:16       ... that the caller promises is divisible by 16
//   1024, 0.5, True, fp16
//                a literal: the parameter is bound at compile time (a constexpr)
//   tensordesc<fp16[64, 64]>
//                a host-side tensor descriptor (triton.tools.tensor_descriptor.TensorDescriptor)
//                of fp16 elements and block shape [64, 64], spelled as Triton's JIT prints it;
//                the kernel takes it as several parameters (docs/metadata.md)
//   (i32, *fp16:16, 1)
//                a tuple argument, with one entry of this syntax per element (tuples nest);
//                the kernel takes its run-time elements as parameters named `arg.0`, `arg.1`...
//                and its literal elements are bound at compile time, as Triton's JIT does
//   Tensor(*fp32:16, (16, 16), (16, 1))
//                a typing.NamedTuple argument: a tuple of class `Tensor`, a NamedTuple class of
//                the kernel's module (Triton's JIT keeps the class in its signature), whose
//                fields the kernel reads by name
#pragma once

#include "tir/Types.h"

#include <optional>
#include <string>
#include <vector>

namespace tilec::sema {

struct SignatureEntry {
  enum class Kind { Pointer, Scalar, Constant, TensorDesc, Tuple };
  Kind kind = Kind::Scalar;
  tir::DType type;          // Pointer: the pointer type; Scalar, TensorDesc: the element type
  std::vector<int64_t> blockShape; // TensorDesc: the block shape
  unsigned hint = 0;        // Pointer: alignment in bytes; Scalar: divisibility
  std::string constant;     // Constant: the literal as written
  std::string text;         // the entry as written, for messages
  std::vector<SignatureEntry> elements; // Tuple: one entry per element
  std::string className; // Tuple: the NamedTuple class written before its '(', or empty

  /// Whether the entry and every element in it are literals (a tuple of them is a constexpr).
  bool isConstant() const;
};

/// Parses a signature; on error returns nullopt and sets `error` to a message naming the entry.
std::optional<std::vector<SignatureEntry>> parseSignature(const std::string &text,
                                                          std::string &error);

/// The signature spelling of a type: "*fp32", "i32", "fp16".
std::string signatureTypeName(tir::DType type);

} // namespace tilec::sema
