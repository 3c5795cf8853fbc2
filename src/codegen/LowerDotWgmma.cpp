// `dot` on Hopper's tensor cores: wgmma.mma_async (sm_90a), for the dots AccelerateMatmul marked
// engine = "wgmma".
//
// A warpgroup (four consecutive warps) multiplies 64 rows of a by n columns of b per instruction,
// reading b, and a unless it is in registers, from shared memory through matrix descriptors. The
// accumulator has the instructions' own layout (gpu/Layout.h, mmaV3AccumulatorLayout): with G
// warpgroups along M and H along N (warps numbered along M first), instruction (mi, ni) of
// warpgroup (gm, gn) computes a's rows 64 (gm + mi * G) to 64 more, in their order, by b's
// columns n (gn + ni * H) to n more (each warpgroup's descriptors start at its own rows of a and
// columns of b; rows or columns past the tile wrap: copies). Operands come from a pipeline slot,
// from registers (a chained dot's a, or a loop-invariant a read into fragments before the loop),
// or are staged here; every tile is in an NVMMA layout (wgmmaOperandPlan).
//
// The instructions of a dot form one wgmma group, waited for before the dot's result is used
// (wgmma.wait_group 0, the accumulators tied through it so that nothing reads them earlier);
// the software pipeline's copies of the next tiles run meanwhile. The GEMM's dot in a pipelined
// loop (both operands from pipeline slots, the accumulator carried straight from one iteration's
// dot to the next's) stays in flight instead (wgmmaStaysInFlight): each iteration waits only for
// the previous iteration's group (wait_group 1), then synchronises the warpgroups before the
// copies that overwrite that group's slots; the loop's exit waits for the last group.
// Attention's second product is left in flight too (wgmmaDeferredTo): its accumulator is next
// used after the next iteration's first product, whose wait then covers both groups, so the
// product of P and V overlaps the next Q K^T.
#include "codegen/KernelLowering.h"
#include "gpu/Mma.h"

#include <algorithm>
#include <llvm/IR/InlineAsm.h>
#include <map>
#include <sstream>

namespace tilec::codegen::detail {

void KernelLowering::fenceProxyAsync() {
  voidAsm("fence.proxy.async.shared::cta;");
}

void KernelLowering::voidAsm(const std::string &text, const std::string &constraints,
                             llvm::ArrayRef<llvm::Value *> args) {
  std::vector<llvm::Type *> types;
  for (llvm::Value *arg : args)
    types.push_back(arg->getType());
  auto *type = llvm::FunctionType::get(builder_.getVoidTy(), types, false);
  builder_.CreateCall(type, llvm::InlineAsm::get(type, text, constraints, true), args);
}

/// How many products Triton lets the tensor cores accumulate in their reduced precision before
/// it adds them into the fp32 accumulator with an ordinary fp32 add: tl.dot's
/// max_num_imprecise_acc, for fp8 operands into fp32 (Triton's needsPartialAccumulator), counted
/// in K per instruction. Nothing when the instructions accumulate into the result themselves.
static std::optional<unsigned> partialAccumulation(const Operation &dot) {
  if (!dot.hasAttr("max_num_imprecise_acc"))
    return std::nullopt;
  const tir::Type &a = dot.operand(0)->type();
  if (!a.elem.isFp8() || dot.result()->type().elem.kind != ScalarKind::F32)
    return std::nullopt;
  int64_t bound = dot.intAttr("max_num_imprecise_acc");
  if (bound > a.shape.back())
    return std::nullopt;
  return static_cast<unsigned>(std::max<int64_t>(0, bound));
}

bool KernelLowering::wgmmaStaysInFlight(const Operation &dot, unsigned *carriedIndex) {
  const tir::Block *body = dot.parentBlock();
  const Operation *loop = body ? body->parentOp() : nullptr;
  // A dot with partial accumulators ends with fp32 adds after its own waits: nothing in flight.
  if (!loop || loop->code() != OpCode::For || partialAccumulation(dot))
    return false;
  MmaDotPlans plans = mmaDotPlans(dot);
  if (!plans.inBuffer[0] || !plans.inBuffer[1])
    return false;
  // The result goes only to the yield, and what the loop carries it as only into this dot's
  // accumulator: no instruction but the next wgmma touches the registers in flight.
  const Operation *yield = body->terminator();
  unsigned uses = 0, index = 0;
  for (unsigned i = 0; i < yield->numOperands(); ++i)
    if (yield->operand(i) == dot.result()) {
      ++uses;
      index = i;
    }
  if (uses != 1 || dot.operand(2) != body->argument(index + 1))
    return false;
  bool onlyUses = true;
  tir::walk(const_cast<tir::Block &>(*body), [&](Operation &op) {
    for (unsigned i = 0; i < op.numOperands(); ++i) {
      bool isAcc = &op == &dot && i == 2;
      if ((op.operand(i) == dot.result() && &op != yield) ||
          (op.operand(i) == body->argument(index + 1) && !isAcc))
        onlyUses = false;
    }
  });
  if (carriedIndex)
    *carriedIndex = index;
  return onlyUses;
}

llvm::Value *KernelLowering::uniformWarpGroup() {
  if (uniformWarpGroup_)
    return uniformWarpGroup_;
  if (function_.numWarps <= 4)
    return uniformWarpGroup_ = prologue_.getInt32(0);
  llvm::Function *shuffle = intrinsicDeclaration(&module_, llvm::Intrinsic::nvvm_shfl_sync_idx_i32);
  llvm::Value *warp =
      prologue_.CreateCall(shuffle, {prologue_.getInt32(0xFFFFFFFF), warpId_, prologue_.getInt32(0),
                                     prologue_.getInt32(0x1F)});
  return uniformWarpGroup_ = prologue_.CreateLShr(warp, 2);
}

bool KernelLowering::hasGemmMainLoop() {
  bool found = false;
  tir::walk(const_cast<tir::Function &>(function_), [&](Operation &op) {
    found = found || (gpu::isWgmmaDot(op) && wgmmaStaysInFlight(op));
  });
  return found;
}

unsigned KernelLowering::attentionRegisterBound() {
  // H100 and H200: 228 KB of shared memory per SM, 1 KB of it reserved per CTA; 64K registers.
  constexpr unsigned kSharedPerSM = 233472, kReservedPerCTA = 1024, kRegistersPerSM = 65536;
  const unsigned threads = function_.numWarps * 32;
  bool attention = false;
  int64_t accumulatorRegisters = 0;
  tir::walk(const_cast<tir::Function &>(function_), [&](Operation &op) {
    if (!gpu::isWgmmaDot(op))
      return;
    attention = attention || mmaDotPlans(op).aInRegisters;
    accumulatorRegisters += op.result()->type().numElements() / threads;
  });
  if (!attention || accumulatorRegisters > 64)
    return 0;
  const unsigned ctas = kSharedPerSM / (sharedMemoryBytes(function_) + kReservedPerCTA);
  if (ctas < 2)
    return 0;
  const unsigned bound = kRegistersPerSM / (threads * 2) / 8 * 8;
  return bound < 255 ? bound : 0;
}

/// The op of `body` that contains `op` (op itself when it is in body).
static const Operation *topLevelIn(const tir::Block &body, const Operation *op) {
  while (op && op->parentBlock() != &body)
    op = op->parentBlock() ? op->parentBlock()->parentOp() : nullptr;
  return op;
}

const Operation *KernelLowering::wgmmaDeferredTo(const Operation &dot, unsigned *carriedIndex) {
  const tir::Block *body = dot.parentBlock();
  const Operation *loop = body ? body->parentOp() : nullptr;
  if (!loop || loop->code() != OpCode::For || wgmmaStaysInFlight(dot) || partialAccumulation(dot))
    return nullptr;
  // Nothing the group reads may change before the wait: its operands are in pipeline slots
  // (released by a barrier after the wait) or registers, not in the scratch area.
  MmaDotPlans plans = mmaDotPlans(dot);
  for (unsigned i = 0; i < 2; ++i)
    if (plans.staged(i) && !(i == 0 && hoistedA_.count(&dot)))
      return nullptr;
  const Operation *yield = body->terminator();
  unsigned uses = 0, index = 0;
  for (unsigned i = 0; i < yield->numOperands(); ++i)
    if (yield->operand(i) == dot.result()) {
      ++uses;
      index = i;
    }
  if (uses != 1)
    return nullptr;
  // The absorbing dot: the first wgmma dot of the body before `dot`, and every user of the
  // carried value (and of the result, but the yield) after it.
  std::map<const Operation *, unsigned> position;
  const Operation *absorber = nullptr;
  for (const auto &op : body->ops()) {
    position[op.get()] = static_cast<unsigned>(position.size());
    if (!absorber && gpu::isWgmmaDot(*op) && op.get() != &dot)
      absorber = op.get();
  }
  if (!absorber || position[absorber] > position[&dot] || wgmmaStaysInFlight(*absorber))
    return nullptr;
  const tir::Value *carried = body->argument(index + 1);
  bool after = true;
  tir::walk(const_cast<tir::Block &>(*body), [&](Operation &op) {
    for (const tir::Value *operand : op.operands()) {
      if (operand != carried && !(operand == dot.result() && &op != yield))
        continue;
      if (operand == dot.result() || position[topLevelIn(*body, &op)] <= position[absorber])
        after = false;
    }
  });
  if (!after)
    return nullptr;
  if (carriedIndex)
    *carriedIndex = index;
  return absorber;
}

Values KernelLowering::waitForWgmma(const Values &accumulators, unsigned pending) {
  llvm::Type *type = accumulators[0]->getType();
  const char *constraint = type->isFloatTy() ? "=f" : type->isHalfTy() ? "=h" : "=r";
  std::string constraints;
  for (unsigned r = 0; r < accumulators.size(); ++r)
    constraints += std::string(r ? "," : "") + constraint;
  for (unsigned r = 0; r < accumulators.size(); ++r)
    constraints += "," + std::to_string(r);
  std::vector<llvm::Type *> types(accumulators.size(), type);
  auto *asmType = llvm::FunctionType::get(llvm::StructType::get(context_, types), types, false);
  std::string text = "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";";
  llvm::Value *waited = builder_.CreateCall(
      asmType, llvm::InlineAsm::get(asmType, text, constraints, true), accumulators);
  Values result;
  for (unsigned r = 0; r < accumulators.size(); ++r)
    result.push_back(builder_.CreateExtractValue(waited, r));
  return result;
}

namespace {

/// The PTX type of a wgmma operand or accumulator of `type` (fp32 operands are tf32:
/// AccelerateMatmul puts only those dots on wgmma).
const char *wgmmaTypeName(const DType &type, bool operand) {
  switch (type.kind) {
  case ScalarKind::F16:
    return "f16";
  case ScalarKind::BF16:
    return "bf16";
  case ScalarKind::F8E4M3:
    return "e4m3";
  case ScalarKind::F8E5M2:
    return "e5m2";
  case ScalarKind::I8:
    return "s8";
  case ScalarKind::I32:
    return "s32";
  default:
    return operand ? "tf32" : "f32";
  }
}

/// The descriptor's swizzle mode field for a swizzle width in bytes.
uint64_t swizzleMode(unsigned swizzleBytes) {
  switch (swizzleBytes) {
  case 128:
    return 1;
  case 64:
    return 2;
  default:
    return 3; // 32 bytes
  }
}

} // namespace

void KernelLowering::lowerDotWgmma(const Operation &op) {
  const tir::Type &aType = op.operand(0)->type(), &accType = op.operand(2)->type();
  const DType &in = aType.elem, &out = accType.elem;
  const gpu::WgmmaInstruction instr = gpu::wgmmaInstructionOf(op, function_.numWarps);
  const MmaDotPlans plans = mmaDotPlans(op);
  const Distribution acc = distributionOf(accType);
  const unsigned warpsM = instr.warpsM, warpsN = instr.warpsN;
  const unsigned blocksM = acc.elemsPerThread[0] / 2; // instructions along M per warpgroup
  // Instructions along N per warpgroup: the warpgroups along N take n columns each in turn.
  const unsigned tilesN =
      static_cast<unsigned>(std::max<int64_t>(1, accType.shape[1] / (int64_t(instr.n) * warpsN)));
  const unsigned kSteps = static_cast<unsigned>(aType.shape[1] / instr.k);
  const bool packedAcc = out.kind == ScalarKind::F16;
  const bool integer = out.kind == ScalarKind::I32;
  const unsigned accRegs = instr.n / (packedAcc ? 4 : 2); // per thread and instruction
  llvm::Type *i32 = builder_.getInt32Ty(), *i64 = builder_.getInt64Ty();

  // 1. Operands: a pipeline slot, registers, or staged here.
  auto hoisted = hoistedA_.find(&op);
  const bool aHoisted = hoisted != hoistedA_.end();
  const bool aInRegisters = plans.aInRegisters || aHoisted;
  llvm::Value *bases[2] = {nullptr, nullptr};
  bool staging = false;
  for (unsigned i = 0; i < 2; ++i) {
    if (i == 0 && aInRegisters)
      continue;
    if (plans.inBuffer[i]) {
      bases[i] = pipelineSlot(*bufferedTile(op.operand(i)));
      continue;
    }
    bases[i] = sharedAt(plans.offsets[i]);
    if (!staging)
      beginSharedWrite();
    staging = true;
    writeSharedTile(plans.operands[i], bases[i], distributionOf(op.operand(i)->type()),
                    get(op.operand(i)), in);
  }
  if (staging) {
    fenceProxyAsync();
    barrier();
    sharedInUse_ = true;
  }

  // 2. Matrix descriptors (PTX ISA, "matrix descriptor"): the tile's address >> 4 in bits 0-13,
  //    the leading byte offset (between blocks along the fast dimension) >> 4 in bits 16-29, the
  //    stride byte offset (between groups of 8 rows) >> 4 in bits 32-45, the swizzle mode in
  //    bits 62-63. Each operand's tile gets one descriptor; an instruction's sub-tile, starting at
  //    row `row`, element `fast` of its row, adds its byte offset >> 4 to it, as Triton does: the
  //    address field cannot carry (shared addresses are below 2^18 bytes, sub-tiles start at
  //    multiples of 16 bytes), and the constant adds fold where the recomputed fields did not.
  auto tileDescriptor = [&](const SharedTilePlan &plan, llvm::Value *base) {
    uint64_t leading = uint64_t(plan.swizzleBytes()) * plan.numRows();
    uint64_t stride = 8 * uint64_t(plan.swizzleBytes());
    uint32_t low = static_cast<uint32_t>(((leading >> 4) & 0x3FFF) << 16);
    uint32_t high =
        static_cast<uint32_t>(((stride >> 4) & 0x3FFF) | swizzleMode(plan.swizzleBytes()) << 30);
    llvm::Value *start = builder_.CreateAnd(builder_.CreateLShr(sharedAddress32(base), 4),
                                            builder_.getInt32(0x3FFF));
    // The two 32-bit halves joined by one mov (LLVM would widen the arithmetic to 64 bits).
    auto *type = llvm::FunctionType::get(i64, {i32, i32}, false);
    return builder_.CreateCall(
        type, llvm::InlineAsm::get(type, "mov.b64 $0, {$1, $2};", "=l,r,r", false),
        {builder_.CreateOr(start, builder_.getInt32(low)), builder_.getInt32(high)});
  };
  auto descriptor = [&](const SharedTilePlan &plan, llvm::Value *tile, llvm::Value *row,
                        llvm::Value *fast) {
    const uint32_t length = static_cast<uint32_t>(plan.blockLength);
    llvm::Value *element = builder_.CreateAdd(
        builder_.CreateAdd(
            builder_.CreateMul(builder_.CreateUDiv(fast, builder_.getInt32(length)),
                               builder_.getInt32(static_cast<uint32_t>(plan.numRows() * length))),
            builder_.CreateMul(row, builder_.getInt32(length))),
        builder_.CreateURem(fast, builder_.getInt32(length)));
    llvm::Value *offset = builder_.CreateMul(element, builder_.getInt32(plan.elemBytes));
    return builder_.CreateAdd(tile, builder_.CreateZExt(builder_.CreateLShr(offset, 4), i64));
  };
  auto constant = [&](unsigned v) { return builder_.getInt32(v); };
  // The warpgroup's place in the warp grid (warps numbered along M first, Layout.h): groupM
  // along M, groupN along N.
  const unsigned groupsM = warpsM / 4;
  llvm::Value *groupM = uniformWarpGroup(), *groupN = nullptr;
  if (warpsN > 1) {
    groupN = builder_.CreateLShr(groupM, constant(llvm::Log2_32(groupsM)));
    groupM = builder_.CreateAnd(groupM, constant(groupsM - 1));
  }
  // The first of a's rows the warpgroup's instruction mi computes. Where the warps' rows are more
  // than the tile's (a chained dot's 64 rows on 8 warps) they wrap: the warpgroups past M compute
  // copies of the first ones' rows, as in Triton.
  const int64_t rowsM = accType.shape[0];
  auto aRowsStart = [&](unsigned mi) {
    llvm::Value *row =
        builder_.CreateMul(builder_.CreateAdd(groupM, constant(mi * groupsM)), constant(64));
    if (64 * int64_t(groupsM) > rowsM)
      row = builder_.CreateAnd(row, constant(static_cast<unsigned>(rowsM - 1)));
    return row;
  };
  // The first of b's columns the warpgroup's instruction ni computes: instruction ni of every
  // warpgroup along N, then the next ni (wrapping as the rows do).
  const int64_t columnsN = accType.shape[1];
  auto bColumnsStart = [&](unsigned ni) -> llvm::Value * {
    if (warpsN == 1)
      return constant(ni * instr.n);
    llvm::Value *column = builder_.CreateAdd(builder_.CreateMul(groupN, constant(instr.n)),
                                             constant(ni * instr.n * warpsN));
    if (int64_t(instr.n) * warpsN > columnsN)
      column = builder_.CreateAnd(column, constant(static_cast<unsigned>(columnsN - 1)));
    return column;
  };
  const SharedTilePlan &aPlan = plans.operands[0], &bPlan = plans.operands[1];
  const bool transA = !aInRegisters && aPlan.fastDim == 0;
  const bool transB = bPlan.fastDim == 1;
  // Only 16-bit operands have the transposed forms (AccelerateMatmul keeps others K-major).
  const bool transposable = instr.elemBits == 16;
  if (!transposable && (transA || transB))
    unsupported(op, "wgmma on 8-bit or tf32 operands that are not contiguous along K");
  llvm::Value *aTile = aInRegisters ? nullptr : tileDescriptor(aPlan, bases[0]);
  llvm::Value *bTile = tileDescriptor(bPlan, bases[1]);
  auto aDescriptor = [&](unsigned mi, unsigned s) {
    llvm::Value *m = aRowsStart(mi), *k = constant(s * instr.k);
    return transA ? descriptor(aPlan, aTile, k, m) : descriptor(aPlan, aTile, m, k);
  };
  auto bDescriptor = [&](unsigned ni, unsigned s) {
    llvm::Value *n = bColumnsStart(ni), *k = constant(s * instr.k);
    return transB ? descriptor(bPlan, bTile, k, n) : descriptor(bPlan, bTile, n, k);
  };

  // 3. The instruction, as inline assembly: the accumulators are outputs tied to inputs.
  std::ostringstream ptx;
  ptx << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << accRegs + (aInRegisters ? 5 : 2) << ", 0;\n"
      << "wgmma.mma_async.sync.aligned.m64n" << instr.n << "k" << instr.k << "."
      << wgmmaTypeName(out, false) << "." << wgmmaTypeName(in, true) << "."
      << wgmmaTypeName(in, true) << " {";
  for (unsigned r = 0; r < accRegs; ++r)
    ptx << (r ? ", " : "") << "$" << r;
  ptx << "}, ";
  unsigned next = accRegs;
  if (aInRegisters) {
    ptx << "{$" << next << ", $" << next + 1 << ", $" << next + 2 << ", $" << next + 3 << "}, ";
    next += 4;
  } else {
    ptx << "$" << next++ << ", ";
  }
  // Integer forms take no scale (negation) or transpose immediates.
  ptx << "$" << next << ", p" << (integer ? "" : ", 1, 1");
  if (transposable) {
    if (!aInRegisters)
      ptx << ", " << (transA ? 1 : 0);
    ptx << ", " << (transB ? 1 : 0);
  }
  ptx << ";\n}";
  std::string constraints;
  const char *accConstraint = packedAcc || integer ? "=r" : "=f";
  for (unsigned r = 0; r < accRegs; ++r)
    constraints += std::string(r ? "," : "") + accConstraint;
  constraints += aInRegisters ? ",r,r,r,r" : ",l";
  constraints += ",l,r";
  for (unsigned r = 0; r < accRegs; ++r)
    constraints += "," + std::to_string(r);
  llvm::Type *accElement = packedAcc || integer ? i32 : builder_.getFloatTy();
  std::vector<llvm::Type *> resultTypes(accRegs, accElement);
  llvm::StructType *resultType = llvm::StructType::get(context_, resultTypes);
  std::vector<llvm::Type *> argTypes;
  for (unsigned i = 0; i < (aInRegisters ? 4u : 1u); ++i)
    argTypes.push_back(aInRegisters ? i32 : i64);
  argTypes.push_back(i64);
  argTypes.push_back(i32);
  argTypes.insert(argTypes.end(), resultTypes.begin(), resultTypes.end());
  auto *asmType = llvm::FunctionType::get(resultType, argTypes, false);
  auto *wgmma = llvm::InlineAsm::get(asmType, ptx.str(), constraints, true);

  // Register r of instruction (mi, ni) holds row 16w + g + 8 * ((r % 4) / 2) of the warpgroup's
  // rows and column ni * n + 8 * (r / 4) + 2q + r % 2: the thread's elements (2mi + (r%4)/2,
  // 2 (ni * n / 8 + r / 4) + r % 2) in the accumulator layout. A packed fp16 register holds
  // two neighbours along N.
  Values result = get(op.operand(2));
  auto element = [&](unsigned mi, unsigned ni, unsigned r) {
    return acc.linearIndex({2 * mi + (r % 4) / 2, 2 * (ni * instr.n / 8 + r / 4) + r % 2});
  };
  auto accumulatorRegister = [&](unsigned mi, unsigned ni, unsigned reg) -> llvm::Value * {
    if (!packedAcc)
      return result[element(mi, ni, reg)];
    return packRegister({result[element(mi, ni, 2 * reg)], result[element(mi, ni, 2 * reg + 1)]});
  };
  auto setAccumulatorRegister = [&](unsigned mi, unsigned ni, unsigned reg, llvm::Value *value) {
    if (!packedAcc) {
      result[element(mi, ni, reg)] = value;
      return;
    }
    llvm::Value *pair =
        builder_.CreateBitCast(value, llvm::FixedVectorType::get(builder_.getHalfTy(), 2));
    result[element(mi, ni, 2 * reg)] = builder_.CreateExtractElement(pair, uint64_t(0));
    result[element(mi, ni, 2 * reg + 1)] = builder_.CreateExtractElement(pair, uint64_t(1));
  };

  // Every register the instructions read (A fragments, packed accumulators) is formed before the
  // one fence: registers written between wgmma.fence and a wgmma would need another fence (ptxas
  // inserts it, and warns).
  std::vector<Values> aFragments(blocksM * kSteps);
  for (unsigned mi = 0; mi < blocksM; ++mi)
    for (unsigned s = 0; s < kSteps; ++s) {
      Values &regs = aFragments[s * blocksM + mi];
      if (aHoisted)
        regs = hoisted->second[s * blocksM + mi];
      else if (aInRegisters)
        regs = mmaAFragmentFromRegisters(op, mi, s, instr.k);
    }
  // A dot that starts from zeros (tl.dot(a, b) without acc, attention's q k^T) needs no zeroed
  // registers: its first K step runs with scale-d 0 (d = a * b) on undefined ones, as Triton's
  // does; that is also Triton's sign for a product of -0.0 (-0.0 + +0.0 would be +0.0).
  const bool startsFromZero = std::all_of(result.begin(), result.end(), [](llvm::Value *value) {
    auto *constant = llvm::dyn_cast<llvm::Constant>(value);
    return constant && constant->isNullValue();
  });
  std::vector<std::vector<llvm::Value *>> accumulators(blocksM * tilesN);
  for (unsigned mi = 0; mi < blocksM; ++mi)
    for (unsigned ni = 0; ni < tilesN; ++ni)
      for (unsigned r = 0; r < accRegs; ++r)
        accumulators[mi * tilesN + ni].push_back(startsFromZero ? llvm::UndefValue::get(accElement)
                                                                : accumulatorRegister(mi, ni, r));
  auto product = [&](unsigned mi, unsigned ni, unsigned s, bool scaleD,
                     std::vector<llvm::Value *> &acc) {
    std::vector<llvm::Value *> args;
    if (aInRegisters) {
      const Values &regs = aFragments[s * blocksM + mi];
      args.assign(regs.begin(), regs.end());
    } else {
      args.push_back(aDescriptor(mi, s));
    }
    args.push_back(bDescriptor(ni, s));
    args.push_back(builder_.getInt32(scaleD ? 1 : 0)); // d = a * b + d, or d = a * b
    args.insert(args.end(), acc.begin(), acc.end());
    llvm::Value *d = builder_.CreateCall(asmType, wgmma, args);
    for (unsigned r = 0; r < accRegs; ++r)
      acc[r] = builder_.CreateExtractValue(d, r);
  };
  std::optional<unsigned> maxImprecise = partialAccumulation(op);
  voidAsm("wgmma.fence.sync.aligned;");
  for (unsigned mi = 0; mi < blocksM; ++mi)
    for (unsigned ni = 0; ni < tilesN; ++ni) {
      std::vector<llvm::Value *> &acc = accumulators[mi * tilesN + ni];
      if (!maxImprecise) {
        // The first step of a dot from zeros with scale-d 0.
        for (unsigned s = 0; s < kSteps; ++s)
          product(mi, ni, s, !(startsFromZero && s == 0), acc);
        continue;
      }
      // As Triton's: the products go to a partial accumulator (its first step with scale-d 0);
      // once max_num_imprecise_acc products of K are in it, and after the last step, it is
      // waited for and added into the accumulator in fp32.
      bool accumulated = !startsFromZero;
      std::vector<llvm::Value *> partial;
      unsigned imprecise = 0;
      for (unsigned s = 0; s < kSteps; ++s) {
        bool fresh = partial.empty();
        if (fresh)
          partial.assign(accRegs, llvm::UndefValue::get(accElement));
        product(mi, ni, s, !fresh, partial);
        imprecise += instr.k;
        if (imprecise < *maxImprecise && s + 1 < kSteps)
          continue;
        voidAsm("wgmma.commit_group.sync.aligned;");
        Values landed = waitForWgmma(Values(partial.begin(), partial.end()), 0);
        for (unsigned r = 0; r < accRegs; ++r)
          acc[r] = accumulated ? builder_.CreateFAdd(acc[r], landed[r]) : landed[r];
        accumulated = true;
        partial.clear();
        imprecise = 0;
        if (s + 1 < kSteps)
          voidAsm("wgmma.fence.sync.aligned;"); // registers written since the last fence
      }
    }
  // (Unpacked after the commit: fp16 accumulators leave the packed registers only then.)
  voidAsm("wgmma.commit_group.sync.aligned;");
  for (unsigned mi = 0; mi < blocksM; ++mi)
    for (unsigned ni = 0; ni < tilesN; ++ni)
      for (unsigned r = 0; r < accRegs; ++r)
        setAccumulatorRegister(mi, ni, r, accumulators[mi * tilesN + ni][r]);

  // 4. Wait for the group; the accumulators pass through the wait so that their uses follow it.
  //    A dot left in flight waits for the previous iteration's group instead, whose slots the
  //    copies after it overwrite once every warpgroup is done with them.
  // A deferred group is waited for by its absorber, next iteration (below).
  if (wgmmaDeferredTo(op)) {
    values_[op.result()] = result;
    return;
  }
  if (wgmmaStaysInFlight(op)) {
    voidAsm("wgmma.wait_group.sync.aligned 1;");
    barrier();
    values_[op.result()] = result;
    return;
  }
  std::vector<llvm::Value *> all;
  for (unsigned mi = 0; mi < blocksM; ++mi)
    for (unsigned ni = 0; ni < tilesN; ++ni)
      for (unsigned r = 0; r < accRegs; ++r)
        all.push_back(accumulatorRegister(mi, ni, r));
  // The groups deferred to this dot (the previous iteration's) complete with this wait: their
  // carried accumulators pass through it too.
  std::vector<std::pair<const tir::Value *, unsigned>> absorbed;
  if (const tir::Block *body = op.parentBlock(); body && body->parentOp())
    for (const auto &other : body->ops()) {
      unsigned carried = 0;
      if (gpu::isWgmmaDot(*other) && wgmmaDeferredTo(*other, &carried) == &op) {
        const tir::Value *argument = body->argument(carried + 1);
        absorbed.push_back({argument, static_cast<unsigned>(all.size())});
        const Values &values = get(argument);
        all.insert(all.end(), values.begin(), values.end());
      }
    }
  Values waited = waitForWgmma(all, 0);
  unsigned index = 0;
  for (unsigned mi = 0; mi < blocksM; ++mi)
    for (unsigned ni = 0; ni < tilesN; ++ni)
      for (unsigned r = 0; r < accRegs; ++r)
        setAccumulatorRegister(mi, ni, r, waited[index++]);
  values_[op.result()] = result;
  for (auto [argument, first] : absorbed) {
    Values &values = values_[argument];
    for (unsigned e = 0; e < values.size(); ++e)
      values[e] = waited[first + e];
  }
  // The next write to shared memory (the copies into the slots those groups read) waits for
  // every warpgroup to get here.
  if (!absorbed.empty())
    sharedInUse_ = true;
}

} // namespace tilec::codegen::detail
