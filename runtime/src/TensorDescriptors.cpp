//===- TensorDescriptors.cpp - TensorDescriptor launch arguments ----------===//
//
// A `tensordesc<T[...]>` kernel argument is several parameters of the .entry (docs/metadata.md).
// A caller may pass them one by one, or one TensorDescriptor that is checked here as Triton's
// TensorDescriptor constructor checks itself, then expanded; packArguments then checks each
// parameter as usual (the base's element type and alignment, the strides' divisibility).
//
//===----------------------------------------------------------------------===//

#include "tilec/runtime.hpp"

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

} // namespace tilec::rt
