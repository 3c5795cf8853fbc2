// Types of the block-level IR (TIR).
//
// A value is a scalar or a tensor: `tensor<128x64xf16>`. Its element type is a scalar dtype or a
// pointer to one (`!ptr<f32>`). After the GPU layout passes, every tensor type also carries a
// layout that says which thread holds which element (see gpu/Layout.h); before them it has none.
// Types are small values: copy them freely and compare them with ==.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tilec::gpu {
struct Layout;
}

namespace tilec::tir {

/// Scalar dtypes, named as Triton names them. F8E4B15 is Triton's fp8e4b15 (e4m3 with exponent
/// bias 15, no NaN or infinity), which Triton's MLIR holds as an i8 that only loads, stores, moves
/// and converts: the IR keeps it as opaque (neither float nor integer), and sema spells its
/// conversions to and from fp16/fp32 as integer operations on its bits (sema/Fp8E4B15.cpp).
// clang-format off
enum class ScalarKind : uint8_t {
  I1, I8, I16, I32, I64,
  U8, U16, U32, U64,
  F8E4M3, F8E5M2, F16, BF16, F32, F64,
  Ptr,     // a pointer; its pointee is DType::pointee
  F8E4B15, // fp8e4b15, a byte that only moves and converts
};
// clang-format on

/// An element type: a scalar, or a pointer to a scalar (pointer-to-pointer is not supported).
struct DType {
  ScalarKind kind = ScalarKind::I32;
  ScalarKind pointee = ScalarKind::I32; // meaningful only when kind == Ptr

  static DType scalar(ScalarKind k) { return DType{k, ScalarKind::I32}; }
  static DType pointer(ScalarKind to) { return DType{ScalarKind::Ptr, to}; }

  bool isPointer() const { return kind == ScalarKind::Ptr; }
  bool isBool() const { return kind == ScalarKind::I1; }
  bool isInteger() const; // signed, unsigned or bool
  bool isSigned() const;  // signed integer (bool is not)
  bool isUnsigned() const;
  bool isFloat() const;
  /// fp8 (e4m3fn or e5m2): stored as a byte, computed on through conversions.
  bool isFp8() const { return kind == ScalarKind::F8E4M3 || kind == ScalarKind::F8E5M2; }
  /// fp8e4b15: a byte that only moves; no arithmetic, comparison or conversion op takes it.
  bool isFp8E4B15() const { return kind == ScalarKind::F8E4B15; }
  /// Width in bits of one element (pointers are 64, bool is 1 here; 8 in memory).
  unsigned bits() const;
  /// Bytes one element occupies in memory (bool: 1).
  unsigned bytes() const;
  DType pointeeType() const { return scalar(pointee); }

  /// Triton's name: "int32", "fp16", "pointer<fp32>"...
  std::string tritonName() const;
  /// The IR's short name: "i32", "f16", "!ptr<f32>"...
  std::string str() const;

  bool operator==(const DType &o) const {
    return kind == o.kind && (kind != ScalarKind::Ptr || pointee == o.pointee);
  }
  bool operator!=(const DType &o) const { return !(*this == o); }
};

/// Parses a Triton dtype name ("fp32", "float32", "int8", "bf16", "i32" ...). False when unknown.
bool parseDType(const std::string &name, ScalarKind &out);

/// A scalar (empty shape) or a tensor, with an optional layout.
struct Type {
  DType elem;
  std::vector<int64_t> shape;                // empty for a scalar
  std::shared_ptr<const gpu::Layout> layout; // null until the layout passes run

  Type() = default;
  Type(DType elem) : elem(elem) {}
  Type(DType elem, std::vector<int64_t> shape) : elem(elem), shape(std::move(shape)) {}

  bool isScalar() const { return shape.empty(); }
  bool isTensor() const { return !shape.empty(); }
  unsigned rank() const { return static_cast<unsigned>(shape.size()); }
  int64_t numElements() const;

  /// Same shape and layout, another element type.
  Type withElem(DType e) const;
  /// Same element type, another shape, no layout.
  Type withShape(std::vector<int64_t> s) const;
  Type withLayout(std::shared_ptr<const gpu::Layout> l) const;

  /// "f32", "tensor<1024xf32>", "tensor<64x64x!ptr<f16>, #blocked<...>>".
  std::string str() const;

  /// Equality includes the layout (layouts compare structurally).
  bool operator==(const Type &o) const;
  bool operator!=(const Type &o) const { return !(*this == o); }
  bool sameShapeAndElem(const Type &o) const { return elem == o.elem && shape == o.shape; }
};

} // namespace tilec::tir
