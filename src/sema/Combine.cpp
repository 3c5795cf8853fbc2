// tl.associative_scan, tl.reduce and tl.xor_sum: scans and reductions over any number of
// operands, combined by a user's @triton.jit function.
//
// As in Triton, the combine function becomes a region of the scan or reduce operation: 2N scalar
// arguments (the left operands, then the right ones) and a yield of its N results. The
// interpreter runs the region on pairs of elements; the GPU lowering inlines it at every
// combination step, in the order of Triton's lowering.
#include "sema/Specializer.h"

#include <algorithm>

namespace tilec::sema {

using tir::DType;
using tir::OpCode;
using tir::ScalarKind;
using tir::Type;
using Kind = SemaValue::Kind;

bool Specializer::constFlag(const std::optional<SemaValue> &v, SourceLoc loc,
                            const std::string &what) {
  if (!isGiven(v))
    return false;
  std::optional<bool> truth = constexprTruth(*v);
  if (!truth)
    error(loc, what + " must be a constant (tl.constexpr), not " + v->describe());
  return *truth;
}

int64_t Specializer::constAxis(const SemaValue &v, unsigned rank, SourceLoc loc,
                               const std::string &what) {
  int64_t axis = constantInt(v, loc, what + "'s axis");
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= static_cast<int64_t>(rank))
    error(loc, what + "'s axis " + std::to_string(v.kind == Kind::Int ? v.intValue : 0) +
                   " is out of range for rank " + std::to_string(rank));
  return axis;
}

void Specializer::buildCombineRegion(tir::Operation &op, const SemaValue &combineFn,
                                     const std::vector<DType> &types, SourceLoc loc,
                                     const std::string &what) {
  SemaValue fn = jitFunctionNamed(combineFn, loc);
  if (fn.kind != Kind::JitFunction && fn.kind != Kind::Builtin)
    error(loc, what + "'s combine_fn must be a @triton.jit function, not " + fn.describe());
  tir::Block &body = op.addRegion().block();
  std::vector<SemaValue> params;
  for (int side = 0; side < 2; ++side)
    for (const DType &t : types)
      params.push_back(SemaValue::ofTensor(body.addArgument(Type(t))));
  tir::Builder::InsertPoint saved = builder_.insertionPoint();
  builder_.setInsertionPointToEnd(body);
  CallArgs call{params, {}, loc};
  SemaValue result =
      fn.kind == Kind::JitFunction ? callJitFunction(*fn.function, call) : callBuiltin(fn, call);
  std::vector<SemaValue> results =
      result.kind == Kind::Tuple ? result.elems : std::vector<SemaValue>{result};
  if (results.size() != types.size())
    error(loc, what + "'s combine_fn returns " + std::to_string(results.size()) + " value" +
                   (results.size() == 1 ? "" : "s") + " for " + std::to_string(types.size()) +
                   " operand" + (types.size() == 1 ? "" : "s"));
  std::vector<tir::Value *> yielded;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].isTensor() && !results[i].value->type().isScalar())
      error(loc, what + "'s combine_fn must return scalars, got " + results[i].describe());
    yielded.push_back(toTensorAs(results[i], loc, types[i]));
  }
  builder_.create(OpCode::Yield, yielded, {});
  builder_.restoreInsertionPoint(saved);
}

/// The operands of a scan or reduction: one tensor or a tuple of them, broadcast to one shape.
std::vector<tir::Value *> Specializer::combinedOperands(const SemaValue &input, SourceLoc loc,
                                                        const std::string &what) {
  std::vector<SemaValue> inputs =
      input.kind == Kind::Tuple ? input.elems : std::vector<SemaValue>{input};
  if (inputs.empty())
    error(loc, what + " needs at least one tensor");
  std::vector<tir::Value *> values;
  std::vector<int64_t> shape;
  for (const SemaValue &v : inputs) {
    values.push_back(toValue(v, loc, what.c_str()));
    if (values.back()->type().elem.isPointer())
      error(loc, what + " of pointers is not supported");
    shape = broadcastShape(Type(values.back()->type().elem, shape), values.back()->type(), loc);
  }
  for (tir::Value *&v : values)
    v = broadcastTo(v, shape, loc);
  return values;
}

SemaValue Specializer::callCombining(const std::string &fn, CallArgs &args) {
  SourceLoc loc = args.loc;
  std::string display = "tl." + fn;

  if (fn == "associative_scan") {
    auto a = bindCallArgs(*this, display, {"input", "axis", "combine_fn", "reverse"}, 3, args);
    std::vector<tir::Value *> inputs = combinedOperands(*a[0], loc, display);
    unsigned rank = inputs[0]->type().rank();
    if (rank == 0)
      error(loc, display + " needs a tensor, not a scalar");
    int64_t axis = constAxis(*a[1], rank, loc, display);
    bool reverse = constFlag(a[3], loc, display + "'s reverse");
    std::vector<Type> types;
    std::vector<DType> elems;
    for (tir::Value *v : inputs) {
      types.push_back(v->type());
      elems.push_back(v->type().elem);
    }
    tir::Operation *op = builder_.create(OpCode::Scan, inputs, types);
    op->setAttr("kind", std::string("combine"));
    op->setAttr("axis", axis);
    op->setAttr("reverse", reverse);
    buildCombineRegion(*op, *a[2], elems, loc, display);
    if (inputs.size() == 1 && a[0]->kind != Kind::Tuple)
      return SemaValue::ofTensor(op->result());
    std::vector<SemaValue> results;
    for (unsigned i = 0; i < op->numResults(); ++i)
      results.push_back(SemaValue::ofTensor(op->result(i)));
    return SemaValue::ofTuple(std::move(results));
  }

  // tl.reduce(input, axis, combine_fn, keep_dims=False) and tl.xor_sum(input, axis=None,
  // keep_dims=False), which is tl.reduce with `a ^ b` in Triton.
  bool xorSum = fn == "xor_sum";
  auto a =
      xorSum ? bindCallArgs(*this, display, {"input", "axis", "keep_dims"}, 1, args)
             : bindCallArgs(*this, display, {"input", "axis", "combine_fn", "keep_dims"}, 3, args);
  bool keepDims = constFlag(a[xorSum ? 2 : 3], loc, display + "'s keep_dims");
  std::vector<tir::Value *> inputs = combinedOperands(*a[0], loc, display);
  if (xorSum) {
    if (inputs.size() != 1)
      error(loc, display + " takes one tensor");
    if (!inputs[0]->type().elem.isInteger())
      error(loc, "xor_sum only supported for integers, got " + inputs[0]->type().elem.tritonName());
  }
  unsigned rank = inputs[0]->type().rank();
  int64_t axis = 0;
  if (!isGiven(a[1])) {
    // As Triton: without an axis, the operands are flattened and reduced along it.
    for (tir::Value *&v : inputs) {
      int64_t n = v->type().numElements();
      if (v->type().isScalar())
        v = builder_.splat(v, {1});
      else if (rank != 1)
        v = builder_.createValue(OpCode::Reshape, {v}, Type(v->type().elem, {n}));
    }
  } else {
    if (rank == 0)
      error(loc, display + " of a scalar needs axis=None");
    axis = constAxis(*a[1], rank, loc, display);
  }
  std::vector<Type> types;
  std::vector<DType> elems;
  for (tir::Value *v : inputs) {
    std::vector<int64_t> shape = v->type().shape;
    shape.erase(shape.begin() + axis);
    types.emplace_back(v->type().elem, shape);
    elems.push_back(v->type().elem);
  }
  tir::Operation *op = builder_.create(OpCode::Reduce, inputs, types);
  op->setAttr("kind", std::string(xorSum ? "xor" : "combine"));
  op->setAttr("axis", axis);
  if (!xorSum)
    buildCombineRegion(*op, *a[2], elems, loc, display);
  std::vector<SemaValue> results;
  for (unsigned i = 0; i < op->numResults(); ++i) {
    tir::Value *r = op->result(i);
    if (keepDims) {
      if (!isGiven(a[1]))
        r = builder_.splat(r, std::vector<int64_t>(std::max(1u, rank), 1));
      else
        r = builder_.expandDims(r, static_cast<unsigned>(axis));
    }
    results.push_back(SemaValue::ofTensor(r));
  }
  if (results.size() == 1 && a[0]->kind != Kind::Tuple)
    return results[0];
  return SemaValue::ofTuple(std::move(results));
}

} // namespace tilec::sema
