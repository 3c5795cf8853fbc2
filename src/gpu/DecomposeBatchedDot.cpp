// A batched tl.dot, [B, M, K] x [B, K, N] -> [B, M, N], becomes B two-dimensional dots, one per
// batch, so that it runs on mma.sync as Triton runs it (its MMA layout version 2 has a batch
// dimension) instead of on FMAs: with the same instruction sequence per output element the
// results are Triton's, fp16 accumulators included (the FMA path rounds to fp16 after every
// product, mma.sync once per instruction).
//
// Each batch's operands are picked out of the 3-D tensors exactly (a select of the batch and a
// sum over the batch dimension that adds only -0.0, as tl.split does), and the products are put
// back together by selects. The slices are marked `batch_slice` so that AccelerateMatmul keeps
// them on mma.sync, as Triton does for 3-D dots (wgmma multiplies 2-D tiles only). Dots that
// Triton computes on FMAs (fp32 with ieee precision, fp64) stay batched, as do batches of more
// than 16, whose unrolled products would grow the kernel beyond use.
#include "gpu/Passes.h"
#include "tir/Builder.h"
#include "tir/Passes.h"

#include <vector>

namespace tilec::gpu {

using tir::Builder;
using tir::DType;
using tir::OpCode;
using tir::Operation;
using tir::ScalarKind;
using tir::Type;
using tir::Value;

namespace {

constexpr int64_t kMaxBatch = 16;

/// Whether Triton computes `dot` on FMAs (fp32 with ieee precision, fp64), or tilec would pick
/// its fp8 operands apart with fp8 arithmetic, which the GPU backend does not have.
bool staysBatched(const Operation &dot) {
  const DType &in = dot.operand(0)->type().elem;
  if (in.kind == ScalarKind::F64 || in.isFp8())
    return true;
  return in.kind == ScalarKind::F32 && dot.hasAttr("input_precision") &&
         dot.strAttr("input_precision") == "ieee";
}

void decompose(Operation &dot) {
  const Type &resultType = dot.result()->type();
  const int64_t batches = resultType.shape[0];
  Builder b;
  b.setInsertionPoint(&dot);
  b.setLoc(dot.loc());
  Value *result = nullptr;
  for (int64_t i = 0; i < batches; ++i) {
    Value *lhs = b.pickAlong(dot.operand(0), 0, i);
    Value *rhs = b.pickAlong(dot.operand(1), 0, i);
    Value *acc = b.pickAlong(dot.operand(2), 0, i);
    Operation *slice = b.create(OpCode::Dot, {lhs, rhs, acc}, {acc->type()});
    for (const auto &[key, value] : dot.attrs())
      slice->setAttr(key, value);
    slice->setAttr("batch_slice", true);
    Value *spread = b.broadcast(b.expandDims(slice->result(), 0), resultType.shape);
    result = result ? b.select(b.indexIs(resultType.shape, 0, i), spread, result) : spread;
  }
  tir::replaceAllUsesWith(*dot.parentBlock(), dot.result(), result);
  // Erased now, not left to DCE: a dead batched dot would still shape its operands' layouts.
  dot.parentBlock()->remove(&dot);
}

} // namespace

void runDecomposeBatchedDot(tir::Function &function) {
  std::vector<Operation *> dots;
  tir::walk(function, [&](Operation &op) {
    if (op.code() == OpCode::Dot && op.result()->type().rank() == 3 &&
        op.result()->type().shape[0] <= kMaxBatch && !staysBatched(op))
      dots.push_back(&op);
  });
  for (Operation *dot : dots)
    decompose(*dot);
}

} // namespace tilec::gpu
