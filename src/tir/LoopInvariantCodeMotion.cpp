// Loop-invariant code motion of scalars, as Triton's triton-licm runs it before its pipeliner.
//
// A scalar operation of a loop body whose operands are all defined outside the loop moves to
// just before the loop, where it runs once: pure arithmetic always (none of it can trap, so
// running it for a loop that runs no iteration is harmless), and a load when the loop has no side
// effects, its mask then also requiring that the loop runs at least once (`lb < ub`), as
// Triton's does. Loops are visited innermost first, so that what leaves an inner loop can leave
// the outer one too. Triton hoists tensors as well; here they stay (see hoistFrom).
//
// Why it matters beyond saving work: LLVM hoists the same arithmetic later, but not before its
// loop unroller has copied a loop's body into a remainder, where a division and the subtraction
// that uses it end up side by side and ptxas contracts `div.full.f32`'s multiply into that
// subtraction (an FFMA): Liger's sparsemax backward, `go - go_sum / supp_cnt` in its second loop,
// rounded differently from Triton's, whose division runs before the loop. And LLVM cannot hoist a
// load at all: tilec's loads are inline assembly.
#include "tir/Builder.h"
#include "tir/Passes.h"

namespace tilec::tir {
namespace {

/// Scalar operations that compute from their operands alone and cannot trap, fault or hang.
/// Integer division and remainder are left where they are: LLVM takes a division that runs
/// before a loop as proof that its divisor is non-zero.
bool isSpeculatable(const Operation &op) {
  switch (op.code()) {
  case OpCode::Div:
  case OpCode::Rem:
    return op.result()->type().elem.isFloat();
  case OpCode::Constant:
  case OpCode::ProgramId:
  case OpCode::NumPrograms:
    return true;
  default:
    return isElementwise(op.code());
  }
}

/// A scalar load that may move: not volatile (every volatile load reaches memory).
bool isPlainLoad(const Operation &op) {
  return op.code() == OpCode::Load && !op.hasAttr("volatile");
}

/// Whether `value` is defined in `loop` (its regions' block arguments included).
bool isDefinedIn(const Value *value, const Operation *loop) {
  const Block *block =
      value->isBlockArgument() ? value->ownerBlock() : value->definingOp()->parentBlock();
  for (const Operation *op = block ? block->parentOp() : nullptr; op;
       op = op->parentBlock() ? op->parentBlock()->parentOp() : nullptr)
    if (op == loop)
      return true;
  return false;
}

/// Makes `load`, a scalar load about to run before `loop`, load nothing when the loop runs no
/// iteration: its mask (true where it has none) and `lb < ub`.
void maskByTripCount(Operation &load, Operation &loop) {
  Builder builder;
  builder.setInsertionPoint(&load);
  builder.setLoc(load.loc());
  Value *runs = builder.cmp("lt", loop.operand(0), loop.operand(1));
  if (load.numOperands() == 1) {
    load.addOperand(runs);
    return;
  }
  load.setOperand(1, builder.binary(OpCode::And, load.operand(1), runs));
}

void hoistInBlock(Block &block);

void hoistFrom(Operation &loop) {
  // Inner loops first: what leaves them may leave this loop too.
  for (unsigned r = 0; r < loop.numRegions(); ++r)
    hoistInBlock(loop.region(r).block());
  // Loads leave a for loop that has no stores, atomics or other effects (the loops whose loads
  // PrefetchLoads issues ahead) and runs at all exactly when lb < ub. Triton hoists no load out
  // of a while loop (its trip count is not known before it).
  const bool loadsMayMove =
      loop.code() == OpCode::For && hasPositiveConstantStep(loop) && !hasSideEffects(loop);
  for (unsigned r = 0; r < loop.numRegions(); ++r) {
    Block &body = loop.region(r).block();
    for (auto it = body.ops().begin(); it != body.ops().end();) {
      Operation &op = **it++;
      // Scalars only. Hoisting tensors too, as Triton does, let LLVM and ptxas schedule the loop
      // worse: the sum over axis 0 of a 3000 x 1000 fp32 matrix (bench/kernels/reduce.tl,
      // rows not aligned) ran 4x slower once the column mask and its broadcast were hoisted
      // (ptxas spilled inside the loop); an H100 A/B, session 24.
      if (op.numResults() != 1 || !op.result()->type().isScalar())
        continue;
      bool load = isPlainLoad(op);
      if (!(isSpeculatable(op) || (load && loadsMayMove)))
        continue;
      bool invariant = true;
      for (const Value *operand : op.operands())
        invariant &= !isDefinedIn(operand, &loop);
      if (!invariant)
        continue;
      Block &outer = *loop.parentBlock();
      std::unique_ptr<Operation> moved = body.remove(&op);
      Operation *placed = outer.insert(outer.find(&loop), std::move(moved));
      if (load)
        maskByTripCount(*placed, loop);
    }
  }
}

void hoistInBlock(Block &block) {
  for (auto &op : block.ops()) {
    if (op->code() == OpCode::For || op->code() == OpCode::While) {
      hoistFrom(*op);
      continue;
    }
    for (unsigned r = 0; r < op->numRegions(); ++r)
      hoistInBlock(op->region(r).block());
  }
}

} // namespace

void runLoopInvariantCodeMotion(Function &function) { hoistInBlock(function.body()); }

} // namespace tilec::tir
