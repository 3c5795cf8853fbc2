// Coalescing: each load and store of a pointer tensor gets the blocked layout in which a thread
// holds, along the most contiguous dimension, as many consecutive elements as one vector
// instruction can access (axis info's vectorWidth: 4 x fp32, 8 x fp16 for 16-byte aligned
// contiguous pointers), and neighbouring threads hold neighbouring vectors, so that a warp reads
// whole cache lines. The operands are converted to that layout here, and the results back for
// their users; AssignLayouts then gives producers and users the same layout, which makes most of
// those conversions vanish.
#include "analysis/AxisInfo.h"
#include "gpu/Layout.h"
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"

#include <algorithm>
#include <map>
#include <set>

namespace tilec::gpu {

using tir::OpCode;
using tir::Operation;

static bool isMemoryAccess(const Operation &op) {
  switch (op.code()) {
  case OpCode::Load:
  case OpCode::Store:
  case OpCode::AtomicRMW:
  case OpCode::AtomicCAS:
    return op.operand(0)->type().isTensor();
  default:
    return false;
  }
}

/// The elements of `access` one vector instruction can reach along `dim`: as far as the pointers
/// are contiguous and aligned, and, when `provable`, as far as the mask is constant (Triton's
/// width). Without `provable`, a load whose mask may change inside a vector is still vectorised,
/// under a runtime test of the vector's mask (codegen's load.vector / load.masked).
static unsigned accessWidth(const analysis::AxisInfoAnalysis &axisInfo, const Operation &access,
                            unsigned dim, bool provable) {
  unsigned width = axisInfo.vectorWidth(access.operand(0), dim);
  unsigned maskOperand = access.code() == OpCode::Load ? 1 : 2;
  bool masked = (access.code() == OpCode::Load || access.code() == OpCode::Store) &&
                access.numOperands() > maskOperand;
  if (provable && masked)
    width = std::min(width, axisInfo.maskConstancy(access.operand(maskOperand), dim));
  return width;
}

/// What the accesses of one shape and contiguity order share (Triton gives them one layout, so
/// that their values meet without conversions): computed once per group, not once per access,
/// for kernels of thousands of accesses.
struct AccessGroup {
  std::vector<const Operation *> members;
  std::vector<unsigned> order;
  /// The widest vector any member allows, by proven mask constancy or under a runtime test.
  unsigned provableWidth = 1, testedWidth = 1;
  /// Whether a store of the group moves fewer bytes per vector than its loads.
  bool narrowStore = false;
};

static void summarise(const analysis::AxisInfoAnalysis &axisInfo, AccessGroup &group) {
  unsigned dim = group.order[0];
  for (const Operation *other : group.members) {
    group.provableWidth = std::max(group.provableWidth, accessWidth(axisInfo, *other, dim, true));
    group.testedWidth = std::max(group.testedWidth, accessWidth(axisInfo, *other, dim, false));
  }
  // Compared in bytes: an int8 load of 16 and an int32 store of 4 are both whole vectors.
  auto bytes = [&](const Operation &access) {
    return accessWidth(axisInfo, access, dim, /*provable=*/false) *
           access.operand(0)->type().elem.pointeeType().bytes();
  };
  unsigned loadBytes = 0;
  for (const Operation *other : group.members)
    if (other->code() == OpCode::Load)
      loadBytes = std::max(loadBytes, bytes(*other));
  for (const Operation *other : group.members)
    group.narrowStore |= other->code() == OpCode::Store && bytes(*other) < loadBytes;
}

/// As in Triton: accesses of one shape and contiguity order share a layout, so that their values
/// meet without conversions; each thread takes the widest vector any of them allows, except that
/// a store keeps to its own vector width (a wider one would leave gaps in each warp's writes).
/// Runtime-tested vectors count only where no store of the group moves fewer bytes per vector
/// than its loads (its pointers less aligned or contiguous): otherwise the loaded values would go
/// through shared memory to the store's layout, which costs more than the vectors save; there
/// every width is Triton's. (layer_norm_fp16_v3, rows not 16-byte aligned: w and b loaded in
/// 8-element vectors and converted, with x, to y's one-element layout ran at 0.95 times Triton on
/// an H100; loaded one element per thread as Triton does, at 1.41.)
///
/// A load whose values a floating-point sum is computed from always takes Triton's width (see
/// orderSensitiveReductionInputs): the layout decides the order of the sum, hence its bits.
static LayoutPtr coalescedLayout(const analysis::AxisInfoAnalysis &axisInfo, const Operation &op,
                                 const AccessGroup &group, unsigned numWarps,
                                 bool feedsOrderedReduction) {
  const tir::Value *ptr = op.operand(0);
  const std::vector<unsigned> &order = group.order;
  bool provable = group.narrowStore && !feedsOrderedReduction;
  unsigned perThread = provable ? group.provableWidth : group.testedWidth;
  if (op.code() != OpCode::Load)
    perThread = std::min(perThread, accessWidth(axisInfo, op, order[0], provable));
  // Small tensors: keep every thread busy rather than give a few threads long vectors.
  int64_t numThreads = 32 * static_cast<int64_t>(numWarps);
  int64_t elementsPerThread = std::max<int64_t>(1, ptr->type().numElements() / numThreads);
  perThread = static_cast<unsigned>(std::min<int64_t>(perThread, elementsPerThread));
  return defaultBlockedLayout(ptr->type().shape, numWarps, perThread, order);
}

void runCoalesce(tir::Function &function) {
  analysis::AxisInfoAnalysis axisInfo(function);
  std::vector<Operation *> accesses;
  tir::walk(function, [&](Operation &op) {
    if (isMemoryAccess(op))
      accesses.push_back(&op);
  });
  // Every layout is chosen before any conversion is inserted: the axis info knows the accesses'
  // pointers and masks, not the conversions that replace them.
  std::map<std::pair<std::vector<int64_t>, std::vector<unsigned>>, AccessGroup> groups;
  std::vector<AccessGroup *> groupOf;
  for (Operation *op : accesses) {
    const tir::Value *ptr = op->operand(0);
    std::vector<unsigned> order = axisInfo.contiguityOrder(ptr);
    AccessGroup &group = groups[{ptr->type().shape, order}];
    group.order = order;
    group.members.push_back(op);
    groupOf.push_back(&group);
  }
  for (auto &entry : groups)
    summarise(axisInfo, entry.second);
  std::set<const tir::Value *> orderSensitive = orderSensitiveReductionInputs(function);
  std::vector<LayoutPtr> layouts;
  for (size_t a = 0; a < accesses.size(); ++a) {
    Operation *op = accesses[a];
    bool feedsOrderedReduction =
        op->code() == OpCode::Load && orderSensitive.count(op->result()) != 0;
    layouts.push_back(
        coalescedLayout(axisInfo, *op, *groupOf[a], function.numWarps, feedsOrderedReduction));
  }
  tir::UseIndex uses(function.body());
  for (size_t a = 0; a < accesses.size(); ++a) {
    Operation *op = accesses[a];
    const LayoutPtr &layout = layouts[a];
    for (unsigned i = 0; i < op->numOperands(); ++i) {
      tir::Value *operand = op->operand(i);
      if (!operand->type().isTensor() || sameLayout(layoutOf(operand), layout))
        continue;
      tir::Value *converted = insertConvert(operand, layout, op);
      uses.addUser(*converted->definingOp());
      uses.setOperand(*op, i, converted);
    }
    // The result is converted back to the layout it had (none yet) for its users, as Triton's
    // coalescing does: an elementwise user must not see one operand laid out and another not,
    // or two loads' different layouts. AssignLayouts propagates the layout through these
    // conversions and RemoveRedundantConversions drops those that end up converting nothing.
    for (unsigned r = 0; r < op->numResults(); ++r)
      if (op->result(r)->type().isTensor())
        retypeResult(uses, *op, r, layout);
  }
}
} // namespace tilec::gpu
