//===- EmptyTensors.cpp - Find operations on empty tensors ----------------------------------===//
//
// Triton 3.6 takes 0 as a power of two in a block shape, so `tl.zeros([0], ...)` builds an empty
// tensor (ejkernel's decode kernel does, on a path that never uses it). Nothing past the front
// end lowers an empty tensor, so tilec accepts one only where clean-up removes it: this finds an
// operation that still makes or takes one, for the driver to report at its source.
//
//===----------------------------------------------------------------------===//

#include "tir/Passes.h"

namespace tilec::tir {

namespace {

bool isEmptyTensor(const Type &type) { return type.isTensor() && type.numElements() == 0; }

} // namespace

const Operation *findEmptyTensorOp(Function &function) {
  // The first use of an empty tensor says most about where the kernel needs it; an operation
  // that makes one with no use left (none: DCE ran) would be the fallback.
  const Operation *user = nullptr;
  const Operation *maker = nullptr;
  walk(function, [&](Operation &op) {
    for (const Value *operand : op.operands())
      if (!user && isEmptyTensor(operand->type()))
        user = &op;
    for (unsigned r = 0; r < op.numResults(); ++r)
      if (!maker && isEmptyTensor(op.result(r)->type()))
        maker = &op;
  });
  return user ? user : maker;
}

} // namespace tilec::tir
