// libFuzzer target over kernel signatures (src/sema/Signature.cpp) and the constexpr literals they
// and -D carry. The first line of the input is a signature; it is parsed, printed back through
// signatureTypeName, and, when it parses, binds the parameters of a fixed kernel that uses its
// parameters as pointers, scalars and constexprs. The second line, if any, is a -D value for the
// kernel's defaulted constexpr.
#include "FuzzCommon.h"
#include "driver/Pipeline.h"
#include "sema/Signature.h"

#include <sstream>

using namespace tilec;

namespace {

const char *kKernel = R"(import triton
import triton.language as tl


@triton.jit
def k(a, b, c, D: tl.constexpr, E: tl.constexpr = 4):
    offs = tl.arange(0, 16)
    x = tl.load(a + offs) + b * D
    tl.store(a + offs, x + c + E)
)";

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  size_t newline = text.find('\n');
  std::string signature = text.substr(0, newline);
  std::string define = newline == std::string::npos ? "" : text.substr(newline + 1);

  std::string error;
  auto entries = sema::parseSignature(signature, error);
  if (!entries) {
    if (error.empty())
      std::abort(); // a rejected signature must say why
    return 0;
  }
  for (const sema::SignatureEntry &entry : *entries)
    if (entry.kind != sema::SignatureEntry::Kind::Constant)
      (void)sema::signatureTypeName(entry.type);

  static const std::string path = fuzz::writeInput(kKernel);
  fuzz::expectNoInternalError([&] {
    SourceManager sources;
    sources.setDiagnosticStream(nullptr);
    driver::CompileOptions options;
    options.inputPath = path;
    options.kernels = {{"k", signature}};
    if (!define.empty())
      options.defines = {{"E", define}};
    options.emit = driver::EmitKind::Tir;
    std::ostringstream log;
    driver::compile(options, sources, log);
  });
  return 0;
}
