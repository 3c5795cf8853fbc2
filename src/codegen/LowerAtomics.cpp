// Atomics: atom.global for read-modify-write and compare-and-swap, a CAS loop for float max/min
// and for the 16-bit float adds the target has no atom for, and the broadcast of an atomic's
// result to every thread that holds a copy of its element.
#include "codegen/KernelLowering.h"
#include "gpu/Arch.h"

#include <llvm/IR/InlineAsm.h>

namespace tilec::codegen::detail {

/// Whether this thread is the one that performs side effects for its element `element`: layouts
/// that wrap or are slices give copies of an element to several threads, and an atomic must
/// happen once.
llvm::Value *KernelLowering::ownsElement(const Distribution &dist, unsigned element) {
  llvm::Value *owner = builder_.getTrue();
  std::vector<unsigned> index = dist.multiIndex(element);
  for (unsigned d = 0; d < dist.rank(); ++d) {
    if (!dist.wraps(d))
      continue;
    llvm::Value *unwrapped = builder_.CreateAdd(
        threadBase(dist, d), builder_.getInt32(static_cast<uint32_t>(dist.offset(d, index[d]))));
    owner = builder_.CreateAnd(
        owner,
        builder_.CreateICmpULT(unwrapped, builder_.getInt32(static_cast<uint32_t>(dist.shape[d]))));
  }
  const auto &[lanes, warps] = threadIndicesFor(dist.root);
  for (unsigned r : dist.removedRootDims) {
    owner = builder_.CreateAnd(owner, builder_.CreateICmpEQ(lanes[r], builder_.getInt32(0)));
    owner = builder_.CreateAnd(owner, builder_.CreateICmpEQ(warps[r], builder_.getInt32(0)));
  }
  return owner;
}

bool KernelLowering::hasUses(const tir::Value *value) {
  bool used = false;
  tir::walk(const_cast<tir::Function &>(function_), [&](Operation &user) {
    for (const tir::Value *v : user.operands())
      used |= v == value;
  });
  return used;
}

std::optional<Distribution> KernelLowering::distributionIfTensor(const tir::Type &type) {
  if (type.isTensor())
    return distributionOf(type);
  return std::nullopt;
}

bool KernelLowering::isReplicated(const std::optional<Distribution> &dist) {
  return !dist || atomicResultIsReplicated(*dist);
}

/// The thread that performs the atomic on element `element`: its owner, or thread 0 for a scalar.
llvm::Value *KernelLowering::ownsResultOf(const std::optional<Distribution> &dist,
                                          unsigned element) {
  if (dist)
    return ownsElement(*dist, element);
  return isThreadZero();
}

/// The atom qualifiers of `op`: its scope and memory order, gpu and acq_rel unless sema kept
/// others (tl.atomic_*(..., sem=, scope=)).
void KernelLowering::setAtomOrder(const Operation &op) {
  std::string scope = op.hasAttr("scope") ? op.strAttr("scope") : "gpu";
  std::string sem = op.hasAttr("sem") ? op.strAttr("sem") : "acq_rel";
  atomOrder_ = scope + "." + sem;
}

/// `@pred atom.global.<scope>.<sem>.<suffix> old, [ptr], operands...` returning the old word (0
/// where pred is false), as Triton emits it (gpu.acq_rel unless the op asks otherwise).
llvm::Value *KernelLowering::atom(const std::string &suffix, unsigned bits, llvm::Value *ptr,
                                  llvm::ArrayRef<llvm::Value *> operands, llvm::Value *pred) {
  llvm::Type *wordType = builder_.getIntNTy(bits);
  const char *constraint = bits == 64 ? "l" : bits == 16 ? "h" : "r";
  std::string ptx = "mov.b" + std::to_string(bits) + " $0, 0;\n\t@$" +
                    std::to_string(operands.size() + 2) + " atom.global." + atomOrder_ + "." +
                    suffix + " $0, [ $1 + 0 ]";
  std::string constraints = std::string("=") + constraint + ",l";
  std::vector<llvm::Type *> types{ptr->getType()};
  std::vector<llvm::Value *> args{ptr};
  for (unsigned i = 0; i < operands.size(); ++i) {
    ptx += ", $" + std::to_string(i + 2);
    constraints += std::string(",") + constraint;
    types.push_back(wordType);
    args.push_back(builder_.CreateBitCast(operands[i], wordType));
  }
  ptx += ";";
  constraints += ",b";
  types.push_back(builder_.getInt1Ty());
  args.push_back(pred);
  auto *asmType = llvm::FunctionType::get(wordType, types, false);
  return builder_.CreateCall(asmType, llvm::InlineAsm::get(asmType, ptx, constraints, true), args);
}

/// `@pred atom.global.<scope>.<sem>.<op>.v<N>.<type> {old...}, [ptr], {operands...}`: N
/// consecutive elements in one instruction (PTX ISA 8.1, sm_90), each updated atomically on its
/// own, as Triton emits it. Returns the old words (0 where pred is false).
Values KernelLowering::atomVector(const std::string &op, const std::string &type, unsigned bits,
                                  llvm::Value *ptr, llvm::ArrayRef<llvm::Value *> operands,
                                  llvm::Value *pred) {
  const unsigned n = static_cast<unsigned>(operands.size());
  llvm::Type *wordType = builder_.getIntNTy(bits);
  const std::string constraint = bits == 16 ? "h" : "r";
  std::string ptx, olds, news, constraints;
  std::vector<llvm::Type *> types{ptr->getType()};
  std::vector<llvm::Value *> args{ptr};
  for (unsigned i = 0; i < n; ++i) {
    ptx += "mov.b" + std::to_string(bits) + " $" + std::to_string(i) + ", 0;\n\t";
    olds += (i ? ", $" : "$") + std::to_string(i);
    news += (i ? ", $" : "$") + std::to_string(n + 1 + i);
    constraints += "=" + constraint + ",";
  }
  constraints += "l";
  for (unsigned i = 0; i < n; ++i) {
    constraints += "," + constraint;
    types.push_back(wordType);
    args.push_back(builder_.CreateBitCast(operands[i], wordType));
  }
  constraints += ",b";
  types.push_back(builder_.getInt1Ty());
  args.push_back(pred);
  ptx += "@$" + std::to_string(2 * n + 1) + " atom.global." + atomOrder_ + "." + op + ".v" +
         std::to_string(n) + "." + type + " { " + olds + " }, [ $" + std::to_string(n) +
         " + 0 ], { " + news + " };";
  auto *resultType = llvm::StructType::get(context_, std::vector<llvm::Type *>(n, wordType));
  auto *asmType = llvm::FunctionType::get(resultType, types, false);
  llvm::Value *result =
      builder_.CreateCall(asmType, llvm::InlineAsm::get(asmType, ptx, constraints, true), args);
  Values oldWords;
  for (unsigned i = 0; i < n; ++i)
    oldWords.push_back(builder_.CreateExtractValue(result, i));
  return oldWords;
}

/// How many consecutive elements of a tensor atomic one instruction updates, as Triton's
/// AtomicRMWOpConversion decides it: the pointers' vector width (contiguity and alignment, at
/// most 128 bits), limited by the mask's constancy. Only a float add has vector forms (sm_90,
/// PTX ISA 8.1: atom.add.v2/v4.f32, atom.add.noftz.v2/v4/v8.f16 and .bf16); elsewhere fp16 adds
/// go two at a time as f16x2, everything else one by one.
unsigned KernelLowering::atomicVectorWidth(const Operation &op,
                                           const std::optional<Distribution> &dist) {
  if (!dist || dist->order.empty())
    return 1;
  unsigned vec = accessVectorWidth(op, &*dist);
  if (op.numOperands() > 2)
    vec = std::min(vec, std::max(1u, axisInfo_.maskConstancy(op.operand(2), dist->order[0])));
  // A copy's owner does the update: one predicate for the whole vector holds where ownership is
  // the same across it (as for stores).
  if (vec > 1 && atomicResultIsReplicated(*dist) && dist->shape[dist->order[0]] % vec != 0)
    vec = 1;
  return vec;
}

/// Float atomic max/min with exactly the semantics of max.f32/min.f32 (a NaN operand yields the
/// other, +0 > -0), which no atom instruction has: a compare-and-swap loop on the bits. Returns
/// the old value as an integer word (0 where pred is false).
llvm::Value *KernelLowering::floatMinMaxLoop(bool max, llvm::Value *ptr, llvm::Value *val,
                                             llvm::Value *pred) {
  llvm::Type *floatType = val->getType();
  unsigned bits = static_cast<unsigned>(floatType->getPrimitiveSizeInBits());
  llvm::Type *wordType = builder_.getIntNTy(bits);
  llvm::BasicBlock *entry = builder_.GetInsertBlock();
  llvm::BasicBlock *start = llvm::BasicBlock::Create(context_, "fminmax.start", kernel_);
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(context_, "fminmax.loop", kernel_);
  llvm::BasicBlock *cas = llvm::BasicBlock::Create(context_, "fminmax.cas", kernel_);
  llvm::BasicBlock *done = llvm::BasicBlock::Create(context_, "fminmax.done", kernel_);
  builder_.CreateCondBr(pred, start, done);

  builder_.SetInsertPoint(start);
  llvm::LoadInst *first = builder_.CreateLoad(wordType, ptr);
  first->setVolatile(true);
  builder_.CreateBr(loop);

  builder_.SetInsertPoint(loop);
  llvm::PHINode *old = builder_.CreatePHI(wordType, 2);
  old->addIncoming(first, start);
  llvm::Value *combined = intrinsic(max ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum,
                                    {floatType}, {builder_.CreateBitCast(old, floatType), val});
  llvm::Value *desired = builder_.CreateBitCast(combined, wordType);
  builder_.CreateCondBr(builder_.CreateICmpEQ(desired, old), done, cas);

  builder_.SetInsertPoint(cas);
  llvm::Value *seen =
      atom("cas.b" + std::to_string(bits), bits, ptr, {old, desired}, builder_.getTrue());
  old->addIncoming(seen, cas);
  builder_.CreateCondBr(builder_.CreateICmpEQ(seen, old), done, loop);

  builder_.SetInsertPoint(done);
  llvm::PHINode *result = builder_.CreatePHI(wordType, 3);
  result->addIncoming(llvm::ConstantInt::get(wordType, 0), entry);
  result->addIncoming(old, loop);
  result->addIncoming(old, cas);
  return result;
}

/// fp16/bf16 atomic add where the target has no atom.add for the type (bf16 before sm_90): a
/// compare-and-swap loop on the 16-bit word. The sum is computed in fp32 and rounded once to the
/// element type, which gives the correctly rounded 16-bit sum (fp32 holds more than twice the
/// bits of either type), as atom.add.noftz does. Returns the old word (0 where pred is false).
llvm::Value *KernelLowering::halfAddLoop(llvm::Value *ptr, llvm::Value *val, llvm::Value *pred) {
  llvm::Type *halfType = val->getType();
  llvm::Type *wordType = builder_.getInt16Ty();
  llvm::BasicBlock *entry = builder_.GetInsertBlock();
  llvm::BasicBlock *start = llvm::BasicBlock::Create(context_, "hadd.start", kernel_);
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(context_, "hadd.loop", kernel_);
  llvm::BasicBlock *done = llvm::BasicBlock::Create(context_, "hadd.done", kernel_);
  builder_.CreateCondBr(pred, start, done);

  builder_.SetInsertPoint(start);
  llvm::LoadInst *first = builder_.CreateLoad(wordType, ptr);
  first->setVolatile(true);
  llvm::Value *addend = builder_.CreateFPExt(val, builder_.getFloatTy());
  builder_.CreateBr(loop);

  builder_.SetInsertPoint(loop);
  llvm::PHINode *old = builder_.CreatePHI(wordType, 2);
  old->addIncoming(first, start);
  llvm::Value *sum = builder_.CreateFAdd(
      builder_.CreateFPExt(builder_.CreateBitCast(old, halfType), builder_.getFloatTy()), addend);
  llvm::Value *desired = builder_.CreateBitCast(builder_.CreateFPTrunc(sum, halfType), wordType);
  llvm::Value *seen = atom("cas.b16", 16, ptr, {old, desired}, builder_.getTrue());
  old->addIncoming(seen, loop);
  builder_.CreateCondBr(builder_.CreateICmpEQ(seen, old), done, loop);

  builder_.SetInsertPoint(done);
  llvm::PHINode *result = builder_.CreatePHI(wordType, 2);
  result->addIncoming(llvm::ConstantInt::get(wordType, 0), entry);
  result->addIncoming(seen, loop);
  return result;
}

/// The owners of the elements of an atomic's result write them to shared memory (slot: the
/// element's row-major index); every thread that holds a copy reads it back.
Values KernelLowering::broadcastFromOwners(const std::optional<Distribution> &dist,
                                           const Values &results, const DType &elem) {
  llvm::Type *memType = memoryType(elem);
  Values slots;
  for (unsigned e = 0; e < results.size(); ++e)
    slots.push_back(dist ? linearCoordinate(*dist, e) : builder_.getInt32(0));
  beginSharedWrite();
  for (unsigned e = 0; e < results.size(); ++e)
    storeSharedIf(sharedElementPointer(memType, slots[e]), results[e], ownsResultOf(dist, e));
  barrier();
  Values broadcast;
  for (unsigned e = 0; e < results.size(); ++e)
    broadcast.push_back(builder_.CreateLoad(memType, sharedElementPointer(memType, slots[e])));
  sharedInUse_ = true;
  return broadcast;
}

void KernelLowering::lowerAtomicRMW(const Operation &op) {
  const tir::Type &type = op.operand(1)->type();
  const DType &elem = type.elem;
  const std::string &kind = op.strAttr("kind");
  unsigned bits = elem.bits();
  bool half = elem.kind == ScalarKind::F16 || elem.kind == ScalarKind::BF16;
  bool floatMinMax = (kind == "max" || kind == "min") && elem.isFloat();
  // 16-bit floats: add (tl.atomic_add), and max/min from descriptor atomics (desc.atomic_max).
  if (bits != 32 && bits != 64 && !(half && (kind == "add" || floatMinMax)))
    unsupported(op, "'atomic_rmw' " + kind + " on " + elem.str());
  // atom.<op>.<type> as PTX spells it; float max/min have none (floatMinMaxLoop, on the 16-bit
  // word with atom.cas.b16 for fp16 and bf16). atom.add.noftz.f16 needs sm_70,
  // atom.add.noftz.bf16 sm_90: before that, a CAS loop (halfAddLoop).
  std::string suffix;
  unsigned sm = gpu::smVersion(options_.arch);
  bool halfLoop = half && !floatMinMax && sm < (elem.kind == ScalarKind::BF16 ? 90u : 70u);
  if (half && !floatMinMax)
    suffix = elem.kind == ScalarKind::BF16 ? "add.noftz.bf16" : "add.noftz.f16";
  else if (kind == "add")
    suffix = elem.isFloat() ? "add.f" + std::to_string(bits) : "add.u" + std::to_string(bits);
  else if ((kind == "max" || kind == "min") && elem.isInteger())
    suffix = kind + (elem.isSigned() ? ".s" : ".u") + std::to_string(bits);
  else if (kind == "xchg")
    suffix = "exch.b" + std::to_string(bits);
  else if ((kind == "and" || kind == "or" || kind == "xor") && elem.isInteger())
    suffix = kind + ".b" + std::to_string(bits);
  else if (!floatMinMax)
    unsupported(op, "'atomic_rmw' " + kind + " on " + elem.str());

  std::optional<Distribution> dist = distributionIfTensor(type);
  unsigned n = dist ? dist->numElements() : 1;
  setAtomOrder(op);
  const Values &ptrs = get(op.operand(0));
  const Values &vals = get(op.operand(1));
  const Values *masks = op.numOperands() > 2 ? &get(op.operand(2)) : nullptr;
  Values results;
  const bool floatAdd = kind == "add" && elem.isFloat() && !halfLoop;
  const unsigned width = floatAdd ? atomicVectorWidth(op, dist) : 1;
  const bool vectorAdd = width > 1 && sm >= 90 && (bits == 32 || half);
  const bool f16x2 = width > 1 && !vectorAdd && elem.kind == ScalarKind::F16;
  if (vectorAdd || f16x2) {
    if (vectorAdd)
      requirePtxVersion(81);
    const unsigned group = vectorAdd ? width : 2;
    const std::string typeName = elem.kind == ScalarKind::F32    ? "f32"
                                 : elem.kind == ScalarKind::BF16 ? "bf16"
                                                                 : "f16";
    const std::string add = half ? "add.noftz" : "add";
    for (unsigned e = 0; e < n; e += group) {
      llvm::Value *pred = masks ? (*masks)[e] : builder_.getTrue();
      pred = builder_.CreateAnd(pred, ownsResultOf(dist, e));
      llvm::ArrayRef<llvm::Value *> operands(vals.data() + e, group);
      if (vectorAdd) {
        for (llvm::Value *old : atomVector(add, typeName, bits, ptrs[e], operands, pred))
          results.push_back(builder_.CreateBitCast(old, scalarType(elem)));
        continue;
      }
      // Two fp16 as one f16x2 word.
      llvm::Type *pairType = llvm::FixedVectorType::get(scalarType(elem), 2);
      llvm::Value *pair = llvm::UndefValue::get(pairType);
      for (unsigned j = 0; j < 2; ++j)
        pair = builder_.CreateInsertElement(pair, operands[j], j);
      llvm::Value *old =
          builder_.CreateBitCast(atom("add.noftz.f16x2", 32, ptrs[e],
                                      {builder_.CreateBitCast(pair, builder_.getInt32Ty())}, pred),
                                 pairType);
      for (unsigned j = 0; j < 2; ++j)
        results.push_back(builder_.CreateExtractElement(old, j));
    }
  }
  for (unsigned e = results.size(); e < n; ++e) {
    llvm::Value *pred = masks ? (*masks)[e] : builder_.getTrue();
    pred = builder_.CreateAnd(pred, ownsResultOf(dist, e));
    llvm::Value *old = floatMinMax ? floatMinMaxLoop(kind == "max", ptrs[e], vals[e], pred)
                       : halfLoop  ? halfAddLoop(ptrs[e], vals[e], pred)
                                   : atom(suffix, bits, ptrs[e], {vals[e]}, pred);
    results.push_back(builder_.CreateBitCast(old, scalarType(elem)));
  }
  if (op.numResults() == 1 && isReplicated(dist) && hasUses(op.result()))
    results = broadcastFromOwners(dist, results, elem);
  if (op.numResults() == 1)
    values_[op.result()] = results;
}

void KernelLowering::lowerAtomicCAS(const Operation &op) {
  const tir::Type &type = op.operand(2)->type();
  const DType &elem = type.elem;
  unsigned bits = elem.bits();
  // atom.cas.b16 needs sm_70, older than any target tilec has.
  if (bits != 16 && bits != 32 && bits != 64)
    unsupported(op, "'atomic_cas' on " + elem.str());
  std::optional<Distribution> dist = distributionIfTensor(type);
  unsigned n = dist ? dist->numElements() : 1;
  setAtomOrder(op);
  const Values &ptrs = get(op.operand(0));
  const Values &cmps = get(op.operand(1));
  const Values &vals = get(op.operand(2));
  Values results;
  for (unsigned e = 0; e < n; ++e) {
    llvm::Value *old = atom("cas.b" + std::to_string(bits), bits, ptrs[e], {cmps[e], vals[e]},
                            ownsResultOf(dist, e));
    results.push_back(builder_.CreateBitCast(old, scalarType(elem)));
  }
  if (op.numResults() == 1 && isReplicated(dist) && hasUses(op.result()))
    results = broadcastFromOwners(dist, results, elem);
  if (op.numResults() == 1)
    values_[op.result()] = results;
}

} // namespace tilec::codegen::detail
