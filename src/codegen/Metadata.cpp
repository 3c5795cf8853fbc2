#include "codegen/Metadata.h"

#include "codegen/SharedMemory.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace tilec::codegen {

using tir::ScalarKind;

static const char *scalarName(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::I1:
    return "i1";
  case ScalarKind::I8:
    return "i8";
  case ScalarKind::I16:
    return "i16";
  case ScalarKind::I32:
    return "i32";
  case ScalarKind::I64:
    return "i64";
  case ScalarKind::U8:
    return "u8";
  case ScalarKind::U16:
    return "u16";
  case ScalarKind::U32:
    return "u32";
  case ScalarKind::U64:
    return "u64";
  case ScalarKind::F8E4M3:
    return "fp8e4nv";
  case ScalarKind::F8E5M2:
    return "fp8e5";
  case ScalarKind::F8E4B15:
    return "fp8e4b15";
  case ScalarKind::F16:
    return "fp16";
  case ScalarKind::BF16:
    return "bf16";
  case ScalarKind::F32:
    return "fp32";
  case ScalarKind::F64:
    return "fp64";
  case ScalarKind::Ptr:
    break;
  }
  return "?";
}

std::string signatureTypeName(const tir::DType &type) {
  if (type.isPointer())
    return std::string("*") + scalarName(type.pointee);
  return scalarName(type.kind);
}

std::string kernelMetadataJson(const tir::Module &module, const TargetOptions &options,
                               const std::string &sourceName,
                               const std::vector<KernelVariants> &variants) {
  using Json = nlohmann::ordered_json;
  Json root;
  root["schema"] = "tilec-metadata";
  // The lowest version that describes the file (set below, once the kernels are known): 1, 2
  // with variants, 3 with tensor maps (which readers must not ignore; v3 may have variants too).
  // Version 1 readers (bench.py, older runtimes) still read files without either.
  root["version"] = 1;
  root["compiler"] = "tilec 0.1.0";
  root["source"] = sourceName;
  root["target"] = options.arch;

  auto constexprsOf = [](const tir::Function &function) {
    Json constexprs = Json::array();
    for (const tir::ConstexprBinding &binding : function.constexprs)
      constexprs.push_back(Json{{"name", binding.name}, {"value", binding.value}});
    return constexprs;
  };
  // The CUtensorMaps TMA copies read: parameters after `params` that launchers build from the
  // descriptors' parameters (docs/metadata.md).
  auto tensorMapsOf = [](const tir::Function &function) {
    Json maps = Json::array();
    for (const tir::TensorMap &map : function.tensorMaps)
      maps.push_back(
          Json{{"descriptor", map.descriptor},
               {"box", map.box},
               {"swizzle", map.swizzleBytes},
               {"element", signatureTypeName(function.tensorDescriptors.at(map.descriptor).elem)}});
    return maps;
  };
  bool anyTensorMaps = false;
  // The global scratch of kernels that write their own tensor maps: the last .entry parameter.
  auto globalScratchOf = [](const tir::Function &function) {
    return Json{{"size", function.globalScratchBytes()}, {"align", tir::kKernelTensorMapBytes}};
  };
  bool anyGlobalScratch = false;
  auto describe = [&](const tir::Function &function, const std::string &name) {
    Json kernel;
    kernel["name"] = name;
    kernel["entry"] = function.name();
    kernel["num_warps"] = function.numWarps;
    kernel["threads_per_block"] = 32 * function.numWarps;
    kernel["shared_memory_bytes"] = sharedMemoryBytes(function);
    if (function.maxRegisters)
      kernel["maxnreg"] = function.maxRegisters;
    Json params = Json::array();
    for (const tir::ParamInfo &param : function.params) {
      Json p;
      p["name"] = param.name;
      p["type"] = signatureTypeName(param.type);
      if (param.type.isPointer())
        p["alignment"] = param.alignment;
      else
        p["divisibility"] = param.divisibility;
      params.push_back(std::move(p));
    }
    kernel["params"] = std::move(params);
    // Which runs of params are `tensordesc<...>` arguments, so that launchers can take one
    // descriptor for them; readers that do not know this member pass the params one by one.
    if (!function.tensorDescriptors.empty()) {
      Json descriptors = Json::array();
      for (const tir::TensorDescParam &desc : function.tensorDescriptors) {
        std::string shape;
        for (int64_t d : desc.blockShape)
          shape += (shape.empty() ? "" : ", ") + std::to_string(d);
        descriptors.push_back(
            Json{{"name", desc.name},
                 {"signature", "tensordesc<" + signatureTypeName(desc.elem) + "[" + shape + "]>"},
                 {"dtype", signatureTypeName(desc.elem)},
                 {"block_shape", desc.blockShape},
                 {"first_param", desc.firstParam}});
      }
      kernel["tensor_descriptors"] = std::move(descriptors);
    }
    if (!function.tensorMaps.empty()) {
      kernel["tensor_maps"] = tensorMapsOf(function);
      anyTensorMaps = true;
    }
    if (function.globalScratchBytes() > 0) {
      kernel["global_scratch"] = globalScratchOf(function);
      anyGlobalScratch = true;
    }
    kernel["constexprs"] = constexprsOf(function);
    return kernel;
  };
  auto findFunction = [&](const std::string &entry) -> const tir::Function * {
    for (const auto &function : module.functions)
      if (function->name() == entry)
        return function.get();
    return nullptr;
  };

  Json kernels = Json::array();
  for (const auto &function : module.functions) {
    const KernelVariants *group = nullptr;
    for (const KernelVariants &candidate : variants)
      if (std::find(candidate.entries.begin(), candidate.entries.end(), function->name()) !=
          candidate.entries.end())
        group = &candidate;
    if (!group) {
      kernels.push_back(describe(*function, function->name()));
      continue;
    }
    if (group->entries.front() != function->name())
      continue; // described with the group's first variant
    // The kernel's own members are those of variant 0, so a reader that ignores variants can
    // still launch it; "variants" lists every variant, 0 included.
    Json kernel = describe(*function, group->name);
    kernel["autotune_key"] = group->key;
    Json list = Json::array();
    for (size_t i = 0; i < group->entries.size(); ++i) {
      const tir::Function *variant = findFunction(group->entries[i]);
      if (!variant)
        continue;
      Json v;
      v["entry"] = variant->name();
      v["num_warps"] = variant->numWarps;
      v["num_stages"] = i < group->numStages.size() ? group->numStages[i] : variant->numStages;
      v["threads_per_block"] = 32 * variant->numWarps;
      v["shared_memory_bytes"] = sharedMemoryBytes(*variant);
      if (variant->maxRegisters)
        v["maxnreg"] = variant->maxRegisters;
      v["constexprs"] = constexprsOf(*variant);
      // A variant whose .entry takes other maps than the kernel's (variant 0's) lists its own,
      // `[]` for none (a config whose loop is not pipelined loads without TMA).
      Json maps = tensorMapsOf(*variant);
      if (maps != kernel.value("tensor_maps", Json::array())) {
        anyTensorMaps |= !maps.empty();
        v["tensor_maps"] = std::move(maps);
      }
      // Likewise its global scratch (size 0: none), where it differs from the kernel's.
      unsigned kernelScratch =
          kernel.contains("global_scratch") ? kernel["global_scratch"]["size"].get<unsigned>() : 0;
      if (variant->globalScratchBytes() != kernelScratch) {
        anyGlobalScratch |= variant->globalScratchBytes() > 0;
        v["global_scratch"] = globalScratchOf(*variant);
      }
      list.push_back(std::move(v));
    }
    kernel["variants"] = std::move(list);
    kernels.push_back(std::move(kernel));
  }
  root["kernels"] = std::move(kernels);
  root["version"] = anyGlobalScratch ? 4 : anyTensorMaps ? 3 : variants.empty() ? 1 : 2;
  return root.dump(2) + "\n";
}

} // namespace tilec::codegen
