// Source files and locations, and the diagnostics engine that reports errors against them.
//
// Every error tilec reports is printed the way compilers print them:
//
//   kernel.tl:12:9: error: message
//       x = tl.lod(ptr)
//           ^
//
// Reporting an error throws CompileError; the driver catches it and exits with status 1 without
// writing any output file. Stopping at the first error keeps every later stage free of "what if
// the input was bad" paths.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilec {

/// A position in a source file: 1-based line and column. `file` indexes SourceManager's files;
/// line 0 means "no location" (for example a value the driver made up from the command line).
struct SourceLoc {
  uint32_t file = 0;
  uint32_t line = 0;
  uint32_t col = 0;

  bool isValid() const { return line != 0; }
};

struct SourceFile {
  std::string name; // as given on the command line, used in messages
  std::string text;
  std::vector<size_t> lineStarts; // byte offset of each line's first character
};

/// Thrown once an error has been printed. Carries the already-formatted message too, so that
/// library users (tests, the C++ API) can inspect it without capturing stderr.
class CompileError : public std::runtime_error {
public:
  /// The failures Triton's autotuner takes as "this config does not work" and skips
  /// (CompileTimeAssertionFailure, OutOfResources), apart from every other error.
  enum class Kind { Other, CompileTimeAssertion, OutOfResources };

  /// `reported` says the message was already printed (by SourceManager), so the driver must not
  /// print it again.
  explicit CompileError(const std::string &formatted, bool reported = false,
                        Kind kind = Kind::Other)
      : std::runtime_error(formatted), reported_(reported), kind_(kind) {}
  bool reported() const { return reported_; }
  Kind kind() const { return kind_; }

private:
  bool reported_;
  Kind kind_;
};

class SourceManager {
public:
  /// Adds a file whose text is already in memory; returns its index for SourceLoc::file.
  uint32_t addFile(std::string name, std::string text);
  /// Reads a file from disk. Throws CompileError ("error: cannot open 'x'") when it can't.
  uint32_t loadFile(const std::string &path);

  const SourceFile &file(uint32_t index) const { return *files_.at(index); }
  /// The text of line `line` of `file`, without its newline.
  std::string lineText(uint32_t file, uint32_t line) const;

  /// Formats "file:line:col: <severity>: message" plus the source line and a caret.
  std::string format(SourceLoc loc, const std::string &severity, const std::string &message) const;

  /// Prints an error to the diagnostic stream and throws CompileError (of `kind`).
  [[noreturn]] void error(SourceLoc loc, const std::string &message,
                          CompileError::Kind kind = CompileError::Kind::Other) const;
  /// Prints a warning or note; compilation continues.
  void warning(SourceLoc loc, const std::string &message) const;
  void note(SourceLoc loc, const std::string &message) const;

  /// Where diagnostics go; stderr unless a test redirects them. Null silences printing
  /// (the message is still carried by CompileError).
  void setDiagnosticStream(std::ostream *stream) { stream_ = stream; }
  std::ostream *diagnosticStream() const { return stream_; }

  SourceManager();

private:
  std::vector<std::unique_ptr<SourceFile>> files_;
  std::ostream *stream_; // std::cerr unless set; null prints nothing
};

} // namespace tilec
