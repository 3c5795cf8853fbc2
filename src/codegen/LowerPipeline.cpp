// The software pipeline's ops (gpu/SoftwarePipeliner.cpp): cp.async copies of a load's tile into
// a slot of a shared-memory ring buffer, their commit and wait groups, and local_load.
//
// A slot holds the tile as the dot that reads it wants it (SharedTile.h, pipelineSlotPlan): for
// mma.sync as mmaOperandPlan lays it out, read with ldmatrix; for wgmma in an NVMMA layout, read
// by the instruction itself. An async_copy writes each thread's vectors of the load's layout there,
// 4, 8 or 16 bytes per cp.async, with a source size of 0 where the mask (or the predicate that the
// iteration exists) is off, which zero-fills.
#include "codegen/KernelLowering.h"
#include "gpu/Mma.h"

#include <llvm/IR/InlineAsm.h>
#include <optional>

namespace tilec::codegen::detail {

llvm::Value *KernelLowering::pipelineSlot(const Operation &op) {
  unsigned buffer = static_cast<unsigned>(op.intAttr("buffer"));
  unsigned slotBytes = pipelineSlotBytes(function_, buffer);
  llvm::Value *offset = builder_.CreateAdd(
      builder_.getInt32(pipelineBufferOffset(function_, buffer)),
      builder_.CreateMul(get(op.operand(op.code() == OpCode::AsyncCopy ? 1 : 0))[0],
                         builder_.getInt32(slotBytes)));
  return builder_.CreateInBoundsGEP(builder_.getInt8Ty(), sharedMemory_, offset);
}

std::optional<int64_t> KernelLowering::uniformOffsetDelta(const SharedTilePlan &plan,
                                                          const Distribution &dist,
                                                          unsigned from, unsigned to) const {
  std::optional<int64_t> delta;
  for (unsigned warp = 0; warp < function_.numWarps; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane) {
      int64_t d = plan.offset(dist.coordinates(lane, warp, to)) -
                  plan.offset(dist.coordinates(lane, warp, from));
      if (delta && *delta != d)
        return std::nullopt;
      delta = d;
    }
  return delta;
}

void KernelLowering::lowerAsyncCopy(const Operation &op) {
  const tir::Type &ptrType = op.operand(0)->type();
  const DType elem = ptrType.elem.pointeeType();
  const tir::Type tile = ptrType.withElem(elem);
  const SharedTilePlan plan =
      pipelineSlotPlan(function_, static_cast<unsigned>(op.intAttr("buffer")));
  const Distribution dist = distributionOf(ptrType);
  const unsigned vec = static_cast<unsigned>(op.intAttr("vec"));
  const unsigned bytes = vec * std::max(1u, elem.bytes());
  const Values &pointers = get(op.operand(0));
  llvm::Value *pred = get(op.operand(2))[0];
  const Values *mask = op.numOperands() > 3 ? &get(op.operand(3)) : nullptr;
  // The buffers overlap the scratch area of the ops outside pipelined loops: their last readers
  // must be done before the first copy lands.
  if (sharedInUse_) {
    barrier();
    sharedInUse_ = false;
  }
  llvm::Value *slot = pipelineSlot(op);
  // The destination as a 32-bit shared address, in inline assembly: LLVM 19 cannot select
  // cp.async's src-size intrinsics with 32-bit shared pointers (PTXEmitter.cpp: nvptx-short-ptr).
  llvm::Value *base = sharedAddress32(slot);
  const unsigned elemBytes = plan.elemBytes;
  std::string ptx = std::string(bytes == 16 ? "cp.async.cg" : "cp.async.ca") +
                    ".shared.global [$0], [$1], " + std::to_string(bytes) + ", $2;";
  llvm::Type *i32 = builder_.getInt32Ty();
  auto *asmType =
      llvm::FunctionType::get(builder_.getVoidTy(), {i32, pointers[0]->getType(), i32}, false);
  auto *copy = llvm::InlineAsm::get(asmType, ptx, "r,l,r,~{memory}", true);
  // A vector whose slot offset is the first vector's plus the same constant in every thread (a
  // step along the rows that keeps the swizzle phase, as the tutorial GEMM's copies take) adds
  // the constant, which ptxas folds into the instruction, instead of recomputing the swizzle.
  std::optional<unsigned> first;
  llvm::Value *firstDst = nullptr;
  forEachVector(dist, dist.order[0], vec,
                [&](unsigned e, const std::vector<unsigned> &, const Values &coords) {
                  std::optional<int64_t> delta;
                  if (first)
                    delta = uniformOffsetDelta(plan, dist, *first, e);
                  llvm::Value *dst =
                      delta ? builder_.CreateAdd(
                                  firstDst, builder_.getInt32(static_cast<uint32_t>(
                                                *delta * static_cast<int64_t>(elemBytes))))
                            : builder_.CreateAdd(
                                  base, builder_.CreateMul(sharedTileIndex(plan, coords),
                                                           builder_.getInt32(elemBytes)));
                  if (!first) {
                    first = e;
                    firstDst = dst;
                  }
                  llvm::Value *on = mask ? builder_.CreateAnd(pred, (*mask)[e]) : pred;
                  llvm::Value *size =
                      builder_.CreateSelect(on, builder_.getInt32(bytes), builder_.getInt32(0));
                  builder_.CreateCall(asmType, copy, {dst, pointers[e], size});
                });
}

void KernelLowering::lowerAsyncWait(const Operation &op) {
  intrinsic(llvm::Intrinsic::nvvm_cp_async_wait_group, {},
            {builder_.getInt32(static_cast<uint32_t>(op.intAttr("pending")))});
  // No proxy fence for wgmma here: as in Triton (whose fence insertion fences only copies from
  // registers to shared memory), cp.async's writes are visible to wgmma once waited for.
  // Every thread's copies landed; the slot the next copies overwrite is no longer read.
  barrier();
}

void KernelLowering::lowerLocalLoad(const Operation &op) {
  // The tensor-core dot reads its operand straight from the slot (LowerDotMma.cpp); any other
  // user gets the tile in registers, in the layout of the load it replaced.
  // (A transpose of the tile that only such dots read is read from the slot too.)
  bool onlyDots = true;
  tir::walk(const_cast<tir::Function &>(function_), [&](Operation &user) {
    for (tir::Value *operand : user.operands()) {
      bool direct = operand == op.result();
      if (!direct && bufferedTile(operand) != &op)
        continue;
      bool transposes = direct && user.code() == OpCode::Trans;
      onlyDots &= gpu::isTensorCoreDot(user) || transposes;
    }
  });
  if (onlyDots) {
    values_[op.result()] = {};
    return;
  }
  const tir::Type &type = op.result()->type();
  values_[op.result()] =
      readSharedTile(pipelineSlotPlan(function_, static_cast<unsigned>(op.intAttr("buffer"))),
                     pipelineSlot(op), distributionOf(type), type.elem);
}

} // namespace tilec::codegen::detail
