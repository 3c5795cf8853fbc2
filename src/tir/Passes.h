// Target-independent TIR passes. Each runs on one function and leaves it verifiable.
#pragma once

#include "tir/IR.h"

namespace tilec::tir {

/// Folds operations on constants (arithmetic, casts, comparisons, splats of constants) into
/// constants, and simplifies x+0, x*1 and the like.
void runCanonicalize(Function &function);

/// Rewrites `tl.sum(a[:, :, None] * b[None, :, :], axis=1)` on fp32 as tl.dot(a, b) with TF32
/// precision, as Triton's Combine pass does (CombineBroadcastMulReduce.cpp says when).
void runCombineBroadcastMulReduce(Function &function);

/// Common-subexpression elimination of pure operations, scoped by region.
void runCSE(Function &function);

/// Removes operations whose results are unused and that have no side effects.
void runDCE(Function &function);

/// Moves loop-invariant scalar operations, and scalar loads of loops without side effects (masked
/// by the loop running at all), to before their loop, as Triton's triton-licm does before
/// pipelining.
void runLoopInvariantCodeMotion(Function &function);

/// True for operations that touch memory or the outside world (store, atomics, print, assert,
/// terminators), or hold such operations in their regions.
bool hasSideEffects(const Operation &op);

/// The first operation that makes or takes an empty tensor (a 0 in its shape, as
/// `tl.zeros([0])` makes), or null: run after DCE, which removes the unused ones.
const Operation *findEmptyTensorOp(Function &function);

/// Replaces every use of `from` inside `block` (nested regions included) with `to`.
void replaceAllUsesWith(Block &block, Value *from, Value *to);

} // namespace tilec::tir
