//===- Metadata.cpp - Read and validate tilec metadata files --------------===//
//
// The schema is docs/metadata.md. Validation is strict about everything a launch relies on
// (types, alignments, warps, shared memory) so that a bad file fails here, with its location,
// rather than as a wrong launch. Members this version does not know are ignored, so that later
// compilers can add information without breaking older runtimes.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "Json.h"
#include "tilec/runtime.hpp"

#include <cstdlib>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

namespace tilec::rt {

namespace {
struct DTypeName {
  DType Type;
  std::string_view Name;
  unsigned Bytes;
};
constexpr DTypeName DTypeNames[] = {
    {DType::I1, "i1", 1},       {DType::I8, "i8", 1},
    {DType::I16, "i16", 2},     {DType::I32, "i32", 4},
    {DType::I64, "i64", 8},     {DType::U8, "u8", 1},
    {DType::U16, "u16", 2},     {DType::U32, "u32", 4},
    {DType::U64, "u64", 8},     {DType::FP16, "fp16", 2},
    {DType::BF16, "bf16", 2},   {DType::FP32, "fp32", 4},
    {DType::FP64, "fp64", 8},   {DType::FP8E4NV, "fp8e4nv", 1},
    {DType::FP8E5, "fp8e5", 1}, {DType::FP8E4B15, "fp8e4b15", 1},
};

const DTypeName &entryOf(DType type) {
  for (const DTypeName &entry : DTypeNames)
    if (entry.Type == type)
      return entry;
  return DTypeNames[0]; // unreachable: the table covers the enum
}
} // namespace

std::string_view dtypeName(DType type) {
  return entryOf(type).Name;
}
unsigned dtypeBytes(DType type) {
  return entryOf(type).Bytes;
}

std::optional<DType> parseDType(std::string_view name) {
  for (const DTypeName &entry : DTypeNames)
    if (entry.Name == name)
      return entry.Type;
  return std::nullopt;
}

bool isSignedInteger(DType type) {
  return type == DType::I8 || type == DType::I16 || type == DType::I32 || type == DType::I64;
}
bool isUnsignedInteger(DType type) {
  return type == DType::U8 || type == DType::U16 || type == DType::U32 || type == DType::U64;
}
bool isInteger(DType type) {
  return type == DType::I1 || isSignedInteger(type) || isUnsignedInteger(type);
}
bool isFloatingPoint(DType type) {
  return !isInteger(type);
}

std::string ParamType::str() const {
  std::string name(dtypeName(Element));
  return IsPointer ? "*" + name : name;
}

std::optional<ParamType> ParamType::parse(std::string_view text) {
  ParamType type;
  if (!text.empty() && text.front() == '*') {
    type.IsPointer = true;
    text.remove_prefix(1);
  }
  std::optional<DType> element = parseDType(text);
  if (!element)
    return std::nullopt;
  type.Element = *element;
  return type;
}

const ConstexprInfo *KernelInfo::findConstexpr(std::string_view name) const {
  for (const ConstexprInfo &constexprInfo : Constexprs)
    if (constexprInfo.Name == name)
      return &constexprInfo;
  return nullptr;
}

int64_t KernelInfo::intConstexpr(std::string_view name) const {
  const ConstexprInfo *c = findConstexpr(name);
  if (!c)
    throw Error("kernel " + Name + " (entry " + Entry + ") has no constexpr " + std::string(name));
  char *end = nullptr;
  long long value = std::strtoll(c->Value.c_str(), &end, 10);
  if (c->Value.empty() || *end)
    throw Error("kernel " + Name + ": constexpr " + std::string(name) + " is " + c->Value +
                ", not an integer");
  return value;
}

const KernelInfo *Metadata::findKernel(std::string_view name) const {
  for (const KernelInfo &kernel : Kernels)
    if (kernel.Name == name)
      return &kernel;
  return nullptr;
}

const KernelInfo &Metadata::kernel(std::string_view name) const {
  if (const KernelInfo *kernel = findKernel(name))
    return *kernel;
  std::string message = "no kernel named '" + std::string(name) + "' in the metadata";
  if (!Source.empty())
    message += " of " + Source;
  if (Kernels.empty())
    throw Error(message + " (it has no kernels)");
  message += "; available: ";
  for (size_t i = 0; i < Kernels.size(); ++i)
    message += (i ? ", " : "") + Kernels[i].Name;
  throw Error(message);
}

namespace {

/// Reads the members of the schema out of the JSON tree, reporting errors as
/// "origin:line:col: path: message".
class MetadataReader {
public:
  explicit MetadataReader(std::string_view origin) : Origin(origin) {}

  Metadata read(const json::Value &root) {
    expectKind(root, json::Value::Kind::Object, "the metadata");
    Metadata metadata;
    const json::Value &schema = requireString(root, "schema", "");
    if (schema.text() != "tilec-metadata")
      fail(schema, "schema", "is \"" + schema.text() + "\", expected \"tilec-metadata\"");
    const json::Value &version = requireMember(root, "version", "");
    std::optional<int64_t> versionNumber = version.asInt64();
    if (!versionNumber || *versionNumber < 1)
      fail(version, "version", "must be a positive integer");
    if (*versionNumber > 4)
      fail(version, "version",
           "is " + version.text() +
               "; this runtime reads versions 1 to 4 (the file was written by a newer tilec)");
    metadata.Version = static_cast<int>(*versionNumber);
    Version = metadata.Version;
    metadata.Compiler = optionalString(root, "compiler", "");
    metadata.Source = optionalString(root, "source", "");
    metadata.Target = requireString(root, "target", "").text();

    const json::Value &kernels = requireMember(root, "kernels", "");
    expectKind(kernels, json::Value::Kind::Array, "kernels");
    std::set<std::string> names, entries;
    for (size_t i = 0; i < kernels.elements().size(); ++i) {
      const json::Value &kernel = kernels.elements()[i];
      std::string path = "kernels[" + std::to_string(i) + "]";
      KernelInfo info = readKernel(kernel, path);
      if (!names.insert(info.Name).second)
        fail(kernel, path, "a second kernel named '" + info.Name + "'");
      if (!entries.insert(info.Entry).second)
        fail(kernel, path, "a second kernel with entry '" + info.Entry + "'");
      metadata.Kernels.push_back(std::move(info));
    }
    return metadata;
  }

private:
  [[noreturn]] void fail(const json::Value &where, const std::string &path,
                         const std::string &message) const {
    throw Error(Origin + ":" + std::to_string(where.location().Line) + ":" +
                std::to_string(where.location().Column) + ": " + (path.empty() ? "" : path + " ") +
                message);
  }

  static std::string join(const std::string &path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }

  void expectKind(const json::Value &value, json::Value::Kind kind, const std::string &path) const {
    if (value.kind() != kind)
      fail(value, path,
           std::string("must be ") + json::Value::kindName(kind) + ", not " +
               json::Value::kindName(value.kind()));
  }

  const json::Value &requireMember(const json::Value &object, std::string_view key,
                                   const std::string &path) const {
    if (const json::Value *member = object.find(key))
      return *member;
    failMissing(object, key, path);
  }

  [[noreturn]] void failMissing(const json::Value &object, std::string_view key,
                                const std::string &path) const {
    fail(object, path.empty() ? "the metadata" : path,
         "has no member \"" + std::string(key) + "\"");
  }

  const json::Value &requireString(const json::Value &object, std::string_view key,
                                   const std::string &path) const {
    const json::Value &value = requireMember(object, key, path);
    expectKind(value, json::Value::Kind::String, join(path, key));
    return value;
  }

  std::string optionalString(const json::Value &object, std::string_view key,
                             const std::string &path) const {
    const json::Value *value = object.find(key);
    if (!value)
      return "";
    expectKind(*value, json::Value::Kind::String, join(path, key));
    return value->text();
  }

  std::string requireName(const json::Value &object, std::string_view key,
                          const std::string &path) const {
    const json::Value &value = requireString(object, key, path);
    if (value.text().empty())
      fail(value, join(path, key), "must not be empty");
    return value.text();
  }

  /// An integer in [min, max]; \p fallback when the member is absent and not required.
  uint32_t readUnsigned(const json::Value &object, std::string_view key, const std::string &path,
                        int64_t min, int64_t max, std::optional<uint32_t> fallback) const {
    const json::Value *value = object.find(key);
    if (!value) {
      if (fallback)
        return *fallback;
      failMissing(object, key, path);
    }
    std::optional<int64_t> number = value->asInt64();
    if (!value->isNumber() || !number)
      fail(*value, join(path, key), "must be an integer");
    if (*number < min || *number > max)
      fail(*value, join(path, key),
           "is " + value->text() + ", outside [" + std::to_string(min) + ", " +
               std::to_string(max) + "]");
    return static_cast<uint32_t>(*number);
  }

  KernelInfo readKernel(const json::Value &kernel, const std::string &path) const {
    expectKind(kernel, json::Value::Kind::Object, path);
    KernelInfo info;
    info.Name = requireName(kernel, "name", path);
    info.Entry = requireName(kernel, "entry", path);
    // 32 warps = 1024 threads, CUDA's limit on a block.
    info.NumWarps = readUnsigned(kernel, "num_warps", path, 1, 32, std::nullopt);
    info.ThreadsPerBlock = readUnsigned(kernel, "threads_per_block", path, 1, 1024, std::nullopt);
    if (info.ThreadsPerBlock != 32 * info.NumWarps)
      fail(*kernel.find("threads_per_block"), join(path, "threads_per_block"),
           "is " + std::to_string(info.ThreadsPerBlock) + ", but num_warps " +
               std::to_string(info.NumWarps) + " means " + std::to_string(32 * info.NumWarps));
    info.SharedMemoryBytes =
        readUnsigned(kernel, "shared_memory_bytes", path, 0, INT32_MAX, std::nullopt);

    const json::Value &params = requireMember(kernel, "params", path);
    expectKind(params, json::Value::Kind::Array, join(path, "params"));
    std::set<std::string> paramNames;
    for (size_t i = 0; i < params.elements().size(); ++i) {
      const json::Value &param = params.elements()[i];
      std::string paramPath = path + ".params[" + std::to_string(i) + "]";
      ParamInfo paramInfo = readParam(param, paramPath);
      if (!paramNames.insert(paramInfo.Name).second)
        fail(param, paramPath, "a second parameter named '" + paramInfo.Name + "'");
      info.Params.push_back(std::move(paramInfo));
    }

    // Which runs of params are `tensordesc<...>` arguments (docs/metadata.md).
    if (const json::Value *descriptors = kernel.find("tensor_descriptors")) {
      expectKind(*descriptors, json::Value::Kind::Array, join(path, "tensor_descriptors"));
      for (size_t i = 0; i < descriptors->elements().size(); ++i) {
        const json::Value &entry = descriptors->elements()[i];
        std::string entryPath = path + ".tensor_descriptors[" + std::to_string(i) + "]";
        expectKind(entry, json::Value::Kind::Object, entryPath);
        TensorDescInfo desc;
        desc.Name = requireName(entry, "name", entryPath);
        const json::Value &shape = requireMember(entry, "block_shape", entryPath);
        expectKind(shape, json::Value::Kind::Array, join(entryPath, "block_shape"));
        for (const json::Value &d : shape.elements()) {
          std::optional<int64_t> n = d.asInt64();
          if (!d.isNumber() || !n || *n <= 0)
            fail(d, join(entryPath, "block_shape"), "must hold positive integers");
          desc.BlockShape.push_back(*n);
        }
        if (desc.BlockShape.empty() || desc.BlockShape.size() > 5)
          fail(shape, join(entryPath, "block_shape"), "must have 1 to 5 dimensions");
        desc.FirstParam = readUnsigned(entry, "first_param", entryPath, 0,
                                       static_cast<int64_t>(info.Params.size()), std::nullopt);
        size_t rank = desc.BlockShape.size();
        size_t end = desc.FirstParam + 2 + 2 * rank;
        if (end > info.Params.size() || !info.Params[desc.FirstParam].Type.IsPointer)
          fail(entry, entryPath,
               "does not name a run of params (a pointer, then 2 * rank + 1 scalars)");
        desc.Element = info.Params[desc.FirstParam].Type.Element;
        info.TensorDescriptors.push_back(std::move(desc));
      }
    }

    // The CUtensorMaps of TMA loads, hidden parameters after params. A reader must not ignore
    // them: the .entry takes them.
    if (const json::Value *maps = kernel.find("tensor_maps"))
      info.TensorMaps = readTensorMaps(*maps, join(path, "tensor_maps"), info);
    if (const json::Value *scratch = kernel.find("global_scratch"))
      info.GlobalScratchBytes = readGlobalScratch(*scratch, join(path, "global_scratch"));

    if (const json::Value *constexprs = kernel.find("constexprs")) {
      expectKind(*constexprs, json::Value::Kind::Array, join(path, "constexprs"));
      for (size_t i = 0; i < constexprs->elements().size(); ++i) {
        const json::Value &entry = constexprs->elements()[i];
        std::string entryPath = path + ".constexprs[" + std::to_string(i) + "]";
        expectKind(entry, json::Value::Kind::Object, entryPath);
        ConstexprInfo constexprInfo;
        constexprInfo.Name = requireName(entry, "name", entryPath);
        const json::Value &value = requireMember(entry, "value", entryPath);
        expectKind(value, json::Value::Kind::String, join(entryPath, "value"));
        constexprInfo.Value = value.text();
        info.Constexprs.push_back(std::move(constexprInfo));
      }
    }

    // Version 2: an autotuned kernel's variants, each a kernel of its own with the same
    // parameters (constexprs are not parameters).
    if (const json::Value *variants = kernel.find("variants")) {
      expectKind(*variants, json::Value::Kind::Array, join(path, "variants"));
      if (variants->elements().empty())
        fail(*variants, join(path, "variants"), "must not be empty");
      const json::Value &key = requireMember(kernel, "autotune_key", path);
      expectKind(key, json::Value::Kind::Array, join(path, "autotune_key"));
      for (const json::Value &name : key.elements()) {
        expectKind(name, json::Value::Kind::String, join(path, "autotune_key"));
        bool isParam = false;
        for (const ParamInfo &param : info.Params)
          isParam |= param.Name == name.text();
        if (!isParam)
          fail(name, join(path, "autotune_key"),
               "names '" + name.text() + "', which is not a parameter");
        info.AutotuneKey.push_back(name.text());
      }
      for (size_t i = 0; i < variants->elements().size(); ++i) {
        const json::Value &variant = variants->elements()[i];
        std::string variantPath = path + ".variants[" + std::to_string(i) + "]";
        expectKind(variant, json::Value::Kind::Object, variantPath);
        // The variant's own members over a copy of the kernel's name and parameters.
        KernelInfo v = readVariant(variant, variantPath, info);
        info.Variants.push_back(std::move(v));
      }
    }
    return info;
  }

  /// The `tensor_maps` member of \p kernel, whose params and tensor_descriptors are read.
  std::vector<TensorMapInfo> readTensorMaps(const json::Value &maps, const std::string &path,
                                            const KernelInfo &kernel) const {
    // Version 3's member: a version 1 or 2 reader would ignore it and launch the kernel without
    // its maps, so a file that has it must say version 3.
    if (Version < 3)
      fail(maps, path,
           "is a version 3 member (the .entry takes the maps), and the file says version " +
               std::to_string(Version));
    expectKind(maps, json::Value::Kind::Array, path);
    std::vector<TensorMapInfo> result;
    for (size_t i = 0; i < maps.elements().size(); ++i) {
      const json::Value &entry = maps.elements()[i];
      std::string entryPath = path + "[" + std::to_string(i) + "]";
      expectKind(entry, json::Value::Kind::Object, entryPath);
      TensorMapInfo map;
      if (kernel.TensorDescriptors.empty())
        fail(entry, entryPath, "describes a map of a tensor descriptor, and the kernel has none");
      map.Descriptor =
          readUnsigned(entry, "descriptor", entryPath, 0,
                       static_cast<int64_t>(kernel.TensorDescriptors.size()) - 1, std::nullopt);
      const TensorDescInfo &desc = kernel.TensorDescriptors[map.Descriptor];

      const json::Value &element = requireString(entry, "element", entryPath);
      std::optional<DType> type = parseDType(element.text());
      if (!type || *type == DType::I1)
        fail(element, join(entryPath, "element"),
             "is \"" + element.text() +
                 "\", not an element type of a tensor map (i8 i16 i32 i64 u8 u16 u32 u64 fp16 "
                 "bf16 fp32 fp64 fp8e4nv fp8e5 fp8e4b15)");
      map.Element = *type;
      unsigned bytes = dtypeBytes(map.Element);
      if (bytes != dtypeBytes(desc.Element))
        fail(element, join(entryPath, "element"),
             "is " + element.text() + " (" + std::to_string(bytes) + " bytes), and descriptor " +
                 desc.Name + " holds " + std::string(dtypeName(desc.Element)) + " (" +
                 std::to_string(dtypeBytes(desc.Element)) + " bytes)");

      const json::Value &box = requireMember(entry, "box", entryPath);
      expectKind(box, json::Value::Kind::Array, join(entryPath, "box"));
      for (const json::Value &d : box.elements()) {
        std::optional<int64_t> n = d.asInt64();
        if (!d.isNumber() || !n || *n < 1 || *n > 256)
          fail(d, join(entryPath, "box"), "must hold integers from 1 to 256 (TMA's limit)");
        map.Box.push_back(static_cast<uint32_t>(*n));
      }
      if (map.Box.size() != desc.BlockShape.size())
        fail(box, join(entryPath, "box"),
             "has " + std::to_string(map.Box.size()) + " dimensions, and descriptor " + desc.Name +
                 " has " + std::to_string(desc.BlockShape.size()));
      // TMA copies whole 16-byte chunks of the innermost dimension.
      uint64_t innerBytes = uint64_t(map.Box.back()) * bytes;
      if (innerBytes % 16)
        fail(box, join(entryPath, "box"),
             "has an innermost dimension of " + std::to_string(innerBytes) +
                 " bytes, not a multiple of 16 (TMA's rule)");

      const json::Value *swizzle = entry.find("swizzle");
      map.Swizzle = readUnsigned(entry, "swizzle", entryPath, 0, 128, std::nullopt);
      if (map.Swizzle != 0 && map.Swizzle != 32 && map.Swizzle != 64 && map.Swizzle != 128)
        fail(*swizzle, join(entryPath, "swizzle"),
             "is " + swizzle->text() + ", not 0, 32, 64 or 128 (bytes)");
      if (map.Swizzle && innerBytes > map.Swizzle)
        fail(*swizzle, join(entryPath, "swizzle"),
             "is " + std::to_string(map.Swizzle) + " bytes, less than the box's innermost " +
                 std::to_string(innerBytes) + " bytes (TMA's rule)");

      // Optional (the compiler leaves it out): absent, the launch's padding_nan decides.
      if (const json::Value *fill = entry.find("fill")) {
        expectKind(*fill, json::Value::Kind::String, join(entryPath, "fill"));
        if (fill->text() != "zero" && fill->text() != "nan")
          fail(*fill, join(entryPath, "fill"),
               "is \"" + fill->text() + "\", not \"zero\" or \"nan\"");
        map.FillNan = fill->text() == "nan";
        if (*map.FillNan && !tensorMapFillsNan(map.Element))
          fail(*fill, join(entryPath, "fill"),
               "is \"nan\", and TMA fills with NaN only fp16, bf16, fp32 and fp64 elements, not " +
                   element.text());
      }
      result.push_back(std::move(map));
    }
    return result;
  }

  /// The `global_scratch` member of a kernel or variant: its size per program.
  unsigned readGlobalScratch(const json::Value &scratch, const std::string &path) const {
    // Version 4's member: an older reader would launch the kernel without the scratch pointer
    // its .entry takes last, so a file that has it must say version 4.
    if (Version < 4)
      fail(scratch, path,
           "is a version 4 member (the .entry takes a global scratch pointer), and the file says "
           "version " +
               std::to_string(Version));
    expectKind(scratch, json::Value::Kind::Object, path);
    unsigned size = readUnsigned(scratch, "size", path, 0, INT32_MAX, std::nullopt);
    unsigned align = readUnsigned(scratch, "align", path, 1, 4096, 1u);
    if (align > 128 || (align & (align - 1)) != 0)
      fail(*scratch.find("align"), join(path, "align"),
           "must be a power of two up to 128 (the alignment the launch gives)");
    if (size % align != 0)
      fail(*scratch.find("size"), join(path, "size"), "is not a multiple of align");
    return size;
  }

  KernelInfo readVariant(const json::Value &variant, const std::string &path,
                         const KernelInfo &kernel) const {
    KernelInfo v;
    v.Name = kernel.Name;
    v.Params = kernel.Params;
    v.TensorDescriptors = kernel.TensorDescriptors;
    // A variant takes the kernel's tensor maps unless it lists its own (its .entry may load
    // other boxes).
    if (const json::Value *maps = variant.find("tensor_maps"))
      v.TensorMaps = readTensorMaps(*maps, join(path, "tensor_maps"), kernel);
    else
      v.TensorMaps = kernel.TensorMaps;
    v.GlobalScratchBytes = kernel.GlobalScratchBytes;
    if (const json::Value *scratch = variant.find("global_scratch"))
      v.GlobalScratchBytes = readGlobalScratch(*scratch, join(path, "global_scratch"));
    v.Entry = requireName(variant, "entry", path);
    v.NumWarps = readUnsigned(variant, "num_warps", path, 1, 32, std::nullopt);
    v.NumStages = readUnsigned(variant, "num_stages", path, 1, 64, 3u);
    v.ThreadsPerBlock = readUnsigned(variant, "threads_per_block", path, 1, 1024, std::nullopt);
    if (v.ThreadsPerBlock != 32 * v.NumWarps)
      fail(*variant.find("threads_per_block"), join(path, "threads_per_block"),
           "is not 32 * num_warps");
    v.SharedMemoryBytes =
        readUnsigned(variant, "shared_memory_bytes", path, 0, INT32_MAX, std::nullopt);
    if (const json::Value *constexprs = variant.find("constexprs")) {
      expectKind(*constexprs, json::Value::Kind::Array, join(path, "constexprs"));
      for (const json::Value &entry : constexprs->elements()) {
        expectKind(entry, json::Value::Kind::Object, join(path, "constexprs"));
        ConstexprInfo c;
        c.Name = requireName(entry, "name", path);
        c.Value = requireString(entry, "value", path).text();
        v.Constexprs.push_back(std::move(c));
      }
    }
    return v;
  }

  ParamInfo readParam(const json::Value &param, const std::string &path) const {
    expectKind(param, json::Value::Kind::Object, path);
    ParamInfo info;
    info.Name = requireName(param, "name", path);
    const json::Value &type = requireString(param, "type", path);
    std::optional<ParamType> parsed = ParamType::parse(type.text());
    if (!parsed)
      fail(type, join(path, "type"),
           "is \"" + type.text() +
               "\", not a type of the Triton signature (i1 i8 i16 i32 i64 u8 u16 u32 u64 fp16 "
               "bf16 fp32 fp64 fp8e4nv fp8e5 fp8e4b15, or * and one of them)");
    info.Type = *parsed;
    info.Alignment = readUnsigned(param, "alignment", path, 0, 1 << 20, 0u);
    info.Divisibility = readUnsigned(param, "divisibility", path, 0, INT32_MAX, 0u);
    if (info.Alignment & (info.Alignment - 1))
      fail(*param.find("alignment"), join(path, "alignment"),
           "is " + std::to_string(info.Alignment) + ", not a power of two");
    if (info.Alignment && !info.Type.IsPointer)
      fail(*param.find("alignment"), join(path, "alignment"),
           "is for pointer parameters, and this one is " + info.Type.str());
    if (info.Divisibility && (info.Type.IsPointer || !isInteger(info.Type.Element)))
      fail(*param.find("divisibility"), join(path, "divisibility"),
           "is for integer parameters, and this one is " + info.Type.str());
    return info;
  }

  std::string Origin;
  int Version = 0; // the document's, once read
};

} // namespace

Metadata Metadata::parse(std::string_view json, std::string_view origin) {
  json::Value root;
  try {
    root = json::parse(json);
  } catch (const json::ParseError &error) {
    throw Error(std::string(origin) + ":" + std::to_string(error.Where.Line) + ":" +
                std::to_string(error.Where.Column) + ": invalid JSON: " + error.Message);
  }
  return MetadataReader(origin).read(root);
}

std::string readTextFile(const std::string &path, const char *what) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw Error(std::string("cannot open ") + what + " '" + path + "': " + std::strerror(errno));
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad())
    throw Error(std::string("cannot read ") + what + " '" + path + "': " + std::strerror(errno));
  return contents.str();
}

Metadata Metadata::loadFile(const std::string &path) {
  return parse(readTextFile(path, "metadata file"), path);
}

} // namespace tilec::rt
