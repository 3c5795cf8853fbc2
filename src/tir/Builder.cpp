#include "tir/Builder.h"

namespace tilec::tir {

Operation *Builder::create(OpCode code, std::vector<Value *> operands,
                           std::vector<Type> resultTypes) {
  ++numCreated_;
  auto op = std::make_unique<Operation>(code, loc_);
  op->setOperands(std::move(operands));
  for (Type &t : resultTypes)
    op->addResult(std::move(t));
  return block_->insert(pos_, std::move(op));
}

Value *Builder::createValue(OpCode code, std::vector<Value *> operands, Type resultType) {
  return create(code, std::move(operands), {std::move(resultType)})->result();
}

Value *Builder::intConstant(int64_t value, Type type) {
  Operation *op = create(OpCode::Constant, {}, {std::move(type)});
  op->setAttr("value", value);
  return op->result();
}

Value *Builder::floatConstant(double value, Type type) {
  Operation *op = create(OpCode::Constant, {}, {std::move(type)});
  op->setAttr("value", value);
  return op->result();
}

Value *Builder::programId(unsigned axis) {
  Operation *op = create(OpCode::ProgramId, {}, {Type(DType::scalar(ScalarKind::I32))});
  op->setAttr("axis", static_cast<int64_t>(axis));
  return op->result();
}

Value *Builder::numPrograms(unsigned axis) {
  Operation *op = create(OpCode::NumPrograms, {}, {Type(DType::scalar(ScalarKind::I32))});
  op->setAttr("axis", static_cast<int64_t>(axis));
  return op->result();
}

Value *Builder::makeRange(int64_t start, int64_t end) {
  Operation *op =
      create(OpCode::MakeRange, {}, {Type(DType::scalar(ScalarKind::I32), {end - start})});
  op->setAttr("start", start);
  op->setAttr("end", end);
  return op->result();
}

Value *Builder::splat(Value *scalar, std::vector<int64_t> shape) {
  return createValue(OpCode::Splat, {scalar}, Type(scalar->type().elem, std::move(shape)));
}

Value *Builder::broadcast(Value *tensor, std::vector<int64_t> shape) {
  return createValue(OpCode::Broadcast, {tensor}, Type(tensor->type().elem, std::move(shape)));
}

Value *Builder::expandDims(Value *tensor, unsigned axis) {
  // A scalar (`tl.sum(x, 0)[None]`) becomes a one-element tensor: a splat, which the layout
  // passes know for scalars; expand_dims keeps to tensors.
  if (tensor->type().shape.empty())
    return splat(tensor, {1});
  std::vector<int64_t> shape = tensor->type().shape;
  shape.insert(shape.begin() + axis, 1);
  Operation *op = create(OpCode::ExpandDims, {tensor}, {Type(tensor->type().elem, shape)});
  op->setAttr("axis", static_cast<int64_t>(axis));
  return op->result();
}

Value *Builder::binary(OpCode code, Value *lhs, Value *rhs) {
  return createValue(code, {lhs, rhs}, lhs->type());
}

Value *Builder::cmp(const std::string &predicate, Value *lhs, Value *rhs) {
  Operation *op =
      create(OpCode::Cmp, {lhs, rhs}, {lhs->type().withElem(DType::scalar(ScalarKind::I1))});
  op->setAttr("predicate", predicate);
  return op->result();
}

Value *Builder::select(Value *cond, Value *ifTrue, Value *ifFalse) {
  return createValue(OpCode::Select, {cond, ifTrue, ifFalse}, ifTrue->type());
}

Value *Builder::indexIs(const std::vector<int64_t> &shape, unsigned axis, int64_t k) {
  // The range widened with expand_dims, not reshaped: each thread then computes the indices of
  // its own elements, where a reshape would move them through shared memory.
  Value *index = makeRange(0, shape[axis]);
  if (shape.size() > 1) {
    for (unsigned d = 0; d < shape.size(); ++d)
      if (d != axis)
        index = expandDims(index, d);
    index = broadcast(index, shape);
  }
  Value *kValue = splat(intConstant(k, Type(index->type().elem)), shape);
  return cmp("eq", index, kValue);
}

Value *Builder::pickAlong(Value *x, unsigned axis, int64_t k) {
  const Type &t = x->type();
  Value *neutral =
      t.elem.isFloat() ? floatConstant(-0.0, Type(t.elem)) : intConstant(0, Type(t.elem));
  Value *picked = select(indexIs(t.shape, axis, k), x, splat(neutral, t.shape));
  std::vector<int64_t> reduced = t.shape;
  reduced.erase(reduced.begin() + axis);
  Operation *op = create(OpCode::Reduce, {picked}, {Type(t.elem, reduced)});
  op->setAttr("kind", std::string(t.elem.isFloat() ? "sum" : "xor"));
  op->setAttr("axis", static_cast<int64_t>(axis));
  return op->result();
}

Value *Builder::unary(OpCode code, Value *operand) {
  return createValue(code, {operand}, operand->type());
}

Value *Builder::cast(Value *value, DType to) {
  return createValue(OpCode::Cast, {value}, value->type().withElem(to));
}

Value *Builder::addPtr(Value *ptr, Value *offset) {
  return createValue(OpCode::AddPtr, {ptr, offset}, ptr->type());
}

} // namespace tilec::tir
