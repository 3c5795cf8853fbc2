// argmax/argmin along one axis: (value, index) pairs combined within the thread, across the lanes
// of a warp with shuffles and across warps through shared memory, as the sum/max/min reductions
// are. The interpreter's semantics: the first index among equal extremes, NaNs ignored (an
// all-NaN row gives index 0), the result an i32.
//
// Floats: the thread's own elements are merged with NaN-aware compares. Its result is then made
// NaN-free before it travels: a NaN becomes -inf (+inf for argmin) with bit 31 set in its index,
// so that the merges across lanes and warps are Triton's combine, `v1 > v2 or (v1 == v2 and
// i1 < i2)` on unsigned indices (one compare fewer, and no NaN tests, per shuffle round): a
// number still beats a NaN (it is above -inf, or equal to it with the smaller index), and of two
// NaNs the earlier wins. The bit is cleared at the end.
#include "codegen/KernelLowering.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

namespace tilec::codegen::detail {

/// Whether vb ranks strictly above va: a number ranks above a NaN, two NaNs rank equal.
/// Unordered-or-greater is true when va is a NaN; vb must be a number.
static llvm::Value *argStrictlyBetter(llvm::IRBuilder<> &builder, bool max, const DType &type,
                                      llvm::Value *va, llvm::Value *vb) {
  if (type.isFloat())
    return builder.CreateAnd(max ? builder.CreateFCmpUGT(vb, va) : builder.CreateFCmpULT(vb, va),
                             builder.CreateFCmpORD(vb, vb));
  bool isSigned = type.isSigned();
  auto pred = max ? (isSigned ? llvm::CmpInst::ICMP_SGT : llvm::CmpInst::ICMP_UGT)
                  : (isSigned ? llvm::CmpInst::ICMP_SLT : llvm::CmpInst::ICMP_ULT);
  return builder.CreateICmp(pred, vb, va);
}

/// Whether (vb, ib) wins over (va, ia): a number beats a NaN; a strictly better number wins; of
/// equal numbers (+0 and -0 are equal), or of two NaNs, the smaller index wins. Written as ands
/// and ors of compares (no select of i1, which LLVM turns into integer masks in PTX).
llvm::Value *KernelLowering::argBetter(bool max, const DType &type, llvm::Value *va,
                                       llvm::Value *ia, llvm::Value *vb, llvm::Value *ib) {
  llvm::Value *strictly = argStrictlyBetter(builder_, max, type, va, vb);
  llvm::Value *earlier = builder_.CreateICmpSLT(ib, ia);
  if (!type.isFloat())
    return builder_.CreateOr(strictly, builder_.CreateAnd(builder_.CreateICmpEQ(vb, va), earlier));
  // Equal rank: unordered-or-equal, except a number against a NaN b (b ranks below).
  llvm::Value *sameRank = builder_.CreateAnd(
      builder_.CreateFCmpUEQ(vb, va),
      builder_.CreateOr(builder_.CreateFCmpUNO(va, va), builder_.CreateFCmpORD(vb, vb)));
  return builder_.CreateOr(strictly, builder_.CreateAnd(sameRank, earlier));
}

void KernelLowering::lowerArgReduce(const Operation &op) {
  const tir::Type &in = op.operand(0)->type();
  const tir::Type &out = op.result()->type();
  const std::string &kind = op.strAttr("kind");
  if (kind != "argmax" && kind != "argmin")
    unsupported(op, "arg reduction kind '" + kind + "'");
  if (in.isScalar())
    unsupported(op, "'arg_reduce' of a scalar");
  if (in.elem.isFp8() || in.elem.isPointer())
    unsupported(op, "'arg_reduce' on " + in.elem.str());
  bool max = kind == "argmax";
  unsigned axis = static_cast<unsigned>(op.intAttr("axis"));
  Distribution dist = distributionOf(in);
  std::optional<Distribution> resultDist = distributionIfTensor(out);
  const Values &input = get(op.operand(0));
  DType elem = in.elem;
  if (elem.isBool()) // false < true
    elem = DType::scalar(ScalarKind::U8);
  auto valueOf = [&](llvm::Value *v) {
    return in.elem.isBool() ? builder_.CreateZExt(v, builder_.getInt8Ty()) : v;
  };
  unsigned numResults = resultDist ? resultDist->numElements() : 1;
  Values values(numResults, nullptr), indices(numResults, nullptr);
  // After the thread's own elements (step 1), float values carry no NaN (see the file comment).
  bool nanFree = false;
  auto merge = [&](unsigned r, llvm::Value *v, llvm::Value *i) {
    if (!values[r]) {
      values[r] = v;
      indices[r] = i;
      return;
    }
    llvm::Value *takeNew = nullptr;
    if (nanFree) {
      llvm::Value *cur = values[r];
      takeNew =
          builder_.CreateOr(max ? builder_.CreateFCmpOGT(v, cur) : builder_.CreateFCmpOLT(v, cur),
                            builder_.CreateAnd(builder_.CreateFCmpOEQ(v, cur),
                                               builder_.CreateICmpULT(i, indices[r])));
    } else {
      takeNew = argBetter(max, elem, values[r], indices[r], v, i);
    }
    values[r] = builder_.CreateSelect(takeNew, v, values[r]);
    indices[r] = builder_.CreateSelect(takeNew, i, indices[r]);
  };

  // 1. Within the thread (copies of an element, when the layout wraps, are counted once). A
  //    thread's elements along the axis lie at increasing coordinates, so a later element wins
  //    only when strictly better: no index compare. Merging neighbours pairwise (a tree) keeps
  //    that order and makes the dependent chain log2(n) merges long instead of n.
  std::vector<std::vector<std::pair<llvm::Value *, llvm::Value *>>> runs(numResults);
  unsigned inThread =
      static_cast<unsigned>(std::min<int64_t>(dist.elemsPerThread[axis], dist.shape[axis]));
  for (unsigned e = 0; e < dist.numElements(); ++e) {
    std::vector<unsigned> index = dist.multiIndex(e);
    if (index[axis] >= inThread)
      continue;
    llvm::Value *position = coordinate(dist, axis, index[axis]);
    index.erase(index.begin() + axis);
    runs[resultDist ? resultDist->linearIndex(index) : 0].push_back({valueOf(input[e]), position});
  }
  for (unsigned r = 0; r < numResults; ++r) {
    auto &run = runs[r];
    while (run.size() > 1) {
      std::vector<std::pair<llvm::Value *, llvm::Value *>> merged;
      for (size_t i = 0; i + 1 < run.size(); i += 2) {
        auto [va, ia] = run[i];
        auto [vb, ib] = run[i + 1];
        llvm::Value *takeLater = argStrictlyBetter(builder_, max, elem, va, vb);
        merged.push_back(
            {builder_.CreateSelect(takeLater, vb, va), builder_.CreateSelect(takeLater, ib, ia)});
      }
      if (run.size() % 2)
        merged.push_back(run.back());
      run = std::move(merged);
    }
    if (!run.empty()) {
      values[r] = run.front().first;
      indices[r] = run.front().second;
    }
  }
  const uint32_t nanBit = 0x80000000u;
  if (elem.isFloat()) {
    llvm::Value *extreme = llvm::ConstantFP::getInfinity(scalarType(elem), /*Negative=*/max);
    for (unsigned r = 0; r < numResults; ++r) {
      if (!values[r])
        continue;
      llvm::Value *isNan = builder_.CreateFCmpUNO(values[r], values[r]);
      values[r] = builder_.CreateSelect(isNan, extreme, values[r]);
      indices[r] = builder_.CreateSelect(
          isNan, builder_.CreateOr(indices[r], builder_.getInt32(nanBit)), indices[r]);
    }
    nanFree = true;
  }

  // 2. Across the lanes of a warp that hold distinct elements along the axis.
  unsigned rootAxis = dist.rootDim[axis];
  unsigned laneStride = 1;
  for (unsigned r : dist.root->order) {
    if (r == rootAxis)
      break;
    laneStride *= dist.root->threadsPerWarp[r];
  }
  int64_t distinctLanes =
      std::min<int64_t>(dist.tpw(axis), std::max<int64_t>(1, dist.shape[axis] / dist.spt(axis)));
  for (int64_t step = 1; step < distinctLanes; step *= 2) {
    unsigned mask = static_cast<unsigned>(step) * laneStride;
    for (unsigned r = 0; r < numResults; ++r)
      merge(r, shuffleXor(values[r], mask), shuffleXor(indices[r], mask));
  }

  // 3. Across warps, through shared memory: values, then indices, each at slot (result element,
  //    warp along the axis).
  unsigned warps = distinctWarpsAlongAxis(op);
  if (warps > 1) {
    llvm::Type *memType = scalarType(elem);
    llvm::Type *indexType = builder_.getInt32Ty();
    llvm::Value *indexBase = builder_.CreateGEP(builder_.getInt8Ty(), sharedMemory_,
                                                builder_.getInt32(argReduceIndexOffset(op)));
    llvm::Value *warpAlongAxis = builder_.CreateAnd(threadIndicesFor(dist.root).second[rootAxis],
                                                    builder_.getInt32(warps - 1));
    Values slots(numResults);
    for (unsigned r = 0; r < numResults; ++r) {
      llvm::Value *linear = resultDist ? linearCoordinate(*resultDist, r) : builder_.getInt32(0);
      slots[r] = builder_.CreateMul(linear, builder_.getInt32(warps));
    }
    beginSharedWrite();
    for (unsigned r = 0; r < numResults; ++r) {
      llvm::Value *slot = builder_.CreateAdd(slots[r], warpAlongAxis);
      builder_.CreateStore(values[r], sharedElementPointer(memType, slot));
      builder_.CreateStore(indices[r], builder_.CreateGEP(indexType, indexBase, slot));
    }
    barrier();
    for (unsigned r = 0; r < numResults; ++r) {
      values[r] = indices[r] = nullptr;
      for (unsigned w = 0; w < warps; ++w) {
        llvm::Value *slot = builder_.CreateAdd(slots[r], builder_.getInt32(w));
        llvm::Value *v = builder_.CreateLoad(memType, sharedElementPointer(memType, slot));
        llvm::Value *i =
            builder_.CreateLoad(indexType, builder_.CreateGEP(indexType, indexBase, slot));
        merge(r, v, i);
      }
    }
    sharedInUse_ = true;
  }
  // All-NaN rows keep the smallest index, 0.
  if (nanFree)
    for (llvm::Value *&index : indices)
      index = builder_.CreateAnd(index, builder_.getInt32(~nanBit));
  values_[op.result()] = indices;
}

} // namespace tilec::codegen::detail
