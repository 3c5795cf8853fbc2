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
//
// The exception is a load's result converted only for arithmetic (staysAfterLoad): Triton's
// conversion of it is the one Coalesce made right after the load, rewritten in place, and this one
// moves there. In 1277 TTGIR files of Triton's, every such conversion sits right after its load
// (or after other conversions of the same load); those at their uses feed a widening (extf,
// broadcast, expand_dims), a trans, a dot or a store.
#include "gpu/PassUtils.h"
#include "gpu/Passes.h"
#include "tir/UseIndex.h"

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

/// Whether `convert` stays right after the load it converts: a load's result converted for
/// arithmetic, not for a widening. Triton's Coalesce converts each load's result right after the
/// load, and its layout propagation rewrites that conversion in place when the arithmetic takes
/// another anchor's layout (getValueAs also places a new one right after the value). Only a
/// conversion hoisted above a broadcast or expand_dims sits at its use. TritonBench's
/// rotary_emb computes q0 * sin1 + q1 * cos1 in cos's layout: q0's and q1's conversions come
/// before cos1 and sin1 are loaded, so that LLVM ranks the products by the later of cos1 and sin1,
/// puts q1 * cos1 first and fuses it into the FMA, as Triton. Every user counts, those in nested
/// regions (a store under an `if`) too.
bool staysAfterLoad(const Operation &convert, const tir::UseIndex &uses) {
  const Operation *load = convert.operand(0)->definingOp();
  if (!load || load->code() != OpCode::Load || load->parentBlock() != convert.parentBlock())
    return false;
  std::vector<Operation *> users = uses.usersOf(convert.result());
  for (const Operation *user : users)
    if (!tir::isElementwise(user->code()) || user->code() == OpCode::Cast ||
        user->code() == OpCode::Bitcast)
      return false;
  return !users.empty();
}

/// Sinks the conversions of `block` and of its nested regions; `uses` stays valid because
/// operations only move.
void sinkInBlock(Block &block, const tir::UseIndex &uses) {
  for (auto &op : block.ops())
    for (unsigned r = 0; r < op->numRegions(); ++r)
      sinkInBlock(op->region(r).block(), uses);
  std::vector<Operation *> converts;
  for (auto &op : block.ops())
    if (op->code() == OpCode::ConvertLayout)
      converts.push_back(op.get());
  // Later conversions first, so that a conversion of a conversion follows the one it converts.
  for (auto it = converts.rbegin(); it != converts.rend(); ++it) {
    Operation *convert = *it;
    if (staysAfterLoad(*convert, uses)) {
      const Operation *load = convert->operand(0)->definingOp();
      std::unique_ptr<Operation> moved = block.remove(convert);
      block.insert(std::next(block.find(const_cast<Operation *>(load))), std::move(moved));
      continue;
    }
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
  tir::UseIndex uses(function.body());
  sinkInBlock(function.body(), uses);
}

} // namespace tilec::gpu
