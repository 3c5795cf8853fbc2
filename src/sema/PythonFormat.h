// Python's format-spec mini-language (format(value, spec), f"{value:spec}", str.format) for the
// values module-level code formats: int, bool, float and str, written after CPython's
// Python/formatter_unicode.c and the float formatting of Python/pystrtod.c, with the same
// results and the same error messages.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

namespace tilec::sema {

/// The exception Python raises for a spec it refuses: its class ("ValueError", "OverflowError")
/// and its message.
struct PyFormatError {
  std::string cls;
  std::string message;
};

using PyFormatResult = std::variant<std::string, PyFormatError>;

/// format(v, spec) of an int; `isBool` formats a bool (True is 1) and names it in errors.
/// An empty spec is str(v), which callers give: these functions expect a non-empty spec.
PyFormatResult formatPythonInt(int64_t v, bool isBool, const std::string &spec);
/// format(v, spec) of a float.
PyFormatResult formatPythonFloat(double v, const std::string &spec);
/// format(s, spec) of a str (UTF-8; widths and precisions count code points, as Python's).
PyFormatResult formatPythonStr(const std::string &s, const std::string &spec);

} // namespace tilec::sema
