// Source text -> AST. The ANTLR-generated lexer and parser stay behind this interface: nothing
// outside src/frontend includes an ANTLR header.
#pragma once

#include "frontend/AST.h"

namespace tilec {

/// Parses file `fileIndex` of `sources` as a Python 3 module. A syntax or indentation error is
/// reported through `sources.error` (which throws CompileError) at the offending token.
std::unique_ptr<ast::Module> parseModule(const SourceManager &sources, uint32_t fileIndex);

} // namespace tilec
