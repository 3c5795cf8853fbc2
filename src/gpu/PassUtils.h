// Small rewriting helpers the GPU passes share. TIR has no use lists, so these walk the function.
#pragma once

#include "gpu/Layout.h"
#include "tir/IR.h"

#include <map>
#include <vector>

namespace tilec::gpu {

/// Replaces every use of `from` in `function` by `to`, except as an operand of `except`.
void replaceAllUses(tir::Function &function, tir::Value *from, tir::Value *to,
                    const tir::Operation *except = nullptr);

/// Gives result `r` of `op` layout `wanted` and converts it back to the layout it had for its
/// users (nothing when it has that layout already): the users see no change until layout
/// assignment carries `wanted` on through the conversion.
void retypeResult(tir::Function &function, tir::Operation &op, unsigned r, const LayoutPtr &wanted);

/// Which operations use each value (TIR keeps no use lists).
std::map<const tir::Value *, std::vector<tir::Operation *>> usersOf(tir::Function &function);

/// Erases operations without side effects whose results nobody uses, until none is left.
void eraseDeadPureOps(tir::Function &function);

/// The layout a value's type carries (null for scalars and values not yet laid out).
inline LayoutPtr layoutOf(const tir::Value *value) {
  return value->type().layout;
}

inline bool sameLayout(const LayoutPtr &a, const LayoutPtr &b) {
  if (!a || !b)
    return a == b;
  return *a == *b;
}

/// Inserts `convert_layout(value)` to `layout` before `before` and returns its result.
tir::Value *insertConvert(tir::Value *value, LayoutPtr layout, tir::Operation *before);

} // namespace tilec::gpu
