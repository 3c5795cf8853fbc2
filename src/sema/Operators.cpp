// Python and Triton operators: constant folding on constexprs, Triton's promotion and
// broadcasting on run-time values.
#include "sema/Specializer.h"
#include "sema/TypeRules.h"

#include <cfloat>
#include <cmath>
#include <limits>
#include <optional>

namespace tilec::sema {

bool orderingHolds(ast::CompareOperator op, int threeWay) {
  switch (op) {
  case ast::CompareOperator::Lt:
    return threeWay < 0;
  case ast::CompareOperator::Le:
    return threeWay <= 0;
  case ast::CompareOperator::Gt:
    return threeWay > 0;
  case ast::CompareOperator::Ge:
    return threeWay >= 0;
  case ast::CompareOperator::Eq:
    return threeWay == 0;
  default:
    return threeWay != 0;
  }
}

using tir::DType;
using tir::OpCode;
using tir::ScalarKind;
using tir::Type;
using Kind = SemaValue::Kind;

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

/// The integer type of the same width and the other signedness (int8 <-> uint8, ...).
static DType withOtherSignedness(const DType &t) {
  switch (t.kind) {
  case ScalarKind::I8:
    return DType::scalar(ScalarKind::U8);
  case ScalarKind::I16:
    return DType::scalar(ScalarKind::U16);
  case ScalarKind::I32:
    return DType::scalar(ScalarKind::U32);
  case ScalarKind::I64:
    return DType::scalar(ScalarKind::U64);
  case ScalarKind::U8:
    return DType::scalar(ScalarKind::I8);
  case ScalarKind::U16:
    return DType::scalar(ScalarKind::I16);
  case ScalarKind::U32:
    return DType::scalar(ScalarKind::I32);
  case ScalarKind::U64:
    return DType::scalar(ScalarKind::I64);
  default:
    return t;
  }
}

/// Whether semantic.to_tensor makes the float `x` an fp32 (else fp64: a finite nonzero number
/// outside fp32's normal range).
static bool toTensorIsFp32(double x) {
  double magnitude = std::fabs(x);
  return std::isnan(x) || std::isinf(x) || magnitude == 0.0 ||
         (magnitude >= 0x1p-126 && magnitude <= static_cast<double>(FLT_MAX));
}

static DType literalType(const SemaValue &v) {
  switch (v.kind) {
  case Kind::Bool:
    return DType::scalar(ScalarKind::I1);
  case Kind::Float:
    return DType::scalar(ScalarKind::F32);
  default:
    // Beyond int64: uint64, where materialize refuses what does not fit it.
    return v.intIsWide ? DType::scalar(ScalarKind::U64) : literalIntType(v.intValue);
  }
}

tir::Value *Specializer::materialize(const SemaValue &v, SourceLoc loc, std::optional<DType> type) {
  if (v.isTensor())
    return type ? castTo(v.value, *type) : v.value;
  if (!v.isConstexprNumber()) {
    refuseUnknown(v, loc, "this value");
    error(loc, "expected a number or a tensor, got " + v.describe());
  }
  DType t = type ? *type : literalType(v);
  if (t.isPointer())
    error(loc, "cannot use " + v.describe() + " as a pointer");
  // A number for an fp8e4b15 operand (a load's `other`, a stored value) converts as Triton's
  // to_tensor and cast do: through an fp32 constant.
  if (t.isFp8E4B15())
    return castTo(materialize(v, loc, DType::scalar(ScalarKind::F32)), t);
  if (t.isFloat())
    return builder_.floatConstant(v.numberAsFloat(), Type(t));
  // A float beyond int64 (or NaN) has no integer value; converting it would be undefined.
  if (v.kind == Kind::Float && !t.isBool() &&
      !(std::fabs(v.floatValue) < 9223372036854775808.0))
    error(loc, "cannot convert " + v.describe() + " to " + t.str());
  // Triton's to_tensor takes integers up to 2^64 - 1 (as uint64) and refuses larger ones.
  if (v.kind == Kind::Int && v.intIsWide && !v.isUint64Int())
    error(loc, "the integer " + v.repr() + " does not fit 64 bits (Triton refuses it too)");
  if (v.kind == Kind::Int && v.intIsWide && t.isBool())
    return builder_.intConstant(1, Type(t));
  int64_t asInt = v.kind == Kind::Float && !t.isBool()
                      ? static_cast<int64_t>(std::trunc(v.floatValue))
                  : v.kind == Kind::Bool ? (v.boolValue ? 1 : 0)
                                         : v.intValue;
  if (t.isBool())
    asInt = asInt != 0 || (v.kind == Kind::Float && v.floatValue != 0.0);
  return builder_.intConstant(asInt, Type(t));
}

SemaValue Specializer::decayNumbers(const SemaValue &v, SourceLoc loc) {
  if (v.kind == Kind::Tuple) {
    SemaValue decayed = v;
    for (SemaValue &elem : decayed.elems)
      elem = decayNumbers(elem, loc);
    return decayed;
  }
  if (!v.isConstexprNumber())
    return v;
  DType type = literalType(v);
  if (v.kind == Kind::Float && !toTensorIsFp32(v.floatValue))
    type = DType::scalar(ScalarKind::F64);
  return SemaValue::ofTensor(materialize(v, loc, type));
}

tir::Value *Specializer::toTensorAs(const SemaValue &v, SourceLoc loc, DType type) {
  if (v.isTensor()) {
    // Triton's semantic.cast, which these implicit conversions (a stored value, a load's
    // `other`, an atomic's operand) go through, converts a pointer only to int64, int1 or
    // another pointer, and makes a pointer only of an integer or a pointer.
    DType from = v.value->type().elem;
    bool pointerCast = from.isPointer() || type.isPointer();
    bool allowed =
        from == type ||
        (from.isPointer() && (type.isPointer() || type.isBool() || type.kind == ScalarKind::I64)) ||
        (from.isInteger() && type.isPointer());
    if (pointerCast && !allowed)
      error(loc, "cannot cast " + from.tritonName() + " to " + type.tritonName() +
                     " (a pointer converts to int64 or int1, and from an integer or a pointer)");
    return castTo(v.value, type);
  }
  // A float's to_tensor value (its nearest fp32, unless fp64 holds it) made a constant of `type`
  // directly: the same number as a cast, and a constant the pipeliner recognises. Numbers
  // materialize converts directly give the same value (integers, booleans, floats that to_tensor
  // keeps fp64); non-numbers get its errors, and fp8e4b15 goes through fp32 there already.
  if (v.isConstexprNumber() && v.kind == Kind::Float && !type.isFp8E4B15() &&
      toTensorIsFp32(v.floatValue))
    return materialize(SemaValue::ofFloat(static_cast<float>(v.floatValue)), loc, type);
  return materialize(v, loc, type);
}

int64_t Specializer::constantInt(const SemaValue &v, SourceLoc loc, const std::string &what) {
  if (v.kind == Kind::Int && v.intIsWide)
    error(loc, what + " " + v.repr() + " is beyond int64: not supported yet here");
  if (v.kind == Kind::Int)
    return v.intValue;
  if (v.kind == Kind::Bool)
    return v.boolValue;
  refuseUnknown(v, loc, what);
  error(loc, what + " must be a constant integer (tl.constexpr), not " + v.describe() +
                 assignedNumberHint(v));
}

std::string Specializer::assignedNumberHint(const SemaValue &v) {
  if (!v.isTensor() || !v.value->type().isScalar() || !v.value->definingOp() ||
      v.value->definingOp()->code() != tir::OpCode::Constant)
    return "";
  std::string name = v.value->nameHint().empty() ? "x" : v.value->nameHint();
  return " (as in Triton, `" + name + " = <number>` in a kernel makes a tensor; `" + name +
         ": tl.constexpr = ...` keeps a constant)";
}

tir::Value *Specializer::toValue(const SemaValue &v, SourceLoc loc, const char *what) {
  if (v.isTensor())
    return v.value;
  if (v.isConstexprNumber())
    return decayNumbers(v, loc).value;
  refuseUnknown(v, loc, std::string("the value for ") + what);
  error(loc, std::string("expected a number or a tensor for ") + what + ", got " + v.describe());
}

tir::Value *Specializer::castTo(tir::Value *v, DType to) {
  if (v->type().elem == to)
    return v;
  // fp8e4b15 converts only through fp16 (to and from fp32 too), by the backend's own sequence.
  if (v->type().elem.isFp8E4B15())
    return castTo(convertFromFp8E4B15(v, to), to);
  if (to.isFp8E4B15())
    return convertToFp8E4B15(v, builder_.loc());
  // A pointer is true when it is not null (`if bias_ptr:`): Triton's cast compares its
  // address, an int64, with zero.
  if (to.isBool() && v->type().elem.isPointer())
    v = builder_.cast(v, DType::scalar(ScalarKind::I64));
  const DType &from = v->type().elem;
  if (to.isBool() && !from.isBool()) {
    // Conversion to bool is `!= 0`, as in Python and Triton.
    tir::Value *zero = from.isFloat() ? builder_.floatConstant(0.0, Type(from))
                                      : builder_.intConstant(0, Type(from));
    if (v->type().isTensor())
      zero = builder_.splat(zero, v->type().shape);
    return builder_.cmp("ne", v, zero);
  }
  return builder_.cast(v, to);
}

std::vector<int64_t> Specializer::broadcastShape(const Type &a, const Type &b, SourceLoc loc) {
  std::vector<int64_t> sa = a.shape, sb = b.shape;
  while (sa.size() < sb.size())
    sa.insert(sa.begin(), 1);
  while (sb.size() < sa.size())
    sb.insert(sb.begin(), 1);
  std::vector<int64_t> out(sa.size());
  for (size_t d = 0; d < sa.size(); ++d) {
    if (sa[d] == sb[d] || sb[d] == 1) {
      out[d] = sa[d];
    } else if (sa[d] == 1) {
      out[d] = sb[d];
    } else {
      error(loc, "cannot broadcast shapes " + a.str() + " and " + b.str() + ": dimension " +
                     std::to_string(d) + " is " + std::to_string(sa[d]) + " and " +
                     std::to_string(sb[d]));
    }
  }
  checkTensorSize(out, loc);
  return out;
}

void Specializer::checkTensorSize(const std::vector<int64_t> &shape, SourceLoc loc) const {
  // Multiplied with a check on every step: a product of absurd dimensions must not wrap.
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d > kMaxTensorElements || elements * d > kMaxTensorElements) {
      std::string text;
      for (int64_t e : shape)
        text += (text.empty() ? "" : ", ") + std::to_string(e);
      error(loc, "a tensor of shape [" + text + "] has more than " +
                     std::to_string(kMaxTensorElements) +
                     " elements, Triton's limit (TRITON_MAX_TENSOR_NUMEL)");
    }
    elements *= d;
  }
}

tir::Value *Specializer::broadcastTo(tir::Value *v, const std::vector<int64_t> &shape,
                                     SourceLoc loc) {
  if (v->type().shape == shape)
    return v;
  if (v->type().isScalar())
    return builder_.splat(v, shape);
  if (v->type().rank() > shape.size())
    error(loc, "cannot broadcast " + v->type().str() + " to a lower rank");
  while (v->type().rank() < shape.size())
    v = builder_.expandDims(v, 0);
  for (size_t d = 0; d < shape.size(); ++d)
    if (v->type().shape[d] != shape[d] && v->type().shape[d] != 1)
      error(loc, "cannot broadcast " + v->type().str() + " to shape " +
                     Type(v->type().elem, shape).str());
  if (v->type().shape == shape)
    return v;
  return builder_.broadcast(v, shape);
}

//===----------------------------------------------------------------------===//
// Constant folding (Python semantics)
//===----------------------------------------------------------------------===//

static bool isIntLike(const SemaValue &v) {
  return v.kind == Kind::Int || v.kind == Kind::Bool;
}

/// An integer operation on 128 bits, as Python does it on its unbounded ints (2**63, 1 << 63 and
/// INT64_MAX + 1 leave int64 and stay exact); a result beyond 128 bits is an error.
static SemaValue foldInts(const Specializer &s, ast::BinaryOperator op, __int128 x, __int128 y,
                          SourceLoc loc) {
  using BO = ast::BinaryOperator;
  const char *overflow = "this constant expression overflows 128-bit integers: not supported yet";
  auto floorDivWide = [](__int128 p, __int128 q) {
    __int128 quotient = p / q;
    return (p % q != 0 && ((p < 0) != (q < 0))) ? quotient - 1 : quotient;
  };
  __int128 r = 0;
  switch (op) {
  case BO::Add:
    if (__builtin_add_overflow(x, y, &r))
      s.error(loc, overflow);
    break;
  case BO::Sub:
    if (__builtin_sub_overflow(x, y, &r))
      s.error(loc, overflow);
    break;
  case BO::Mul:
    if (__builtin_mul_overflow(x, y, &r))
      s.error(loc, overflow);
    break;
  case BO::Div:
    if (y == 0)
      s.error(loc, "division by zero");
    return SemaValue::ofFloat(static_cast<double>(x) / static_cast<double>(y));
  case BO::FloorDiv:
  case BO::Mod: {
    if (y == 0)
      s.error(loc, op == BO::FloorDiv ? "integer division by zero" : "integer modulo by zero");
    if (y == -1) // x // -1 overflows for the smallest x; x % -1 is 0
      return op == BO::Mod ? SemaValue::ofInt(0) : foldInts(s, BO::Sub, 0, x, loc);
    __int128 quotient = floorDivWide(x, y);
    r = op == BO::FloorDiv ? quotient : x - quotient * y;
    break;
  }
  case BO::LShift:
    if (y < 0)
      s.error(loc, "negative shift count");
    if (x == 0)
      break;
    // Shifted back, the value must come out unchanged: no bit (nor the sign) was lost. (Shifted
    // as unsigned: a negative value's left shift is undefined in C++17.)
    if (y >= 127)
      s.error(loc, overflow);
    r = static_cast<__int128>(static_cast<unsigned __int128>(x) << static_cast<int>(y));
    if ((r >> static_cast<int>(y)) != x)
      s.error(loc, overflow);
    break;
  case BO::RShift:
    if (y < 0)
      s.error(loc, "negative shift count");
    r = y >= 127 ? (x < 0 ? -1 : 0) : x >> static_cast<int>(y);
    break;
  case BO::BitAnd:
    r = x & y;
    break;
  case BO::BitOr:
    r = x | y;
    break;
  case BO::BitXor:
    r = x ^ y;
    break;
  case BO::Pow:
    if (y < 0)
      return SemaValue::ofFloat(std::pow(static_cast<double>(x), static_cast<double>(y)));
    if (x == 0 || x == 1) {
      r = y == 0 ? 1 : x;
    } else if (x == -1) {
      r = (y & 1) ? -1 : 1;
    } else {
      // |x| >= 2: at most 127 steps before a product overflows.
      r = 1;
      for (__int128 i = 0; i < y; ++i)
        if (__builtin_mul_overflow(r, x, &r))
          s.error(loc, overflow);
    }
    break;
  default:
    s.error(loc, std::string("unsupported operator '") + ast::spelling(op) + "' on integers");
  }
  return SemaValue::ofWideInt(r);
}

static SemaValue foldBinary(const Specializer &s, ast::BinaryOperator op, const SemaValue &a,
                            const SemaValue &b, SourceLoc loc) {
  using BO = ast::BinaryOperator;
  bool ints = isIntLike(a) && isIntLike(b);
  // Bitwise operators on two bools stay bools in Python.
  if (a.kind == Kind::Bool && b.kind == Kind::Bool &&
      (op == BO::BitAnd || op == BO::BitOr || op == BO::BitXor)) {
    bool r = op == BO::BitAnd ? (a.boolValue && b.boolValue)
             : op == BO::BitOr ? (a.boolValue || b.boolValue)
                               : (a.boolValue != b.boolValue);
    return SemaValue::ofBool(r);
  }
  if (ints)
    return foldInts(s, op, a.numberAsWideInt(), b.numberAsWideInt(), loc);
  double x = a.numberAsFloat(), y = b.numberAsFloat();
  switch (op) {
  case BO::Add: return SemaValue::ofFloat(x + y);
  case BO::Sub: return SemaValue::ofFloat(x - y);
  case BO::Mul: return SemaValue::ofFloat(x * y);
  case BO::Div:
    if (y == 0)
      s.error(loc, "float division by zero");
    return SemaValue::ofFloat(x / y);
  case BO::FloorDiv:
    if (y == 0)
      s.error(loc, "float floor division by zero");
    return SemaValue::ofFloat(std::floor(x / y));
  case BO::Mod: {
    if (y == 0)
      s.error(loc, "float modulo by zero");
    double r = std::fmod(x, y);
    if (r != 0 && ((r < 0) != (y < 0)))
      r += y;
    return SemaValue::ofFloat(r);
  }
  case BO::Pow: return SemaValue::ofFloat(std::pow(x, y));
  default:
    break;
  }
  s.error(loc, std::string("unsupported operator '") + ast::spelling(op) + "' on floats");
}

//===----------------------------------------------------------------------===//
// Binary operators
//===----------------------------------------------------------------------===//

DType Specializer::operandType(const SemaValue &lhs, const SemaValue &rhs, bool divOrMod,
                               SourceLoc loc, bool selecting) {
  bool lhsLiteral = !lhs.isTensor(), rhsLiteral = !rhs.isTensor();
  DType lt = lhsLiteral ? literalType(lhs) : lhs.value->type().elem;
  DType rt = rhsLiteral ? literalType(rhs) : rhs.value->type().elem;
  std::string why;
  auto common = computationType(lt, lhsLiteral, rt, rhsLiteral, divOrMod, why);
  if (!common)
    error(loc, why);
  if (common->isFp8E4B15() && !selecting)
    error(loc, fp8E4B15ArithmeticError());
  // An integer literal takes the integer tensor's type: it must be representable there (Triton
  // refuses the operation otherwise instead of wrapping the literal).
  if (common->isInteger() && !common->isBool()) {
    for (const SemaValue *v : {&lhs, &rhs}) {
      if (v->isTensor() || v->kind != Kind::Int)
        continue;
      __int128 value = v->numberAsWideInt(); // 0xFFFFFFFFFFFFFFFF does not fit an int64 tensor
      if (value < 0 && common->isUnsigned())
        error(loc, "cannot combine an unsigned " + common->tritonName() +
                       " tensor with the negative literal " + v->repr() +
                       " (as in Triton): cast one of them explicitly");
      unsigned bits = common->bits();
      __int128 low = common->isUnsigned() ? 0 : -(static_cast<__int128>(1) << (bits - 1));
      __int128 high = common->isUnsigned() ? (static_cast<__int128>(1) << bits) - 1
                                           : (static_cast<__int128>(1) << (bits - 1)) - 1;
      if (value < low || value > high)
        error(loc, "the literal " + v->repr() + " is out of range for " + common->tritonName() +
                       " (as in Triton): cast it or the tensor explicitly");
    }
  }
  return *common;
}

std::pair<tir::Value *, tir::Value *>
Specializer::convertAndBroadcast(const SemaValue &lhs, const SemaValue &rhs, DType type,
                                 SourceLoc loc) {
  tir::Value *a = materialize(lhs, loc, type);
  tir::Value *b = materialize(rhs, loc, type);
  std::vector<int64_t> shape = broadcastShape(a->type(), b->type(), loc);
  return {broadcastTo(a, shape, loc), broadcastTo(b, shape, loc)};
}

SemaValue Specializer::repeatSequence(const SemaValue &lhs, const SemaValue &rhs, SourceLoc loc) {
  bool sequenceLeft = lhs.kind == Kind::Tuple || lhs.kind == Kind::String;
  const SemaValue &sequence = sequenceLeft ? lhs : rhs;
  const SemaValue &count = sequenceLeft ? rhs : lhs;
  if (inKernelCode()) {
    // Triton's code generator turns tuple and list displays into tl.tuple, which has __mul__
    // (asserting a constexpr count) but no __rmul__, and has no string values at run time.
    if (sequence.kind == Kind::String)
      error(loc, "unsupported operand for '*' in a kernel: a string");
    if (!sequenceLeft)
      error(loc, std::string("unsupported operand for '*': ") + count.describe() + " * " +
                     sequence.describe() + " (Triton's tuples repeat only as `" +
                     (sequence.isList ? "[x] * n" : "(x,) * n") + "`)");
  }
  if (count.kind != Kind::Int && count.kind != Kind::Bool)
    error(loc, "can't multiply " + sequence.describe() + " by " + count.describe() +
                   ": the count must be a constant integer (tl.constexpr)" +
                   assignedNumberHint(count));
  int64_t times = std::max<int64_t>(0, constantInt(count, loc, "the repetition count"));
  size_t unit = sequence.kind == Kind::String ? sequence.name.size() : sequence.elems.size();
  if (unit != 0 && times > kMaxTensorElements / static_cast<int64_t>(unit))
    error(loc, "repeating " + sequence.describe() + " " + std::to_string(times) +
                   " times gives more than " + std::to_string(kMaxTensorElements) +
                   " elements: not supported");
  if (sequence.kind == Kind::String) {
    std::string text;
    for (int64_t i = 0; i < times; ++i)
      text += sequence.name;
    return SemaValue::ofString(std::move(text));
  }
  std::vector<SemaValue> elems;
  for (int64_t i = 0; i < times; ++i)
    elems.insert(elems.end(), sequence.elems.begin(), sequence.elems.end());
  // A plain tuple or list, as tl.tuple(self.values * n) and Python give: no namedtuple fields.
  return sequence.isList ? SemaValue::ofList(std::move(elems))
                         : SemaValue::ofTuple(std::move(elems));
}

SemaValue Specializer::binaryOp(ast::BinaryOperator op, const SemaValue &lhs, const SemaValue &rhs,
                                SourceLoc loc) {
  if (isUnknown(lhs) || isUnknown(rhs))
    refuseUnknown(isUnknown(lhs) ? lhs : rhs, loc, "this operation");
  using BO = ast::BinaryOperator;
  if (lhs.isConstexprNumber() && rhs.isConstexprNumber())
    return foldBinary(*this, op, lhs, rhs, loc);
  if (lhs.kind == Kind::Tuple && rhs.kind == Kind::Tuple && op == BO::Add) {
    std::vector<SemaValue> elems = lhs.elems;
    elems.insert(elems.end(), rhs.elems.begin(), rhs.elems.end());
    SemaValue sum = SemaValue::ofTuple(std::move(elems));
    sum.isList = lhs.isList; // Python has no list + tuple; tilec keeps the left's kind
    sum.objectId = sum.isList ? SemaValue::newObjectId() : 0;
    return sum;
  }
  if (lhs.kind == Kind::String && rhs.kind == Kind::String && op == BO::Add)
    return SemaValue::ofString(lhs.name + rhs.name);
  if (op == BO::Mul && (lhs.kind == Kind::Tuple || rhs.kind == Kind::Tuple ||
                        lhs.kind == Kind::String || rhs.kind == Kind::String))
    return repeatSequence(lhs, rhs, loc);
  for (const SemaValue *v : {&lhs, &rhs})
    if (!v->isTensor() && !v->isConstexprNumber())
      error(loc, std::string("unsupported operand for '") + ast::spelling(op) + "': " +
                     v->describe());
  if (op == BO::MatMul)
    error(loc, "'@' is not supported: use tl.dot(a, b)");
  if (op == BO::Pow) {
    // Triton 3.6's tl.tensor defines no __pow__ / __rpow__ (only constexpr does): its code
    // generator looks the method up on the tensor operand, the left one first, and fails.
    error(loc, std::string("'tensor' object has no attribute '") +
                   (lhs.isTensor() ? "__pow__" : "__rpow__") +
                   "' (Triton has no '**' on tensors; use libdevice.pow or tl.exp2/tl.log2)");
  }

  bool lhsLiteral = !lhs.isTensor(), rhsLiteral = !rhs.isTensor();
  DType lt = lhsLiteral ? literalType(lhs) : lhs.value->type().elem;
  DType rt = rhsLiteral ? literalType(rhs) : rhs.value->type().elem;

  // Pointer arithmetic: pointer +/- integer.
  if (lt.isPointer() || rt.isPointer()) {
    if (lt.isPointer() && rt.isPointer())
      error(loc, op == BO::Add ? "cannot add two pointers"
                               : std::string("operator '") + ast::spelling(op) +
                                     "' on two pointers is not supported");
    if (op != BO::Add && !(op == BO::Sub && lt.isPointer()))
      error(loc, std::string("operator '") + ast::spelling(op) + "' is not defined on pointers");
    const SemaValue &ptr = lt.isPointer() ? lhs : rhs;
    const SemaValue &off = lt.isPointer() ? rhs : lhs;
    DType offType = lt.isPointer() ? rt : lt;
    if (!offType.isInteger())
      error(loc, "a pointer offset must be an integer, not " + off.describe());
    tir::Value *offset = materialize(off, loc);
    // Triton counts int1 among the unsigned integers and zero-extends an unsigned offset to
    // int64 (`ptr + tl.zeros_like(mask)` is `ptr + 0`).
    if (offType.isBool())
      offset = builder_.cast(offset, DType::scalar(ScalarKind::I64));
    if (op == BO::Sub)
      offset = builder_.unary(OpCode::Neg, offset);
    std::vector<int64_t> shape = broadcastShape(ptr.value->type(), offset->type(), loc);
    tir::Value *p = broadcastTo(ptr.value, shape, loc);
    offset = broadcastTo(offset, shape, loc);
    return SemaValue::ofTensor(builder_.addPtr(p, offset));
  }

  bool divOrMod = op == BO::Div || op == BO::FloorDiv || op == BO::Mod;
  DType t = operandType(lhs, rhs, divOrMod, loc);
  OpCode code;
  switch (op) {
  case BO::Add: code = OpCode::Add; break;
  case BO::Sub: code = OpCode::Sub; break;
  case BO::Mul: code = OpCode::Mul; break;
  case BO::Div:
    // True division of integers happens in fp32, as in Triton.
    if (!t.isFloat())
      t = DType::scalar(ScalarKind::F32);
    code = OpCode::Div;
    break;
  case BO::FloorDiv:
    if (t.isFloat())
      error(loc, "'//' on floating-point values is not supported (as in Triton): use '/'");
    code = OpCode::Div; // rounds toward zero, like Triton
    break;
  case BO::Mod: code = OpCode::Rem; break;
  case BO::BitAnd: code = OpCode::And; break;
  case BO::BitOr: code = OpCode::Or; break;
  case BO::BitXor: code = OpCode::Xor; break;
  case BO::LShift: code = OpCode::Shl; break;
  case BO::RShift: code = OpCode::Shr; break;
  default:
    error(loc, std::string("operator '") + ast::spelling(op) + "' is not supported on tensors");
  }
  bool bitwise = code == OpCode::And || code == OpCode::Or || code == OpCode::Xor ||
                 code == OpCode::Shl || code == OpCode::Shr;
  if (bitwise && !t.isInteger())
    error(loc, std::string("operator '") + ast::spelling(op) +
                   "' needs integer operands, got " + lt.tritonName() + " and " + rt.tritonName());
  if ((code == OpCode::Shl || code == OpCode::Shr) && t.isBool())
    error(loc, "cannot shift boolean values");
  auto [a, b] = convertAndBroadcast(lhs, rhs, t, loc);
  if (code == OpCode::Shr) {
    // Triton picks an arithmetic or a logical shift by the signedness of the tensor whose `>>`
    // runs (the left operand, or the right one when the left is a Python number), before
    // promotion: int8 >> uint32 shifts arithmetically, in uint32. The shift happens in the
    // promoted type's counterpart of that signedness.
    bool arithmetic = (lhsLiteral ? rt : lt).isSigned();
    if (arithmetic != t.isSigned()) {
      DType shifted = withOtherSignedness(t);
      auto asType = [&](tir::Value *v, const DType &to) {
        return builder_.createValue(OpCode::Bitcast, {v}, v->type().withElem(to));
      };
      tir::Value *r = builder_.binary(code, asType(a, shifted), asType(b, shifted));
      return SemaValue::ofTensor(asType(r, t));
    }
  }
  return SemaValue::ofTensor(builder_.binary(code, a, b));
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

/// Python's `==` on compile-time constants other than two numbers (which compareOp folds
/// itself): values of different kinds are unequal, tuples compare element by element. nullopt
/// for what it does not decide (tensors, modules, functions...).
static std::optional<bool> constantsEqual(const SemaValue &a, const SemaValue &b) {
  auto plain = [](const SemaValue &v) {
    return v.isConstexprNumber() || v.kind == Kind::None || v.kind == Kind::String ||
           v.kind == Kind::Tuple || v.kind == Kind::DType;
  };
  if (!plain(a) || !plain(b))
    return std::nullopt;
  if (a.isConstexprNumber() && b.isConstexprNumber()) {
    if (isIntLike(a) && isIntLike(b))
      return a.numberAsWideInt() == b.numberAsWideInt();
    return a.numberAsFloat() == b.numberAsFloat();
  }
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case Kind::None:
    return true;
  case Kind::String:
    return a.name == b.name;
  case Kind::DType:
    return a.dtype == b.dtype && a.repr() == b.repr(); // a block type is not its element type
  default:
    break;
  }
  if (a.elems.size() != b.elems.size() || a.isList != b.isList)
    return false;
  for (size_t i = 0; i < a.elems.size(); ++i) {
    std::optional<bool> e = constantsEqual(a.elems[i], b.elems[i]);
    if (!e || !*e)
      return e;
  }
  return true;
}

SemaValue Specializer::compareOp(ast::CompareOperator op, const SemaValue &lhs,
                                 const SemaValue &rhs, SourceLoc loc) {
  using CO = ast::CompareOperator;
  if (std::optional<SemaValue> unknown = compareUnknown(op, lhs, rhs))
    return *unknown;
  if (op == CO::Is || op == CO::IsNot) {
    bool same;
    if (lhs.isNone() || rhs.isNone())
      same = lhs.isNone() && rhs.isNone();
    else if (lhs.kind == Kind::DType && rhs.kind == Kind::DType)
      same = lhs.dtype == rhs.dtype;
    else if (lhs.kind == Kind::Bool && rhs.kind == Kind::Bool)
      same = lhs.boolValue == rhs.boolValue;
    else
      error(loc, "'is' is only supported against None, True, False or dtypes in kernels");
    return SemaValue::ofBool(op == CO::Is ? same : !same);
  }
  if (op == CO::In || op == CO::NotIn) {
    // A substring, as in `"+cu" in version`.
    if (lhs.kind == Kind::String && rhs.kind == Kind::String)
      return SemaValue::ofBool((rhs.name.find(lhs.name) != std::string::npos) == (op == CO::In));
    // `"PYTEST_VERSION" in os.environ` in module-level code: tilec's own environment, as for
    // os.environ.get (HostPython.cpp).
    if (lhs.kind == Kind::String && rhs.kind == Kind::Module && rhs.userModule < 0 &&
        rhs.name == "os.environ")
      return SemaValue::ofBool((std::getenv(lhs.name.c_str()) != nullptr) == (op == CO::In));
    // `"absl.testing" in sys.modules` (or its .keys()) in module-level code: the modules the
    // program has imported (inSysModules).
    if (rhs.kind == Kind::Module && rhs.userModule < 0 && rhs.name == "sys.modules") {
      if (lhs.kind != Kind::String)
        return SemaValue::ofBool(op == CO::NotIn);
      return SemaValue::ofBool(inSysModules(lhs.name) == (op == CO::In));
    }
    // A dict's keys (module-level Python).
    if (rhs.kind == Kind::Object && (rhs.name == kDictClass || isSetObject(rhs))) {
      SemaValue keys = rhs.elems[0];
      keys.isList = true;
      return compareOp(op, lhs, keys, loc);
    }
    if (rhs.kind != Kind::Tuple || lhs.isTensor())
      error(loc, "'in' is only supported on constant tuples in kernels");
    bool found = false;
    for (const SemaValue &e : rhs.elems) {
      if (auto r = compareHostObjects(CO::Eq, lhs, e, loc))
        found |= r->boolValue;
      else if (std::optional<bool> equal = constantsEqual(lhs, e))
        found |= *equal;
      else
        found |= e.kind == lhs.kind && e.repr() == lhs.repr();
    }
    return SemaValue::ofBool(op == CO::In ? found : !found);
  }
  // Constant comparisons.
  if (auto r = compareHostObjects(op, lhs, rhs, loc))
    return *r;
  if (lhs.kind == Kind::DType && rhs.kind == Kind::DType && (op == CO::Eq || op == CO::Ne))
    return SemaValue::ofBool((lhs.dtype == rhs.dtype && lhs.repr() == rhs.repr()) ==
                             (op == CO::Eq));
  // Triton's dtype.__eq__ is False for anything but a dtype (V.dtype == torch.float8_e5m2).
  if ((lhs.kind == Kind::DType) != (rhs.kind == Kind::DType) && !lhs.isTensor() &&
      !rhs.isTensor() && (op == CO::Eq || op == CO::Ne))
    return SemaValue::ofBool(op == CO::Ne);
  if (lhs.kind == Kind::String && rhs.kind == Kind::String) {
    // Python orders strings by code point, which is UTF-8's byte order.
    int c = lhs.name.compare(rhs.name);
    return SemaValue::ofBool(orderingHolds(op, c));
  }
  if (op == CO::Eq || op == CO::Ne) {
    // None, strings, tuples and numbers of different kinds are never equal in Python
    // (raw == "unknown" with raw None is False). In a kernel, Triton makes a list literal a
    // tl.tuple, which equals a tuple of the same elements (desc.block_shape == [BM, BN]).
    if (inKernelCode() && lhs.kind == Kind::Tuple && rhs.kind == Kind::Tuple &&
        lhs.isList != rhs.isList) {
      SemaValue l = lhs, r = rhs;
      l.isList = r.isList = false;
      if (std::optional<bool> equal = constantsEqual(l, r))
        return SemaValue::ofBool(*equal == (op == CO::Eq));
    }
    if (std::optional<bool> equal = constantsEqual(lhs, rhs))
      return SemaValue::ofBool(*equal == (op == CO::Eq));
  }
  if (lhs.isConstexprNumber() && rhs.isConstexprNumber()) {
    bool r;
    if (isIntLike(lhs) && isIntLike(rhs)) {
      __int128 a = lhs.numberAsWideInt(), b = rhs.numberAsWideInt();
      r = op == CO::Lt ? a < b : op == CO::Le ? a <= b : op == CO::Gt ? a > b
          : op == CO::Ge ? a >= b : op == CO::Eq ? a == b : a != b;
    } else {
      double a = lhs.numberAsFloat(), b = rhs.numberAsFloat();
      r = op == CO::Lt ? a < b : op == CO::Le ? a <= b : op == CO::Gt ? a > b
          : op == CO::Ge ? a >= b : op == CO::Eq ? a == b : a != b;
    }
    return SemaValue::ofBool(r);
  }
  // Python orders tuples (and lists) element by element: the first pair that differs decides,
  // else the shorter one is smaller (`torch.cuda.get_device_capability() >= (10, 0)`).
  if (lhs.kind == Kind::Tuple && rhs.kind == Kind::Tuple && lhs.isList == rhs.isList) {
    size_t common = std::min(lhs.elems.size(), rhs.elems.size());
    for (size_t i = 0; i < common; ++i) {
      std::optional<bool> same = constexprTruth(compareOp(CO::Eq, lhs.elems[i], rhs.elems[i], loc));
      if (!same)
        error(loc, std::string("cannot compare with '") + ast::spelling(op) +
                       "': tuples whose elements are not constants");
      if (!*same)
        return compareOp(op, lhs.elems[i], rhs.elems[i], loc);
    }
    int c = lhs.elems.size() < rhs.elems.size() ? -1 : lhs.elems.size() > rhs.elems.size() ? 1 : 0;
    return SemaValue::ofBool(orderingHolds(op, c));
  }
  for (const SemaValue *v : {&lhs, &rhs})
    if (!v->isTensor() && !v->isConstexprNumber())
      error(loc, std::string("cannot compare with '") + ast::spelling(op) + "': " + v->describe());

  // Triton's comparisons make a Python number a tensor first (to_tensor: int32, or the
  // smallest of uint32 and int64 that holds it; fp32 for a float, fp64 beyond fp32's range),
  // so that unlike in arithmetic it takes part in promotion: uint8 > -9 compares in int32,
  // and x_fp64 > 0.1 compares with (double)(float)0.1.
  SemaValue l = decayNumbers(lhs, loc), r = decayNumbers(rhs, loc);
  DType lt = l.value->type().elem, rt = r.value->type().elem;
  DType t;
  if (lt.isPointer() || rt.isPointer()) {
    if (lt != rt)
      error(loc, "cannot compare " + lt.tritonName() + " with " + rt.tritonName());
    t = lt;
  } else {
    std::string why;
    auto common = computationType(lt, false, rt, false, false, why);
    if (!common)
      error(loc, why);
    if (common->isFp8E4B15())
      error(loc, fp8E4B15ArithmeticError());
    t = *common;
  }
  auto [a, b] = convertAndBroadcast(l, r, t, loc);
  const char *predicate = op == CO::Lt ? "lt" : op == CO::Le ? "le" : op == CO::Gt ? "gt"
                          : op == CO::Ge ? "ge" : op == CO::Eq ? "eq" : "ne";
  return SemaValue::ofTensor(builder_.cmp(predicate, a, b));
}

//===----------------------------------------------------------------------===//
// Unary operators
//===----------------------------------------------------------------------===//

SemaValue Specializer::unaryOp(ast::UnaryOperator op, const SemaValue &operand, SourceLoc loc) {
  using UO = ast::UnaryOperator;
  if (op == UO::Not) {
    if (isUnknown(operand))
      return unknownBool(operand);
    if (auto truth = constexprTruth(operand))
      return SemaValue::ofBool(!*truth);
    tir::Value *b = castTo(operand.value, DType::scalar(ScalarKind::I1));
    return SemaValue::ofTensor(builder_.unary(OpCode::Not, b));
  }
  refuseUnknown(operand, loc, "this operation");
  if (operand.isConstexprNumber()) {
    switch (op) {
    case UO::Neg: {
      if (operand.kind == Kind::Float)
        return SemaValue::ofFloat(-operand.floatValue);
      __int128 negated = 0;
      if (__builtin_sub_overflow(static_cast<__int128>(0), operand.numberAsWideInt(), &negated))
        error(loc, "this constant expression overflows 128-bit integers: not supported yet");
      return SemaValue::ofWideInt(negated);
    }
    case UO::Pos:
      return operand.kind == Kind::Bool ? SemaValue::ofInt(operand.numberAsInt()) : operand;
    case UO::Invert:
      if (operand.kind == Kind::Float)
        error(loc, "'~' needs an integer");
      return SemaValue::ofWideInt(~operand.numberAsWideInt());
    default:
      break;
    }
  }
  if (!operand.isTensor())
    error(loc, std::string("unsupported operand for unary '") + ast::spelling(op) + "': " +
                   operand.describe());
  tir::Value *v = operand.value;
  DType t = v->type().elem;
  if (t.isPointer())
    error(loc, std::string("unary '") + ast::spelling(op) + "' is not defined on pointers");
  switch (op) {
  case UO::Pos:
    return operand;
  case UO::Neg:
    if (t.isBool())
      error(loc, "cannot negate a boolean tensor");
    if (t.isFp8E4B15())
      error(loc, fp8E4B15ArithmeticError());
    // Triton's unary minus is `0 - x`: on floats, -(+0.0) is +0.0 (a negation would give -0.0).
    if (t.isFloat())
      return SemaValue::ofTensor(
          builder_.binary(OpCode::Sub, builder_.floatConstant(0.0, v->type()), v));
    return SemaValue::ofTensor(builder_.unary(OpCode::Neg, v));
  case UO::Invert:
    if (!t.isInteger())
      error(loc, "'~' needs an integer tensor, not " + t.tritonName());
    return SemaValue::ofTensor(builder_.unary(OpCode::Not, v));
  default:
    break;
  }
  error(loc, "unsupported unary operator");
}

} // namespace tilec::sema
