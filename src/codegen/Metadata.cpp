#include "codegen/Metadata.h"

#include "codegen/SharedMemory.h"

#include <nlohmann/json.hpp>

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
                               const std::string &sourceName) {
  using Json = nlohmann::ordered_json;
  Json root;
  root["schema"] = "tilec-metadata";
  root["version"] = 1;
  root["compiler"] = "tilec 0.1.0";
  root["source"] = sourceName;
  root["target"] = options.arch;
  Json kernels = Json::array();
  for (const auto &function : module.functions) {
    Json kernel;
    kernel["name"] = function->name();
    kernel["entry"] = function->name();
    kernel["num_warps"] = function->numWarps;
    kernel["threads_per_block"] = 32 * function->numWarps;
    kernel["shared_memory_bytes"] = sharedMemoryBytes(*function);
    Json params = Json::array();
    for (const tir::ParamInfo &param : function->params) {
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
    Json constexprs = Json::array();
    for (const tir::ConstexprBinding &binding : function->constexprs)
      constexprs.push_back(Json{{"name", binding.name}, {"value", binding.value}});
    kernel["constexprs"] = std::move(constexprs);
    kernels.push_back(std::move(kernel));
  }
  root["kernels"] = std::move(kernels);
  return root.dump(2) + "\n";
}

} // namespace tilec::codegen
