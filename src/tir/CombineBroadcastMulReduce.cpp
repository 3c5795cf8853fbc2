// A matrix product written as a reduction, `tl.sum(a[:, :, None] * b[None, :, :], axis=1)`, is a
// tl.dot of a and b: Triton rewrites it so (its Combine pass, CombineBroadcastMulReducePattern)
// before any other optimisation, on fp32 operands with TF32 precision, so the result is Triton's
// only when tilec makes the same rewrite. It also puts the product on the tensor cores.
//
// The pattern, as Triton matches it: a sum reduction of the float product of two broadcasts of
// expand_dims, the left expanded at axis 2 and the right at axis 0, with M and N of at least 16.
// Unlike Triton, the reduction must be along axis 1 (the only one where the rewrite computes the
// same sum: Triton rewrites any axis) and the operands fp32 (Triton's rewrite makes invalid IR for
// fp16 and bf16), and K is at least 16 (the smallest tl.dot).
#include "tir/Builder.h"
#include "tir/Passes.h"

#include <vector>

namespace tilec::tir {

namespace {

/// The operand of `expand_dims` at `axis` under the broadcast `value`, or null.
Value *expandedOperand(Value *value, int64_t axis) {
  Operation *broadcast = value->definingOp();
  if (!broadcast || broadcast->code() != OpCode::Broadcast)
    return nullptr;
  Operation *expand = broadcast->operand(0)->definingOp();
  if (!expand || expand->code() != OpCode::ExpandDims || expand->intAttr("axis") != axis)
    return nullptr;
  return expand->operand(0);
}

/// The dot that `reduce` computes, created before it, or null when it is not the pattern.
Value *rewriteAsDot(Operation &reduce) {
  if (reduce.code() != OpCode::Reduce || reduce.numOperands() != 1 ||
      reduce.strAttr("kind") != "sum" || reduce.intAttr("axis") != 1)
    return nullptr;
  Operation *mul = reduce.operand(0)->definingOp();
  if (!mul || mul->code() != OpCode::Mul)
    return nullptr;
  const Type &product = mul->result()->type();
  if (product.rank() != 3 || !(product.elem == DType::scalar(ScalarKind::F32)))
    return nullptr;
  Value *lhs = expandedOperand(mul->operand(0), 2);
  Value *rhs = expandedOperand(mul->operand(1), 0);
  if (!lhs || !rhs)
    return nullptr;
  const int64_t m = product.shape[0], k = product.shape[1], n = product.shape[2];
  if (m < 16 || n < 16 || k < 16)
    return nullptr;

  Builder builder;
  builder.setInsertionPoint(&reduce);
  builder.setLoc(reduce.loc());
  Value *zero = builder.floatConstant(0.0, Type(product.elem, {m, n}));
  Operation *dot = builder.create(OpCode::Dot, {lhs, rhs, zero}, {zero->type()});
  dot->setAttr("input_precision", std::string("tf32"));
  return dot->result();
}

} // namespace

void runCombineBroadcastMulReduce(Function &function) {
  // Uses of a reduction's result may be in any region below the one that holds it; replacing
  // in the function's body reaches them all. DCE removes the reduction and the product.
  std::vector<std::pair<Value *, Value *>> replaced;
  walk(function.body(), [&](Operation &op) {
    if (Value *dot = rewriteAsDot(op))
      replaced.push_back({op.result(), dot});
  });
  for (const auto &[from, to] : replaced)
    replaceAllUsesWith(function.body(), from, to);
}

} // namespace tilec::tir
