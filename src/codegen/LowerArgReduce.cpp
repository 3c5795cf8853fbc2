// argmax/argmin along one axis: (value, index) pairs combined within the thread, across the lanes
// of a warp with shuffles and across warps through shared memory, as the sum/max/min reductions
// are. The interpreter's semantics: the first index among equal extremes, NaNs ignored (an
// all-NaN row gives index 0), the result an i32.
//
// Floats: a thread folds its own elements in order, as Triton does, with three instructions per
// element as Triton's combine has: the running extreme is maxnum (minnum), which ignores NaNs, and
// the index follows the element whenever the extreme changes (strictly better, or the first
// number after leading NaNs; equal values keep the earlier index). A thread that saw only NaNs
// reports -inf (+inf for argmin) with bit 31 set in its first index. The thread's result is thus
// NaN-free before it travels, and the merges across lanes and warps are Triton's combine,
// `v1 > v2 or (v1 == v2 and i1 < i2)` on unsigned indices: a number still beats a NaN (it is
// above -inf, or equal to it with the smaller index), and of two NaNs the earlier wins. The bit
// is cleared at the end. Measured on an H100 (session 11), argmax of 64x32000 fp32 rows: NaN
// tests in every merge of a pairwise tree, 0.82x Triton; an in-order fold whose rare NaN case
// took a branch, 0.87x (the branch kept ptxas from interleaving the loads with the fold: all 16
// 16-byte loads of a thread issued first, where Triton's code keeps four in flight); this fold,
// branch-free, as Triton's.
#include "codegen/KernelLowering.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

namespace tilec::codegen::detail {

/// Set in the index of a thread's result that stands for a NaN (see the file comment).
constexpr uint32_t kNanBit = 0x80000000u;

/// Whether `candidate` is strictly better than `current`: greater for argmax, smaller for
/// argmin. Floats compare ordered (false when either is a NaN); see the file comment for why no
/// NaN reaches a compare that matters.
static llvm::Value *strictlyBetter(llvm::IRBuilder<> &builder, bool max, const DType &type,
                                   llvm::Value *current, llvm::Value *candidate) {
  if (type.isFloat())
    return max ? builder.CreateFCmpOGT(candidate, current)
               : builder.CreateFCmpOLT(candidate, current);
  bool isSigned = type.isSigned();
  auto pred = max ? (isSigned ? llvm::CmpInst::ICMP_SGT : llvm::CmpInst::ICMP_UGT)
                  : (isSigned ? llvm::CmpInst::ICMP_SLT : llvm::CmpInst::ICMP_ULT);
  return builder.CreateICmp(pred, candidate, current);
}

/// Step 1 for floats (see the file comment): for each result, the thread's (value, index) pairs
/// in order become one NaN-free pair. The running extreme is maxnum (minnum for argmin), which
/// passes over NaNs; the index moves to an element when the extreme changes: when it is strictly
/// better, or when the extreme so far is a NaN (only the first elements can make it one). A NaN
/// left at the end (the thread saw only NaNs) becomes the extreme with kNanBit in the first index.
void KernelLowering::foldFloatRuns(bool max, ArgRuns &runs, Values &values, Values &indices) {
  for (size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].empty())
      continue;
    auto [value, index] = runs[r].front();
    for (size_t k = 1; k < runs[r].size(); ++k) {
      auto [v, i] = runs[r][k];
      llvm::Value *extreme = builder_.CreateBinaryIntrinsic(
          max ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum, value, v);
      // Unordered: true while the extreme so far is a NaN, whatever v is.
      index = builder_.CreateSelect(builder_.CreateFCmpUNE(extreme, value), i, index);
      value = extreme;
    }
    llvm::Value *infinity = llvm::ConstantFP::getInfinity(value->getType(), /*Negative=*/max);
    llvm::Value *isNan = builder_.CreateFCmpUNO(value, value);
    values[r] = builder_.CreateSelect(isNan, infinity, value);
    indices[r] = builder_.CreateSelect(
        isNan, builder_.CreateOr(runs[r].front().second, builder_.getInt32(kNanBit)), index);
  }
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
  // Triton's combine, for pairs from different threads: the strictly better value, or of equal
  // values (+0 and -0 are equal) the smaller index, unsigned (a NaN's flagged index is larger).
  auto merge = [&](unsigned r, llvm::Value *v, llvm::Value *i) {
    if (!values[r]) {
      values[r] = v;
      indices[r] = i;
      return;
    }
    llvm::Value *cur = values[r];
    llvm::Value *earlier = builder_.CreateICmpULT(i, indices[r]);
    llvm::Value *equal =
        elem.isFloat() ? builder_.CreateFCmpOEQ(v, cur) : builder_.CreateICmpEQ(v, cur);
    llvm::Value *tie = builder_.CreateAnd(equal, earlier);
    llvm::Value *takeNew = builder_.CreateOr(strictlyBetter(builder_, max, elem, cur, v), tie);
    values[r] = builder_.CreateSelect(takeNew, v, values[r]);
    indices[r] = builder_.CreateSelect(takeNew, i, indices[r]);
  };

  // 1. Within the thread (copies of an element, when the layout wraps, are counted once). A
  //    thread's elements along the axis lie at increasing coordinates, so a later element wins
  //    only when strictly better: no index compare.
  ArgRuns runs(numResults);
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
  if (elem.isFloat()) {
    foldFloatRuns(max, runs, values, indices);
  } else {
    // Integers: neighbours merged pairwise (a tree), a dependent chain of log2(n) merges.
    for (unsigned r = 0; r < numResults; ++r) {
      auto &run = runs[r];
      while (run.size() > 1) {
        std::vector<std::pair<llvm::Value *, llvm::Value *>> merged;
        for (size_t i = 0; i + 1 < run.size(); i += 2) {
          auto [va, ia] = run[i];
          auto [vb, ib] = run[i + 1];
          llvm::Value *takeLater = strictlyBetter(builder_, max, elem, va, vb);
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
  if (elem.isFloat())
    for (llvm::Value *&index : indices)
      index = builder_.CreateAnd(index, builder_.getInt32(~kNanBit));
  values_[op.result()] = indices;
}

} // namespace tilec::codegen::detail
