// libFuzzer target over the front of the pipeline: lexer, parser, sema and the TIR passes, then the
// layout passes (compile() up to --emit tgir), with the IR verified after every pass. The input is
// a source file; every @triton.jit function in it is compiled, with its `# tilec: -s` signature
// when it has one and otherwise with one derived from its parameters.
#include "FuzzCommon.h"
#include "driver/Pipeline.h"
#include "frontend/AST.h"
#include "frontend/Parser.h"
#include "sema/Sema.h"

#include <sstream>

using namespace tilec;

namespace {

/// A signature that fits a kernel's parameters: tl.constexpr ones get 16 (a valid block size),
/// pointer-looking names an aligned fp32 pointer, everything else i32. Parameters with defaults
/// are left to their defaults.
std::string deriveSignature(const ast::Stmt &kernel) {
  std::string signature;
  for (const ast::Param &param : kernel.params) {
    if (param.defaultValue)
      break;
    std::string annotation;
    if (param.annotation && param.annotation->kind == ast::ExprKind::Attribute)
      annotation = param.annotation->name;
    else if (param.annotation && param.annotation->kind == ast::ExprKind::Name)
      annotation = param.annotation->name;
    std::string entry = "i32";
    if (annotation == "constexpr")
      entry = "16";
    else if (param.name.find("ptr") != std::string::npos || param.name == "p")
      entry = "*fp32:16";
    signature += (signature.empty() ? "" : ",") + entry;
  }
  return signature;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  std::string path = fuzz::writeInput(text);

  std::vector<driver::KernelSpec> specs;
  fuzz::expectNoInternalError([&] {
    SourceManager sources;
    sources.setDiagnosticStream(nullptr);
    std::unique_ptr<ast::Module> module = parseModule(sources, sources.addFile(path, text));
    for (const ast::Stmt *kernel : sema::jitFunctions(*module)) {
      std::optional<std::string> signature = sema::signatureFromSource(sources, *kernel);
      specs.push_back({kernel->name, signature ? *signature : deriveSignature(*kernel)});
    }
  });
  // Each kernel on its own, so that one kernel's error does not hide the next one's crash.
  for (const driver::KernelSpec &spec : specs) {
    fuzz::expectNoInternalError([&] {
      SourceManager sources;
      sources.setDiagnosticStream(nullptr);
      driver::CompileOptions options;
      options.inputPath = path;
      options.kernels = {spec};
      options.emit = driver::EmitKind::Tgir;
      std::ostringstream log;
      driver::compile(options, sources, log);
    });
  }
  return 0;
}
