// Sinking of layout conversions: each convert_layout moves down its block to just before the
// first operation that uses it, where Triton's layout passes leave theirs (its conversions are
// created at their uses). Coalesce and AssignLayouts insert a load's conversion right after the
// load; the position matters beyond scheduling, because LLVM's Reassociate orders the operands of
// each commutative floating-point operation by where their inputs were defined, and the backend
// then fuses the first multiply of an add into an FMA: flash-attention's rotary kernel,
// `x0 * sin + x1 * cos`, fused the other product than Triton when cos and sin were converted
// before x0 and x1 were loaded, and rounded differently. A conversion used only in a nested
// region (a loop body) stops before the operation that holds the region. None sinks past an
// async_copy: the copies before a pipelined loop start its buffers' lives, and a conversion
// through shared memory after them would need its scratch beside the buffers (fla's path
// attention converts two 64 KB initial values for the loop: 258 KB, over the limit); Triton's
// conversions of a loop's initial values stay before its prologue too.
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"

namespace tilec::gpu {
namespace {

using tir::Block;
using tir::OpCode;
using tir::Operation;

/// Whether `op`, or an operation nested in its regions, uses `value`.
bool usesValue(Operation &op, const tir::Value *value) {
  for (const tir::Value *operand : op.operands())
    if (operand == value)
      return true;
  for (unsigned r = 0; r < op.numRegions(); ++r)
    for (auto &nested : op.region(r).block().ops())
      if (usesValue(*nested, value))
        return true;
  return false;
}

void sinkInBlock(Block &block) {
  for (auto &op : block.ops())
    for (unsigned r = 0; r < op->numRegions(); ++r)
      sinkInBlock(op->region(r).block());
  std::vector<Operation *> converts;
  for (auto &op : block.ops())
    if (op->code() == OpCode::ConvertLayout)
      converts.push_back(op.get());
  // Later conversions first, so that a conversion of a conversion follows the one it converts.
  for (auto it = converts.rbegin(); it != converts.rend(); ++it) {
    Operation *convert = *it;
    auto position = std::next(block.find(convert));
    while (position != block.ops().end() && !usesValue(**position, convert->result()) &&
           (*position)->code() != OpCode::AsyncCopy)
      ++position;
    if (position == block.ops().end() || position == std::next(block.find(convert)))
      continue; // unused here (DCE's business), or already right before its first user
    std::unique_ptr<Operation> moved = block.remove(convert);
    block.insert(position, std::move(moved));
  }
}

} // namespace

void runSinkConversions(tir::Function &function) {
  sinkInBlock(function.body());
}

} // namespace tilec::gpu
