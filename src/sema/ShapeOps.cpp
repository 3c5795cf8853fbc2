// tl.join, tl.split, tl.interleave, tl.flip, and the elementwise tl.clamp, tl.div_rn, tl.fdiv.
//
// The shape operations are written with operations both backends already have, and are exact:
// join selects between two broadcast operands, split picks one half of the last axis by a
// reduction that adds only a neutral element (x + -0.0 and x ^ 0 are x, bit for bit), and flip
// is Triton's own construction (swapping halves by xor with the xor-reduction of each pair).
#include "sema/Specializer.h"

#include <algorithm>

namespace tilec::sema {

using tir::DType;
using tir::OpCode;
using tir::ScalarKind;
using tir::Type;
using Kind = SemaValue::Kind;

namespace {

/// The signed integer type of `bits` bits (bool stays bool).
DType intOfWidth(unsigned bits) {
  switch (bits) {
  case 1:
    return DType::scalar(ScalarKind::I1);
  case 8:
    return DType::scalar(ScalarKind::I8);
  case 16:
    return DType::scalar(ScalarKind::I16);
  case 32:
    return DType::scalar(ScalarKind::I32);
  default:
    return DType::scalar(ScalarKind::I64);
  }
}

} // namespace

tir::Value *Specializer::unsplat(tir::Value *x, SourceLoc loc) {
  const Type &t = x->type();
  if (t.isScalar())
    return x;
  if (t.numElements() != 1)
    error(loc, "can only unsplat single-element tensors, not a tensor of type " + t.str());
  if (t.elem.isPointer())
    error(loc, "unsplatting a tensor of pointers is not supported yet");
  builder_.setLoc(loc);
  // The pick below sums (xors) the element with neutral ones: booleans go through int32.
  DType elem = t.elem;
  if (elem.isBool())
    x = builder_.cast(x, DType::scalar(ScalarKind::I32));
  if (t.rank() > 1)
    x = builder_.createValue(OpCode::Reshape, {x}, Type(x->type().elem, std::vector<int64_t>{1}));
  x = builder_.pickAlong(x, 0, 0);
  return elem.isBool() ? castTo(x, elem) : x;
}

SemaValue Specializer::callShapeOp(const std::string &fn, CallArgs &args) {
  SourceLoc loc = args.loc;
  std::string display = "tl." + fn;
  tir::Builder &b = builder_;

  if (fn == "join" || fn == "interleave") {
    auto a = bindCallArgs(*this, display, {"a", "b"}, 2, args);
    tir::Value *x = toValue(*a[0], loc, display.c_str());
    tir::Value *y = toValue(*a[1], loc, display.c_str());
    if (x->type().elem != y->type().elem)
      error(loc, display + " needs two tensors of the same dtype, got " +
                     x->type().elem.tritonName() + " and " + y->type().elem.tritonName());
    std::vector<int64_t> shape = broadcastShape(x->type(), y->type(), loc);
    x = broadcastTo(x, shape, loc);
    y = broadcastTo(y, shape, loc);
    std::vector<int64_t> joined = shape;
    joined.push_back(2);
    checkTensorSize(joined, loc);
    auto widen = [&](tir::Value *v) {
      v = v->type().isScalar() ? b.splat(v, {1})
                               : b.expandDims(v, static_cast<unsigned>(shape.size()));
      return b.broadcast(v, joined);
    };
    tir::Value *r =
        b.select(b.indexIs(joined, static_cast<unsigned>(shape.size()), 0), widen(x), widen(y));
    // AccelerateMatmul counts a join's inputs at half their width, as Triton's JoinOp.
    r->definingOp()->setAttr("join", true);
    if (fn == "join" || shape.empty())
      return SemaValue::ofTensor(r);
    // interleave(a, b): the join with its last two axes merged.
    std::vector<int64_t> merged = shape;
    merged.back() *= 2;
    return SemaValue::ofTensor(b.createValue(OpCode::Reshape, {r}, Type(r->type().elem, merged)));
  }

  if (fn == "split") {
    auto a = bindCallArgs(*this, display, {"a"}, 1, args);
    tir::Value *x = toValue(*a[0], loc, display.c_str());
    const Type &t = x->type();
    if (t.isScalar() || t.shape.back() != 2)
      error(loc, display + " needs a tensor whose last dimension is 2, got " + a[0]->describe());
    if (t.elem.isPointer())
      error(loc, display + " of pointers is not supported yet");
    std::vector<SemaValue> halves;
    for (int64_t k = 0; k < 2; ++k)
      halves.push_back(SemaValue::ofTensor(b.pickAlong(x, t.rank() - 1, k)));
    return SemaValue::ofTuple(std::move(halves));
  }

  if (fn == "flip") {
    auto a = bindCallArgs(*this, display, {"x", "dim"}, 1, args);
    tir::Value *x = toValue(*a[0], loc, display.c_str());
    const Type &t = x->type();
    if (t.isScalar())
      error(loc, display + " needs a tensor, not a scalar");
    if (t.elem.isPointer())
      error(loc, display + " of pointers is not supported yet");
    int64_t dim = a[1] && !a[1]->isNone() ? constAxis(*a[1], t.rank(), loc, display)
                                          : static_cast<int64_t>(t.rank()) - 1;
    int64_t n = t.shape[dim];
    if (n == 1)
      return SemaValue::ofTensor(x);
    unsigned steps = 0;
    while ((int64_t(1) << steps) < n)
      ++steps;
    // As Triton: view the axis as (2, 2, ..., 2) and swap the halves of each of those axes.
    DType intType = intOfWidth(t.elem.bits());
    tir::Value *y =
        t.elem == intType ? x : b.createValue(OpCode::Bitcast, {x}, t.withElem(intType));
    std::vector<int64_t> split(t.shape.begin(), t.shape.begin() + dim);
    split.insert(split.end(), steps, 2);
    split.insert(split.end(), t.shape.begin() + dim + 1, t.shape.end());
    if (split.size() > 16)
      error(loc, display + " of a tensor of rank " + std::to_string(t.rank()) +
                     " along an axis of " + std::to_string(n) + " is not supported yet");
    y = b.createValue(OpCode::Reshape, {y}, Type(intType, split));
    for (unsigned i = 0; i < steps; ++i) {
      std::vector<int64_t> reduced = split;
      reduced.erase(reduced.begin() + dim + i);
      tir::Operation *op = b.create(OpCode::Reduce, {y}, {Type(intType, reduced)});
      op->setAttr("kind", std::string("xor"));
      op->setAttr("axis", static_cast<int64_t>(dim + i));
      tir::Value *pairXor = b.expandDims(op->result(), static_cast<unsigned>(dim + i));
      y = b.binary(OpCode::Xor, y, b.broadcast(pairXor, split));
    }
    y = b.createValue(OpCode::Reshape, {y}, Type(intType, t.shape));
    if (t.elem != intType)
      y = b.createValue(OpCode::Bitcast, {y}, Type(t.elem, t.shape));
    return SemaValue::ofTensor(y);
  }

  if (fn == "sort" || fn == "topk" || fn == "bitonic_merge") {
    // As Triton's standard.sort_impl: the tensor viewed as a hypercube [2, 2, ..., 2], bitonic
    // merges of compare-and-swap steps along its axes (each pairs an element with its partner
    // through an xor-reduction), and for topk, halving by max before the last merges.
    // bitonic_merge is one merge of the last dimension (standard._bitonic_merge): ascending, or
    // descending, when each half is sorted the other way (a bitonic sequence).
    bool topk = fn == "topk";
    bool mergeOnly = fn == "bitonic_merge";
    auto a = topk ? bindCallArgs(*this, display, {"x", "k", "dim"}, 2, args)
                  : bindCallArgs(*this, display, {"x", "dim", "descending"}, 1, args);
    tir::Value *x = toValue(*a[0], loc, display.c_str());
    const Type &t = x->type();
    if (t.isScalar())
      error(loc, display + " needs a tensor, not a scalar");
    if (t.elem.isPointer())
      error(loc, display + " of pointers is not supported");
    const std::optional<SemaValue> &dimArg = a[topk ? 2 : 1];
    int64_t dim = dimArg && !dimArg->isNone() ? constAxis(*dimArg, t.rank(), loc, display)
                                              : static_cast<int64_t>(t.rank()) - 1;
    if (dim != static_cast<int64_t>(t.rank()) - 1)
      error(loc, display + ": only minor dimension is currently supported");
    bool descending = topk || constFlag(a[2], loc, display + "'s descending");
    auto log2 = [](int64_t n) {
      unsigned l = 0;
      while ((int64_t(1) << l) < n)
        ++l;
      return l;
    };
    unsigned logN = log2(t.shape.back());
    unsigned logK = logN;
    if (topk) {
      int64_t k = a[1]->kind == Kind::Int ? a[1]->intValue : 0;
      if (k <= 0 || (k & (k - 1)) != 0 || k > t.shape.back())
        error(loc, display + "'s k must be a power of two no larger than the last dimension");
      logK = log2(k);
    }
    if (logN == 0)
      return SemaValue::ofTensor(x);
    unsigned nDims = log2(t.numElements());
    if (nDims > 16)
      error(loc, display + " of more than 65536 elements is not supported yet");
    DType intType = intOfWidth(t.elem.bits());
    DType i32 = DType::scalar(ScalarKind::I32);
    auto cube = [](unsigned n) { return std::vector<int64_t>(n, 2); };
    // An i32 tensor of rank n, [1, ..., 2, ..., 1] with the 2 at the j-th axis from the end.
    auto indicator = [&](unsigned n, unsigned j) {
      std::vector<int64_t> shape(n, 1);
      shape[n - 1 - j] = 2;
      return b.createValue(OpCode::Reshape, {b.makeRange(0, 2)}, Type(i32, shape));
    };
    auto compareAndSwap = [&](tir::Value *h, tir::Value *flip, unsigned i) {
      unsigned n = h->type().rank();
      std::vector<int64_t> shape = h->type().shape;
      tir::Value *ix =
          h->type().elem == intType ? h : b.createValue(OpCode::Bitcast, {h}, Type(intType, shape));
      unsigned axis = n - 1 - i;
      std::vector<int64_t> reduced = shape;
      reduced.erase(reduced.begin() + axis);
      tir::Operation *pair = b.create(OpCode::Reduce, {ix}, {Type(intType, reduced)});
      pair->setAttr("kind", std::string("xor"));
      pair->setAttr("axis", static_cast<int64_t>(axis));
      tir::Value *iy =
          b.binary(OpCode::Xor, ix, b.broadcast(b.expandDims(pair->result(), axis), shape));
      tir::Value *y = h->type().elem == intType
                          ? iy
                          : b.createValue(OpCode::Bitcast, {iy}, Type(h->type().elem, shape));
      tir::Value *isRight = broadcastTo(indicator(n, i), shape, loc);
      tir::Value *flipped = b.binary(OpCode::Xor, broadcastTo(flip, shape, loc), isRight);
      tir::Value *greater = castTo(b.cmp("gt", h, y), i32);
      tir::Value *swap = b.cmp("ne", greater, flipped);
      return b.select(swap, y, h);
    };
    auto bitonicMerge = [&](tir::Value *h, unsigned stage, int order) {
      unsigned n = h->type().rank();
      tir::Value *flip = order == 2 ? indicator(n, stage) : b.intConstant(order, Type(i32));
      for (unsigned i = 0; i < stage; ++i)
        h = compareAndSwap(h, flip, stage - 1 - i);
      return h;
    };
    tir::Value *h = b.createValue(OpCode::Reshape, {x}, Type(t.elem, cube(nDims)));
    if (mergeOnly) {
      h = bitonicMerge(h, logN, descending ? 1 : 0);
      return SemaValue::ofTensor(b.createValue(OpCode::Reshape, {h}, t));
    }
    for (unsigned i = 1; i <= logK; ++i)
      h = bitonicMerge(h, i, i < logN ? 2 : (descending ? 1 : 0));
    for (unsigned i = logK + 1; i <= logN; ++i) {
      unsigned n = h->type().rank();
      unsigned axis = n - 1 - logK;
      std::vector<int64_t> reduced = h->type().shape;
      reduced.erase(reduced.begin() + axis);
      tir::Operation *best = b.create(OpCode::Reduce, {h}, {Type(t.elem, reduced)});
      best->setAttr("kind", std::string(descending ? "max" : "min"));
      best->setAttr("axis", static_cast<int64_t>(axis));
      h = bitonicMerge(best->result(), logK, i < logN ? 2 : (descending ? 1 : 0));
    }
    std::vector<int64_t> shape = t.shape;
    shape.back() = int64_t(1) << logK;
    return SemaValue::ofTensor(b.createValue(OpCode::Reshape, {h}, Type(t.elem, shape)));
  }

  if (fn == "clamp") {
    auto a = bindCallArgs(*this, display, {"x", "min", "max", "propagate_nan"}, 3, args);
    bool propagate = a[3] && !a[3]->isNone() && propagateNanAll(*a[3], loc, display);
    // As Triton: numbers become tensors (to_tensor: tl.clamp(x_fp16, -1.5, 1.5) is fp32), bf16
    // tensors are widened to fp32 (the result is fp32), then x and the bounds are promoted
    // together; clamp is defined on floats only. The clip pattern looks at the numbers given.
    SemaValue givenMin = *a[1], givenMax = *a[2];
    for (int i = 0; i < 3; ++i)
      a[i] = promoteBFloat16ToFloat32(decayNumbers(*a[i], loc));
    DType type = operandType(*a[0], *a[1], false, loc);
    SemaValue typed = SemaValue::ofTensor(materialize(SemaValue::ofFloat(0), loc, type));
    type = operandType(typed, *a[2], false, loc);
    if (!type.isFloat())
      error(loc, "clamp is only supported for floating point types, got " + type.tritonName());
    std::vector<tir::Value *> v;
    std::vector<int64_t> shape;
    for (int i = 0; i < 3; ++i) {
      const SemaValue &s = *a[i];
      v.push_back(s.isTensor() ? castTo(s.value, type) : materialize(s, loc, type));
      shape = broadcastShape(Type(type, shape), v.back()->type(), loc);
    }
    for (tir::Value *&e : v)
      e = broadcastTo(e, shape, loc);
    if (isClipPattern(givenMin, givenMax, v[1], v[2]) &&
        (type.kind == ScalarKind::F32 || type.kind == ScalarKind::F16)) {
      // clamp(x, -limit, limit), which Triton lowers to min.xorsign.abs(x, limit) from sm_90
      // (codegen: `clip`): the same values, but a NaN x gives +-limit by its sign, not -limit.
      tir::Value *r = b.binary(OpCode::Minimum, v[0], v[2]);
      r->definingOp()->setAttr("clip", true);
      if (propagate)
        r->definingOp()->setAttr("propagate_nan", std::string("all"));
      return SemaValue::ofTensor(r);
    }
    // minnum(maxnum(x, min), max), Triton's lowering without NaN propagation; with it,
    // minimum(maximum(x, min), max) (max.NaN / min.NaN): a NaN operand gives the canonical NaN.
    tir::Value *lower = b.binary(OpCode::Maximum, v[0], v[1]);
    tir::Value *r = b.binary(OpCode::Minimum, lower, v[2]);
    if (propagate) {
      lower->definingOp()->setAttr("propagate_nan", std::string("all"));
      r->definingOp()->setAttr("propagate_nan", std::string("all"));
    }
    return SemaValue::ofTensor(r);
  }

  // div_rn(x, y) and fdiv(x, y, ieee_rounding=False): floating-point division, correctly rounded
  // (div.rn) for div_rn and for fdiv with ieee_rounding; fdiv otherwise is `/`.
  auto a = fn == "div_rn" ? bindCallArgs(*this, display, {"x", "y"}, 2, args)
                          : bindCallArgs(*this, display, {"x", "y", "ieee_rounding"}, 2, args);
  bool precise = fn == "div_rn" ||
                 constFlag(fn == "fdiv" ? a[2] : std::nullopt, loc, display + "'s ieee_rounding");
  // Triton 3.6's div_rn checks its tensor arguments as given (math._check_dtype): fp32 only,
  // so an fp64 or fp16 tensor is its ValueError; Python numbers are not checked.
  if (fn == "div_rn")
    for (int i = 0; i < 2; ++i)
      if (a[i]->isTensor() && a[i]->value->type().elem.kind != ScalarKind::F32)
        error(loc, "Expected dtype ['fp32'] but got " + a[i]->value->type().elem.tritonName() +
                       " (Triton's ValueError for " + display +
                       ": convert the argument with .to(tl.float32))");
  // Numbers become tensors first (to_tensor), then both are promoted as tensor operands.
  SemaValue x = decayNumbers(*a[0], loc), y = decayNumbers(*a[1], loc);
  DType type = operandType(x, y, true, loc);
  if (!type.isFloat())
    error(loc, display + " needs floating-point operands, got " + type.tritonName());
  auto [lhs, rhs] = convertAndBroadcast(x, y, type, loc);
  tir::Value *r = b.binary(OpCode::Div, lhs, rhs);
  if (precise)
    r->definingOp()->setAttr("rounding", std::string("rn"));
  return SemaValue::ofTensor(r);
}

/// Whether tl.clamp's bounds are the pattern Triton's ClampFOpConversion recognises as a clip:
/// two compile-time numbers with min == -max, or min computed as `0 - max` from max itself.
bool Specializer::isClipPattern(const SemaValue &min, const SemaValue &max, tir::Value *lower,
                                tir::Value *upper) {
  auto number = [](const SemaValue &v) {
    return v.kind == Kind::Float ? v.floatValue : static_cast<double>(v.intValue);
  };
  if (min.isConstexprNumber() && max.isConstexprNumber())
    return number(min) == -number(max);
  const tir::Operation *sub = lower->definingOp();
  if (!sub || sub->code() != OpCode::Sub || sub->operand(1) != upper)
    return false;
  const tir::Operation *zero = sub->operand(0)->definingOp();
  while (zero && zero->code() == OpCode::Splat)
    zero = zero->operand(0)->definingOp();
  if (!zero || zero->code() != OpCode::Constant)
    return false;
  const tir::Attribute &value = zero->attr("value");
  if (auto *d = std::get_if<double>(&value))
    return *d == 0.0;
  if (auto *i = std::get_if<int64_t>(&value))
    return *i == 0;
  return false;
}

SemaValue Specializer::promoteBFloat16ToFloat32(const SemaValue &v) {
  if (!v.isTensor() || v.value->type().elem.kind != ScalarKind::BF16)
    return v;
  return SemaValue::ofTensor(castTo(v.value, DType::scalar(ScalarKind::F32)));
}

bool Specializer::propagateNanAll(const SemaValue &p, SourceLoc loc, const std::string &display) {
  bool all = p.kind == Kind::Module && p.name.size() >= 4 &&
             p.name.compare(p.name.size() - 4, 4, ".ALL") == 0;
  bool none = p.kind == Kind::Module && p.name.size() >= 5 &&
              p.name.compare(p.name.size() - 5, 5, ".NONE") == 0;
  if (!all && !none)
    error(loc, display +
                   "'s propagate_nan must be tl.PropagateNan.NONE or "
                   "tl.PropagateNan.ALL, not " +
                   p.describe());
  return all;
}

} // namespace tilec::sema
