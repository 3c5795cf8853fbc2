//===- Json.h - A small JSON reader for the metadata file -------*- C++ -*-===//
//
// The runtime must build where no JSON library is installed, so it reads its one JSON document
// itself. This is a strict RFC 8259 reader: no comments, no trailing commas, no duplicate keys,
// nesting limited so that hostile input cannot exhaust the stack. Errors carry a line and column.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_JSON_H
#define TILEC_RUNTIME_JSON_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilec::rt::json {

/// Where a value starts in the document, for error messages (1-based).
struct Location {
  unsigned Line = 1;
  unsigned Column = 1;
};

class Value {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Kind kind() const { return ValueKind; }
  Location location() const { return Where; }
  bool isNull() const { return ValueKind == Kind::Null; }
  bool isBool() const { return ValueKind == Kind::Bool; }
  bool isNumber() const { return ValueKind == Kind::Number; }
  bool isString() const { return ValueKind == Kind::String; }
  bool isArray() const { return ValueKind == Kind::Array; }
  bool isObject() const { return ValueKind == Kind::Object; }

  bool asBool() const { return BoolValue; }
  /// The text of a string, or the literal text of a number as written ("1024", "-2.5e3").
  const std::string &text() const { return Text; }
  /// The number as an exact 64-bit integer, or nullopt if it is not an integer literal or does
  /// not fit ("1e3" and "2.0" are not integer literals).
  std::optional<int64_t> asInt64() const;
  const std::vector<Value> &elements() const { return Elements; }
  const std::vector<std::pair<std::string, Value>> &members() const { return Members; }
  /// The member of that key, or nullptr (objects only).
  const Value *find(std::string_view key) const;

  /// "null", "a boolean", "a number", "a string", "an array", "an object".
  static const char *kindName(Kind kind);

private:
  friend class Parser;
  Kind ValueKind = Kind::Null;
  Location Where;
  bool BoolValue = false;
  std::string Text;
  std::vector<Value> Elements;
  std::vector<std::pair<std::string, Value>> Members;
};

/// Thrown by parse with a message "line:col: what was wrong".
struct ParseError {
  Location Where;
  std::string Message;
};

/// Parses one JSON document (surrounding whitespace allowed). Throws ParseError.
Value parse(std::string_view text);

} // namespace tilec::rt::json

#endif // TILEC_RUNTIME_JSON_H
