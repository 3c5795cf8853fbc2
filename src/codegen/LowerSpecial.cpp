// tl.histogram and tl.gather through shared memory, tl.inline_asm_elementwise as LLVM inline
// assembly, tl.map_elementwise as its region's scalar code per element, and tl.debug_barrier.
#include "codegen/KernelLowering.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/Support/Error.h>

namespace tilec::codegen::detail {

/// The counts live in shared memory: zeroed by all threads, incremented with shared-memory
/// atomics by the one thread that owns each input element (layouts may replicate elements), and
/// read back in the result's layout. Every count is exact, so the order of the atomics does not
/// matter.
void KernelLowering::lowerHistogram(const Operation &op) {
  const tir::Type &in = op.operand(0)->type();
  const tir::Type &out = op.result()->type();
  int64_t bins = op.intAttr("num_bins");
  Distribution inDist = distributionOf(in);
  Distribution outDist = distributionOf(out);
  const Values &input = get(op.operand(0));
  const Values *mask = op.numOperands() > 1 ? &get(op.operand(1)) : nullptr;
  llvm::Type *i32 = builder_.getInt32Ty();

  beginSharedWrite();
  unsigned threads = 32 * function_.numWarps;
  for (int64_t first = 0; first < bins; first += threads) {
    llvm::Value *bin =
        builder_.CreateAdd(threadId_, builder_.getInt32(static_cast<uint32_t>(first)));
    auto zero = [&] { builder_.CreateStore(builder_.getInt32(0), sharedElementPointer(i32, bin)); };
    if (first + threads <= bins)
      zero();
    else
      ifThen(builder_.CreateICmpULT(bin, builder_.getInt32(static_cast<uint32_t>(bins))), zero);
  }
  barrier();

  // As Triton 3.6: the bin is the value's low log2(max(num_bins, 32)) bits (num_bins is a power
  // of two; Triton pads the bins to one per lane of a warp). Values outside [0, num_bins) wrap
  // around, and those that land in a padding bin are not counted.
  const int64_t paddedBins = std::max<int64_t>(bins, 32);
  for (unsigned e = 0; e < inDist.numElements(); ++e) {
    llvm::Value *bin = builder_.CreateAnd(builder_.CreateZExtOrTrunc(input[e], i32),
                                          builder_.getInt32(static_cast<uint32_t>(paddedBins - 1)));
    llvm::Value *count = ownsElement(inDist, e);
    if (mask)
      count = builder_.CreateAnd(count, (*mask)[e]);
    if (paddedBins > bins) {
      llvm::Value *inRange =
          builder_.CreateICmpULT(bin, builder_.getInt32(static_cast<uint32_t>(bins)));
      count = builder_.CreateAnd(count, inRange);
      bin = builder_.CreateSelect(inRange, bin, builder_.getInt32(0)); // stays in the buffer
    }
    builder_.CreateAtomicRMW(llvm::AtomicRMWInst::Add, sharedElementPointer(i32, bin),
                             builder_.CreateZExt(count, i32), llvm::MaybeAlign(4),
                             llvm::AtomicOrdering::Monotonic);
  }
  barrier();

  Values result(outDist.numElements());
  for (unsigned e = 0; e < outDist.numElements(); ++e)
    result[e] = builder_.CreateLoad(i32, sharedElementPointer(i32, coordinate(outDist, 0, e)));
  values_[op.result()] = result;
  sharedInUse_ = true;
}

/// The source goes to shared memory in row-major order; each thread then reads its result
/// elements at the coordinates the index gives along the axis. The index and the result share
/// one layout (AssignLayouts), so element e of one is element e of the other. Indices are
/// wrapped into the axis (its length is a power of two): an out-of-range index, undefined in
/// Triton, reads some element of the source instead of memory outside it.
void KernelLowering::lowerGather(const Operation &op) {
  const tir::Type &src = op.operand(0)->type();
  const tir::Type &out = op.result()->type();
  unsigned axis = static_cast<unsigned>(op.intAttr("axis"));
  if (src.elem.isPointer())
    unsupported(op, "tl.gather of pointers");
  Distribution srcDist = distributionOf(src);
  Distribution outDist = distributionOf(out);
  const Values &source = get(op.operand(0));
  const Values &index = get(op.operand(1));
  llvm::Type *memType = memoryType(src.elem);

  beginSharedWrite();
  for (unsigned e = 0; e < srcDist.numElements(); ++e)
    builder_.CreateStore(toSharedElement(source[e], src.elem),
                         sharedElementPointer(memType, linearCoordinate(srcDist, e)));
  barrier();

  Values result(outDist.numElements());
  uint32_t axisMask = static_cast<uint32_t>(src.shape[axis] - 1);
  for (unsigned e = 0; e < outDist.numElements(); ++e) {
    std::vector<unsigned> multi = outDist.multiIndex(e);
    llvm::Value *linear = builder_.getInt32(0);
    for (unsigned d = 0; d < outDist.rank(); ++d) {
      llvm::Value *c =
          d == axis
              ? builder_.CreateAnd(builder_.CreateSExtOrTrunc(index[e], builder_.getInt32Ty()),
                                   builder_.getInt32(axisMask))
              : coordinate(outDist, d, multi[d]);
      linear = builder_.CreateAdd(
          builder_.CreateMul(linear, builder_.getInt32(static_cast<uint32_t>(src.shape[d]))), c);
    }
    llvm::Value *v = builder_.CreateLoad(memType, sharedElementPointer(memType, linear));
    result[e] = fromSharedElement(v, src.elem);
  }
  values_[op.result()] = result;
  sharedInUse_ = true;
}

/// The PTX ISA version that the instructions of a user's inline asm need beyond what the arch
/// alone asks for (8.0 on sm_90), as the PTX ISA manual dates them: Triton emits the newest
/// version its ptxas knows, so its users' asm may use them (Megatron-LM's symmetric-memory
/// collectives: multimem.st). multimem.*, red.async and st.async came with 8.1, the .acc::f32
/// accumulation of multimem.ld_reduce on 16-bit types with 8.2, tensormap.replace and
/// tensormap.cp_fenceproxy with 8.3, the conversions of the fp4/fp6/ue8m0 pairs
/// (cvt.rn.f16x2.e2m1x2, ModelOpt's fp4 dequantisation) with 8.6. Whether the arch has an
/// instruction is left to ptxas, which says so. 0: nothing past the arch's own.
static unsigned ptxVersionForAsm(const std::string &text) {
  struct Need {
    const char *instruction;
    unsigned version;
  };
  static const Need needs[] = {
      {"multimem.", 81}, {"red.async", 81},         {"st.async", 81},
      {".acc::f32", 82}, {"tensormap.replace", 83}, {"tensormap.cp_fenceproxy", 83},
      {".e2m1x2", 86},   {".e2m3x2", 86},           {".e3m2x2", 86},
      {".ue8m0x2", 86},
  };
  unsigned version = 0;
  for (const Need &need : needs)
    if (text.find(need.instruction) != std::string::npos)
      version = std::max(version, need.version);
  return version;
}

/// As Triton lowers it: the thread's elements in groups of `pack`, one asm statement a group;
/// operands and results narrower than 32 bits are packed into 32-bit vectors (four i8, two f16),
/// wider ones passed one element a register. A thread whose element count is not a multiple of
/// `pack` repeats its last element to fill the last group (the asm is elementwise, so the extra
/// results are simply dropped), where Triton would refuse to compile.
void KernelLowering::lowerInlineAsm(const Operation &op) {
  if (unsigned version = ptxVersionForAsm(op.strAttr("asm")))
    requirePtxVersion(version);
  unsigned pack = static_cast<unsigned>(op.intAttr("pack"));
  const tir::Type &shapeType = op.result(0)->type();
  unsigned n = numElementsOf(shapeType);
  auto perRegister = [&](const DType &t) {
    unsigned bits = t.isPointer() ? 64 : t.bits();
    return std::min(bits < 32 ? 32 / bits : 1u, pack);
  };
  for (unsigned r = 0; r < op.numResults(); ++r)
    if (pack % perRegister(op.result(r)->type().elem) != 0)
      unsupported(op, "inline asm with pack " + std::to_string(pack) + " and " +
                          op.result(r)->type().elem.str() + " results");

  std::vector<llvm::Type *> retTypes;
  std::vector<unsigned> retPerRegister;
  for (unsigned r = 0; r < op.numResults(); ++r) {
    const DType &t = op.result(r)->type().elem;
    unsigned k = perRegister(t);
    llvm::Type *ty = scalarType(t);
    if (k > 1)
      ty = llvm::FixedVectorType::get(ty, k);
    for (unsigned j = 0; j < pack / k; ++j) {
      retTypes.push_back(ty);
      retPerRegister.push_back(k);
    }
  }
  llvm::Type *retType =
      retTypes.size() > 1 ? llvm::StructType::get(context_, retTypes) : retTypes[0];

  std::vector<Values> results(op.numResults());
  for (unsigned first = 0; first < n; first += pack) {
    auto element = [&](const Values &vals, unsigned j) { return vals[std::min(first + j, n - 1)]; };
    Values args;
    std::vector<llvm::Type *> argTypes;
    for (const tir::Value *operand : op.operands()) {
      const Values &vals = get(operand);
      const DType &t = operand->type().elem;
      unsigned k = perRegister(t);
      for (unsigned j = 0; j < pack; j += k) {
        llvm::Value *arg;
        if (k == 1) {
          arg = element(vals, j);
        } else {
          arg = llvm::UndefValue::get(llvm::FixedVectorType::get(scalarType(t), k));
          for (unsigned q = 0; q < k && j + q < pack; ++q)
            arg = builder_.CreateInsertElement(arg, element(vals, j + q), builder_.getInt32(q));
        }
        args.push_back(arg);
        argTypes.push_back(arg->getType());
      }
    }
    auto *fnType = llvm::FunctionType::get(retType, argTypes, false);
    const std::string &constraints = op.strAttr("constraints");
    if (llvm::Error err = llvm::InlineAsm::verify(fnType, constraints)) {
      llvm::consumeError(std::move(err));
      unsupported(op, "inline asm whose constraints \"" + constraints +
                          "\" do not match its arguments and results (as LLVM checks them)");
    }
    llvm::InlineAsm *asmValue = llvm::InlineAsm::get(fnType, op.strAttr("asm"), constraints,
                                                     /*hasSideEffects=*/!op.boolAttr("pure"));
    llvm::Value *call = builder_.CreateCall(fnType, asmValue, args);
    unsigned slot = 0;
    for (unsigned r = 0; r < op.numResults(); ++r) {
      for (unsigned j = 0; j < pack;) {
        llvm::Value *v = retTypes.size() > 1 ? builder_.CreateExtractValue(call, slot) : call;
        unsigned k = retPerRegister[slot++];
        for (unsigned q = 0; q < k; ++q, ++j) {
          llvm::Value *element = k > 1 ? builder_.CreateExtractElement(v, builder_.getInt32(q)) : v;
          if (first + j < n)
            results[r].push_back(element);
        }
      }
    }
  }
  for (unsigned r = 0; r < op.numResults(); ++r)
    values_[op.result(r)] = results[r];
}

/// As Triton lowers it: the thread's elements in groups of `pack` (consecutive registers), the
/// region's scalar code emitted once per group, its branches and loops as real control flow, so
/// that each element runs only its own side of an `if`. A thread whose element count is not a
/// multiple of `pack` repeats its last element to fill the last group and drops the extra
/// results, where Triton refuses to compile.
void KernelLowering::lowerMapElementwise(const Operation &op) {
  unsigned pack = static_cast<unsigned>(op.intAttr("pack"));
  const tir::Block &body = op.region(0).block();
  unsigned n = numElementsOf(op.result(0)->type());
  std::vector<const Values *> operands;
  for (const tir::Value *operand : op.operands())
    operands.push_back(&get(operand));
  std::vector<Values> results(op.numResults());
  for (unsigned first = 0; first < n; first += pack) {
    for (unsigned i = 0; i < operands.size(); ++i)
      for (unsigned j = 0; j < pack; ++j)
        values_[body.argument(i * pack + j)] = {(*operands[i]).at(std::min(first + j, n - 1))};
    for (const auto &inner : body.ops())
      if (inner->code() != OpCode::Yield)
        lowerOp(*inner);
    const Operation *yield = body.terminator();
    for (unsigned r = 0; r < op.numResults(); ++r)
      for (unsigned j = 0; j < pack && first + j < n; ++j)
        results[r].push_back(get(yield->operand(r * pack + j))[0]);
  }
  for (unsigned r = 0; r < op.numResults(); ++r)
    values_[op.result(r)] = results[r];
}

} // namespace tilec::codegen::detail
