// The interpreter's run-time values (internal to src/interp).
//
// A Tensor is a scalar (empty shape, one lane) or a dense row-major tensor. Its lanes have one of
// four C++ types chosen by the element dtype, so that every operation switches on the dtype once
// and then runs a tight loop:
//   integers and bool      int64_t, canonical (sign- or zero-extended; bool 0/1)
//   fp8, fp16, bf16, fp32  float, holding a value already rounded to the dtype
//   fp64                   double
//   pointers               PtrLane: a buffer number and a byte offset into that buffer
#pragma once

#include "tir/IR.h"
#include "tir/Libdevice.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tilec::interp {

enum class LaneKind : uint8_t { Int, Float, Double, Ptr };

/// A pointer: which buffer it was derived from, and the byte offset from that buffer's start.
/// Keeping the provenance lets an out-of-bounds access name the buffer and index it overshot.
struct PtrLane {
  int64_t byteOffset;
  /// Index into the interpreter's buffer table, or kNoBuffer for a pointer made from an integer
  /// that points into no buffer.
  int32_t buffer;
};
constexpr int32_t kNoBuffer = -1;

inline LaneKind laneKindOf(tir::DType dtype) {
  if (dtype.isPointer())
    return LaneKind::Ptr;
  if (dtype.kind == tir::ScalarKind::F64)
    return LaneKind::Double;
  if (dtype.isFloat())
    return LaneKind::Float;
  return LaneKind::Int;
}

inline size_t laneBytes(LaneKind kind) {
  switch (kind) {
  case LaneKind::Int:
  case LaneKind::Double:
    return 8;
  case LaneKind::Float:
    return 4;
  case LaneKind::Ptr:
    return sizeof(PtrLane);
  }
  return 8;
}

class Tensor {
public:
  Tensor() = default;
  Tensor(const Tensor &other) { copyFrom(other); }
  Tensor &operator=(const Tensor &other) {
    if (this != &other)
      copyFrom(other);
    return *this;
  }
  Tensor(Tensor &&) = default;
  Tensor &operator=(Tensor &&) = default;

  /// Gives this tensor `type`'s dtype and shape, keeping its storage when it is large enough.
  /// The lanes are left uninitialised.
  void reset(tir::DType dtype, const std::vector<int64_t> &shape) {
    dtype_ = dtype;
    kind_ = laneKindOf(dtype);
    if (shape_ != shape)
      shape_ = shape;
    numElements_ = 1;
    for (int64_t d : shape)
      numElements_ *= d;
    size_t bytes = static_cast<size_t>(numElements_) * laneBytes(kind_);
    if (bytes > capacityBytes_) {
      // 8-byte words keep every lane type aligned.
      storage_.reset(new uint64_t[(bytes + 7) / 8]);
      capacityBytes_ = bytes;
    }
  }
  void reset(const tir::Type &type) { reset(type.elem, type.shape); }

  void copyFrom(const Tensor &other) {
    reset(other.dtype_, other.shape_);
    if (numElements_ != 0)
      std::memcpy(storage_.get(), other.storage_.get(),
                  static_cast<size_t>(numElements_) * laneBytes(kind_));
  }

  tir::DType dtype() const { return dtype_; }
  LaneKind laneKind() const { return kind_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  unsigned rank() const { return static_cast<unsigned>(shape_.size()); }
  int64_t numElements() const { return numElements_; }
  bool isScalar() const { return shape_.empty(); }

  template <typename T> T *lanes() { return reinterpret_cast<T *>(storage_.get()); }
  template <typename T> const T *lanes() const {
    return reinterpret_cast<const T *>(storage_.get());
  }

  /// Changes the shape without touching the lanes (expand_dims); the element count must match.
  void setShape(const std::vector<int64_t> &shape) { shape_ = shape; }

private:
  tir::DType dtype_;
  LaneKind kind_ = LaneKind::Int;
  std::vector<int64_t> shape_;
  int64_t numElements_ = 0;
  std::unique_ptr<uint64_t[]> storage_;
  size_t capacityBytes_ = 0;
};

/// Calls `fn` with a value of the lane type of `kind` (int64_t, float, double or PtrLane), so that
/// generic code can be written once: `visitLaneType(k, [&](auto tag) { using T = decltype(tag);
/// })`.
template <typename Fn> decltype(auto) visitLaneType(LaneKind kind, Fn &&fn) {
  switch (kind) {
  case LaneKind::Int:
    return fn(int64_t{});
  case LaneKind::Float:
    return fn(float{});
  case LaneKind::Double:
    return fn(double{});
  case LaneKind::Ptr:
    break;
  }
  return fn(PtrLane{});
}

/// Formats lane `index` of a tensor of `shape` as a multi-index: "(3)", "(1, 5)", "()".
std::string formatIndex(const std::vector<int64_t> &shape, int64_t index);

/// Reports an error of the operation being run, with its location and the program id: the
/// interpreter keeps `currentOp_` and `programId_` up to date as it runs.
class ErrorReporter {
public:
  [[noreturn]] void fail(const std::string &message) const;

protected:
  explicit ErrorReporter(SourceLoc fallbackLoc) : fallbackLoc_(fallbackLoc) {}

  const tir::Operation *currentOp_ = nullptr;
  unsigned programId_[3] = {0, 0, 0};
  SourceLoc fallbackLoc_;
};

//===----------------------------------------------------------------------===//
// Operation kernels (Elementwise.cpp, Reductions.cpp). Operands have the result's element count.
//===----------------------------------------------------------------------===//

/// add sub mul div rem and or xor shl shr maximum minimum on numbers of one dtype.
void evalBinary(tir::OpCode code, const Tensor &lhs, const Tensor &rhs, Tensor &out,
                const ErrorReporter &errors);

/// maximum/minimum with propagate_nan=ALL on floats: a NaN operand gives the canonical NaN (as
/// PTX max.NaN / min.NaN on sm_80+: 0x7fffffff for fp32, 0x7fff for fp16/bf16; fp64, which LLVM
/// expands, 0x7ff8000000000000); otherwise as `maximum`/`minimum`.
/// tl.clamp(x, -limit, limit) as Triton lowers it from sm_90 (min.xorsign.abs): min(|x|, |limit|)
/// with the sign of x xor that of limit; a NaN operand gives the other's magnitude (that sign), or
/// the canonical NaN with `propagateNan`. fp32 and fp16 lanes.
void evalClip(const Tensor &x, const Tensor &limit, Tensor &out, bool propagateNan);
void evalMaxMinPropagatingNan(tir::OpCode code, const Tensor &lhs, const Tensor &rhs, Tensor &out,
                              const ErrorReporter &errors);

enum class CmpPredicate : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };
bool parseCmpPredicate(const std::string &text, CmpPredicate &out);
/// `out` must already have the i1 result type. Pointers compare by their address.
void evalCmp(CmpPredicate predicate, const Tensor &lhs, const Tensor &rhs, Tensor &out,
             const ErrorReporter &errors);

/// neg not abs exp exp2 log log2 sqrt rsqrt sin cos floor ceil erf.
/// `approxSqrt`: a Sqrt is tl.sqrt's sqrt.approx.ftz, which flushes an fp32 denormal input to
/// zero (tl.sqrt_rn's IEEE one keeps it).
void evalUnary(tir::OpCode code, const Tensor &operand, Tensor &out, const ErrorReporter &errors,
               bool approxSqrt = false);
void evalFma(const Tensor &a, const Tensor &b, const Tensor &c, Tensor &out,
             const ErrorReporter &errors);
/// A row of a libdevice extern_elementwise table (tir::LibdeviceOverload), ready to run on
/// operands of the row's types (LibdeviceExtern.cpp). Throws std::logic_error for a symbol the
/// interpreter does not implement.
std::function<void(const std::vector<const Tensor *> &, Tensor &)>
compileLibdeviceExtern(const tir::LibdeviceOverload &fn);
/// A libdevice function (tir/Libdevice.h) on fp32 or fp64 operands, with the C library.
void evalLibdevice(const tir::LibdeviceFunction &fn, const std::vector<const Tensor *> &operands,
                   Tensor &out, const ErrorReporter &errors);
/// `cond` may have one lane, which then selects for every lane.
void evalSelect(const Tensor &cond, const Tensor &ifTrue, const Tensor &ifFalse, Tensor &out);

/// Numeric conversion between non-pointer dtypes; `out` already has the result type.
void evalCast(const Tensor &in, Tensor &out);
/// fp32 to fp16 or bf16 rounding toward zero (cvt.rz.f16.f32 / cvt.rz.bf16.f32); fp32 or fp16
/// to fp8e5m2 the same way: fp16 toward zero, then its high byte.
void evalCastTowardZero(const Tensor &in, Tensor &out);
/// Reinterprets the bits of non-pointer dtypes of the same width.
void evalBitcast(const Tensor &in, Tensor &out, const ErrorReporter &errors);

/// An inclusive running sum or product along `axis` (from the end when `reverse`); `out` has the
/// operand's type. Integers wrap at their width, fp16/bf16 round after each step.
void evalScan(bool product, bool reverse, int64_t axis, const Tensor &in, Tensor &out,
              const ErrorReporter &errors);

enum class ReduceKind : uint8_t { Sum, Max, Min, Xor, ArgMax, ArgMin, Combine };
bool parseReduceKind(const std::string &text, ReduceKind &out);
/// Reduces `in` along `axis` into `out` (which already has the result type: `in`'s shape without
/// the axis). Sum/Max/Min produce values, ArgMax/ArgMin i32 indices.
void evalReduce(ReduceKind kind, int64_t axis, const Tensor &in, Tensor &out,
                const ErrorReporter &errors);

/// Permutes the dimensions of `in` into `out` (which already has the result type): result
/// dimension i is input dimension order[i].
void evalTrans(const Tensor &in, const std::vector<int64_t> &order, Tensor &out);

enum class DotPrecision : uint8_t { IEEE, TF32 };
bool parseDotPrecision(const std::string &text, DotPrecision &out);
/// Rounds an fp32 value to tf32 (10-bit mantissa), to nearest with ties away from zero.
float roundToTF32(float v);
/// out = acc + a @ b for a [M,K], b [K,N], acc and out [M,N] (Matrix.cpp says how it rounds).
void evalDot(const Tensor &a, const Tensor &b, const Tensor &acc, DotPrecision precision,
             Tensor &out, const ErrorReporter &errors);

/// Broadcasts `in` (same rank as `shape`, size-1 dims grow; or a scalar) into `out`.
void broadcastInto(const Tensor &in, const std::vector<int64_t> &shape, tir::DType dtype,
                   Tensor &out);

} // namespace tilec::interp
