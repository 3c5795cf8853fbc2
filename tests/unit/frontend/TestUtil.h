// Helpers shared by the frontend tests: parse a string, or capture the error it reports.
#pragma once

#include "frontend/Parser.h"

#include <string>

namespace tilec::test {

/// Parses `source` as file `name`; the AST printed by ast::print. Fails the test (by letting
/// CompileError escape) if the source does not parse.
inline std::string parseAndPrint(const std::string &source, const std::string &name = "test.py") {
  SourceManager sources;
  sources.setDiagnosticStream(nullptr);
  uint32_t file = sources.addFile(name, source);
  return ast::print(*parseModule(sources, file));
}

/// Parses `source`, which must be invalid, and returns the formatted error. Returns
/// "<no error>" when it parses.
inline std::string parseError(const std::string &source, const std::string &name = "test.py") {
  SourceManager sources;
  sources.setDiagnosticStream(nullptr);
  uint32_t file = sources.addFile(name, source);
  try {
    parseModule(sources, file);
  } catch (const CompileError &error) {
    return error.what();
  }
  return "<no error>";
}

/// Just the first line of parseError(): "file:line:col: error: message".
inline std::string firstErrorLine(const std::string &source) {
  std::string error = parseError(source);
  return error.substr(0, error.find('\n'));
}

} // namespace tilec::test
