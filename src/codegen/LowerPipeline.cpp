// The software pipeline's ops (gpu/SoftwarePipeliner.cpp): cp.async copies of a load's tile into
// a slot of a shared-memory ring buffer, their commit and wait groups, and local_load.
//
// A slot holds the tile as the dot that reads it wants it (SharedTile.h, pipelineSlotPlan): for
// mma.sync as mmaOperandPlan lays it out, read with ldmatrix; for wgmma in an NVMMA layout, read
// by the instruction itself. An async_copy writes each thread's vectors of the load's layout there,
// 4, 8 or 16 bytes per cp.async, with a source size of 0 where the mask (or the predicate that the
// iteration exists) is off, which zero-fills. A tensor descriptor's tile may come by TMA instead
// (tma_copy, below), counted by mbarriers.
#include "codegen/KernelLowering.h"
#include "codegen/SharedMemory.h"
#include "gpu/Mma.h"

#include <llvm/IR/InlineAsm.h>
#include <optional>

namespace tilec::codegen::detail {

const PipelineBufferPlan &KernelLowering::bufferPlan() {
  if (!bufferPlan_)
    bufferPlan_ = planPipelineBuffers(function_);
  return *bufferPlan_;
}

unsigned KernelLowering::tmaBarrierOffset() {
  if (!tmaBarrierOffset_)
    tmaBarrierOffset_ = codegen::tmaBarrierOffset(function_);
  return *tmaBarrierOffset_;
}

llvm::Value *KernelLowering::pipelineSlot(const Operation &op) {
  unsigned buffer = static_cast<unsigned>(op.intAttr("buffer"));
  unsigned slotBytes = pipelineSlotBytes(function_, buffer);
  llvm::Value *offset = builder_.CreateAdd(
      builder_.getInt32(bufferPlan().offsets.at(buffer)),
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

// --- TMA copies (SoftwarePipeliner.cpp) ----------------------------------------------------
//
// One thread (thread 0) issues a slot's copies: for each tile, mbarrier.arrive.expect_tx with
// the tile's bytes on the slot's barrier, then one cp.async.bulk.tensor per box, which counts
// its bytes on the same barrier as they land. (Spreading the boxes over warp 0's lanes, or over
// the warps, measured slower on an H100: bench/results/tensor_cores_h200.md, session 10.) Every
// thread waits for the barrier's phase of the iteration (try_wait.parity in a loop). The barrier
// expects one arrival per tile copied into the slot (tma_init's `arrivals`), so its phase
// completes when all of them are in.

llvm::Value *KernelLowering::tmaBarrierAddress(unsigned barrier, llvm::Value *slot) {
  llvm::Value *offset = builder_.getInt32(tmaBarrierOffset() + 8 * barrier);
  if (slot)
    offset = builder_.CreateAdd(offset, builder_.CreateMul(slot, builder_.getInt32(8)));
  return sharedAddress32(builder_.CreateInBoundsGEP(builder_.getInt8Ty(), sharedMemory_, offset));
}

void KernelLowering::lowerTmaInit(const Operation &op) {
  const unsigned first = static_cast<unsigned>(op.intAttr("barrier"));
  const unsigned count = static_cast<unsigned>(op.intAttr("count"));
  const unsigned arrivals = static_cast<unsigned>(op.intAttr("arrivals"));
  ifThen(isThreadZero(), [&] {
    for (unsigned b = 0; b < count; ++b)
      voidAsm("mbarrier.init.shared::cta.b64 [$0], " + std::to_string(arrivals) + ";",
              "r,~{memory}", {tmaBarrierAddress(first + b, nullptr)});
  });
  // The initialisation is visible to the other threads and to TMA (the async proxy).
  voidAsm("fence.mbarrier_init.release.cluster;");
  // The slots may hold bytes that the threads last wrote or read through the generic proxy
  // (another loop's cp.async ring, ldmatrix reads, a scratch area: SharedMemory.h); TMA's
  // writes (the async proxy) into them must come after those, as Triton's proxy fence
  // insertion orders them: each thread's fence, then the barrier before thread 0's copies.
  fenceProxyAsync();
  barrier();
}

llvm::Value *KernelLowering::tensorMapAddress(const Operation &op) {
  if (op.hasAttr("kernel_map"))
    return kernelTensorMaps_.at(static_cast<unsigned>(op.intAttr("kernel_map")));
  return builder_.CreatePtrToInt(tensorMaps_.at(static_cast<size_t>(op.intAttr("tensor_map"))),
                                 builder_.getInt64Ty());
}

/// The rows of the box of the tensor map a tma_copy or tma_store reads.
static int64_t boxRowsOf(const tir::Function &function, const Operation &op) {
  if (op.hasAttr("kernel_map"))
    return function.kernelTensorMaps.at(static_cast<size_t>(op.intAttr("kernel_map"))).box[0];
  return function.tensorMaps.at(static_cast<size_t>(op.intAttr("tensor_map"))).box[0];
}

void KernelLowering::lowerTmaCopy(const Operation &op) {
  const unsigned buffer = static_cast<unsigned>(op.intAttr("buffer"));
  const SharedTilePlan plan = pipelineSlotPlan(function_, buffer);
  // The copies overwrite shared memory that other ops may have read last (as lowerAsyncCopy).
  if (sharedInUse_) {
    barrier();
    sharedInUse_ = false;
  }
  llvm::Value *slot = pipelineSlot(op); // operand 0 is the slot (LowerPipeline: pipelineSlot)
  llvm::Value *base = sharedAddress32(slot);
  llvm::Value *bar =
      tmaBarrierAddress(static_cast<unsigned>(op.intAttr("barrier")), get(op.operand(0))[0]);
  llvm::Value *tensorMap = tensorMapAddress(op);
  llvm::Value *row0 = get(op.operand(2))[0], *column0 = get(op.operand(3))[0];
  llvm::Value *issue = builder_.CreateAnd(get(op.operand(1))[0], isThreadZero());
  // The barrier's phase waits for all the bytes of the boxes, which cover the tile.
  const int64_t tileBytes = plan.shape[0] * plan.shape[1] * plan.elemBytes;
  ifThen(issue, [&] {
    voidAsm("mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], " + std::to_string(tileBytes) + ";",
            "r,~{memory}", {bar});
    forEachTmaBox(op, plan, boxRowsOf(function_, op), base, row0, column0,
                  [&](llvm::Value *dst, llvm::Value *x, llvm::Value *y) {
                    voidAsm("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                            "complete_tx::bytes [$0], [$1, {$2, $3}], [$4];",
                            "r,l,r,r,r,~{memory}", {dst, tensorMap, x, y, bar});
                  });
  });
}

void KernelLowering::forEachTmaBox(
    const Operation &op, const SharedTilePlan &plan, int64_t boxRows, llvm::Value *base,
    llvm::Value *row0, llvm::Value *column0,
    const std::function<void(llvm::Value *, llvm::Value *, llvm::Value *)> &copy) {
  const int64_t blocks = plan.shape[1] / plan.blockLength;
  for (int64_t block = 0; block < blocks; ++block)
    for (int64_t row = 0; row < plan.shape[0]; row += boxRows) {
      std::optional<int64_t> offset = tmaBoxOffset(plan, boxRows, row, block);
      if (!offset)
        unsupported(op, "a TMA box the shared tile does not store as TMA copies it");
      llvm::Value *shared =
          builder_.CreateAdd(base, builder_.getInt32(static_cast<uint32_t>(*offset)));
      // Coordinates innermost first: the column, then the row.
      llvm::Value *x = builder_.CreateAdd(
          column0, builder_.getInt32(static_cast<uint32_t>(block * plan.blockLength)));
      llvm::Value *y = builder_.CreateAdd(row0, builder_.getInt32(static_cast<uint32_t>(row)));
      copy(shared, x, y);
    }
}

void KernelLowering::lowerTmaWait(const Operation &op) {
  llvm::Value *bar =
      tmaBarrierAddress(static_cast<unsigned>(op.intAttr("barrier")), get(op.operand(0))[0]);
  llvm::Value *phase = get(op.operand(1))[0];
  llvm::Type *i32 = builder_.getInt32Ty();
  auto *type = llvm::FunctionType::get(i32, {i32, i32}, false);
  auto *tryWait = llvm::InlineAsm::get(
      type,
      "{\n.reg .pred done;\nmbarrier.try_wait.parity.shared::cta.b64 done, [$1], $2;\n"
      "selp.u32 $0, 1, 0, done;\n}",
      "=r,r,r,~{memory}", true);
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(context_, "tma_wait", kernel_);
  llvm::BasicBlock *landed = llvm::BasicBlock::Create(context_, "tma_landed", kernel_);
  builder_.CreateBr(loop);
  builder_.SetInsertPoint(loop);
  llvm::Value *done = builder_.CreateCall(type, tryWait, {bar, phase});
  builder_.CreateCondBr(builder_.CreateICmpNE(done, builder_.getInt32(0)), landed, loop);
  builder_.SetInsertPoint(landed);
}

void KernelLowering::lowerTmaInval(const Operation &op) {
  const unsigned first = static_cast<unsigned>(op.intAttr("barrier"));
  const unsigned count = static_cast<unsigned>(op.intAttr("count"));
  ifThen(isThreadZero(), [&] {
    for (unsigned b = 0; b < count; ++b)
      voidAsm("mbarrier.inval.shared::cta.b64 [$0];", "r,~{memory}",
              {tmaBarrierAddress(first + b, nullptr)});
  });
}

/// A descriptor store by TMA (gpu/TmaStores.cpp): the tile goes into the scratch area in the
/// NVMMA layout, then thread 0 copies it out box by box (cp.async.bulk.tensor, bulk group) and
/// waits until TMA has read it; TMA leaves the elements outside the tensor unwritten.
void KernelLowering::lowerTmaStore(const Operation &op) {
  const tir::Type &type = op.operand(0)->type();
  const SharedTilePlan plan = tmaStorePlan(type);
  llvm::Value *tile = sharedAt(0);
  beginSharedWrite();
  writeSharedTile(plan, tile, distributionOf(type), get(op.operand(0)), type.elem);
  // The generic proxy's writes, visible to TMA (the async proxy) once every thread has made them.
  fenceProxyAsync();
  barrier();
  llvm::Value *base = sharedAddress32(tile);
  llvm::Value *tensorMap = tensorMapAddress(op);
  llvm::Value *row0 = get(op.operand(1))[0], *column0 = get(op.operand(2))[0];
  ifThen(isThreadZero(), [&] {
    forEachTmaBox(op, plan, boxRowsOf(function_, op), base, row0, column0,
                  [&](llvm::Value *src, llvm::Value *x, llvm::Value *y) {
                    voidAsm("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
                            "[$0, {$1, $2}], [$3];",
                            "l,r,r,r,~{memory}", {tensorMap, x, y, src});
                  });
    voidAsm("cp.async.bulk.commit_group;", "~{memory}");
    // TMA has read the tile: the scratch area may be written again (after a barrier).
    voidAsm("cp.async.bulk.wait_group.read 0;", "~{memory}");
  });
  sharedInUse_ = true;
}

} // namespace tilec::codegen::detail

namespace tilec::codegen::detail {

// --- Tensor maps the kernel writes (descriptors made in the kernel) ---------------------------
//
// As Triton 3.6 does: warp 0 zeroes 128 bytes of shared memory, thread 0 sets each field with
// tensormap.replace, and warp 0 copies the map to this program's part of the global scratch
// with a release fence for the tensor-map proxy (tensormap.cp_fenceproxy), then acquires it
// (fence.proxy.tensormap::generic.acquire) before a barrier lets every thread's TMA copies use it.
// The fields are those cuTensorMapEncodeTiled takes (docs/metadata.md), innermost dimension first.

/// tensormap.replace's element type codes (PTX ISA, "tensormap.replace"): integers by size,
/// unsigned, as Triton gives them; fp8 as bytes.
static int tensormapElementType(tir::DType elem) {
  switch (elem.kind) {
  case tir::ScalarKind::F16:
    return 6;
  case tir::ScalarKind::F32:
    return 7;
  case tir::ScalarKind::F64:
    return 9;
  case tir::ScalarKind::BF16:
    return 10;
  default:
    break;
  }
  switch (elem.bytes()) {
  case 1:
    return 0;
  case 2:
    return 1;
  case 4:
    return 2;
  default:
    return 4;
  }
}

void KernelLowering::lowerTensormapCreate(const Operation &op) {
  const unsigned index = static_cast<unsigned>(op.intAttr("kernel_map"));
  const tir::KernelTensorMap &map = function_.kernelTensorMaps.at(index);
  // tensormap.replace and tensormap.cp_fenceproxy came with PTX ISA 8.3.
  requirePtxVersion(83);
  llvm::Type *i32 = builder_.getInt32Ty(), *i64 = builder_.getInt64Ty();

  // This program's map: program x + nx * (y + ny * z) owns globalScratchBytes from that many
  // times them on, as Triton lays out its global scratch.
  auto sreg = [&](llvm::Intrinsic::ID id) {
    return builder_.CreateZExt(builder_.CreateCall(intrinsicDeclaration(&module_, id)), i64);
  };
  llvm::Value *program = builder_.CreateAdd(
      sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
      builder_.CreateMul(
          sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x),
          builder_.CreateAdd(
              sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y),
              builder_.CreateMul(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_y),
                                 sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z)))));
  llvm::Value *offset = builder_.CreateAdd(
      builder_.CreateMul(program, llvm::ConstantInt::get(i64, function_.globalScratchBytes())),
      llvm::ConstantInt::get(i64, uint64_t(tir::kKernelTensorMapBytes) * index));
  llvm::Value *global = builder_.CreateInBoundsGEP(builder_.getInt8Ty(), globalScratch_, offset);
  llvm::Value *globalAddress = builder_.CreatePtrToInt(global, i64);

  // Built in the scratch area's first 128 bytes.
  beginSharedWrite();
  llvm::Value *staging = sharedAt(0);
  llvm::Value *inWarpZero = builder_.CreateICmpULT(threadId_, builder_.getInt32(32));
  storeSharedIf(builder_.CreateGEP(i32, staging, laneId_), builder_.getInt32(0), inWarpZero);
  voidAsm("bar.warp.sync -1;");
  llvm::Value *stagingAddress = sharedAddress32(staging);

  const unsigned rank = static_cast<unsigned>(map.box.size());
  auto replace = [&](const std::string &field, llvm::Value *value, int ordinal = -1) {
    bool wide = value->getType()->isIntegerTy(64);
    std::string text = "tensormap.replace.tile." + field + ".shared::cta.b1024." +
                       (wide ? "b64" : "b32") + " [$0], " +
                       (ordinal >= 0 ? std::to_string(ordinal) + ", " : "") + "$1;";
    voidAsm(text, std::string("r,") + (wide ? "l" : "r") + ",~{memory}", {stagingAddress, value});
  };
  // Constant fields are immediates: ptxas requires them for elemtype, interleave_layout,
  // swizzle_mode and fill_mode.
  auto replaceWith = [&](const std::string &field, int64_t value, int ordinal = -1) {
    voidAsm("tensormap.replace.tile." + field + ".shared::cta.b1024.b32 [$0], " +
                (ordinal >= 0 ? std::to_string(ordinal) + ", " : "") + std::to_string(value) + ";",
            "r,~{memory}", {stagingAddress});
  };
  ifThen(isThreadZero(), [&] {
    llvm::Value *base = get(op.operand(0))[0];
    replace("global_address", builder_.CreatePtrToInt(base, i64));
    replaceWith("rank", rank - 1);
    for (unsigned d = 0; d < rank; ++d)
      replaceWith("box_dim", map.box[rank - 1 - d], static_cast<int>(d));
    for (unsigned d = 0; d < rank; ++d)
      replace("global_dim", get(op.operand(1 + (rank - 1 - d)))[0], static_cast<int>(d));
    for (unsigned d = 0; d + 1 < rank; ++d) {
      llvm::Value *stride = get(op.operand(1 + rank + (rank - 2 - d)))[0];
      llvm::Value *bytes =
          builder_.CreateMul(stride, llvm::ConstantInt::get(i64, std::max(1u, map.elem.bytes())));
      // In bytes. Triton 3.6 shifts it right by 4 when it emits PTX ISA 8.5 or older (for a
      // ptxas bug); CUDA 13's JIT takes bytes at 8.3: shifted, the copies read the wrong rows
      // (measured on an H100, driver 580).
      replace("global_stride", bytes, static_cast<int>(d));
    }
    for (unsigned d = 0; d < rank; ++d)
      replaceWith("element_stride", 1, static_cast<int>(d));
    replaceWith("elemtype", tensormapElementType(map.elem));
    replaceWith("interleave_layout", 0);
    int swizzle = map.swizzleBytes == 128  ? 3
                  : map.swizzleBytes == 64 ? 2
                  : map.swizzleBytes == 32 ? 1
                                           : 0;
    replaceWith("swizzle_mode", swizzle);
    replaceWith("fill_mode", map.fillNan ? 1 : 0);
  });
  ifThen(inWarpZero, [&] {
    voidAsm("bar.warp.sync -1;");
    voidAsm("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync."
            "aligned [$0], [$1], 128;",
            "l,r,~{memory}", {globalAddress, stagingAddress});
    voidAsm("fence.proxy.tensormap::generic.acquire.gpu [$0], 128;", "l,~{memory}",
            {globalAddress});
  });
  // The staging bytes may be overwritten next by TMA (the async proxy) or by any thread.
  fenceProxyAsync();
  barrier();
  sharedInUse_ = false;
  kernelTensorMaps_[index] = globalAddress;
}

} // namespace tilec::codegen::detail
