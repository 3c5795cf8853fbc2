// The header reads, for samples/vector_add.tl:
//
//   namespace tilec {
//   namespace vector_add_1a2b3c4d { inline constexpr char ptx[] = "..."; ... }
//   /// add_kernel(x_ptr: *fp32:16, y_ptr: *fp32:16, output_ptr: *fp32:16, n_elements: i32)
//   inline void add_kernel(CUstream stream, ::tilec::rt::Grid grid, ::tilec::rt::Ptr<float> x_ptr,
//                          ..., ::tilec::rt::Scalar<int32_t> n_elements) { ... }
//   namespace add_kernel_constexprs { inline constexpr int64_t BLOCK_SIZE = 1024; }
//   }
//
// The typed parameters (runtime.hpp's Ptr and Scalar) make a wrong argument type fail to compile;
// values (ranges, alignment) are still checked at launch by the runtime, against the embedded
// metadata. The module is loaded once per context through rt::ModuleCache, and each kernel is
// looked up once per context (rt::CachedKernel, a function-local static of <name>_kernel()).
#include "driver/Header.h"

#include "frontend/SourceManager.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace tilec::driver {
namespace {

using Json = nlohmann::json;

/// The C++ type a launcher takes for a Triton signature type ("*fp32" -> Ptr<float>).
std::string cppParamType(const std::string &type) {
  bool pointer = !type.empty() && type[0] == '*';
  std::string element = pointer ? type.substr(1) : type;
  static const std::pair<const char *, const char *> elements[] = {
      {"i1", "bool"},
      {"i8", "int8_t"},
      {"i16", "int16_t"},
      {"i32", "int32_t"},
      {"i64", "int64_t"},
      {"u8", "uint8_t"},
      {"u16", "uint16_t"},
      {"u32", "uint32_t"},
      {"u64", "uint64_t"},
      {"fp16", "::tilec::rt::fp16"},
      {"bf16", "::tilec::rt::bf16"},
      {"fp32", "float"},
      {"fp64", "double"},
      {"fp8e4nv", "::tilec::rt::fp8e4nv"},
      {"fp8e5", "::tilec::rt::fp8e5"},
      {"fp8e4b15", "::tilec::rt::fp8e4b15"},
  };
  for (const auto &[name, cpp] : elements)
    if (element == name)
      return std::string(pointer ? "::tilec::rt::Ptr<" : "::tilec::rt::Scalar<") + cpp + ">";
  throw CompileError("internal compiler error: --emit header: unknown type '" + type +
                     "' in the metadata");
}

/// A Python identifier as a C++ one: C++ keywords and the launchers' own parameter names get a
/// trailing underscore; the elements of a tuple argument (`strides.0`) are `strides_0`.
std::string cppName(std::string name) {
  std::replace(name.begin(), name.end(), '.', '_');
  static const std::set<std::string> reserved = {
      "alignas",  "alignof",   "asm",       "auto",      "bool",      "case",
      "catch",    "char",      "class",     "const",     "constexpr", "const_cast",
      "default",  "delete",    "do",        "double",    "dynamic_cast", "enum",
      "explicit", "export",    "extern",    "float",     "friend",    "goto",
      "inline",   "int",       "long",      "mutable",   "namespace", "new",
      "noexcept", "nullptr",   "operator",  "private",   "protected", "public",
      "register", "reinterpret_cast", "short", "signed", "sizeof",    "static",
      "static_assert", "static_cast", "struct", "switch", "template", "this",
      "thread_local", "throw", "true",      "false",     "typedef",   "typeid",
      "typename", "union",     "unsigned",  "using",     "virtual",   "void",
      "volatile", "wchar_t",   "stream",    "grid",      "tilec",     "std"};
  return reserved.count(name) ? name + "_" : name;
}

/// `text` as a sequence of C string literals, one per line of the text, so that the header stays
/// readable and diffs of it are line by line.
void writeStringLiteral(std::ostream &out, const std::string &text) {
  if (text.empty()) {
    out << "    \"\"";
    return;
  }
  out << "    \"";
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    switch (c) {
    case '\\':
      out << "\\\\";
      break;
    case '"':
      out << "\\\"";
      break;
    case '\t':
      out << "\\t";
      break;
    case '\n':
      out << "\\n\"";
      if (i + 1 < text.size())
        out << "\n    \"";
      continue;
    default:
      if (c < 0x20 || c >= 0x7f || c == '?') { // '?' would risk trigraphs in old dialects
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\%03o", c);
        out << escaped;
      } else {
        out << static_cast<char>(c);
      }
    }
  }
  if (text.back() != '\n')
    out << "\"";
}

/// The stem of a path, made a C++ identifier ("samples/vector-add.tl" -> "vector_add").
std::string identifierStem(const std::string &path) {
  size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = name.find('.');
  if (dot != std::string::npos)
    name.resize(dot);
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    name = "k_" + name;
  return name;
}

/// FNV-1a: names the embedded data's namespace after its contents, so that two headers of
/// same-named sources in one program do not define the same inline variables differently.
uint32_t fnv1a(const std::string &text) {
  uint32_t hash = 2166136261u;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 16777619u;
  }
  return hash;
}

/// A constexpr's value as a C++ constant definition, or "" when it has no C++ form (a dtype).
std::string constexprDefinition(const std::string &name, const std::string &value) {
  if (value == "True" || value == "False")
    return "inline constexpr bool " + cppName(name) + " = " + (value == "True" ? "true" : "false") +
           ";";
  if (value.empty())
    return "";
  char *end = nullptr;
  long long asInteger = std::strtoll(value.c_str(), &end, 10);
  if (*end == '\0')
    return "inline constexpr int64_t " + cppName(name) + " = " + std::to_string(asInteger) + ";";
  double asDouble = std::strtod(value.c_str(), &end);
  (void)asDouble;
  if (*end == '\0')
    return "inline constexpr double " + cppName(name) + " = " + value + ";";
  return "";
}

} // namespace

std::string emitHeader(const std::string &ptx, const std::string &metadataJson,
                       const std::string &sourceName, bool fatbin) {
  Json meta;
  try {
    meta = Json::parse(metadataJson);
  } catch (const std::exception &e) {
    throw CompileError(std::string("internal compiler error: --emit header: ") + e.what());
  }
  std::string stem = identifierStem(sourceName);
  char hash[16];
  std::snprintf(hash, sizeof hash, "%08x", fnv1a(ptx + metadataJson));
  std::string dataNamespace = stem + "_" + hash;
  size_t slash = sourceName.find_last_of('/');
  std::string shownSource = slash == std::string::npos ? sourceName : sourceName.substr(slash + 1);

  std::ostringstream out;
  out << "// Generated by tilec from " << shownSource << " (target "
      << meta.value("target", std::string("?")) << "). Do not edit: regenerate with\n"
      << "//   tilec " << shownSource << " --emit header ...\n"
      << "// One typed launcher per kernel; the " << (fatbin ? "fatbin" : "PTX")
      << " and its metadata are embedded and loaded once\n"
      << "// per CUDA context (tilec::rt::ModuleCache). Link the tilec runtime (tilec::runtime).\n"
      << "#pragma once\n\n"
      << "#include \"tilec/runtime.hpp\"\n\n"
      << "#include <cstdint>\n\n"
      << "namespace tilec {\n\n"
      << "namespace " << dataNamespace << " {\n";
  // A fatbin is binary: the string literal spells its bytes in octal escapes, and the runtime
  // copies it into an aligned buffer before cuModuleLoadDataEx, so the array needs no alignment.
  const char *image = fatbin ? "fatbin" : "ptx";
  if (fatbin)
    out << "/// A fatbin (machine code for " << meta.value("targets", Json::array()).dump()
        << "): the driver loads it without JIT.\n";
  out << "inline constexpr char " << image << "[] =\n";
  writeStringLiteral(out, ptx);
  out << ";\ninline constexpr char metadata[] =\n";
  writeStringLiteral(out, metadataJson);
  out << ";\n/// The module in the current context, loaded on first use.\n"
      << "inline ::tilec::rt::Module module() {\n"
      << "  return ::tilec::rt::ModuleCache::global().get({" << image << ", sizeof " << image
      << " - 1},\n"
      << "                                                {metadata, sizeof metadata - 1}, \""
      << shownSource << "\");\n"
      << "}\n"
      << "} // namespace " << dataNamespace << "\n";

  for (const Json &kernel : meta.at("kernels")) {
    std::string name = kernel.at("name").get<std::string>();
    bool autotuned = kernel.contains("variants");
    std::string signature;
    std::string params;
    std::string args;
    // A tensordesc<...> argument's parameters are one TensorDescriptor in the launcher.
    std::map<size_t, Json> descriptors;
    for (const Json &desc : kernel.value("tensor_descriptors", Json::array()))
      descriptors[desc.at("first_param").get<size_t>()] = desc;
    const Json &paramList = kernel.at("params");
    for (size_t i = 0; i < paramList.size(); ++i) {
      const Json &param = paramList[i];
      if (auto desc = descriptors.find(i); desc != descriptors.end()) {
        std::string dname = desc->second.at("name").get<std::string>();
        signature += (signature.empty() ? "" : ", ") + dname + ": " +
                     desc->second.at("signature").get<std::string>();
        params += ",\n    const ::tilec::rt::TensorDescriptor &" + cppName(dname);
        args += ",\n      ::tilec::rt::Arg(" + cppName(dname) + ")";
        i += 1 + 2 * desc->second.at("block_shape").size();
        continue;
      }
      std::string pname = param.at("name").get<std::string>();
      std::string type = param.at("type").get<std::string>();
      unsigned hint = param.value("alignment", 0u) + param.value("divisibility", 0u);
      signature += (signature.empty() ? "" : ", ") + pname + ": " + type +
                   (hint ? ":" + std::to_string(hint) : "");
      params += ",\n    " + cppParamType(type) + " " + cppName(pname);
      args += ",\n      " + cppName(pname) + ".arg()";
    }
    out << "\n/// " << name << "(" << signature << ")\n";
    if (autotuned) {
      out << "/// Autotuned over " << kernel.at("variants").size()
          << " configurations; the grid may depend on the chosen one's constexprs.\n";
    } else {
      out << "/// num_warps " << kernel.at("num_warps").get<unsigned>();
      for (const Json &c : kernel.value("constexprs", Json::array()))
        out << ", " << c.at("name").get<std::string>() << "=" << c.at("value").get<std::string>();
      out << "\n";
    }
    out << "/// The kernel itself (info(), pin() of a variant, chosenEntry()...), looked up once per\n"
        << "/// CUDA context.\n"
        << "inline ::tilec::rt::Kernel " << cppName(name) << "_kernel() {\n"
        << "  static const ::tilec::rt::CachedKernel cached(\n"
        << "      {" << dataNamespace << "::" << image << ", sizeof " << dataNamespace
        << "::" << image << " - 1},\n"
        << "      {" << dataNamespace << "::metadata, sizeof " << dataNamespace
        << "::metadata - 1}, \"" << shownSource << "\", \"" << name << "\");\n"
        << "  return cached.get();\n}\n";
    out << "inline void " << cppName(name) << "(\n    CUstream stream, "
        << (autotuned ? "const ::tilec::rt::LaunchGrid &grid" : "::tilec::rt::Grid grid")
        << params << ") {\n"
        << "  " << cppName(name) << "_kernel().launch(\n      grid, stream"
        << args << ");\n"
        << "}\n";
    if (!autotuned) {
      std::string constants;
      for (const Json &c : kernel.value("constexprs", Json::array())) {
        std::string definition = constexprDefinition(c.at("name").get<std::string>(),
                                                     c.at("value").get<std::string>());
        if (!definition.empty())
          constants += definition + "\n";
      }
      if (!constants.empty())
        out << "/// The constexprs " << name << " was compiled with (for grids).\n"
            << "namespace " << cppName(name) << "_constexprs {\n"
            << constants << "} // namespace " << cppName(name) << "_constexprs\n";
    }
  }
  out << "\n} // namespace tilec\n";
  return out.str();
}

} // namespace tilec::driver
