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

/// The elements of `access` one vector instruction can reach along `dim`: as far as its pointers
/// are contiguous and aligned (Triton's getNumElementsPerThread). The mask plays no part in the
/// layout: where it may change inside a vector, codegen tests it at run time (load.vector /
/// load.masked), as Triton's lowering narrows its vectors instead.
static unsigned accessWidth(const analysis::AxisInfoAnalysis &axisInfo, const Operation &access,
                            unsigned dim) {
  return axisInfo.vectorWidth(access.operand(0), dim);
}

/// Whether the value `access` loads can reach an operation whose result depends on which elements
/// share a thread: a reduction or a scan adds a thread's own elements first, then across threads.
/// Values carried out of a loop or a branch count as reaching one (following them through the
/// region's results is not worth it); a dot's and a store's results do not depend on the layout
/// of their operands.
static bool
feedsOrderSensitiveOp(const Operation &access,
                      const std::map<const tir::Value *, std::vector<Operation *>> &users) {
  if (access.code() != OpCode::Load)
    return false;
  std::vector<const tir::Value *> work = {access.result()};
  std::set<const tir::Value *> seen(work.begin(), work.end());
  while (!work.empty()) {
    const tir::Value *value = work.back();
    work.pop_back();
    auto found = users.find(value);
    if (found == users.end())
      continue;
    for (const Operation *user : found->second) {
      switch (user->code()) {
      case OpCode::Reduce:
      case OpCode::ArgReduce:
      case OpCode::Scan:
      case OpCode::For:
      case OpCode::If:
      case OpCode::While:
      case OpCode::Condition:
      case OpCode::Yield:
        return true;
      case OpCode::Dot:
      case OpCode::Store:
      case OpCode::AtomicRMW:
      case OpCode::AtomicCAS:
        continue;
      default:
        for (unsigned r = 0; r < user->numResults(); ++r)
          if (seen.insert(user->result(r)).second)
            work.push_back(user->result(r));
      }
    }
  }
  return false;
}

/// The order of `access`'s layout: its pointers' dimensions from the most to the least
/// contiguous. Equally contiguous dimensions come in Triton 3.6's order (the first dimension
/// first) where the loaded values reach a reduction or a scan, whose sums would otherwise round
/// differently from Triton's; elsewhere the values are the same in any layout, and the last
/// dimension comes first: rows of a strided tensor are read along the row, which a strided copy
/// does 1.3 to 2 times faster than in Triton's order (H100, bench strided_copy_*).
static std::vector<unsigned>
accessOrder(const analysis::AxisInfoAnalysis &axisInfo, const Operation &access,
            const std::map<const tir::Value *, std::vector<Operation *>> &users) {
  using Ties = analysis::AxisInfoAnalysis::Ties;
  const tir::Value *ptr = access.operand(0);
  std::vector<unsigned> triton = axisInfo.contiguityOrder(ptr, Ties::FirstDimFirst);
  std::vector<unsigned> rowMajor = axisInfo.contiguityOrder(ptr, Ties::LastDimFirst);
  if (triton == rowMajor || feedsOrderSensitiveOp(access, users))
    return triton;
  return rowMajor;
}

/// The accesses of one shape and contiguity order, which Triton gives one layout so that their
/// values meet without conversions, and the widest vector any of them allows: computed once per
/// group, not once per access, for kernels of thousands of accesses.
struct AccessGroup {
  std::vector<unsigned> order;
  unsigned widest = 1;
};

/// Triton's coalesced layout (buildCoalescedEncoding): each thread takes the widest vector its
/// group allows, except that a store keeps to its own vector width (a wider one would leave gaps
/// in each warp's writes). Triton groups the accesses its slice reaches through def-use chains;
/// every access of a kernel reaches the others through the program id, so tilec groups all of
/// them. As in Triton, an access whose pointers are a loop-carried value (a block argument:
/// `ptrs += BLOCK_K` in a loop) keeps its own width.
///
/// The layouts are Triton's exactly, not merely as fast: AssignLayouts lets them flow forward
/// into the arithmetic, and the order of a floating-point sum and which products the backend
/// fuses into FMAs follow them.
static LayoutPtr coalescedLayout(const analysis::AxisInfoAnalysis &axisInfo, const Operation &op,
                                 const AccessGroup &group, unsigned numWarps) {
  const tir::Value *ptr = op.operand(0);
  const std::vector<unsigned> &order = group.order;
  unsigned own = accessWidth(axisInfo, op, order[0]);
  unsigned perThread = ptr->isBlockArgument() ? own : std::max(own, group.widest);
  // Small tensors: keep every thread busy rather than give a few threads long vectors.
  int64_t numThreads = 32 * static_cast<int64_t>(numWarps);
  int64_t elementsPerThread = std::max<int64_t>(1, ptr->type().numElements() / numThreads);
  perThread = static_cast<unsigned>(std::min<int64_t>(perThread, elementsPerThread));
  if (op.code() != OpCode::Load)
    perThread = std::min(perThread, own);
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
  // pointers, not the conversions that replace them.
  std::map<std::pair<std::vector<int64_t>, std::vector<unsigned>>, AccessGroup> groups;
  std::vector<AccessGroup *> groupOf;
  const auto users = usersOf(function);
  for (Operation *op : accesses) {
    const tir::Value *ptr = op->operand(0);
    std::vector<unsigned> order = accessOrder(axisInfo, *op, users);
    AccessGroup &group = groups[{ptr->type().shape, order}];
    group.order = order;
    group.widest = std::max(group.widest, accessWidth(axisInfo, *op, order[0]));
    groupOf.push_back(&group);
  }
  std::vector<LayoutPtr> layouts;
  for (size_t a = 0; a < accesses.size(); ++a)
    layouts.push_back(coalescedLayout(axisInfo, *accesses[a], *groupOf[a], function.numWarps));
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
