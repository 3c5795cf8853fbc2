// device_print through vprintf and device_assert through __assertfail. Only the thread that owns
// an element prints or checks it (a scalar: thread 0), so each element is reported once per
// program, in the interpreter's format:
//   pid (x, y, z) idx (i, j)<prefix><value>
// with floats printed by %f (fp16/bf16 widened), integers by %d/%u/%lld/%llu, pointers by %p.
#include "codegen/KernelLowering.h"

namespace tilec::codegen::detail {
namespace {

/// Triton's frontend turns device_print's prefix into " prefix: " (a leading space when longer
/// than two characters, ": " at the end when there are values); the interpreter does the same.
std::string normalisePrintPrefix(std::string prefix, bool hasValues) {
  if (hasValues && (prefix.empty() || prefix.back() != ' '))
    prefix += " ";
  if (hasValues && (prefix.size() < 2 || prefix.compare(prefix.size() - 2, 2, ": ") != 0))
    prefix = prefix.substr(0, prefix.size() - 1) + ": ";
  if (prefix.size() > 2 && prefix.front() != ' ')
    prefix = " " + prefix;
  return prefix;
}

/// `text` as literal text of a printf format.
std::string escapeFormat(const std::string &text) {
  std::string escaped;
  for (char c : text) {
    escaped += c;
    if (c == '%')
      escaped += '%';
  }
  return escaped;
}

std::string stringAttr(const Operation &op, const char *name) {
  if (op.hasAttr(name) && std::holds_alternative<std::string>(op.attr(name)))
    return op.strAttr(name);
  return "";
}

} // namespace

llvm::Value *KernelLowering::globalString(const std::string &text, const std::string &name) {
  return builder_.CreateGlobalStringPtr(text, name, 0, &module_);
}

void KernelLowering::ifThen(llvm::Value *cond, const std::function<void()> &body) {
  llvm::BasicBlock *then = llvm::BasicBlock::Create(context_, "then", kernel_);
  llvm::BasicBlock *join = llvm::BasicBlock::Create(context_, "join", kernel_);
  builder_.CreateCondBr(cond, then, join);
  builder_.SetInsertPoint(then);
  body();
  builder_.CreateBr(join);
  builder_.SetInsertPoint(join);
}

void KernelLowering::lowerPrint(const Operation &op) {
  std::string prefix =
      escapeFormat(normalisePrintPrefix(stringAttr(op, "prefix"), op.numOperands() > 0));
  auto *ptrType = llvm::PointerType::get(context_, 0);
  llvm::FunctionCallee vprintf = module_.getOrInsertFunction(
      "vprintf", llvm::FunctionType::get(builder_.getInt32Ty(), {ptrType, ptrType}, false));
  Values pid;
  for (auto id :
       {llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
        llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z})
    pid.push_back(intrinsic(id, {}, {}));

  // One vprintf: the format and the arguments, packed as C varargs are (naturally aligned,
  // integers of 32 bits or more, floats as doubles).
  auto emit = [&](const std::string &format, const Values &args) {
    std::vector<llvm::Type *> fields;
    for (llvm::Value *a : args)
      fields.push_back(a->getType());
    auto *bufferType = llvm::StructType::get(context_, fields);
    llvm::Value *buffer = prologue_.CreateAlloca(bufferType);
    for (unsigned i = 0; i < args.size(); ++i)
      builder_.CreateStore(args[i], builder_.CreateStructGEP(bufferType, buffer, i));
    builder_.CreateCall(vprintf, {globalString(format, "printf_format"), buffer});
  };
  std::string pidFormat = "pid (%u, %u, %u)";
  if (op.numOperands() == 0) {
    ifThen(isThreadZero(), [&] { emit(pidFormat + prefix + "\n", pid); });
    return;
  }
  for (unsigned k = 0; k < op.numOperands(); ++k) {
    const tir::Type &type = op.operand(k)->type();
    const DType &elem = type.elem;
    std::string valueFormat;
    if (elem.isPointer())
      valueFormat = "%p";
    else if (elem.isFloat() && !elem.isFp8())
      valueFormat = "%f";
    else if (elem.isInteger() || elem.isBool())
      valueFormat = elem.bits() == 64 ? (elem.isUnsigned() ? "%llu" : "%lld")
                                      : (elem.isUnsigned() ? "%u" : "%d");
    else
      unsupported(op, "'print' of " + elem.str());
    auto widen = [&](llvm::Value *v) -> llvm::Value * {
      if (elem.isFloat())
        return builder_.CreateFPExt(v, builder_.getDoubleTy());
      if (elem.isPointer() || elem.bits() >= 32)
        return v;
      return elem.isUnsigned() || elem.isBool() ? builder_.CreateZExt(v, builder_.getInt32Ty())
                                                : builder_.CreateSExt(v, builder_.getInt32Ty());
    };
    std::string operandTag =
        op.numOperands() > 1 ? "(operand " + std::to_string(k) + ") " : std::string();
    std::optional<Distribution> dist = distributionIfTensor(type);
    std::string indexFormat = " idx (";
    for (unsigned d = 0; dist && d < dist->rank(); ++d)
      indexFormat += d == 0 ? "%u" : ", %u";
    indexFormat += ")";
    std::string format = pidFormat + indexFormat + prefix + operandTag + valueFormat + "\n";
    const Values &values = get(op.operand(k));
    for (unsigned e = 0; e < values.size(); ++e) {
      Values args = pid;
      if (dist) {
        std::vector<unsigned> index = dist->multiIndex(e);
        for (unsigned d = 0; d < dist->rank(); ++d)
          args.push_back(coordinate(*dist, d, index[d]));
      }
      args.push_back(widen(values[e]));
      ifThen(ownsResultOf(dist, e), [&] { emit(format, args); });
    }
  }
}

void KernelLowering::lowerAssert(const Operation &op) {
  const tir::Type &type = op.operand(0)->type();
  std::string message = stringAttr(op, "message");
  if (message.empty())
    message = "device_assert failed";
  std::string file = "<unknown>";
  if (options_.sources && op.loc().isValid())
    file = options_.sources->file(op.loc().file).name;
  auto *ptrType = llvm::PointerType::get(context_, 0);
  llvm::FunctionCallee assertfail = module_.getOrInsertFunction(
      "__assertfail",
      llvm::FunctionType::get(
          builder_.getVoidTy(),
          {ptrType, ptrType, builder_.getInt32Ty(), ptrType, builder_.getInt64Ty()}, false));
  std::optional<Distribution> dist = distributionIfTensor(type);
  const Values &conditions = get(op.operand(0));
  for (unsigned e = 0; e < conditions.size(); ++e) {
    llvm::Value *cond = conditions[e];
    if (!cond->getType()->isIntegerTy(1))
      cond = builder_.CreateICmpNE(cond, llvm::Constant::getNullValue(cond->getType()));
    llvm::Value *fails = builder_.CreateAnd(builder_.CreateNot(cond), ownsResultOf(dist, e));
    ifThen(fails, [&] {
      builder_.CreateCall(
          assertfail, {globalString(message, "assert_message"), globalString(file, "assert_file"),
                       builder_.getInt32(op.loc().line),
                       globalString(function_.name(), "assert_function"), builder_.getInt64(1)});
    });
  }
}

} // namespace tilec::codegen::detail
