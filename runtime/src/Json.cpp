//===- Json.cpp - A small JSON reader for the metadata file ---------------===//

#include "Json.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace tilec::rt::json {

namespace {
// Deep enough for any metadata file, shallow enough that recursion cannot overflow the stack.
constexpr unsigned MaxNestingDepth = 64;
} // namespace

std::optional<int64_t> Value::asInt64() const {
  if (ValueKind != Kind::Number)
    return std::nullopt;
  if (Text.find_first_of(".eE") != std::string::npos)
    return std::nullopt;
  errno = 0;
  char *end = nullptr;
  long long value = std::strtoll(Text.c_str(), &end, 10);
  if (errno == ERANGE || end != Text.c_str() + Text.size())
    return std::nullopt;
  return static_cast<int64_t>(value);
}

const Value *Value::find(std::string_view key) const {
  for (const auto &[name, value] : Members)
    if (name == key)
      return &value;
  return nullptr;
}

const char *Value::kindName(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "a boolean";
  case Kind::Number:
    return "a number";
  case Kind::String:
    return "a string";
  case Kind::Array:
    return "an array";
  case Kind::Object:
    return "an object";
  }
  return "a value";
}

class Parser {
public:
  explicit Parser(std::string_view text) : Text(text) {}

  Value parseDocument() {
    skipWhitespace();
    Value value = parseValue(0);
    skipWhitespace();
    if (Pos != Text.size())
      fail("unexpected " + describeNext() + " after the JSON value");
    return value;
  }

private:
  [[noreturn]] void fail(const std::string &message) const { failAt(here(), message); }
  [[noreturn]] static void failAt(Location where, const std::string &message) {
    throw ParseError{where, message};
  }

  Location here() const { return Location{Line, static_cast<unsigned>(Pos - LineStart + 1)}; }
  bool atEnd() const { return Pos >= Text.size(); }
  char peek() const { return Text[Pos]; }

  std::string describeNext() const {
    if (atEnd())
      return "end of input";
    unsigned char c = static_cast<unsigned char>(peek());
    if (c < 0x20 || c >= 0x7f) {
      static const char Hex[] = "0123456789abcdef";
      return std::string("byte 0x") + Hex[c >> 4] + Hex[c & 15];
    }
    return std::string("'") + peek() + "'";
  }

  void advance() {
    if (peek() == '\n') {
      ++Line;
      LineStart = Pos + 1;
    }
    ++Pos;
  }

  void skipWhitespace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      advance();
  }

  void expect(char c) {
    if (atEnd() || peek() != c)
      fail(std::string("expected '") + c + "', found " + describeNext());
    advance();
  }

  Value parseValue(unsigned depth) {
    if (atEnd())
      fail("expected a value, found end of input");
    char c = peek();
    if (c == '{' || c == '[') {
      if (depth >= MaxNestingDepth)
        fail("nesting deeper than " + std::to_string(MaxNestingDepth) + " levels");
      return c == '{' ? parseObject(depth + 1) : parseArray(depth + 1);
    }
    if (c == '"') {
      Value value = start(Value::Kind::String);
      value.Text = parseString();
      return value;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber();
    if (matchWord("true") || matchWord("false")) {
      Value value = start(Value::Kind::Bool);
      value.BoolValue = c == 't';
      consumeWord(value.BoolValue ? 4 : 5);
      return value;
    }
    if (matchWord("null")) {
      Value value = start(Value::Kind::Null);
      consumeWord(4);
      return value;
    }
    fail("expected a value, found " + describeNext());
  }

  Value start(Value::Kind kind) const {
    Value value;
    value.ValueKind = kind;
    value.Where = here();
    return value;
  }

  bool matchWord(std::string_view word) const { return Text.substr(Pos, word.size()) == word; }
  void consumeWord(size_t length) {
    Pos += length; // words contain no newline
    if (!atEnd() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_'))
      fail("unexpected " + describeNext() + " after a literal");
  }

  Value parseObject(unsigned depth) {
    Value object = start(Value::Kind::Object);
    advance(); // '{'
    skipWhitespace();
    if (!atEnd() && peek() == '}') {
      advance();
      return object;
    }
    while (true) {
      skipWhitespace();
      if (atEnd() || peek() != '"')
        fail("expected a member name in double quotes, found " + describeNext());
      Location keyWhere = here();
      std::string key = parseString();
      if (object.find(key))
        failAt(keyWhere, "duplicate member \"" + key + "\"");
      skipWhitespace();
      expect(':');
      skipWhitespace();
      Value member = parseValue(depth);
      object.Members.emplace_back(std::move(key), std::move(member));
      skipWhitespace();
      if (!atEnd() && peek() == ',') {
        advance();
        continue;
      }
      if (!atEnd() && peek() == '}') {
        advance();
        return object;
      }
      fail("expected ',' or '}' in an object, found " + describeNext());
    }
  }

  Value parseArray(unsigned depth) {
    Value array = start(Value::Kind::Array);
    advance(); // '['
    skipWhitespace();
    if (!atEnd() && peek() == ']') {
      advance();
      return array;
    }
    while (true) {
      skipWhitespace();
      array.Elements.push_back(parseValue(depth));
      skipWhitespace();
      if (!atEnd() && peek() == ',') {
        advance();
        continue;
      }
      if (!atEnd() && peek() == ']') {
        advance();
        return array;
      }
      fail("expected ',' or ']' in an array, found " + describeNext());
    }
  }

  Value parseNumber() {
    Value number = start(Value::Kind::Number);
    size_t begin = Pos;
    auto digits = [&] {
      size_t first = Pos;
      while (!atEnd() && peek() >= '0' && peek() <= '9')
        ++Pos;
      return Pos - first;
    };
    if (peek() == '-')
      ++Pos;
    if (!atEnd() && peek() == '0') {
      ++Pos;
      if (!atEnd() && peek() >= '0' && peek() <= '9')
        fail("numbers cannot have leading zeros");
    } else if (digits() == 0) {
      fail("expected a digit, found " + describeNext());
    }
    if (!atEnd() && peek() == '.') {
      ++Pos;
      if (digits() == 0)
        fail("expected a digit after '.', found " + describeNext());
    }
    if (!atEnd() && (peek() == 'e' || peek() == 'E')) {
      ++Pos;
      if (!atEnd() && (peek() == '+' || peek() == '-'))
        ++Pos;
      if (digits() == 0)
        fail("expected a digit in the exponent, found " + describeNext());
    }
    number.Text = std::string(Text.substr(begin, Pos - begin));
    return number;
  }

  unsigned parseHex4() {
    unsigned value = 0;
    for (int i = 0; i < 4; ++i) {
      if (atEnd() || !std::isxdigit(static_cast<unsigned char>(peek())))
        fail("expected four hex digits after \\u, found " + describeNext());
      char c = peek();
      value = value * 16 + (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
      ++Pos;
    }
    return value;
  }

  static void appendUtf8(std::string &out, unsigned codePoint) {
    if (codePoint < 0x80) {
      out += static_cast<char>(codePoint);
    } else if (codePoint < 0x800) {
      out += static_cast<char>(0xc0 | (codePoint >> 6));
      out += static_cast<char>(0x80 | (codePoint & 0x3f));
    } else if (codePoint < 0x10000) {
      out += static_cast<char>(0xe0 | (codePoint >> 12));
      out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (codePoint & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (codePoint >> 18));
      out += static_cast<char>(0x80 | ((codePoint >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (codePoint & 0x3f));
    }
  }

  std::string parseString() {
    advance(); // opening quote
    std::string out;
    while (true) {
      if (atEnd())
        fail("unterminated string");
      char c = peek();
      if (c == '"') {
        ++Pos;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        fail("control character " + describeNext() + " in a string (escape it)");
      if (c != '\\') {
        out += c;
        ++Pos;
        continue;
      }
      ++Pos;
      if (atEnd())
        fail("unterminated string");
      char escape = peek();
      ++Pos;
      switch (escape) {
      case '"':
      case '\\':
      case '/':
        out += escape;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        unsigned codePoint = parseHex4();
        if (codePoint >= 0xdc00 && codePoint <= 0xdfff)
          fail("unpaired low surrogate in \\u escape");
        if (codePoint >= 0xd800 && codePoint <= 0xdbff) {
          if (!matchWord("\\u"))
            fail("high surrogate in \\u escape without its low surrogate");
          Pos += 2;
          unsigned low = parseHex4();
          if (low < 0xdc00 || low > 0xdfff)
            fail("high surrogate in \\u escape without its low surrogate");
          codePoint = 0x10000 + ((codePoint - 0xd800) << 10) + (low - 0xdc00);
        }
        appendUtf8(out, codePoint);
        break;
      }
      default:
        --Pos;
        fail("invalid escape in a string: backslash followed by " + describeNext());
      }
    }
  }

  std::string_view Text;
  size_t Pos = 0;
  unsigned Line = 1;
  size_t LineStart = 0;
};

Value parse(std::string_view text) {
  return Parser(text).parseDocument();
}

} // namespace tilec::rt::json
