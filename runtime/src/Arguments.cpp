//===- Arguments.cpp - Check launch arguments against the metadata --------===//
//
// The rules are documented on packArguments in tilec/runtime.hpp. In short: no conversion that
// can change a value. Integers convert when the value fits, since C++ callers naturally pass
// int or size_t; floating-point values only widen; nothing crosses between integer and floating
// point, and pointers stay pointers.
//
//===----------------------------------------------------------------------===//

#include "tilec/runtime.hpp"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <limits>

namespace tilec::rt {

namespace {
std::string hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}
} // namespace

Arg::Arg(float value) : ArgKind(Kind::Float), Type(DType::FP32) {
  double widened = value; // exact
  std::memcpy(&Bits, &widened, sizeof Bits);
}

Arg::Arg(double value) : ArgKind(Kind::Float), Type(DType::FP64) {
  std::memcpy(&Bits, &value, sizeof Bits);
}

Arg Arg::exact(DType type, uint64_t bits) {
  unsigned width = 8 * dtypeBytes(type);
  uint64_t mask = width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  if (type == DType::I1)
    mask = 1;
  if (bits & ~mask)
    throw Error("Arg::exact: " + hex(bits) + " has more bits than " + std::string(dtypeName(type)) +
                " holds");
  return Arg(Kind::Exact, type, bits);
}

std::string Arg::describe() const {
  switch (ArgKind) {
  case Kind::Pointer:
    return HasElementType ? "pointer to " + std::string(dtypeName(Type)) : "untyped pointer";
  case Kind::Bool:
    return "bool value";
  case Kind::Exact:
    return "exact " + std::string(dtypeName(Type)) + " value";
  case Kind::Descriptor:
    return "tensor descriptor";
  default:
    return std::string(dtypeName(Type)) + " value";
  }
}

namespace {

/// The integer an Arg holds, as text, for messages.
std::string integerText(const Arg &arg) {
  if (arg.kind() == Arg::Kind::Signed)
    return std::to_string(static_cast<int64_t>(arg.bits()));
  return std::to_string(arg.bits());
}

/// Whether an integer argument's value is representable in the integer type \p type.
bool fitsIn(const Arg &arg, DType type) {
  bool negative = arg.kind() == Arg::Kind::Signed && static_cast<int64_t>(arg.bits()) < 0;
  if (type == DType::I1)
    return arg.bits() <= 1;
  unsigned width = 8 * dtypeBytes(type);
  if (isUnsignedInteger(type)) {
    if (negative)
      return false;
    return width == 64 || arg.bits() < (uint64_t(1) << width);
  }
  // Signed parameter: [-2^(width-1), 2^(width-1) - 1].
  int64_t max = width == 64 ? std::numeric_limits<int64_t>::max()
                            : static_cast<int64_t>((uint64_t(1) << (width - 1)) - 1);
  if (!negative)
    return arg.bits() <= static_cast<uint64_t>(max);
  return static_cast<int64_t>(arg.bits()) >= -max - 1;
}

/// Writes the low dtypeBytes(type) bytes of \p bits, as a value of that type, at the start of
/// the slot; the rest of the slot stays zero. memcpy of the narrowed value keeps this right
/// on any byte order.
void store(uint64_t *slot, DType type, uint64_t bits) {
  *slot = 0;
  switch (dtypeBytes(type)) {
  case 1: {
    uint8_t value = static_cast<uint8_t>(bits);
    std::memcpy(slot, &value, sizeof value);
    return;
  }
  case 2: {
    uint16_t value = static_cast<uint16_t>(bits);
    std::memcpy(slot, &value, sizeof value);
    return;
  }
  case 4: {
    uint32_t value = static_cast<uint32_t>(bits);
    std::memcpy(slot, &value, sizeof value);
    return;
  }
  default:
    *slot = bits;
  }
}

bool pointerElementMatches(DType parameter, DType argument) {
  if (parameter == argument)
    return true;
  // Triton stores i1 tensors one byte per element; bool, int8 and uint8 buffers all hold them.
  return parameter == DType::I1 && (argument == DType::I8 || argument == DType::U8);
}

/// Checks one argument and stores it; returns an empty string or what is wrong with it.
std::string packOne(const ParamInfo &param, const Arg &arg, uint64_t *slot) {
  const ParamType &type = param.Type;
  if (arg.kind() == Arg::Kind::Descriptor)
    return "got a TensorDescriptor where no tensordesc<...> argument starts";
  if (type.IsPointer) {
    if (arg.kind() != Arg::Kind::Pointer)
      return "expected a device pointer (CUdeviceptr, T*, DevicePtr<T>), got " + arg.describe();
    if (arg.hasElementType() && !pointerElementMatches(type.Element, arg.dtype()))
      return "expected a pointer to " + std::string(dtypeName(type.Element)) + ", got " +
             arg.describe() + " (pass a CUdeviceptr to skip this check)";
    if (param.Alignment && arg.bits() % param.Alignment)
      return "the kernel was compiled for " + std::to_string(param.Alignment) +
             "-byte aligned pointers, and " + hex(arg.bits()) + " is not";
    *slot = arg.bits();
    return "";
  }

  DType element = type.Element;
  if (arg.kind() == Arg::Kind::Exact) {
    if (arg.dtype() != element)
      return "expected " + type.str() + ", got " + arg.describe();
    store(slot, element, arg.bits());
    return "";
  }
  if (arg.kind() == Arg::Kind::Pointer)
    return "expected " + type.str() + ", got " + arg.describe();

  if (isInteger(element)) {
    if (arg.kind() == Arg::Kind::Float)
      return "expected " + type.str() + ", got " + arg.describe() +
             " (floating-point values are not converted to integers)";
    if (arg.kind() == Arg::Kind::Bool && element != DType::I1)
      return "expected " + type.str() + ", got a bool (bool goes to i1 parameters)";
    if (!fitsIn(arg, element))
      return "the " + arg.describe() + " " + integerText(arg) + " does not fit in " + type.str();
    if (param.Divisibility) {
      // Divisibility of the value as the kernel sees it, i.e. of the signed/unsigned integer.
      bool divisible = arg.kind() == Arg::Kind::Signed
                           ? static_cast<int64_t>(arg.bits()) % param.Divisibility == 0
                           : arg.bits() % param.Divisibility == 0;
      if (!divisible)
        return "the kernel was compiled for values divisible by " +
               std::to_string(param.Divisibility) + ", and " + integerText(arg) + " is not";
    }
    store(slot, element, arg.bits());
    return "";
  }

  // Floating-point parameters.
  if (arg.kind() != Arg::Kind::Float)
    return "expected " + type.str() + ", got " + arg.describe() +
           " (integers are not converted to floating point)";
  if (element == DType::FP64) {
    *slot = arg.bits(); // floats were widened exactly on construction
    return "";
  }
  if (element == DType::FP32) {
    if (arg.dtype() != DType::FP32)
      return "expected fp32, got an fp64 value (narrow it explicitly with static_cast<float>)";
    uint64_t raw = arg.bits();
    double value;
    std::memcpy(&value, &raw, sizeof value);
    float narrowed = static_cast<float>(value); // exact: it was a float
    uint32_t bits;
    std::memcpy(&bits, &narrowed, sizeof bits);
    store(slot, DType::FP32, bits);
    return "";
  }
  std::string enumerator(dtypeName(element));
  for (char &c : enumerator)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "expected " + type.str() + ", got " + arg.describe() + " (C++ has no " + type.str() +
         " type: pass Arg::exact(DType::" + enumerator + ", bits))";
}

std::string parameterList(const KernelInfo &kernel) {
  std::string list;
  for (size_t i = 0; i < kernel.Params.size(); ++i)
    list += (i ? ", " : "") + kernel.Params[i].Name + ": " + kernel.Params[i].Type.str();
  return list;
}

} // namespace

void packArguments(const KernelInfo &kernel, const Arg *args, size_t count, uint64_t *slots) {
  if (count != kernel.Params.size())
    throw Error(kernel.Name + ": expected " + std::to_string(kernel.Params.size()) + " argument" +
                (kernel.Params.size() == 1 ? "" : "s") + " (" + parameterList(kernel) + "), got " +
                std::to_string(count));
  for (size_t i = 0; i < count; ++i) {
    const ParamInfo &param = kernel.Params[i];
    std::string problem = packOne(param, args[i], &slots[i]);
    if (!problem.empty())
      throw Error(kernel.Name + ": argument " + std::to_string(i) + " (" + param.Name + ": " +
                  param.Type.str() + "): " + problem);
  }
  // The kernel takes a descriptor's last stride to be 1 (Triton's TensorDescriptor asserts it).
  for (const TensorDescInfo &desc : kernel.TensorDescriptors) {
    size_t last = desc.FirstParam + 2 * desc.BlockShape.size();
    if (args[last].kind() != Arg::Kind::Exact && args[last].bits() != 1)
      throw Error(kernel.Name + ": argument " + std::to_string(last) + " (" +
                  kernel.Params[last].Name +
                  "): the last stride of a tensor descriptor must be "
                  "1, got " +
                  integerText(args[last]));
  }
}

} // namespace tilec::rt
