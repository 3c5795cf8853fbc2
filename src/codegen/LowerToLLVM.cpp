#include "analysis/AxisInfo.h"
#include "codegen/Distribution.h"
#include "codegen/KernelLowering.h"
#include "codegen/NVPTXTarget.h"
#include "codegen/SharedMemory.h"
#include "codegen/SharedTile.h"
#include "frontend/SourceManager.h"
#include "gpu/Arch.h"
#include "gpu/Mma.h"
#include "tir/Libdevice.h"

#include <algorithm>
#include <array>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>
#include <string_view>
#include <unordered_map>

namespace tilec::codegen {
namespace detail {

llvm::Function *KernelLowering::run() {
  std::vector<llvm::Type *> params;
  const tir::Block &body = function_.body();
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    const tir::Type &type = body.argument(i)->type();
    if (type.isTensor())
      throw CompileError("error: kernel parameter " + std::to_string(i) + " is a tensor");
    params.push_back(scalarType(type.elem));
  }
  // The tensor maps of TMA copies: 128-byte parameters after the others (docs/metadata.md).
  auto *tensorMapType = llvm::ArrayType::get(builder_.getInt8Ty(), 128);
  for (size_t i = 0; i < function_.tensorMaps.size(); ++i)
    params.push_back(llvm::PointerType::get(context_, 0));
  // The global scratch where the kernel writes its own tensor maps: the last parameter.
  const bool globalScratch = function_.globalScratchBytes() > 0;
  if (globalScratch)
    params.push_back(llvm::PointerType::get(context_, 1));
  auto *type = llvm::FunctionType::get(builder_.getVoidTy(), params, false);
  kernel_ =
      llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, function_.name(), module_);
  kernel_->setCallingConv(llvm::CallingConv::PTX_Kernel);
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    llvm::Argument *arg = kernel_->getArg(i);
    if (i < function_.params.size())
      arg->setName(function_.params[i].name);
    const tir::ParamInfo *param = i < function_.params.size() ? &function_.params[i] : nullptr;
    if (body.argument(i)->type().elem.isPointer() && param && param->alignment > 1)
      arg->addAttr(llvm::Attribute::getWithAlignment(context_, llvm::Align(param->alignment)));
    values_[body.argument(i)] = {arg};
  }
  for (size_t i = 0; i < function_.tensorMaps.size(); ++i) {
    // Passed by value, aligned to 64 bytes, read in place (grid_constant: the parameter's own
    // address, which TMA takes, instead of a local copy).
    unsigned index = body.numArguments() + static_cast<unsigned>(i);
    llvm::Argument *arg = kernel_->getArg(index);
    arg->setName("tensor_map_" + std::to_string(i));
    kernel_->addParamAttr(index, llvm::Attribute::getWithByValType(context_, tensorMapType));
    kernel_->addParamAttr(index, llvm::Attribute::getWithAlignment(context_, llvm::Align(64)));
    tensorMaps_.push_back(arg);
  }
  if (globalScratch) {
    globalScratch_ = kernel_->getArg(kernel_->arg_size() - 1);
    globalScratch_->setName("global_scratch");
    kernel_->addParamAttr(kernel_->arg_size() - 1,
                          llvm::Attribute::getWithAlignment(context_, llvm::Align(128)));
  }

  unsigned threads = 32 * function_.numWarps;
  // The kernel mark and its launch bounds ("maxntid" for the x dimension, the others 1;
  // "maxnreg"; "minctasm"): !nvvm.annotations for LLVM 19, the ptx_kernel calling convention and
  // nvvm.* attributes for LLVM 21 and later, which read nothing else.
#if LLVM_VERSION_MAJOR >= 21
  kernel_->setCallingConv(llvm::CallingConv::PTX_Kernel);
  auto annotate = [&](std::string_view bound, unsigned value) {
    std::string text = std::to_string(value) + (bound == "maxntid" ? ",1,1" : "");
    kernel_->addFnAttr("nvvm." + std::string(bound), text);
  };
  for (size_t i = 0; i < function_.tensorMaps.size(); ++i)
    kernel_->addParamAttr(body.numArguments() + static_cast<unsigned>(i),
                          llvm::Attribute::get(context_, "nvvm.grid_constant"));
#else
  llvm::NamedMDNode *annotations = module_.getOrInsertNamedMetadata("nvvm.annotations");
  auto annotateKey = [&](const std::string &key, unsigned value) {
    annotations->addOperand(llvm::MDNode::get(
        context_, {llvm::ValueAsMetadata::get(kernel_), llvm::MDString::get(context_, key),
                   llvm::ConstantAsMetadata::get(builder_.getInt32(value))}));
  };
  auto annotate = [&](std::string_view bound, unsigned value) {
    if (bound != "maxntid")
      return annotateKey(std::string(bound), value);
    annotateKey("maxntidx", value);
    annotateKey("maxntidy", 1);
    annotateKey("maxntidz", 1);
  };
  annotateKey("kernel", 1);
  if (!function_.tensorMaps.empty()) {
    std::vector<llvm::Metadata *> indices; // 1-based
    for (size_t i = 0; i < function_.tensorMaps.size(); ++i)
      indices.push_back(llvm::ConstantAsMetadata::get(
          builder_.getInt32(body.numArguments() + static_cast<unsigned>(i) + 1)));
    annotations->addOperand(
        llvm::MDNode::get(context_, {llvm::ValueAsMetadata::get(kernel_),
                                     llvm::MDString::get(context_, "grid_constant"),
                                     llvm::MDNode::get(context_, indices)}));
  }
#endif
  annotate("maxntid", threads);
  // The kernel's own maxnreg (Triton's option, which its backend writes as .maxnreg) replaces
  // tilec's bounds.
  const bool ownBound = function_.maxRegisters != 0;
  if (ownBound)
    annotate("maxnreg", function_.maxRegisters);
  if (hasGemmMainLoop()) {
    annotate("minctasm", 1); // .minnctapersm 1: see hasGemmMainLoop
    if (function_.numWarps >= 8 && !ownBound)
      annotate("maxnreg", kGemmLoopMaxRegisters); // see kGemmLoopMaxRegisters
  } else if (unsigned bound = ownBound ? 0 : attentionRegisterBound()) {
    annotate("maxnreg", bound);
  }
  kernel_->addFnAttr("tilec-shared-memory-bytes", std::to_string(sharedMemoryBytes(function_)));

  llvm::BasicBlock *entry = llvm::BasicBlock::Create(context_, "entry", kernel_);
  llvm::BasicBlock *start = llvm::BasicBlock::Create(context_, "body", kernel_);
  prologue_.SetInsertPoint(entry);
  threadId_ = prologue_.CreateCall(
      intrinsicDeclaration(&module_, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x));
  laneId_ = prologue_.CreateAnd(threadId_, 31);
  warpId_ = prologue_.CreateLShr(threadId_, 5);
  llvm::BranchInst *toBody = prologue_.CreateBr(start);
  prologue_.SetInsertPoint(toBody);
  builder_.SetInsertPoint(start);
  lowerBlock(body);
  return kernel_;
}

void KernelLowering::lowerBlock(const tir::Block &block) {
  for (const auto &op : block.ops())
    lowerOp(*op);
}

void KernelLowering::lowerOp(const Operation &op) {
  switch (op.code()) {
  case OpCode::Constant: {
    const tir::Type &type = op.result()->type();
    llvm::Type *llvmType = type.elem.isFp8() ? builder_.getFloatTy() : scalarType(type.elem);
    const tir::Attribute &value = op.attr("value");
    llvm::Value *c = nullptr;
    if (llvmType->isFloatingPointTy()) {
      double d = 0;
      if (auto *f = std::get_if<double>(&value))
        d = *f;
      else if (auto *i = std::get_if<int64_t>(&value))
        d = static_cast<double>(*i);
      else if (auto *b = std::get_if<bool>(&value))
        d = *b ? 1.0 : 0.0;
      c = llvm::ConstantFP::get(llvmType, d);
    } else if (llvmType->isIntegerTy()) {
      int64_t i = 0;
      if (auto *n = std::get_if<int64_t>(&value))
        i = *n;
      else if (auto *b = std::get_if<bool>(&value))
        i = *b;
      else if (auto *f = std::get_if<double>(&value))
        i = static_cast<int64_t>(*f);
      c = llvm::ConstantInt::get(llvmType, static_cast<uint64_t>(i), true);
    } else {
      unsupported(op, "pointer constants");
    }
    if (type.elem.isFp8()) {
      // Zero (masked loads' `other`) is the byte 0x00 / 0x80 on any target; other values go
      // through the conversion (cvt, sm_89 and up).
      auto *fp = llvm::cast<llvm::ConstantFP>(c);
      if (fp->isZero())
        c = builder_.getInt8(fp->isNegative() ? 0x80 : 0x00);
      else
        c = lowerCast(op, c, DType::scalar(ScalarKind::F32), type.elem);
    }
    values_[op.result()] = Values(numElementsOf(type), c);
    return;
  }
  case OpCode::ProgramId:
  case OpCode::NumPrograms: {
    static const llvm::Intrinsic::ID ctaid[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                                                llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                                                llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
    static const llvm::Intrinsic::ID nctaid[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x,
                                                 llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_y,
                                                 llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_z};
    int64_t axis = op.intAttr("axis");
    auto id = op.code() == OpCode::ProgramId ? ctaid[axis] : nctaid[axis];
    values_[op.result()] = {intrinsic(id, {}, {})};
    return;
  }
  case OpCode::MakeRange: {
    Distribution dist = distributionOf(op.result()->type());
    int64_t start = op.intAttr("start");
    Values elements;
    for (unsigned e = 0; e < dist.numElements(); ++e)
      elements.push_back(builder_.CreateAdd(coordinate(dist, 0, dist.multiIndex(e)[0]),
                                            builder_.getInt32(static_cast<uint32_t>(start))));
    values_[op.result()] = elements;
    return;
  }
  case OpCode::Splat:
    values_[op.result()] = Values(numElementsOf(op.result()->type()), get(op.operand(0))[0]);
    return;
  case OpCode::Broadcast:
    return lowerBroadcast(op);
  case OpCode::ExpandDims:
    return lowerExpandDims(op);
  case OpCode::ConvertLayout:
    return lowerConvertLayout(op);
  case OpCode::Trans:
    return lowerTrans(op);
  case OpCode::Reshape:
    return lowerReshape(op);
  case OpCode::Dot:
    return lowerDot(op);
  case OpCode::AsyncCopy:
    return lowerAsyncCopy(op);
  case OpCode::AsyncCommit:
    intrinsic(llvm::Intrinsic::nvvm_cp_async_commit_group, {}, {});
    return;
  case OpCode::AsyncWait:
    return lowerAsyncWait(op);
  case OpCode::LocalLoad:
    return lowerLocalLoad(op);
  case OpCode::TmaInit:
    return lowerTmaInit(op);
  case OpCode::TmaCopy:
    return lowerTmaCopy(op);
  case OpCode::TmaWait:
    return lowerTmaWait(op);
  case OpCode::TmaInval:
    return lowerTmaInval(op);
  case OpCode::TmaStore:
    return lowerTmaStore(op);
  case OpCode::TensormapCreate:
    return lowerTensormapCreate(op);
  case OpCode::Load:
    return lowerLoad(op);
  case OpCode::Store:
    return lowerStore(op);
  case OpCode::Reduce:
    return lowerReduce(op);
  case OpCode::Scan:
    return lowerScan(op);
  case OpCode::For:
    return lowerFor(op);
  case OpCode::If:
    return lowerIf(op);
  case OpCode::While:
    return lowerWhile(op);
  case OpCode::Return:
    builder_.CreateRetVoid();
    return;
  case OpCode::Yield:
  case OpCode::Condition:
    return; // read by the op that owns the region
  case OpCode::AtomicRMW:
    return lowerAtomicRMW(op);
  case OpCode::AtomicCAS:
    return lowerAtomicCAS(op);
  case OpCode::ArgReduce:
    return lowerArgReduce(op);
  case OpCode::Print:
    return lowerPrint(op);
  case OpCode::Assert:
    return lowerAssert(op);
  case OpCode::Histogram:
    return lowerHistogram(op);
  case OpCode::Gather:
    return lowerGather(op);
  case OpCode::InlineAsm:
    return lowerInlineAsm(op);
  case OpCode::MapElementwise:
    return lowerMapElementwise(op);
  case OpCode::Barrier:
    barrier();
    return;
  default:
    break;
  }
  if (tir::isElementwise(op.code()))
    return lowerElementwise(op);
  unsupported(op, std::string("'") + op.name() + "'");
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// For each element a thread holds of `value`, the first of its elements known to be equal to it:
/// along a dimension where axis info finds runs of `constancy` equal values (runs start at
/// multiples of the constancy), a thread's elements k and j along that dimension are equal when
/// their coordinates fall in one run for every thread: coordinate = base + offset(k), with the
/// thread's base one of the layout's lane and warp starts (Distribution). That covers a
/// thread's consecutive elements (a vector) and, in layouts whose tile along the dimension is
/// shorter than a run, its elements in neighbouring tiles: the mma accumulator's columns 8 apart
/// (attention's `start_n + offs_n < N` with N divisible by 16: 4 comparisons for 16 columns, as
/// Triton's). Empty when no two elements are known equal. As Triton's elementwise lowering
/// deduplicates, this computes `offs // HW` once per run instead of once per element.
static std::vector<unsigned> equalElementRepresentatives(const analysis::AxisInfoAnalysis &axisInfo,
                                                         const tir::Value *value) {
  const tir::Type &type = value->type();
  if (type.isScalar() || !type.layout)
    return {};
  analysis::AxisInfo facts = axisInfo.info(value);
  if (facts.rank() != type.shape.size())
    return {};
  Distribution dist = distributionOf(type);
  // Per dimension: for each of the thread's indices k along it, the first index j <= k whose
  // coordinate lies in the same run as k's for every thread base.
  std::vector<std::vector<unsigned>> firstEqual(dist.rank());
  bool any = false;
  for (unsigned d = 0; d < dist.rank(); ++d) {
    int64_t run = std::min<int64_t>(facts.constancy[d], analysis::kMaxDivisibility);
    unsigned count = dist.elemsPerThread[d];
    std::vector<unsigned> &first = firstEqual[d];
    first.resize(count);
    for (unsigned k = 0; k < count; ++k)
      first[k] = k;
    if (run <= 1 || dist.wraps(d))
      continue;
    std::vector<int64_t> bases;
    for (unsigned w = 0; w < dist.wpc(d); ++w)
      for (unsigned l = 0; l < dist.tpw(d); ++l)
        bases.push_back(dist.threadBase(d, l, w));
    for (unsigned k = 1; k < count; ++k)
      for (unsigned j = 0; j < k; ++j) {
        if (first[j] != j)
          continue;
        bool sameRun = std::all_of(bases.begin(), bases.end(), [&](int64_t base) {
          return (base + dist.offset(d, k)) / run == (base + dist.offset(d, j)) / run;
        });
        if (sameRun) {
          first[k] = j;
          any = true;
          break;
        }
      }
  }
  if (!any)
    return {};
  std::vector<unsigned> representatives(dist.numElements());
  for (unsigned e = 0; e < dist.numElements(); ++e) {
    std::vector<unsigned> index = dist.multiIndex(e);
    for (unsigned d = 0; d < dist.rank(); ++d)
      index[d] = firstEqual[d][index[d]];
    representatives[e] = dist.linearIndex(index);
  }
  return representatives;
}

void KernelLowering::lowerElementwise(const Operation &op) {
  unsigned n = numElementsOf(op.result()->type());
  std::vector<const Values *> operands;
  for (const tir::Value *v : op.operands()) {
    operands.push_back(&get(v));
    if (operands.back()->size() != n)
      throw std::logic_error(std::string("operand layout of '") + op.name() +
                             "' differs from its result's");
  }
  std::vector<unsigned> representatives = equalElementRepresentatives(axisInfo_, op.result());
  if (representatives.size() != n)
    representatives.clear();
  Values results;
  for (unsigned e = 0; e < n; ++e) {
    if (!representatives.empty() && representatives[e] != e) {
      results.push_back(results[representatives[e]]);
      continue;
    }
    Values args;
    for (const Values *o : operands)
      args.push_back((*o)[e]);
    results.push_back(lowerElement(op, args));
  }
  values_[op.result()] = results;
}

llvm::Value *KernelLowering::lowerElement(const Operation &op, const Values &args) {
  const DType &type = op.operand(0)->type().elem;
  const DType &resultType = op.result()->type().elem;
  bool isFloat = type.isFloat();
  bool isSigned = type.isSigned();
  // fp8 values are bytes: conversions, bitcasts and selects (a descriptor's zero-or-NaN
  // padding, chosen at run time) move them, and abs clears the sign bit, as Triton's
  // AbsFOpConversion does for its fp8 (integer-typed) values. Triton lowers no other arithmetic
  // on fp8 (its LLVM ops would get bytes): it would need conversions first.
  if (type.isFp8() && op.code() == OpCode::Abs)
    return builder_.CreateAnd(args[0], llvm::ConstantInt::get(args[0]->getType(), 0x7F));
  if ((type.isFp8() || resultType.isFp8()) && op.code() != OpCode::Bitcast &&
      op.code() != OpCode::Cast && op.code() != OpCode::Select)
    unsupported(op, "fp8 arithmetic other than abs (Triton has none either: convert to fp16 or "
                    "fp32 first)");
  llvm::Value *a = args.empty() ? nullptr : args[0];
  llvm::Value *b = args.size() > 1 ? args[1] : nullptr;
  switch (op.code()) {
  case OpCode::Add:
    return isFloat ? builder_.CreateFAdd(a, b) : builder_.CreateAdd(a, b);
  case OpCode::Sub:
    return isFloat ? builder_.CreateFSub(a, b) : builder_.CreateSub(a, b);
  case OpCode::Mul:
    return isFloat ? builder_.CreateFMul(a, b) : builder_.CreateMul(a, b);
  case OpCode::Div:
    if (isFloat) {
      // div_rn and fdiv(ieee_rounding=True): correctly rounded, LLVM's fdiv (div.rn.f32).
      bool rounded = op.hasAttr("rounding") && op.strAttr("rounding") == "rn";
      if (type.kind == ScalarKind::F32 && !rounded) {
        // As Triton: fp32 true division is div.full.f32 (2 ulp, full range).
        auto *asmType =
            llvm::FunctionType::get(builder_.getFloatTy(), {a->getType(), b->getType()}, false);
        auto *div = llvm::InlineAsm::get(asmType, "div.full.f32 $0, $1, $2;", "=f,f,f", false);
        return builder_.CreateCall(asmType, div, {a, b});
      }
      return builder_.CreateFDiv(a, b);
    }
    return isSigned ? builder_.CreateSDiv(a, b) : builder_.CreateUDiv(a, b);
  case OpCode::Rem:
    if (isFloat) {
      // Triton emits LLVM's frem, which NVPTX expands to isinf(b) ? a : fma(-trunc(a / b), b, a)
      // with an IEEE division (not the exact fmod; fp16 and bf16 promoted to fp32). Written out
      // here, because the NVPTX of LLVM 19 does not contract that expansion's multiply and
      // subtraction into Triton's fma.
      llvm::Type *original = a->getType();
      bool narrow = type.kind == ScalarKind::F16 || type.kind == ScalarKind::BF16;
      llvm::Type *t = narrow ? builder_.getFloatTy() : original;
      llvm::Value *x = narrow ? builder_.CreateFPExt(a, t) : a;
      llvm::Value *y = narrow ? builder_.CreateFPExt(b, t) : b;
      llvm::Value *quotient = intrinsic(llvm::Intrinsic::trunc, {t}, {builder_.CreateFDiv(x, y)});
      llvm::Value *rest =
          intrinsic(llvm::Intrinsic::fma, {t}, {builder_.CreateFNeg(quotient), y, x});
      llvm::Value *infinite = builder_.createIsFPClass(y, llvm::fcInf); // testp.infinite
      llvm::Value *r = builder_.CreateSelect(infinite, x, rest);
      return narrow ? builder_.CreateFPTrunc(r, original) : r;
    }
    return isSigned ? builder_.CreateSRem(a, b) : builder_.CreateURem(a, b);
  case OpCode::And:
    return builder_.CreateAnd(a, b);
  case OpCode::Or:
    return builder_.CreateOr(a, b);
  case OpCode::Xor:
    return builder_.CreateXor(a, b);
  case OpCode::Shl:
    return builder_.CreateShl(a, b);
  case OpCode::Shr:
    return isSigned ? builder_.CreateAShr(a, b) : builder_.CreateLShr(a, b);
  case OpCode::MulHi: {
    // zext, mul, lshr, trunc: the NVPTX backend selects mul.hi.u32 / mul.hi.u64 from it.
    unsigned bits = a->getType()->getScalarSizeInBits();
    llvm::Type *wide = builder_.getIntNTy(2 * bits);
    llvm::Value *product =
        builder_.CreateMul(builder_.CreateZExt(a, wide), builder_.CreateZExt(b, wide));
    return builder_.CreateTrunc(builder_.CreateLShr(product, bits), a->getType());
  }
  case OpCode::Maximum:
  case OpCode::Minimum: {
    bool max = op.code() == OpCode::Maximum;
    bool propagate = op.hasAttr("propagate_nan") && op.strAttr("propagate_nan") == "all";
    // tl.PropagateNan.ALL, as Triton's MinMaxFOpConversion: llvm.maximum / llvm.minimum (max.NaN
    // / min.NaN for fp32, fp16 and bf16, sm_80 and later like every target here: a NaN operand
    // gives the canonical NaN; fp64 has no .NaN form and LLVM expands it). Without it, maxnum /
    // minnum.
    auto floatMinMax = [&](bool takeMax, llvm::Value *x, llvm::Value *y) -> llvm::Value * {
      if (!propagate)
        return intrinsic(takeMax ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum,
                         {x->getType()}, {x, y});
      return intrinsic(takeMax ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum,
                       {x->getType()}, {x, y});
    };
    if (op.hasAttr("clip") && op.boolAttr("clip")) {
      // tl.clamp(x, -limit, limit) on (x, limit), as Triton from sm_90: min.xorsign.abs (with .NaN
      // under propagation); before, maximum(x, -limit) then minimum with limit.
      if (gpu::smVersion(options_.arch) < 90)
        return floatMinMax(false, floatMinMax(true, a, builder_.CreateFNeg(b)), b);
      bool half = a->getType()->isHalfTy();
      llvm::Intrinsic::ID id = half ? (propagate ? llvm::Intrinsic::nvvm_fmin_nan_xorsign_abs_f16
                                                 : llvm::Intrinsic::nvvm_fmin_xorsign_abs_f16)
                                    : (propagate ? llvm::Intrinsic::nvvm_fmin_nan_xorsign_abs_f
                                                 : llvm::Intrinsic::nvvm_fmin_xorsign_abs_f);
      return intrinsic(id, {}, {a, b});
    }
    if (isFloat)
      return floatMinMax(max, a, b);
    llvm::Intrinsic::ID id = max ? (isSigned ? llvm::Intrinsic::smax : llvm::Intrinsic::umax)
                                 : (isSigned ? llvm::Intrinsic::smin : llvm::Intrinsic::umin);
    return intrinsic(id, {a->getType()}, {a, b});
  }
  case OpCode::Cmp: {
    const std::string &p = op.strAttr("predicate");
    if (isFloat) {
      auto pred = p == "eq"   ? llvm::CmpInst::FCMP_OEQ
                  : p == "ne" ? llvm::CmpInst::FCMP_UNE
                  : p == "lt" ? llvm::CmpInst::FCMP_OLT
                  : p == "le" ? llvm::CmpInst::FCMP_OLE
                  : p == "gt" ? llvm::CmpInst::FCMP_OGT
                              : llvm::CmpInst::FCMP_OGE;
      return builder_.CreateFCmp(pred, a, b);
    }
    auto pred = p == "eq"   ? llvm::CmpInst::ICMP_EQ
                : p == "ne" ? llvm::CmpInst::ICMP_NE
                : p == "lt" ? (isSigned ? llvm::CmpInst::ICMP_SLT : llvm::CmpInst::ICMP_ULT)
                : p == "le" ? (isSigned ? llvm::CmpInst::ICMP_SLE : llvm::CmpInst::ICMP_ULE)
                : p == "gt" ? (isSigned ? llvm::CmpInst::ICMP_SGT : llvm::CmpInst::ICMP_UGT)
                            : (isSigned ? llvm::CmpInst::ICMP_SGE : llvm::CmpInst::ICMP_UGE);
    return builder_.CreateICmp(pred, a, b);
  }
  case OpCode::Select:
    return builder_.CreateSelect(a, b, args[2]);
  case OpCode::AddPtr: {
    const DType &offsetType = op.operand(1)->type().elem;
    llvm::Value *offset = offsetType.isSigned()
                              ? builder_.CreateSExtOrTrunc(b, builder_.getInt64Ty())
                              : builder_.CreateZExtOrTrunc(b, builder_.getInt64Ty());
    return builder_.CreateGEP(memoryType(type.pointeeType()), a, offset);
  }
  case OpCode::Cast:
    return lowerCast(op, a, type, resultType);
  case OpCode::Bitcast: {
    llvm::Type *to = scalarType(resultType);
    if (to->isPointerTy())
      return builder_.CreateIntToPtr(a, to);
    if (a->getType()->isPointerTy())
      return builder_.CreatePtrToInt(a, to);
    if (a->getType()->isFloatingPointTy() && to->isFloatingPointTy() && a->getType() != to) {
      // fp16 <-> bf16: LLVM 19's NVPTX backend cannot select a bitcast between half and bfloat,
      // and folds two bitcasts through i16 back into one; an opaque 16-bit move keeps them apart.
      llvm::Type *i16 = builder_.getInt16Ty();
      auto *asmType = llvm::FunctionType::get(i16, {i16}, false);
      auto *mov = llvm::InlineAsm::get(asmType, "mov.b16 $0, $1;", "=h,h", false);
      llvm::Value *bits = builder_.CreateCall(asmType, mov, {builder_.CreateBitCast(a, i16)});
      return builder_.CreateBitCast(bits, to);
    }
    return builder_.CreateBitCast(a, to);
  }
  case OpCode::Neg:
    return isFloat ? builder_.CreateFNeg(a) : builder_.CreateNeg(a);
  case OpCode::Not:
    return builder_.CreateNot(a);
  case OpCode::Abs: {
    if (!isFloat)
      return isSigned ? intrinsic(llvm::Intrinsic::abs, {a->getType()}, {a, builder_.getFalse()})
                      : a;
    // The sign bit cleared, as Triton does (abs.f32 may change a NaN's payload).
    unsigned bits = a->getType()->getPrimitiveSizeInBits();
    llvm::Type *word = builder_.getIntNTy(bits);
    llvm::Value *magnitude =
        builder_.CreateAnd(builder_.CreateBitCast(a, word), llvm::APInt::getSignedMaxValue(bits));
    return builder_.CreateBitCast(magnitude, a->getType());
  }
  case OpCode::Libdevice: {
    if (op.hasAttr("symbol")) {
      // A row of an extern_elementwise table (tir::LibdeviceOverload): the operands and the
      // result have the row's types (uint32 and uint64 are i32 and i64 to LLVM).
      std::vector<llvm::Type *> params;
      for (llvm::Value *v : args)
        params.push_back(v->getType());
      llvm::FunctionCallee callee = module_.getOrInsertFunction(
          op.strAttr("symbol"), llvm::FunctionType::get(scalarType(resultType), params, false));
      return builder_.CreateCall(callee, args);
    }
    // Sema has converted the operands to fp32 or fp64, the types libdevice has.
    const tir::LibdeviceFunction *fn = tir::findLibdeviceFunction(op.strAttr("fn"));
    const char *symbol = type.kind == ScalarKind::F64 ? fn->fp64 : fn->fp32;
    std::vector<llvm::Type *> params(args.size(), a->getType());
    llvm::Type *result = fn->returnsInt ? builder_.getInt32Ty() : a->getType();
    llvm::FunctionCallee callee =
        module_.getOrInsertFunction(symbol, llvm::FunctionType::get(result, params, false));
    return builder_.CreateCall(callee, args);
  }
  case OpCode::Fma:
    if (!isFloat)
      return builder_.CreateAdd(builder_.CreateMul(a, b), args[2]);
    return intrinsic(llvm::Intrinsic::fma, {a->getType()}, {a, b, args[2]});
  default:
    break;
  }
  if (!isFloat)
    unsupported(op, std::string("'") + op.name() + "' on " + type.str());
  return lowerMath(op, a, type);
}

/// Transcendental and rounding functions. fp16/bf16 compute in fp32, as Triton does.
llvm::Value *KernelLowering::lowerMath(const Operation &op, llvm::Value *x, const DType &type) {
  llvm::Type *original = x->getType();
  bool narrow = type.kind == ScalarKind::F16 || type.kind == ScalarKind::BF16;
  bool isDouble = type.kind == ScalarKind::F64;
  auto widen = [&](llvm::Value *v) {
    return narrow ? builder_.CreateFPExt(v, builder_.getFloatTy()) : v;
  };
  x = widen(x);
  llvm::Type *t = x->getType();
  llvm::Value *r = nullptr;
  auto nvvm = [&](llvm::Intrinsic::ID id, llvm::Value *v) { return intrinsic(id, {}, {v}); };
  auto ex2 = [&](llvm::Intrinsic::ID id, llvm::Value *v) {
    if (kEx2ApproxIsOverloaded)
      return intrinsic(id, {v->getType()}, {v});
    return intrinsic(id, {}, {v});
  };
  switch (op.code()) {
  case OpCode::Exp:
    // exp(x) = 2^(x log2 e) with ex2.approx.f32, as Triton.
    r = isDouble
            ? libdevice("__nv_exp", t, {x})
            : ex2(kEx2ApproxIntrinsic, builder_.CreateFMul(x, llvm::ConstantFP::get(t, kLog2E)));
    break;
  case OpCode::Exp2:
    // Triton's math.exp2 on fp32 is ex2.approx.ftz.f32 (denormal inputs and results flush to
    // zero), where its exp keeps denormals.
    r = isDouble ? libdevice("__nv_exp2", t, {x}) : ex2(kEx2ApproxFtzIntrinsic, x);
    break;
  case OpCode::Log2:
    // libdevice's log2f, as Triton 3.6 (not lg2.approx).
    r = libdevice(isDouble ? "__nv_log2" : "__nv_log2f", t, {x});
    break;
  case OpCode::Log:
    r = libdevice(isDouble ? "__nv_log" : "__nv_logf", t, {x});
    break;
  case OpCode::Sqrt:
    // Triton's tl.sqrt on fp32 is sqrt.approx.ftz.f32; tl.sqrt_rn (attribute `ieee`) and fp64
    // are sqrt.rn.
    r = isDouble || op.hasAttr("ieee") ? intrinsic(llvm::Intrinsic::sqrt, {t}, {x})
                                       : nvvm(llvm::Intrinsic::nvvm_sqrt_approx_ftz_f, x);
    break;
  case OpCode::Rsqrt:
    r = libdevice(isDouble ? "__nv_rsqrt" : "__nv_rsqrtf", t, {x});
    break;
  case OpCode::Sin:
    r = libdevice(isDouble ? "__nv_sin" : "__nv_sinf", t, {x});
    break;
  case OpCode::Cos:
    r = libdevice(isDouble ? "__nv_cos" : "__nv_cosf", t, {x});
    break;
  case OpCode::Erf:
    r = libdevice(isDouble ? "__nv_erf" : "__nv_erff", t, {x});
    break;
  // On fp32 Triton rounds with denormal inputs flushed to zero (cvt.rmi.ftz / cvt.rpi.ftz):
  // floor of a negative denormal is -0, not -1.
  case OpCode::Floor:
    r = isDouble ? intrinsic(llvm::Intrinsic::floor, {t}, {x})
                 : nvvm(llvm::Intrinsic::nvvm_floor_ftz_f, x);
    break;
  case OpCode::Ceil:
    r = isDouble ? intrinsic(llvm::Intrinsic::ceil, {t}, {x})
                 : nvvm(llvm::Intrinsic::nvvm_ceil_ftz_f, x);
    break;
  default:
    unsupported(op, std::string("'") + op.name() + "' on " + type.str());
  }
  return narrow ? builder_.CreateFPTrunc(r, original) : r;
}

/// Conversions to and from fp8 (e4m3fn, e5m2), as Triton on sm_89 and up: to fp8 from fp32 with
/// cvt.rn.satfinite (round to nearest even, saturating to the largest finite value, NaN kept);
/// from fp8 to fp16 with cvt.rn.f16x2 (exact). Other types go through fp32 (exactly where it
/// holds them, so that only the fp8 rounding rounds), and fp8 to fp8 through fp16.
///
/// Before sm_89 there is no cvt for fp8. From fp8 the value is then formed from its bits, exactly
/// (fp16 holds every e4m3 and e5m2 value; AccelerateMatmul casts fp8 dot operands to fp16 there,
/// as Triton): an e5m2 byte is the high byte of the fp16 of its value; an e4m3 byte's exponent
/// and mantissa, shifted into fp16's, give the value times 2^-8 (its bias is 7, fp16's 15),
/// subnormals included, and one exact multiply by 2^8 scales it back. e4m3fn's NaN (S.1111.111)
/// stays NaN. To fp8 there (rounding) is still "not supported yet".
llvm::Value *KernelLowering::lowerFp8Cast(const Operation &op, llvm::Value *v, const DType &from,
                                          const DType &to) {
  const DType f16 = DType::scalar(ScalarKind::F16), f32 = DType::scalar(ScalarKind::F32);
  if (gpu::smVersion(options_.arch) < 89 && from.isFp8() && !to.isFp8()) {
    llvm::Type *i16 = builder_.getInt16Ty(), *half = builder_.getHalfTy();
    llvm::Value *bits = builder_.CreateZExt(v, i16);
    if (from.kind == ScalarKind::F8E5M2)
      return lowerCast(op, builder_.CreateBitCast(builder_.CreateShl(bits, 8), half), f16, to);
    llvm::Value *magnitudeBits = builder_.CreateAnd(bits, 0x7F);
    llvm::Value *scaled =
        builder_.CreateFMul(builder_.CreateBitCast(builder_.CreateShl(magnitudeBits, 7), half),
                            llvm::ConstantFP::get(half, 256.0));
    llvm::Value *isNan = builder_.CreateICmpEQ(magnitudeBits, builder_.getInt16(0x7F));
    llvm::Value *magnitude = builder_.CreateSelect(isNan, builder_.getInt16(0x7E00),
                                                   builder_.CreateBitCast(scaled, i16));
    llvm::Value *sign = builder_.CreateShl(builder_.CreateAnd(bits, 0x80), 8);
    return lowerCast(op, builder_.CreateBitCast(builder_.CreateOr(magnitude, sign), half), f16, to);
  }
  if (gpu::smVersion(options_.arch) < 89)
    unsupported(op, "fp8 conversions to fp8 before sm_89 (no cvt for fp8 there)");
  auto name = [](const DType &t) { return t.kind == ScalarKind::F8E4M3 ? "e4m3x2" : "e5m2x2"; };
  llvm::Type *i16 = builder_.getInt16Ty(), *i32 = builder_.getInt32Ty();
  if (from.isFp8()) {
    auto *type = llvm::FunctionType::get(i32, {i16}, false);
    std::string cvt = std::string("cvt.rn.f16x2.") + name(from) + " $0, $1;";
    llvm::Value *pair = builder_.CreateCall(type, llvm::InlineAsm::get(type, cvt, "=r,h", false),
                                            {builder_.CreateZExt(v, i16)});
    llvm::Value *half =
        builder_.CreateBitCast(builder_.CreateTrunc(pair, i16), builder_.getHalfTy());
    return lowerCast(op, half, f16, to);
  }
  llvm::Value *single = lowerCast(op, v, from, f32);
  // d = {a in the high byte, b in the low byte}: the value is b.
  auto *type = llvm::FunctionType::get(i16, {builder_.getFloatTy(), builder_.getFloatTy()}, false);
  std::string cvt = std::string("cvt.rn.satfinite.") + name(to) + ".f32 $0, $1, $2;";
  llvm::Value *pair =
      builder_.CreateCall(type, llvm::InlineAsm::get(type, cvt, "=h,f,f", false),
                          {llvm::ConstantFP::get(builder_.getFloatTy(), 0.0), single});
  return builder_.CreateTrunc(pair, builder_.getInt8Ty());
}

llvm::Value *KernelLowering::towardZero16(llvm::Value *v, bool bf16) {
  auto *type = llvm::FunctionType::get(builder_.getInt16Ty(), {builder_.getFloatTy()}, false);
  std::string cvt = std::string("cvt.rz.") + (bf16 ? "bf16" : "f16") + ".f32 $0, $1;";
  return builder_.CreateCall(type, llvm::InlineAsm::get(type, cvt, "=h,f", false), {v});
}

llvm::Value *KernelLowering::lowerCast(const Operation &op, llvm::Value *v, const DType &from,
                                       const DType &to) {
  if (from == to)
    return v;
  if (op.code() == OpCode::Cast && op.hasAttr("rounding") && op.strAttr("rounding") == "rtz" &&
      from.kind == ScalarKind::F32 && (to.kind == ScalarKind::F16 || to.kind == ScalarKind::BF16)) {
    // fp_downcast_rounding='rtz', as Triton: cvt.rz.f16.f32, and cvt.rz.bf16.f32 (PTX ISA 7.0,
    // sm_80, the oldest target here; Triton's llvm.nvvm.f2bf16.rz).
    bool bf16 = to.kind == ScalarKind::BF16;
    return builder_.CreateBitCast(towardZero16(v, bf16), scalarType(to));
  }
  if (op.code() == OpCode::Cast && op.hasAttr("rounding") && op.strAttr("rounding") == "rtz" &&
      to.kind == ScalarKind::F8E5M2) {
    // To e5m2 toward zero, as Triton: fp16 rounded toward zero (cvt.rz.f16.f32 from fp32), then
    // its high byte (e5m2 is fp16 without its low 8 mantissa bits).
    llvm::Value *half = from.kind == ScalarKind::F32
                            ? towardZero16(v, /*bf16=*/false)
                            : builder_.CreateBitCast(v, builder_.getInt16Ty());
    return builder_.CreateTrunc(builder_.CreateLShr(half, 8), builder_.getInt8Ty());
  }
  if (from.isFp8() || to.isFp8())
    return lowerFp8Cast(op, v, from, to);
  llvm::Type *target = scalarType(to);
  if (to.isPointer() || from.isPointer()) {
    if (to.isPointer() && from.isPointer())
      return v;
    if (to.isPointer())
      return builder_.CreateIntToPtr(v, target);
    return builder_.CreatePtrToInt(v, target);
  }
  if (to.isBool())
    return from.isFloat() ? builder_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0))
                          : builder_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  if (from.isInteger() && to.isInteger())
    return from.isSigned() ? builder_.CreateSExtOrTrunc(v, target)
                           : builder_.CreateZExtOrTrunc(v, target);
  if (from.isInteger() && from.bits() == 8 && (target->isFloatTy() || target->isHalfTy())) {
    // cvt reads an 8-bit source from a 32-bit register (PTX allows wider operands for cvt): a
    // byte extracted from a loaded word converts in bfe + cvt, without the 16-bit detour LLVM
    // takes for i8. Exact either way.
    bool isFloat = target->isFloatTy();
    std::string cvt = std::string("cvt.rn.") + (isFloat ? "f32." : "f16.") +
                      (from.isSigned() ? "s8" : "u8") + " $0, $1;";
    llvm::Value *word = from.isSigned() ? builder_.CreateSExt(v, builder_.getInt32Ty())
                                        : builder_.CreateZExt(v, builder_.getInt32Ty());
    auto *asmType = llvm::FunctionType::get(target, {builder_.getInt32Ty()}, false);
    auto *cvtAsm = llvm::InlineAsm::get(asmType, cvt, isFloat ? "=f,r" : "=h,r", false);
    return builder_.CreateCall(cvtAsm, {word});
  }
  if (from.isInteger())
    return from.isSigned() ? builder_.CreateSIToFP(v, target) : builder_.CreateUIToFP(v, target);
  if (to.isInteger()) {
    // Saturating, NaN to 0: cvt.rzi semantics.
    if (!v->getType()->isFloatTy() && !v->getType()->isDoubleTy())
      v = builder_.CreateFPExt(v, builder_.getFloatTy());
    auto id = to.isSigned() ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    // PTX converts to 16 bits at least: to 8 bits, saturate to 16 and keep the low byte, as
    // Triton does (the interpreter agrees), instead of clamping to the 8-bit range.
    if (to.bits() == 8) {
      // cvt.rzi saturates in hardware; llvm.fpto*i.sat would add an explicit clamp.
      bool isDouble = v->getType()->isDoubleTy();
      std::string cvt = std::string("cvt.rzi.") + (to.isSigned() ? "s16" : "u16") +
                        (isDouble ? ".f64" : ".f32") + " $0, $1;";
      // A 32-bit destination register (zero- or sign-extended 16-bit result) spares the
      // cvt.u32.u16 before the bytes are packed into a word.
      llvm::Type *i32 = builder_.getInt32Ty();
      auto *asmType = llvm::FunctionType::get(i32, {v->getType()}, false);
      auto *cvtAsm = llvm::InlineAsm::get(asmType, cvt, isDouble ? "=r,d" : "=r,f", false);
      return builder_.CreateTrunc(builder_.CreateCall(cvtAsm, {v}), target);
    }
    return intrinsic(id, {target, v->getType()}, {v});
  }
  // float -> float; fp16 <-> bf16 through fp32.
  if ((from.kind == ScalarKind::F16 && to.kind == ScalarKind::BF16) ||
      (from.kind == ScalarKind::BF16 && to.kind == ScalarKind::F16))
    return builder_.CreateFPTrunc(builder_.CreateFPExt(v, builder_.getFloatTy()), target);
  if (from.bits() < to.bits())
    return builder_.CreateFPExt(v, target);
  return builder_.CreateFPTrunc(v, target);
}

//===----------------------------------------------------------------------===//
// Shape ops and conversions
//===----------------------------------------------------------------------===//

void KernelLowering::lowerBroadcast(const Operation &op) {
  const tir::Type &in = op.operand(0)->type(), &out = op.result()->type();
  Distribution src = distributionOf(in), dst = distributionOf(out);
  const Values &input = get(op.operand(0));
  Values results;
  for (unsigned e = 0; e < dst.numElements(); ++e) {
    std::vector<unsigned> index = dst.multiIndex(e);
    for (unsigned d = 0; d < dst.rank(); ++d)
      if (in.shape[d] == 1 && out.shape[d] != 1)
        index[d] = 0; // every element of a size-1 dimension has coordinate 0
    results.push_back(input.at(src.linearIndex(index)));
  }
  values_[op.result()] = results;
}

void KernelLowering::lowerExpandDims(const Operation &op) {
  unsigned axis = static_cast<unsigned>(op.intAttr("axis"));
  Distribution src = distributionOf(op.operand(0)->type());
  Distribution dst = distributionOf(op.result()->type());
  const Values &input = get(op.operand(0));
  Values results;
  for (unsigned e = 0; e < dst.numElements(); ++e) {
    std::vector<unsigned> index = dst.multiIndex(e);
    index.erase(index.begin() + axis);
    results.push_back(input.at(src.linearIndex(index)));
  }
  values_[op.result()] = results;
}

llvm::Value *KernelLowering::toSharedElement(llvm::Value *v, const DType &elem) {
  if (elem.isPointer())
    return builder_.CreatePtrToInt(v, builder_.getInt64Ty());
  if (elem.isBool())
    return builder_.CreateZExt(v, builder_.getInt8Ty());
  return v;
}

llvm::Value *KernelLowering::fromSharedElement(llvm::Value *v, const DType &elem) {
  if (elem.isPointer())
    return builder_.CreateIntToPtr(v, scalarType(elem));
  if (elem.isBool())
    return builder_.CreateICmpNE(v, builder_.getInt8(0));
  return v;
}

/// The address of the element at `coords` of a tile laid out by `plan` at `byteOffset` of the
/// shared buffer (SharedTile.h gives the formula).
llvm::Value *KernelLowering::sharedTileAddress(const SharedTilePlan &plan, llvm::Value *base,
                                               llvm::Type *memType, const Values &coords) {
  return builder_.CreateInBoundsGEP(memType, base, sharedTileIndex(plan, coords));
}

llvm::Value *KernelLowering::sharedAddress32(llvm::Value *pointer) {
  return builder_.CreatePtrToInt(pointer, builder_.getInt32Ty()); // shared pointers are 32-bit
}

llvm::Value *KernelLowering::sharedTileIndex(const SharedTilePlan &plan, const Values &coords) {
  llvm::Value *row = builder_.getInt32(0);
  for (unsigned d = 0; d < plan.shape.size(); ++d)
    if (d != plan.fastDim)
      row = builder_.CreateAdd(
          builder_.CreateMul(row, builder_.getInt32(static_cast<uint32_t>(plan.shape[d]))),
          coords[d], "", true, true);
  llvm::Value *f = coords[plan.fastDim];
  llvm::Value *blockStart = nullptr;
  if (plan.blockLength) {
    uint32_t length = static_cast<uint32_t>(plan.blockLength);
    blockStart = builder_.CreateMul(
        builder_.CreateUDiv(f, builder_.getInt32(length)),
        builder_.getInt32(static_cast<uint32_t>(plan.numRows() * plan.blockLength)));
    f = builder_.CreateURem(f, builder_.getInt32(length));
  }
  if (plan.swizzleMask) {
    unsigned log2Unit = llvm::Log2_32(plan.unit);
    llvm::Value *unit = builder_.CreateLShr(f, log2Unit);
    llvm::Value *phase = builder_.CreateAnd(builder_.CreateLShr(row, plan.swizzleShift),
                                            builder_.getInt32(plan.swizzleMask));
    llvm::Value *within = builder_.CreateAnd(f, builder_.getInt32(plan.unit - 1));
    f = builder_.CreateOr(builder_.CreateShl(builder_.CreateXor(unit, phase), log2Unit), within);
  }
  llvm::Value *index = builder_.CreateAdd(
      builder_.CreateMul(row, builder_.getInt32(static_cast<uint32_t>(plan.rowStride())), "", true,
                         true),
      f, "", true, true);
  if (blockStart)
    index = builder_.CreateAdd(index, blockStart, "", true, true);
  return index;
}

llvm::Value *KernelLowering::sharedAt(unsigned byteOffset) {
  if (!byteOffset)
    return sharedMemory_;
  return builder_.CreateConstInBoundsGEP1_32(builder_.getInt8Ty(), sharedMemory_, byteOffset);
}

void KernelLowering::writeSharedTile(const SharedTilePlan &plan, llvm::Value *base,
                                     const Distribution &dist, const Values &values,
                                     const DType &elem, const TilePiece *piece,
                                     llvm::Value *onlyIf) {
  llvm::Type *memType = builder_.getIntNTy(plan.elemBytes * 8);
  if (!elem.isPointer() && !elem.isBool())
    memType = scalarType(elem);
  unsigned vec = plan.vectorWidth(dist);
  unsigned fast = plan.fastDim;
  forEachVector(
      dist, fast, vec,
      [&](unsigned e, const std::vector<unsigned> &index, const Values &coords) {
        llvm::Value *packed = nullptr;
        if (vec == 1) {
          packed = toSharedElement(values[e], elem);
        } else {
          packed = llvm::UndefValue::get(llvm::FixedVectorType::get(memType, vec));
          for (unsigned j = 0; j < vec; ++j) {
            std::vector<unsigned> at = index;
            at[fast] += j;
            packed = builder_.CreateInsertElement(
                packed, toSharedElement(values[dist.linearIndex(at)], elem), j);
          }
        }
        llvm::Value *address = sharedTileAddress(plan, base, memType, coords);
        if (onlyIf)
          storeSharedIf(address, packed, onlyIf);
        else
          builder_.CreateAlignedStore(packed, address, llvm::Align(vec * plan.elemBytes));
      },
      piece);
}

Values KernelLowering::readSharedVector(const SharedTilePlan &plan, llvm::Value *base,
                                        const Values &coords, unsigned vec, const DType &elem) {
  llvm::Type *memType = builder_.getIntNTy(plan.elemBytes * 8);
  if (!elem.isPointer() && !elem.isBool())
    memType = scalarType(elem);
  llvm::Type *type = vec == 1 ? memType : llvm::FixedVectorType::get(memType, vec);
  llvm::Value *loaded = builder_.CreateAlignedLoad(
      type, sharedTileAddress(plan, base, memType, coords), llvm::Align(vec * plan.elemBytes));
  Values elements;
  for (unsigned j = 0; j < vec; ++j)
    elements.push_back(
        fromSharedElement(vec == 1 ? loaded : builder_.CreateExtractElement(loaded, j), elem));
  return elements;
}

Values KernelLowering::readSharedTile(const SharedTilePlan &plan, llvm::Value *base,
                                      const Distribution &dist, const DType &elem) {
  Values results(dist.numElements());
  readSharedTile(plan, base, dist, elem, results, nullptr);
  return results;
}

void KernelLowering::readSharedTile(const SharedTilePlan &plan, llvm::Value *base,
                                    const Distribution &dist, const DType &elem, Values &results,
                                    const TilePiece *piece) {
  unsigned vec = plan.vectorWidth(dist);
  unsigned fast = plan.fastDim;
  forEachVector(
      dist, fast, vec,
      [&](unsigned, const std::vector<unsigned> &index, const Values &coords) {
        Values loaded = readSharedVector(plan, base, coords, vec, elem);
        for (unsigned j = 0; j < vec; ++j) {
          std::vector<unsigned> at = index;
          at[fast] += j;
          results[dist.linearIndex(at)] = loaded[j];
        }
      },
      piece);
}

/// Where every thread already holds each element the conversion gives it, the register of the
/// source that holds element e of the result, the same in every thread; nullopt otherwise. Two
/// layouts written differently can place the elements alike (a 2-D blocked layout and the slice of
/// a 3-D one along a dimension of one thread and one warp); Triton compares the layouts' linear
/// maps and converts such a pair in registers, without shared memory or a barrier. The loads
/// from shared memory would otherwise be ranked by their place in LLVM's Reassociate and decide
/// which product of an add the backend fuses (TritonBench rotary_emb_nopad, cos and sin rows
/// broadcast over q's heads).
static std::optional<std::vector<unsigned>> registerPermutation(const tir::Type &from,
                                                                const tir::Type &to) {
  Distribution src = distributionOf(from), dst = distributionOf(to);
  const unsigned numWarps = src.root->numWarps();
  if (numWarps != dst.root->numWarps() || from.shape != to.shape)
    return std::nullopt;
  std::vector<unsigned> permutation(dst.numElements());
  std::map<std::vector<int64_t>, unsigned> held;
  for (unsigned warp = 0; warp < numWarps; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane) {
      held.clear();
      for (unsigned r = src.numElements(); r-- > 0;) // the first register holding it wins
        held[src.coordinates(lane, warp, r)] = r;
      for (unsigned e = 0; e < dst.numElements(); ++e) {
        auto it = held.find(dst.coordinates(lane, warp, e));
        if (it == held.end())
          return std::nullopt;
        if (warp == 0 && lane == 0)
          permutation[e] = it->second;
        else if (permutation[e] != it->second)
          return std::nullopt;
      }
    }
  return permutation;
}

void KernelLowering::lowerConvertLayout(const Operation &op) {
  const tir::Type &from = op.operand(0)->type(), &to = op.result()->type();
  if (*from.layout == *to.layout) {
    values_[op.result()] = get(op.operand(0));
    return;
  }
  if (auto permutation = registerPermutation(from, to);
      permutation && get(op.operand(0)).size() == distributionOf(from).numElements()) {
    const Values &input = get(op.operand(0));
    Values results;
    for (unsigned r : *permutation)
      results.push_back(input.at(r));
    values_[op.result()] = results;
    return;
  }
  Distribution src = distributionOf(from), dst = distributionOf(to);
  if (auto plan = planWarpShuffle(src, dst)) {
    values_[op.result()] = convertByShuffles(*plan, get(op.operand(0)), from.elem);
    return;
  }
  // Through shared memory, laid out so that both sides access whole vectors without bank
  // conflicts (SharedTile.h); one barrier between the writes and the reads, and one before the
  // writes only when an earlier user of the buffer may still be reading.
  // Where lanes hold copies of an element, only the copy whose store Triton's conversion keeps
  // stores it (WarpShuffleConversion.h): the copies need not be equal, as the first step of a
  // warp reduction's butterfly fuses into an fma, which rounds differently in the two lanes it
  // pairs. The lane index is read again here (%laneid), not taken from the kernel's entry:
  // keeping that one alive through a flash-attention loop made ptxas spill at 255 registers.
  llvm::Value *keptCopy = nullptr;
  if (auto kept = copyTritonKeeps(src, dst, sharedElementBytes(from.elem) * 8)) {
    llvm::Value *lane = intrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_laneid, {}, {});
    keptCopy = builder_.CreateICmpEQ(builder_.CreateAnd(lane, kept->copyBits),
                                     builder_.getInt32(kept->keptBits));
  }
  SharedTilePlan plan = conversionPlan(op);
  // A conversion too large for shared memory goes through it one piece after another
  // (SplitLargeConversions.cpp); a whole one is a single piece at its own coordinates.
  ConversionPieces pieces = conversionPieces(op);
  Values results(dst.numElements());
  Distribution srcPiece = distributionOf(conversionPieceType(from, pieces));
  Distribution dstPiece = distributionOf(conversionPieceType(to, pieces));
  for (unsigned index = 0; index < pieces.count(); ++index) {
    TilePiece writing{pieces, index, &srcPiece}, reading{pieces, index, &dstPiece};
    const bool split = pieces.bits != 0;
    beginSharedWrite();
    writeSharedTile(plan, sharedAt(0), src, get(op.operand(0)), from.elem,
                    split ? &writing : nullptr, keptCopy);
    barrier();
    readSharedTile(plan, sharedAt(0), dst, from.elem, results, split ? &reading : nullptr);
    sharedInUse_ = true;
  }
  values_[op.result()] = results;
}

/// A conversion within warps by shfl.sync.idx (WarpShuffleConversion.h): each element of the
/// result read from its source lane, one shuffle per source register it may come from, and a
/// select where a lane bit chooses between two.
Values KernelLowering::convertByShuffles(const WarpShufflePlan &plan, const Values &input,
                                         const DType &elem) {
  llvm::Value *mappedLane = builder_.getInt32(0);
  for (unsigned c = 0; c < plan.laneBitFrom.size(); ++c) {
    int b = plan.laneBitFrom[c];
    if (b < 0)
      continue;
    llvm::Value *bit = builder_.CreateAnd(builder_.CreateLShr(laneId_, b), 1);
    mappedLane = builder_.CreateOr(mappedLane, builder_.CreateShl(bit, c));
  }
  // Copies in the result (registers holding the same element) shuffle once.
  std::map<std::tuple<unsigned, unsigned, unsigned>, llvm::Value *> moved;
  llvm::Value *selected = nullptr; // lane bit selectBit is set (computed where first needed)
  Values results;
  for (const WarpShufflePlan::Source &source : plan.sources) {
    auto key = std::make_tuple(source.element, source.otherElement, source.laneXor);
    if (auto it = moved.find(key); it != moved.end()) {
      results.push_back(it->second);
      continue;
    }
    llvm::Value *lane = source.laneXor
                            ? builder_.CreateXor(mappedLane, builder_.getInt32(source.laneXor))
                            : mappedLane;
    auto read = [&](unsigned element) {
      return fromSharedElement(shuffleIndex(toSharedElement(input.at(element), elem), lane), elem);
    };
    llvm::Value *value = read(source.element);
    if (plan.selectBit >= 0) {
      llvm::Value *other = read(source.otherElement);
      if (!selected)
        selected = builder_.CreateICmpNE(
            builder_.CreateAnd(builder_.CreateLShr(laneId_, plan.selectBit), 1),
            builder_.getInt32(0));
      value = builder_.CreateSelect(selected, other, value);
    }
    moved[key] = value;
    results.push_back(value);
  }
  return results;
}

/// trans keeps every thread's elements: element e of the result is the operand's element whose
/// coordinates are e's, permuted back.
void KernelLowering::lowerTrans(const Operation &op) {
  const auto &order = std::get<std::vector<int64_t>>(op.attr("order"));
  Distribution src = distributionOf(op.operand(0)->type());
  Distribution dst = distributionOf(op.result()->type());
  const Values &input = get(op.operand(0));
  if (input.empty()) { // a pipelined tile that only tensor-core dots read, from its slot
    values_[op.result()] = {};
    return;
  }
  Values results;
  for (unsigned e = 0; e < dst.numElements(); ++e) {
    std::vector<unsigned> index = dst.multiIndex(e), from(index.size());
    for (unsigned i = 0; i < index.size(); ++i)
      from[static_cast<unsigned>(order[i])] = index[i];
    results.push_back(input.at(src.linearIndex(from)));
  }
  values_[op.result()] = results;
}

/// The order in which Triton numbers a thread's registers of an MMA accumulator (version 2 with
/// one warp along M, or version 3), as tilec's element numbers: per 8 columns, a row's two columns
/// and then the same two 8 rows down; then the next 8 columns; then the next 16 rows of each warp
/// (the next tile along M). Sorting by (row tile, column / 8, row / 8 within the 16, column % 2)
/// of thread 0's elements gives it, as every thread's elements sit at the same offsets from its
/// own.
static std::vector<unsigned> tritonMmaRegisterOrder(const Distribution &dist) {
  const int64_t rowsPerTile = 16 * int64_t(dist.wpc(0));
  std::vector<std::array<int64_t, 4>> keys;
  for (unsigned e = 0; e < dist.numElements(); ++e) {
    std::vector<int64_t> at = dist.coordinates(0, 0, e);
    keys.push_back({at[0] / rowsPerTile, at[1] / 8, (at[0] % 16) / 8, at[1] % 2});
  }
  std::vector<unsigned> order(dist.numElements());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](unsigned a, unsigned b) { return keys[a] < keys[b]; });
  return order;
}

/// reshape through shared memory: each element goes to its row-major position; or, for a reshape
/// that OptimizeReshapeLayout marked "reinterpret" (a reordering reshape only a reduction reads),
/// each thread's registers as they are, in Triton's order where it says register_order = "mma";
/// or, where the two layouts put every element in the same register of the same thread, as they
/// are.
void KernelLowering::lowerReshape(const Operation &op) {
  if (op.hasAttr("reinterpret")) {
    const Values &input = get(op.operand(0));
    if (!op.hasAttr("register_order")) {
      values_[op.result()] = input;
      return;
    }
    Values reordered;
    for (unsigned e : tritonMmaRegisterOrder(distributionOf(op.operand(0)->type())))
      reordered.push_back(input.at(e));
    values_[op.result()] = reordered;
    return;
  }
  const tir::Type &from = op.operand(0)->type(), &to = op.result()->type();
  if (keepsRowMajorRegisters(distributionOf(from), distributionOf(to))) {
    values_[op.result()] = get(op.operand(0));
    return;
  }
  int64_t total = from.numElements();
  SharedTilePlan flat;
  flat.shape = {total};
  flat.elemBytes = sharedElementBytes(from.elem);
  Distribution src = distributionOf(from), dst = distributionOf(to);
  llvm::Type *memType = builder_.getIntNTy(flat.elemBytes * 8);
  if (!from.elem.isPointer() && !from.elem.isBool())
    memType = scalarType(from.elem);
  const Values &input = get(op.operand(0));
  beginSharedWrite();
  for (unsigned e = 0; e < src.numElements(); ++e)
    builder_.CreateStore(toSharedElement(input[e], from.elem),
                         sharedTileAddress(flat, sharedAt(0), memType, {linearCoordinate(src, e)}));
  barrier();
  Values results;
  for (unsigned e = 0; e < dst.numElements(); ++e)
    results.push_back(fromSharedElement(
        builder_.CreateLoad(
            memType, sharedTileAddress(flat, sharedAt(0), memType, {linearCoordinate(dst, e)})),
        from.elem));
  values_[op.result()] = results;
  sharedInUse_ = true;
}

//===----------------------------------------------------------------------===//
// Dot (FMA)
//===----------------------------------------------------------------------===//

/// acc + a @ b on the CUDA cores, as Triton's FMA path: a and b go to shared memory, then, K step
/// by K step, each thread reads the a values of its accumulator rows and the b values of its
/// columns (vectors where shared memory holds them contiguously) and multiply-adds them into its
/// accumulator elements. Products are computed in the accumulator's type (operands converted as
/// Triton does); "tf32" rounds the fp32 operands to tf32 first (cvt.rna.tf32.f32, what tensor
/// cores see).
llvm::Value *KernelLowering::roundToTf32(llvm::Value *value) {
  auto *type = llvm::FunctionType::get(builder_.getInt32Ty(), {builder_.getFloatTy()}, false);
  auto *cvt = llvm::InlineAsm::get(type, "cvt.rna.tf32.f32 $0, $1;", "=r,f", false);
  return builder_.CreateBitCast(builder_.CreateCall(type, cvt, {value}), builder_.getFloatTy());
}

void KernelLowering::lowerDot(const Operation &op) {
  if (gpu::isMmaV2Dot(op))
    return lowerDotMma(op);
  if (gpu::isWgmmaDot(op))
    return lowerDotWgmma(op);
  const tir::Type &aType = op.operand(0)->type(), &bType = op.operand(1)->type();
  const tir::Type &accType = op.operand(2)->type();
  const DType &in = aType.elem, &out = accType.elem;
  std::string precision =
      op.hasAttr("input_precision") ? op.strAttr("input_precision") : std::string("ieee");
  if (in.isFp8() || out.isFp8())
    unsupported(op, "'dot' on fp8");
  if (in.isFloat() != out.isFloat() || in.isBool() || in.isPointer())
    unsupported(op, "'dot' of " + in.str() + " into " + out.str());
  if (precision != "ieee" && precision != "tf32")
    unsupported(op, "'dot' input precision '" + precision + "'");
  bool tf32 = precision != "ieee" && in.kind == ScalarKind::F32 && out.kind == ScalarKind::F32;
  if (accType.layout->kind != gpu::LayoutKind::Blocked)
    unsupported(op, "'dot' with an accumulator in a slice layout");

  // [M, K] x [K, N], or batched: [B, M, K] x [B, K, N], each thread's elements of one batch
  // multiplied from that batch's rows and columns.
  DotPlans plans = dotPlans(op);
  Distribution accDist = distributionOf(accType);
  const unsigned rank = accType.rank(), mDim = rank - 2, nDim = rank - 1;
  int64_t k = aType.shape[nDim];
  beginSharedWrite();
  writeSharedTile(plans.operands[0], sharedAt(0), distributionOf(aType), get(op.operand(0)), in);
  writeSharedTile(plans.operands[1], sharedAt(plans.offsetB), distributionOf(bType),
                  get(op.operand(1)), in);
  barrier();
  sharedInUse_ = true;

  Distribution aReader = distributionOf(aType.withLayout(dotOperandLayout(*accType.layout, 0, k)));
  Distribution bReader = distributionOf(bType.withLayout(dotOperandLayout(*accType.layout, 1, k)));
  const SharedTilePlan &aPlan = plans.operands[0], &bPlan = plans.operands[1];
  unsigned vecA = aPlan.vectorWidth(aReader), vecB = bPlan.vectorWidth(bReader);
  bool aAlongK = aPlan.fastDim == nDim, bAlongK = bPlan.fastDim == mDim;
  // Vectors run along K, or along a's M / b's N; never across batches.
  if (aPlan.fastDim != nDim && aPlan.fastDim != mDim)
    vecA = 1;
  if (bPlan.fastDim != mDim && bPlan.fastDim != nDim)
    vecB = 1;
  unsigned chunk = std::max(aAlongK ? vecA : 1u, bAlongK ? vecB : 1u);
  unsigned elemsM = accDist.elemsPerThread[mDim], elemsN = accDist.elemsPerThread[nDim];
  unsigned elemsB = rank == 3 ? accDist.elemsPerThread[0] : 1;
  Values rows, cols, batches;
  for (unsigned i = 0; i < elemsM; ++i)
    rows.push_back(coordinate(accDist, mDim, i));
  for (unsigned j = 0; j < elemsN; ++j)
    cols.push_back(coordinate(accDist, nDim, j));
  for (unsigned b = 0; rank == 3 && b < elemsB; ++b)
    batches.push_back(coordinate(accDist, 0, b));
  // The shared-tile coordinates of (row, column) in batch b.
  auto at = [&](unsigned b, llvm::Value *row, llvm::Value *col) -> Values {
    if (rank == 3)
      return {batches[b], row, col};
    return {row, col};
  };

  llvm::Type *accElem = scalarType(out);
  // An operand value in the accumulator's type.
  auto promote = [&](llvm::Value *v) -> Values {
    if (!in.isFloat())
      return {in.isSigned() ? builder_.CreateSExtOrTrunc(v, accElem)
                            : builder_.CreateZExtOrTrunc(v, accElem)};
    if (in.kind != out.kind) {
      // Through fp32, which holds fp16 and bf16 exactly.
      if (!v->getType()->isFloatTy() && !v->getType()->isDoubleTy())
        v = builder_.CreateFPExt(v, builder_.getFloatTy());
      v = accElem->isDoubleTy() ? builder_.CreateFPExt(v, accElem)
                                : builder_.CreateFPTrunc(v, accElem);
    }
    if (!tf32)
      return {v};
    return {roundToTf32(v)};
  };
  auto multiplyAdd = [&](const Values &a, const Values &b, llvm::Value *acc) {
    if (!out.isFloat())
      return builder_.CreateAdd(acc, builder_.CreateMul(a[0], b[0]));
    auto fma = [&](llvm::Value *x, llvm::Value *y, llvm::Value *z) {
      return intrinsic(llvm::Intrinsic::fma, {accElem}, {x, y, z});
    };
    return fma(a[0], b[0], acc);
  };

  Values acc = get(op.operand(2));
  for (int64_t k0 = 0; k0 < k; k0 += chunk) {
    // aValues[b][i][kk], bValues[b][kk][j]
    std::vector<std::vector<std::vector<Values>>> aValues(
        elemsB, std::vector<std::vector<Values>>(elemsM, std::vector<Values>(chunk)));
    std::vector<std::vector<std::vector<Values>>> bValues(
        elemsB, std::vector<std::vector<Values>>(chunk, std::vector<Values>(elemsN)));
    for (unsigned kk = 0; kk < chunk; ++kk) {
      llvm::Value *kCoord = builder_.getInt32(static_cast<uint32_t>(k0 + kk));
      for (unsigned b = 0; b < elemsB; ++b) {
        if (!aAlongK || kk % vecA == 0)
          for (unsigned i = 0; i < elemsM; i += aAlongK ? 1 : vecA) {
            Values loaded = readSharedVector(aPlan, sharedAt(0), at(b, rows[i], kCoord), vecA, in);
            for (unsigned j = 0; j < vecA; ++j)
              aValues[b][aAlongK ? i : i + j][aAlongK ? kk + j : kk] = promote(loaded[j]);
          }
        if (!bAlongK || kk % vecB == 0)
          for (unsigned n = 0; n < elemsN; n += bAlongK ? 1 : vecB) {
            Values loaded =
                readSharedVector(bPlan, sharedAt(plans.offsetB), at(b, kCoord, cols[n]), vecB, in);
            for (unsigned j = 0; j < vecB; ++j)
              bValues[b][bAlongK ? kk + j : kk][bAlongK ? n : n + j] = promote(loaded[j]);
          }
      }
    }
    for (unsigned kk = 0; kk < chunk; ++kk)
      for (unsigned e = 0; e < accDist.numElements(); ++e) {
        std::vector<unsigned> index = accDist.multiIndex(e);
        unsigned b = rank == 3 ? index[0] : 0;
        acc[e] = multiplyAdd(aValues[b][index[mDim]][kk], bValues[b][kk][index[nDim]], acc[e]);
      }
  }
  values_[op.result()] = acc;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// Elements per vector access: what the thread holds consecutively along its fastest dimension,
/// limited by what axis info proves about the pointers.
unsigned KernelLowering::accessVectorWidth(const Operation &op, const Distribution *dist) {
  if (!dist || dist->order.empty())
    return 1;
  unsigned fastest = dist->order[0];
  // The run of consecutive coordinates a thread's elements form along `fastest`: all of them
  // when no other thread or warp shares that dimension (a slice's rows each thread holds whole,
  // as the token ids of an embedding lookup), else its sizePerThread.
  unsigned run = dist->spt(fastest);
  const bool wholeRun = dist->tile(fastest) == int64_t(run);
  if (wholeRun)
    run = dist->elemsPerThread[fastest];
  else if (dist->rootDim[fastest] != dist->root->order[0])
    return 1; // the thread's consecutive elements were along a sliced-away dimension
  unsigned vec = std::min(run, axisInfo_.vectorWidth(op.operand(0), fastest));
  // Such a run is vectorised only as far as the mask is constant (as Triton limits a vector by
  // the mask's alignment), not split into vector-or-scalar branches.
  unsigned maskOperand = op.code() == OpCode::Store ? 2 : 1;
  if (wholeRun && op.numOperands() > maskOperand)
    vec = std::min(vec, axisInfo_.maskConstancy(op.operand(maskOperand), fastest));
  const DType &elem = op.operand(0)->type().elem.pointeeType();
  unsigned bits = elem.isBool() ? 8 : elem.bits();
  while (vec > 1 && vec * bits > 128)
    vec /= 2;
  return std::max(1u, vec);
}

/// A word of `bits` bits in an inline-asm register: its LLVM type and constraint letter.
static std::pair<unsigned, const char *> asmWord(unsigned bits) {
  if (bits == 64)
    return {64, "l"};
  if (bits == 32)
    return {32, "r"};
  return {16, "h"}; // 8- and 16-bit words live in 16-bit registers
}

/// How `vec` elements of `bits` bits travel as words: (word bits, number of words).
static std::pair<unsigned, unsigned> wordsFor(unsigned vec, unsigned bits) {
  unsigned total = vec * bits;
  if (bits >= 32)
    return {bits, vec};
  if (total >= 32)
    return {32, total / 32};
  return {total, 1};
}

void KernelLowering::storeSharedIf(llvm::Value *ptr, llvm::Value *value, llvm::Value *pred) {
  // The value as PTX words: elements of 32 bits or more one word each, smaller ones packed into
  // 32-bit words (or one word of their total size when that is less).
  auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(value->getType());
  llvm::Type *elemType = vector ? vector->getElementType() : value->getType();
  unsigned elemBits = static_cast<unsigned>(elemType->getPrimitiveSizeInBits());
  unsigned count = vector ? static_cast<unsigned>(vector->getNumElements()) : 1;
  auto [wordBits, numWords] = wordsFor(count, elemBits);
  auto [regBits, constraint] = asmWord(wordBits);
  llvm::Type *wordType = builder_.getIntNTy(wordBits);
  Values words;
  if (numWords == 1) {
    words.push_back(builder_.CreateBitCast(value, wordType));
  } else {
    llvm::Value *asWords =
        builder_.CreateBitCast(value, llvm::FixedVectorType::get(wordType, numWords));
    for (unsigned w = 0; w < numWords; ++w)
      words.push_back(builder_.CreateExtractElement(asWords, w));
  }
  std::vector<llvm::Value *> args = {builder_.CreatePtrToInt(ptr, builder_.getInt32Ty()), pred};
  std::string constraints = "r,b", operands;
  for (unsigned w = 0; w < numWords; ++w) {
    llvm::Value *word = words[w];
    if (regBits != wordBits)
      word = builder_.CreateZExt(word, builder_.getIntNTy(regBits));
    args.push_back(word);
    constraints += std::string(",") + constraint;
    operands += (w ? ", $" : "$") + std::to_string(w + 2);
  }
  std::vector<llvm::Type *> argTypes;
  for (llvm::Value *a : args)
    argTypes.push_back(a->getType());
  auto *asmType = llvm::FunctionType::get(builder_.getVoidTy(), argTypes, false);
  std::string ptx = "@$1 st.shared" +
                    (numWords > 1 ? ".v" + std::to_string(numWords) : std::string()) + "." +
                    (wordBits == 8 ? std::string("u8") : "b" + std::to_string(wordBits)) +
                    " [ $0 + 0 ], " + (numWords > 1 ? "{" + operands + "}" : operands) + ";";
  builder_.CreateCall(asmType, llvm::InlineAsm::get(asmType, ptx, constraints, true), args);
}

Values KernelLowering::loadGroup(const Operation &op, llvm::Value *ptr, unsigned vec,
                                 const DType &elem, llvm::Value *pred, const Values &others) {
  llvm::Type *memType = memoryType(elem);
  unsigned bits = static_cast<unsigned>(memType->getPrimitiveSizeInBits());
  unsigned bytes = bits / 8;
  llvm::Type *vecType = vec == 1 ? memType : llvm::FixedVectorType::get(memType, vec);
  llvm::Value *raw = nullptr;
  // An element as loaded becomes the element's value (an i8 becomes a bool).
  auto asElement = [&](llvm::Value *loaded) {
    return elem.isBool() ? builder_.CreateICmpNE(loaded, llvm::ConstantInt::get(memType, 0))
                         : loaded;
  };
  // tl.load(volatile=True) is ld.volatile.global, as in Triton (a flag another program writes).
  const bool isVolatile = op.hasAttr("volatile") && op.boolAttr("volatile");
  if (!pred) {
    raw = builder_.CreateAlignedLoad(vecType, ptr, llvm::Align(vec * bytes), isVolatile);
  } else {
    // Predicated vector load as Triton emits it: the registers start as `other` (or 0), and the
    // load overwrites them only where the predicate holds.
    auto [wordBits, numWords] = wordsFor(vec, bits);
    auto [regBits, constraint] = asmWord(wordBits);
    llvm::Type *wordType = builder_.getIntNTy(wordBits);
    llvm::Type *regType = builder_.getIntNTy(regBits);
    llvm::Type *wordsType =
        numWords == 1 ? wordType : llvm::FixedVectorType::get(wordType, numWords);
    llvm::Value *otherWords = llvm::Constant::getNullValue(wordsType);
    if (!others.empty()) {
      llvm::Value *packed = llvm::UndefValue::get(vecType);
      if (vec == 1) {
        packed = others[0];
      } else {
        for (unsigned j = 0; j < vec; ++j)
          packed = builder_.CreateInsertElement(packed, others[j], j);
      }
      if (elem.isBool())
        packed = builder_.CreateZExt(packed, vecType);
      otherWords = builder_.CreateBitCast(packed, wordsType);
    }
    std::ostringstream ptx;
    std::string constraints;
    std::vector<llvm::Type *> argTypes;
    Values args;
    unsigned ptrIndex = numWords, predIndex = numWords + 1, otherIndex = numWords + 2;
    std::string suffix = wordBits == 8 ? "u8" : "b" + std::to_string(wordBits);
    for (unsigned w = 0; w < numWords; ++w) {
      ptx << "mov.b" << regBits << " $" << w << ", $" << otherIndex + w << ";\n\t";
      constraints += std::string(w ? "," : "") + "=" + constraint;
    }
    ptx << "@$" << predIndex << (isVolatile ? " ld.volatile.global" : " ld.global");
    if (numWords > 1)
      ptx << ".v" << numWords;
    ptx << "." << suffix << " ";
    if (numWords > 1)
      ptx << "{ ";
    for (unsigned w = 0; w < numWords; ++w)
      ptx << (w ? ", " : "") << "$" << w;
    if (numWords > 1)
      ptx << " }";
    ptx << ", [ $" << ptrIndex << " + 0 ];";
    constraints += ",l,b";
    args.push_back(ptr);
    args.push_back(pred);
    for (unsigned w = 0; w < numWords; ++w) {
      llvm::Value *word = numWords == 1 ? otherWords : builder_.CreateExtractElement(otherWords, w);
      if (regBits != wordBits)
        word = builder_.CreateZExt(word, regType);
      args.push_back(word);
      constraints += std::string(",") + constraint;
    }
    for (llvm::Value *a : args)
      argTypes.push_back(a->getType());
    llvm::Type *resultType = numWords == 1
                                 ? regType
                                 : static_cast<llvm::Type *>(llvm::StructType::get(
                                       context_, std::vector<llvm::Type *>(numWords, regType)));
    auto *asmType = llvm::FunctionType::get(resultType, argTypes, false);
    auto *inlineAsm = llvm::InlineAsm::get(asmType, ptx.str(), constraints, true);
    llvm::Value *result = builder_.CreateCall(asmType, inlineAsm, args);
    // Each word becomes a vector of its own elements, which the elements are extracted from, as
    // Triton unpacks a load (all the words first, then the elements): not one vector of all the
    // words. The values are the same, but an element's chain of instructions is shorter, and
    // Reassociate ranks a value by that depth: the rank decides the operand order of a
    // commutative fadd, and with it which product the backend fuses into an FMA.
    unsigned wordElems = vec / numWords;
    auto *wordVecType = llvm::FixedVectorType::get(memType, wordElems);
    Values unpacked;
    for (unsigned w = 0; w < numWords; ++w) {
      llvm::Value *word = numWords == 1 ? result : builder_.CreateExtractValue(result, w);
      if (regBits != wordBits)
        word = builder_.CreateTrunc(word, wordType);
      unpacked.push_back(builder_.CreateBitCast(word, wordVecType));
    }
    Values elements;
    for (unsigned j = 0; j < vec; ++j)
      elements.push_back(asElement(builder_.CreateExtractElement(
          unpacked[j / wordElems], builder_.getInt32(j % wordElems))));
    return elements;
  }
  Values elements;
  for (unsigned j = 0; j < vec; ++j)
    elements.push_back(asElement(vec == 1 ? raw : builder_.CreateExtractElement(raw, j)));
  return elements;
}

void KernelLowering::storeGroup(const Operation &op, llvm::Value *ptr, const Values &vals,
                                const DType &elem, llvm::Value *pred) {
  unsigned vec = static_cast<unsigned>(vals.size());
  llvm::Type *memType = memoryType(elem);
  unsigned bits = static_cast<unsigned>(memType->getPrimitiveSizeInBits());
  llvm::Type *vecType = vec == 1 ? memType : llvm::FixedVectorType::get(memType, vec);
  llvm::Value *packed = vec == 1 ? vals[0] : llvm::UndefValue::get(vecType);
  if (vec > 1)
    for (unsigned j = 0; j < vec; ++j)
      packed = builder_.CreateInsertElement(
          packed, elem.isBool() ? builder_.CreateZExt(vals[j], memType) : vals[j], j);
  else if (elem.isBool())
    packed = builder_.CreateZExt(packed, memType);
  if (!pred) {
    builder_.CreateAlignedStore(packed, ptr, llvm::Align(vec * bits / 8));
    return;
  }
  auto [wordBits, numWords] = wordsFor(vec, bits);
  auto [regBits, constraint] = asmWord(wordBits);
  llvm::Type *wordType = builder_.getIntNTy(wordBits);
  llvm::Type *wordsType = numWords == 1 ? wordType : llvm::FixedVectorType::get(wordType, numWords);
  llvm::Value *words = builder_.CreateBitCast(packed, wordsType);
  std::ostringstream ptx;
  std::string constraints = "l,b";
  Values args{ptr, pred};
  std::string suffix = wordBits == 8 ? "u8" : "b" + std::to_string(wordBits);
  ptx << "@$1 st.global";
  if (numWords > 1)
    ptx << ".v" << numWords;
  ptx << "." << suffix << " [ $0 + 0 ], ";
  if (numWords > 1)
    ptx << "{ ";
  for (unsigned w = 0; w < numWords; ++w) {
    ptx << (w ? ", " : "") << "$" << w + 2;
    llvm::Value *word = numWords == 1 ? words : builder_.CreateExtractElement(words, w);
    if (regBits != wordBits)
      word = builder_.CreateZExt(word, builder_.getIntNTy(regBits));
    args.push_back(word);
    constraints += std::string(",") + constraint;
  }
  if (numWords > 1)
    ptx << " }";
  ptx << ";";
  std::vector<llvm::Type *> argTypes;
  for (llvm::Value *a : args)
    argTypes.push_back(a->getType());
  auto *asmType = llvm::FunctionType::get(builder_.getVoidTy(), argTypes, false);
  builder_.CreateCall(asmType, llvm::InlineAsm::get(asmType, ptx.str(), constraints, true), args);
}

void KernelLowering::lowerLoad(const Operation &op) {
  const tir::Type &type = op.result()->type();
  if (type.elem.isPointer())
    unsupported(op, "loading pointers");
  std::optional<Distribution> dist;
  if (type.isTensor())
    dist = distributionOf(type);
  unsigned n = dist ? dist->numElements() : 1;
  unsigned vec = accessVectorWidth(op, dist ? &*dist : nullptr);
  const Values &ptrs = get(op.operand(0));
  const Values *masks = op.numOperands() > 1 ? &get(op.operand(1)) : nullptr;
  const Values *others = op.numOperands() > 2 ? &get(op.operand(2)) : nullptr;
  bool maskUniform =
      !masks || (dist && axisInfo_.maskConstancy(op.operand(1), dist->order[0]) >= vec) || vec == 1;
  Values results(n);
  for (unsigned e = 0; e < n; e += vec) {
    Values groupOthers;
    if (others)
      groupOthers.assign(others->begin() + e, others->begin() + e + vec);
    Values loaded;
    if (!masks) {
      loaded = loadGroup(op, ptrs[e], vec, type.elem, nullptr, {});
    } else if (maskUniform) {
      loaded = loadGroup(op, ptrs[e], vec, type.elem, (*masks)[e], groupOthers);
    } else {
      // The mask may change inside the vector: one vector load when the whole group is in,
      // element by element otherwise (only at the edges of the data).
      llvm::Value *all = (*masks)[e];
      for (unsigned j = 1; j < vec; ++j)
        all = builder_.CreateAnd(all, (*masks)[e + j]);
      llvm::BasicBlock *fast = llvm::BasicBlock::Create(context_, "load.vector", kernel_);
      llvm::BasicBlock *slow = llvm::BasicBlock::Create(context_, "load.masked", kernel_);
      llvm::BasicBlock *join = llvm::BasicBlock::Create(context_, "load.join", kernel_);
      builder_.CreateCondBr(all, fast, slow);
      builder_.SetInsertPoint(fast);
      Values vectorValues = loadGroup(op, ptrs[e], vec, type.elem, nullptr, {});
      llvm::BasicBlock *fastEnd = builder_.GetInsertBlock();
      builder_.CreateBr(join);
      builder_.SetInsertPoint(slow);
      Values scalarValues;
      for (unsigned j = 0; j < vec; ++j) {
        Values other;
        if (others)
          other.push_back((*others)[e + j]);
        scalarValues.push_back(loadGroup(op, ptrs[e + j], 1, type.elem, (*masks)[e + j], other)[0]);
      }
      llvm::BasicBlock *slowEnd = builder_.GetInsertBlock();
      builder_.CreateBr(join);
      builder_.SetInsertPoint(join);
      for (unsigned j = 0; j < vec; ++j) {
        llvm::PHINode *phi = builder_.CreatePHI(vectorValues[j]->getType(), 2);
        phi->addIncoming(vectorValues[j], fastEnd);
        phi->addIncoming(scalarValues[j], slowEnd);
        loaded.push_back(phi);
      }
    }
    for (unsigned j = 0; j < vec; ++j)
      results[e + j] = loaded[j];
  }
  values_[op.result()] = results;
}

void KernelLowering::lowerStore(const Operation &op) {
  const tir::Type &type = op.operand(1)->type();
  if (type.elem.isPointer())
    unsupported(op, "storing pointers");
  std::optional<Distribution> dist;
  if (type.isTensor())
    dist = distributionOf(type);
  unsigned n = dist ? dist->numElements() : 1;
  unsigned vec = accessVectorWidth(op, dist ? &*dist : nullptr);
  // A layout that wraps, or a slice, gives copies of an element to several threads. Only its
  // owner stores it, as Triton masks redundant stores: where a kernel updates a tensor in place
  // (Liger's cross entropy writes its gradient over its logits), a copy loaded after the owner's
  // store would store a second update. Ownership is the same across a vector along the fastest
  // dimension when that dimension's extent is a multiple of the vector (the thread's start and the
  // vector's offset are multiples of it); otherwise the elements are stored one by one.
  const bool replicated = dist && atomicResultIsReplicated(*dist);
  if (replicated && vec > 1 && dist->shape[dist->order[0]] % vec != 0)
    vec = 1;
  const Values &ptrs = get(op.operand(0));
  const Values &vals = get(op.operand(1));
  const Values *masks = op.numOperands() > 2 ? &get(op.operand(2)) : nullptr;
  bool maskUniform =
      !masks || (dist && axisInfo_.maskConstancy(op.operand(2), dist->order[0]) >= vec) || vec == 1;
  // A scalar is every thread's: thread 0 stores it, as Triton does (a program that loads, updates
  // and stores one element in place must not see another thread's store before its own load).
  llvm::Value *scalarOwner =
      dist ? nullptr : builder_.CreateICmpEQ(threadId_, builder_.getInt32(0), "thread0");
  for (unsigned e = 0; e < n; e += vec) {
    Values group(vals.begin() + e, vals.begin() + e + vec);
    llvm::Value *owner = replicated ? ownsElement(*dist, e) : scalarOwner;
    auto owned = [&](llvm::Value *mask) -> llvm::Value * {
      if (!owner)
        return mask;
      return mask ? builder_.CreateAnd(mask, owner) : owner;
    };
    if (!masks) {
      storeGroup(op, ptrs[e], group, type.elem, owned(nullptr));
      continue;
    }
    if (maskUniform) {
      storeGroup(op, ptrs[e], group, type.elem, owned((*masks)[e]));
      continue;
    }
    llvm::Value *all = owned((*masks)[e]);
    for (unsigned j = 1; j < vec; ++j)
      all = builder_.CreateAnd(all, (*masks)[e + j]);
    llvm::BasicBlock *fast = llvm::BasicBlock::Create(context_, "store.vector", kernel_);
    llvm::BasicBlock *slow = llvm::BasicBlock::Create(context_, "store.masked", kernel_);
    llvm::BasicBlock *join = llvm::BasicBlock::Create(context_, "store.join", kernel_);
    builder_.CreateCondBr(all, fast, slow);
    builder_.SetInsertPoint(fast);
    storeGroup(op, ptrs[e], group, type.elem, nullptr);
    builder_.CreateBr(join);
    builder_.SetInsertPoint(slow);
    for (unsigned j = 0; j < vec; ++j)
      storeGroup(op, ptrs[e + j], {group[j]}, type.elem, owned((*masks)[e + j]));
    builder_.CreateBr(join);
    builder_.SetInsertPoint(join);
  }
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

llvm::Value *KernelLowering::combine(const std::string &kind, const DType &type, llvm::Value *a,
                                     llvm::Value *b) {
  bool isFloat = type.isFloat();
  if (kind == "sum")
    return isFloat ? builder_.CreateFAdd(a, b) : builder_.CreateAdd(a, b);
  if (kind == "prod")
    return isFloat ? builder_.CreateFMul(a, b) : builder_.CreateMul(a, b);
  if (kind == "xor")
    return builder_.CreateXor(a, b);
  bool max = kind == "max";
  if (isFloat)
    return intrinsic(max ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum, {a->getType()},
                     {a, b});
  if (type.isBool())
    return max ? builder_.CreateOr(a, b) : builder_.CreateAnd(a, b);
  bool isSigned = type.isSigned();
  auto id = max ? (isSigned ? llvm::Intrinsic::smax : llvm::Intrinsic::umax)
                : (isSigned ? llvm::Intrinsic::smin : llvm::Intrinsic::umin);
  return intrinsic(id, {a->getType()}, {a, b});
}

/// The value of `v` in the lane whose id is this lane's xor `laneMask` (shfl.sync.bfly).
llvm::Value *KernelLowering::shuffleXor(llvm::Value *v, unsigned laneMask) {
  return shuffle(v, llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, builder_.getInt32(laneMask), 0x1f);
}

/// The value of `v` in the lane `delta` below (up) or above this one (shfl.sync.up/down); a lane
/// without such a neighbour gets its own value.
llvm::Value *KernelLowering::shuffleUpDown(llvm::Value *v, unsigned delta, bool up) {
  return up ? shuffle(v, llvm::Intrinsic::nvvm_shfl_sync_up_i32, builder_.getInt32(delta), 0)
            : shuffle(v, llvm::Intrinsic::nvvm_shfl_sync_down_i32, builder_.getInt32(delta), 0x1f);
}

/// The value of `v` in lane `lane` (shfl.sync.idx).
llvm::Value *KernelLowering::shuffleIndex(llvm::Value *v, llvm::Value *lane) {
  return shuffle(v, llvm::Intrinsic::nvvm_shfl_sync_idx_i32, lane, 0x1f);
}

/// One shfl.sync of any scalar: floats as their bits, 64-bit values as two words, narrow values
/// in the low bits of a word.
llvm::Value *KernelLowering::shuffle(llvm::Value *v, llvm::Intrinsic::ID id, llvm::Value *laneArg,
                                     unsigned clamp) {
  llvm::Type *type = v->getType();
  auto shuffle32 = [&](llvm::Value *word) {
    return intrinsic(id, {},
                     {builder_.getInt32(0xffffffff), word, laneArg, builder_.getInt32(clamp)});
  };
  unsigned bits = static_cast<unsigned>(type->getPrimitiveSizeInBits());
  if (type->isFloatTy())
    return builder_.CreateBitCast(shuffle32(builder_.CreateBitCast(v, builder_.getInt32Ty())),
                                  type);
  if (bits == 64) {
    auto *pair = llvm::FixedVectorType::get(builder_.getInt32Ty(), 2);
    llvm::Value *halves = builder_.CreateBitCast(v, pair);
    llvm::Value *lo = shuffle32(builder_.CreateExtractElement(halves, uint64_t(0)));
    llvm::Value *hi = shuffle32(builder_.CreateExtractElement(halves, uint64_t(1)));
    llvm::Value *joined =
        builder_.CreateInsertElement(llvm::UndefValue::get(pair), lo, uint64_t(0));
    joined = builder_.CreateInsertElement(joined, hi, uint64_t(1));
    return builder_.CreateBitCast(joined, type);
  }
  if (bits == 32)
    return shuffle32(v);
  // Narrow values travel in the low bits of a 32-bit word.
  llvm::Type *intType = builder_.getIntNTy(bits);
  llvm::Value *word =
      builder_.CreateZExt(builder_.CreateBitCast(v, intType), builder_.getInt32Ty());
  return builder_.CreateBitCast(builder_.CreateTrunc(shuffle32(word), intType), type);
}

std::optional<llvm::Intrinsic::ID> KernelLowering::warpReduxIntrinsic(const std::string &kind,
                                                                      const DType &elem) const {
  if (!elem.isInteger() || elem.isBool() || elem.bits() > 32) // redux.sync: sm_80, every target
    return std::nullopt;
  if (kind == "sum")
    return llvm::Intrinsic::nvvm_redux_sync_add;
  if (kind == "xor")
    return llvm::Intrinsic::nvvm_redux_sync_xor;
  if (kind == "max")
    return elem.isSigned() ? llvm::Intrinsic::nvvm_redux_sync_max
                           : llvm::Intrinsic::nvvm_redux_sync_umax;
  if (kind == "min")
    return elem.isSigned() ? llvm::Intrinsic::nvvm_redux_sync_min
                           : llvm::Intrinsic::nvvm_redux_sync_umin;
  return std::nullopt;
}

llvm::Value *KernelLowering::warpRedux(llvm::Intrinsic::ID id, llvm::Value *v, const DType &elem) {
  llvm::Type *i32 = builder_.getInt32Ty();
  llvm::Value *word = elem.bits() == 32 ? v
                      : elem.isSigned() ? builder_.CreateSExt(v, i32)
                                        : builder_.CreateZExt(v, i32);
  llvm::Value *total = intrinsic(id, {}, {word, builder_.getInt32(-1)});
  return elem.bits() == 32 ? total : builder_.CreateTrunc(total, v->getType());
}

void KernelLowering::lowerReduce(const Operation &op) {
  const tir::Type &in = op.operand(0)->type();
  const tir::Type &out = op.result()->type();
  const std::string &kind = op.strAttr("kind");
  if (kind != "sum" && kind != "max" && kind != "min" && kind != "xor" && kind != "combine")
    unsupported(op, "reduction kind '" + kind + "'");
  if (in.isScalar())
    unsupported(op, "reducing a scalar");
  unsigned n = op.numOperands();
  for (const tir::Value *v : op.operands())
    if (v->type().elem.isFp8() || v->type().elem.isPointer())
      unsupported(op, "reductions of " + v->type().elem.tritonName());
  unsigned axis = static_cast<unsigned>(op.intAttr("axis"));
  Distribution dist = distributionOf(in);
  std::optional<Distribution> resultDist;
  if (out.isTensor())
    resultDist = distributionOf(out);
  std::vector<const Values *> inputs;
  for (const tir::Value *v : op.operands())
    inputs.push_back(&get(v));

  // 1. Within the thread: elements that differ only along the axis (copies of the same element,
  //    when the layout wraps, are counted once). A `within_thread` reduction stops here: its
  //    result keeps the axis with one element per thread along it, the thread's own partial.
  bool withinThread = op.hasAttr("within_thread");
  unsigned inThread =
      static_cast<unsigned>(std::min<int64_t>(dist.elemsPerThread[axis], dist.shape[axis]));
  unsigned numResults = resultDist ? resultDist->numElements() : 1;
  std::vector<Values> acc(numResults);
  for (unsigned e = 0; e < dist.numElements(); ++e) {
    std::vector<unsigned> index = dist.multiIndex(e);
    if (index[axis] >= inThread)
      continue;
    if (withinThread)
      index[axis] = 0;
    else
      index.erase(index.begin() + axis);
    unsigned r = resultDist ? resultDist->linearIndex(index) : 0;
    Values element;
    for (const Values *input : inputs)
      element.push_back((*input)[e]);
    acc[r] = acc[r].empty() ? element : combineValues(op, acc[r], element);
  }

  if (withinThread) { // one operand (Verifier.cpp)
    Values partials;
    for (const Values &a : acc)
      partials.push_back(a.at(0));
    values_[op.result()] = partials;
    return;
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
  std::optional<llvm::Intrinsic::ID> redux;
  if (distinctLanes == 32 && n == 1)
    redux = warpReduxIntrinsic(kind, in.elem);
  if (redux) {
    for (Values &a : acc)
      a = {warpRedux(*redux, a[0], in.elem)};
  } else {
    // Halving the lane distance, as Triton's warpReduce: for a sum, the association of the
    // additions is Triton's, so that the rounding is too.
    for (int64_t step = distinctLanes / 2; step >= 1; step /= 2)
      for (Values &a : acc) {
        Values other;
        for (llvm::Value *v : a)
          other.push_back(shuffleXor(v, static_cast<unsigned>(step) * laneStride));
        a = combineValues(op, a, other);
      }
  }

  // 3. Across warps, through shared memory: slot (result element, warp along the axis), one
  //    array per operand.
  unsigned warps = distinctWarpsAlongAxis(op);
  if (warps > 1) {
    llvm::Value *warpAlongAxis = builder_.CreateAnd(threadIndicesFor(dist.root).second[rootAxis],
                                                    builder_.getInt32(warps - 1));
    std::vector<llvm::Value *> slots(numResults);
    for (unsigned r = 0; r < numResults; ++r) {
      llvm::Value *linear = resultDist ? linearCoordinate(*resultDist, r) : builder_.getInt32(0);
      slots[r] = builder_.CreateMul(linear, builder_.getInt32(warps));
    }
    auto slotPointer = [&](unsigned i, llvm::Value *slot) {
      llvm::Type *memType = memoryType(op.operand(i)->type().elem);
      if (n == 1)
        return sharedElementPointer(memType, slot);
      return builder_.CreateGEP(memType, sharedAt(reduceOperandOffset(op, i)), slot);
    };
    beginSharedWrite();
    for (unsigned r = 0; r < numResults; ++r)
      for (unsigned i = 0; i < n; ++i) {
        llvm::Value *v = toSharedElement(acc[r][i], op.operand(i)->type().elem);
        builder_.CreateStore(v, slotPointer(i, builder_.CreateAdd(slots[r], warpAlongAxis)));
      }
    barrier();
    for (unsigned r = 0; r < numResults; ++r) {
      std::vector<Values> partials(warps);
      for (unsigned w = 0; w < warps; ++w)
        for (unsigned i = 0; i < n; ++i) {
          const DType &elem = op.operand(i)->type().elem;
          llvm::Value *v = builder_.CreateLoad(
              memoryType(elem), slotPointer(i, builder_.CreateAdd(slots[r], builder_.getInt32(w))));
          partials[w].push_back(fromSharedElement(v, elem));
        }
      // The warps' partials combined as Triton's butterfly over them does (warp w with warp
      // w + half, halving): ((w0 + w2) + (w1 + w3)) for four, not a left fold.
      for (unsigned half = warps / 2; half >= 1; half /= 2)
        for (unsigned w = 0; w < half; ++w)
          partials[w] = combineValues(op, partials[w], partials[w + half]);
      acc[r] = partials[0];
    }
    sharedInUse_ = true;
  }
  for (unsigned i = 0; i < n; ++i) {
    Values result;
    for (const Values &a : acc)
      result.push_back(a[i]);
    values_[op.result(i)] = result;
  }
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// One phi per LLVM value of each of `for` op's carried values, at the current insertion point,
/// fed with the initial values from `preheader`: they stand for the body's region arguments.
std::vector<std::vector<llvm::PHINode *>>
KernelLowering::createCarriedPhis(const Operation &op, llvm::BasicBlock *preheader) {
  const tir::Block &body = op.region(0).block();
  std::vector<std::vector<llvm::PHINode *>> phis(op.numOperands() - 3);
  for (unsigned i = 0; i < phis.size(); ++i) {
    Values phiValues;
    for (llvm::Value *init : get(op.operand(i + 3))) {
      llvm::PHINode *phi = builder_.CreatePHI(init->getType(), 2);
      phi->addIncoming(init, preheader);
      phis[i].push_back(phi);
      phiValues.push_back(phi);
    }
    values_[body.argument(i + 1)] = phiValues;
  }
  return phis;
}

/// The body of `for` op at the current insertion point, then the induction variable's step: the
/// block it ends in (the latch) feeds `iv` and the carried values' `phis`. Returns the next value
/// of the induction variable.
llvm::Value *
KernelLowering::lowerLoopIteration(const Operation &op, llvm::PHINode *iv, llvm::Value *step,
                                   const std::vector<std::vector<llvm::PHINode *>> &phis) {
  const tir::Block &body = op.region(0).block();
  if (usesSharedMemory(body))
    sharedInUse_ = true; // the previous iteration's readers
  lowerBlock(body);
  llvm::Value *next = builder_.CreateAdd(iv, step);
  llvm::BasicBlock *latch = builder_.GetInsertBlock();
  iv->addIncoming(next, latch);
  for (unsigned i = 0; i < phis.size(); ++i) {
    const Values &yielded = get(body.terminator()->operand(i));
    for (unsigned e = 0; e < phis[i].size(); ++e)
      phis[i][e]->addIncoming(yielded.at(e), latch);
  }
  return next;
}

void KernelLowering::lowerFor(const Operation &op) {
  const tir::Block &body = op.region(0).block();
  llvm::Value *lb = get(op.operand(0))[0];
  llvm::Value *step = get(op.operand(2))[0];
  unsigned numIters = op.numOperands() - 3;

  // A tensor-core dot whose a is loop-invariant (attention's q) reads its A fragments once, here,
  // instead of staging a through shared memory in every iteration. On mma.sync not where the
  // fragments take over 64 registers and, with the loop's accumulators, over 192: with Triton's
  // warp grid along N every warp multiplies all of a's rows. Flash attention at D128, 64x64 on 4
  // warps, has 128 registers of q fragments and 96 of accumulators; held, they spilled, and
  // restaging q in each iteration ran 1.5x faster at sm_80 (on an H200). On 8 warps (48 of
  // accumulators) holding them was 1.15x faster. Accumulators count one register per element,
  // as fp32 and int32 ones take (fp16 ones take half: the estimate errs towards restaging).
  unsigned accumulatorRegisters = 0;
  for (const auto &inner : body.ops())
    if (gpu::isMmaV2Dot(*inner))
      accumulatorRegisters += distributionOf(inner->operand(2)->type()).numElements();
  for (const auto &inner : body.ops()) {
    if (!gpu::isTensorCoreDot(*inner) || !mmaDotPlans(*inner).staged(0))
      continue;
    std::optional<gpu::MmaV2Instruction> instruction = gpu::mmaV2InstructionFor(*inner);
    if (!instruction)
      continue;
    const tir::Value *a = inner->operand(0);
    bool invariant =
        a->isBlockArgument() ? a->ownerBlock() != &body : a->definingOp()->parentBlock() != &body;
    if (!invariant)
      continue;
    if (gpu::isMmaV2Dot(*inner)) {
      const unsigned tilesM = distributionOf(inner->operand(2)->type()).elemsPerThread[0] / 2;
      const int64_t fragmentRegisters = 4 * tilesM * (a->type().shape[1] / instruction->k);
      if (fragmentRegisters > 64 && fragmentRegisters + accumulatorRegisters > 192)
        continue;
    }
    lowerDotMma(*inner, /*onlyA=*/true);
  }

  // The carried values wgmma groups left in flight by the last iteration compute.
  std::vector<unsigned> drained;
  for (const auto &inner : body.ops()) {
    unsigned carried = 0;
    if (gpu::isWgmmaDot(*inner) &&
        (wgmmaStaysInFlight(*inner, &carried) || wgmmaDeferredTo(*inner, &carried)))
      drained.push_back(carried);
  }
  // Attention's deferred second product with its warpgroups along N (64 rows on 8 warps): the
  // wait after the loop must be on the loop's own exit path. Where the loop may run no iteration
  // and that path joins the exit before the wait, the zero-trip path's copies of the initial
  // accumulators into the registers the wgmmas use look, to ptxas, like writes to those
  // registers while a group is in flight, and it serialises every wgmma of the kernel (warning
  // C7515): LLVM places those copies so there. The other loops keep the form whose performance
  // was measured (attention with every warp along M: the copies before the guard).
  const bool deferredAlongN =
      std::any_of(body.ops().begin(), body.ops().end(), [&](const auto &inner) {
        unsigned warpsN = 1;
        return gpu::isWgmmaDot(*inner) && wgmmaDeferredTo(*inner) &&
               gpu::isMmaV3AccumulatorLayout(*inner->result()->type().layout, nullptr, &warpsN) &&
               warpsN > 1;
      });
  if (deferredAlongN)
    return lowerForDrained(op, drained);

  llvm::BasicBlock *preheader = builder_.GetInsertBlock();
  llvm::BasicBlock *header = llvm::BasicBlock::Create(context_, "for.header", kernel_);
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(context_, "for.body", kernel_);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(context_, "for.exit", kernel_);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  llvm::PHINode *iv = builder_.CreatePHI(lb->getType(), 2, "iv");
  iv->addIncoming(lb, preheader);
  std::vector<std::vector<llvm::PHINode *>> phis = createCarriedPhis(op, preheader);
  for (unsigned i = 0; i < numIters; ++i)
    values_[op.result(i)] = values_[body.argument(i + 1)];
  values_[body.argument(0)] = {iv};
  builder_.CreateCondBr(forContinues(op, iv), loop, exit);

  builder_.SetInsertPoint(loop);
  lowerLoopIteration(op, iv, step, phis);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(exit);
  // A wgmma group left in flight by the last iteration completes before its result is used.
  for (unsigned carried : drained)
    values_[op.result(carried)] = waitForWgmma(get(op.result(carried)), 0);
}

llvm::Value *KernelLowering::forContinues(const Operation &op, llvm::Value *iv) {
  llvm::Value *ub = get(op.operand(1))[0];
  llvm::Value *step = get(op.operand(2))[0];
  // range(lb, ub, step): up while step > 0, down while step < 0.
  bool isSigned = !op.operand(0)->type().elem.isUnsigned();
  llvm::Value *up =
      builder_.CreateICmp(isSigned ? llvm::CmpInst::ICMP_SLT : llvm::CmpInst::ICMP_ULT, iv, ub);
  if (!isSigned)
    return up;
  llvm::Value *down = builder_.CreateICmpSGT(iv, ub);
  llvm::Value *positive = builder_.CreateICmpSGT(step, llvm::ConstantInt::get(step->getType(), 0));
  return builder_.CreateSelect(positive, up, down);
}

void KernelLowering::lowerForDrained(const Operation &op, const std::vector<unsigned> &drained) {
  const tir::Block &body = op.region(0).block();
  llvm::Value *lb = get(op.operand(0))[0];
  llvm::Value *step = get(op.operand(2))[0];
  unsigned numIters = op.numOperands() - 3;
  // preheader: guard -> body (do-while) -> drain (the waits) -> exit; the guard's false edge
  // goes straight to the exit, which merges the initial values with the drained ones.
  llvm::BasicBlock *preheader = builder_.GetInsertBlock();
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(context_, "for.body", kernel_);
  llvm::BasicBlock *drain = llvm::BasicBlock::Create(context_, "for.drain", kernel_);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(context_, "for.exit", kernel_);
  builder_.CreateCondBr(forContinues(op, lb), loop, exit);

  builder_.SetInsertPoint(loop);
  llvm::PHINode *iv = builder_.CreatePHI(lb->getType(), 2, "iv");
  iv->addIncoming(lb, preheader);
  std::vector<std::vector<llvm::PHINode *>> phis = createCarriedPhis(op, preheader);
  values_[body.argument(0)] = {iv};
  llvm::Value *next = lowerLoopIteration(op, iv, step, phis);
  std::vector<Values> yielded(numIters);
  for (unsigned i = 0; i < numIters; ++i)
    yielded[i] = get(body.terminator()->operand(i));
  builder_.CreateCondBr(forContinues(op, next), loop, drain);

  // The groups the last iteration left in flight complete before their results are used.
  builder_.SetInsertPoint(drain);
  for (unsigned carried : drained)
    yielded[carried] = waitForWgmma(yielded[carried], 0);
  builder_.CreateBr(exit);
  builder_.SetInsertPoint(exit);
  for (unsigned i = 0; i < numIters; ++i) {
    Values merged;
    const Values &init = get(op.operand(i + 3));
    for (unsigned e = 0; e < init.size(); ++e) {
      llvm::PHINode *phi = builder_.CreatePHI(init[e]->getType(), 2);
      phi->addIncoming(init[e], preheader);
      phi->addIncoming(yielded[i][e], drain);
      merged.push_back(phi);
    }
    values_[op.result(i)] = merged;
  }
}

void KernelLowering::lowerIf(const Operation &op) {
  llvm::Value *cond = get(op.operand(0))[0];
  llvm::BasicBlock *thenBlock = llvm::BasicBlock::Create(context_, "if.then", kernel_);
  llvm::BasicBlock *elseBlock = llvm::BasicBlock::Create(context_, "if.else", kernel_);
  llvm::BasicBlock *join = llvm::BasicBlock::Create(context_, "if.join", kernel_);
  builder_.CreateCondBr(cond, thenBlock, elseBlock);
  std::vector<std::pair<llvm::BasicBlock *, const Operation *>> arms;
  for (unsigned r = 0; r < 2; ++r) {
    builder_.SetInsertPoint(r == 0 ? thenBlock : elseBlock);
    if (op.numRegions() > r)
      lowerBlock(op.region(r).block());
    arms.push_back({builder_.GetInsertBlock(),
                    op.numRegions() > r ? op.region(r).block().terminator() : nullptr});
    builder_.CreateBr(join);
  }
  builder_.SetInsertPoint(join);
  for (unsigned i = 0; i < op.numResults(); ++i) {
    const Values &thenValues = get(arms[0].second->operand(i));
    const Values &elseValues = get(arms[1].second->operand(i));
    Values merged;
    for (unsigned e = 0; e < thenValues.size(); ++e) {
      llvm::PHINode *phi = builder_.CreatePHI(thenValues[e]->getType(), 2);
      phi->addIncoming(thenValues[e], arms[0].first);
      phi->addIncoming(elseValues.at(e), arms[1].first);
      merged.push_back(phi);
    }
    values_[op.result(i)] = merged;
  }
}

void KernelLowering::lowerWhile(const Operation &op) {
  const tir::Block &before = op.region(0).block();
  const tir::Block &after = op.region(1).block();
  llvm::BasicBlock *preheader = builder_.GetInsertBlock();
  llvm::BasicBlock *beforeBlock = llvm::BasicBlock::Create(context_, "while.before", kernel_);
  llvm::BasicBlock *afterBlock = llvm::BasicBlock::Create(context_, "while.after", kernel_);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(context_, "while.exit", kernel_);
  builder_.CreateBr(beforeBlock);
  builder_.SetInsertPoint(beforeBlock);
  if (usesSharedMemory(before) || usesSharedMemory(after))
    sharedInUse_ = true; // the previous iteration's readers
  std::vector<std::vector<llvm::PHINode *>> phis(op.numOperands());
  for (unsigned i = 0; i < op.numOperands(); ++i) {
    Values phiValues;
    for (llvm::Value *init : get(op.operand(i))) {
      llvm::PHINode *phi = builder_.CreatePHI(init->getType(), 2);
      phi->addIncoming(init, preheader);
      phis[i].push_back(phi);
      phiValues.push_back(phi);
    }
    values_[before.argument(i)] = phiValues;
  }
  lowerBlock(before);
  const Operation *condition = before.terminator();
  for (unsigned i = 0; i + 1 < condition->numOperands(); ++i) {
    values_[after.argument(i)] = get(condition->operand(i + 1));
    values_[op.result(i)] = get(condition->operand(i + 1));
  }
  builder_.CreateCondBr(get(condition->operand(0))[0], afterBlock, exit);
  builder_.SetInsertPoint(afterBlock);
  lowerBlock(after);
  const Operation *yield = after.terminator();
  llvm::BasicBlock *latch = builder_.GetInsertBlock();
  for (unsigned i = 0; i < op.numOperands(); ++i) {
    const Values &yielded = get(yield->operand(i));
    for (unsigned e = 0; e < phis[i].size(); ++e)
      phis[i][e]->addIncoming(yielded.at(e), latch);
  }
  builder_.CreateBr(beforeBlock);
  builder_.SetInsertPoint(exit);
}

} // namespace detail

/// Lowers `functions`, all of `module`, into one LLVM module. The choices that hold for a whole
/// module (shared pointers' width, global_smem's presence and alignment) are made for all of
/// `module`, so that a function lowered alone gets the code it gets among the others.
static std::unique_ptr<llvm::Module>
lowerFunctions(const tir::Module &module, const std::vector<const tir::Function *> &functions,
               llvm::LLVMContext &context, const TargetOptions &options,
               std::vector<KernelInfo> *kernels) {
  auto llvmModule = std::make_unique<llvm::Module>("tilec", context);
  bool needsShared = false, tensorCoreTiles = false, wgmma = false;
  for (const auto &function : module.functions) {
    checkSharedMemoryLimit(*function, options);
    needsShared |= sharedMemoryBytes(*function) > 0;
    tir::walk(*function, [&](tir::Operation &op) {
      tensorCoreTiles |= gpu::isTensorCoreDot(op) || op.code() == tir::OpCode::TmaStore;
      wgmma |= gpu::isWgmmaDot(op);
    });
  }
  // Shared-memory pointers of 32 bits, as Triton's (nvptx-short-ptr): 64-bit ones take two
  // registers and two instructions per add; flash attention's mma.sync loop at D128 spilled at 255
  // registers with them (none with 32-bit ones, and 4-warp attention at D64 runs 20 % faster on
  // the H200). Except in wgmma kernels, where they measured slower: there shared addresses are
  // only cp.async's destinations (32-bit already) and the matrix descriptors, yet ptxas scheduled
  // the 128x128x32 GEMM's copies worse with them (0.97 -> 0.87x Triton, H200, session 9).
  std::unique_ptr<llvm::TargetMachine> machine = createNVPTXTargetMachine(options, !wgmma);
  setTargetTriple(*llvmModule, kNVPTXTriple);
  llvmModule->setDataLayout(machine->createDataLayout());
  llvm::GlobalVariable *shared = nullptr;
  if (needsShared) {
    // Dynamic shared memory, as Triton's global_smem: sized at launch.
    auto *type = llvm::ArrayType::get(llvm::Type::getInt8Ty(context), 0);
    shared = new llvm::GlobalVariable(*llvmModule, type, false, llvm::GlobalValue::ExternalLinkage,
                                      nullptr, "global_smem", nullptr,
                                      llvm::GlobalValue::NotThreadLocal, 3);
    // Tensor-core tiles are placed at multiples of up to 1024 bytes from here (SharedMemory.h:
    // pipelineSlotAlignment), and their addresses rely on it.
    shared->setAlignment(llvm::Align(tensorCoreTiles ? 1024 : 16));
  }
  for (const tir::Function *function : functions) {
    detail::KernelLowering lowering(*function, *llvmModule, options);
    lowering.setSharedMemory(shared);
    lowering.run();
    if (kernels)
      kernels->push_back({function->name(), function->numWarps, sharedMemoryBytes(*function)});
  }
  return llvmModule;
}

std::unique_ptr<llvm::Module> lowerToLLVM(const tir::Module &module, llvm::LLVMContext &context,
                                          const TargetOptions &options,
                                          std::vector<KernelInfo> *kernels) {
  std::vector<const tir::Function *> functions;
  for (const auto &function : module.functions)
    functions.push_back(function.get());
  return lowerFunctions(module, functions, context, options, kernels);
}

std::unique_ptr<llvm::Module> lowerFunctionToLLVM(const tir::Module &module,
                                                  const tir::Function &function,
                                                  llvm::LLVMContext &context,
                                                  const TargetOptions &options) {
  return lowerFunctions(module, {&function}, context, options, nullptr);
}

} // namespace tilec::codegen
