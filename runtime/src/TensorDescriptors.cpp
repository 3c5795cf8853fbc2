//===- TensorDescriptors.cpp - TensorDescriptor launch arguments ----------===//
//
// A `tensordesc<T[...]>` kernel argument is several parameters of the .entry (docs/metadata.md).
// A caller may pass them one by one, or one TensorDescriptor that is checked here as Triton's
// TensorDescriptor constructor checks itself, then expanded; packArguments then checks each
// parameter as usual (the base's element type and alignment, the strides' divisibility).
//
// A kernel that loads a descriptor with TMA also takes CUtensorMaps (KernelInfo::TensorMaps),
// which the launch encodes from the descriptor's parameters once they are packed.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "tilec/runtime.hpp"

#include <cstdio>

namespace tilec::rt {

namespace {

std::string list(const std::vector<int64_t> &values) {
  std::string text;
  for (int64_t v : values)
    text += (text.empty() ? "" : ", ") + std::to_string(v);
  return "[" + text + "]";
}

/// What is wrong with \p desc as the argument of \p info, or "".
std::string checkDescriptor(const TensorDescInfo &info, const TensorDescriptor &desc) {
  size_t rank = info.BlockShape.size();
  if (desc.Shape.size() != rank || desc.Strides.size() != rank || desc.BlockShape.size() != rank)
    return "the kernel takes a rank-" + std::to_string(rank) + " descriptor, got shape " +
           list(desc.Shape) + ", strides " + list(desc.Strides) + ", block shape " +
           list(desc.BlockShape);
  if (desc.BlockShape != info.BlockShape)
    return "the kernel was compiled for block shape " + list(info.BlockShape) + ", got " +
           list(desc.BlockShape);
  if (desc.Base.kind() != Arg::Kind::Pointer)
    return "its base must be a device pointer, got " + desc.Base.describe();
  if (desc.Strides.back() != 1)
    return "the last stride must be 1 (the last dimension contiguous), got " +
           std::to_string(desc.Strides.back());
  for (int64_t d : desc.Shape)
    if (d < 0)
      return "the shape must not be negative, got " + list(desc.Shape);
  return "";
}

} // namespace

std::vector<Arg> expandTensorDescriptors(const KernelInfo &kernel, const Arg *args, size_t count) {
  std::vector<Arg> flat;
  flat.reserve(kernel.Params.size());
  for (size_t i = 0; i < count; ++i) {
    const TensorDescriptor *desc = args[i].descriptor();
    if (!desc) {
      flat.push_back(args[i]);
      continue;
    }
    const TensorDescInfo *info = nullptr;
    for (const TensorDescInfo &candidate : kernel.TensorDescriptors)
      if (candidate.FirstParam == flat.size())
        info = &candidate;
    std::string where = kernel.Name + ": argument " + std::to_string(i) + " (a TensorDescriptor)";
    if (!info)
      throw Error(where + " meets parameter " + std::to_string(flat.size()) +
                  (flat.size() < kernel.Params.size()
                       ? " (" + kernel.Params[flat.size()].Name + ": " +
                             kernel.Params[flat.size()].Type.str() + ")"
                       : "") +
                  ", which is not the first of a tensordesc<...> argument");
    std::string problem = checkDescriptor(*info, *desc);
    if (!problem.empty())
      throw Error(where + " for " + info->Name + ": " + problem);
    flat.push_back(desc->Base);
    for (int64_t d : desc->Shape)
      flat.push_back(Arg(static_cast<long long>(d)));
    for (int64_t s : desc->Strides)
      flat.push_back(Arg(static_cast<long long>(s)));
    flat.push_back(Arg(desc->PaddingOption == TensorDescriptor::Padding::Nan));
  }
  return flat;
}

namespace {

// The values of the enums as the contract gives them (docs/metadata.md): the cuda.h we build
// with must agree, since the PTX and other launchers (bench/tensormap.py) use the numbers.
static_assert(CU_TENSOR_MAP_DATA_TYPE_UINT8 == 0 && CU_TENSOR_MAP_DATA_TYPE_UINT16 == 1 &&
              CU_TENSOR_MAP_DATA_TYPE_UINT32 == 2 && CU_TENSOR_MAP_DATA_TYPE_INT32 == 3 &&
              CU_TENSOR_MAP_DATA_TYPE_UINT64 == 4 && CU_TENSOR_MAP_DATA_TYPE_INT64 == 5 &&
              CU_TENSOR_MAP_DATA_TYPE_FLOAT16 == 6 && CU_TENSOR_MAP_DATA_TYPE_FLOAT32 == 7 &&
              CU_TENSOR_MAP_DATA_TYPE_FLOAT64 == 8 && CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 == 9);
static_assert(CU_TENSOR_MAP_SWIZZLE_32B == 1 && CU_TENSOR_MAP_SWIZZLE_64B == 2 &&
              CU_TENSOR_MAP_SWIZZLE_128B == 3 && CU_TENSOR_MAP_L2_PROMOTION_L2_128B == 2 &&
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA == 1);

CUtensorMapDataType tensorMapDataType(DType element) {
  switch (element) {
  case DType::FP16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::FP32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case DType::FP64:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  case DType::I16:
  case DType::U16:
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  case DType::I32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case DType::U32:
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  case DType::I64:
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  case DType::U64:
    return CU_TENSOR_MAP_DATA_TYPE_UINT64;
  default: // i8, u8, fp8e4nv, fp8e5, fp8e4b15 (i1 is refused when the metadata is read)
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
}

CUtensorMapSwizzle tensorMapSwizzle(unsigned bytes) {
  switch (bytes) {
  case 32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case 64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case 128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  default:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

/// The signed integer a packed slot holds for an integer parameter of \p type.
int64_t slotInteger(const ParamType &type, uint64_t slot) {
  switch (dtypeBytes(type.Element)) {
  case 1:
    return isSignedInteger(type.Element) ? int64_t(int8_t(slot)) : int64_t(uint8_t(slot));
  case 2:
    return isSignedInteger(type.Element) ? int64_t(int16_t(slot)) : int64_t(uint16_t(slot));
  case 4:
    return isSignedInteger(type.Element) ? int64_t(int32_t(slot)) : int64_t(uint32_t(slot));
  default:
    return static_cast<int64_t>(slot);
  }
}

std::string hexAddress(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

} // namespace

bool tensorMapFillsNan(DType element) {
  return element == DType::FP16 || element == DType::BF16 || element == DType::FP32 ||
         element == DType::FP64;
}

TensorMapEncodeArgs tensorMapEncodeArgs(const KernelInfo &kernel, size_t mapIndex,
                                        const uint64_t *slots) {
  const TensorMapInfo &map = kernel.TensorMaps.at(mapIndex);
  const TensorDescInfo &desc = kernel.TensorDescriptors.at(map.Descriptor);
  size_t rank = map.Box.size();
  uint64_t bytes = dtypeBytes(map.Element);
  auto fail = [&](size_t param, const std::string &value, const std::string &problem) {
    const ParamInfo &info = kernel.Params[param];
    throw Error(kernel.Name + ": argument " + std::to_string(param) + " (" + info.Name + ": " +
                info.Type.str() + ") is " + value + "; the kernel was compiled to load tensor " +
                "descriptor " + desc.Name + " with TMA, " + problem);
  };

  TensorMapEncodeArgs args;
  args.DataType = tensorMapDataType(map.Element);
  args.Rank = static_cast<uint32_t>(rank);
  size_t base = desc.FirstParam;
  args.GlobalAddress = slots[base];
  if (args.GlobalAddress % 16)
    fail(base, hexAddress(args.GlobalAddress), "which needs a 16-byte aligned base");
  for (size_t d = 0; d < rank; ++d) { // d: outermost first, as the metadata lists them
    size_t param = base + 1 + d;
    int64_t size = slotInteger(kernel.Params[param].Type, slots[param]);
    if (size < 1)
      fail(param, std::to_string(size),
           "and a TMA-loaded descriptor cannot have an empty dimension (each must be at least 1)");
    if (static_cast<uint64_t>(size) > (uint64_t(1) << 32))
      fail(param, std::to_string(size), "which allows at most 2^32 elements per dimension");
    args.GlobalDim[rank - 1 - d] = static_cast<uint64_t>(size);
    args.BoxDim[rank - 1 - d] = map.Box[d];
    args.ElementStrides[d] = 1;
  }
  for (size_t d = 0; d + 1 < rank; ++d) {
    size_t param = base + 1 + rank + d;
    int64_t stride = slotInteger(kernel.Params[param].Type, slots[param]);
    std::string value = std::to_string(stride);
    if (stride < 0)
      fail(param, value, "which cannot describe negative strides");
    if (static_cast<uint64_t>(stride) >= (uint64_t(1) << 40) / bytes)
      fail(param, value + " (" + std::to_string(bytes) + "-byte elements)",
           "which needs every stride but the last below 2^40 bytes");
    uint64_t strideBytes = static_cast<uint64_t>(stride) * bytes;
    if (strideBytes % 16)
      fail(param, value + " (" + std::to_string(strideBytes) + " bytes)",
           "which needs every stride but the last a multiple of 16 bytes");
    args.GlobalStrides[rank - 2 - d] = strideBytes;
  }
  args.Swizzle = tensorMapSwizzle(map.Swizzle);
  // Without "fill", the descriptor's padding_nan (its last parameter) decides; integer and fp8
  // descriptors pad with zeros whatever it says.
  size_t padding = base + 1 + 2 * rank;
  bool nan = map.FillNan ? *map.FillNan
                         : slotInteger(kernel.Params[padding].Type, slots[padding]) != 0 &&
                               tensorMapFillsNan(map.Element);
  args.OobFill =
      nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  return args;
}

void encodeTensorMap(const TensorMapEncodeArgs &args, CUtensorMap &map, const std::string &what) {
  const driver::Api &cu = driver::api();
  if (!cu.cuTensorMapEncodeTiled)
    throw Error(what + ": the CUDA driver lacks cuTensorMapEncodeTiled (TMA tensor maps need a "
                       "CUDA 12.0 driver or later)");
  CUresult result = cu.cuTensorMapEncodeTiled(
      &map, args.DataType, args.Rank, reinterpret_cast<void *>(args.GlobalAddress),
      args.GlobalDim.data(), args.GlobalStrides.data(), args.BoxDim.data(),
      args.ElementStrides.data(), args.Interleave, args.Swizzle, args.L2Promotion, args.OobFill);
  if (result == CUDA_SUCCESS)
    return;
  std::string dims, strides, box;
  for (uint32_t d = 0; d < args.Rank; ++d) {
    dims += (d ? ", " : "") + std::to_string(args.GlobalDim[d]);
    box += (d ? ", " : "") + std::to_string(args.BoxDim[d]);
    if (d + 1 < args.Rank)
      strides += (d ? ", " : "") + std::to_string(args.GlobalStrides[d]);
  }
  driver::fail(result, "cuTensorMapEncodeTiled",
               what + ": data type " + std::to_string(args.DataType) + ", address " +
                   hexAddress(args.GlobalAddress) + ", dims (innermost first) [" + dims +
                   "], strides [" + strides + "] bytes, box [" + box + "], swizzle " +
                   std::to_string(args.Swizzle) + ", fill " + std::to_string(args.OobFill));
}

} // namespace tilec::rt
