// Small rewriting helpers the GPU passes share. TIR has no use lists, so these walk the function
// (or take a tir::UseIndex, for passes that replace the uses of many values).
#pragma once

#include "analysis/AxisInfo.h"
#include "gpu/Layout.h"
#include "tir/Builder.h"
#include "tir/IR.h"
#include "tir/UseIndex.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace tilec::gpu {

/// Replaces every use of `from` in `function` by `to`, except as an operand of `except`.
void replaceAllUses(tir::Function &function, tir::Value *from, tir::Value *to,
                    const tir::Operation *except = nullptr);

/// Gives result `r` of `op` layout `wanted` and converts it back to the layout it had for its
/// users (nothing when it has that layout already): the users see no change until layout
/// assignment carries `wanted` on through the conversion.
void retypeResult(tir::Function &function, tir::Operation &op, unsigned r, const LayoutPtr &wanted);
/// The same, replacing the uses through `uses` (tir/UseIndex.h), which it keeps up to date.
void retypeResult(tir::UseIndex &uses, tir::Operation &op, unsigned r, const LayoutPtr &wanted);

/// Which operations use each value (TIR keeps no use lists).
std::map<const tir::Value *, std::vector<tir::Operation *>> usersOf(tir::Function &function);

/// Erases operations without side effects whose results nobody uses, until none is left.
void eraseDeadPureOps(tir::Function &function);

/// Drops the values `loop` (a `for`) carries that nothing needs: no use of the loop's result, and
/// in the body only the computation of the value's own next iteration (`p += stride` of a pointer
/// that no load reads any more), however such values feed each other. What computed them is left
/// to eraseDeadPureOps.
void eraseUnusedCarriedValues(tir::Function &function, tir::Operation &loop);

/// The layout a value's type carries (null for scalars and values not yet laid out).
inline LayoutPtr layoutOf(const tir::Value *value) {
  return value->type().layout;
}

inline bool sameLayout(const LayoutPtr &a, const LayoutPtr &b) {
  if (!a || !b)
    return a == b;
  return *a == *b;
}

/// The layout `op`'s tensor operands must have for its result to have `layout` when `op` is
/// recomputed in that layout: `layout` itself for elementwise ops, broadcasts and scans, its slice
/// for expand_dims, the parent of a slice along the axis for a reduction; null where `op` cannot
/// produce `layout` (a scan in a layout isScanLayout refuses).
LayoutPtr operandLayoutFor(const tir::Operation &op, const LayoutPtr &layout);

/// Whether a scan may run in `layout`: Triton scans only in blocked layouts, never in a slice of
/// one nor in a tensor core's accumulator layout, so neither its layout propagation nor its
/// rematerialisation ever moves a scan into one of those (inferSrcEncoding/inferDstEncoding
/// refuse); the scan keeps its blocked layout and its operand or result is converted instead.
bool isScanLayout(const LayoutPtr &layout);

/// Whether `layout` is a tensor core's accumulator layout (mma.sync's or wgmma's).
bool isTensorCoreLayout(const LayoutPtr &layout);

/// A copy of `op` at `b`, its attributes and regions included, with `operands` and results of
/// `types`.
tir::Operation *cloneOp(tir::Builder &b, const tir::Operation &op,
                        std::vector<tir::Value *> operands, std::vector<tir::Type> types);

/// Inserts `convert_layout(value)` to `layout` before `before` and returns its result.
tir::Value *insertConvert(tir::Value *value, LayoutPtr layout, tir::Operation *before);

/// The tensor map for TMA copies between a 2-D `tile` of tensor descriptor argument `descriptor`
/// and shared memory in the NVMMA layout (codegen/SharedTile.h, nvmmaTilePlan): rows along the
/// descriptor's contiguous last dimension, cut into blocks of the swizzle width (one box each,
/// all rows at once: at most 256, TMA's limit), 128-byte swizzled for blocks of 128 bytes (64 and
/// 32 for narrower rows). None where TMA cannot copy the tile so: `column`, the axis facts of the
/// tile's column offset, must prove it a multiple of 16 bytes (an unaligned box traps).
std::optional<tir::TensorMap> nvmmaTensorMap(const tir::Type &tile, unsigned descriptor,
                                             const analysis::AxisInfo &column);

/// The index of `map` in `function`'s tensor maps, added where it is new (one map serves every
/// copy of a descriptor with the same box).
unsigned addTensorMap(tir::Function &function, const tir::TensorMap &map);

} // namespace tilec::gpu
