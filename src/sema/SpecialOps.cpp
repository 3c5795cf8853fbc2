// tl.histogram, tl.gather and tl.inline_asm_elementwise: operations of their own in the IR,
// because neither backend can build them from other ops at a reasonable cost (a histogram or a
// gather written as a one-hot reduction grows with the product of two dimensions).
#include "sema/Specializer.h"

#include <algorithm>

namespace tilec::sema {

using tir::DType;
using tir::OpCode;
using tir::ScalarKind;
using tir::Type;
using Kind = SemaValue::Kind;

namespace {


} // namespace

SemaValue Specializer::callSpecialOp(const std::string &fn, CallArgs &args) {
  SourceLoc loc = args.loc;
  std::string display = "tl." + fn;

  if (fn == "histogram") {
    auto a = bindCallArgs(*this, display, {"input", "num_bins", "mask"}, 2, args);
    if (!a[0]->isTensor() || a[0]->value->type().isScalar())
      error(loc, display + " needs a 1-D tensor, not " + a[0]->describe());
    tir::Value *input = a[0]->value;
    if (input->type().rank() != 1)
      error(loc, display + " only supports 1-D input, got a tensor of rank " +
                     std::to_string(input->type().rank()));
    if (!input->type().elem.isInteger() || input->type().elem.isBool())
      error(loc, display + " only supports integer input, not " + input->type().elem.str());
    int64_t bins = constantInt(*a[1], loc, "num_bins");
    if (bins <= 0 || (bins & (bins - 1)) != 0)
      error(loc, display + "'s num_bins must be a power of two, got " + std::to_string(bins));
    checkTensorSize({bins}, loc);
    std::vector<tir::Value *> operands = {input};
    if (isGiven(a[2])) {
      tir::Value *mask = toValue(*a[2], loc, "the mask");
      if (!mask->type().elem.isBool())
        error(loc, display + "'s mask must be a boolean tensor, not " + mask->type().elem.str());
      operands.push_back(broadcastTo(mask, input->type().shape, loc));
    }
    tir::Operation *op = builder_.create(OpCode::Histogram, operands,
                                         {Type(DType::scalar(ScalarKind::I32), {bins})});
    op->setAttr("num_bins", bins);
    return SemaValue::ofTensor(op->result());
  }

  if (fn == "gather") {
    auto a = bindCallArgs(*this, display, {"src", "index", "axis"}, 3, args);
    if (!a[0]->isTensor() || a[0]->value->type().isScalar())
      error(loc, display + "'s src must be a tensor, not " + a[0]->describe());
    if (!a[1]->isTensor() || a[1]->value->type().isScalar())
      error(loc, display + "'s index must be a tensor, not " + a[1]->describe());
    tir::Value *src = a[0]->value, *index = a[1]->value;
    if (!index->type().elem.isInteger() || index->type().elem.isBool())
      error(loc, display + "'s index must be an integer tensor, not " + index->type().elem.str());
    if (src->type().elem.isPointer())
      error(loc, display + " of pointers is not supported yet");
    int64_t rank = src->type().rank();
    if (static_cast<int64_t>(index->type().rank()) != rank)
      error(loc, display + ": source and index tensors must have the same rank (" +
                     std::to_string(rank) + " and " + std::to_string(index->type().rank()) + ")");
    int64_t axis = constantInt(*a[2], loc, "axis");
    if (axis < -rank || axis >= rank)
      error(loc, display + "'s axis " + std::to_string(axis) + " is out of range for rank " +
                     std::to_string(rank));
    if (axis < 0)
      axis += rank;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && index->type().shape[d] != src->type().shape[d])
        error(loc, display + ": index dimension " + std::to_string(d) + " (" +
                       std::to_string(index->type().shape[d]) + ") must match the source's (" +
                       std::to_string(src->type().shape[d]) + ")");
    tir::Operation *op = builder_.create(OpCode::Gather, {src, index},
                                         {Type(src->type().elem, index->type().shape)});
    op->setAttr("axis", axis);
    return SemaValue::ofTensor(op->result());
  }

  if (fn == "inline_asm_elementwise") {
    auto a = bindCallArgs(*this, display,
                          {"asm", "constraints", "args", "dtype", "is_pure", "pack"}, 6, args);
    if (a[0]->kind != Kind::String)
      error(loc, display + "'s asm must be a constant string, not " + a[0]->describe());
    if (a[1]->kind != Kind::String)
      error(loc, display + "'s constraints must be a constant string, not " + a[1]->describe());
    std::optional<bool> pure = constexprTruth(*a[4]);
    if (!pure)
      error(loc, display + "'s is_pure must be a constant");
    int64_t pack = constantInt(*a[5], loc, "pack");
    if (pack < 1)
      error(loc, display + "'s pack must be at least 1, got " + std::to_string(pack));
    // dtype: one dtype (one result) or a tuple of them (a tuple of results).
    std::vector<DType> resultTypes;
    bool multiple = a[3]->kind == Kind::Tuple;
    if (multiple) {
      for (const SemaValue &e : a[3]->elems) {
        if (e.kind != Kind::DType)
          error(loc, display + "'s dtype must be a dtype or a tuple of dtypes");
        resultTypes.push_back(e.dtype);
      }
      if (resultTypes.empty())
        error(loc, display + " needs at least one result dtype");
    } else {
      if (a[3]->kind != Kind::DType)
        error(loc,
              display + "'s dtype must be a dtype or a tuple of dtypes, not " + a[3]->describe());
      resultTypes.push_back(a[3]->dtype);
    }
    // args: converted to tensors as they are (no arithmetic promotion) and broadcast together.
    std::vector<tir::Value *> operands;
    if (a[2]->kind == Kind::Tuple) {
      for (const SemaValue &e : a[2]->elems)
        operands.push_back(toValue(e, loc, "an argument of tl.inline_asm_elementwise"));
    } else if (!a[2]->isNone()) {
      operands.push_back(toValue(*a[2], loc, "an argument of tl.inline_asm_elementwise"));
    }
    std::vector<int64_t> shape;
    for (tir::Value *v : operands)
      shape = broadcastShape(Type(v->type().elem, shape), v->type(), loc);
    for (tir::Value *&v : operands) {
      if (v->type().elem.isBool())
        error(loc, display + " of boolean arguments is not supported yet");
      v = broadcastTo(v, shape, loc);
    }
    std::vector<Type> types;
    for (const DType &t : resultTypes) {
      if (t.isBool())
        error(loc, display + " with a boolean result is not supported yet");
      types.push_back(Type(t, shape));
    }
    tir::Operation *op = builder_.create(OpCode::InlineAsm, operands, types);
    op->setAttr("asm", a[0]->name);
    op->setAttr("constraints", a[1]->name);
    op->setAttr("pure", *pure);
    op->setAttr("pack", pack);
    if (!multiple)
      return SemaValue::ofTensor(op->result());
    std::vector<SemaValue> results;
    for (unsigned r = 0; r < op->numResults(); ++r)
      results.push_back(SemaValue::ofTensor(op->result(r)));
    return SemaValue::ofTuple(std::move(results));
  }

  error(loc, display + " is not supported yet");
}

} // namespace tilec::sema
