// `dot` on the tensor cores: mma.sync.aligned.m16n8kK (sm_80 and up), for the dots
// AccelerateMatmul marked engine = "mma_v2".
//
// The accumulator is in the mma layout (gpu/Layout.h): a thread holds, for instruction tile
// (mi, ni), the elements (2mi, 2ni), (2mi, 2ni+1), (2mi+1, 2ni), (2mi+1, 2ni+1) of its own
// per-dimension numbering, i.e. the c0..c3 fragment of an instruction whose rows "g" and "g+8"
// (g = lane / 4) are the rows the thread holds. The operands are staged in swizzled shared tiles
// (SharedTile.h: mmaOperandPlan) and read as A and B fragments for exactly those rows and columns:
// with ldmatrix where an 8x8 matrix of 16-bit pairs is one 16-byte row of the tile (.trans for
// 16-bit operands stored the other way), with single loads otherwise. A chained dot's a can stay
// in registers (mmaTakesAFromRegisters): the accumulator fragments of the first product are the A
// fragments of the second.
#include "codegen/KernelLowering.h"
#include "codegen/NVPTXTarget.h"
#include "codegen/SharedMemory.h"
#include "gpu/Mma.h"

#include <algorithm>
#include <functional>
#include <llvm/IR/InlineAsm.h>
#include <map>
#include <optional>
#include <tuple>

namespace tilec::codegen::detail {
namespace {

llvm::Intrinsic::ID mmaIntrinsic(const DType &in, const DType &out) {
  switch (in.kind) {
  case ScalarKind::F16:
    return out.kind == ScalarKind::F16 ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f16_f16
                                       : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32;
  case ScalarKind::BF16:
    return llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16;
  case ScalarKind::F32:
    return llvm::Intrinsic::nvvm_mma_m16n8k8_row_col_tf32;
  default:
    // As Triton: int32 sums saturate (.satfinite) instead of wrapping, where they overflow.
    return llvm::Intrinsic::nvvm_mma_m16n8k32_row_col_satfinite_s8;
  }
}

} // namespace

llvm::FunctionCallee KernelLowering::mmaCallee(const DType &in, const DType &out) {
  if (!in.isFp8()) {
    llvm::Function *mma = intrinsicDeclaration(&module_, mmaIntrinsic(in, out));
    return {mma->getFunctionType(), mma};
  }
  // LLVM 19 has no intrinsic for the fp8 forms (PTX ISA 8.4, sm_89): inline asm, with the
  // fragment registers of the int8 m16n8k32 form, and the module asks for PTX 8.4.
  const char *kind = in.kind == ScalarKind::F8E4M3 ? "e4m3" : "e5m2";
  std::string text = std::string("mma.sync.aligned.m16n8k32.row.col.f32.") + kind + "." + kind +
                     ".f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};";
  llvm::Type *f32 = builder_.getFloatTy(), *i32 = builder_.getInt32Ty();
  auto *type = llvm::FunctionType::get(llvm::StructType::get(f32, f32, f32, f32),
                                       {i32, i32, i32, i32, i32, i32, f32, f32, f32, f32}, false);
  requirePtxVersion(84);
  return {type, llvm::InlineAsm::get(type, text, "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3", false)};
}

void KernelLowering::requirePtxVersion(unsigned version) {
  if (minimumPtxVersion(module_) >= version)
    return;
  module_.setModuleFlag(llvm::Module::Max, kMinimumPtxVersionFlag, builder_.getInt32(version));
}

llvm::Value *KernelLowering::packRegister(const Values &elements) {
  llvm::Type *i32 = builder_.getInt32Ty();
  if (elements.size() == 1)
    return builder_.CreateBitCast(elements[0], i32);
  llvm::Value *vector = llvm::UndefValue::get(
      llvm::FixedVectorType::get(elements[0]->getType(), static_cast<unsigned>(elements.size())));
  for (unsigned e = 0; e < elements.size(); ++e)
    vector = builder_.CreateInsertElement(vector, elements[e], e);
  return builder_.CreateBitCast(vector, i32);
}

Values KernelLowering::mmaAFragmentFromRegisters(const Operation &op, unsigned mi, unsigned s,
                                                 unsigned kI) {
  const tir::Type &aType = op.operand(0)->type();
  const Distribution aDist = distributionOf(aType);
  const unsigned perReg = 32 / (sharedElementBytes(aType.elem) * 8);
  const Values &a = get(op.operand(0));
  // Column c of the accumulator layout is the thread's element (c / 8) * 2 + c % 2 along N.
  Values regs;
  for (unsigned r = 0; r < 4; ++r) {
    Values elements;
    for (unsigned e = 0; e < perReg; ++e)
      elements.push_back(
          a[aDist.linearIndex({2 * mi + r % 2, (s * kI + (r / 2) * (kI / 2)) / 4 + e})]);
    regs.push_back(packRegister(elements));
  }
  return regs;
}

void KernelLowering::lowerDotMma(const Operation &op, bool onlyA) {
  const tir::Type &aType = op.operand(0)->type(), &bType = op.operand(1)->type();
  const tir::Type &accType = op.operand(2)->type();
  const DType &in = aType.elem, &out = accType.elem;
  const gpu::MmaV2Instruction instr = *gpu::mmaV2InstructionFor(op);
  const unsigned kI = instr.k, perReg = instr.elemsPerRegister();
  const MmaDotPlans plans = mmaDotPlans(op);
  const Distribution acc = distributionOf(accType);
  const Distribution aDist = distributionOf(aType), bDist = distributionOf(bType);
  const unsigned tilesM = acc.elemsPerThread[0] / 2, tilesN = acc.elemsPerThread[1] / 2;
  const unsigned kSteps = static_cast<unsigned>(aType.shape[1] / kI);

  // 1. Stage in shared memory the operands that are not there yet (pipelined operands are read
  //    from their buffer's slot).
  auto hoisted = hoistedA_.find(&op);
  const bool aHoisted = hoisted != hoistedA_.end();
  const bool stageA = plans.staged(0) && !aHoisted, stageB = plans.staged(1) && !onlyA;
  llvm::Value *bases[2] = {nullptr, nullptr};
  for (unsigned i = 0; i < (onlyA ? 1u : 2u); ++i) {
    if (plans.inBuffer[i])
      bases[i] = pipelineSlot(*bufferedTile(op.operand(i)));
    else if (plans.staged(i))
      bases[i] = sharedAt(plans.offsets[i]);
  }
  if (stageA || stageB) {
    beginSharedWrite();
    if (stageA)
      writeSharedTile(plans.operands[0], bases[0], aDist, get(op.operand(0)), in);
    if (stageB)
      writeSharedTile(plans.operands[1], bases[1], bDist, get(op.operand(1)), in);
    barrier();
    sharedInUse_ = true;
  }

  // 2. Where the thread's instruction tiles are: mBase[i] is the matrix row of instruction row 0
  //    of the thread's row i (its rows are mBase + g), nBase[ni] the column of instruction
  //    column 0 of tile ni (instruction column c is nBase + c).
  llvm::Type *i32 = builder_.getInt32Ty();
  llvm::Value *g = builder_.CreateLShr(laneId_, 2), *q = builder_.CreateAnd(laneId_, 3);
  llvm::Value *lane8 = builder_.CreateAnd(laneId_, 7), *matrix = builder_.CreateLShr(laneId_, 3);
  llvm::Value *matrixOdd =
      builder_.CreateICmpNE(builder_.CreateAnd(matrix, 1), builder_.getInt32(0));
  llvm::Value *matrixHigh = builder_.CreateICmpUGE(matrix, builder_.getInt32(2));
  Values mBase, nBase;
  for (unsigned i = 0; i < 2 * tilesM; ++i)
    mBase.push_back(builder_.CreateSub(coordinate(acc, 0, i), g));
  for (unsigned ni = 0; ni < tilesN; ++ni)
    nBase.push_back(builder_.CreateSub(coordinate(acc, 1, 2 * ni), builder_.CreateShl(q, 1)));
  auto add = [&](llvm::Value *v, unsigned c) {
    return c ? builder_.CreateAdd(v, builder_.getInt32(c)) : v;
  };

  llvm::Type *memType = scalarType(in);
  auto pack = [&](const Values &elements) { return packRegister(elements); };

  // Fragment addresses. Each ldmatrix reads at the thread's coordinates for the operand's first
  // fragment plus compile-time steps (instruction tiles along M or N, K steps). Computed from its
  // own coordinates, every fragment's address is the slot plus a loop-invariant offset, one
  // register each (some 60 of the 255 in flash attention's loop at D128, which spilled); stepped
  // from the first fragment's address by an XOR and an immediate offset (sharedAddressStep), as
  // Triton's linear layouts do, they take one register per operand and lane pattern.
  uint64_t baseAlignment[2] = {0, 0};
  for (unsigned i = 0; i < (onlyA ? 1u : 2u); ++i) {
    if (plans.inBuffer[i])
      baseAlignment[i] = pipelineSlotAlignment(
          function_, static_cast<unsigned>(bufferedTile(op.operand(i))->intAttr("buffer")));
    else if (plans.staged(i)) // the scratch area starts at a multiple of 1024 bytes
      baseAlignment[i] =
          plans.offsets[i] ? std::min<uint64_t>(1024, plans.offsets[i] & -plans.offsets[i]) : 1024;
  }
  // The values the thread's first instruction row (dimension 0) or column (1) takes over all
  // threads, each also plus `alternative` (the other tile a lane's matrix number picks); none
  // where coordinates wrap. tileStep: the step from instruction tile 0 to tile t along d.
  auto laneValues = [&](unsigned d, int64_t alternative) {
    std::vector<int64_t> values;
    if (acc.wraps(d))
      return values;
    for (unsigned warp = 0; warp < function_.numWarps; ++warp)
      for (unsigned lane = 0; lane < 32; ++lane) {
        int64_t v = acc.coordinates(lane, warp, acc.linearIndex({0, 0}))[d] -
                    (d == 0 ? lane / 4 : 2 * (lane % 4));
        values.push_back(v);
        values.push_back(v + alternative);
      }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
  };
  auto tileStep = [&](unsigned d, unsigned t) { return acc.offset(d, t) - acc.offset(d, 0); };
  // Whether the lanes' choice between tiles t and t + span (by ldmatrix's matrix number) is the
  // same step from tile t as from tile 0.
  auto sameChoice = [&](unsigned d, unsigned t, unsigned span) {
    return !acc.wraps(d) && tileStep(d, t + span) - tileStep(d, t) == tileStep(d, span);
  };
  std::map<unsigned, llvm::Value *> anchors; // first-fragment addresses, by operand and pattern
  auto ldmatrix = [&](unsigned operand, unsigned pattern, const std::vector<int64_t> &fastValues,
                      const Values &anchorCoords, int64_t d0, int64_t d1,
                      const std::function<Values()> &coords, bool trans, bool x4) {
    llvm::Intrinsic::ID id =
        x4 ? (trans ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16
                    : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16)
           : (trans ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x2_trans_b16
                    : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x2_b16);
    const SharedTilePlan &plan = plans.operands[operand];
    llvm::Value *base = bases[operand];
    const bool fastIs0 = plan.fastDim == 0;
    std::optional<SharedAddressStep> step = sharedAddressStep(
        plan, baseAlignment[operand], fastValues, fastIs0 ? d1 : d0, fastIs0 ? d0 : d1);
    llvm::Value *address = nullptr;
    if (!step) {
      address = sharedTileAddress(plan, base, memType, coords());
    } else {
      llvm::Value *&anchor = anchors[operand * 4 + pattern];
      if (!anchor) {
        // Through an opaque move: the code generator would otherwise reassociate anchor + C,
        // anchor being slot + invariant offset, into slot + (invariant offset + C), and hoist one
        // invariant per fragment out of the loop again.
        llvm::Value *address =
            sharedAddress32(sharedTileAddress(plan, base, memType, anchorCoords));
        auto *type = llvm::FunctionType::get(i32, {i32}, false);
        anchor = builder_.CreateCall(
            type, llvm::InlineAsm::get(type, "mov.b32 $0, $1;", "=r,r", false), {address});
      }
      llvm::Value *offset = anchor;
      if (step->xorBytes)
        offset = builder_.CreateXor(offset, builder_.getInt32(step->xorBytes));
      if (step->addBytes)
        offset =
            builder_.CreateAdd(offset, builder_.getInt32(static_cast<uint32_t>(step->addBytes)));
      address = builder_.CreateIntToPtr(offset, base->getType());
    }
    llvm::Value *loaded =
        intrinsic(id, {address->getType()}, {address}); // overloaded on the pointer
    Values regs;
    for (unsigned r = 0; r < (x4 ? 4u : 2u); ++r)
      regs.push_back(builder_.CreateExtractValue(loaded, r));
    return regs;
  };
  auto loadElements = [&](const SharedTilePlan &plan, llvm::Value *base, llvm::Value *row,
                          llvm::Value *col, bool alongCol) {
    Values elements;
    for (unsigned e = 0; e < perReg; ++e)
      elements.push_back(readSharedVector(
          plan, base, {alongCol ? row : add(row, e), alongCol ? add(col, e) : col}, 1, in)[0]);
    return pack(elements);
  };
  // With Triton's wider kWidth (MmaV2Instruction::kIndex) a lane's K values are not one 16-byte
  // row of an 8x8 matrix. A lane reads its kWidth consecutive K values of a row once, as one
  // vector where the tile is contiguous along K (else one element at a time), and each
  // instruction takes its share of them.
  const int64_t kSize = aType.shape[1];
  const unsigned kWidth = instr.kIndexLaneStride();
  std::map<std::tuple<bool, unsigned, int64_t>, Values> laneRuns; // (a?, row or column, K start)
  auto loadInterleaved = [&](const SharedTilePlan &plan, llvm::Value *base, unsigned outerIndex,
                             llvm::Value *outer, unsigned step, unsigned half, bool isA) {
    const unsigned kDim = isA ? 1 : 0;
    const unsigned run =
        plan.fastDim == kDim && plan.unit % kWidth == 0 && kWidth * plan.elemBytes <= 16 ? kWidth
                                                                                         : 1;
    llvm::Value *laneK = builder_.CreateMul(q, builder_.getInt32(kWidth));
    Values elements;
    for (unsigned e = 0; e < perReg; ++e) {
      const int64_t k = instr.kIndex(step, half, e, kSize), start = k - k % run;
      Values &loaded = laneRuns[{isA, outerIndex, start}];
      if (loaded.empty()) {
        llvm::Value *at = add(laneK, static_cast<unsigned>(start));
        loaded = readSharedVector(plan, base, {isA ? outer : at, isA ? at : outer}, run, in);
      }
      elements.push_back(loaded[k % run]);
    }
    return pack(elements);
  };
  auto select = [&](llvm::Value *condition, unsigned ifTrue, unsigned ifFalse) {
    return builder_.CreateSelect(condition, builder_.getInt32(ifTrue), builder_.getInt32(ifFalse));
  };

  // 3. A fragments of instruction row tile mi at K step s: a_r holds rows g + 8*(r%2) and the
  //    perReg consecutive k from (r/2)*kI/2 + q*perReg.
  const SharedTilePlan &aPlan = plans.operands[0];
  auto aFragment = [&](unsigned mi, unsigned s) -> Values {
    Values regs;
    if (plans.aInRegisters)
      return mmaAFragmentFromRegisters(op, mi, s, kI);
    unsigned k0 = s * kI;
    if (instr.interleavesK()) {
      for (unsigned r = 0; r < 4; ++r)
        regs.push_back(loadInterleaved(aPlan, bases[0], 2 * mi + r % 2,
                                       builder_.CreateAdd(mBase[2 * mi + r % 2], g), s, r / 2,
                                       true));
      return regs;
    }
    // The lanes of matrices 1 and 3 read the tile's rows 2mi + 1 (g + 8), the others 2mi.
    auto rowOf = [&](unsigned m) {
      return builder_.CreateSelect(matrixOdd, mBase[2 * m + 1], mBase[2 * m]);
    };
    const bool stepsHold = sameChoice(0, 2 * mi, 1);
    const int64_t dM = tileStep(0, 2 * mi);
    if (aPlan.fastDim == 1) { // rows of A along K: each 8x8 matrix is 8 rows of 16 bytes
      std::vector<int64_t> fast;
      if (stepsHold)
        fast = {0, kI / 2};
      return ldmatrix(
          0, 0, fast, {builder_.CreateAdd(rowOf(0), lane8), select(matrixHigh, kI / 2, 0)}, dM, k0,
          [&] {
            return Values{builder_.CreateAdd(rowOf(mi), lane8),
                          select(matrixHigh, k0 + kI / 2, k0)};
          },
          false, true);
    }
    if (instr.elemBits == 16) { // rows of A along M: transposed 8x8 matrices
      std::vector<int64_t> fast;
      if (stepsHold)
        fast = laneValues(0, tileStep(0, 1));
      return ldmatrix(
          0, 1, fast, {rowOf(0), builder_.CreateAdd(select(matrixHigh, 8, 0), lane8)}, dM, k0,
          [&] {
            return Values{rowOf(mi), builder_.CreateAdd(select(matrixHigh, k0 + 8, k0), lane8)};
          },
          true, true);
    }
    for (unsigned r = 0; r < 4; ++r)
      regs.push_back(loadElements(
          aPlan, bases[0], builder_.CreateAdd(mBase[2 * mi + r % 2], g),
          add(builder_.CreateMul(q, builder_.getInt32(perReg)), k0 + (r / 2) * (kI / 2)), true));
    return regs;
  };

  // 4. B fragments of instruction column tiles ni (and ni + 1 when `pair`) at K step s: b_r holds
  //    column g and the perReg consecutive k from r*kI/2 + q*perReg.
  const SharedTilePlan &bPlan = plans.operands[1];
  auto bFragments = [&](unsigned ni, unsigned s, bool pair) -> Values {
    unsigned k0 = s * kI;
    if (instr.interleavesK()) {
      Values regs;
      for (unsigned t = 0; t < (pair ? 2u : 1u); ++t)
        for (unsigned r = 0; r < 2; ++r)
          regs.push_back(loadInterleaved(bPlan, bases[1], ni + t,
                                         builder_.CreateAdd(nBase[ni + t], g), s, r, false));
      return regs;
    }
    // With `pair`, the lanes of matrices 2 and 3 read tile ni + 1.
    auto tileBaseOf = [&](unsigned n) {
      return pair ? builder_.CreateSelect(matrixHigh, nBase[n + 1], nBase[n]) : nBase[n];
    };
    const bool stepsHold = !acc.wraps(1) && (!pair || sameChoice(1, 2 * ni, 2));
    const int64_t dN = tileStep(1, 2 * ni);
    if (bPlan.fastDim == 0) { // rows of B along K: each 8x8 matrix is 8 columns of 16 bytes
      std::vector<int64_t> fast;
      if (stepsHold)
        fast = {0, kI / 2};
      return ldmatrix(
          1, pair, fast, {select(matrixOdd, kI / 2, 0), builder_.CreateAdd(tileBaseOf(0), lane8)},
          k0, dN,
          [&] {
            return Values{select(matrixOdd, k0 + kI / 2, k0),
                          builder_.CreateAdd(tileBaseOf(ni), lane8)};
          },
          false, pair);
    }
    if (instr.elemBits == 16) { // rows of B along N: transposed 8x8 matrices
      std::vector<int64_t> fast;
      if (stepsHold)
        fast = laneValues(1, pair ? tileStep(1, 2) : 0);
      return ldmatrix(
          1, 2 + pair, fast, {builder_.CreateAdd(select(matrixOdd, 8, 0), lane8), tileBaseOf(0)},
          k0, dN,
          [&] {
            return Values{builder_.CreateAdd(select(matrixOdd, k0 + 8, k0), lane8), tileBaseOf(ni)};
          },
          true, pair);
    }
    Values regs;
    for (unsigned t = 0; t < (pair ? 2u : 1u); ++t)
      for (unsigned r = 0; r < 2; ++r)
        regs.push_back(
            loadElements(bPlan, bases[1],
                         add(builder_.CreateMul(q, builder_.getInt32(perReg)), k0 + r * (kI / 2)),
                         builder_.CreateAdd(nBase[ni + t], g), false));
    return regs;
  };

  // 5. The products.
  llvm::FunctionCallee mma = mmaCallee(in, out);
  llvm::FunctionType *mmaType = mma.getFunctionType();
  Values result = onlyA ? Values{} : get(op.operand(2));
  bool packedAcc = out.kind == ScalarKind::F16;
  auto multiply = [&](const Values &aRegs, const Values &bRegs, unsigned mi, unsigned ni) {
    unsigned c[4] = {acc.linearIndex({2 * mi, 2 * ni}), acc.linearIndex({2 * mi, 2 * ni + 1}),
                     acc.linearIndex({2 * mi + 1, 2 * ni}),
                     acc.linearIndex({2 * mi + 1, 2 * ni + 1})};
    std::vector<llvm::Value *> args(aRegs.begin(), aRegs.end());
    args.insert(args.end(), bRegs.begin(), bRegs.end());
    if (packedAcc) {
      args.push_back(pack({result[c[0]], result[c[1]]}));
      args.push_back(pack({result[c[2]], result[c[3]]}));
    } else {
      for (unsigned e : c)
        args.push_back(result[e]);
    }
    for (unsigned i = 0; i < args.size(); ++i)
      if (args[i]->getType() != mmaType->getParamType(i))
        args[i] = builder_.CreateBitCast(args[i], mmaType->getParamType(i));
    llvm::Value *d = builder_.CreateCall(mma, args);
    if (packedAcc) {
      for (unsigned half = 0; half < 2; ++half) {
        llvm::Value *pair = builder_.CreateBitCast(builder_.CreateExtractValue(d, half),
                                                   llvm::FixedVectorType::get(scalarType(out), 2));
        result[c[2 * half]] = builder_.CreateExtractElement(pair, uint64_t(0));
        result[c[2 * half + 1]] = builder_.CreateExtractElement(pair, uint64_t(1));
      }
      return;
    }
    for (unsigned e = 0; e < 4; ++e)
      result[c[e]] = builder_.CreateExtractValue(d, e);
  };

  if (onlyA) {
    std::vector<Values> &fragments = hoistedA_[&op];
    for (unsigned s = 0; s < kSteps; ++s)
      for (unsigned mi = 0; mi < tilesM; ++mi)
        fragments.push_back(aFragment(mi, s));
    return;
  }
  for (unsigned s = 0; s < kSteps; ++s) {
    std::vector<Values> aRegs(tilesM), bRegs(tilesN);
    for (unsigned mi = 0; mi < tilesM; ++mi)
      aRegs[mi] = aHoisted ? hoisted->second[s * tilesM + mi] : aFragment(mi, s);
    for (unsigned ni = 0; ni < tilesN; ni += 2) {
      bool pair = ni + 1 < tilesN;
      Values regs = bFragments(ni, s, pair);
      bRegs[ni] = {regs[0], regs[1]};
      if (pair)
        bRegs[ni + 1] = {regs[2], regs[3]};
    }
    for (unsigned mi = 0; mi < tilesM; ++mi)
      for (unsigned ni = 0; ni < tilesN; ++ni)
        multiply(aRegs[mi], bRegs[ni], mi, ni);
  }
  values_[op.result()] = result;
}

} // namespace tilec::codegen::detail
